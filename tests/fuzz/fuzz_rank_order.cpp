// libFuzzer target: rank-order files on the built-in cluster, text (parse_rank_order_text: one host
// or GPU per line, hostfile "slots=") or JSON (an array of names, or {"ranks", "channel_rings"}), split
// as load_rank_order() splits them; for every GPU and for 4 ranks. Only InputError may reject an input.
#include "fuzz_common.hpp"
#include "ringlab/sim/rank_order.hpp"
#include "ringlab/topology/json_reader.hpp"
#include "ringlab/topology/scenario.hpp"

namespace {

void read_order(const ringlab::Topology& cluster, std::string_view text, int count) {
  using namespace ringlab;
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || (text[first] != '{' && text[first] != '[')) {
    sim::parse_rank_order_text(cluster, text, "fuzz.hosts", count);
    return;
  }
  const nlohmann::json document = parse_json_text(text, "fuzz.json");
  ProblemList problems("fuzz.json");
  JsonReader reader(problems);
  const JsonNode root{&document, ""};
  if (!document.is_object()) sim::read_rank_order(cluster, reader, root, count);
  else if (const auto member = reader.required(root, "rank_order", "the rank order"))
    if (!member->value->is_string()) sim::read_rank_order(cluster, reader, *member, count);  // a string names a file
  problems.throw_if_any();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ringlab;
  static const Topology cluster = default_scenario().cluster;
  constexpr int kSomeRanks = 4;
  for (const int count : {0, kSomeRanks})
    fuzz::expect_only_input_errors([&] { read_order(cluster, fuzz::as_text(data, size), count); });
  return 0;
}
