// One training step: collective timing with a per-run cache, the two-stream timeline, and the
// memory estimate (see training.hpp).
#include <algorithm>
#include <map>
#include <stdexcept>

#include "ringlab/sim/run_collective.hpp"
#include "training/training_plan.hpp"

namespace ringlab::sim {
namespace {

// Memory held besides the model state and activations: CUDA context, framework workspace and
// allocator fragmentation. Assumption (a CUDA context alone takes ~0.3-0.5 GiB; cuBLAS/cuDNN
// workspaces and the caching allocator's slack add about as much again).
constexpr Bytes kRuntimeReserve{std::int64_t(1) << 30};
// Mixed precision keeps an fp32 master copy of the weights in the optimizer (ZeRO paper, 3.1: K = 12
// for Adam = 4 master + 8 states).
constexpr double kMasterCopyBytes = 4;

Bytes whole_elements_up(Bytes b, std::int64_t element) {
  return Bytes{std::max<std::int64_t>(1, (b.count() + element - 1) / element) * element};
}

}  // namespace

CollectiveTimer::CollectiveTimer(const Topology& topology, RankOrder order, EcmpPolicy ecmp, std::uint64_t seed,
                                 bool model_compute)
    : topology_(&topology), order_(std::move(order)), ecmp_(ecmp), seed_(seed), model_compute_(model_compute) {}

Duration CollectiveTimer::time(const Request& r) {
  const Bytes bytes = whole_elements_up(r.bytes, r.payload.element_bytes());
  Key key{int(r.collective), int(r.algorithm), bytes.count(), int(r.payload.dtype),
          to_string(r.payload.compression), int(r.hierarchy), r.servers, r.nccl_calibration};
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  CollectiveRequest request;
  request.collective = r.collective;
  request.algorithm = r.algorithm;
  request.message = bytes;
  request.payload = r.payload;
  request.hierarchy = r.hierarchy;
  request.servers = r.servers;
  request.order = order_;
  request.options.ecmp = ecmp_;
  request.options.ecmp_seed = seed_;
  request.options.calibration = r.nccl_calibration ? Calibration::nccl() : Calibration::pure();
  request.options.calibration.model_compute = model_compute_;
  const CollectiveOutcome outcome = run_collective(*topology_, request);
  if (!outcome.applicable()) throw std::invalid_argument(outcome.not_applicable);
  const Duration t = outcome.result->time;
  cache_.emplace(std::move(key), t);
  return t;
}

double slowest_micro_batch_seconds(const TrainJob& job) {
  double slowest = 0;
  std::vector<std::string> seen;
  for (const GpuCompute& g : job.rank_gpus) {
    if (std::find(seen.begin(), seen.end(), g.name) != seen.end()) continue;
    seen.push_back(g.name);
    slowest = std::max(slowest, micro_batch_seconds(g, job.workload, job.strategy.precision, job.batch, &job.calibration));
  }
  return slowest;
}

StepResult simulate_step(const TrainJob& job, CollectiveTimer& timer, double compute_scale) {
  const detail::StepPlan plan = detail::build_step_plan(job, timer.topology(), slowest_micro_batch_seconds(job) * compute_scale);
  StepResult out;
  std::vector<Duration> compute_end(plan.compute.size());
  std::vector<Duration> comm_end(plan.comm.size());
  std::size_t ci = 0;
  std::size_t mi = 0;
  Duration compute_free;
  Duration comm_free;
  std::map<std::tuple<int, int, std::int64_t>, std::size_t> uses;
  while (ci < plan.compute.size() || mi < plan.comm.size()) {
    bool progressed = false;
    if (ci < plan.compute.size()) {
      const detail::PlanCompute& t = plan.compute[ci];
      if (t.waits_for < int(mi)) {
        const Duration start = std::max(compute_free, t.waits_for >= 0 ? comm_end[std::size_t(t.waits_for)] : Duration{});
        const Duration d = Duration::from_seconds(t.seconds);
        compute_free = compute_end[ci] = start + d;
        out.compute += d;
        out.timeline.push_back({false, t.label, start, compute_free});
        ++ci;
        progressed = true;
      }
    }
    if (mi < plan.comm.size()) {
      const detail::PlanComm& t = plan.comm[mi];
      if (t.after < int(ci)) {
        const Duration start = std::max(comm_free, t.after >= 0 ? compute_end[std::size_t(t.after)] : Duration{});
        const Duration d = timer.time(t.request);
        comm_free = comm_end[mi] = start + d;
        out.comm += d;
        out.timeline.push_back({true, t.label, start, comm_free});
        const auto key = std::make_tuple(int(t.request.collective), int(t.request.algorithm), t.request.bytes.count());
        auto [it, added] = uses.emplace(key, out.collectives.size());
        if (added) out.collectives.push_back({t.request.collective, t.request.algorithm, t.request.bytes, 0, d});
        ++out.collectives[it->second].count;
        ++mi;
        progressed = true;
      }
    }
    if (!progressed) throw std::logic_error("training step plan has a dependency cycle");
  }
  out.step = std::max(compute_free, comm_free);
  std::stable_sort(out.timeline.begin(), out.timeline.end(),
                   [](const TimelineSpan& a, const TimelineSpan& b) { return a.start < b.start; });
  return out;
}

MemoryEstimate estimate_memory(const TrainJob& job) {
  const Strategy& s = job.strategy;
  const double n = double(std::max<std::size_t>(1, job.order.ranks.size()));
  const double params = double(job.workload.parameters());
  const bool mixed = weight_element_bytes(s.precision) < 4;
  const bool shard_opt = s.kind == StrategyKind::Zero1 || s.kind == StrategyKind::Zero2 ||
                         s.kind == StrategyKind::Zero3 || s.kind == StrategyKind::Fsdp;
  const bool shard_grad = s.kind == StrategyKind::Zero2 || s.kind == StrategyKind::Zero3 || s.kind == StrategyKind::Fsdp;
  const bool shard_weights = s.kind == StrategyKind::Zero3 || s.kind == StrategyKind::Fsdp;
  // Central storage and parameter servers keep variables and optimizer state off the GPU.
  const bool host_state = s.kind == StrategyKind::TfCentralStorage || s.kind == StrategyKind::TfParameterServer;
  MemoryEstimate m;
  double weights = params * double(weight_element_bytes(s.precision));
  if (shard_weights) {
    std::int64_t largest = 0;
    for (const Layer& l : job.workload.layers) largest = std::max(largest, l.parameters);
    // Own shard plus two gathered layers (the one computing and the prefetched one).
    weights = weights / n + 2.0 * double(largest) * double(weight_element_bytes(s.precision));
  }
  const double grads = params * double(weight_element_bytes(s.precision)) / (shard_grad ? n : 1.0);
  const double opt = host_state ? 0.0
                                : params * (job.workload.optimizer_state_bytes + (mixed ? kMasterCopyBytes : 0.0)) /
                                      (shard_opt ? n : 1.0);
  const double act_elements = s.activation_checkpointing ? job.workload.checkpointed_activation_elements
                                                         : job.workload.activation_elements;
  m.weights = Bytes{std::int64_t(weights)};
  m.gradients = Bytes{std::int64_t(grads)};
  m.optimizer = Bytes{std::int64_t(opt)};
  m.activations = Bytes{std::int64_t(act_elements * double(job.batch) * double(activation_element_bytes(s.precision)))};
  m.reserve = kRuntimeReserve;
  m.capacity = Bytes{INT64_MAX};
  for (const GpuCompute& g : job.rank_gpus) m.capacity = std::min(m.capacity, g.memory);
  return m;
}

}  // namespace ringlab::sim
