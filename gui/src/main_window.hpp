// MainWindow: ringlab-gui's window. The canvas (ClusterScene in a zoomable view), a palette of
// device kinds, a property panel for the selection, a busbw chart, and the actions: new, open,
// save, save as, recent files, undo/redo, delete, automatic layout, collapse hosts, generate,
// simulate/cancel, export the canvas (PNG, SVG) and the chart (PNG). Every edit goes through the
// Editor (undo stack); the window only translates intent.
#pragma once

#include <QMainWindow>
#include <QUndoStack>

#include "cluster_scene.hpp"
#include "document.hpp"
#include "editor.hpp"
#include "plan_job.hpp"
#include "sim_job.hpp"
#include "steps.hpp"

class QAction;
class QComboBox;
class QFormLayout;
class QGraphicsView;
class QLabel;
class QListWidget;
class QMenu;
class QProgressBar;
class QSlider;
class QSpinBox;

namespace ringlab::gui {

class ChartsPanel;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);

  ScenarioDocument& document() { return document_; }
  Editor& editor() { return editor_; }
  QUndoStack& undo_stack() { return stack_; }
  ClusterScene& scene() { return *scene_; }
  ChartsPanel& charts() { return *charts_; }
  SimJob& job() { return job_; }
  PlanJob& plan_job() { return plan_job_; }
  /// Shows a finished plan: its rings on the canvas, its summary in the status line.
  void show_plan(const PlanOutcome& outcome);
  /// Computes the step view of the chosen algorithm (64 MiB) and shows step 0; false when it
  /// does not apply (the status line says why).
  bool show_steps();
  const CollectiveSteps& steps() const { return steps_; }
  void set_step(int step);
  /// The plan's alternative drawn in the A/B view: the declaration order, same channels.
  const std::optional<planner::Plan>& plan_b() const { return plan_b_; }
  ClusterScene& scene_b() { return *scene_b_; }
  /// The plan drawn on the canvas, while the document has not changed since.
  const std::optional<planner::Plan>& plan() const { return plan_; }
  const SimOutcome& last_outcome() const { return outcome_; }

  /// Opens a scenario; on a bad file shows the problem (file, JSON path) and returns false.
  bool open_file(const QString& path, bool interactive = true);
  /// Shows a finished simulation: chart, link utilisation on the canvas, status line.
  void show_outcome(const SimOutcome& outcome);
  /// The algorithm the toolbar's chooser names (ring, tree, nccl, auto, ...).
  std::string algorithm() const;
  /// The problem of the last open_file() that failed.
  QString last_error() const { return last_error_; }
  /// Zooms the canvas to show the whole cluster.
  void fit();

 protected:
  void closeEvent(class QCloseEvent* event) override;

 private:
  void build_actions();
  void build_docks();
  void refresh();
  void update_properties();
  void update_title();
  bool maybe_save();
  bool save_as();
  bool save_to(const QString& path);
  void add_recent(const QString& path);
  void rebuild_recent_menu();
  void report(const QString& error);
  void simulate();
  /// Simulates every algorithm of the toolbar's list in turn; their lines accumulate on the chart.
  void simulate_all();
  void generate();
  void export_canvas();
  void delete_selection();
  void auto_layout();
  void connect_selection();
  void show_step(int step);
  void export_bundle();

  ScenarioDocument document_;
  QUndoStack stack_;
  Editor editor_{document_, stack_};
  ClusterScene* scene_ = nullptr;
  QGraphicsView* view_ = nullptr;
  QListWidget* palette_ = nullptr;
  QFormLayout* properties_ = nullptr;
  ChartsPanel* charts_ = nullptr;
  std::vector<std::string> queued_algorithms_;  ///< "Simulate all": the ones still to run
  QComboBox* algorithm_ = nullptr;
  QSpinBox* plan_channel_ = nullptr;  ///< which planned ring to draw; -1 all
  QProgressBar* progress_ = nullptr;
  QAction* collapse_ = nullptr;
  QAction* cancel_ = nullptr;
  QMenu* recent_ = nullptr;
  QGraphicsView* minimap_ = nullptr;
  // A/B: the same cluster with the scheduler's (declaration) order's rings, beside the plan's.
  ClusterScene* scene_b_ = nullptr;
  QGraphicsView* view_b_ = nullptr;
  QLabel* compare_label_ = nullptr;
  std::optional<planner::Plan> plan_b_;
  SimJob job_;
  SimOutcome outcome_;
  PlanJob plan_job_;
  std::optional<planner::Plan> plan_;
  std::vector<std::string> clipboard_;  ///< device names copied (Ctrl+C), pasted as copies (Ctrl+V)
  CollectiveSteps steps_;
  QSlider* step_slider_ = nullptr;
  QString last_error_;
};

}  // namespace ringlab::gui
