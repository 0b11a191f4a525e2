// Private: a step as two task lists (compute stream, communication stream) with cross-stream
// dependencies, built from a strategy (training_strategy.cpp) and run by the timeline
// (training_step.cpp).
#pragma once

#include <string>
#include <vector>

#include "ringlab/sim/training.hpp"

namespace ringlab::sim::detail {

struct PlanCompute {
  std::string label;
  double seconds = 0;
  int waits_for = -1;   ///< communication task that must finish first, or -1
};

struct PlanComm {
  CollectiveTimer::Request request;
  std::string label;
  int after = -1;       ///< compute task that must finish first, or -1
};

struct StepPlan {
  std::vector<PlanCompute> compute;
  std::vector<PlanComm> comm;
};

/// Builds the tasks of one optimizer step. `micro_seconds` = forward + backward of one micro-batch
/// without activation recomputation. Throws std::invalid_argument for a strategy that cannot run on
/// the job's ranks (e.g. a one-host strategy over several hosts).
StepPlan build_step_plan(const TrainJob& job, const Topology& topology, double micro_seconds);

}  // namespace ringlab::sim::detail
