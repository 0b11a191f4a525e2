// plan.json: the Plan as a versioned document, and back (bundle.hpp, docs/plan-format.md).
#include <string>

#include "ringlab/planner/bundle.hpp"
#include "ringlab/sim/schedule.hpp"
#include "ringlab/topology/error.hpp"
#include "ringlab/topology/json_reader.hpp"

namespace ringlab::planner {
namespace {

nlohmann::json settings(const std::vector<NcclSetting>& env, bool debug) {
  nlohmann::json out = nlohmann::json::array();
  for (const NcclSetting& s : env)
    if (s.debug_only == debug) out.push_back({{"name", s.name}, {"value", s.value}, {"reason", s.reason}});
  return out;
}

}  // namespace

nlohmann::json plan_to_json(const Topology& topology, const Plan& plan) {
  nlohmann::json j;
  j["schema"] = kPlanSchema;
  j["version"] = kPlanFormatVersion;
  j["scenario"] = {{"name", plan.scenario}, {"digest", plan.scenario_digest}};
  j["rank_order"] = plan.order.to_json(topology);
  j["collective"] = std::string(sim::to_string(plan.collective));
  j["message"] = to_string(plan.message);
  j["algorithm"] = plan.algorithm;
  j["channels"] = plan.channels;
  j["ecmp"] = plan.ecmp == EcmpPolicy::First ? "first" : "hash";
  nlohmann::json hosts = nlohmann::json::array();
  for (const HostPlan& h : plan.hosts) {
    nlohmann::json channels = nlohmann::json::array();
    for (const HostChannel& c : h.channels)
      channels.push_back({{"local_ranks", c.local_ranks}, {"nic_in", c.nic_in}, {"nic_out", c.nic_out}});
    hosts.push_back({{"name", h.name}, {"first_rank", h.first_rank}, {"gpus", h.gpus}, {"channels", channels}});
  }
  j["hosts"] = hosts;
  j["master"] = {{"host", plan.master_host}, {"port", plan.master_port}};
  j["nccl_env"] = {{"system", settings(plan.nccl_env, false)}, {"debug", settings(plan.nccl_env, true)}};
  if (plan.batch) {
    const BatchPlan& b = *plan.batch;
    j["batch"] = {{"micro_batch", b.micro_batch}, {"accumulation", b.accumulation}, {"global_batch", b.global_batch},
                  {"rank_micro_batch", b.rank_micro_batch}, {"lr_scaling", b.lr_scaling}};
  }
  j["report"] = plan.report;
  return j;
}

Plan plan_from_json(const Topology& topology, const nlohmann::json& document, const std::string& file) {
  ProblemList problems(file);
  JsonReader r(problems);
  const JsonNode root{&document, ""};
  if (!r.expect_object(root) || !r.check_schema(root, kPlanSchema, kPlanFormatVersion)) problems.throw_if_any();
  Plan plan;
  auto text = [&](std::string_view key) -> std::string {
    const auto node = r.required(root, key, "a string");
    if (!node) return {};
    return r.string(*node).value_or("");
  };
  auto integer = [&](const JsonNode& parent, std::string_view key, std::int64_t lo, std::int64_t hi) -> std::int64_t {
    const auto node = r.required(parent, key, "an integer");
    if (!node) return lo;
    return r.integer(*node, lo, hi).value_or(lo);
  };
  if (const auto s = r.required(root, "scenario", "an object {name, digest}"); s && r.expect_object(*s)) {
    if (const auto n = r.member(*s, "name")) plan.scenario = r.string(*n).value_or("");
    if (const auto d = r.member(*s, "digest")) plan.scenario_digest = r.string(*d).value_or("");
  }
  const std::string collective = text("collective");
  if (const auto c = sim::find_collective(collective)) plan.collective = *c;
  else if (!collective.empty()) r.add("/collective", "unknown collective '" + collective + "'");
  try {
    plan.message = parse_bytes(text("message"));
  } catch (const std::exception& e) {
    r.add("/message", e.what());
  }
  plan.algorithm = text("algorithm");
  plan.channels = int(integer(root, "channels", 1, 64));
  const std::string ecmp = text("ecmp");
  if (ecmp != "hash" && ecmp != "first") r.add("/ecmp", "expected hash or first, got '" + ecmp + "'");
  plan.ecmp = ecmp == "first" ? EcmpPolicy::First : EcmpPolicy::Hash;
  if (const auto m = r.required(root, "master", "an object {host, port}"); m && r.expect_object(*m)) {
    if (const auto h = r.required(*m, "host", "a host name")) plan.master_host = r.string(*h).value_or("");
    plan.master_port = int(integer(*m, "port", 1, 65535));
  }
  if (const auto env = r.required(root, "nccl_env", "an object {system, debug}"); env && r.expect_object(*env)) {
    for (const char* kind : {"system", "debug"}) {
      const auto list = r.member(*env, kind);
      if (!list || !r.expect_array(*list)) continue;
      for (const JsonNode& e : r.elements(*list)) {
        if (!r.expect_object(e)) continue;
        NcclSetting s;
        if (const auto n = r.required(e, "name", "NCCL_...")) s.name = r.string(*n).value_or("");
        if (const auto v = r.required(e, "value", "a string")) s.value = r.string(*v).value_or("");
        if (const auto w = r.member(e, "reason")) s.reason = r.string(*w).value_or("");
        s.debug_only = std::string_view(kind) == "debug";
        plan.nccl_env.push_back(std::move(s));
      }
    }
  }
  if (const auto b = r.member(root, "batch"); b && r.expect_object(*b)) {
    BatchPlan batch;
    batch.micro_batch = int(integer(*b, "micro_batch", 1, 1 << 30));
    batch.accumulation = int(integer(*b, "accumulation", 1, 1 << 30));
    batch.global_batch = integer(*b, "global_batch", 1, std::int64_t(1) << 50);
    if (const auto l = r.member(*b, "lr_scaling")) batch.lr_scaling = r.string(*l).value_or("");
    if (const auto rb = r.member(*b, "rank_micro_batch"); rb && r.expect_array(*rb))
      for (const JsonNode& e : r.elements(*rb)) batch.rank_micro_batch.push_back(int(r.integer(e, 1, 1 << 30).value_or(1)));
    plan.batch = batch;
  }
  if (const auto rep = r.member(root, "report")) plan.report = **rep;
  std::optional<JsonNode> order_node = r.required(root, "rank_order", "the planned order");
  problems.throw_if_any();

  std::optional<sim::RankOrder> order = sim::read_rank_order(topology, r, *order_node, 0, file);
  problems.throw_if_any();
  plan.order = std::move(*order);
  plan.order.source = file;
  try {
    plan.hosts = host_plans(topology, plan.order, plan.channels, plan.ecmp);
  } catch (const std::invalid_argument& e) {
    throw InputError(file, "/rank_order", e.what());
  }
  // The stored hosts must be what the order says (a hand edit of one but not the other is an error).
  const auto stored = r.required(root, "hosts", "the hosts in node order");
  if (stored && r.expect_array(*stored)) {
    const auto hosts = r.elements(*stored);
    if (hosts.size() != plan.hosts.size())
      r.add(stored->path, "expected " + std::to_string(plan.hosts.size()) + " hosts (from /rank_order), found " +
                              std::to_string(hosts.size()));
    for (std::size_t i = 0; i < hosts.size() && i < plan.hosts.size(); ++i) {
      nlohmann::json expected = plan_to_json(topology, plan)["hosts"][i];
      if (*hosts[i] != expected)
        r.add(hosts[i].path, "does not match /rank_order: expected " + expected.dump() + ", found " + hosts[i]->dump());
    }
  }
  problems.throw_if_any();
  return plan;
}

}  // namespace ringlab::planner
