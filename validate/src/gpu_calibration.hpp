// GPU calibration: measures what the training-step and reduction models take from datasheets (the
// GPU's reduction and copy bandwidth, dense GEMM throughput through cuBLAS) and writes them as a
// ringlab.gpu_calibration file for `ringlab calibrate --gpu`.
#pragma once

#include <string>

namespace ringlab::validate {

class World;

/// Runs the measurement on rank 0's GPU and writes `path` (atomically); returns the exit code.
/// Throws InputError when this build has no CUDA.
int write_gpu_calibration(const World& world, const std::string& path);

}  // namespace ringlab::validate
