// Chrome trace-event JSON writer (see trace.hpp); built with nlohmann::ordered_json so that key order
// is insertion order and the output is deterministic.
#include "ringlab/sim/trace.hpp"

#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace ringlab::sim {
namespace {

using Json = nlohmann::ordered_json;

constexpr double kPicosecondsPerMicrosecond = 1e6;

double microseconds(Duration d) { return double(d.picoseconds()) / kPicosecondsPerMicrosecond; }

std::string endpoint_label(const Schedule& schedule, Endpoint e) {
  switch (schedule.endpoints()[e].role) {
    case EndpointRole::Rank: return "rank " + std::to_string(e);
    case EndpointRole::Switch: return "switch " + std::to_string(e);
    case EndpointRole::ParameterServer: return "ps " + std::to_string(e);
  }
  return "endpoint " + std::to_string(e);
}

std::string op_name(const Schedule& schedule, const Op& op) {
  std::string name = std::string(to_string(op.kind)) + ' ' + to_string(op.bytes);
  if (op.kind == OpKind::Send) name += " -> " + endpoint_label(schedule, op.peer);
  if (op.kind == OpKind::Recv) name += " <- " + endpoint_label(schedule, op.peer);
  return name;
}

Json metadata(std::string_view what, Endpoint pid, std::uint32_t tid, Json args) {
  Json event;
  event["name"] = what;
  event["ph"] = "M";
  event["pid"] = pid;
  event["tid"] = tid;
  event["args"] = std::move(args);
  return event;
}

}  // namespace

void write_chrome_trace(std::ostream& out, const Schedule& schedule, const Result& result, const Topology& topology) {
  if (result.timeline.size() != schedule.ops().size())
    throw std::invalid_argument("chrome trace: the result has no timeline for this schedule (set record_timeline)");
  // Streamed one event per line, so memory stays O(endpoints) however many ops the schedule has.
  bool first = true;
  const auto emit = [&](const Json& event) {
    out << (first ? "\n" : ",\n") << event.dump();
    first = false;
  };
  out << "{\"traceEvents\": [";
  std::set<std::pair<Endpoint, std::uint32_t>> threads;
  for (const Op& op : schedule.ops()) threads.emplace(op.at, op.channel);
  for (Endpoint e = 0; e < schedule.endpoints().size(); ++e) {
    const std::string device = topology.device(schedule.endpoints()[e].device).name;
    emit(metadata("process_name", e, 0, Json{{"name", device + " (" + endpoint_label(schedule, e) + ")"}}));
    emit(metadata("process_sort_index", e, 0, Json{{"sort_index", e}}));
  }
  for (const auto& [endpoint, channel] : threads)
    emit(metadata("thread_name", endpoint, channel, Json{{"name", "channel " + std::to_string(channel)}}));
  for (OpId id = 0; id < schedule.ops().size(); ++id) {
    const Op& op = schedule.op(id);
    const OpSpan& span = result.timeline[id];
    Json event;
    event["name"] = op_name(schedule, op);
    event["cat"] = to_string(op.kind);
    event["ph"] = "X";
    event["pid"] = op.at;
    event["tid"] = op.channel;
    event["ts"] = microseconds(span.start);
    event["dur"] = microseconds(span.end - span.start);
    event["args"] = Json{{"op", id}, {"step", op.step}, {"offset", schedule.byte_offset(op).count()}, {"bytes", op.bytes.count()}};
    emit(event);
  }
  const Json other{{"collective", to_string(result.collective)},
                   {"algorithm", result.algorithm},
                   {"message_bytes", result.message.count()},
                   {"ranks", result.ranks},
                   {"time_us", microseconds(result.time)}};
  out << "\n],\n\"displayTimeUnit\": \"ns\",\n\"otherData\": " << other.dump() << "}\n";
}

}  // namespace ringlab::sim
