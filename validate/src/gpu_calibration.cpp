// GPU calibration (see gpu_calibration.hpp): on rank 0's GPU, times a device-to-device copy, the
// back-end's reduction kernel (dst += src) per element type, and a square GEMM through cuBLAS per
// precision; each figure is the median of kTimed runs after kWarmup untimed ones, CUDA events around
// each. Buffers of kStreamBytes are far larger than any GPU's L2 cache (50 MB on H100), so the copy
// and reduction rates are HBM rates.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu_calibration.hpp"
#include "kernels.hpp"
#include "ringlab/topology/kinds.hpp"
#include "ringlab/topology/output_file.hpp"
#include "world.hpp"

namespace ringlab::validate {
namespace {

constexpr std::size_t kStreamBytes = std::size_t(1) << 30;  ///< copy and reduction buffers (1 GiB each)
constexpr int kGemmSize = 8192;                              ///< m = n = k
constexpr int kWarmup = 3;
constexpr int kTimed = 10;

void cuda(cudaError_t status, const char* call) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(call) + ": " + cudaGetErrorString(status));
}
void cublas(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(call) + " failed (" + std::to_string(int(status)) + ")");
}

/// Median seconds of `work` enqueued on `stream`.
double median_seconds(cudaStream_t stream, const std::function<void()>& work) {
  cudaEvent_t start, stop;
  cuda(cudaEventCreate(&start), "cudaEventCreate");
  cuda(cudaEventCreate(&stop), "cudaEventCreate");
  for (int i = 0; i < kWarmup; ++i) work();
  std::vector<double> times;
  for (int i = 0; i < kTimed; ++i) {
    cuda(cudaEventRecord(start, stream), "cudaEventRecord");
    work();
    cuda(cudaEventRecord(stop, stream), "cudaEventRecord");
    cuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    times.push_back(double(ms) * 1e-3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(times.begin(), times.end());
  return (times[kTimed / 2 - 1] + times[kTimed / 2]) / 2;
}

/// ringlab's GPU model name for a CUDA device name ("NVIDIA H100 80GB HBM3" -> "h100"), or "generic":
/// the exact product names of the GPU catalogue (find_gpu_model) first, then a family substring.
std::string model_of(const std::string& device) {
  if (const auto model = find_gpu_model(device)) return std::string(to_string(*model));
  std::string lower;
  for (char ch : device) lower += char(std::tolower(static_cast<unsigned char>(ch)));
  for (const char* name : {"h200", "h100", "b200", "a100", "v100"})
    if (lower.find(name) != std::string::npos) return name;
  return "generic";
}

struct GemmCase {
  const char* precision;
  cudaDataType_t type;
  cublasComputeType_t compute;
  std::size_t element;
};

}  // namespace

int write_gpu_calibration(const World& world, const std::string& path) {
  if (world.rank() != 0) return 0;
  int device = 0;
  cuda(cudaSetDevice(device), "cudaSetDevice");
  cudaDeviceProp prop{};
  cuda(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  cudaStream_t stream;
  cuda(cudaStreamCreate(&stream), "cudaStreamCreate");
  void *a = nullptr, *b = nullptr;
  cuda(cudaMalloc(&a, kStreamBytes), "cudaMalloc");
  cuda(cudaMalloc(&b, kStreamBytes), "cudaMalloc");
  cuda(cudaMemsetAsync(a, 0, kStreamBytes, stream), "cudaMemset");
  cuda(cudaMemsetAsync(b, 0, kStreamBytes, stream), "cudaMemset");

  nlohmann::ordered_json out;
  out["schema"] = "ringlab.gpu_calibration";
  out["version"] = 1;
  out["device"] = prop.name;
  out["model"] = model_of(prop.name);
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  out["cuda"] = std::to_string(runtime / 1000) + "." + std::to_string(runtime / 10 % 100);
  out["method"] = "median of " + std::to_string(kTimed) + " runs after " + std::to_string(kWarmup) +
                  " warm-ups; copy and reduce over 1 GiB buffers; GEMM m = n = k = " + std::to_string(kGemmSize);

  const double copy = median_seconds(stream, [&] {
    cuda(cudaMemcpyAsync(b, a, kStreamBytes, cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync");
  });
  out["copy_bytes_per_second"] = double(kStreamBytes) / copy;

  nlohmann::ordered_json reduce = nlohmann::ordered_json::array();
  for (const auto& [type, name, element] : {std::tuple{0, "float", 4}, std::tuple{1, "half", 2}, std::tuple{2, "bfloat16", 2}}) {
    const std::int64_t count = std::int64_t(kStreamBytes) / element;
    const int t = type;
    const double seconds = median_seconds(stream, [&] { gpu::reduce(t, a, b, count, stream); });
    reduce.push_back({{"dtype", name}, {"bytes_per_second", double(kStreamBytes) / seconds}});
  }
  out["reduce"] = reduce;
  cudaFree(a);
  cudaFree(b);

  cublasHandle_t handle;
  cublas(cublasCreate(&handle), "cublasCreate");
  cublas(cublasSetStream(handle, stream), "cublasSetStream");
  nlohmann::ordered_json gemm = nlohmann::ordered_json::array();
  const GemmCase cases[] = {{"bf16", CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2},
                            {"fp16", CUDA_R_16F, CUBLAS_COMPUTE_32F, 2},
                            {"tf32", CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4},
                            {"fp32", CUDA_R_32F, CUBLAS_COMPUTE_32F, 4}};
  const std::size_t n = kGemmSize;
  for (const GemmCase& g : cases) {
    void *x = nullptr, *y = nullptr, *z = nullptr;
    cuda(cudaMalloc(&x, n * n * g.element), "cudaMalloc");
    cuda(cudaMalloc(&y, n * n * g.element), "cudaMalloc");
    cuda(cudaMalloc(&z, n * n * g.element), "cudaMalloc");
    const int type = g.element == 2 ? (g.type == CUDA_R_16BF ? 2 : 1) : 0;  // backend.hpp's ElementType
    gpu::fill_noise(type, x, std::int64_t(n * n), stream);
    gpu::fill_noise(type, y, std::int64_t(n * n), stream);
    const float one = 1, zero = 0;
    const double seconds = median_seconds(stream, [&] {
      cublas(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, kGemmSize, kGemmSize, kGemmSize, &one, x, g.type, kGemmSize,
                          y, g.type, kGemmSize, &zero, z, g.type, kGemmSize, g.compute, CUBLAS_GEMM_DEFAULT),
             "cublasGemmEx");
    });
    gemm.push_back({{"precision", g.precision},
                    {"flops_per_second", 2.0 * double(n) * double(n) * double(n) / seconds},
                    {"m", kGemmSize}, {"n", kGemmSize}, {"k", kGemmSize}});
    cudaFree(x);
    cudaFree(y);
    cudaFree(z);
  }
  cublasDestroy(handle);
  cudaStreamDestroy(stream);
  out["gemm"] = gemm;
  write_output(path, [&](std::ostream& file) { file << out.dump(2) << '\n'; });
  std::cout << out.dump(2) << '\n';
  return 0;
}

}  // namespace ringlab::validate
