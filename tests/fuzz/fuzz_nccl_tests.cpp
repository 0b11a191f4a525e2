// libFuzzer target: nccl-tests output (text and -J JSON) as `ringlab compare` and `ringlab calibrate`
// read it (sim/nccl_tests.hpp). Only InputError may reject an input (fuzz_common.hpp).
#include "fuzz_common.hpp"
#include "ringlab/sim/nccl_tests.hpp"
#include "ringlab/topology/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ringlab;
  const std::string text = fuzz::as_text(data, size);
  fuzz::expect_only_input_errors([&] {
    if (!text.empty() && text[0] == '{') sim::read_nccl_tests_json(parse_json_text(text, "fuzz.json"), "fuzz.json");
    else sim::read_nccl_tests_text(text, "fuzz.txt");
  });
  return 0;
}
