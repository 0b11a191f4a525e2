// Data-parallel strategies: their names, defaults (one table, with sources) and where each puts its
// collectives in a step (build_step_plan).
#include <algorithm>
#include <array>
#include <set>
#include <stdexcept>

#include "training/training_plan.hpp"

namespace ringlab::sim {
namespace {

constexpr Bytes kMiB{std::int64_t(1) << 20};
// DeepSpeed reduce_bucket_size / allgather_bucket_size default: 5e8 elements (DeepSpeed config docs).
constexpr std::int64_t kDeepSpeedBucketElements = 500000000;

enum class Layout : std::uint8_t {
  AllReduce,     ///< gradient buckets all-reduced (or pushed/pulled through parameter servers)
  ShardedOpt,    ///< ZeRO-1/2: reduce-scatter gradients, all-gather updated parameters
  ShardedParams, ///< ZeRO-3/FSDP: per-layer parameter all-gathers and gradient reduce-scatters
};

struct StrategyRow {
  StrategyKind kind;
  std::string_view name;
  Layout layout;
  Bytes bucket;             ///< default bucket; 0 = all gradients in one collective
  bool overlaps;            ///< collectives can start during backward
  bool single_host;
  bool parameter_server;
  bool reduce_every_micro_batch;  ///< gradients are reduced at every micro-batch (sharded gradients)
  std::string_view source;
};

// Defaults, with sources:
//  - TF MirroredStrategy / MultiWorkerMirroredStrategy: NcclAllReduce / CollectiveAllReduce of all
//    gradients once computed (Keras apply_gradients); bytes_per_pack 0 = one pack (tf.distribute docs).
//  - CentralStorageStrategy: variables on the CPU, gradients reduced there (tf.distribute docs).
//  - PyTorch DDP: bucket_cap_mb = 25, first bucket 1 MiB (dist._DEFAULT_FIRST_BUCKET_BYTES), buckets
//    all-reduced as soon as ready (Li et al. 2020, "PyTorch Distributed", VLDB).
//  - Horovod: HOROVOD_FUSION_THRESHOLD 64 MiB (Horovod docs, Tensor Fusion); a tensor that would
//    overflow the buffer waits for the next one (BucketRule::NeverExceed).
//  - ZeRO (Rajbhandari et al. 2020): stage 1/2 reduce-scatter + all-gather = 2 psi (as all-reduce);
//    stage 3: 3 psi (1.5x); DeepSpeed overlap_comm reduces stage-2 buckets during backward.
//  - FSDP (Zhao et al. 2023, VLDB): FULL_SHARD gathers per unit in forward and backward, BACKWARD_PRE prefetch.
constexpr std::array<StrategyRow, kStrategyCount> kStrategies{{
    {StrategyKind::TfMirrored, "tf_mirrored", Layout::AllReduce, Bytes{0}, false, true, false, false,
     "tf.distribute.MirroredStrategy, NcclAllReduce with one pack"},
    {StrategyKind::TfMultiWorkerMirrored, "tf_multi_worker", Layout::AllReduce, Bytes{0}, false, false, false, false,
     "tf.distribute.MultiWorkerMirroredStrategy (CommunicationImplementation NCCL or RING)"},
    {StrategyKind::TfCentralStorage, "tf_central_storage", Layout::AllReduce, Bytes{0}, false, true, true, false,
     "tf.distribute.experimental.CentralStorageStrategy: variables on the host CPU"},
    {StrategyKind::TfParameterServer, "tf_parameter_server", Layout::AllReduce, Bytes{0}, false, false, true, false,
     "tf.distribute.experimental.ParameterServerStrategy"},
    {StrategyKind::TorchDdp, "ddp", Layout::AllReduce, kMiB * 25, true, false, false, false,
     "PyTorch DistributedDataParallel: 25 MiB buckets, first bucket 1 MiB"},
    {StrategyKind::Horovod, "horovod", Layout::AllReduce, kMiB * 64, true, false, false, false,
     "Horovod ring all-reduce, Tensor Fusion 64 MiB"},
    {StrategyKind::Zero1, "zero1", Layout::ShardedOpt, Bytes{0}, false, false, false, false,
     "DeepSpeed ZeRO stage 1 (optimizer states sharded)"},
    {StrategyKind::Zero2, "zero2", Layout::ShardedOpt, Bytes{0}, true, false, false, true,
     "DeepSpeed ZeRO stage 2 (+ gradients sharded), overlap_comm, reduce_bucket_size 5e8 elements"},
    {StrategyKind::Zero3, "zero3", Layout::ShardedParams, Bytes{0}, true, false, false, true,
     "DeepSpeed ZeRO stage 3 (+ parameters sharded)"},
    {StrategyKind::Fsdp, "fsdp", Layout::ShardedParams, Bytes{0}, true, false, false, true,
     "PyTorch FSDP FULL_SHARD, one unit per layer, BACKWARD_PRE prefetch"},
}};

constexpr std::array<std::pair<std::string_view, StrategyKind>, 11> kStrategyAliases{{
    {"mirrored", StrategyKind::TfMirrored},
    {"multi_worker_mirrored", StrategyKind::TfMultiWorkerMirrored},
    {"central_storage", StrategyKind::TfCentralStorage},
    {"parameter_server", StrategyKind::TfParameterServer},
    {"ps", StrategyKind::TfParameterServer},
    {"pytorch_ddp", StrategyKind::TorchDdp},
    {"deepspeed_zero1", StrategyKind::Zero1},
    {"deepspeed_zero2", StrategyKind::Zero2},
    {"deepspeed_zero3", StrategyKind::Zero3},
    {"zero-1", StrategyKind::Zero1},
    {"zero-3", StrategyKind::Zero3},
}};

const StrategyRow& row(StrategyKind k) { return kStrategies[std::size_t(k)]; }

DataType weight_dtype(Precision p) { return weight_element_bytes(p) == 4 ? DataType::Fp32 : DataType::Bf16; }

int host_count(const Topology& t, const std::vector<DeviceId>& ranks) {
  std::set<HostId> hosts;
  for (DeviceId r : ranks) hosts.insert(t.device(r).host);
  return int(hosts.size());
}

/// Builds the task lists; kept in one place so that every strategy shares the compute tasks.
class PlanBuilder {
 public:
  PlanBuilder(const TrainJob& job, double micro_seconds) : job_(job), s_(job.strategy) {
    const double forward = micro_seconds / 3.0;
    const double backward = micro_seconds - forward + (s_.activation_checkpointing ? forward : 0.0);
    const double params = double(std::max<std::int64_t>(1, job.workload.parameters()));
    for (const Layer& l : job.workload.layers) {
      const double share = double(l.parameters) / params;
      forward_.push_back(forward * share);
      backward_.push_back(backward * share);
    }
  }

  detail::StepPlan build(const Topology& topology) {
    const StrategyRow& r = row(s_.kind);
    if (r.single_host && host_count(topology, job_.order.ranks) > 1)
      throw std::invalid_argument(std::string(r.name) + " runs on the GPUs of one host; the job spans " +
                                  std::to_string(host_count(topology, job_.order.ranks)) + " hosts");
    const int k = std::max(1, s_.accumulation);
    for (int m = 0; m < k; ++m) micro_batch(m, m + 1 == k, topology);
    return std::move(plan_);
  }

 private:
  const TrainJob& job_;
  const Strategy& s_;
  std::vector<double> forward_, backward_;
  detail::StepPlan plan_;

  std::string prefix(int m) const { return s_.accumulation > 1 ? "mb" + std::to_string(m) + " " : ""; }
  int last_compute() const { return int(plan_.compute.size()) - 1; }
  int add_compute(std::string label, double seconds, int waits_for = -1) {
    plan_.compute.push_back({std::move(label), seconds, waits_for});
    return last_compute();
  }
  int add_comm(CollectiveTimer::Request request, std::string label, int after) {
    plan_.comm.push_back({std::move(request), std::move(label), after});
    return int(plan_.comm.size()) - 1;
  }

  CollectiveTimer::Request gradient_request(Collective c, Bytes bytes) const {
    CollectiveTimer::Request q;
    q.collective = c;
    q.bytes = bytes;
    q.payload.dtype = s_.gradient_dtype;
    q.payload.compression = s_.compression;
    q.nccl_calibration = s_.nccl_calibration;
    q.algorithm = s_.algorithm.value_or(Algorithm::Ring);
    if (row(s_.kind).parameter_server) {
      q.algorithm = Algorithm::ParameterServer;
      q.servers = s_.parameter_servers;
    }
    if (s_.kind == StrategyKind::Horovod && s_.hierarchical) q.algorithm = Algorithm::Hierarchical;
    return q;
  }
  CollectiveTimer::Request weight_request(Collective c, Bytes bytes) const {
    CollectiveTimer::Request q;
    q.collective = c;
    q.bytes = bytes;
    q.payload.dtype = weight_dtype(s_.precision);
    q.nccl_calibration = s_.nccl_calibration;
    q.algorithm = s_.algorithm.value_or(Algorithm::Ring);
    return q;
  }

  Bytes gradient_bucket_cap() const {
    if (s_.bucket.count() > 0) return s_.bucket;
    if (row(s_.kind).layout == Layout::ShardedOpt) return Bytes{kDeepSpeedBucketElements * element_size(s_.gradient_dtype)};
    return row(s_.kind).bucket;
  }

  // Forward tasks, and for ZeRO-3/FSDP their parameter all-gathers (prefetched one layer ahead).
  void forward(int m) {
    const bool gather = row(s_.kind).layout == Layout::ShardedParams;
    for (std::size_t i = 0; i < forward_.size(); ++i) {
      const std::string name = job_.workload.layers[i].name;
      int waits = -1;
      if (gather) waits = add_comm(weight_request(Collective::AllGather, weight_bytes(i)),
                                   prefix(m) + "allgather " + name + " (forward)", int(plan_.compute.size()) - 2);
      add_compute(prefix(m) + "forward " + name, forward_[i], waits);
    }
  }

  Bytes weight_bytes(std::size_t layer) const {
    return Bytes{job_.workload.layers[layer].parameters * weight_element_bytes(s_.precision)};
  }
  Bytes gradient_bytes(std::size_t layer) const {
    return Bytes{job_.workload.layers[layer].parameters * element_size(s_.gradient_dtype)};
  }

  void micro_batch(int m, bool last, const Topology&) {
    forward(m);
    const StrategyRow& r = row(s_.kind);
    if (r.layout == Layout::ShardedParams) return sharded_backward(m, last);
    // Backward: task index of each layer's backward.
    std::vector<int> done(forward_.size(), -1);
    for (std::size_t i = forward_.size(); i-- > 0;)
      done[i] = add_compute(prefix(m) + "backward " + job_.workload.layers[i].name, backward_[i]);
    const bool sync = last || r.reduce_every_micro_batch;
    if (!sync) return;
    const bool overlap = r.overlaps && s_.overlap;
    const Collective c = r.layout == Layout::AllReduce ? Collective::AllReduce : Collective::ReduceScatter;
    const Bytes first = s_.kind == StrategyKind::TorchDdp ? (s_.first_bucket.count() > 0 ? s_.first_bucket : kMiB) : Bytes{0};
    const BucketRule rule = s_.kind == StrategyKind::TorchDdp ? BucketRule::FillToCap : BucketRule::NeverExceed;
    const auto buckets = gradient_buckets(job_.workload, element_size(s_.gradient_dtype), first, gradient_bucket_cap(), rule);
    for (std::size_t b = 0; b < buckets.size(); ++b) {
      const auto& [bytes, layer] = buckets[b];
      const int after = overlap ? done[std::size_t(layer)] : last_compute();
      add_comm(gradient_request(c, bytes),
               prefix(m) + std::string(to_string(c)) + " bucket " + std::to_string(b) + " (" + to_string(bytes) + ")", after);
    }
    if (r.layout == Layout::ShardedOpt && last) {
      const Bytes cap{kDeepSpeedBucketElements * weight_element_bytes(s_.precision)};
      const auto gathers = gradient_buckets(job_.workload, weight_element_bytes(s_.precision), Bytes{0},
                                            s_.bucket.count() > 0 ? s_.bucket : cap, BucketRule::NeverExceed);
      for (std::size_t b = 0; b < gathers.size(); ++b)
        add_comm(weight_request(Collective::AllGather, gathers[b].first),
                 "allgather parameters " + std::to_string(b) + " (" + to_string(gathers[b].first) + ")", last_compute());
    }
  }

  // ZeRO-3/FSDP backward: gather layer i (prefetched), compute, reduce-scatter its gradients; the
  // next layer's gather is issued before this layer's reduce-scatter (BACKWARD_PRE).
  void sharded_backward(int m, bool) {
    int pending_rs_layer = -1;
    int pending_rs_task = -1;
    for (std::size_t i = forward_.size(); i-- > 0;) {
      const std::string name = job_.workload.layers[i].name;
      const int gather = add_comm(weight_request(Collective::AllGather, weight_bytes(i)),
                                  prefix(m) + "allgather " + name + " (backward)", int(plan_.compute.size()) - 2);
      if (pending_rs_layer >= 0) reduce_scatter(m, std::size_t(pending_rs_layer), pending_rs_task);
      pending_rs_task = add_compute(prefix(m) + "backward " + name, backward_[i], gather);
      pending_rs_layer = int(i);
    }
    if (pending_rs_layer >= 0) reduce_scatter(m, std::size_t(pending_rs_layer), pending_rs_task);
  }
  void reduce_scatter(int m, std::size_t layer, int after) {
    add_comm(gradient_request(Collective::ReduceScatter, gradient_bytes(layer)),
             prefix(m) + "reducescatter " + job_.workload.layers[layer].name, after);
  }
};

}  // namespace

std::string_view to_string(StrategyKind k) { return row(k).name; }

std::optional<StrategyKind> find_strategy(std::string_view name) {
  for (const StrategyRow& r : kStrategies)
    if (r.name == name) return r.kind;
  for (const auto& [alias, kind] : kStrategyAliases)
    if (alias == name) return kind;
  return std::nullopt;
}

std::string strategy_names() {
  std::string out;
  for (const StrategyRow& r : kStrategies) out += (out.empty() ? "" : ", ") + std::string(r.name);
  return out;
}

bool single_host_only(StrategyKind k) { return row(k).single_host; }

std::vector<std::pair<Bytes, int>> gradient_buckets(const Workload& w, std::int64_t element_bytes, Bytes first, Bytes cap,
                                                    BucketRule rule) {
  std::vector<std::pair<Bytes, int>> out;
  Bytes current{0};
  int current_last = 0;  // the forward-order index of the last layer added to `current`
  for (std::size_t i = w.layers.size(); i-- > 0;) {
    const Bytes layer{w.layers[i].parameters * element_bytes};
    const Bytes limit = out.empty() && first.count() > 0 ? first : cap;
    if (rule == BucketRule::NeverExceed && limit.count() > 0 && current.count() > 0 && current + layer > limit) {
      out.emplace_back(current, current_last);
      current = Bytes{0};
    }
    current += layer;
    current_last = int(i);
    if (limit.count() > 0 && current >= limit) {
      out.emplace_back(current, current_last);
      current = Bytes{0};
    }
  }
  if (current.count() > 0) out.emplace_back(current, 0);
  return out;
}

namespace detail {

StepPlan build_step_plan(const TrainJob& job, const Topology& topology, double micro_seconds) {
  return PlanBuilder(job, micro_seconds).build(topology);
}

}  // namespace detail
}  // namespace ringlab::sim
