// ExplicitDag: the dependency walk over an explicit Schedule, shared by every engine that executes one
// (the flow simulator, the SimGrid engine, the reference executor): successor lists in CSR form, a
// pending-predecessor count per op (a Recv also waits for its data, i.e. for its matched Send), and
// the predecessor that made each op ready (for the critical path). Engines differ only in when
// they complete ops; the order in which successors become ready is the same for all of them.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ringlab/sim/schedule.hpp"

namespace ringlab::sim::detail {

/// The explicit schedule's DAG for the engine: successors in CSR form, and per op its pending
/// predecessor count, the predecessor that made it ready and its cached path.
class ExplicitDag {
 public:
  using Id = OpId;
  static constexpr Id kNone = kNoOp;
  /// The flow simulator's exact repeat shortcut covers compact schedules only (CompactDag).
  static constexpr bool kRepeats = false;
  explicit ExplicitDag(const Schedule& schedule);

  const Schedule& schedule() const { return schedule_; }
  std::uint64_t size() const { return ops_.size(); }
  const Op& op(OpId id) const { return ops_[id]; }
  bool is_recv(OpId id) const { return is_recv_[id] != 0; }
  Endpoint endpoint(OpId id) const { return ops_[id].at; }
  /// `id` completed: calls ready(next) for each successor that this made ready (then `id` is its
  /// critical predecessor), in ascending id order.
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
    for (OpId id = 0; id < ops_.size(); ++id)
      if (nodes_[id].pending == 0) f(id);
  }
  OpId critical(OpId id) const { return nodes_[id].critical; }
  /// The path index cache of a Send (kNoPath until resolved).
  std::uint32_t& path_slot(OpId send, const Op&) { return nodes_[send].path; }

 private:
  struct Node {
    std::uint32_t succ_begin = 0;  ///< successors are succ_[succ_begin, next node's succ_begin)
    std::uint32_t pending = 0;     ///< unfinished predecessors (a Recv also waits for its data)
    OpId critical = kNoOp;         ///< predecessor that finished last
    std::uint32_t path = UINT32_MAX;
  };
  const Schedule& schedule_;
  std::span<const Op> ops_;
  std::vector<Node> nodes_;  ///< one per op plus a sentinel closing the last successor range
  std::vector<OpId> succ_;   ///< a Send's matched Recv is one of its successors
  /// Per op: a Recv, which starts by completing. A byte per op keeps the hot loop off the 56-byte
  /// Op records for a third of the ops.
  std::vector<std::uint8_t> is_recv_;
};

}  // namespace ringlab::sim::detail
