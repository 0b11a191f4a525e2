// Fitting link factors to measurements (calibrate.hpp).
#include "ringlab/sim/calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "ringlab/sim/compare.hpp"
#include "ringlab/topology/error.hpp"

namespace ringlab::sim {
namespace {

constexpr int kSweeps = 3;             ///< coordinate-descent passes over all parameters
constexpr int kGoldenSteps = 24;       ///< golden-section steps per parameter: bracket shrinks to 0.618^24 ~ 1e-5
constexpr double kRegularisation = 1e-4;
constexpr double kMinFactor = 1.0 / 50, kMaxBandwidthFactor = 50, kMaxLatencyFactor = 200;
constexpr std::size_t kNcclLatencyParameters = 2;  ///< NCCL's base and intra-node latency, its network hops
/// The grid the NCCL factors start from: 9 x 9 factors from 1/8 to 8 (steps of 2^0.75, 1 in the middle).
constexpr int kNcclGridPoints = 9;
constexpr double kNcclGridMin = 1.0 / 8, kNcclGridMax = 8;

/// NCCL's latency moves its choice between algorithms, so the objective has local minima along either
/// NCCL factor alone (seen: x3 and x2.9 where the runs came from x1.5 and x3.75): the descent starts
/// from the best point of a grid over the two (params[0], params[1]), the others as in `x`.
template <class Objective>
std::vector<double> nccl_grid_start(const Objective& objective, std::vector<double> x) {
  double best = objective(x);
  std::vector<double> trial = x;
  const double lo = std::log(kNcclGridMin), step = (std::log(kNcclGridMax) - lo) / (kNcclGridPoints - 1);
  for (int i = 0; i < kNcclGridPoints; ++i)
    for (int k = 0; k < kNcclGridPoints; ++k) {
      trial[0] = lo + i * step;
      trial[1] = lo + k * step;
      if (const double v = objective(trial); v < best) best = v, x = trial;
    }
  return x;
}

double log_error(const Result& predicted, const Result& measured) {
  const double p = std::max(predicted.time.seconds(), 1e-15), m = std::max(measured_time(measured).seconds(), 1e-15);
  return std::log(p / m);
}

}  // namespace

ErrorSummary summarise_errors(std::span<const Result> predicted, std::span<const Result> measured,
                              const std::vector<bool>& mask, bool want) {
  std::vector<double> errors;
  for (std::size_t i = 0; i < measured.size(); ++i) {
    if (mask[i] != want) continue;
    const double m = measured_time(measured[i]).seconds();
    errors.push_back(m > 0 ? std::abs(predicted[i].time.seconds() - m) / m : 0);
  }
  ErrorSummary s;
  s.runs = int(errors.size());
  if (errors.empty()) return s;
  std::sort(errors.begin(), errors.end());
  const std::size_t n = errors.size();
  s.median_abs_error = n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
  s.worst_abs_error = errors.back();
  return s;
}

CalibrationFit fit_calibration(const Topology& topology, std::span<const Result> measured, const std::vector<bool>& fit,
                               const std::string& base, const PredictOptions& options, const std::string& source) {
  CalibrationFit out;
  out.file.base = base;
  PredictOptions opts = options;
  opts.calibration = out.file.calibration();
  const std::vector<Result> before = predict_measured(topology, measured, opts, source);
  out.fit_before = summarise_errors(before, measured, fit, true);
  out.held_out_before = summarise_errors(before, measured, fit, false);

  // Links in series on one path cannot be told apart by the time of the path (only the bottleneck's
  // rate shows), so only the families of each run's bottleneck get factors.
  std::set<LinkFamily> families;
  for (const Result& r : before)
    if (!r.bottlenecks.empty())
      families.insert(link_family(topology.links()[Topology::direction_link(r.bottlenecks.front())].kind));
  out.families.assign(families.begin(), families.end());
  if (out.families.empty())
    throw InputError(source, "", "no measured run moves data over a link in its prediction (one rank per run?): "
                                 "there is nothing to calibrate");

  std::vector<Result> fit_runs;
  for (std::size_t i = 0; i < measured.size(); ++i)
    if (fit[i]) fit_runs.push_back(measured[i]);
  // Parameters, in log space: under --algo nccl first two on NCCL's latency table (NCCL's latency,
  // not the links', is the fixed cost its runs pay): one on its base latency and intra-node hops
  // together, one on its network hops; then per family its bandwidth and latency factor. Base and
  // intra-node hops share a factor because a run's time cannot tell them apart (both are constants
  // of its algorithm; fitted apart, they traded off and changed NCCL's choice at sizes between the
  // fitted ones). A factor the runs cannot see stays at 1 (one node's runs cross no network hop).
  out.nccl_latency_fitted = options.algorithm == Algorithm::Nccl;
  const std::size_t first_family = out.nccl_latency_fitted ? kNcclLatencyParameters : 0;
  std::vector<double> x(first_family + out.families.size() * 2, 0.0);
  const auto is_latency = [&](std::size_t j) { return j < first_family || (j - first_family) % 2 == 1; };
  const auto apply = [&](const std::vector<double>& params) {
    CalibrationFile f;
    f.base = base;
    if (out.nccl_latency_fitted)
      f.nccl_latency = NcclLatencyFactors{std::exp(params[0]), std::exp(params[0]), std::exp(params[1])};
    for (std::size_t k = 0; k < out.families.size(); ++k)
      f.links[out.families[k]] =
          LinkFactors{std::exp(params[first_family + 2 * k]), std::exp(params[first_family + 2 * k + 1])};
    return f;
  };
  const auto objective = [&](const std::vector<double>& params) {
    PredictOptions o = options;
    o.calibration = apply(params).calibration();
    const std::vector<Result> p = predict_measured(topology, fit_runs, o, source);
    ++out.evaluations;
    double sum = 0;
    for (std::size_t i = 0; i < p.size(); ++i) sum += std::pow(log_error(p[i], fit_runs[i]), 2);
    double reg = 0;
    for (double v : params) reg += v * v;
    return sum / double(p.size()) + kRegularisation * reg;
  };
  if (out.nccl_latency_fitted) x = nccl_grid_start(objective, x);
  const double golden = (std::sqrt(5.0) - 1) / 2;
  for (int sweep = 0; sweep < kSweeps; ++sweep)
    for (std::size_t j = 0; j < x.size(); ++j) {
      double lo = std::log(kMinFactor), hi = std::log(is_latency(j) ? kMaxLatencyFactor : kMaxBandwidthFactor);
      std::vector<double> trial = x;
      const auto at = [&](double v) {
        trial[j] = v;
        return objective(trial);
      };
      double a = hi - golden * (hi - lo), b = lo + golden * (hi - lo);
      double fa = at(a), fb = at(b);
      for (int step = 0; step < kGoldenSteps; ++step) {
        if (fa <= fb) {
          hi = b, b = a, fb = fa;
          a = hi - golden * (hi - lo);
          fa = at(a);
        } else {
          lo = a, a = b, fa = fb;
          b = lo + golden * (hi - lo);
          fb = at(b);
        }
      }
      const double candidate = (lo + hi) / 2;
      // Keep the move only when it does not make the objective worse (a flat or noisy direction).
      const double current = objective(x);
      trial[j] = candidate;
      if (objective(trial) <= current) x[j] = candidate;
    }
  out.file = apply(x);
  opts.calibration = out.file.calibration();
  const std::vector<Result> after = predict_measured(topology, measured, opts, source);
  out.fit_after = summarise_errors(after, measured, fit, true);
  out.held_out_after = summarise_errors(after, measured, fit, false);
  return out;
}

}  // namespace ringlab::sim
