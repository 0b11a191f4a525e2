// Result: nccl-tests' bandwidth figures for a simulated (or measured) run.
//
// nccl-tests (doc/PERFORMANCE.md) reports algbw = S / t, where S is the size it was given on the
// command line: the full per-rank buffer for AllReduce, Broadcast and Reduce, and the *total* size
// (recvcount x ranks for AllGather, sendcount x ranks for ReduceScatter) for AllGather and
// ReduceScatter. Schedule::message() is defined as exactly that S, so algbw = message / time for
// every collective, and busbw = algbw x busbw_factor(collective, ranks).
#include "ringlab/sim/result.hpp"

#include <cstdio>

namespace ringlab::sim {

std::string digest_hex(std::string_view text) {
  // FNV-1a, 64-bit (offset basis and prime from the FNV reference, draft-eastlake-fnv).
  constexpr std::uint64_t kOffsetBasis = 14695981039346656037ULL;
  constexpr std::uint64_t kPrime = 1099511628211ULL;
  std::uint64_t hash = kOffsetBasis;
  for (unsigned char c : text) hash = (hash ^ c) * kPrime;
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(hash));
  return out;
}

Bandwidth Result::algbw() const {
  if (time.picoseconds() <= 0) return Bandwidth{};
  return Bandwidth::from_bytes_per_second(double(message.count()) / time.seconds());
}

Bandwidth Result::busbw() const { return algbw() * busbw_factor(collective, ranks); }

}  // namespace ringlab::sim
