// CUDA kernels of the NCCL back-end (see kernels.hpp). Grid-stride loops; the reduction is a plain
// element-wise add, memory-bound (reads two operands, writes one), as NCCL's own reduce is.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "kernels.hpp"

namespace ringlab::validate::gpu {
namespace {

constexpr int kThreads = 512;
constexpr int kMaxBlocks = 4096;

int blocks_for(std::int64_t count) {
  const std::int64_t b = (count + kThreads - 1) / kThreads;
  return int(b < 1 ? 1 : b > kMaxBlocks ? kMaxBlocks : b);
}

template <typename T> __device__ T from_double(double v) { return T(v); }
template <> __device__ __half from_double<__half>(double v) { return __double2half(v); }
template <> __device__ __nv_bfloat16 from_double<__nv_bfloat16>(double v) { return __double2bfloat16(v); }
template <typename T> __device__ double to_double(T v) { return double(v); }
template <> __device__ double to_double<__half>(__half v) { return double(__half2float(v)); }
template <> __device__ double to_double<__nv_bfloat16>(__nv_bfloat16 v) { return double(__bfloat162float(v)); }

template <typename T>
__global__ void fill_kernel(T* buffer, std::int64_t first, std::int64_t count, CheckShape shape, bool poison) {
  for (std::int64_t j = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; j < count;
       j += std::int64_t(gridDim.x) * blockDim.x)
    buffer[j] = from_double<T>(poison ? kPoison : initial_value(shape, first + j));
}

template <typename T>
__global__ void check_kernel(const T* buffer, std::int64_t first, std::int64_t count, CheckShape shape,
                             unsigned long long* wrong) {
  unsigned long long mine = 0;
  for (std::int64_t j = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; j < count;
       j += std::int64_t(gridDim.x) * blockDim.x) {
    double want = 0;
    if (expected_value(shape, first + j, &want) && to_double(buffer[j]) != want) ++mine;
  }
  if (mine) atomicAdd(wrong, mine);
}

template <typename T>
__global__ void noise_kernel(T* buffer, std::int64_t count) {
  for (std::int64_t j = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; j < count;
       j += std::int64_t(gridDim.x) * blockDim.x) {
    std::uint64_t h = std::uint64_t(j) * 0x9E3779B97F4A7C15ull;  // Fibonacci hashing, then a xorshift mix
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    buffer[j] = from_double<T>(double(h & 0xFFFFFFFFull) / 4294967296.0 - 0.5);
  }
}

template <typename T>
__global__ void reduce_kernel(T* dst, const T* src, std::int64_t count) {
  for (std::int64_t j = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; j < count;
       j += std::int64_t(gridDim.x) * blockDim.x)
    dst[j] = dst[j] + src[j];
}

/// Calls f(T{}) with the C++ type of backend.hpp's ElementType `type`.
template <typename F>
void dispatch(int type, F f) {
  switch (type) {
    case 1: f(__half{}); return;
    case 2: f(__nv_bfloat16{}); return;
    case 3: f(double{}); return;
    case 4: f(int{}); return;
    default: f(float{}); return;
  }
}

}  // namespace

void fill(int type, void* buffer, std::int64_t first, std::int64_t count, const CheckShape& shape, bool poison,
          void* stream) {
  if (count <= 0) return;
  dispatch(type, [&](auto t) {
    using T = decltype(t);
    fill_kernel<T><<<blocks_for(count), kThreads, 0, cudaStream_t(stream)>>>(static_cast<T*>(buffer), first, count,
                                                                              shape, poison);
  });
}

void count_wrong(int type, const void* buffer, std::int64_t first, std::int64_t count, const CheckShape& shape,
                 unsigned long long* wrong, void* stream) {
  if (count <= 0) return;
  dispatch(type, [&](auto t) {
    using T = decltype(t);
    check_kernel<T><<<blocks_for(count), kThreads, 0, cudaStream_t(stream)>>>(static_cast<const T*>(buffer), first,
                                                                               count, shape, wrong);
  });
}

void fill_noise(int type, void* buffer, std::int64_t count, void* stream) {
  if (count <= 0) return;
  dispatch(type, [&](auto t) {
    using T = decltype(t);
    noise_kernel<T><<<blocks_for(count), kThreads, 0, cudaStream_t(stream)>>>(static_cast<T*>(buffer), count);
  });
}

void reduce(int type, void* dst, const void* src, std::int64_t count, void* stream) {
  if (count <= 0) return;
  dispatch(type, [&](auto t) {
    using T = decltype(t);
    reduce_kernel<T><<<blocks_for(count), kThreads, 0, cudaStream_t(stream)>>>(static_cast<T*>(dst),
                                                                                static_cast<const T*>(src), count);
  });
}

}  // namespace ringlab::validate::gpu
