// libFuzzer target: ibnetdiscover output (parse_ibnetdiscover), then the fabric combined with the generic node template as
// `ringlab topo import` does. Only InputError may reject an input (fuzz_common.hpp).
#include "fuzz_common.hpp"
#include "ringlab/topology/import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ringlab;
  fuzz::expect_only_input_errors([&] {
    const Fabric fabric = parse_ibnetdiscover(fuzz::as_text(data, size), "fuzz.input");
    if (fabric.hosts.size() <= fuzz::kMaxCombinedHosts) combine(&fabric, nullptr, NodeTemplate::Generic);
  });
  return 0;
}
