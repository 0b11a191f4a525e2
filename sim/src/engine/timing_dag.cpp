// TimingDag's construction: the ops' dependency lists (op i's are the next dep_count(i) entries)
// into DagWalk, then freed; a Send's `aux` becomes its connection (its Recv's), the index of its
// path slot.
#include "engine/timing_dag.hpp"

#include <algorithm>
#include <utility>

namespace ringlab::sim::detail {

namespace {
template <class F>
void for_each_op(const TimingOps& ops, F&& f) {
  const std::span<const OpId> deps = ops.deps();
  std::size_t at = 0;
  for (OpId id = 0; id < ops.ops().size(); ++id) {
    const TimedOp& op = ops.ops()[id];
    const std::uint32_t count = ops.dep_count(id);
    f(id, deps.subspan(at, count), op.kind == OpKind::Recv ? id - 1 : kNoOp);
    at += count;
  }
}
}  // namespace

TimingDag::TimingDag(TimingOps ops)
    : DagWalk(ops.ops().size(), [&](auto&& f) { for_each_op(ops, f); }), ops_(std::move(ops)),
      records_(ops_.ops()) {
  // From here on a Send's `aux` is its connection, which its Recv holds.
  std::uint32_t count = 0;
  for (std::size_t id = 0; id < records_.size(); ++id) {
    if (records_[id].kind != OpKind::Send) continue;
    records_[id].aux = records_[id + 1].aux;
    count = std::max(count, records_[id].aux + 1);
  }
  connection_paths_.assign(count, UINT32_MAX);
  ops_.release_deps();
}

}  // namespace ringlab::sim::detail
