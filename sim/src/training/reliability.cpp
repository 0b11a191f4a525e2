// Start-up, failure and checkpoint model (see reliability.hpp for the formulas and their sources).
#include "ringlab/sim/reliability.hpp"

#include <array>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace ringlab::sim {
namespace {

// Start-up constants. Assumptions, not measurements: ~10 s to launch processes, create CUDA
// contexts and import the framework; 5 ms per rank for NCCL's bootstrap all-gather and connection
// set-up (linear in ranks, e.g. ~40 s at 8192 ranks). Override with "startup" in the train section.
constexpr double kStartupBaseSeconds = 10.0;
constexpr double kStartupPerRankSeconds = 5e-3;

// Golden-section search for the best interval: bracket [C/1000, 10 M], to a relative 1e-9.
constexpr double kGoldenRatio = 0.6180339887498949;
constexpr double kSearchTolerance = 1e-9;
constexpr int kSearchIterations = 200;

constexpr std::array<std::pair<std::string_view, double>, 9> kLongTimeUnits{{
    {"ps", 1e-12}, {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0},
    {"min", 60.0}, {"h", 3600.0}, {"d", 86400.0}, {"days", 86400.0},
}};

}  // namespace

StartupModel StartupModel::defaults() { return {kStartupBaseSeconds, kStartupPerRankSeconds}; }

double young_interval(double checkpoint_s, double mtbf_s) { return std::sqrt(2.0 * checkpoint_s * mtbf_s); }

double daly_interval(double checkpoint_s, double mtbf_s) {
  if (checkpoint_s >= 2.0 * mtbf_s) return mtbf_s;
  const double x = checkpoint_s / (2.0 * mtbf_s);
  return young_interval(checkpoint_s, mtbf_s) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - checkpoint_s;
}

double daly_wall_time(double solve_s, double interval_s, double checkpoint_s, double restart_s, double mtbf_s) {
  return mtbf_s * std::exp(restart_s / mtbf_s) * std::expm1((interval_s + checkpoint_s) / mtbf_s) * solve_s /
         interval_s;
}

double goodput(double interval_s, double checkpoint_s, double restart_s, double mtbf_s) {
  return 1.0 / daly_wall_time(1.0, interval_s, checkpoint_s, restart_s, mtbf_s);
}

double best_interval(double checkpoint_s, double restart_s, double mtbf_s) {
  double lo = std::max(checkpoint_s, 1e-9) * 1e-3;
  double hi = 10.0 * mtbf_s;
  auto f = [&](double tau) { return goodput(tau, checkpoint_s, restart_s, mtbf_s); };
  double a = hi - kGoldenRatio * (hi - lo);
  double b = lo + kGoldenRatio * (hi - lo);
  double fa = f(a);
  double fb = f(b);
  for (int i = 0; i < kSearchIterations && hi - lo > kSearchTolerance * hi; ++i) {
    if (fa < fb) {
      lo = a;
      a = b;
      fa = fb;
      b = lo + kGoldenRatio * (hi - lo);
      fb = f(b);
    } else {
      hi = b;
      b = a;
      fb = fa;
      a = hi - kGoldenRatio * (hi - lo);
      fa = f(a);
    }
  }
  return 0.5 * (lo + hi);
}

ReliabilityResult evaluate_reliability(const Reliability& r, int nodes, int ranks) {
  ReliabilityResult out;
  out.nodes = nodes;
  out.startup_s = r.startup.seconds(ranks);
  if (r.node_mtbf_s <= 0 || nodes <= 0) return out;
  const double m = r.node_mtbf_s / double(nodes);
  out.system_mtbf_s = m;
  if (r.checkpoint_s <= 0) {
    // Free checkpoints: checkpoint continuously; only the restarts cost.
    out.goodput = std::exp(-r.restart_s / m);
    return out;
  }
  out.young_interval_s = young_interval(r.checkpoint_s, m);
  out.daly_interval_s = daly_interval(r.checkpoint_s, m);
  out.best_interval_s = best_interval(r.checkpoint_s, r.restart_s, m);
  out.interval_s = r.interval_s > 0 ? r.interval_s : out.best_interval_s;
  out.goodput = goodput(out.interval_s, r.checkpoint_s, r.restart_s, m);
  return out;
}

double parse_long_duration(std::string_view text) {
  const std::string s(text);
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(s, &used);
  } catch (const std::exception&) {
    throw std::invalid_argument("expected a duration such as \"50000h\", \"90min\" or \"30s\", got \"" + s + "\"");
  }
  std::string unit = s.substr(used);
  while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  if (!(value >= 0) || !std::isfinite(value))
    throw std::invalid_argument("expected a non-negative duration, got \"" + s + "\"");
  if (unit.empty() && value == 0) return 0;
  for (const auto& [name, scale] : kLongTimeUnits)
    if (unit == name) return value * scale;
  throw std::invalid_argument("unknown or missing time unit in \"" + s + "\": expected ps, ns, us, ms, s, min, h or d");
}

}  // namespace ringlab::sim
