// PlanJob: runs the planner (planner::make_plan, what `ringlab plan` runs) for the window, off the
// GUI thread; the result is drawn on the canvas as the planned ring order (ClusterScene::set_plan).
#pragma once

#include <QObject>

#include <memory>
#include <optional>
#include <string>

#include "ringlab/planner/planner.hpp"
#include "ringlab/topology/scenario.hpp"

namespace ringlab::gui {

struct PlanOutcome {
  std::optional<planner::PlanReport> report;
  std::string error;  ///< why there is no plan
};

class PlanJob : public QObject {
  Q_OBJECT

 public:
  explicit PlanJob(QObject* parent = nullptr);
  ~PlanJob() override;

  /// Plans `scenario` (all GPUs, all-reduce of the default or the training job's message);
  /// synchronous. The window's searches stop after `time_limit_seconds` (0: none).
  static PlanOutcome run(const Scenario& scenario, double time_limit_seconds = 0);
  /// Starts run() on a worker thread with a copy of the scenario; false while one is running.
  bool start(const Scenario& scenario, double time_limit_seconds);
  bool running() const { return running_; }
  void wait();

 signals:
  void finished(ringlab::gui::PlanOutcome outcome);

 private:
  bool running_ = false;
  std::unique_ptr<class QThread> thread_;
};

}  // namespace ringlab::gui

Q_DECLARE_METATYPE(ringlab::gui::PlanOutcome)
