// TimingDag's construction: the ops' dependency lists (op i's are the next ops()[i].aux entries)
// into DagWalk, then freed; a Send's `aux` becomes its connection, the index of its path slot.
#include "engine/timing_dag.hpp"

#include <algorithm>
#include <cassert>
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
  // From here on a Send's `aux` is its connection (the Builder's numbering).
  const std::span<const std::uint32_t> connections = ops_.send_connections();
  std::size_t sends = 0;
  std::uint32_t count = 0;
  for (TimedOp& op : records_) {
    if (op.kind != OpKind::Send) continue;
    assert(sends < connections.size() && "every Send's connection noted (OpSink::note_connection)");
    op.aux = connections[sends++];
    count = std::max(count, op.aux + 1);
  }
  connection_paths_.assign(count, UINT32_MAX);
  ops_.release_deps();
}

}  // namespace ringlab::sim::detail
