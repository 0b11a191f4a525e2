// ChartsPanel: the window's charts, one tab each (Qt Charts, plus a drawn Gantt chart):
//   Bus bandwidth         busbw against message size, one line per algorithm simulated (a run of
//                         the same algorithm replaces its line), so runs accumulate into a comparison;
//   Predicted vs measured an nccl-tests output (text or -J JSON) or a ringlab.results file from
//                         ringlab-validate, read with the library's readers, every
//                         run predicted on the cluster (sim::predict_measured, what `ringlab compare`
//                         does), both times against size on log-log axes, median and worst error;
//   Timeline              one collective's ops per rank over time (Result::timeline);
//   Step breakdown        for a scenario with a training job: compute, exposed communication and
//                         overlapped communication of one optimizer step, for the job's strategy and
//                         every alternative the trainer evaluates (sim::run_training, `ringlab train`).
// export_current() writes the visible tab as PNG or SVG.
#pragma once

#include <QTabWidget>

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ringlab/sim/compare.hpp"
#include "ringlab/sim/result.hpp"
#include "ringlab/topology/scenario.hpp"
#include "sim_job.hpp"

class QChartView;
class QGraphicsScene;
class QGraphicsView;
class QLabel;

namespace ringlab::gui {

class ChartsPanel : public QTabWidget {
  Q_OBJECT

 public:
  enum Tab { kBusbw, kMeasured, kTimeline, kBreakdown };
  /// Timelines draw at most this many ranks (the first ones) and say so.
  static constexpr int kTimelineRanks = 64;

  explicit ChartsPanel(QWidget* parent = nullptr);

  /// Adds the outcome's busbw line, replacing an earlier line of the same algorithm.
  void add_outcome(const SimOutcome& outcome);
  void clear();
  /// Lines on the busbw chart, by algorithm.
  const std::map<std::string, std::vector<SimPoint>>& lines() const { return lines_; }

  /// Reads `path` (nccl-tests text or -J JSON, or ringlab.results), predicts every run on `cluster` with `algorithm`
  /// (pure calibration, nccl's for "nccl") and plots both. On a bad file returns nullopt and the
  /// reader's message (naming the file) in `error`; the tab keeps what it showed.
  std::optional<sim::Comparison> open_measured(const QString& path, const Topology& cluster,
                                               const std::string& algorithm, QString* error);

  /// Simulates one allreduce of `size` with its timeline and draws it: a row per rank (up to
  /// kTimelineRanks), a bar per op coloured by kind (send, recv, reduce, other). Returns the Result
  /// drawn, or nullopt with the reason in `error`.
  std::optional<sim::Result> show_timeline(const Topology& cluster, const std::string& algorithm, Bytes size,
                                           QString* error);
  int timeline_rows() const { return timeline_rows_; }
  /// Right end of the last bar drawn, in microseconds.
  double timeline_end_us() const { return timeline_end_us_; }

  /// Runs the scenario's training job (sim::run_training) and draws the step breakdown per strategy.
  /// Returns the number of strategies drawn; 0 with the reason in `error` (no workload, a strategy
  /// that cannot run).
  int show_breakdown(const Scenario& scenario, QString* error);
  /// The bars drawn: per strategy name, (compute, exposed, overlap) in milliseconds.
  const std::map<std::string, std::array<double, 3>>& breakdown() const { return breakdown_; }

  /// Writes the current tab to `path`: SVG by extension ".svg", else PNG. False when not written.
  bool export_current(const QString& path);

 private:
  void redraw_busbw();

  QChartView* busbw_ = nullptr;
  QChartView* measured_ = nullptr;
  QLabel* measured_label_ = nullptr;
  QGraphicsScene* timeline_scene_ = nullptr;
  QGraphicsView* timeline_view_ = nullptr;
  QLabel* timeline_label_ = nullptr;
  QChartView* breakdown_view_ = nullptr;
  QLabel* breakdown_label_ = nullptr;
  std::map<std::string, std::array<double, 3>> breakdown_;
  std::map<std::string, std::vector<SimPoint>> lines_;
  int timeline_rows_ = 0;
  double timeline_end_us_ = 0;
};

}  // namespace ringlab::gui
