// MainWindow: actions, docks and the wiring between document, scene and simulation
// (see main_window.hpp).
#include "main_window.hpp"

#include <QAction>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGraphicsView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QLegendMarker>
#include <QLineSeries>
#include <QListWidget>
#include <QLogValueAxis>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QProgressBar>
#include <QScatterSeries>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QStatusBar>
#include <QSvgGenerator>
#include <QToolBar>
#include <QValueAxis>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <cmath>
#include <cstring>
#include <cstdlib>

#include "charts_panel.hpp"
#include "generator_dialog.hpp"
#include "layout.hpp"
#include "ringlab/planner/bundle.hpp"
#include "ringlab/topology/error.hpp"
#include "ringlab/topology/kinds.hpp"

namespace ringlab::gui {
namespace {

/// The canvas: wheel zooms about the cursor, middle button pans, left button selects (rubber band).
class CanvasView : public QGraphicsView {
 public:
  using QGraphicsView::QGraphicsView;

 protected:
  void wheelEvent(QWheelEvent* event) override {
    const double factor = std::pow(1.0015, event->angleDelta().y());
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    scale(factor, factor);
  }
  void mousePressEvent(QMouseEvent* event) override {
    if (event->button() == Qt::MiddleButton) setDragMode(QGraphicsView::ScrollHandDrag);
    QGraphicsView::mousePressEvent(event);
  }
  void mouseReleaseEvent(QMouseEvent* event) override {
    QGraphicsView::mouseReleaseEvent(event);
    setDragMode(QGraphicsView::RubberBandDrag);
  }
};

constexpr int kRecentFiles = 8;

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  scene_ = new ClusterScene(this);
  view_ = new CanvasView(scene_, this);
  view_->setDragMode(QGraphicsView::RubberBandDrag);
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
  setCentralWidget(view_);
  build_actions();
  build_docks();
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 100);
  progress_->setMaximumWidth(200);
  progress_->hide();
  statusBar()->addPermanentWidget(progress_);

  connect(&document_, &ScenarioDocument::changed, this, [this] {
    plan_.reset();  // planned for the previous cluster
    plan_b_.reset();
    refresh();
  });
  connect(scene_, &ClusterScene::host_toggled, this, [this] { refresh(); });
  connect(&plan_job_, &PlanJob::finished, this, [this](const PlanOutcome& outcome) {
    progress_->hide();
    show_plan(outcome);
  });
  connect(&stack_, &QUndoStack::cleanChanged, this, &MainWindow::update_title);
  connect(scene_, &ClusterScene::devices_moved, this, [this](std::vector<std::string> names, QPointF delta) {
    report(editor_.move(names, delta));
  });
  connect(scene_, &QGraphicsScene::selectionChanged, this, &MainWindow::update_properties);
  connect(&job_, &SimJob::progress, progress_, &QProgressBar::setValue);
  connect(&job_, &SimJob::finished, this, [this](const SimOutcome& outcome) {
    progress_->hide();
    cancel_->setEnabled(false);
    show_outcome(outcome);
    if (outcome.cancelled) queued_algorithms_.clear();
    if (!queued_algorithms_.empty()) simulate_all();
  });
  refresh();
  update_title();
  resize(1280, 800);
}

void MainWindow::build_actions() {
  QMenu* file = menuBar()->addMenu("&File");
  QToolBar* bar = addToolBar("Main");
  bar->setObjectName("main-toolbar");
  auto action = [&](QMenu* menu, const QString& text, QKeySequence key, auto slot) {
    QAction* a = menu->addAction(text);
    if (!key.isEmpty()) a->setShortcut(key);
    connect(a, &QAction::triggered, this, slot);
    return a;
  };
  action(file, "&New", QKeySequence::New, [this] {
    if (!maybe_save()) return;
    document_.reset();
    stack_.clear();
  });
  action(file, "&Open...", QKeySequence::Open, [this] {
    if (!maybe_save()) return;
    const QString path = QFileDialog::getOpenFileName(this, "Open scenario", {}, "Scenarios (*.json);;All files (*)");
    if (!path.isEmpty()) open_file(path);
  });
  recent_ = file->addMenu("Open &recent");
  rebuild_recent_menu();
  action(file, "&Save", QKeySequence::Save, [this] { document_.path().isEmpty() ? save_as() : save_to(document_.path()); });
  action(file, "Save &as...", QKeySequence::SaveAs, [this] { save_as(); });
  action(file, "&Export canvas...", QKeySequence(), [this] { export_canvas(); });
  action(file, "Export launch &bundle...", QKeySequence(), [this] { export_bundle(); });
  action(file, "Export c&hart...", QKeySequence(), [this] {
    const QString path = QFileDialog::getSaveFileName(this, "Export chart", {}, "PNG (*.png);;SVG (*.svg)");
    if (!path.isEmpty() && !charts_->export_current(path)) QMessageBox::warning(this, "Cannot export", "could not write " + path);
  });
  action(file, "Compare with &measurements...", QKeySequence(), [this] {
    const QString path = QFileDialog::getOpenFileName(this, "nccl-tests output (text or -J JSON)");
    if (path.isEmpty()) return;
    QString error;
    if (!charts_->open_measured(path, document_.cluster(), algorithm(), &error)) report(error);
  });
  file->addSeparator();
  action(file, "&Quit", QKeySequence::Quit, [this] { close(); });

  QMenu* edit = menuBar()->addMenu("&Edit");
  QAction* undo = stack_.createUndoAction(this, "&Undo");
  undo->setShortcut(QKeySequence::Undo);
  QAction* redo = stack_.createRedoAction(this, "&Redo");
  redo->setShortcut(QKeySequence::Redo);
  edit->addAction(undo);
  edit->addAction(redo);
  action(edit, "&Delete", QKeySequence::Delete, [this] { delete_selection(); });
  action(edit, "Select &all", QKeySequence::SelectAll, [this] {
    for (QGraphicsItem* item : scene_->items()) item->setSelected(true);
  });
  action(edit, "&Generate cluster...", QKeySequence("Ctrl+G"), [this] { generate(); });
  action(edit, "&Connect selected devices...", QKeySequence("Ctrl+K"), [this] { connect_selection(); });
  action(edit, "&Copy", QKeySequence::Copy, [this] { clipboard_ = scene_->selected_devices(); });
  action(edit, "&Paste", QKeySequence::Paste, [this] {
    if (!clipboard_.empty()) report(editor_.paste(clipboard_, QPointF(40, 40)));
  });

  QMenu* view = menuBar()->addMenu("&View");
  action(view, "Zoom to &fit", QKeySequence("Ctrl+0"), [this] { fit(); });
  action(view, "&Automatic layout", QKeySequence("Ctrl+L"), [this] { auto_layout(); });
  action(view, "Step &breakdown", QKeySequence("Ctrl+B"), [this] {
    QString error;
    if (charts_->show_breakdown(document_.scenario(), &error) == 0) report(error);
  });
  action(view, "&Timeline (16 MiB)", QKeySequence("Ctrl+T"), [this] {
    QString error;
    if (!charts_->show_timeline(document_.cluster(), algorithm(), Bytes{std::int64_t(16) << 20}, &error)) report(error);
  });
  collapse_ = view->addAction("&Collapse hosts");
  collapse_->setCheckable(true);
  connect(collapse_, &QAction::toggled, this, [this] { refresh(); });
  QAction* racks = view->addAction("Collapse &racks");
  racks->setCheckable(true);
  connect(racks, &QAction::toggled, this, [this](bool on) {
    scene_->set_collapse_racks(on);
    scene_b_->set_collapse_racks(on);
    refresh();
  });
  QMenu* layers = view->addMenu("&Layers");
  const std::pair<const char*, ClusterScene::Layer> kLayers[] = {
      {"Links", ClusterScene::Layer::Links}, {"Devices", ClusterScene::Layer::Devices}, {"Labels", ClusterScene::Layer::Labels},
      {"Overlays", ClusterScene::Layer::Overlays}};
  for (const auto& [name, layer] : kLayers) {
    QAction* a = layers->addAction(name);
    a->setCheckable(true);
    a->setChecked(true);
    connect(a, &QAction::toggled, this, [this, layer = layer](bool on) { scene_->set_layer_visible(layer, on); });
  }

  bar->addAction(undo);
  bar->addAction(redo);
  bar->addSeparator();
  algorithm_ = new QComboBox(this);
  algorithm_->addItems({"ring", "tree", "hierarchical", "halving_doubling", "nccl", "auto"});
  algorithm_->setToolTip("Algorithm to simulate (as --algo)");
  bar->addWidget(algorithm_);
  QAction* run = bar->addAction("Simulate");
  run->setShortcut(QKeySequence("Ctrl+R"));
  connect(run, &QAction::triggered, this, [this] { simulate(); });
  QAction* all = bar->addAction("All");
  all->setToolTip("Simulate every algorithm of the list in turn (a sweep over algorithms); lines accumulate");
  connect(all, &QAction::triggered, this, [this] {
    queued_algorithms_.clear();
    for (int i = 0; i < algorithm_->count(); ++i) queued_algorithms_.push_back(algorithm_->itemText(i).toStdString());
    simulate_all();
  });
  QAction* plan = bar->addAction("Plan");
  plan->setToolTip("Plan the rank order (what `ringlab plan` does) and draw its rings on the canvas");
  connect(plan, &QAction::triggered, this, [this] {
    if (!plan_job_.start(document_.scenario(), 20.0)) return;
    progress_->setRange(0, 0);  // busy: the planner reports no progress
    progress_->show();
    statusBar()->showMessage("Planning...");
  });
  QAction* steps = bar->addAction("Steps");
  steps->setToolTip("Step through the chosen algorithm's steps (64 MiB) and see which links each uses");
  connect(steps, &QAction::triggered, this, [this] { show_steps(); });
  step_slider_ = new QSlider(Qt::Horizontal, this);
  step_slider_->setMaximumWidth(180);
  step_slider_->setEnabled(false);
  connect(step_slider_, &QSlider::valueChanged, this, [this](int step) { show_step(step); });
  bar->addWidget(step_slider_);
  action(view, "Next step", QKeySequence("Alt+Right"), [this] { step_slider_->setValue(step_slider_->value() + 1); });
  action(view, "Previous step", QKeySequence("Alt+Left"), [this] { step_slider_->setValue(step_slider_->value() - 1); });
  plan_channel_ = new QSpinBox(this);
  plan_channel_->setRange(-1, 63);
  plan_channel_->setValue(0);
  plan_channel_->setSpecialValueText("all rings");
  plan_channel_->setPrefix("ring ");
  plan_channel_->setToolTip("Which channel's planned ring the canvas shows");
  connect(plan_channel_, &QSpinBox::valueChanged, this, [this] {
    if (plan_) scene_->set_plan(&*plan_, document_.cluster(), plan_channel_->value());
    if (plan_b_) scene_b_->set_plan(&*plan_b_, document_.cluster(), plan_channel_->value());
  });
  bar->addWidget(plan_channel_);
  cancel_ = bar->addAction("Cancel");
  cancel_->setEnabled(false);
  connect(cancel_, &QAction::triggered, this, [this] { job_.cancel(); });
}

void MainWindow::build_docks() {
  auto dock = [&](const QString& title, QWidget* widget, Qt::DockWidgetArea area) {
    auto* d = new QDockWidget(title, this);
    d->setObjectName(title);
    d->setWidget(widget);
    addDockWidget(area, d);
  };
  palette_ = new QListWidget(this);
  for (int k = 0; k < kDeviceKindCount; ++k) palette_->addItem(QString::fromStdString(std::string(to_string(DeviceKind(k)))));
  palette_->setToolTip("Double-click: add a device of this kind (inside the selected device's host for host devices)");
  connect(palette_, &QListWidget::itemDoubleClicked, this, [this](QListWidgetItem* item) {
    const std::string kind = item->text().toStdString();
    std::string host;
    const auto selected = scene_->selected_devices();
    if (!selected.empty())
      if (const auto d = document_.cluster().find_device(selected.front()))
        if (document_.cluster().device(*d).host != kNoHost)
          host = document_.cluster().host(document_.cluster().device(*d).host).name;
    report(editor_.add_device(kind, host));
  });
  dock("Palette", palette_, Qt::LeftDockWidgetArea);

  auto* panel = new QWidget(this);
  properties_ = new QFormLayout(panel);
  dock("Properties", panel, Qt::LeftDockWidgetArea);

  minimap_ = new QGraphicsView(scene_, this);
  minimap_->setInteractive(false);
  minimap_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  minimap_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  minimap_->setMinimumHeight(140);
  dock("Overview", minimap_, Qt::LeftDockWidgetArea);

  auto* compare = new QWidget(this);
  auto* compare_layout = new QVBoxLayout(compare);
  compare_label_ = new QLabel("Plan first: B is the declaration order's rings, A (the canvas) the plan's", compare);
  compare_label_->setWordWrap(true);
  scene_b_ = new ClusterScene(this);
  view_b_ = new CanvasView(scene_b_, compare);
  view_b_->setInteractive(false);
  compare_layout->addWidget(compare_label_);
  compare_layout->addWidget(view_b_);
  dock("B: declaration order", compare, Qt::RightDockWidgetArea);

  charts_ = new ChartsPanel(this);
  charts_->setMinimumHeight(240);
  dock("Charts", charts_, Qt::BottomDockWidgetArea);
}

void MainWindow::refresh() {
  const bool collapse = collapse_->isChecked() || document_.cluster().host_count() > ClusterScene::kCollapseHosts;
  scene_->rebuild(document_, collapse);
  if (outcome_.utilisation.size() == document_.cluster().link_count()) scene_->set_utilisation(outcome_.utilisation, outcome_.bottlenecks);
  if (plan_) scene_->set_plan(&*plan_, document_.cluster(), plan_channel_->value());
  minimap_->fitInView(scene_->itemsBoundingRect(), Qt::KeepAspectRatio);
  scene_b_->rebuild(document_, collapse);
  if (plan_b_) scene_b_->set_plan(&*plan_b_, document_.cluster(), plan_channel_->value());
  view_b_->fitInView(scene_b_->itemsBoundingRect(), Qt::KeepAspectRatio);
  update_properties();
  update_title();
}

void MainWindow::update_properties() {
  while (properties_->rowCount() > 0) properties_->removeRow(0);
  const Topology& t = document_.cluster();
  const auto selected = scene_->selected_devices();
  if (const auto link = scene_->selected_link(); link && selected.empty()) {
    const Link& l = t.link(*link);
    const std::string name = t.device(l.a).name + "--" + t.device(l.b).name;
    properties_->addRow("Link", new QLabel(QString::fromStdString(name)));
    properties_->addRow("Kind", new QLabel(QString::fromStdString(std::string(to_string(l.kind)))));
    properties_->addRow("Lanes", new QLabel(QString::number(l.lanes)));
    properties_->addRow("Latency", new QLabel(QString::fromStdString(to_string(l.latency))));
    properties_->addRow("Overhead", new QLabel(QString::fromStdString(to_string(l.overhead))));
    // A hand-added link's bandwidth is editable (a unit string, as in the scenario file).
    const std::string pointer = editor_.pointer_of(name);
    auto* bandwidth = new QLineEdit(QString::fromStdString(to_string(l.bandwidth)), properties_->parentWidget());
    bandwidth->setEnabled(!pointer.empty());
    connect(bandwidth, &QLineEdit::editingFinished, this, [this, pointer, bandwidth] {
      report(editor_.set_field(pointer + "/bandwidth", bandwidth->text().toStdString()));
    });
    properties_->addRow("Bandwidth", bandwidth);
    properties_->addRow("Defined", new QLabel(pointer.empty() ? "by a generator" : "by hand"));
    return;
  }
  if (selected.empty()) {
    properties_->addRow("Scenario", new QLabel(QString::fromStdString(document_.scenario().name)));
    properties_->addRow("GPUs", new QLabel(QString::number(t.gpus().size())));
    properties_->addRow("Hosts", new QLabel(QString::number(t.host_count())));
    properties_->addRow("Devices", new QLabel(QString::number(t.device_count())));
    properties_->addRow("Links", new QLabel(QString::number(t.link_count())));
    return;
  }
  if (selected.size() > 1) {
    properties_->addRow("Selected", new QLabel(QString("%1 devices").arg(selected.size())));
    return;
  }
  const auto id = t.find_device(selected.front());
  if (!id) return;
  const Device& d = t.device(*id);
  properties_->addRow("Name", new QLabel(QString::fromStdString(d.name)));
  properties_->addRow("Kind", new QLabel(QString::fromStdString(std::string(to_string(d.kind)))));
  if (d.host != kNoHost) properties_->addRow("Host", new QLabel(QString::fromStdString(t.host(d.host).name)));
  const std::string pointer = editor_.pointer_of(d.name);
  if (d.kind == DeviceKind::Gpu) {
    // A hand-added GPU's model can be changed here (an undoable edit); a generated one's comes
    // from its node template.
    auto* model = new QComboBox(properties_->parentWidget());
    for (int m = 0; m < kGpuModelCount; ++m) model->addItem(QString::fromStdString(std::string(to_string(GpuModel(m)))));
    model->setCurrentIndex(int(d.gpu_model));
    model->setEnabled(!pointer.empty());
    connect(model, &QComboBox::currentTextChanged, this, [this, pointer](const QString& text) {
      report(editor_.set_field(pointer + "/gpu_model", text.toStdString()));
    });
    properties_->addRow("GPU model", model);
  }
  properties_->addRow("Defined", new QLabel(pointer.empty() ? "by a generator" : "by hand"));
  for (const Adjacency& a : t.neighbors(*id)) {
    const Link& l = t.link(a.link);
    properties_->addRow(QString::fromStdString(t.device(a.peer).name),
                        new QLabel(QString("%1, %2 Gb/s").arg(QString::fromStdString(std::string(to_string(l.kind))))
                                       .arg(l.bandwidth.bits_per_second() / 1e9)));
  }
}

void MainWindow::update_title() {
  const QString name = document_.path().isEmpty() ? "untitled" : QFileInfo(document_.path()).fileName();
  setWindowTitle(QString("%1%2 - ringlab").arg(name, stack_.isClean() ? "" : " *"));
}

bool MainWindow::open_file(const QString& path, bool interactive) {
  try {
    document_.load(path);
  } catch (const InputError& e) {
    last_error_ = e.what();
    if (interactive) QMessageBox::warning(this, "Cannot open scenario", last_error_);
    statusBar()->showMessage(last_error_);
    return false;
  }
  stack_.clear();
  outcome_ = SimOutcome{};
  add_recent(path);
  refresh();
  fit();
  return true;
}

void MainWindow::fit() {
  view_->fitInView(scene_->itemsBoundingRect(), Qt::KeepAspectRatio);
  view_b_->fitInView(scene_b_->itemsBoundingRect(), Qt::KeepAspectRatio);
  minimap_->fitInView(scene_->itemsBoundingRect(), Qt::KeepAspectRatio);
}

bool MainWindow::maybe_save() {
  if (stack_.isClean()) return true;
  const auto answer = QMessageBox::question(this, "Unsaved changes", "Save the changes to this scenario?",
                                            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
  if (answer == QMessageBox::Cancel) return false;
  if (answer == QMessageBox::Discard) return true;
  return document_.path().isEmpty() ? save_as() : save_to(document_.path());
}

bool MainWindow::save_as() {
  const QString path = QFileDialog::getSaveFileName(this, "Save scenario", document_.path(), "Scenarios (*.json)");
  return !path.isEmpty() && save_to(path);
}

bool MainWindow::save_to(const QString& path) {
  try {
    document_.save(path);
  } catch (const std::exception& e) {
    QMessageBox::warning(this, "Cannot save", e.what());
    return false;
  }
  stack_.setClean();
  add_recent(path);
  update_title();
  return true;
}

void MainWindow::add_recent(const QString& path) {
  QSettings settings("ringlab", "ringlab-gui");
  QStringList files = settings.value("recent").toStringList();
  files.removeAll(path);
  files.prepend(path);
  while (files.size() > kRecentFiles) files.removeLast();
  settings.setValue("recent", files);
  rebuild_recent_menu();
}

void MainWindow::rebuild_recent_menu() {
  recent_->clear();
  const QStringList files = QSettings("ringlab", "ringlab-gui").value("recent").toStringList();
  for (const QString& f : files)
    connect(recent_->addAction(f), &QAction::triggered, this, [this, f] {
      if (maybe_save()) open_file(f);
    });
  recent_->setEnabled(!files.isEmpty());
}

void MainWindow::report(const QString& error) {
  if (error.isEmpty()) return;
  statusBar()->showMessage(error, 10000);
  // A problem that names an explicit device or link by JSON pointer selects it.
  const std::string text = error.toStdString();
  for (const char* key : {"/cluster/devices/", "/cluster/links/"}) {
    const auto at = text.find(key);
    if (at == std::string::npos) continue;
    const std::size_t index = std::strtoul(text.c_str() + at + std::strlen(key), nullptr, 10);
    const nlohmann::json& items = document_.json()["cluster"].value(std::string(key).substr(9, std::strlen(key) - 10),
                                                                   nlohmann::json::array());
    if (index < items.size() && items[index].contains("name")) scene_->select_named(items[index]["name"]);
  }
}

std::string MainWindow::algorithm() const { return algorithm_->currentText().toStdString(); }

void MainWindow::simulate() {
  if (!job_.start(document_.cluster(), algorithm(), SimJob::default_sizes())) return;
  progress_->setValue(0);
  progress_->show();
  cancel_->setEnabled(true);
  statusBar()->showMessage("Simulating...");
}

void MainWindow::simulate_all() {
  if (queued_algorithms_.empty() || job_.running()) return;
  const std::string next = queued_algorithms_.front();
  queued_algorithms_.erase(queued_algorithms_.begin());
  job_.start(document_.cluster(), next, SimJob::default_sizes());
  progress_->setRange(0, 100);
  progress_->show();
  cancel_->setEnabled(true);
  statusBar()->showMessage(QString("Simulating %1...").arg(QString::fromStdString(next)));
}

void MainWindow::show_outcome(const SimOutcome& outcome) {
  outcome_ = outcome;
  charts_->add_outcome(outcome);
  if (outcome.utilisation.size() == document_.cluster().link_count()) scene_->set_utilisation(outcome.utilisation, outcome.bottlenecks);
  if (outcome.cancelled)
    statusBar()->showMessage("Simulation cancelled");
  else if (!outcome.points.empty())
    statusBar()->showMessage(QString("%1 at %2: %3 GB/s busbw, %4 us")
                                 .arg(QString::fromStdString(outcome.points.back().algorithm))
                                 .arg(QString::fromStdString(to_string(outcome.points.back().size)))
                                 .arg(outcome.points.back().busbw_gbps, 0, 'f', 2)
                                 .arg(outcome.points.back().time_us, 0, 'f', 1));
  else
    statusBar()->showMessage(QString::fromStdString(outcome.error));
}

void MainWindow::generate() {
  GeneratorDialog dialog(this);
  if (dialog.exec() != QDialog::Accepted) return;
  outcome_ = SimOutcome{};
  report(editor_.generate(dialog.value()));
  fit();
}

void MainWindow::export_canvas() {
  const QString path = QFileDialog::getSaveFileName(this, "Export canvas", {}, "PNG (*.png);;SVG (*.svg)");
  if (path.isEmpty()) return;
  const QRectF area = scene_->itemsBoundingRect().adjusted(-20, -20, 20, 20);
  if (path.endsWith(".svg", Qt::CaseInsensitive)) {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(area.size().toSize());
    svg.setViewBox(QRectF(QPointF(), area.size()));
    QPainter painter(&svg);
    scene_->render(&painter, QRectF(QPointF(), area.size()), area);
    return;
  }
  QImage image(area.size().toSize() * 2, QImage::Format_ARGB32);
  image.fill(Qt::white);
  QPainter painter(&image);
  painter.setRenderHint(QPainter::Antialiasing);
  scene_->render(&painter, QRectF(QPointF(), QSizeF(image.size())), area);
  painter.end();
  if (!image.save(path)) QMessageBox::warning(this, "Cannot export", "could not write " + path);
}

void MainWindow::show_plan(const PlanOutcome& outcome) {
  progress_->setRange(0, 100);
  if (!outcome.report) {
    plan_.reset();
    scene_->set_plan(nullptr, document_.cluster());
    statusBar()->showMessage(QString::fromStdString("No plan: " + outcome.error));
    return;
  }
  plan_ = outcome.report->plan;
  scene_->set_plan(&*plan_, document_.cluster(), plan_channel_->value());
  // B: the order the scheduler would give (declaration order), with the plan's channel count.
  const sim::RankOrder declared = sim::declaration_order(document_.cluster(), plan_->ranks());
  plan_b_.reset();
  try {
    planner::Plan b = *plan_;
    b.order = declared;
    b.hosts = planner::host_plans(document_.cluster(), declared, plan_->channels, plan_->ecmp);
    plan_b_ = std::move(b);
    scene_b_->set_plan(&*plan_b_, document_.cluster(), plan_channel_->value());
  } catch (const std::invalid_argument&) {
    scene_b_->set_plan(nullptr, document_.cluster());
  }
  QString times;
  const std::string digest = declared.digest(document_.cluster());
  for (const auto& o : outcome.report->orders)
    if (o.digest == digest)
      times = QString(": %1 us vs the plan's %2 us")
                  .arg(o.time.seconds() * 1e6, 0, 'f', 1)
                  .arg(outcome.report->orders.front().time.seconds() * 1e6, 0, 'f', 1);
  compare_label_->setText(plan_b_ ? QString("B, declaration order%1").arg(times)
                                  : QString("B: the declaration order is not host-contiguous, NCCL could not run it"));
  const auto& orders = outcome.report->orders;
  QString summary = QString("Plan: %1, %2 channel(s)").arg(QString::fromStdString(plan_->algorithm)).arg(plan_->channels);
  if (orders.size() > 1)
    summary += QString(", planned order %1 us vs %2 %3 us")
                   .arg(orders.front().time.seconds() * 1e6, 0, 'f', 1)
                   .arg(QString::fromStdString(orders[1].name))
                   .arg(orders[1].time.seconds() * 1e6, 0, 'f', 1);
  statusBar()->showMessage(summary);
}

bool MainWindow::show_steps() {
  steps_ = collective_steps(document_.cluster(), algorithm(), Bytes{std::int64_t(64) << 20});
  if (!steps_.error.empty() || steps_.links.empty()) {
    statusBar()->showMessage(QString::fromStdString("No step view: " + steps_.error));
    step_slider_->setEnabled(false);
    return false;
  }
  step_slider_->setRange(0, int(steps_.links.size()) - 1);
  step_slider_->setEnabled(true);
  step_slider_->setValue(0);
  show_step(0);
  return true;
}

void MainWindow::set_step(int step) { step_slider_->setValue(step); }

void MainWindow::show_step(int step) {
  if (step < 0 || std::size_t(step) >= steps_.links.size()) return;
  std::vector<double> share(document_.cluster().link_count(), 0.0);
  int most = 1;
  for (const auto& [link, count] : steps_.links[std::size_t(step)]) most = std::max(most, count);
  for (const auto& [link, count] : steps_.links[std::size_t(step)]) share[link] = double(count) / most;
  scene_->set_utilisation(share);
  statusBar()->showMessage(QString("%1, step %2 of %3: %4 transfers on %5 links (red: the most transfers, %6)")
                               .arg(QString::fromStdString(steps_.algorithm))
                               .arg(step + 1)
                               .arg(steps_.links.size())
                               .arg(steps_.transfers[std::size_t(step)])
                               .arg(steps_.links[std::size_t(step)].size())
                               .arg(most));
}

void MainWindow::export_bundle() {
  if (!plan_) {
    statusBar()->showMessage("Plan first (toolbar: Plan); the bundle holds the plan's launch files", 8000);
    return;
  }
  const QString dir = QFileDialog::getExistingDirectory(this, "Write the launch bundle into");
  if (dir.isEmpty()) return;
  try {
    planner::write_bundle(document_.cluster(), *plan_, dir.toStdString());
  } catch (const std::exception& e) {
    QMessageBox::warning(this, "Cannot write the bundle", e.what());
    return;
  }
  statusBar()->showMessage("Launch bundle written to " + dir);
}

void MainWindow::connect_selection() {
  const auto selected = scene_->selected_devices();
  if (selected.size() != 2) {
    statusBar()->showMessage("Select exactly two devices to connect them", 5000);
    return;
  }
  QStringList kinds;
  for (int k = 0; k <= int(LinkKind::Custom); ++k) kinds << QString::fromStdString(std::string(to_string(LinkKind(k))));
  bool ok = false;
  const QString kind = QInputDialog::getItem(this, "Connect", QString("Link kind between %1 and %2:")
                                                                    .arg(QString::fromStdString(selected[0]),
                                                                         QString::fromStdString(selected[1])),
                                             kinds, 0, false, &ok);
  if (ok) report(editor_.add_link(selected[0], selected[1], kind.toStdString()));
}

void MainWindow::delete_selection() { report(editor_.remove(scene_->selected_devices(), {})); }

void MainWindow::auto_layout() {
  report(editor_.set_positions(gui::auto_layout(document_.cluster()), "Automatic layout"));
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (maybe_save())
    event->accept();
  else
    event->ignore();
}

}  // namespace ringlab::gui
