// The planner's one call: a scenario in, a Plan and its report out.
//
// make_plan() (1) searches a ring order (order_search.hpp) and confirms it on the full simulator
// against the orders a user would otherwise get: the scheduler's (the scenario's own order) and
// torchrun's dynamic rendezvous (hosts sorted by name), and against random host orders; the
// fastest host-contiguous order wins; (2) times every algorithm the simulator runs on that order
// and picks the fastest (each within an event budget: a slow one is reported as not timed), saying why in plain words; (3) bounds the
// collective from below (bound.hpp) and reports the gap; (4) for scenarios with a training job,
// picks the per-GPU micro-batch and accumulation steps (batch.hpp); (5) fills the NCCL settings,
// system ones apart from debug-only ones. Deterministic for a seed (unless a time limit stops the
// search, which the report says).
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ringlab/planner/batch.hpp"
#include "ringlab/planner/bound.hpp"
#include "ringlab/planner/order_search.hpp"
#include "ringlab/planner/plan.hpp"
#include "ringlab/sim/nccl_env.hpp"
#include "ringlab/sim/run_collective.hpp"
#include "ringlab/topology/scenario.hpp"

namespace ringlab::planner {

struct PlanRequest {
  sim::Collective collective = sim::Collective::AllReduce;
  Bytes message;                     ///< 0: the training job's gradients, else kDefaultMessage
  int ranks = 0;                     ///< GPUs to use, in the scheduler's order; 0: all of them
  int channels = 0;                  ///< 0: the NICs of the first host (at least 1)
  OrderSearchOptions search;         ///< seed, move budget, time limit (channels is set from above)
  int random_orders = 8;             ///< random host orders to compare against (seeded; at most 2 above 256 ranks x channels, none above 2,048)
  EcmpPolicy ecmp = EcmpPolicy::Hash;
  std::uint64_t ecmp_seed = 0;
  BatchTarget batch;                 ///< global batch target (training scenarios)
  std::optional<sim::RankOrder> scheduler_order;  ///< the allocation's order; empty: declaration order
  sim::NcclEnv nccl_env;             ///< the NCCL settings NCCL's choice is timed under (the scenario's "nccl")
};

/// Message planned for when neither the request nor a training job gives one.
inline constexpr Bytes kDefaultMessage{256LL << 20};

/// One order the plan is compared with, timed on the full simulator with the plan's algorithm.
struct OrderResult {
  std::string name;         ///< "planned", "scheduler order", "sorted host names", "random (median of 8)"
  std::string digest;       ///< RankOrder::digest
  Duration time;            ///< ring all-reduce (or the collective) with the plan's channels
};

struct PlanReport {
  Plan plan;
  std::vector<OrderResult> orders;        ///< planned first, then the alternatives
  OrderSearchResult search;
  LowerBound bound;
  Duration ring_time;                     ///< the planned order's ring time (what bound.ring bounds)
  std::vector<sim::Candidate> algorithms; ///< every algorithm on the planned order, in enum order
  sim::Algorithm best_algorithm = sim::Algorithm::Ring;
  Duration best_time;
  std::string nccl_choice;                ///< what NCCL's tuner would run ("Ring/Simple, 8 channels")
  std::vector<std::string> reasons;       ///< the plan in plain words, one sentence each
  std::optional<BatchReport> batch;
};

/// Plans `scenario`. Throws InputError for settings the scenario or request gets wrong, and
/// std::invalid_argument when the cluster cannot run the collective at all.
PlanReport make_plan(const Scenario& scenario, const PlanRequest& request);

/// The report as plan.json's "report" object (fixed precision, deterministic).
nlohmann::json report_json(const PlanReport& report);

/// The report as text: the plan, the orders compared, the bound and the gap, the algorithms, the
/// batch, in plain words.
void write_report(std::ostream& out, const PlanReport& report);

}  // namespace ringlab::planner
