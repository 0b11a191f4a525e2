// The values the harness puts in every buffer and the values it expects back, shared by the CPU
// (MPI back-end, result check) and GPU (CUDA kernels) code, so both check the same thing.
//
// Input element i of rank r is ((r + i) mod 4) - 1, a small integer: sums over up to 128 ranks stay
// integers that fp32, fp16 and bf16 all hold exactly (bf16 holds every integer up to 256), so the
// reduction order of an algorithm can never make a right result look wrong. Parts of a buffer that
// an algorithm must overwrite (the blocks of other ranks before an all-gather, a non-root buffer
// before a broadcast) start at kPoison, a value no valid result takes, so a missing transfer shows.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define RINGLAB_HOST_DEVICE __host__ __device__
#else
#define RINGLAB_HOST_DEVICE
#endif

namespace ringlab::validate {

/// What the harness runs; the numbering is shared with CUDA code (no std types there).
enum class CheckedCollective : std::int32_t { AllReduce, ReduceScatter, AllGather, Broadcast, Reduce };

/// Outside every valid input and result when ranks <= 32 (results lie in [-ranks, 2 ranks]).
inline constexpr double kPoison = -100.0;
/// Ranks up to which every result is an integer that bf16 holds exactly (|sum| <= 2 * 128 = 256).
inline constexpr int kExactRanksBf16 = 128;

/// Input element `i` of `rank` (the index is in elements of the whole array, see below).
RINGLAB_HOST_DEVICE inline double input_value(std::int64_t rank, std::int64_t i) {
  return double((rank + i) % 4) - 1.0;
}

/// Sum over ranks 0..ranks-1 of input_value(r, i), in O(1): every full cycle of 4 ranks adds
/// -1 + 0 + 1 + 2 = 2; the remainder adds the first (ranks mod 4) terms of the cycle from i mod 4.
RINGLAB_HOST_DEVICE inline double summed_value(std::int64_t ranks, std::int64_t i) {
  double sum = double(ranks / 4) * 2.0;
  for (std::int64_t r = 0; r < ranks % 4; ++r) sum += input_value(r, i);
  return sum;
}

/// Parameters of one check; `block` is elements per rank block (reduce-scatter, all-gather).
struct CheckShape {
  CheckedCollective collective = CheckedCollective::AllReduce;
  std::int32_t ranks = 1;
  std::int32_t rank = 0;
  std::int32_t root = 0;
  std::int64_t block = 0;
};

/// Whole-array view ("schedule form", the Data buffer of schedule.hpp): every rank holds an array of
/// `ranks * block` elements (all-reduce, broadcast, reduce: `block` = the whole count, ranks ignored
/// for indexing). Initial value of element i.
RINGLAB_HOST_DEVICE inline double initial_value(const CheckShape& s, std::int64_t i) {
  switch (s.collective) {
    case CheckedCollective::AllGather:
      return i / s.block == s.rank ? input_value(s.rank, i) : kPoison;
    case CheckedCollective::Broadcast:
      return s.rank == s.root ? input_value(s.rank, i) : kPoison;
    default:
      return input_value(s.rank, i);
  }
}

/// Expected value of element i after the collective, in the whole-array view. Returns false when
/// the element is not defined by the collective (a reduce's non-root ranks, the blocks of a
/// reduce-scatter a rank does not own), which is then not checked.
RINGLAB_HOST_DEVICE inline bool expected_value(const CheckShape& s, std::int64_t i, double* value) {
  switch (s.collective) {
    case CheckedCollective::AllReduce:
      *value = summed_value(s.ranks, i);
      return true;
    case CheckedCollective::ReduceScatter:
      if (i / s.block != s.rank) return false;
      *value = summed_value(s.ranks, i);
      return true;
    case CheckedCollective::AllGather:
      *value = input_value(i / s.block, i);
      return true;
    case CheckedCollective::Broadcast:
      *value = input_value(s.root, i);
      return true;
    case CheckedCollective::Reduce:
      if (s.rank != s.root) return false;
      *value = summed_value(s.ranks, i);
      return true;
  }
  return false;
}

}  // namespace ringlab::validate
