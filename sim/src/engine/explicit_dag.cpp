// ExplicitDag's construction: the schedule's dependencies and Send/Recv pairs into DagWalk.
#include "engine/explicit_dag.hpp"

namespace ringlab::sim::detail {

namespace {
template <class F>
void for_each_op(const Schedule& schedule, F&& f) {
  const std::span<const Op> ops = schedule.ops();
  for (OpId id = 0; id < ops.size(); ++id)
    f(id, schedule.deps(id), ops[id].kind == OpKind::Recv ? ops[id].match : kNoOp);
}
}  // namespace

ExplicitDag::ExplicitDag(const Schedule& schedule)
    : DagWalk(schedule.ops().size(), [&](auto&& f) { for_each_op(schedule, f); }),
      schedule_(schedule), ops_(schedule.ops()), path_(schedule.ops().size(), UINT32_MAX) {}

}  // namespace ringlab::sim::detail
