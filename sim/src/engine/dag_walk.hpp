// DagWalk: the dependency walk ExplicitDag and TimingDag share. Successor lists in CSR form (each
// list in ascending successor id, a Recv after the dependencies it waits for), a pending-predecessor
// count per op (a Recv also waits for its data, i.e. for its Send) and the predecessor that made each
// op ready (for the critical path). Engines differ only in when they complete ops; the order in
// which successors become ready is the same for all of them.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ringlab/sim/schedule.hpp"

namespace ringlab::sim::detail {

class DagWalk {
 public:
  /// `n` ops; `for_each_op(f)` calls f(id, deps, send) for every op in ascending id, with its
  /// dependencies and, for a Recv, its Send (kNoOp otherwise). It is called twice.
  template <class ForEachOp>
  DagWalk(std::size_t n, ForEachOp&& for_each_op) : nodes_(n + 1), is_recv_(n, 0) {
    // Each op's successor count into the next node's start, its predecessors into its pending count.
    for_each_op([&](OpId id, std::span<const OpId> deps, OpId send) {
      for (OpId dep : deps) ++nodes_[dep + 1].succ_begin;
      nodes_[id].pending = std::uint32_t(deps.size());
      if (send == kNoOp) return;
      is_recv_[id] = 1;
      ++nodes_[send + 1].succ_begin;
      ++nodes_[id].pending;  // the data arrival
    });
    for (std::size_t i = 0; i < n; ++i) nodes_[i + 1].succ_begin += nodes_[i].succ_begin;
    // Filled in ascending successor id through each list's start as a cursor, which ends at the next
    // list's start; the starts are moved back one list after.
    succ_.resize(nodes_[n].succ_begin);
    for_each_op([&](OpId id, std::span<const OpId> deps, OpId send) {
      for (OpId dep : deps) succ_[nodes_[dep].succ_begin++] = id;
      if (send != kNoOp) succ_[nodes_[send].succ_begin++] = id;
    });
    for (std::size_t i = n; i > 0; --i) nodes_[i].succ_begin = nodes_[i - 1].succ_begin;
    nodes_[0].succ_begin = 0;
  }

  std::uint64_t size() const { return is_recv_.size(); }
  bool is_recv(OpId id) const { return is_recv_[id] != 0; }
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
    for (OpId id = 0; id < size(); ++id)
      if (nodes_[id].pending == 0) f(id);
  }
  OpId critical(OpId id) const { return nodes_[id].critical; }

 private:
  struct Node {
    std::uint32_t succ_begin = 0;  ///< successors are succ_[succ_begin, next node's succ_begin)
    std::uint32_t pending = 0;     ///< unfinished predecessors (a Recv also waits for its data)
    OpId critical = kNoOp;         ///< predecessor that finished last
  };
  std::vector<Node> nodes_;  ///< one per op plus a sentinel closing the last successor range
  std::vector<OpId> succ_;   ///< a Send's Recv is one of its successors
  /// Per op: a Recv, which starts by completing. A byte per op keeps the hot loop off the op
  /// records for a third of the ops.
  std::vector<std::uint8_t> is_recv_;
};

}  // namespace ringlab::sim::detail
