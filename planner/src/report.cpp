// The plan's report: JSON for plan.json and text for the terminal (planner.hpp).
#include <cmath>
#include <cstdio>
#include <ostream>

#include "ringlab/planner/planner.hpp"

namespace ringlab::planner {
namespace {

/// Milliseconds with microsecond precision, as a JSON number with fixed digits.
double ms3(Duration d) { return std::round(d.seconds() * 1e6) / 1e3; }
double fixed4(double x) { return std::round(x * 1e4) / 1e4; }

std::string pad(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}
std::string lpad(std::string s, std::size_t width) {
  if (s.size() < width) s.insert(0, width - s.size(), ' ');
  return s;
}
std::string num(double x, int digits) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

}  // namespace

nlohmann::json report_json(const PlanReport& r) {
  nlohmann::json j;
  j["ring_time_ms"] = ms3(r.ring_time);
  nlohmann::json orders = nlohmann::json::array();
  for (const OrderResult& o : r.orders) {
    nlohmann::json e{{"name", o.name}, {"time_ms", ms3(o.time)}, {"vs_plan", fixed4(o.time / r.ring_time)}};
    if (!o.digest.empty()) e["digest"] = o.digest;
    orders.push_back(e);
  }
  j["orders"] = orders;
  j["bound"] = {{"ring_ms", ms3(r.bound.ring)},       {"ring_cut", r.bound.ring_cut},
                {"any_ms", ms3(r.bound.any)},         {"any_cut", r.bound.any_cut},
                {"gap_to_ring_bound", r.bound.ring.ps ? fixed4(r.ring_time / r.bound.ring - 1) : 0.0}};
  nlohmann::json algos = nlohmann::json::array();
  for (const sim::Candidate& c : r.algorithms) {
    nlohmann::json e{{"algorithm", std::string(sim::to_string(c.algorithm))}};
    if (c.time) e["time_ms"] = ms3(*c.time);
    else e["not_applicable"] = c.not_applicable;
    algos.push_back(e);
  }
  j["algorithms"] = algos;
  j["nccl_choice"] = r.nccl_choice;
  j["search"] = {{"moves", r.search.moves},
                 {"improvements", r.search.improvements},
                 {"hit_time_limit", r.search.hit_time_limit},
                 {"surrogate_constructed_ns_per_MB", fixed4(r.search.constructed_cost * 1e15)},
                 {"surrogate_planned_ns_per_MB", fixed4(r.search.cost * 1e15)}};
  if (r.batch) {
    nlohmann::json opts = nlohmann::json::array();
    for (const BatchOption& o : r.batch->options)
      opts.push_back({{"micro_batch", o.micro_batch},
                      {"accumulation", o.accumulation},
                      {"global_batch", o.global_batch},
                      {"memory", to_string(o.memory)},
                      {"samples_per_second", std::round(o.samples_per_second * 10) / 10},
                      {"step_ms", ms3(o.step)}});
    j["batch_options"] = opts;
  }
  j["reasons"] = r.reasons;
  return j;
}

void write_report(std::ostream& out, const PlanReport& r) {
  const Plan& plan = r.plan;
  out << "# plan for " << plan.scenario << ": " << plan.ranks() << " GPUs on " << plan.hosts.size() << (plan.hosts.size() == 1 ? " host, " : " hosts, ")
      << sim::to_string(plan.collective) << " of " << to_string(plan.message) << ", " << plan.channels
      << (plan.channels == 1 ? " channel" : " channels") << "\n";
  out << "\nnode order:";
  for (std::size_t i = 0; i < plan.hosts.size(); ++i) {
    if (i % 8 == 0) out << "\n ";
    out << ' ' << plan.hosts[i].name;
  }
  out << "\n\norders compared (ring, full simulation):\n";
  for (const OrderResult& o : r.orders)
    out << "  " << pad(o.name, 24) << lpad(num(o.time.seconds() * 1e3, 3), 12) << " ms  " << lpad(num(o.time / r.ring_time, 2), 6)
        << "x\n";
  out << "\nlower bound, any ring:                                   " << num(r.bound.ring.seconds() * 1e3, 3) << " ms  (" << r.bound.ring_cut << ")\n";
  out << "lower bound, any algorithm without in-network reduction: " << num(r.bound.any.seconds() * 1e3, 3) << " ms  (" << r.bound.any_cut << ")\n";
  out << "\nalgorithms on the planned order:\n";
  for (const sim::Candidate& c : r.algorithms) {
    out << "  " << pad(std::string(sim::to_string(c.algorithm)), 18);
    if (c.time) out << num(c.time->seconds() * 1e3, 3) << " ms\n";
    else if (c.not_applicable.starts_with("not timed")) out << c.not_applicable << "\n";
    else out << "not applicable: " << c.not_applicable << "\n";
  }
  out << "  NCCL's tuner would run: " << r.nccl_choice << "\n";
  if (r.batch) {
    out << "\nmicro-batches (memory " << to_string(r.batch->capacity) << " per GPU):\n";
    for (const BatchOption& o : r.batch->options) {
      out << "  " << pad(std::to_string(o.micro_batch), 6) << " x" << pad(std::to_string(o.accumulation), 4) << " global "
          << pad(std::to_string(o.global_batch), 8) << " memory " << pad(to_string(o.memory), 10);
      if (o.samples_per_second > 0) out << num(o.samples_per_second, 1) << " samples/s\n";
      else out << "misses the global batch target\n";
    }
  }
  out << "\nwhy:\n";
  for (const std::string& s : r.reasons) out << "  - " << s << "\n";
}

}  // namespace ringlab::planner
