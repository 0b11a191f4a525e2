// Calibration from measurements: the link factors (calibration.hpp) that make predictions of measured
// runs fit them best, with the error before and after on the runs used for the fit and on held-out
// runs. `ringlab calibrate` is this plus files.
//
// The fit: parameters are, per link family that is the bottleneck (most utilised link) of at least one
// run's prediction, the logarithms of a bandwidth and a latency factor (multiplying the base table's).
// Only bottleneck families: links in series on one path cannot be told apart by the path's time (a
// slower PCIe or a slower NIC give the same ring time), so fitting them all would move whichever
// factor the search tries first. The objective is the mean squared
// log ratio of predicted to measured time over the fit runs, plus 1e-4 x the squared logarithms (so a
// factor the runs say nothing about, such as the latency of a link only large messages cross, stays
// at 1 instead of drifting). It is minimised by coordinate descent: golden-section search on one
// parameter at a time in [1/50, 50] (bandwidth) or [1/50, 200] (latency), kSweeps passes over all.
// Golden-section needs no gradient (each evaluation is a full simulation, not differentiable in
// general because max-min sharing switches bottlenecks), is deterministic, and a few dozen simulations
// per parameter are cheap at the cluster sizes validation runs use. Log space makes a factor of 2 too
// fast and 2 too slow equally wrong.
#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

#include "ringlab/sim/calibration_file.hpp"
#include "ringlab/sim/predict.hpp"

namespace ringlab::sim {

struct ErrorSummary {
  int runs = 0;
  double median_abs_error = 0;  ///< median over runs of |predicted - measured| / measured
  double worst_abs_error = 0;
};

struct CalibrationFit {
  CalibrationFile file;                        ///< base + fitted factors (gpus untouched)
  std::vector<LinkFamily> families;            ///< families fitted
  bool nccl_latency_fitted = false;            ///< file.nccl_latency was fitted (--algo nccl)
  ErrorSummary fit_before, fit_after;          ///< on the runs used for the fit
  ErrorSummary held_out_before, held_out_after;  ///< on the held-out runs (runs = 0: none)
  int evaluations = 0;                         ///< simulations of the fit set
};

/// Fits link factors, and under Algorithm::Nccl NCCL's latency table's factors (NcclLatencyFactors),
/// to `measured` (runs with fit[i] true are fitted, the others held out) starting
/// from `base` ("pure" or "nccl"), predicting with `options` (its calibration is replaced during the
/// fit). Precondition: measured.size() == fit.size(), at least one fitted run. Throws InputError
/// (naming `source`) when a run cannot be predicted or no run's prediction moves data over a link.
CalibrationFit fit_calibration(const Topology& topology, std::span<const Result> measured, const std::vector<bool>& fit,
                               const std::string& base, const PredictOptions& options, const std::string& source);

/// |predicted - measured| / measured summarised over the runs with mask[i] == want.
ErrorSummary summarise_errors(std::span<const Result> predicted, std::span<const Result> measured,
                              const std::vector<bool>& mask, bool want);

}  // namespace ringlab::sim
