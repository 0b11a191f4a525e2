// libFuzzer target: schedule files (read_schedule_json, "ringlab.schedule" version 1) against the
// built-in cluster, as `ringlab simulate --schedule` reads them. Only InputError may reject an input.
#include "fuzz_common.hpp"
#include "ringlab/sim/schedule_json.hpp"
#include "ringlab/topology/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ringlab;
  static const Topology cluster = default_scenario().cluster;
  fuzz::expect_only_input_errors([&] {
    const nlohmann::json document = parse_json_text(fuzz::as_text(data, size), "fuzz.schedule.json");
    sim::read_schedule_json(document, cluster, "fuzz.schedule.json");
  });
  return 0;
}
