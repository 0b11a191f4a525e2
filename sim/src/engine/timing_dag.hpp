// TimingDag: ExplicitDag's dependency walk over TimingOps, for the channel fold's quotient. Same
// successor order (ascending id), same readiness rule (a Recv also waits for its Send's data), same
// critical predecessor, so a run over it is the run over the equal Schedule's ExplicitDag, to the bit
// (tests/sim/channel_fold_test.cpp). It owns the ops, turns their dependency lists into successor
// lists and frees them; per op it then holds 24 bytes of op, 12 of node, 1 recv flag and about two
// successor entries of 4 bytes (ExplicitDag: 56 + 16 + 1 over a Schedule, plus its dependencies).
#pragma once

#include <cstdint>
#include <vector>

#include "collectives/timing_ops.hpp"
#include "ringlab/sim/schedule.hpp"

namespace ringlab::sim::detail {

class TimingDag {
 public:
  using Id = OpId;
  static constexpr Id kNone = kNoOp;
  static constexpr bool kRepeats = false;
  explicit TimingDag(TimingOps ops);

  /// The ops' collective, algorithm, message, ranks and endpoints (as Schedule names them).
  const TimingOps& schedule() const { return ops_; }
  std::uint64_t size() const { return records_.size(); }
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
  bool is_recv(OpId id) const { return is_recv_[id] != 0; }
  Endpoint endpoint(OpId id) const { return records_[id].at; }
  /// As ExplicitDag's.
  template <class F>
  void for_each_ready_successor(OpId id, F&& ready) {
    for (std::uint32_t i = nodes_[id].succ_begin; i < nodes_[id + 1].succ_begin; ++i) {
      Node& node = nodes_[succ_[i]];
      if (--node.pending != 0) continue;
      node.critical = id;
      ready(succ_[i]);
    }
  }
  template <class F>
  void for_each_initial(F&& f) const {
    for (OpId id = 0; id < records_.size(); ++id)
      if (nodes_[id].pending == 0) f(id);
  }
  OpId critical(OpId id) const { return nodes_[id].critical; }
  /// The path index cache of a Send (UINT32_MAX until resolved): the record's `aux`.
  std::uint32_t& path_slot(OpId send, const Op&) { return records_[send].aux; }

 private:
  struct Node {
    std::uint32_t succ_begin = 0;  ///< successors are succ_[succ_begin, next node's succ_begin)
    std::uint32_t pending = 0;     ///< unfinished predecessors (a Recv also waits for its data)
    OpId critical = kNoOp;         ///< predecessor that finished last
  };
  TimingOps ops_;
  std::span<TimedOp> records_;
  std::vector<Node> nodes_;  ///< one per op plus a sentinel closing the last successor range
  std::vector<OpId> succ_;   ///< a Send's Recv is one of its successors
  std::vector<std::uint8_t> is_recv_;  ///< per op, so that a Recv's start reads no op record
};

}  // namespace ringlab::sim::detail
