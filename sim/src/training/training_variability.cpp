// Sync vs async under per-GPU speed variation: the synchronous step-time distribution (the step
// waits for the slowest rank) and the asynchronous parameter-server simulation (see training.hpp).
//
// Random numbers come from std::mt19937_64 (its output sequence is fixed by the C++ standard) turned
// into uniforms and normals by the code below, not by std:: distributions, whose algorithms differ
// between standard libraries; the same seed gives the same numbers everywhere.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <queue>
#include <random>
#include <set>

#include "ringlab/sim/calibration.hpp"
#include "ringlab/topology/routing.hpp"
#include "training/training_plan.hpp"

namespace ringlab::sim {
namespace {

constexpr double kTwoToMinus53 = 1.0 / 9007199254740992.0;

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}
  /// Uniform in [0, 1), 53 random bits.
  double uniform() { return double(engine_() >> 11) * kTwoToMinus53; }
  /// Standard normal (Box-Muller, one value per call).
  double normal() {
    const double u1 = 1.0 - uniform();
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }
  /// The straggler factor of one GPU for one step: lognormal of mean 1, times the slow factor with
  /// its probability. Always draws two numbers, so streams stay aligned whatever the settings.
  double factor(const Stragglers& s) {
    const double z = normal();
    const double u = uniform();
    const double jitter = std::exp(s.jitter * z - 0.5 * s.jitter * s.jitter);
    return jitter * (u < s.slow_probability ? s.slow_factor : 1.0);
  }

 private:
  std::mt19937_64 engine_;
};

bool varies(const Stragglers& s) { return s.jitter > 0 || (s.slow_probability > 0 && s.slow_factor != 1.0); }

/// Nearest-rank percentile of sorted values.
double percentile(const std::vector<double>& sorted, double q) {
  const std::size_t rank = std::size_t(std::ceil(q * double(sorted.size())));
  return sorted[std::min(sorted.size() - 1, rank > 0 ? rank - 1 : 0)];
}

std::vector<double> rank_seconds(const TrainJob& job) {
  std::vector<double> out;
  for (const GpuCompute& g : job.rank_gpus)
    out.push_back(micro_batch_seconds(g, job.workload, job.strategy.precision, job.batch, &job.calibration));
  return out;
}

/// Gradient bytes one worker pushes per update, after compression.
Bytes pushed_bytes(const TrainJob& job) {
  Payload p;
  p.dtype = job.strategy.gradient_dtype;
  p.compression = job.strategy.compression;
  const Bytes dense{job.workload.parameters() * p.element_bytes()};
  if (p.sparse()) return p.sparse_bytes(dense);
  return p.wire_bytes(dense);
}

/// The narrowest link direction on the route that touches the server's host: what every worker's
/// transfer to that server shares.
Bandwidth server_link(const Topology& t, const Route& route, DeviceId server) {
  const HostId host = t.device(server).host;
  Bandwidth narrowest = route.bottleneck;
  bool found = false;
  for (DirectionId c : route.directions) {
    const Link& l = t.link(Topology::direction_link(c));
    if (t.device(l.a).host != host && t.device(l.b).host != host) continue;
    narrowest = found ? std::min(narrowest, l.bandwidth) : l.bandwidth;
    found = true;
  }
  return narrowest;
}

}  // namespace

StepStatistics sync_step_statistics(const TrainJob& job, CollectiveTimer& timer) {
  StepStatistics out;
  out.steps = std::max(1, job.steps);
  const double slowest = slowest_micro_batch_seconds(job);
  const std::vector<double> base = rank_seconds(job);
  Rng rng(job.seed);
  std::vector<double> times;
  std::optional<double> constant;
  for (int s = 0; s < out.steps; ++s) {
    double worst = 0;
    for (double t : base) worst = std::max(worst, t * rng.factor(job.stragglers));
    if (!varies(job.stragglers)) {
      if (!constant) constant = simulate_step(job, timer, 1.0).step.seconds();
      times.push_back(*constant);
      continue;
    }
    times.push_back(simulate_step(job, timer, slowest > 0 ? worst / slowest : 1.0).step.seconds());
  }
  double sum = 0;
  for (double t : times) sum += t;
  out.mean_s = sum / double(times.size());
  std::sort(times.begin(), times.end());
  out.p50_s = percentile(times, 0.50);
  out.p99_s = percentile(times, 0.99);
  out.max_s = times.back();
  return out;
}

AsyncResult simulate_async_ps(const TrainJob& job, CollectiveTimer& timer) {
  const Topology& t = timer.topology();
  const std::vector<DeviceId>& ranks = timer.ranks();
  const std::vector<DeviceId> servers =
      job.strategy.parameter_servers.empty() ? default_parameter_servers(t, ranks) : job.strategy.parameter_servers;
  const std::size_t n_servers = servers.size();
  const Bytes shard = pushed_bytes(job) / std::int64_t(n_servers);
  // The server applies each shard at its CPU's reduce rate (calibration.hpp).
  const double apply_s = double(shard.count()) / Calibration::pure().cpu_reduce_rate().bytes_per_second();
  const Router router(t, job.ecmp, job.seed);

  // Uncontended transfer time worker -> server (closed form on the route) and the shared server link.
  std::vector<std::vector<double>> transfer(ranks.size(), std::vector<double>(n_servers, 0.0));
  std::vector<double> occupy(n_servers, 0.0);
  AsyncResult out;
  for (std::size_t j = 0; j < n_servers; ++j) {
    for (std::size_t w = 0; w < ranks.size(); ++w) {
      const Route r = router.route(ranks[w], servers[j]);
      transfer[w][j] = (r.overhead + r.latency).seconds() + double(shard.count()) / r.bottleneck.bytes_per_second();
      const Bandwidth link = server_link(t, r, servers[j]);
      occupy[j] = std::max(occupy[j], double(shard.count()) / link.bytes_per_second());
      if (j == 0 && (w == 0 || link < out.ps_link)) out.ps_link = link;
    }
  }

  std::vector<double> base = rank_seconds(job);
  for (double& b : base) b *= double(std::max(1, job.strategy.accumulation));
  Rng rng(job.seed);
  std::vector<double> in_free(n_servers, 0.0), out_free(n_servers, 0.0), cpu_free(n_servers, 0.0);
  std::vector<double> in_busy(n_servers, 0.0), cpu_busy(n_servers, 0.0);
  std::vector<double> applied_at;  // server 0's apply end times, non-decreasing
  std::vector<double> pulled_at(ranks.size(), 0.0);
  using Ready = std::pair<double, std::size_t>;  // (compute end, worker)
  std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready;
  for (std::size_t w = 0; w < ranks.size(); ++w) ready.emplace(base[w] * rng.factor(job.stragglers), w);
  const std::int64_t updates = std::int64_t(std::max(1, job.steps)) * std::int64_t(ranks.size());
  double stale_sum = 0;
  double end = 0;
  for (std::int64_t u = 0; u < updates; ++u) {
    const auto [t1, w] = ready.top();
    ready.pop();
    double next = 0;
    double apply0_end = 0;
    for (std::size_t j = 0; j < n_servers; ++j) {
      const double push_start = std::max(t1, in_free[j]);
      in_free[j] = push_start + occupy[j];
      in_busy[j] += occupy[j];
      const double arrive = std::max(in_free[j], t1 + transfer[w][j]);
      const double apply_start = std::max(arrive, cpu_free[j]);
      cpu_free[j] = apply_start + apply_s;
      cpu_busy[j] += apply_s;
      if (j == 0) apply0_end = cpu_free[j];
      const double pull_start = std::max(cpu_free[j], out_free[j]);
      out_free[j] = pull_start + occupy[j];
      next = std::max(next, std::max(out_free[j], cpu_free[j] + transfer[w][j]));
    }
    // Staleness: updates applied since this worker's parameters were read (at its previous pull).
    const auto since = std::upper_bound(applied_at.begin(), applied_at.end(), pulled_at[w]);
    const std::size_t stale = std::size_t(applied_at.end() - since);
    applied_at.push_back(apply0_end);
    if (out.staleness_histogram.size() <= stale) out.staleness_histogram.resize(stale + 1, 0);
    ++out.staleness_histogram[stale];
    stale_sum += double(stale);
    pulled_at[w] = apply0_end;
    end = std::max(end, apply0_end);
    ready.emplace(next + base[w] * rng.factor(job.stragglers), w);
  }
  out.updates_per_second = double(updates) / end;
  out.samples_per_second = out.updates_per_second * double(job.batch) * std::max(1, job.strategy.accumulation);
  out.mean_staleness = stale_sum / double(updates);
  for (std::size_t j = 0; j < n_servers; ++j) {
    out.ps_link_utilisation = std::max(out.ps_link_utilisation, in_busy[j] / end);
    out.ps_cpu_utilisation = std::max(out.ps_cpu_utilisation, cpu_busy[j] / end);
  }
  return out;
}

}  // namespace ringlab::sim
