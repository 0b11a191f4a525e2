// Stand-ins for builds without CUDA and NCCL: the nccl back-end and the GPU calibration say so.
#include "backend.hpp"
#include "gpu_calibration.hpp"
#include "ringlab/topology/error.hpp"

namespace ringlab::validate {

std::unique_ptr<Backend> make_nccl_backend(const World&) { return nullptr; }
bool have_nccl_backend() { return false; }

int write_gpu_calibration(const World&, const std::string&) {
  throw InputError("", "--gpu-calibration", "this ringlab-validate was built without CUDA (no GPU calibration)");
}

}  // namespace ringlab::validate
