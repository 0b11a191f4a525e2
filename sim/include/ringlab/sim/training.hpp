// Training-step simulation: a data-parallel strategy turns a workload's backward pass into a sequence
// of collectives on the scenario's cluster, and a two-stream timeline (one compute stream, one
// communication stream) gives the step time, the exposed communication and the throughput.
//
// Timeline: forward runs the layers in order, backward in reverse, each layer's time a share of the
// micro-batch time proportional to its parameters (forward 1/3, backward 2/3; with activation
// checkpointing backward also recomputes the forward). A collective starts when the gradients (or
// parameters) it needs are ready and the previous collective has finished (one communication
// stream, in issue order); a compute task that needs gathered parameters (ZeRO-3/FSDP) waits for its
// all-gather. Exposed communication = step end - compute end. Collective times come from
// build_schedule + Simulator::run on the cluster, cached per (collective, algorithm, bytes) within a
// CollectiveTimer. Everything is deterministic; randomness (stragglers) comes from a seeded RNG.
//
// The strategies and where their collectives sit (docs/training.md has the sources):
//   tf_mirrored          one host; one all-reduce of all gradients after backward (NcclAllReduce, one pack)
//   tf_multi_worker      MultiWorkerMirroredStrategy: as tf_mirrored across hosts; communication nccl or ring
//   tf_central_storage   one host; gradients to the host CPU, which reduces and sends the variables back
//   tf_parameter_server  gradients pushed to / variables pulled from parameter servers; sync or async
//   ddp                  PyTorch DDP: 25 MiB buckets in backward order (the first 1 MiB), all-reduced as ready
//   horovod              ring all-reduce with tensor fusion (64 MiB buffer); hierarchical option
//   zero1                DeepSpeed ZeRO-1: reduce-scatter of gradients after backward, all-gather of parameters after the step
//   zero2                ZeRO-2: gradient reduce-scatter in buckets during backward, parameter all-gather after the step
//   zero3, fsdp          parameters all-gathered per layer in forward and again in backward, gradients
//                        reduce-scattered per layer in backward: 1.5x the all-reduce volume
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "ringlab/sim/collectives.hpp"
#include "ringlab/sim/rank_order.hpp"
#include "ringlab/sim/reliability.hpp"
#include "ringlab/sim/simulator.hpp"
#include "ringlab/sim/workload.hpp"
#include "ringlab/topology/scenario.hpp"

namespace ringlab::sim {

enum class StrategyKind : std::uint8_t {
  TfMirrored,
  TfMultiWorkerMirrored,
  TfCentralStorage,
  TfParameterServer,
  TorchDdp,
  Horovod,
  Zero1,
  Zero2,
  Zero3,
  Fsdp,
};
inline constexpr int kStrategyCount = 10;
std::string_view to_string(StrategyKind k);
/// Names as in the table above; also "mirrored", "multi_worker_mirrored", "central_storage",
/// "parameter_server", "ps", "pytorch_ddp", "deepspeed_zero1".."3". nullopt on a miss.
std::optional<StrategyKind> find_strategy(std::string_view name);
std::string strategy_names();
/// True for strategies limited to the GPUs of one host (tf_mirrored, tf_central_storage).
bool single_host_only(StrategyKind k);

struct Strategy {
  StrategyKind kind = StrategyKind::TorchDdp;
  Precision precision = Precision::Fp32;
  DataType gradient_dtype = DataType::Fp32;   ///< gradient element type on the wire
  Compression compression;                    ///< gradient compression (sim::Payload)
  Bytes bucket;                               ///< bucket / fusion / pack size; 0 = the strategy's default
  Bytes first_bucket;                         ///< DDP's first bucket; 0 = its default (1 MiB)
  bool overlap = true;                        ///< issue collectives while backward runs (where the strategy can)
  int accumulation = 1;                       ///< micro-batches per optimizer step (sync every k)
  bool activation_checkpointing = false;      ///< recompute activations in backward (4/3 compute, less memory)
  std::optional<Algorithm> algorithm;         ///< collective algorithm; default per strategy
  bool hierarchical = false;                  ///< Horovod HOROVOD_HIERARCHICAL_ALLREDUCE
  bool async = false;                         ///< parameter server: asynchronous updates
  std::vector<DeviceId> parameter_servers;    ///< parameter server devices; empty = one per worker host
  bool nccl_calibration = false;              ///< NCCL protocol efficiencies instead of the pure model
};

/// Per-step compute-speed variation: every GPU's micro-batch time is multiplied, each step, by a
/// lognormal factor of mean 1 and log-standard-deviation `jitter`, and with probability
/// `slow_probability` by `slow_factor` as well (a straggling worker).
struct Stragglers {
  double jitter = 0;
  double slow_probability = 0;
  double slow_factor = 1;
  /// True when per-GPU step times vary at all.
  bool active() const { return jitter > 0 || (slow_probability > 0 && slow_factor != 1); }
};

/// A validated training job (what the scenario's workload, strategy and train sections say).
struct TrainJob {
  Workload workload;
  Strategy strategy;
  int batch = 32;                      ///< per-GPU micro-batch, samples
  double samples = 0;                  ///< samples to train (time-to-train); 0 = not asked
  RankOrder order;                     ///< one rank per GPU, in ring order (train/rank_order or declaration order)
  std::vector<GpuCompute> rank_gpus;   ///< compute model of each rank's GPU
  ComputeCalibration calibration;      ///< measured step times (replace the compute model)
  Stragglers stragglers;
  int steps = 200;                     ///< steps simulated for the step-time distribution
  std::uint64_t seed = 1;
  EcmpPolicy ecmp = EcmpPolicy::Hash;
  bool collective_compute = true;      ///< reductions and codecs inside collectives cost GPU/CPU time
  Reliability reliability;
  std::vector<StrategyKind> compare;   ///< alternatives to report next to the job's strategy
};

/// Reads the scenario's "workload", "strategy" and "train" sections (docs/scenario-format.md,
/// section "Training"). Throws InputError naming the scenario's file and each JSON path.
TrainJob train_job_from_scenario(const Scenario& scenario);

/// Times collectives on one cluster and rank set, simulating each distinct (collective, algorithm,
/// bytes, payload, servers) once. Not thread-safe; one per thread.
class CollectiveTimer {
 public:
  /// The topology must outlive the timer.
  CollectiveTimer(const Topology& topology, RankOrder order, EcmpPolicy ecmp, std::uint64_t seed,
                  bool model_compute = true);
  struct Request {
    Collective collective = Collective::AllReduce;
    Algorithm algorithm = Algorithm::Ring;
    Bytes bytes;                          ///< per-rank buffer (whole array for reduce-scatter/all-gather); rounded up to whole elements
    Payload payload;
    Hierarchy hierarchy = Hierarchy::Leader;
    std::vector<DeviceId> servers;        ///< parameter_server only
    bool nccl_calibration = false;
  };
  /// Simulated time of one collective. Throws std::invalid_argument when the algorithm does not
  /// apply to this cluster (message from build_schedule).
  Duration time(const Request& request);
  /// Distinct simulations run so far.
  std::size_t simulations() const { return cache_.size(); }
  const Topology& topology() const { return *topology_; }
  const std::vector<DeviceId>& ranks() const { return order_.ranks; }
  const RankOrder& order() const { return order_; }

 private:
  using Key = std::tuple<int, int, std::int64_t, int, std::string, int, std::vector<DeviceId>, bool>;
  const Topology* topology_;
  RankOrder order_;
  EcmpPolicy ecmp_;
  std::uint64_t seed_;
  bool model_compute_;
  std::map<Key, Duration> cache_;
};

/// One interval on the step's timeline.
struct TimelineSpan {
  bool comm = false;          ///< communication stream (else compute)
  std::string label;          ///< "forward block3", "allreduce bucket 2 (24MiB)"
  Duration start;
  Duration end;
};

/// One kind of collective a step issues.
struct CollectiveUse {
  Collective collective = Collective::AllReduce;
  Algorithm algorithm = Algorithm::Ring;
  Bytes bytes;
  int count = 0;              ///< issued per optimizer step
  Duration time;              ///< one instance, simulated
};

struct StepResult {
  Duration compute;           ///< compute stream busy time (all micro-batches)
  Duration comm;              ///< communication stream busy time
  Duration step;              ///< end of the last task
  Duration exposed_comm() const { return step - compute; }
  Duration overlap() const { return comm - exposed_comm(); }
  double comm_fraction() const { return step.ps > 0 ? exposed_comm() / step : 0.0; }
  std::vector<TimelineSpan> timeline;
  std::vector<CollectiveUse> collectives;
};

/// Seconds of one micro-batch on the slowest rank (calibration first, else the compute model).
double slowest_micro_batch_seconds(const TrainJob& job);

/// Simulates one optimizer step (job.strategy.accumulation micro-batches) with every compute time
/// multiplied by `compute_scale` (>= 0). Throws std::invalid_argument when a collective's algorithm
/// does not apply to the cluster.
StepResult simulate_step(const TrainJob& job, CollectiveTimer& timer, double compute_scale = 1.0);

/// How a framework closes a gradient bucket.
enum class BucketRule : std::uint8_t {
  /// PyTorch DDP: layers in backward order fill a bucket until it reaches the cap (the layer that
  /// crosses the cap is inside it; reducer.cpp compute_bucket_assignment_by_size).
  FillToCap,
  /// Horovod Tensor Fusion and DeepSpeed's reduce buckets: a layer that would take the bucket past
  /// the cap starts the next one; a layer larger than the cap travels alone.
  NeverExceed,
};

/// Bytes of gradient buckets in issue order for a bucket cap (the first bucket's cap is `first`,
/// zero = `cap`). Each entry is (bytes, index of the last layer, in forward order, that fills it).
std::vector<std::pair<Bytes, int>> gradient_buckets(const Workload& w, std::int64_t element_bytes, Bytes first, Bytes cap,
                                                    BucketRule rule = BucketRule::FillToCap);

/// Device memory one rank needs (ZeRO paper's model: weights, gradients, optimizer states with an
/// fp32 master copy under mixed precision, each divided by the ranks where the strategy shards it,
/// plus activations of one micro-batch and a runtime reserve).
struct MemoryEstimate {
  Bytes weights, gradients, optimizer, activations, reserve;
  Bytes total() const { return weights + gradients + optimizer + activations + reserve; }
  Bytes capacity;             ///< the smallest GPU memory among the ranks
  bool fits() const { return total() <= capacity; }
};
MemoryEstimate estimate_memory(const TrainJob& job);

/// Step-time distribution over job.steps synchronous steps with stragglers (the step waits for the
/// slowest rank). Deterministic for job.seed.
struct StepStatistics {
  int steps = 0;
  double mean_s = 0, p50_s = 0, p99_s = 0, max_s = 0;
};
StepStatistics sync_step_statistics(const TrainJob& job, CollectiveTimer& timer);

/// Asynchronous parameter-server training as a discrete-event simulation: each worker loops
/// compute -> push gradients -> server applies -> pull parameters, with no barrier. The servers'
/// links (each direction a FIFO at the link's bandwidth) and CPUs (FIFO at their reduce rate) are
/// shared; a transfer also takes at least its uncontended simulated time. Staleness of an update =
/// updates applied by others between the worker's pull and its push's application.
struct AsyncResult {
  double samples_per_second = 0;
  double updates_per_second = 0;
  double ps_link_utilisation = 0;   ///< busiest server link direction, fraction of the run
  double ps_cpu_utilisation = 0;    ///< busiest server CPU
  double mean_staleness = 0;
  std::vector<std::int64_t> staleness_histogram;  ///< [s] = updates with staleness s
  Bandwidth ps_link;                ///< per-server link bandwidth used
};
AsyncResult simulate_async_ps(const TrainJob& job, CollectiveTimer& timer);

/// Everything `ringlab train` reports for one job.
struct TrainReport {
  std::string scenario;
  TrainJob job;
  std::string order_digest;   ///< job.order.digest() on the cluster
  nlohmann::json order_json;  ///< job.order.to_json() on the cluster
  StepResult step;
  MemoryEstimate memory;
  double single_gpu_samples_per_second = 0;  ///< one rank alone, no communication
  StepStatistics statistics;
  std::optional<AsyncResult> async;
  ReliabilityResult reliability;
  struct Alternative {
    StrategyKind kind;
    std::optional<StepResult> step;   ///< empty when the strategy does not apply
    std::string reason;               ///< why not, when empty
    bool fits = true;
  };
  std::vector<Alternative> alternatives;
  std::size_t simulations = 0;       ///< distinct collective simulations run

  int ranks() const { return job.order.size(); }
  double global_batch() const { return double(job.batch) * job.strategy.accumulation * ranks(); }
  /// Async: the PS simulation's rate. Sync: global batch / step time, where the step time is the
  /// mean over the simulated steps when stragglers make it vary (every step waits for its slowest GPU).
  double samples_per_second() const;
  /// samples_per_second / (ranks * single_gpu_samples_per_second).
  double scaling_efficiency() const;
  /// Seconds to train job.samples: start-up + samples / throughput, stretched by 1 / goodput.
  double time_to_train_s() const;
};

/// Runs the job: step, memory, statistics, async PS, reliability, alternatives. Throws
/// std::invalid_argument when the job's own strategy cannot run on the cluster.
TrainReport run_training(const TrainJob& job, const Topology& topology, std::string scenario_name);

/// Comm fraction above which a report flags the step as communication-bound.
inline constexpr double kCommFractionFlag = 0.20;

/// The report as JSON (keys sorted, so the output is deterministic); `ringlab train --format json` prints it.
/// The training report's JSON schema name and version (docs/report-formats.md).
inline constexpr std::string_view kTrainReportSchema = "ringlab.train-report";
inline constexpr int kTrainReportVersion = 1;

/// {"schema": "ringlab.train-report", "version": 1, ...}: keys in alphabetical order.
nlohmann::json to_json(const TrainReport& report);
void write_table(std::ostream& out, const TrainReport& report);
/// Chrome trace-event JSON of one step: a compute track and a communication track.
void write_step_trace(std::ostream& out, const TrainReport& report);

}  // namespace ringlab::sim
