// TimingDag: the dependency walk (DagWalk) over TimingOps, for the channel fold's quotient. It owns
// the ops, turns their dependency lists into DagWalk's successor lists and frees them; per op it then
// holds 24 bytes of op, 12 of node, a recv flag and about two successor entries of 4 bytes
// (ExplicitDag: a Schedule's 56-byte op and its dependencies, 12 of node, 4 of path slot, the flag).
// Same successor order, readiness and critical predecessors as ExplicitDag over the equal Schedule,
// so a run over either is the same run (tests/sim/timing_ops_test.cpp, channel_fold_test.cpp).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "collectives/timing_ops.hpp"
#include "engine/dag_walk.hpp"
#include "ringlab/sim/schedule.hpp"

namespace ringlab::sim::detail {

class TimingDag : public DagWalk {
 public:
  using Id = OpId;
  static constexpr Id kNone = kNoOp;
  static constexpr bool kRepeats = false;
  explicit TimingDag(TimingOps ops);

  /// The ops' collective, algorithm, message, ranks and endpoints (as Schedule names them).
  const TimingOps& schedule() const { return ops_; }
  /// The op as a Schedule would hold it, in the fields a run reads (kind, endpoints, bytes, channel,
  /// match); buffers, element range and step are left at their defaults.
  Op op(OpId id) const {
    const TimedOp& t = records_[id];
    Op op;
    op.kind = t.kind;
    op.at = t.at;
    op.peer = t.peer;
    op.bytes = t.bytes;
    op.channel = t.channel;
    if (t.kind == OpKind::Send) op.match = id + 1;
    if (t.kind == OpKind::Recv) op.match = id - 1;
    return op;
  }
  Endpoint endpoint(OpId id) const { return records_[id].at; }
  /// The path index cache of a Send's connection (UINT32_MAX until resolved): every Send of a
  /// connection shares it, so a run looks the route up once per connection, not once per Send.
  std::uint32_t& path_slot(OpId send, const Op&) { return connection_paths_[records_[send].aux]; }

 private:
  TimingOps ops_;
  std::span<TimedOp> records_;
  std::vector<std::uint32_t> connection_paths_;  ///< per connection (a Send's `aux`)
};

}  // namespace ringlab::sim::detail
