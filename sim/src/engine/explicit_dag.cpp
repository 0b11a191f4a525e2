// ExplicitDag's construction: successor lists and pending counts in two passes over the ops.
#include "engine/explicit_dag.hpp"

namespace ringlab::sim::detail {

ExplicitDag::ExplicitDag(const Schedule& schedule) : schedule_(schedule), ops_(schedule.ops()) {
  const std::size_t n = ops_.size();
  nodes_.assign(n + 1, Node{});
  is_recv_.assign(n, 0);
  for (OpId id = 0; id < n; ++id) {
    for (OpId dep : schedule_.deps(id)) ++nodes_[dep + 1].succ_begin;
    nodes_[id].pending += ops_[id].dep_count;
    if (ops_[id].kind == OpKind::Recv) {
      is_recv_[id] = 1;
      ++nodes_[ops_[id].match + 1].succ_begin;
      ++nodes_[id].pending;  // the data arrival
    }
  }
  for (std::size_t i = 0; i < n; ++i) nodes_[i + 1].succ_begin += nodes_[i].succ_begin;
  succ_.resize(nodes_[n].succ_begin);
  std::vector<std::uint32_t> fill(n);
  for (std::size_t i = 0; i < n; ++i) fill[i] = nodes_[i].succ_begin;
  for (OpId id = 0; id < n; ++id) {
    for (OpId dep : schedule_.deps(id)) succ_[fill[dep]++] = id;
    if (ops_[id].kind == OpKind::Recv) succ_[fill[ops_[id].match]++] = id;
  }
}

}  // namespace ringlab::sim::detail
