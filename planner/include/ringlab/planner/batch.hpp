// Batch planning: the per-GPU micro-batch, the accumulation steps and the learning-rate scaling.
//
// The micro-batch is the one that maximises simulated throughput (samples per second of a whole
// optimizer step, communication included) among those that fit GPU memory (sim::estimate_memory);
// candidates are the powers of two up to the largest that fits, and that largest one. Accumulation
// reaches the global batch target (a value, or a range) with the fewest steps. On GPUs of
// different speeds each rank gets a micro-batch proportional to its speed so all finish together.
// Learning rate: linear scaling for SGD (Goyal et al., "Accurate, Large Minibatch SGD", 2017, with
// a gradual warm-up), square-root scaling for Adam-like optimizers (Malladi et al., "On the SDEs and
// Scaling Rules for Adaptive Gradient Algorithms", NeurIPS 2022).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ringlab/planner/plan.hpp"
#include "ringlab/sim/training.hpp"

namespace ringlab::planner {

/// The global batch wanted: one value (min == max) or a range; 0/0 = keep the job's own
/// (micro-batch x accumulation x ranks).
struct BatchTarget {
  long long min = 0;
  long long max = 0;
  bool set() const { return max > 0; }
};

/// One micro-batch tried.
struct BatchOption {
  int micro_batch = 0;
  int accumulation = 1;
  long long global_batch = 0;
  bool fits = true;                 ///< memory
  Bytes memory;                     ///< per rank
  double samples_per_second = 0;    ///< 0 when it does not fit or misses the target
  double comm_fraction = 0;
  Duration step;
};

struct BatchReport {
  BatchPlan plan;
  std::vector<BatchOption> options;  ///< every micro-batch tried, ascending
  Bytes capacity;                    ///< GPU memory (smallest among the ranks)
  long long base_global_batch = 0;   ///< the job's own global batch (what its learning rate was set for)
  double samples_per_second = 0;     ///< of the chosen option
  double comm_fraction = 0;
  Duration step;
};

/// Plans `job` (its order is the planned one) for `target`. Returns nullopt when no micro-batch
/// fits memory or reaches the target; `why` then says which.
std::optional<BatchReport> plan_batch(const sim::TrainJob& job, const Topology& topology, const BatchTarget& target,
                                      std::string& why);

}  // namespace ringlab::planner
