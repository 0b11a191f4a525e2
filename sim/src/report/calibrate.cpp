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
  // Parameters: 2 per family, log bandwidth then log latency factor.
  std::vector<double> x(out.families.size() * 2, 0.0);
  const auto apply = [&](const std::vector<double>& params) {
    CalibrationFile f;
    f.base = base;
    for (std::size_t k = 0; k < out.families.size(); ++k)
      f.links[out.families[k]] = LinkFactors{std::exp(params[2 * k]), std::exp(params[2 * k + 1])};
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
  const double golden = (std::sqrt(5.0) - 1) / 2;
  for (int sweep = 0; sweep < kSweeps; ++sweep)
    for (std::size_t j = 0; j < x.size(); ++j) {
      double lo = std::log(kMinFactor), hi = std::log(j % 2 ? kMaxLatencyFactor : kMaxBandwidthFactor);
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
