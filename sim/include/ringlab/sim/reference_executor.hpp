// Reference executor: runs a Schedule on real values in memory, to check that what a builder emits
// computes the collective it claims (and, later, to produce the expected buffers a GPU harness
// compares against).
//
// Every endpoint gets its buffers (schedule.hpp): Data per rank (the input on entry, the result on
// exit), Scratch per switch or parameter server (zero on entry), a Wire buffer (encoded forms), and
// an Inbox slot per (receiver, sender) pair. Values are doubles: integer inputs below 2^53 sum exactly in any order, so results
// can be compared exactly whatever the reduction order.
//
// Ops run one at a time in a topological order of the dependencies (Kahn's algorithm); a Recv is
// ready when its own deps and its Send have run. A Send copies its source range when it runs (what
// goes on the wire is the value at that moment), and its Recv delivers that copy; by default the
// Recv also checks that the sender's range has not changed meanwhile (ExecOptions::check_in_flight). The executor
// checks Inbox use: a Recv must not land in a slot range still holding an unconsumed arrival, and a
// Reduce/Decode must find an arrival there (both would be races on real hardware); it throws
// ExecutionError naming the op otherwise. Running several orders (ExecOrder) shows whether the
// dependencies, rather than insertion order, make the result right: a missing dependency turns
// into a wrong result or an ExecutionError under some order.
//
// Payload compression: quantisation (Encode/Decode) is the identity on values here: real fp8/int8
// codecs are lossy by design, so only the data flow is checked, not the numerics. Top-k (sparse)
// schedules are not executed: ExecutionError (selecting k elements is lossy and value-dependent).
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "ringlab/sim/schedule.hpp"

namespace ringlab::sim {

/// A schedule that cannot be executed, or whose execution races (message names the op).
class ExecutionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Which ready op runs next: lowest id first, highest id first, or a seeded pseudo-random pick.
enum class ExecOrder : std::uint8_t { LowestFirst, HighestFirst, Random };

struct ExecOptions {
  ExecOrder order = ExecOrder::LowestFirst;
  std::uint64_t seed = 1;  ///< ExecOrder::Random only
  /// Also require the sender's source range to be unchanged when the Recv runs: on a GPU the data
  /// is read while the transfer is in flight, so an op overwriting it must depend on the transfer's
  /// completion, not only on the Send. ExecutionError when it changed.
  bool check_in_flight = true;
};

/// Runs `schedule` on `inputs` (one vector per rank, each message()/element size elements, rank r's
/// Data on entry) and returns every rank's Data on exit. Preconditions: inputs.size() ==
/// rank_count() and each has that many elements (else std::invalid_argument). Throws
/// ExecutionError for a top-k schedule, an op outside its buffer, a dependency cycle, or an Inbox
/// race. O(ops x elements per op).
std::vector<std::vector<double>> execute_schedule(const Schedule& schedule,
                                                  std::span<const std::vector<double>> inputs,
                                                  const ExecOptions& options = {});

}  // namespace ringlab::sim
