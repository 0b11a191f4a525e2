// Results files: Result <-> JSON (schema in docs/results-format.md). The reader checks every field
// through JsonReader so a bad file names each problem's JSON pointer.
#include "ringlab/sim/result_json.hpp"

#include <limits>

#include "ringlab/topology/error.hpp"
#include "ringlab/topology/scenario.hpp"

namespace ringlab::sim {
namespace {

using Json = nlohmann::ordered_json;
constexpr std::int64_t kMaxInt = std::numeric_limits<std::int64_t>::max();

std::string_view to_string(ResultKind k) { return k == ResultKind::Simulated ? "simulated" : "measured"; }
std::optional<ResultKind> find_result_kind(std::string_view name) {
  if (name == "simulated") return ResultKind::Simulated;
  if (name == "measured") return ResultKind::Measured;
  return std::nullopt;
}

Json durations(const std::vector<Duration>& values) {
  Json out = Json::array();
  for (Duration d : values) out.push_back(d.picoseconds());
  return out;
}

/// Reads helpers that record a problem and leave the target unchanged on a mismatch.
struct Fields {
  JsonReader& r;
  const JsonNode& object;

  std::optional<JsonNode> get(std::string_view key, bool required, std::string_view expected) {
    return required ? r.required(object, key, expected) : r.member(object, key);
  }
  void text(std::string_view key, std::string& into, bool required = false) {
    if (auto n = get(key, required, "a string"))
      if (auto v = r.string(*n)) into = *v;
  }
  template <typename Int>
  void integer(std::string_view key, Int& into, bool required = false, std::int64_t lo = 0, std::int64_t hi = kMaxInt) {
    if (auto n = get(key, required, "an integer"))
      if (auto v = r.integer(*n, lo, hi)) into = Int(*v);
  }
  void duration(std::string_view key, Duration& into, bool required = false) {
    std::int64_t ps = into.picoseconds();
    integer(key, ps, required);
    into = Duration{ps};
  }
  template <typename T, typename Read>
  void array(std::string_view key, std::vector<T>& into, Read read) {
    const auto n = r.member(object, key);
    if (!n || !r.expect_array(*n)) return;
    into.clear();
    for (const JsonNode& e : r.elements(*n))
      if (auto v = read(e)) into.push_back(*v);
  }
};

std::optional<std::int64_t> non_negative(JsonReader& r, const JsonNode& n) { return r.integer(n, 0, kMaxInt); }

}  // namespace

Json result_to_json(const Result& result, const Topology* topology) {
  Json j;
  j["source"] = {{"kind", to_string(result.source.kind)}, {"engine", result.source.engine}, {"hosts", result.source.hosts}};
  if (result.source.gpus_per_thread > 0) j["source"]["gpus_per_thread"] = result.source.gpus_per_thread;
  j["key"] = {{"scenario", result.key.scenario}, {"dtype", result.key.dtype}, {"protocol", result.key.protocol},
              {"channels", result.key.channels}, {"order", result.key.order}};
  j["collective"] = to_string(result.collective);
  j["algorithm"] = result.algorithm;
  j["message_bytes"] = result.message.count();
  j["ranks"] = result.ranks;
  j["time_ps"] = result.time.picoseconds();
  j["rank_finish_ps"] = durations(result.rank_finish);
  if (const auto& it = result.iterations) {
    j["iterations"] = {{"count", it->count},
                       {"warmup", it->warmup},
                       {"min_ps", it->min.picoseconds()},
                       {"median_ps", it->median.picoseconds()},
                       {"mean_ps", it->mean.picoseconds()},
                       {"max_ps", it->max.picoseconds()}};
    if (it->p99) j["iterations"]["p99_ps"] = it->p99->picoseconds();
  }
  if (result.wrong) j["wrong"] = *result.wrong;
  Json links = Json::array();
  for (const DirectionStats& s : result.directions) {
    Json l;
    l["direction"] = s.direction;
    if (topology) l["name"] = topology->direction_name(s.direction);
    l["bytes"] = s.bytes.count();
    l["busy_ps"] = s.busy.picoseconds();
    l["utilisation"] = s.utilisation;
    links.push_back(std::move(l));
  }
  j["links"] = std::move(links);
  j["bottlenecks"] = result.bottlenecks;
  j["critical_path"] = result.critical_path;
  j["events"] = result.events;
  j["flows"] = result.flows;
  j["rate_updates"] = result.rate_updates;
  if (result.channel_fold > 1) j["channel_fold"] = result.channel_fold;
  return j;
}

std::optional<Result> read_result(JsonReader& r, const JsonNode& node) {
  if (!r.expect_object(node)) return std::nullopt;
  const std::size_t before = r.problem_count();
  r.check_keys(node, {"source", "key", "collective", "algorithm", "message_bytes", "ranks", "time_ps", "rank_finish_ps",
                      "iterations", "wrong", "links", "bottlenecks", "critical_path", "events", "flows", "rate_updates", "channel_fold"});
  Result out;
  Fields f{r, node};
  if (auto s = r.required(node, "source", "{kind, engine, hosts}"); s && r.expect_object(*s)) {
    r.check_keys(*s, {"kind", "engine", "hosts", "gpus_per_thread"});
    Fields src{r, *s};
    if (auto k = r.required(*s, "kind", "simulated or measured"))
      if (auto v = r.choice(*k, find_result_kind, "simulated or measured")) out.source.kind = *v;
    src.text("engine", out.source.engine);
    src.array("hosts", out.source.hosts, [&](const JsonNode& e) { return r.string(e); });
    src.integer("gpus_per_thread", out.source.gpus_per_thread, false, 0, 1 << 20);
  }
  if (auto k = r.member(node, "key"); k && r.expect_object(*k)) {
    r.check_keys(*k, {"scenario", "dtype", "protocol", "channels", "order"});
    Fields key{r, *k};
    key.text("scenario", out.key.scenario);
    key.text("dtype", out.key.dtype);
    key.text("protocol", out.key.protocol);
    key.integer("channels", out.key.channels, false, 0, std::numeric_limits<int>::max());
    key.text("order", out.key.order);
  }
  if (auto c = r.required(node, "collective", "allreduce, reducescatter, allgather, broadcast or reduce"))
    if (auto v = r.choice(*c, find_collective, "allreduce, reducescatter, allgather, broadcast or reduce"))
      out.collective = *v;
  f.text("algorithm", out.algorithm);
  std::int64_t message = 0;
  f.integer("message_bytes", message, true);
  out.message = Bytes{message};
  f.integer("ranks", out.ranks, true, 1, std::numeric_limits<int>::max());
  f.duration("time_ps", out.time, true);
  f.array("rank_finish_ps", out.rank_finish, [&](const JsonNode& e) -> std::optional<Duration> {
    if (auto v = non_negative(r, e)) return Duration{*v};
    return std::nullopt;
  });
  if (auto it = r.member(node, "iterations"); it && r.expect_object(*it)) {
    r.check_keys(*it, {"count", "warmup", "min_ps", "median_ps", "mean_ps", "max_ps", "p99_ps"});
    Fields i{r, *it};
    IterationStats s;
    i.integer("count", s.count, true, 1, std::numeric_limits<int>::max());
    i.integer("warmup", s.warmup, false, 0, std::numeric_limits<int>::max());
    i.duration("min_ps", s.min, true);
    i.duration("median_ps", s.median, true);
    i.duration("mean_ps", s.mean, true);
    i.duration("max_ps", s.max, true);
    if ((*it)->contains("p99_ps")) {
      Duration p99;
      i.duration("p99_ps", p99, true);
      s.p99 = p99;
    }
    if (!(s.min <= s.median && s.median <= s.max && s.min <= s.mean && s.mean <= s.max))
      r.add(it->path, "expected min <= median, mean <= max");
    if (s.p99 && !(s.median <= *s.p99 && *s.p99 <= s.max)) r.add(it->path, "expected median <= p99 <= max");
    out.iterations = s;
  }
  if (auto w = r.member(node, "wrong"))
    if (auto v = non_negative(r, *w)) out.wrong = *v;
  f.array("links", out.directions, [&](const JsonNode& e) -> std::optional<DirectionStats> {
    if (!r.expect_object(e)) return std::nullopt;
    r.check_keys(e, {"direction", "name", "bytes", "busy_ps", "utilisation"});
    Fields l{r, e};
    DirectionStats s;
    l.integer("direction", s.direction, true, 0, std::numeric_limits<DirectionId>::max());
    std::int64_t bytes = 0;
    l.integer("bytes", bytes, true);
    s.bytes = Bytes{bytes};
    l.duration("busy_ps", s.busy, true);
    if (auto u = r.required(e, "utilisation", "a fraction from 0 to 1"))
      if (auto v = r.number(*u, 0, 1, "a fraction from 0 to 1")) s.utilisation = *v;
    return s;
  });
  f.array("bottlenecks", out.bottlenecks, [&](const JsonNode& e) -> std::optional<DirectionId> {
    if (auto v = r.integer(e, 0, std::numeric_limits<DirectionId>::max())) return DirectionId(*v);
    return std::nullopt;
  });
  f.array("critical_path", out.critical_path, [&](const JsonNode& e) -> std::optional<OpId> {
    if (auto v = r.integer(e, 0, std::numeric_limits<OpId>::max())) return OpId(*v);
    return std::nullopt;
  });
  f.integer("events", out.events);
  f.integer("flows", out.flows);
  f.integer("rate_updates", out.rate_updates);
  f.integer("channel_fold", out.channel_fold, false, 1, std::numeric_limits<std::uint32_t>::max());
  if (r.problem_count() != before) return std::nullopt;
  return out;
}

void write_results_json(std::ostream& out, std::span<const Result> results, const Topology* topology) {
  out << "{\"schema\":" << Json(kResultsSchema).dump() << ",\"version\":" << kResultsVersion << ",\"results\":[";
  for (std::size_t i = 0; i < results.size(); ++i)
    out << (i == 0 ? "\n" : ",\n") << result_to_json(results[i], topology).dump();
  out << "\n]}\n";
}

std::vector<Result> read_results_json(const nlohmann::json& document, const std::string& source) {
  ProblemList problems(source);
  JsonReader r(problems);
  const JsonNode root{&document, ""};
  std::vector<Result> out;
  if (!r.expect_object(root)) problems.throw_if_any();
  r.check_keys(root, {"schema", "version", "results"});
  r.check_schema(root, kResultsSchema, kResultsVersion);
  problems.throw_if_any();  // the rest means nothing under another schema
  if (auto n = r.required(root, "results", "an array of results"); n && r.expect_array(*n))
    for (const JsonNode& e : r.elements(*n))
      if (auto result = read_result(r, e)) out.push_back(std::move(*result));
  problems.throw_if_any();
  return out;
}

std::vector<Result> load_results(const std::string& path) {
  return read_results_json(read_json_file(path, "results file"), path);
}

}  // namespace ringlab::sim
