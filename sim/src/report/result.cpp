// Result: nccl-tests' bandwidth figures for a simulated (or measured) run.
//
// nccl-tests (doc/PERFORMANCE.md) reports algbw = S / t, where S is the size it was given on the
// command line: the full per-rank buffer for AllReduce, Broadcast and Reduce, and the *total* size
// (recvcount x ranks for AllGather, sendcount x ranks for ReduceScatter) for AllGather and
// ReduceScatter. Schedule::message() is defined as exactly that S, so algbw = message / time for
// every collective, and busbw = algbw x busbw_factor(collective, ranks).
#include "ringlab/sim/result.hpp"

namespace ringlab::sim {

Bandwidth Result::algbw() const {
  if (time.picoseconds() <= 0) return Bandwidth{};
  return Bandwidth::from_bytes_per_second(double(message.count()) / time.seconds());
}

Bandwidth Result::busbw() const { return algbw() * busbw_factor(collective, ranks); }

}  // namespace ringlab::sim
