// compare(predicted, measured): how far predictions are from measurements, as a pure function of two
// sets of Results (a simulation's and a validation run's, or a published nccl-tests run's).
//
// Rows are matched on (collective, message bytes, dtype): the first unmatched measured row with that
// point pairs with each predicted row, in input order. A matched pair whose algorithm, protocol,
// channel count or rank-order digest differ is kept and carries a note saying so (a prediction of a
// different configuration is still worth seeing, but not silently). The measured time is the median
// iteration when iterations are given, else Result::time. Error = (predicted - measured) / measured:
// positive when the prediction is slower than reality.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringlab/sim/result.hpp"

namespace ringlab::sim {

struct ComparedRow {
  Collective collective = Collective::AllReduce;
  Bytes message;
  std::string dtype;
  Duration predicted;
  Duration measured;
  double error = 0;                ///< (predicted - measured) / measured; 0 when both are 0
  Bandwidth predicted_busbw;
  Bandwidth measured_busbw;
  std::optional<std::int64_t> wrong;  ///< the measured row's #wrong
  std::vector<std::string> notes;     ///< configuration differences, wrong results
  /// The prediction's Result::nccl_model (NCCL's own tuning model) and its error against the
  /// measurement, as `error`; empty unless the prediction ran Algorithm::Nccl.
  std::optional<Duration> nccl_model;
  std::optional<double> nccl_model_error;
};

struct Comparison {
  std::vector<ComparedRow> rows;           ///< matched pairs, in predicted order
  double median_abs_error = 0;             ///< median of |error| over rows (0 when none)
  double worst_abs_error = 0;              ///< largest |error|
  std::optional<std::size_t> worst;        ///< index in rows of the largest |error|
  std::vector<Result> unmatched_predicted;
  std::vector<Result> unmatched_measured;
  /// Rows whose measurement names the algorithm NCCL logged ("nccl:..."; read_nccl_tests_text), and
  /// how many of them the prediction names alike.
  std::size_t choices_logged = 0;
  std::size_t choices_as_predicted = 0;
  /// Median |nccl_model_error| over the rows that have one, and how many do (0: none).
  double nccl_model_median_abs_error = 0;
  std::size_t nccl_model_rows = 0;
  /// The largest ResultSource::gpus_per_thread among the matched measurements (0: unknown). Above 1,
  /// one host thread launched every call on that many GPUs (nccl-tests -g), a host cost no
  /// prediction holds: the table and JSON say so.
  int measured_gpus_per_thread = 0;
};

/// The measured time of a Result: its median iteration when it has iterations, else its time.
Duration measured_time(const Result& measured);

Comparison compare(std::span<const Result> predicted, std::span<const Result> measured);

/// nccl-tests-like table: size, type, predicted and measured time (us) and busbw (GB/s), error (%),
/// notes; then the summary (median and worst |error|, unmatched rows).
void write_comparison_table(std::ostream& out, const Comparison& comparison);
/// An SVG plot of the comparison: time (us) against message size (bytes), both on log scales, one
/// line with markers for the predictions and one for the measurements per collective, with axes,
/// labelled ticks, a legend and `title`. Deterministic (fixed precision).
void write_comparison_svg(std::ostream& out, const Comparison& comparison, const std::string& title);

/// The comparison's JSON schema name and version (docs/report-formats.md).
inline constexpr std::string_view kComparisonSchema = "ringlab.comparison";
inline constexpr int kComparisonVersion = 1;

/// The comparison as JSON: {"schema": "ringlab.comparison", "version": 1, "rows": [...],
/// "median_abs_error", "worst_abs_error", "worst_row", "unmatched_predicted", "unmatched_measured",
/// "nccl_choices": {"logged", "as_predicted"}} (unmatched rows as {collective, message_bytes, dtype}),
/// and "measured_gpus_per_thread" when it is known.
nlohmann::ordered_json to_json(const Comparison& comparison);

}  // namespace ringlab::sim
