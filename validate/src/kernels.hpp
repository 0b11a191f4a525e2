// CUDA kernels of the NCCL back-end, behind a plain C++ interface (no CUDA types), so that the
// back-end's C++ compiles without nvcc: fills with the check pattern, counts wrong elements on the
// GPU, and reduces an Inbox range into the data buffer. All calls are asynchronous on `stream`
// (a cudaStream_t); element types are backend.hpp's ElementType numbering.
#pragma once

#include <cstdint>

#include "ringlab/validate/pattern.hpp"

namespace ringlab::validate::gpu {

/// buffer[j] = initial_value(shape, first + j) for j < count, or kPoison everywhere when `poison`.
void fill(int type, void* buffer, std::int64_t first, std::int64_t count, const CheckShape& shape, bool poison,
          void* stream);
/// Adds to *wrong (device memory) the elements j < count where buffer[j] differs from
/// expected_value(shape, first + j) (undefined elements are skipped).
void count_wrong(int type, const void* buffer, std::int64_t first, std::int64_t count, const CheckShape& shape,
                 unsigned long long* wrong, void* stream);
/// buffer[j] = a pseudo-random value in [-0.5, 0.5) (a hash of j), for GEMM inputs that are not zeros.
void fill_noise(int type, void* buffer, std::int64_t count, void* stream);
/// dst[j] += src[j] for j < count.
void reduce(int type, void* dst, const void* src, std::int64_t count, void* stream);

}  // namespace ringlab::validate::gpu
