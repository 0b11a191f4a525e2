// libFuzzer target: scenario files (parse_scenario), then what `ringlab train` and `ringlab simulate`
// read next from a loaded scenario: the training job (workload, strategy and train sections), the
// simulate section's rank order and the nccl section (NCCL's settings). Only InputError may reject an
// input (fuzz_common.hpp).
#include "fuzz_common.hpp"
#include "ringlab/sim/nccl_env.hpp"
#include "ringlab/sim/rank_order.hpp"
#include "ringlab/sim/training.hpp"
#include "ringlab/topology/json_reader.hpp"
#include "ringlab/topology/scenario.hpp"

namespace {

/// A "rank_order" string names a file to read; the fuzzer must not make the target read arbitrary
/// files (/dev/zero never ends), so such members are dropped before the section is read.
void drop_rank_order_file(nlohmann::json& section) {
  if (section.is_object() && section.contains("rank_order") && section["rank_order"].is_string())
    section.erase("rank_order");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ringlab;
  ringlab::Scenario scenario;
  bool loaded = false;
  fuzz::expect_only_input_errors([&] {
    scenario = parse_scenario(fuzz::as_text(data, size), "fuzz.json");
    loaded = true;
  });
  if (!loaded) return 0;
  drop_rank_order_file(scenario.train);
  drop_rank_order_file(scenario.simulate);
  fuzz::expect_only_input_errors([&] { sim::train_job_from_scenario(scenario); });
  fuzz::expect_only_input_errors([&] {
    std::vector<std::string> warnings;
    sim::nccl_env_from(scenario.nccl, scenario.file, {}, warnings);
  });
  fuzz::expect_only_input_errors([&] {
    ProblemList problems(scenario.file);
    JsonReader reader(problems);
    const JsonNode section{&scenario.simulate, "/simulate"};
    if (const auto order = reader.member(section, "rank_order"))
      sim::read_rank_order(scenario.cluster, reader, *order, 0, scenario.file);
    problems.throw_if_any();
  });
  return 0;
}
