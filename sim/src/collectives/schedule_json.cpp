// Schedule <-> JSON ("ringlab.schedule" version 1). The header is an object; ops are arrays of a
// fixed field order (kOpFields) so that large schedules stay compact.
#include "ringlab/sim/schedule_json.hpp"

#include <array>
#include <limits>
#include <optional>

#include "ringlab/sim/calibration.hpp"
#include "ringlab/sim/payload.hpp"
#include "ringlab/topology/error.hpp"
#include "ringlab/topology/json_reader.hpp"

namespace ringlab::sim {
namespace {

using Json = nlohmann::ordered_json;

/// Field order of an op row.
constexpr std::array<std::string_view, 12> kOpFields{"kind",  "at",    "peer",  "src",     "dst",  "mode",
                                                    "first", "count", "bytes", "channel", "step", "deps"};
enum Field : std::size_t { Kind, At, Peer, Src, Dst, Mode, First, Count, ByteCount, Channel, Step, Deps };

Json op_row(const Schedule& s, OpId id) {
  const Op& op = s.op(id);
  Json deps = Json::array();
  for (OpId d : s.deps(id)) deps.push_back(d);
  return Json::array({to_string(op.kind), op.at, op.peer, to_string(op.src), to_string(op.dst), to_string(op.mode),
                      op.first, op.count, op.bytes.count(), op.channel, op.step, std::move(deps)});
}

std::string field_names() {
  std::string out;
  for (std::string_view f : kOpFields) out += (out.empty() ? "" : ", ") + std::string(f);
  return out;
}

template <std::size_t N>
std::string names_of(const std::array<std::string_view, N>& names) {
  std::string out;
  for (std::string_view n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

constexpr std::array<std::string_view, 6> kOpKinds{"send", "recv", "reduce", "copy", "encode", "decode"};
constexpr std::array<std::string_view, 5> kBuffers{"data", "scratch", "inbox", "wire", "sparse"};

}  // namespace

void write_schedule_json(std::ostream& out, const Schedule& schedule, const Topology* topology) {
  Json head;
  head["schema"] = kScheduleSchema;
  head["version"] = kScheduleVersion;
  head["collective"] = to_string(schedule.collective());
  head["algorithm"] = schedule.algorithm();
  head["dtype"] = to_string(schedule.payload().dtype);
  head["compression"] = to_string(schedule.payload().compression);
  head["redop"] = to_string(schedule.redop());
  head["protocol"] = to_string(schedule.protocol());
  if (schedule.nccl_latency()) head["nccl_latency"] = to_string(*schedule.nccl_latency());
  head["message_bytes"] = schedule.message().count();
  head["ranks"] = schedule.rank_count();
  head["root"] = schedule.root();
  head["channels"] = schedule.channel_count();
  Json endpoints = Json::array();
  for (const EndpointInfo& e : schedule.endpoints()) {
    Json entry;
    if (topology)
      entry["device"] = topology->device(e.device).name;
    else
      entry["device_id"] = e.device;
    entry["role"] = to_string(e.role);
    endpoints.push_back(std::move(entry));
  }
  head["endpoints"] = std::move(endpoints);
  Json fields = Json::array();
  for (std::string_view f : kOpFields) fields.push_back(f);
  head["op_fields"] = std::move(fields);
  std::string text = head.dump();
  text.pop_back();  // the closing brace: ops follow, one per line
  out << text << ",\"ops\":[";
  for (OpId id = 0; id < schedule.ops().size(); ++id) out << (id == 0 ? "\n" : ",\n") << op_row(schedule, id).dump();
  out << "\n]}\n";
}

Schedule read_schedule_json(const nlohmann::json& document, const Topology& topology, const std::string& source) {
  ProblemList problems(source);
  JsonReader r(problems);
  const JsonNode root{&document, ""};
  auto fail = [&]() -> Schedule {
    problems.throw_if_any();
    throw InputError(source, "", "not a schedule");
  };
  if (!r.expect_object(root)) fail();
  r.check_keys(root, {"schema", "version", "collective", "algorithm", "dtype", "compression", "redop", "protocol",
                      "nccl_latency", "message_bytes", "ranks", "root", "channels", "endpoints", "op_fields", "ops"});
  r.check_schema(root, kScheduleSchema, kScheduleVersion);
  problems.throw_if_any();  // the rest means nothing under another schema

  std::optional<Collective> collective;
  if (auto n = r.required(root, "collective", "a collective name"))
    collective = r.choice(*n, find_collective, "allreduce, reducescatter, allgather, broadcast or reduce");
  std::string algorithm;
  if (auto n = r.required(root, "algorithm", "the algorithm's name"))
    if (auto v = r.string(*n)) algorithm = *v;
  Payload payload;
  if (auto n = r.required(root, "dtype", "an element type"))
    if (auto v = r.choice(*n, find_data_type, "fp32, bf16, fp16, fp8 or int8")) payload.dtype = *v;
  if (auto n = r.required(root, "compression", "none, fp8, int8 or topk:<ratio>"))
    if (auto v = r.choice(*n, parse_compression, "none, fp8, int8 or topk:<ratio>")) payload.compression = *v;
  if (auto n = r.required(root, "redop", "sum")) r.choice(*n, find_reduce_op, "sum");
  std::optional<Protocol> protocol;
  if (auto n = r.required(root, "protocol", "simple, ll128 or ll"))
    protocol = r.choice(*n, find_protocol, "simple, ll128 or ll");
  std::optional<Duration> nccl_latency;
  if (auto n = r.member(root, "nccl_latency"))
    nccl_latency = r.duration(*n);
  std::optional<std::int64_t> message;
  if (auto n = r.required(root, "message_bytes", "the per-rank buffer in bytes"))
    message = r.integer(*n, 0, kMaxBytes);  // the largest size a unit string may give (units.hpp)
  if (message && *message % payload.element_bytes() != 0)
    r.add("/message_bytes", "not a whole number of " + std::string(to_string(payload.dtype)) + " elements");
  std::optional<std::int64_t> ranks;
  if (auto n = r.required(root, "ranks", "the rank count")) ranks = r.integer(*n, 1, std::numeric_limits<int>::max());
  std::optional<std::int64_t> root_rank;
  if (auto n = r.required(root, "root", "the broadcast/reduce root rank (0 otherwise)"))
    root_rank = r.integer(*n, 0, ranks ? std::max<std::int64_t>(0, *ranks - 1) : std::numeric_limits<int>::max());
  std::optional<std::int64_t> channels;
  if (auto n = r.required(root, "channels", "the channel count"))
    channels = r.integer(*n, 1, std::int64_t(std::numeric_limits<std::uint16_t>::max()) + 1);
  if (auto n = r.required(root, "op_fields", "the op field names")) {
    Json expected = Json::array();
    for (std::string_view f : kOpFields) expected.push_back(f);
    if (Json(**n) != expected) r.add(n->path, "expected [" + field_names() + "]");
  }

  std::vector<DeviceId> rank_devices;
  std::vector<std::pair<DeviceId, EndpointRole>> extra;
  if (auto n = r.required(root, "endpoints", "an array of {device, role}"); n && r.expect_array(*n)) {
    for (const JsonNode& e : r.elements(*n)) {
      if (!r.expect_object(e)) continue;
      r.check_keys(e, {"device", "device_id", "role"});
      std::optional<DeviceId> device;
      if (auto d = r.member(e, "device")) {
        if (auto name = r.string(*d)) {
          device = topology.find_device(*name);
          if (!device) r.add(d->path, "no device \"" + *name + "\" in the topology");
        }
      } else if (auto id = r.member(e, "device_id")) {
        if (auto v = r.integer(*id, 0, std::int64_t(topology.device_count()) - 1)) device = DeviceId(*v);
      } else {
        r.add(e.path, "missing required field: expected device (a name) or device_id");
      }
      std::optional<EndpointRole> role;
      if (auto d = r.required(e, "role", "rank, switch or parameter_server"))
        role = r.choice(*d, find_endpoint_role, "rank, switch or parameter_server");
      if (!device || !role) continue;
      const bool is_rank = *role == EndpointRole::Rank;
      if (is_rank && !extra.empty()) r.add(e.path, "ranks must come before switches and parameter servers");
      if (is_rank)
        rank_devices.push_back(*device);
      else
        extra.emplace_back(*device, *role);
    }
  }
  if (ranks && std::int64_t(rank_devices.size()) != *ranks)
    r.add("/endpoints", "lists " + std::to_string(rank_devices.size()) + " ranks, \"ranks\" says " +
                            std::to_string(*ranks));
  if (!problems.empty() || !collective || !protocol || !message) fail();

  Schedule schedule(*collective, algorithm, Bytes{*message}, rank_devices);
  schedule.set_payload(payload);
  schedule.set_protocol(*protocol);
  if (nccl_latency) schedule.set_nccl_latency(*nccl_latency);
  if (root_rank) schedule.set_root(int(*root_rank));
  for (const auto& [device, role] : extra) schedule.add_endpoint(device, role);
  const auto endpoint_count = std::int64_t(schedule.endpoints().size());
  const std::int64_t elements = *message / payload.element_bytes();

  struct Row {
    Op op;
    std::vector<OpId> deps;
  };
  // Parses one row; nullopt (with problems recorded) when malformed.
  auto parse_row = [&](const JsonNode& row, std::int64_t id) -> std::optional<Row> {
    if (!r.expect_array(row)) return std::nullopt;
    const std::vector<JsonNode> f = r.elements(row);
    if (f.size() != kOpFields.size()) {
      r.add(row.path, "expected " + std::to_string(kOpFields.size()) + " fields [" + field_names() + "], got " +
                          std::to_string(f.size()));
      return std::nullopt;
    }
    const std::size_t before = problems.size();
    Row out;
    Op& op = out.op;
    if (auto v = r.choice(f[Kind], find_op_kind, names_of(kOpKinds))) op.kind = *v;
    if (auto v = r.integer(f[At], 0, endpoint_count - 1)) op.at = Endpoint(*v);
    if (auto v = r.integer(f[Peer], 0, endpoint_count - 1)) op.peer = Endpoint(*v);
    if (auto v = r.choice(f[Src], find_buffer, names_of(kBuffers))) op.src = *v;
    if (auto v = r.choice(f[Dst], find_buffer, names_of(kBuffers))) op.dst = *v;
    if (auto v = r.choice(f[Mode], find_recv_mode, "overwrite or reduce")) op.mode = *v;
    if (auto v = r.integer(f[First], 0, std::numeric_limits<std::int64_t>::max())) op.first = *v;
    if (auto v = r.integer(f[Count], 0, std::numeric_limits<std::int64_t>::max())) op.count = *v;
    if (auto v = r.integer(f[ByteCount], 0, kMaxBytes)) op.bytes = Bytes{*v};
    if (auto v = r.integer(f[Channel], 0, std::numeric_limits<std::uint16_t>::max())) op.channel = std::uint16_t(*v);
    if (auto v = r.integer(f[Step], 0, std::numeric_limits<std::uint32_t>::max())) op.step = std::uint32_t(*v);
    if (r.expect_array(f[Deps]))
      for (const JsonNode& d : r.elements(f[Deps]))
        if (auto v = r.integer(d, 0, std::numeric_limits<std::uint32_t>::max())) {
          if (*v >= id) r.add(d.path, "depends on op #" + std::to_string(*v) + ", not an earlier op");
          out.deps.push_back(OpId(*v));
        }
    const bool sparse = op.src == Buffer::Sparse || op.dst == Buffer::Sparse;
    if (!sparse && op.first + op.count > elements)
      r.add(row.path, "range [" + std::to_string(op.first) + ", " + std::to_string(op.first + op.count) +
                          ") is beyond the buffer of " + std::to_string(elements) + " elements");
    if (problems.size() != before) return std::nullopt;
    return out;
  };

  if (auto n = r.required(root, "ops", "an array of op rows"); n && r.expect_array(*n)) {
    const std::vector<JsonNode> rows = r.elements(*n);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const std::optional<Row> row = parse_row(rows[i], std::int64_t(i));
      if (!row) continue;
      const Op& op = row->op;
      if (op.kind == OpKind::Recv) {
        r.add(rows[i].path, "a recv must directly follow its send");
        continue;
      }
      if (op.kind != OpKind::Send) {
        if (problems.empty())
          schedule.add_local(op.kind, op.at, op.peer, op.src, op.dst, op.chunk(), op.bytes, row->deps, op.channel,
                             op.step);
        continue;
      }
      const std::optional<Row> recv = i + 1 < rows.size() ? parse_row(rows[i + 1], std::int64_t(i + 1)) : std::nullopt;
      ++i;
      if (!recv) {
        if (i >= rows.size()) r.add(rows[i - 1].path, "a send must be directly followed by its recv");
        continue;
      }
      const Op& o = recv->op;
      if (o.kind != OpKind::Recv || o.at != op.peer || o.peer != op.at || o.chunk() != op.chunk() ||
          o.bytes != op.bytes || o.src != op.src || o.dst != op.dst || o.mode != op.mode || o.channel != op.channel ||
          o.step != op.step) {
        r.add(rows[i].path, "must be the recv of the send before it (same range, bytes, buffers, mode, channel and "
                            "step; at and peer swapped)");
        continue;
      }
      if (problems.empty())
        schedule.add_transfer(op.at, op.peer, op.src, op.dst, op.mode, op.chunk(), op.bytes, row->deps, recv->deps,
                              op.channel, op.step);
    }
  }
  problems.throw_if_any();
  if (channels && std::int64_t(schedule.channel_count()) != *channels)
    r.add("/channels", "says " + std::to_string(*channels) + ", the ops use " +
                           std::to_string(schedule.channel_count()));
  for (const std::string& p : schedule.check()) r.add("/ops", p);
  problems.throw_if_any();
  return schedule;
}

}  // namespace ringlab::sim
