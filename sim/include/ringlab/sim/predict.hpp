// Predictions of measured runs: for each measured Result, the same collective, size, element type and
// rank count simulated on a cluster, so compare() pairs them row by row. `ringlab compare SCENARIO
// MEASURED...` and `ringlab calibrate` both predict through here.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ringlab/sim/calibration.hpp"
#include "ringlab/sim/collectives.hpp"
#include "ringlab/sim/rank_order.hpp"
#include "ringlab/sim/result.hpp"
#include "ringlab/topology/topology.hpp"

namespace ringlab::sim {

struct PredictOptions {
  Algorithm algorithm = Algorithm::Nccl;  ///< what to time (nccl: NCCL's tuner picks per size)
  Calibration calibration = Calibration::nccl();
  std::optional<RankOrder> order;         ///< the order the runs used; default: the first GPUs in declaration order
  std::string scenario_digest;            ///< copied into each prediction's key
  NcclEnv nccl_env;                       ///< the runs' NCCL settings (for the nccl algorithm)
};

/// One prediction per measured Result, in the same order. Throws InputError (naming `source`, the
/// measurement file) when a run cannot be predicted: an element type ringlab does not know, more
/// ranks than the cluster has GPUs, an order of another size, an algorithm that does not apply.
std::vector<Result> predict_measured(const Topology& topology, std::span<const Result> measured,
                                     const PredictOptions& options, const std::string& source);

}  // namespace ringlab::sim
