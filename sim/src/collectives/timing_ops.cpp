// TimingOps: the run's lean form of a compiled collective (see the header).
#include "collectives/timing_ops.hpp"

#include <cassert>

namespace ringlab::sim::detail {

TimingOps::TimingOps(Collective collective, std::string algorithm, Bytes message, std::span<const DeviceId> ranks)
    : collective_(collective), algorithm_(std::move(algorithm)), message_(message), rank_count_(int(ranks.size())) {
  endpoints_.reserve(ranks.size());
  for (DeviceId d : ranks) endpoints_.push_back(EndpointInfo{d, EndpointRole::Rank});
}

void TimingOps::reserve(std::size_t ops, std::size_t deps) {
  ops_.reserve(ops);
  deps_.reserve(deps);
}

Endpoint TimingOps::add_endpoint(DeviceId device, EndpointRole role) {
  endpoints_.push_back(EndpointInfo{device, role});
  return Endpoint(endpoints_.size() - 1);
}

OpId TimingOps::push(OpKind kind, Endpoint at, Endpoint peer, Bytes bytes, std::uint16_t channel,
                     std::span<const OpId> deps) {
  const OpId id = OpId(ops_.size());
  for ([[maybe_unused]] OpId d : deps) assert(d < id && "dependencies must name earlier ops");
  deps_.insert(deps_.end(), deps.begin(), deps.end());
  ops_.push_back(TimedOp{bytes, at, peer, std::uint32_t(deps.size()), channel, kind});
  return id;
}

OpId TimingOps::add_local(OpKind kind, Endpoint at, Endpoint slot, Buffer, Buffer, Chunk, Bytes bytes,
                          std::span<const OpId> deps, std::uint16_t channel, std::uint32_t) {
  assert(kind != OpKind::Send && kind != OpKind::Recv);
  return push(kind, at, slot, bytes, channel, deps);
}

OpId TimingOps::add_transfer(Endpoint from, Endpoint to, Buffer, Buffer, RecvMode, Chunk, Bytes wire,
                             std::span<const OpId> send_deps, [[maybe_unused]] std::span<const OpId> recv_deps,
                             std::uint16_t channel, std::uint32_t) {
  assert(recv_deps.empty() && "TimingOps keeps no Recv dependencies (the Builder gives none)");
  push(OpKind::Send, from, to, wire, channel, send_deps);
  return push(OpKind::Recv, to, from, wire, channel, {});
}

void TimingOps::note_connection(OpId send, std::uint32_t connection) {
  assert(send + 2 == ops_.size() && ops_[send].kind == OpKind::Send && "noted right after its add_transfer");
  ops_[send + 1].aux = connection;  // the Recv's
}

}  // namespace ringlab::sim::detail
