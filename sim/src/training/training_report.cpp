// A whole training run (run_training: step, memory, variability, async PS, reliability, the
// alternative strategies) and its reports: table, JSON and a Chrome trace of one step.
#include <cmath>
#include <cstdio>
#include <set>
#include <stdexcept>

#include "report/text_format.hpp"
#include "training/training_plan.hpp"

namespace ringlab::sim {
namespace {

using detail::fixed;

constexpr double kSecondsPerHour = 3600.0;
constexpr double kGiB = double(std::int64_t(1) << 30);

int host_count(const Topology& t, const std::vector<DeviceId>& ranks) {
  std::set<HostId> hosts;
  for (DeviceId r : ranks) hosts.insert(t.device(r).host);
  return int(hosts.size());
}

std::string ms(Duration d) { return fixed(d.seconds() * 1e3, 2); }
std::string gib(Bytes b) { return fixed(double(b.count()) / kGiB, 2); }
std::string mib(Bytes b) { return fixed(double(b.count()) / double(std::int64_t(1) << 20), 2) + " MiB"; }

double throughput(const TrainReport& r, const StepResult& step) {
  return step.step.ps > 0 ? r.global_batch() / step.step.seconds() : 0.0;
}

double train_seconds(const TrainReport& r, double samples_per_second) {
  if (r.job.samples <= 0 || samples_per_second <= 0) return 0;
  return (r.reliability.startup_s + r.job.samples / samples_per_second) / r.reliability.goodput;
}

nlohmann::json step_json(const StepResult& s) {
  nlohmann::json j;
  j["compute_s"] = s.compute.seconds();
  j["comm_s"] = s.comm.seconds();
  j["exposed_comm_s"] = s.exposed_comm().seconds();
  j["overlap_s"] = s.overlap().seconds();
  j["step_s"] = s.step.seconds();
  j["comm_fraction"] = s.comm_fraction();
  j["comm_bound"] = s.comm_fraction() > kCommFractionFlag;
  return j;
}

nlohmann::json memory_json(const MemoryEstimate& m) {
  return {{"weights_bytes", m.weights.count()},       {"gradients_bytes", m.gradients.count()},
          {"optimizer_bytes", m.optimizer.count()},   {"activations_bytes", m.activations.count()},
          {"reserve_bytes", m.reserve.count()},       {"total_bytes", m.total().count()},
          {"capacity_bytes", m.capacity.count()},     {"fits", m.fits()}};
}

}  // namespace

double TrainReport::samples_per_second() const {
  if (async) return async->samples_per_second;
  if (job.stragglers.active() && statistics.mean_s > 0) return global_batch() / statistics.mean_s;
  return throughput(*this, step);
}

double TrainReport::scaling_efficiency() const {
  const double ideal = double(ranks()) * single_gpu_samples_per_second;
  return ideal > 0 ? samples_per_second() / ideal : 0.0;
}

double TrainReport::time_to_train_s() const { return train_seconds(*this, samples_per_second()); }

TrainReport run_training(const TrainJob& job, const Topology& topology, std::string scenario_name) {
  TrainReport r;
  r.scenario = std::move(scenario_name);
  r.job = job;
  r.order_digest = job.order.digest(topology);
  r.order_json = job.order.to_json(topology);
  CollectiveTimer timer(topology, job.order, job.ecmp, job.seed, job.collective_compute);
  r.step = simulate_step(job, timer);
  r.memory = estimate_memory(job);
  const GpuCompute& first = job.rank_gpus.front();
  r.single_gpu_samples_per_second =
      double(job.batch) / micro_batch_seconds(first, job.workload, job.strategy.precision, job.batch, &job.calibration);
  if (job.strategy.async) r.async = simulate_async_ps(job, timer);
  else r.statistics = sync_step_statistics(job, timer);
  r.reliability = evaluate_reliability(job.reliability, host_count(topology, job.order.ranks), r.ranks());
  for (StrategyKind kind : job.compare) {
    TrainReport::Alternative alt{kind, std::nullopt, "", true};
    TrainJob other = job;
    other.strategy.kind = kind;
    other.strategy.async = false;
    alt.fits = estimate_memory(other).fits();
    try {
      alt.step = simulate_step(other, timer);
    } catch (const std::invalid_argument& e) {
      alt.reason = e.what();
    }
    r.alternatives.push_back(std::move(alt));
  }
  r.simulations = timer.simulations();
  return r;
}

nlohmann::json to_json(const TrainReport& r) {
  const TrainJob& job = r.job;
  nlohmann::json j;
  j["schema"] = kTrainReportSchema;
  j["version"] = kTrainReportVersion;
  j["scenario"] = r.scenario;
  j["model"] = {{"name", job.workload.name},
                {"parameters", job.workload.parameters()},
                {"flops_per_sample", job.workload.flops_per_sample},
                {"sample_unit", job.workload.sample_unit},
                {"source", job.workload.source}};
  j["strategy"] = {{"name", to_string(job.strategy.kind)},
                   {"precision", to_string(job.strategy.precision)},
                   {"gradient_dtype", to_string(job.strategy.gradient_dtype)},
                   {"compression", to_string(job.strategy.compression)},
                   {"accumulation", job.strategy.accumulation},
                   {"overlap", job.strategy.overlap},
                   {"async", job.strategy.async}};
  j["ranks"] = r.ranks();
  j["rank_order"] = {{"source", job.order.source}, {"digest", r.order_digest}, {"order", r.order_json}};
  j["batch_per_gpu"] = job.batch;
  j["global_batch"] = r.global_batch();
  const GpuCompute& g = job.rank_gpus.front();
  j["gpu"] = {{"name", g.name},
              {"peak_flops", g.peak(job.strategy.precision)},
              {"mfu", model_flops_utilisation(g, job.workload, job.strategy.precision, job.batch)},
              {"micro_batch_s", slowest_micro_batch_seconds(job)},
              {"calibrated", job.calibration.lookup(g.name, job.batch).has_value()},
              {"source", g.source}};
  j["step"] = step_json(r.step);
  j["samples_per_second"] = r.samples_per_second();
  j["single_gpu_samples_per_second"] = r.single_gpu_samples_per_second;
  j["scaling_efficiency"] = r.scaling_efficiency();
  nlohmann::json collectives = nlohmann::json::array();
  for (const CollectiveUse& c : r.step.collectives)
    collectives.push_back({{"collective", to_string(c.collective)}, {"algorithm", to_string(c.algorithm)},
                           {"bytes", c.bytes.count()}, {"count", c.count}, {"time_s", c.time.seconds()}});
  j["collectives"] = collectives;
  j["memory"] = memory_json(r.memory);
  if (r.async) {
    nlohmann::json a;
    a["samples_per_second"] = r.async->samples_per_second;
    a["updates_per_second"] = r.async->updates_per_second;
    a["ps_link_bps"] = r.async->ps_link.bits_per_second();
    a["ps_link_utilisation"] = r.async->ps_link_utilisation;
    a["ps_cpu_utilisation"] = r.async->ps_cpu_utilisation;
    a["mean_staleness"] = r.async->mean_staleness;
    a["staleness_histogram"] = r.async->staleness_histogram;
    j["async"] = a;
  } else {
    j["step_distribution"] = {{"steps", r.statistics.steps}, {"mean_s", r.statistics.mean_s},
                              {"p50_s", r.statistics.p50_s},  {"p99_s", r.statistics.p99_s},
                              {"max_s", r.statistics.max_s}};
  }
  const ReliabilityResult& rel = r.reliability;
  j["reliability"] = {{"nodes", rel.nodes},
                      {"system_mtbf_s", rel.system_mtbf_s},
                      {"young_interval_s", rel.young_interval_s},
                      {"daly_interval_s", rel.daly_interval_s},
                      {"best_interval_s", rel.best_interval_s},
                      {"interval_s", rel.interval_s},
                      {"goodput", rel.goodput},
                      {"startup_s", rel.startup_s}};
  j["samples"] = job.samples;
  j["time_to_train_s"] = r.time_to_train_s();
  nlohmann::json alts = nlohmann::json::array();
  for (const TrainReport::Alternative& a : r.alternatives) {
    nlohmann::json e{{"strategy", to_string(a.kind)}, {"fits", a.fits}};
    if (a.step) {
      e["step"] = step_json(*a.step);
      e["samples_per_second"] = throughput(r, *a.step);
      e["time_to_train_s"] = train_seconds(r, throughput(r, *a.step));
    } else {
      e["not_applicable"] = a.reason;
    }
    alts.push_back(e);
  }
  j["alternatives"] = alts;
  j["collective_simulations"] = r.simulations;
  return j;
}

void write_table(std::ostream& out, const TrainReport& r) {
  const TrainJob& job = r.job;
  const Strategy& s = job.strategy;
  const GpuCompute& g = job.rank_gpus.front();
  out << "# ringlab train: " << job.workload.name << ", " << to_string(s.kind) << (s.async ? " (async)" : "") << ", "
      << r.ranks() << " GPUs on " << r.reliability.nodes << (r.reliability.nodes == 1 ? " host, " : " hosts, ") << to_string(s.precision) << ", gradients "
      << to_string(s.gradient_dtype) << (s.compression.kind != CompressionKind::None ? " " + to_string(s.compression) : "")
      << "\n# scenario: " << r.scenario << "\n# rank order: " << job.order.source << " (digest " << r.order_digest
      << ")\n";
  out << "model   " << fixed(double(job.workload.parameters()) * 1e-6, 1) << " M parameters, "
      << fixed(job.workload.flops_per_sample * 1e-9, 1) << " GFLOP per sample (" << job.workload.sample_unit << ")\n";
  out << "batch   " << job.batch << " per GPU x " << s.accumulation << " micro-batches x " << r.ranks()
      << " GPUs = " << fixed(r.global_batch(), 0) << " per step\n";
  out << "gpu     " << g.name << ": " << fixed(g.peak(s.precision) * 1e-12, 1) << " TFLOP/s peak ("
      << to_string(g.effective(s.precision)) << "), MFU "
      << fixed(100.0 * model_flops_utilisation(g, job.workload, s.precision, job.batch), 1) << " % at batch "
      << job.batch << ", " << ms(Duration::from_seconds(slowest_micro_batch_seconds(job))) << " ms per micro-batch"
      << (job.calibration.lookup(g.name, job.batch) ? " (calibrated)" : "") << "\n";
  const MemoryEstimate& m = r.memory;
  out << "memory  weights " << gib(m.weights) << " + gradients " << gib(m.gradients) << " + optimizer "
      << gib(m.optimizer) << " + activations " << gib(m.activations) << " + reserve " << gib(m.reserve) << " = "
      << gib(m.total()) << " GiB of " << gib(m.capacity) << " GiB: " << (m.fits() ? "fits" : "DOES NOT FIT") << "\n\n";

  out << "    compute     comm  exposed  overlap     step   comm%   samples/s  scaling\n"
      << "       (ms)     (ms)     (ms)     (ms)     (ms)\n";
  char line[256];
  const StepResult& st = r.step;
  std::snprintf(line, sizeof line, "%11s %8s %8s %8s %8s %6.1f%% %11.1f %7.1f%%%s\n", ms(st.compute).c_str(),
                ms(st.comm).c_str(), ms(st.exposed_comm()).c_str(), ms(st.overlap()).c_str(), ms(st.step).c_str(),
                100.0 * st.comm_fraction(), r.samples_per_second(), 100.0 * r.scaling_efficiency(),
                st.comm_fraction() > kCommFractionFlag ? "  communication-bound (> 20 %)" : "");
  out << line << "\ncollectives per step\n";
  for (const CollectiveUse& c : st.collectives) {
    std::snprintf(line, sizeof line, "  %-14s %-16s %14s x %-4d %10s ms\n", std::string(to_string(c.collective)).c_str(),
                  std::string(to_string(c.algorithm)).c_str(), mib(c.bytes).c_str(), c.count, ms(c.time).c_str());
    out << line;
  }
  if (r.async) {
    const AsyncResult& a = *r.async;
    out << "\nasync parameter server: " << fixed(a.samples_per_second, 1) << " samples/s, server link "
        << fixed(a.ps_link.gbps(), 1) << " Gbps " << fixed(100 * a.ps_link_utilisation, 1) << " % busy, server CPU "
        << fixed(100 * a.ps_cpu_utilisation, 1) << " % busy, mean staleness " << fixed(a.mean_staleness, 2) << "\n  staleness:";
    for (std::size_t i = 0; i < a.staleness_histogram.size(); ++i) out << ' ' << i << ':' << a.staleness_histogram[i];
    out << '\n';
  } else {
    const Stragglers& x = job.stragglers;
    out << "\nstep time over " << r.statistics.steps << " steps (jitter " << fixed(x.jitter, 3) << ", slow "
        << fixed(100 * x.slow_probability, 2) << " % x" << fixed(x.slow_factor, 2) << ", seed " << job.seed
        << "): mean " << fixed(r.statistics.mean_s * 1e3, 2) << " ms, p50 " << fixed(r.statistics.p50_s * 1e3, 2)
        << ", p99 " << fixed(r.statistics.p99_s * 1e3, 2) << ", max " << fixed(r.statistics.max_s * 1e3, 2) << "\n";
  }
  const ReliabilityResult& rel = r.reliability;
  out << "start-up " << fixed(rel.startup_s, 1) << " s";
  if (rel.system_mtbf_s > 0)
    out << "; failures: system MTBF " << fixed(rel.system_mtbf_s / kSecondsPerHour, 1) << " h, checkpoint every "
        << fixed(rel.interval_s / 60, 1) << " min (Young " << fixed(rel.young_interval_s / 60, 1) << ", Daly "
        << fixed(rel.daly_interval_s / 60, 1) << ", best " << fixed(rel.best_interval_s / 60, 1) << "), goodput "
        << fixed(100 * rel.goodput, 2) << " %";
  out << "\n";
  if (job.samples > 0)
    out << "time to train " << fixed(job.samples, 0) << " samples: " << fixed(r.time_to_train_s() / kSecondsPerHour, 2) << " h\n";

  if (r.alternatives.empty()) return;
  out << "\nstrategy                 step (ms)  exposed (ms)  comm%   samples/s  time to train (h)  memory\n";
  auto row = [&](StrategyKind kind, const StepResult& step, bool fits, const char* note) {
    const double sps = throughput(r, step);
    std::snprintf(line, sizeof line, "%-22s %11s %13s %6.1f %11.1f %18s  %s%s\n", std::string(to_string(kind)).c_str(),
                  ms(step.step).c_str(), ms(step.exposed_comm()).c_str(), 100.0 * step.comm_fraction(), sps,
                  job.samples > 0 ? fixed(train_seconds(r, sps) / kSecondsPerHour, 2).c_str() : "-",
                  fits ? "fits" : "does not fit", note);
    out << line;
  };
  row(s.kind, r.step, r.memory.fits(), s.async ? "  (this job, sync equivalent)" : "  (this job)");
  for (const TrainReport::Alternative& a : r.alternatives) {
    if (a.step) row(a.kind, *a.step, a.fits, "");
    else out << std::string(to_string(a.kind)) << std::string(23 - std::min<std::size_t>(22, to_string(a.kind).size()), ' ')
             << "not applicable: " << a.reason << "\n";
  }
}

void write_step_trace(std::ostream& out, const TrainReport& r) {
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  auto meta = [&](const char* what, int tid, nlohmann::ordered_json args) {
    events.push_back({{"name", what}, {"ph", "M"}, {"pid", 0}, {"tid", tid}, {"args", std::move(args)}});
  };
  meta("process_name", 0, {{"name", "step: " + r.job.workload.name + ", " + std::string(to_string(r.job.strategy.kind))}});
  meta("thread_name", 0, {{"name", "compute"}});
  meta("thread_name", 1, {{"name", "communication"}});
  for (const TimelineSpan& s : r.step.timeline)
    events.push_back({{"name", s.label},
                      {"cat", s.comm ? "comm" : "compute"},
                      {"ph", "X"},
                      {"pid", 0},
                      {"tid", s.comm ? 1 : 0},
                      {"ts", double(s.start.picoseconds()) / 1e6},
                      {"dur", double((s.end - s.start).picoseconds()) / 1e6}});
  nlohmann::ordered_json trace;
  trace["traceEvents"] = std::move(events);
  trace["displayTimeUnit"] = "ms";
  out << trace.dump() << '\n';
}

}  // namespace ringlab::sim
