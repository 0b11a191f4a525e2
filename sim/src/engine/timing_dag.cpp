// TimingDag's construction: the ops' dependency lists (op i's are the next ops()[i].aux entries)
// into DagWalk, then freed; `aux` becomes the path slot.
#include "engine/timing_dag.hpp"

#include <utility>

namespace ringlab::sim::detail {

namespace {
template <class F>
void for_each_op(const TimingOps& ops, F&& f) {
  const std::span<const OpId> deps = ops.deps();
  std::size_t at = 0;
  for (OpId id = 0; id < ops.ops().size(); ++id) {
    const TimedOp& op = ops.ops()[id];
    f(id, deps.subspan(at, op.aux), op.kind == OpKind::Recv ? id - 1 : kNoOp);
    at += op.aux;
  }
}
}  // namespace

TimingDag::TimingDag(TimingOps ops)
    : DagWalk(ops.ops().size(), [&](auto&& f) { for_each_op(ops, f); }), ops_(std::move(ops)),
      records_(ops_.ops()) {
  for (TimedOp& op : records_) op.aux = UINT32_MAX;  // from here on a Send's path slot
  ops_.release_deps();
}

}  // namespace ringlab::sim::detail
