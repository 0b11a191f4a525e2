// libFuzzer target: results files (read_results_json, "ringlab.results" version 1), as `ringlab
// compare` reads them. Only InputError may reject an input (fuzz_common.hpp).
#include "fuzz_common.hpp"
#include "ringlab/sim/result_json.hpp"
#include "ringlab/topology/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ringlab;
  fuzz::expect_only_input_errors([&] {
    const nlohmann::json document = parse_json_text(fuzz::as_text(data, size), "fuzz.results.json");
    sim::read_results_json(document, "fuzz.results.json");
  });
  return 0;
}
