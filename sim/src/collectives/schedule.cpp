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
constexpr std::array<std::string_view, 5> kBufferNames{"data", "scratch", "inbox", "wire", "sparse"};
constexpr std::array<std::string_view, 2> kRecvModeNames{"overwrite", "reduce"};
constexpr std::array<std::string_view, 1> kReduceOpNames{"sum"};
constexpr std::array<std::string_view, 3> kRoleNames{"rank", "switch", "parameter_server"};

template <typename Enum, std::size_t N>
std::optional<Enum> find_name(const std::array<std::string_view, N>& names, std::string_view name) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == name) return Enum(i);
  return std::nullopt;
}
}  // namespace

std::string_view to_string(Collective c) { return kCollectiveNames[std::size_t(c)]; }
std::string_view to_string(OpKind k) { return kOpNames[std::size_t(k)]; }
std::string_view to_string(Buffer b) { return kBufferNames[std::size_t(b)]; }
std::string_view to_string(RecvMode m) { return kRecvModeNames[std::size_t(m)]; }
std::string_view to_string(ReduceOp r) { return kReduceOpNames[std::size_t(r)]; }
std::string_view to_string(EndpointRole r) { return kRoleNames[std::size_t(r)]; }
std::optional<OpKind> find_op_kind(std::string_view name) { return find_name<OpKind>(kOpNames, name); }
std::optional<Buffer> find_buffer(std::string_view name) { return find_name<Buffer>(kBufferNames, name); }
std::optional<RecvMode> find_recv_mode(std::string_view name) { return find_name<RecvMode>(kRecvModeNames, name); }
std::optional<ReduceOp> find_reduce_op(std::string_view name) { return find_name<ReduceOp>(kReduceOpNames, name); }
std::optional<EndpointRole> find_endpoint_role(std::string_view name) {
  return find_name<EndpointRole>(kRoleNames, name);
}

std::int64_t Schedule::element_bytes(Buffer buffer) const {
  const std::int64_t dense = payload_.element_bytes();
  return buffer == Buffer::Sparse ? dense + kTopKIndexBytes : dense;
}

Bytes Schedule::byte_offset(const Op& op) const {
  const Buffer addressed = op.kind == OpKind::Recv ? op.dst : op.src;
  return Bytes{op.first * element_bytes(addressed)};
}

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

OpId Schedule::add_local(OpKind kind, Endpoint at, Endpoint slot, Buffer src, Buffer dst, Chunk chunk, Bytes bytes,
                         std::span<const OpId> deps, std::uint16_t channel, std::uint32_t step) {
  assert(kind != OpKind::Send && kind != OpKind::Recv);
  Op op;
  op.kind = kind;
  op.at = at;
  op.peer = slot;
  op.src = src;
  op.dst = dst;
  op.first = chunk.first;
  op.count = chunk.count;
  op.bytes = bytes;
  op.channel = channel;
  op.step = step;
  return push(op, deps);
}

OpId Schedule::add_transfer(Endpoint from, Endpoint to, Buffer src, Buffer dst, RecvMode mode, Chunk chunk, Bytes wire,
                            std::span<const OpId> send_deps, std::span<const OpId> recv_deps, std::uint16_t channel,
                            std::uint32_t step) {
  Op send;
  send.kind = OpKind::Send;
  send.at = from;
  send.peer = to;
  send.src = src;
  send.dst = dst;
  send.mode = mode;
  send.first = chunk.first;
  send.count = chunk.count;
  send.bytes = wire;
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

OpId Schedule::add_local(OpKind kind, Endpoint at, Bytes offset, Bytes bytes, std::span<const OpId> deps,
                         std::uint16_t channel, std::uint32_t step) {
  return add_local(kind, at, at, home(at), home(at), chunk_of(offset, bytes), bytes, deps, channel, step);
}

OpId Schedule::add_transfer(Endpoint from, Endpoint to, Bytes offset, Bytes bytes, std::span<const OpId> send_deps,
                            std::span<const OpId> recv_deps, std::uint16_t channel, std::uint32_t step) {
  return add_transfer(from, to, home(from), home(to), RecvMode::Overwrite, chunk_of(offset, bytes), bytes, send_deps,
                      recv_deps, channel, step);
}

void Schedule::print(std::ostream& out, const Topology* topology) const {
  out << "schedule " << to_string(collective_) << " algorithm=" << algorithm_ << " message=" << to_string(message_)
      << " ranks=" << rank_count_ << " endpoints=" << endpoints_.size() << " ops=" << ops_.size()
      << " channels=" << channels_ << '\n';
  std::vector<std::vector<OpId>> by_endpoint(endpoints_.size());
  for (OpId id = 0; id < ops_.size(); ++id) by_endpoint[ops_[id].at].push_back(id);
  for (Endpoint e = 0; e < endpoints_.size(); ++e) {
    out << detail::endpoint_label(endpoints_, e, topology) << ":\n";
    for (OpId id : by_endpoint[e])
      detail::print_op_line(out, endpoints_, topology, id, ops_[id], byte_offset(ops_[id]), deps(id));
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

void detail::print_op_head(std::ostream& out, std::span<const EndpointInfo> endpoints, const Topology* topology,
                           std::uint64_t id, const Op& op, Bytes offset) {
  out << "  #" << id << ' ' << to_string(op.kind) << ' ' << to_string(op.bytes) << " @" << to_string(offset);
  if (op.kind == OpKind::Send) out << " -> " << endpoint_label(endpoints, op.peer, topology);
  if (op.kind == OpKind::Recv) out << " <- " << endpoint_label(endpoints, op.peer, topology);
  out << " [ch " << op.channel << " step " << op.step << ']';
}

std::vector<std::string> Schedule::check() const {
  std::vector<std::string> problems;
  auto fail = [&](OpId id, std::string what) { problems.push_back("op #" + std::to_string(id) + ": " + what); };
  for (OpId id = 0; id < ops_.size(); ++id) {
    const Op& op = ops_[id];
    if (op.at >= endpoints_.size() || op.peer >= endpoints_.size()) fail(id, "endpoint out of range");
    if (op.bytes.count() < 0 || op.first < 0 || op.count < 0) fail(id, "negative chunk");
    if (op.at < endpoints_.size() && op.peer < endpoints_.size()) {
      const Buffer own[2] = {op.kind == OpKind::Recv ? op.dst : op.src, op.kind == OpKind::Send ? op.src : op.dst};
      for (Buffer b : own) {
        const bool rank = endpoints_[op.at].role == EndpointRole::Rank;
        if ((b == Buffer::Data && !rank) || (b == Buffer::Scratch && rank))
          fail(id, std::string("buffer ") + std::string(to_string(b)) + " does not exist at this endpoint");
      }
    }
    for (OpId d : deps(id))
      if (d >= id) fail(id, "depends on a later op #" + std::to_string(d));
    const bool wire = op.kind == OpKind::Send || op.kind == OpKind::Recv;
    if (!wire) continue;
    if (op.match >= ops_.size() || ops_[op.match].match != id) {
      fail(id, "send/recv without a matching counterpart");
      continue;
    }
    const Op& other = ops_[op.match];
    if (other.kind == op.kind || other.at != op.peer || other.peer != op.at || other.bytes != op.bytes ||
        other.chunk() != op.chunk() || other.src != op.src || other.dst != op.dst || other.mode != op.mode)
      fail(id, "send/recv counterpart disagrees on endpoints, range, buffers or size");
    if (op.at == op.peer) fail(id, "transfer to itself");
  }
  return problems;
}

}  // namespace ringlab::sim
