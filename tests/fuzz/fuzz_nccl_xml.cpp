// libFuzzer target: NCCL topology XML (parse_nccl_topo_xml), then the node layout made a one-host cluster as
// `ringlab topo import` does. Only InputError may reject an input (fuzz_common.hpp).
#include "fuzz_common.hpp"
#include "ringlab/topology/import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ringlab;
  fuzz::expect_only_input_errors([&] {
    const NodeLayout layout = parse_nccl_topo_xml(fuzz::as_text(data, size), "fuzz.input");
    combine(nullptr, &layout);
  });
  return 0;
}
