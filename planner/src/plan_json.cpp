// plan.json writer and validating reader (plan_json.hpp; fields in docs/plan-format.md).
#include "ringlab/planner/plan_json.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "ringlab/topology/error.hpp"
#include "ringlab/topology/json_reader.hpp"
#include "ringlab/topology/scenario.hpp"

namespace ringlab::planner {
namespace {

using nlohmann::json;

constexpr int kMaxPort = 65535;
constexpr int kMaxCount = 1 << 24;  // bound of ranks, local indices and batch counts

json nic_json(int nic) { return nic < 0 ? json(nullptr) : json(nic); }

json setting_json(const NcclSetting& s) { return {{"name", s.name}, {"value", s.value}, {"reason", s.reason}}; }

json batch_json(const BatchPlan& b) {
  return {{"micro_batch", b.micro_batch},   {"rank_micro_batch", b.rank_micro_batch},
          {"accumulation", b.accumulation}, {"global_batch", b.global_batch},
          {"lr_scaling", b.lr_scaling}};
}

/// True for a name a POSIX shell can export (the env files write `export NAME='value'`).
bool is_env_name(const std::string& name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

/// Count of entries in a rank_order value (array, or object with "ranks"), 0 when not that shape.
int order_length(const json& value) {
  if (value.is_array()) return int(value.size());
  if (value.is_object() && value.contains("ranks") && value["ranks"].is_array()) return int(value["ranks"].size());
  return 0;
}

/// Local indices of the NICs of a host.
std::set<int> host_nics(const Topology& topology, HostId host) {
  std::set<int> nics;
  for (DeviceId d : topology.host_devices(host))
    if (topology.device(d).kind == DeviceKind::Nic) nics.insert(topology.device(d).local_index);
  return nics;
}

std::optional<int> read_nic(JsonReader& r, const JsonNode& node, const std::set<int>& nics) {
  if (node->is_null()) return -1;
  const auto value = r.integer(node, 0, kMaxCount);
  if (!value) return std::nullopt;
  if (!nics.count(int(*value))) {
    r.add(node.path, "the host has no NIC with local index " + std::to_string(*value) + " (it has " +
                         std::to_string(nics.size()) + "); null means none");
    return std::nullopt;
  }
  return int(*value);
}

std::vector<int> read_int_array(JsonReader& r, const JsonNode& node, int lo, int hi) {
  std::vector<int> out;
  if (!r.expect_array(node)) return out;
  for (const JsonNode& e : r.elements(node))
    if (const auto v = r.integer(e, lo, hi)) out.push_back(int(*v));
  return out;
}

std::optional<NcclSetting> read_setting(JsonReader& r, const JsonNode& node, bool debug_only) {
  if (!r.expect_object(node)) return std::nullopt;
  r.check_keys(node, {"name", "value", "reason"});
  const std::size_t before = r.problem_count();
  NcclSetting s;
  s.debug_only = debug_only;
  if (const auto n = r.required(node, "name", "an environment variable name such as \"NCCL_CROSS_NIC\"")) {
    if (auto name = r.string(*n); name && !is_env_name(*name))
      r.add(n->path, "'" + *name + "' is not an environment variable name (letters, digits and '_')");
    else if (name)
      s.name = *name;
  }
  if (const auto v = r.required(node, "value", "the value as a string")) {
    if (auto value = r.string(*v); value && value->find_first_of("'\n\r") != std::string::npos)
      r.add(v->path, "a value may hold no quote (') or line break: the env files quote it for the shell");
    else if (value)
      s.value = *value;
  }
  r.field(node, "reason", s.reason);
  if (s.reason.find_first_of("\n\r") != std::string::npos) r.add(node.path + "/reason", "expected one line");
  if (r.problem_count() != before) return std::nullopt;
  return s;
}

std::optional<BatchPlan> read_batch(JsonReader& r, const JsonNode& node) {
  if (!r.expect_object(node)) return std::nullopt;
  r.check_keys(node, {"micro_batch", "rank_micro_batch", "accumulation", "global_batch", "lr_scaling"});
  BatchPlan b;
  r.field(node, "micro_batch", b.micro_batch, 1, kMaxCount);
  if (const auto n = r.member(node, "rank_micro_batch")) b.rank_micro_batch = read_int_array(r, *n, 1, kMaxCount);
  r.field(node, "accumulation", b.accumulation, 1, kMaxCount);
  if (const auto n = r.member(node, "global_batch"))
    if (const auto v = r.integer(*n, 0, std::int64_t(1) << 50)) b.global_batch = *v;
  r.field(node, "lr_scaling", b.lr_scaling);
  return b;
}

/// Reads one host; `next_rank` is the first rank it must hold. Checks names, GPUs against the order
/// and the channels' shape; returns nullopt after recording problems.
std::optional<HostPlan> read_host(const Topology& topology, JsonReader& r, const JsonNode& node,
                                  const sim::RankOrder& order, int next_rank, int channels) {
  if (!r.expect_object(node)) return std::nullopt;
  r.check_keys(node, {"name", "first_rank", "gpus", "channels"});
  const std::size_t before = r.problem_count();
  HostPlan h;
  std::optional<HostId> host;
  if (const auto n = r.required(node, "name", "a host name of the scenario")) {
    if (const auto name = r.string(*n)) {
      host = topology.find_host(*name);
      if (!host) r.add(n->path, "unknown host '" + *name + "': expected a host of the scenario");
      h.name = *name;
    }
  }
  if (const auto n = r.required(node, "first_rank", "the global rank of the host's local rank 0")) {
    if (const auto v = r.integer(*n, 0, kMaxCount); v && *v != next_rank)
      r.add(n->path, "first_rank " + std::to_string(*v) + " leaves a gap or overlap: expected " +
                         std::to_string(next_rank) + " (the ranks of the hosts before it)");
    h.first_rank = next_rank;
  }
  if (const auto n = r.required(node, "gpus", "the GPU local index of each local rank")) {
    h.gpus = read_int_array(r, *n, 0, kMaxCount);
    if (h.gpus.empty() && r.problem_count() == before) r.add(n->path, "a host of the plan runs at least one rank");
    for (std::size_t i = 0; i < h.gpus.size() && host && r.problem_count() == before; ++i) {
      const int rank = next_rank + int(i);
      const std::string at = child_path(n->path, i);
      if (rank >= order.size()) {
        r.add(at, "rank " + std::to_string(rank) + " is past the order's " + std::to_string(order.size()) + " ranks");
        break;
      }
      const Device& gpu = topology.device(order.ranks[std::size_t(rank)]);
      if (gpu.host != *host || gpu.local_index != h.gpus[i])
        r.add(at, "rank " + std::to_string(rank) + " runs on " + gpu.name + " in rank_order: expected host " +
                      topology.host(gpu.host).name + " GPU " + std::to_string(gpu.local_index) + ", found " + h.name +
                      " GPU " + std::to_string(h.gpus[i]));
    }
  }
  const std::set<int> nics = host ? host_nics(topology, *host) : std::set<int>{};
  if (const auto n = r.required(node, "channels", "one object per channel"); n && r.expect_array(*n)) {
    const auto elements = r.elements(*n);
    if (int(elements.size()) != channels)
      r.add(n->path, "expected " + std::to_string(channels) + " channels (the plan's \"channels\"), found " +
                         std::to_string(elements.size()));
    for (const JsonNode& c : elements) {
      if (!r.expect_object(c)) continue;
      r.check_keys(c, {"local_ranks", "nic_in", "nic_out"});
      HostChannel hc;
      if (const auto lr = r.required(c, "local_ranks", "a permutation of the host's local ranks")) {
        hc.local_ranks = read_int_array(r, *lr, 0, kMaxCount);
        std::vector<int> sorted = hc.local_ranks;
        std::sort(sorted.begin(), sorted.end());
        bool permutation = sorted.size() == h.gpus.size();
        for (std::size_t i = 0; permutation && i < sorted.size(); ++i) permutation = sorted[i] == int(i);
        if (!permutation)
          r.add(lr->path, "expected a permutation of the local ranks 0.." + std::to_string(int(h.gpus.size()) - 1));
      }
      if (const auto v = r.required(c, "nic_in", "a NIC local index or null"))
        if (const auto nic = read_nic(r, *v, nics)) hc.nic_in = *nic;
      if (const auto v = r.required(c, "nic_out", "a NIC local index or null"))
        if (const auto nic = read_nic(r, *v, nics)) hc.nic_out = *nic;
      h.channels.push_back(std::move(hc));
    }
  }
  if (r.problem_count() != before) return std::nullopt;
  return h;
}

/// The channels' local ranks must be those the order's channel rings give (host_plans()).
void check_rings(const Topology& topology, JsonReader& r, const Plan& plan, const std::string& hosts_path) {
  std::vector<HostPlan> derived;
  try {
    derived = host_plans(topology, plan.order, plan.channels);
  } catch (const std::invalid_argument& e) {
    r.add("/rank_order", e.what());
    return;
  }
  for (std::size_t h = 0; h < plan.hosts.size() && h < derived.size(); ++h)
    for (std::size_t c = 0; c < plan.hosts[h].channels.size() && c < derived[h].channels.size(); ++c) {
      const auto& want = derived[h].channels[c].local_ranks;
      if (plan.hosts[h].channels[c].local_ranks == want) continue;
      std::string text;
      for (int x : want) text += (text.empty() ? "" : ",") + std::to_string(x);
      r.add(child_path(child_path(child_path(hosts_path, h), "channels"), c) + "/local_ranks",
            "disagrees with rank_order's ring for channel " + std::to_string(c) + ": expected [" + text + "]");
    }
}

}  // namespace

json plan_to_json(const Topology& topology, const Plan& plan) {
  json hosts = json::array();
  for (const HostPlan& h : plan.hosts) {
    json channels = json::array();
    for (const HostChannel& c : h.channels)
      channels.push_back({{"local_ranks", c.local_ranks}, {"nic_in", nic_json(c.nic_in)}, {"nic_out", nic_json(c.nic_out)}});
    hosts.push_back({{"name", h.name}, {"first_rank", h.first_rank}, {"gpus", h.gpus}, {"channels", std::move(channels)}});
  }
  json system = json::array(), debug = json::array();
  for (const NcclSetting& s : plan.nccl_env) (s.debug_only ? debug : system).push_back(setting_json(s));
  json doc = json::object();
  doc["schema"] = kPlanSchema;
  doc["version"] = kPlanFormatVersion;
  doc["scenario"] = {{"name", plan.scenario}, {"digest", plan.scenario_digest}};
  doc["rank_order"] = plan.order.to_json(topology);
  doc["hosts"] = std::move(hosts);
  doc["collective"] = std::string(sim::to_string(plan.collective));
  doc["message"] = to_string(plan.message);
  doc["algorithm"] = plan.algorithm;
  doc["channels"] = plan.channels;
  doc["nccl_env"] = {{"system", std::move(system)}, {"debug", std::move(debug)}};
  if (plan.batch) doc["batch"] = batch_json(*plan.batch);
  doc["master"] = {{"host", plan.master_host}, {"port", plan.master_port}};
  doc["report"] = plan.report;
  return doc;
}

Plan plan_from_json(const Topology& topology, const json& document, const std::string& file) {
  ProblemList problems(file);
  JsonReader r(problems);
  const JsonNode root{&document, ""};
  if (!r.expect_object(root)) problems.throw_if_any();
  r.check_keys(root, {"schema", "version", "scenario", "rank_order", "hosts", "collective", "message", "algorithm",
                      "channels", "nccl_env", "batch", "master", "report"});
  r.check_schema(root, kPlanSchema, kPlanFormatVersion);
  problems.throw_if_any();  // the rest means nothing under another schema

  Plan plan;
  if (const auto n = r.required(root, "rank_order", "the rank order (GPU names, or {\"ranks\", \"channel_rings\"})")) {
    if (auto order = sim::read_rank_order(topology, r, *n, order_length(**n))) plan.order = std::move(*order);
    plan.order.source = file;
  }
  if (const auto n = r.required(root, "channels", "the channel count"))
    if (auto c = r.integer(*n, 1, kMaxCount)) plan.channels = int(*c);
  // Hosts are read against the order and the channel count: only when both are sound.
  const bool order_read = problems.empty();
  if (const auto s = r.required(root, "scenario", "{\"name\", \"digest\"}"); s && r.expect_object(*s)) {
    r.check_keys(*s, {"name", "digest"});
    r.field(*s, "name", plan.scenario);
    r.field(*s, "digest", plan.scenario_digest);
  }
  if (const auto n = r.required(root, "collective", "a collective name such as \"allreduce\""))
    if (auto c = r.choice(*n, [](const std::string& s) { return sim::find_collective(s); }, "a collective name"))
      plan.collective = *c;
  if (const auto n = r.required(root, "message", "a size with a unit such as \"256MiB\""))
    if (auto b = r.bytes(*n)) plan.message = *b;
  if (const auto n = r.required(root, "algorithm", "the algorithm name")) {
    if (auto a = r.string(*n)) plan.algorithm = *a;
  }
  if (const auto n = r.required(root, "nccl_env", "{\"system\": [...], \"debug\": [...]}"); n && r.expect_object(*n)) {
    r.check_keys(*n, {"system", "debug"});
    for (const bool debug : {false, true})
      if (const auto list = r.member(*n, debug ? "debug" : "system"); list && r.expect_array(*list))
        for (const JsonNode& e : r.elements(*list))
          if (auto s = read_setting(r, e, debug)) plan.nccl_env.push_back(std::move(*s));
  }
  if (const auto n = r.member(root, "batch")) plan.batch = read_batch(r, *n);
  if (const auto n = r.required(root, "master", "{\"host\", \"port\"}"); n && r.expect_object(*n)) {
    r.check_keys(*n, {"host", "port"});
    r.field(*n, "host", plan.master_host);
    r.field(*n, "port", plan.master_port, 1, kMaxPort);
  }
  if (const auto n = r.member(root, "report")) {
    if (r.expect_object(*n)) plan.report = **n;
  }
  const std::size_t before_hosts = problems.size();
  if (order_read) {
    if (const auto n = r.required(root, "hosts", "one object per host, in node order"); n && r.expect_array(*n)) {
      int next_rank = 0;
      std::set<std::string> seen;
      for (const JsonNode& e : r.elements(*n)) {
        auto host = read_host(topology, r, e, plan.order, next_rank, plan.channels);
        if (!host) break;  // later first_ranks would all be off
        if (!seen.insert(host->name).second) r.add(e.path + "/name", "host " + host->name + " appears twice");
        next_rank += host->size();
        plan.hosts.push_back(std::move(*host));
      }
      if (problems.size() == before_hosts && next_rank != plan.order.size())
        r.add(n->path, "the hosts hold " + std::to_string(next_rank) + " ranks; rank_order has " +
                           std::to_string(plan.order.size()));
      if (problems.size() == before_hosts) check_rings(topology, r, plan, n->path);
    }
    if (problems.size() == before_hosts && !plan.hosts.empty() && plan.master_host != plan.hosts.front().name)
      r.add("/master/host", "expected " + plan.hosts.front().name + " (the host of rank 0), found '" +
                                plan.master_host + "'");
  }
  problems.throw_if_any();
  return plan;
}

Plan load_plan(const Topology& topology, const std::string& path) {
  return plan_from_json(topology, read_json_file(path, "plan"), path);
}

}  // namespace ringlab::planner
