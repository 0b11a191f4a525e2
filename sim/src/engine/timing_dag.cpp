// TimingDag's construction: successor lists in CSR form from the ops' dependency lists, in place of
// them.
#include "engine/timing_dag.hpp"

#include <utility>

namespace ringlab::sim::detail {

TimingDag::TimingDag(TimingOps ops) : ops_(std::move(ops)), records_(ops_.ops()) {
  const std::size_t n = records_.size();
  const std::span<const OpId> deps = ops_.deps();
  nodes_.assign(n + 1, Node{});
  is_recv_.assign(n, 0);
  // Count each op's successors into the next node's slot and its predecessors into its own.
  std::size_t at = 0;
  for (OpId id = 0; id < n; ++id) {
    const TimedOp& op = records_[id];
    for (std::size_t k = at; k < at + op.aux; ++k) ++nodes_[deps[k] + 1].succ_begin;
    nodes_[id].pending = op.aux;
    at += op.aux;
    if (op.kind == OpKind::Recv) {
      is_recv_[id] = 1;
      ++nodes_[id].succ_begin;  // the Send (id - 1) gains this Recv: node id holds the Send's count
      ++nodes_[id].pending;     // the data arrival
    }
  }
  for (std::size_t i = 0; i < n; ++i) nodes_[i + 1].succ_begin += nodes_[i].succ_begin;
  // Fill in ascending successor id, each op's range through its own start as a cursor; the starts
  // move one range on, and are moved back after.
  succ_.resize(nodes_[n].succ_begin);
  at = 0;
  for (OpId id = 0; id < n; ++id) {
    TimedOp& op = records_[id];
    for (std::size_t k = at; k < at + op.aux; ++k) succ_[nodes_[deps[k]].succ_begin++] = id;
    at += op.aux;
    if (op.kind == OpKind::Recv) succ_[nodes_[id - 1].succ_begin++] = id;
    op.aux = UINT32_MAX;  // from here on the Send's path slot
  }
  for (std::size_t i = n; i > 0; --i) nodes_[i].succ_begin = nodes_[i - 1].succ_begin;
  nodes_[0].succ_begin = 0;
  ops_.release_deps();
}

}  // namespace ringlab::sim::detail
