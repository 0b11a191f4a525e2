// Predictions of measured runs (predict.hpp).
#include "ringlab/sim/predict.hpp"

#include <optional>

#include "ringlab/sim/run_collective.hpp"
#include "ringlab/topology/error.hpp"

namespace ringlab::sim {
namespace {

/// Whether two of predict_measured's requests differ at most in their size (of the fields it sets
/// per run; the others come from its options).
bool same_but_size(const CollectiveRequest& a, const CollectiveRequest& b) {
  return a.collective == b.collective && a.payload.dtype == b.payload.dtype && a.order.ranks == b.order.ranks;
}

}  // namespace

std::vector<Result> predict_measured(const Topology& topology, std::span<const Result> measured,
                                     const PredictOptions& options, const std::string& source) {
  std::vector<Result> predicted;
  predicted.reserve(measured.size());
  // Consecutive runs that differ only in size share a sweep (NCCL's view, transports, routes).
  std::optional<CollectiveSweep> sweep;
  for (std::size_t i = 0; i < measured.size(); ++i) {
    const Result& m = measured[i];
    const std::string where = "run " + std::to_string(i + 1) + " (" + std::string(to_string(m.collective)) + ", " +
                              std::to_string(m.message.count()) + " B)";
    const auto dtype = find_data_type(m.key.dtype);
    if (!dtype) throw InputError(source, where, "element type '" + m.key.dtype + "' is not one ringlab simulates");
    const int ranks = m.ranks > 0 ? m.ranks : (options.order ? options.order->size() : 0);
    if (ranks <= 0) throw InputError(source, where, "the run does not say how many ranks it had");
    if (ranks > int(topology.gpus().size()))
      throw InputError(source, where, std::to_string(ranks) + " ranks, but the cluster has " +
                                          std::to_string(topology.gpus().size()) + " GPUs");
    if (options.order && options.order->size() != ranks)
      throw InputError(source, where, std::to_string(ranks) + " ranks, but the rank order has " +
                                          std::to_string(options.order->size()));
    CollectiveRequest request;
    request.collective = m.collective;
    request.algorithm = options.algorithm;
    request.message = m.message;
    request.payload.dtype = *dtype;
    request.order = options.order ? *options.order : declaration_order(topology, ranks);
    request.options.calibration = options.calibration;
    request.nccl_env = options.nccl_env;
    if (!sweep || !same_but_size(sweep->request(), request)) sweep.emplace(topology, request);
    const CollectiveOutcome outcome = sweep->run(request.message);
    if (!outcome.applicable()) throw InputError(source, where, outcome.not_applicable);
    Result r = *outcome.result;
    r.key.scenario = options.scenario_digest;
    r.key.dtype = m.key.dtype;
    r.key.order = request.order.digest(topology);
    r.key.protocol = std::string(to_string(outcome.protocol));
    r.key.channels = outcome.channels;
    predicted.push_back(std::move(r));
  }
  return predicted;
}

}  // namespace ringlab::sim
