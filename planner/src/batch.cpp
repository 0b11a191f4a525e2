// plan_batch(): micro-batch, accumulation and learning-rate scaling (batch.hpp).
#include "ringlab/planner/batch.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace ringlab::planner {
namespace {

constexpr int kLargestBatch = 1 << 16;          ///< micro-batches searched up to this
constexpr double kAdamStateBytes = 8;           ///< two fp32 moments per parameter: Adam-like
constexpr int kWarmupEpochs = 5;                ///< Goyal et al. 2017, section 2.2

bool fits(sim::TrainJob job, int batch) {
  job.batch = batch;
  return sim::estimate_memory(job).fits();
}

/// Largest micro-batch that fits memory, or 0.
int largest_fitting(const sim::TrainJob& job) {
  if (!fits(job, 1)) return 0;
  int lo = 1, hi = kLargestBatch;
  if (fits(job, hi)) return hi;
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    (fits(job, mid) ? lo : hi) = mid;
  }
  return lo;
}

std::string two_decimals(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  return buf;
}

std::string lr_rule(const sim::Workload& w, long long global, long long base) {
  const double ratio = double(global) / double(base);
  const bool adam = w.optimizer_state_bytes >= kAdamStateBytes;
  const double factor = adam ? std::sqrt(ratio) : ratio;
  std::string text = adam ? "square-root scaling (Adam-like optimizer): learning rate x " : "linear scaling (SGD): learning rate x ";
  text += two_decimals(factor) + " (global batch " + std::to_string(global) + " against " + std::to_string(base) + ")";
  if (ratio > 1) text += "; warm up linearly over the first " + std::to_string(kWarmupEpochs) + " epochs";
  return text;
}

/// Per-rank micro-batches proportional to speed; empty when every rank has the same GPU.
std::vector<int> proportional_batches(const sim::TrainJob& job, int batch) {
  const auto& gpus = job.rank_gpus;
  const bool uniform = std::all_of(gpus.begin(), gpus.end(), [&](const sim::GpuCompute& g) { return g.name == gpus.front().name; });
  if (gpus.empty() || uniform) return {};
  std::vector<double> speed;
  for (const sim::GpuCompute& g : gpus)
    speed.push_back(batch / sim::micro_batch_seconds(g, job.workload, job.strategy.precision, batch, &job.calibration));
  const double total = std::accumulate(speed.begin(), speed.end(), 0.0);
  std::vector<int> out;
  for (double s : speed) out.push_back(std::max(1, int(std::lround(double(batch) * double(gpus.size()) * s / total))));
  return out;
}

}  // namespace

std::optional<BatchReport> plan_batch(const sim::TrainJob& job, const Topology& topology, const BatchTarget& target,
                                      std::string& why) {
  const long long p = job.order.size();
  const long long base = (long long)job.batch * job.strategy.accumulation * p;
  const BatchTarget want = target.set() ? target : BatchTarget{base, base};
  const int largest = largest_fitting(job);
  BatchReport report;
  report.capacity = sim::estimate_memory(job).capacity;
  report.base_global_batch = base;
  if (largest == 0) {
    why = "no micro-batch fits GPU memory (one sample needs more than " + to_string(report.capacity) + ")";
    return std::nullopt;
  }
  std::vector<int> candidates;
  for (int b = 1; b <= largest; b *= 2) candidates.push_back(b);
  if (candidates.back() != largest) candidates.push_back(largest);

  sim::CollectiveTimer timer(topology, job.order, job.ecmp, job.seed, job.collective_compute);
  const BatchOption* best = nullptr;
  for (int b : candidates) {
    BatchOption option;
    option.micro_batch = b;
    option.accumulation = int(std::max<long long>(1, (want.min + b * p - 1) / (b * p)));
    option.global_batch = (long long)b * option.accumulation * p;
    sim::TrainJob trial = job;
    trial.batch = b;
    trial.strategy.accumulation = option.accumulation;
    option.memory = sim::estimate_memory(trial).total();
    if (option.global_batch <= want.max) {
      const sim::StepResult step = sim::simulate_step(trial, timer);
      option.step = step.step;
      option.comm_fraction = step.comm_fraction();
      option.samples_per_second = double(option.global_batch) / step.step.seconds();
    }
    report.options.push_back(option);
  }
  for (const BatchOption& o : report.options)
    if (o.samples_per_second > 0 && (!best || o.samples_per_second > best->samples_per_second)) best = &o;
  if (!best) {
    why = "no micro-batch up to " + std::to_string(largest) + " reaches a global batch in [" + std::to_string(want.min) +
          ", " + std::to_string(want.max) + "] on " + std::to_string(p) + " GPUs";
    return std::nullopt;
  }
  report.plan.micro_batch = best->micro_batch;
  report.plan.accumulation = best->accumulation;
  report.plan.global_batch = best->global_batch;
  report.plan.rank_micro_batch = proportional_batches(job, best->micro_batch);
  report.plan.lr_scaling = lr_rule(job.workload, best->global_batch, base);
  report.samples_per_second = best->samples_per_second;
  report.comm_fraction = best->comm_fraction;
  report.step = best->step;
  return report;
}

}  // namespace ringlab::planner
