// Level assignment for executing a schedule (see levels.hpp).
#include "ringlab/validate/levels.hpp"

#include <algorithm>
#include <set>

namespace ringlab::validate {

using sim::Buffer;
using sim::OpId;
using sim::OpKind;

std::size_t RankProgram::op_count() const {
  std::size_t n = 0;
  for (const Level& level : levels) n += level.transfers.size() + level.local.size();
  return n;
}

std::vector<std::string> unsupported(const sim::Schedule& schedule) {
  std::vector<std::string> reasons;
  if (schedule.endpoints().size() != std::size_t(schedule.rank_count()))
    reasons.push_back("it has endpoints that are not ranks (a reducing switch or parameter-server hosts)");
  if (schedule.payload().compression.kind != sim::CompressionKind::None)
    reasons.push_back("its payload is compressed (" + to_string(schedule.payload().compression) + ")");
  bool codec = false, reducing_recv = false, other_buffer = false;
  for (const sim::Op& op : schedule.ops()) {
    codec |= op.kind == OpKind::Encode || op.kind == OpKind::Decode;
    reducing_recv |= op.kind == OpKind::Recv && op.mode == sim::RecvMode::Reduce;
    const auto usual = [](Buffer b) { return b == Buffer::Data || b == Buffer::Inbox; };
    other_buffer |= !usual(op.src) || !usual(op.dst) || (op.kind == OpKind::Send && op.src != Buffer::Data);
  }
  if (codec) reasons.push_back("it has encode/decode ops");
  if (reducing_recv) reasons.push_back("it has receives that reduce in the network");
  if (other_buffer) reasons.push_back("it uses buffers other than data and inbox, or sends from an inbox");
  return reasons;
}

std::vector<RankProgram> compile_programs(const sim::Schedule& schedule) {
  const auto ops = schedule.ops();
  std::vector<std::uint32_t> level(ops.size(), 0);
  std::uint32_t top = 0;
  const auto deps_level = [&](OpId id) {
    std::uint32_t l = 0;
    for (OpId d : schedule.deps(id)) l = std::max(l, level[d]);
    return l;
  };
  // Ops are in a topological order and a Send is pushed just before its Recv, so one pass sees
  // every dependency before the op; a transfer is levelled when its Recv (the later op) is reached.
  for (OpId id = 0; id < ops.size(); ++id) {
    const sim::Op& op = ops[id];
    if (op.kind == OpKind::Send) continue;
    if (op.kind != OpKind::Recv) {
      level[id] = deps_level(id);
      continue;
    }
    const std::uint32_t l = std::max(deps_level(id), deps_level(op.match)) + 1;
    level[id] = level[op.match] = l;
    top = std::max(top, l);
  }
  for (OpId id = 0; id < ops.size(); ++id) top = std::max(top, level[id]);

  std::vector<RankProgram> programs(std::size_t(schedule.rank_count()));
  for (RankProgram& p : programs) p.levels.resize(top + 1);
  for (OpId id = 0; id < ops.size(); ++id) {
    const sim::Op& op = ops[id];
    Level& l = programs[op.at].levels[level[id]];
    const bool transfer = op.kind == OpKind::Send || op.kind == OpKind::Recv;
    (transfer ? l.transfers : l.local).push_back(id);
  }
  return programs;
}

std::vector<sim::Endpoint> inbox_peers(const sim::Schedule& schedule, sim::Endpoint rank) {
  std::set<sim::Endpoint> peers;
  for (const sim::Op& op : schedule.ops()) {
    if (op.at != rank) continue;
    if (op.kind == OpKind::Recv && op.dst == Buffer::Inbox) peers.insert(op.peer);
    if (op.kind != OpKind::Recv && op.kind != OpKind::Send && (op.src == Buffer::Inbox || op.dst == Buffer::Inbox))
      peers.insert(op.peer);
  }
  return {peers.begin(), peers.end()};
}

}  // namespace ringlab::validate
