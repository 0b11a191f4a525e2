// Schedule: construction, printing and structural checks of compiled collectives.
#include "ringlab/sim/schedule.hpp"

#include <algorithm>
#include <array>
#include <cassert>

#include "collectives/schedule_print.hpp"

namespace ringlab::sim {
namespace {
constexpr std::array<std::string_view, 5> kCollectiveNames{"allreduce", "reducescatter", "allgather", "broadcast",
                                                           "reduce"};
constexpr std::array<std::string_view, 6> kOpNames{"send", "recv", "reduce", "copy", "encode", "decode"};
}  // namespace

std::string_view to_string(Collective c) { return kCollectiveNames[std::size_t(c)]; }
std::string_view to_string(OpKind k) { return kOpNames[std::size_t(k)]; }

std::optional<Collective> find_collective(std::string_view name) {
  for (std::size_t i = 0; i < kCollectiveNames.size(); ++i)
    if (kCollectiveNames[i] == name) return Collective(i);
  if (name == "reduce_scatter") return Collective::ReduceScatter;
  if (name == "all_gather") return Collective::AllGather;
  if (name == "all_reduce") return Collective::AllReduce;
  return std::nullopt;
}

double busbw_factor(Collective c, int ranks) {
  const double n = ranks;
  switch (c) {
    case Collective::AllReduce: return 2.0 * (n - 1) / n;
    case Collective::ReduceScatter:
    case Collective::AllGather: return (n - 1) / n;
    case Collective::Broadcast:
    case Collective::Reduce: return 1.0;
  }
  return 1.0;
}

Schedule::Schedule(Collective collective, std::string algorithm, Bytes message, std::span<const DeviceId> ranks)
    : collective_(collective), algorithm_(std::move(algorithm)), message_(message), rank_count_(int(ranks.size())) {
  endpoints_.reserve(ranks.size());
  for (DeviceId d : ranks) endpoints_.push_back(EndpointInfo{d, EndpointRole::Rank});
}

void Schedule::reserve(std::size_t ops, std::size_t deps) {
  ops_.reserve(ops);
  deps_.reserve(deps);
}

Endpoint Schedule::add_endpoint(DeviceId device, EndpointRole role) {
  endpoints_.push_back(EndpointInfo{device, role});
  return Endpoint(endpoints_.size() - 1);
}

OpId Schedule::push(Op op, std::span<const OpId> deps) {
  const OpId id = OpId(ops_.size());
  op.dep_begin = std::uint32_t(deps_.size());
  op.dep_count = std::uint32_t(deps.size());
  for ([[maybe_unused]] OpId d : deps) assert(d < id && "dependencies must name earlier ops");
  deps_.insert(deps_.end(), deps.begin(), deps.end());
  channels_ = std::max<std::size_t>(channels_, std::size_t(op.channel) + 1);
  ops_.push_back(op);
  return id;
}

OpId Schedule::add_local(OpKind kind, Endpoint at, Bytes offset, Bytes bytes, std::span<const OpId> deps,
                         std::uint16_t channel, std::uint32_t step) {
  assert(kind != OpKind::Send && kind != OpKind::Recv);
  Op op;
  op.kind = kind;
  op.at = at;
  op.peer = at;
  op.offset = offset;
  op.bytes = bytes;
  op.channel = channel;
  op.step = step;
  return push(op, deps);
}

OpId Schedule::add_transfer(Endpoint from, Endpoint to, Bytes offset, Bytes bytes, std::span<const OpId> send_deps,
                            std::span<const OpId> recv_deps, std::uint16_t channel, std::uint32_t step) {
  Op send;
  send.kind = OpKind::Send;
  send.at = from;
  send.peer = to;
  send.offset = offset;
  send.bytes = bytes;
  send.channel = channel;
  send.step = step;
  const OpId send_id = push(send, send_deps);
  Op recv = send;
  recv.kind = OpKind::Recv;
  recv.at = to;
  recv.peer = from;
  recv.match = send_id;
  const OpId recv_id = push(recv, recv_deps);
  ops_[send_id].match = recv_id;
  return recv_id;
}

void Schedule::print(std::ostream& out, const Topology* topology) const {
  out << "schedule " << to_string(collective_) << " algorithm=" << algorithm_ << " message=" << to_string(message_)
      << " ranks=" << rank_count_ << " endpoints=" << endpoints_.size() << " ops=" << ops_.size()
      << " channels=" << channels_ << '\n';
  std::vector<std::vector<OpId>> by_endpoint(endpoints_.size());
  for (OpId id = 0; id < ops_.size(); ++id) by_endpoint[ops_[id].at].push_back(id);
  for (Endpoint e = 0; e < endpoints_.size(); ++e) {
    out << detail::endpoint_label(endpoints_, e, topology) << ":\n";
    for (OpId id : by_endpoint[e]) detail::print_op_line(out, endpoints_, topology, id, ops_[id], deps(id));
  }
}

std::string detail::endpoint_label(std::span<const EndpointInfo> endpoints, Endpoint e, const Topology* topology) {
  const EndpointInfo& info = endpoints[e];
  std::string name = info.role == EndpointRole::Rank     ? "rank " + std::to_string(e)
                     : info.role == EndpointRole::Switch ? "switch " + std::to_string(e)
                                                         : "ps " + std::to_string(e);
  if (topology) name += " (" + topology->device(info.device).name + ")";
  return name;
}

void detail::print_op_line(std::ostream& out, std::span<const EndpointInfo> endpoints, const Topology* topology,
                           OpId id, const Op& op, std::span<const OpId> deps) {
  out << "  #" << id << ' ' << to_string(op.kind) << ' ' << to_string(op.bytes) << " @" << to_string(op.offset);
  if (op.kind == OpKind::Send) out << " -> " << endpoint_label(endpoints, op.peer, topology);
  if (op.kind == OpKind::Recv) out << " <- " << endpoint_label(endpoints, op.peer, topology);
  out << " [ch " << op.channel << " step " << op.step << ']';
  if (!deps.empty()) {
    out << " after";
    for (OpId d : deps) out << " #" << d;
  }
  out << '\n';
}

std::vector<std::string> Schedule::check() const {
  std::vector<std::string> problems;
  auto fail = [&](OpId id, std::string what) { problems.push_back("op #" + std::to_string(id) + ": " + what); };
  for (OpId id = 0; id < ops_.size(); ++id) {
    const Op& op = ops_[id];
    if (op.at >= endpoints_.size() || op.peer >= endpoints_.size()) fail(id, "endpoint out of range");
    if (op.bytes.count() < 0 || op.offset.count() < 0) fail(id, "negative chunk");
    for (OpId d : deps(id))
      if (d >= id) fail(id, "depends on a later op #" + std::to_string(d));
    const bool wire = op.kind == OpKind::Send || op.kind == OpKind::Recv;
    if (!wire) continue;
    if (op.match >= ops_.size() || ops_[op.match].match != id) {
      fail(id, "send/recv without a matching counterpart");
      continue;
    }
    const Op& other = ops_[op.match];
    if (other.kind == op.kind || other.at != op.peer || other.peer != op.at || other.bytes != op.bytes)
      fail(id, "send/recv counterpart disagrees on endpoints or size");
    if (op.at == op.peer) fail(id, "transfer to itself");
  }
  return problems;
}

}  // namespace ringlab::sim
