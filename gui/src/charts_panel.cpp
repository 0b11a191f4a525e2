// ChartsPanel: busbw lines, predicted vs measured, timeline (see charts_panel.hpp).
#include "charts_panel.hpp"

#include <QChart>
#include <QChartView>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsView>
#include <QLabel>
#include <QLegend>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QLineSeries>
#include <QStackedBarSeries>
#include <QLogValueAxis>
#include <QPainter>
#include <QSvgGenerator>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "ringlab/sim/nccl_tests.hpp"
#include "ringlab/sim/predict.hpp"
#include "ringlab/sim/result_json.hpp"
#include "ringlab/sim/run_collective.hpp"
#include "ringlab/sim/training.hpp"
#include "ringlab/topology/error.hpp"

namespace ringlab::gui {
namespace {

QLogValueAxis* size_axis(QChart* chart) {
  auto* x = new QLogValueAxis(chart);
  x->setBase(2);
  x->setTitleText("message size (bytes, log2)");
  x->setLabelFormat("%.0f");
  chart->addAxis(x, Qt::AlignBottom);
  return x;
}

void attach(QChart* chart, QAbstractSeries* series, QAbstractAxis* x, QAbstractAxis* y) {
  chart->addSeries(series);
  series->attachAxis(x);
  series->attachAxis(y);
}

/// A tab holding an optional caption over a view.
QWidget* tab(QWidget* parent, QLabel** caption, QWidget* view) {
  auto* page = new QWidget(parent);
  auto* layout = new QVBoxLayout(page);
  layout->setContentsMargins(2, 2, 2, 2);
  if (caption) {
    *caption = new QLabel(page);
    (*caption)->setWordWrap(true);
    layout->addWidget(*caption);
  }
  layout->addWidget(view);
  return page;
}

}  // namespace

ChartsPanel::ChartsPanel(QWidget* parent) : QTabWidget(parent) {
  busbw_ = new QChartView(this);
  busbw_->setRenderHint(QPainter::Antialiasing);
  measured_ = new QChartView(this);
  measured_->setRenderHint(QPainter::Antialiasing);
  timeline_scene_ = new QGraphicsScene(this);
  timeline_view_ = new QGraphicsView(timeline_scene_, this);
  addTab(tab(this, nullptr, busbw_), "Bus bandwidth");
  addTab(tab(this, &measured_label_, measured_), "Predicted vs measured");
  addTab(tab(this, &timeline_label_, timeline_view_), "Timeline");
  breakdown_view_ = new QChartView(this);
  breakdown_view_->setRenderHint(QPainter::Antialiasing);
  addTab(tab(this, &breakdown_label_, breakdown_view_), "Step breakdown");
  breakdown_label_->setText("View > Step breakdown: for a scenario with a training job (\"workload\")");
  measured_label_->setText("File > Compare with measurements: an nccl-tests output (text or -J JSON)");
  timeline_label_->setText("View > Timeline: one collective's ops per rank");
  redraw_busbw();
}

void ChartsPanel::add_outcome(const SimOutcome& outcome) {
  if (outcome.points.empty()) return;
  lines_[outcome.algorithm] = outcome.points;
  redraw_busbw();
  setCurrentIndex(kBusbw);
}

void ChartsPanel::clear() {
  lines_.clear();
  redraw_busbw();
}

void ChartsPanel::redraw_busbw() {
  auto* chart = new QChart();
  chart->setTitle("allreduce busbw (GB/s) against size, per algorithm");
  QLogValueAxis* x = size_axis(chart);
  auto* y = new QValueAxis(chart);
  y->setTitleText("busbw (GB/s)");
  y->setMin(0);
  chart->addAxis(y, Qt::AlignLeft);
  double top = 1;
  for (const auto& [algorithm, points] : lines_) {
    auto* line = new QLineSeries(chart);
    line->setName(QString::fromStdString(algorithm));
    line->setPointsVisible(true);
    for (const SimPoint& p : points) {
      line->append(double(p.size.count()), p.busbw_gbps);
      top = std::max(top, p.busbw_gbps);
    }
    attach(chart, line, x, y);
  }
  y->setMax(top * 1.1);
  QChart* old = busbw_->chart();
  busbw_->setChart(chart);
  delete old;
}

std::optional<sim::Comparison> ChartsPanel::open_measured(const QString& path, const Topology& cluster,
                                                          const std::string& algorithm, QString* error) {
  sim::Comparison comparison;
  try {
    // A ringlab.results file (ringlab-validate's) or an nccl-tests output.
    const std::string file = path.toStdString();
    const bool results = path.endsWith(".json") && read_json_file(file, "measurements").value("schema", "") == "ringlab.results";
    const std::vector<sim::Result> measured = results ? sim::load_results(file) : sim::load_measurements(file);
    sim::PredictOptions options;
    const auto a = sim::find_algorithm(algorithm);
    if (!a) throw InputError("", "algorithm", "unknown algorithm \"" + algorithm + "\"");
    options.algorithm = *a;
    options.calibration = *a == sim::Algorithm::Nccl ? sim::Calibration::nccl() : sim::Calibration::pure();
    const std::vector<sim::Result> predicted = sim::predict_measured(cluster, measured, options, path.toStdString());
    comparison = sim::compare(predicted, measured);
  } catch (const std::exception& e) {  // InputError (file, line), or a schedule that cannot be built
    if (error) *error = e.what();
    return std::nullopt;
  }
  auto* chart = new QChart();
  chart->setTitle("time (us) against size: measured and predicted (" + QString::fromStdString(algorithm) + ")");
  QLogValueAxis* x = size_axis(chart);
  auto* y = new QLogValueAxis(chart);
  y->setTitleText("time (us, log)");
  y->setLabelFormat("%g");
  chart->addAxis(y, Qt::AlignLeft);
  auto* measured_line = new QLineSeries(chart);
  measured_line->setName("measured");
  auto* predicted_line = new QLineSeries(chart);
  predicted_line->setName("predicted");
  for (const sim::ComparedRow& row : comparison.rows) {
    const double size = double(std::max<std::int64_t>(row.message.count(), 1));
    // A log axis cannot show 0: a 0 us point (e.g. one rank, nothing to move) is drawn at 0.001 us.
    measured_line->append(size, std::max(row.measured.seconds() * 1e6, 1e-3));
    predicted_line->append(size, std::max(row.predicted.seconds() * 1e6, 1e-3));
  }
  measured_line->setPointsVisible(true);
  predicted_line->setPointsVisible(true);
  attach(chart, measured_line, x, y);
  attach(chart, predicted_line, x, y);
  QChart* old = measured_->chart();
  measured_->setChart(chart);
  delete old;
  QString caption = QString("%1: %2 sizes, median |error| %3 %, worst %4 %")
                        .arg(path)
                        .arg(comparison.rows.size())
                        .arg(comparison.median_abs_error * 100, 0, 'f', 1)
                        .arg(comparison.worst_abs_error * 100, 0, 'f', 1);
  if (comparison.worst)
    caption += QString(" at %1").arg(QString::fromStdString(to_string(comparison.rows[*comparison.worst].message)));
  measured_label_->setText(caption);
  setCurrentIndex(kMeasured);
  return comparison;
}

std::optional<sim::Result> ChartsPanel::show_timeline(const Topology& cluster, const std::string& algorithm,
                                                      Bytes size, QString* error) {
  sim::CollectiveRequest request;
  const auto a = sim::find_algorithm(algorithm);
  if (!a) {
    if (error) *error = QString("unknown algorithm \"%1\"").arg(QString::fromStdString(algorithm));
    return std::nullopt;
  }
  request.algorithm = *a;
  if (*a == sim::Algorithm::Nccl) request.options.calibration = sim::Calibration::nccl();
  request.order.ranks = cluster.gpus();
  request.message = size;
  request.keep_schedule = true;
  const sim::CollectiveOutcome outcome = sim::run_collective(cluster, request);
  if (!outcome.result || !outcome.schedule) {
    if (error) *error = QString::fromStdString(outcome.not_applicable);
    return std::nullopt;
  }
  const sim::Result& r = *outcome.result;
  const sim::Schedule& schedule = *outcome.schedule;
  timeline_scene_->clear();
  const int ranks = std::min(r.ranks, kTimelineRanks);
  timeline_rows_ = ranks;
  const double total_us = std::max(r.time.seconds() * 1e6, 1e-9);
  constexpr double kWidth = 1000, kRow = 14;
  auto colour = [](sim::OpKind k) {
    switch (k) {
      case sim::OpKind::Send: return QColor(30, 110, 210);
      case sim::OpKind::Recv: return QColor(120, 180, 240);
      case sim::OpKind::Reduce: return QColor(240, 150, 30);
      default: return QColor(150, 150, 150);
    }
  };
  timeline_end_us_ = 0;
  for (const sim::OpSpan& span : r.timeline) {
    const sim::Op& op = schedule.op(span.op);
    if (op.at >= sim::Endpoint(ranks)) continue;
    const double start = span.start.seconds() * 1e6, end = span.end.seconds() * 1e6;
    timeline_end_us_ = std::max(timeline_end_us_, end);
    const double x0 = start / total_us * kWidth, x1 = std::max(end / total_us * kWidth, x0 + 0.5);
    auto* bar = timeline_scene_->addRect(QRectF(x0, op.at * kRow, x1 - x0, kRow - 3), Qt::NoPen, colour(op.kind));
    bar->setToolTip(QString("#%1 %2 rank %3, %4-%5 us")
                        .arg(span.op)
                        .arg(QString::fromStdString(std::string(sim::to_string(op.kind))))
                        .arg(op.at)
                        .arg(start, 0, 'f', 2)
                        .arg(end, 0, 'f', 2));
  }
  for (int rank = 0; rank < ranks; rank += std::max(1, ranks / 16)) {
    auto* label = timeline_scene_->addSimpleText(QString("rank %1").arg(rank));
    label->setPos(-60, rank * kRow - 2);
  }
  for (int tick = 0; tick <= 10; ++tick) {
    const double x = kWidth * tick / 10;
    timeline_scene_->addLine(x, ranks * kRow, x, ranks * kRow + 5);
    auto* label = timeline_scene_->addSimpleText(QString::number(total_us * tick / 10, 'g', 4));
    label->setPos(x - 10, ranks * kRow + 6);
  }
  timeline_scene_->addSimpleText("us")->setPos(kWidth + 20, ranks * kRow + 6);
  timeline_view_->fitInView(timeline_scene_->itemsBoundingRect(), Qt::IgnoreAspectRatio);
  timeline_label_->setText(QString("%1, %2, %3 ranks%4: %5 us (blue send, light blue recv, orange reduce)")
                               .arg(QString::fromStdString(r.algorithm), QString::fromStdString(to_string(size)))
                               .arg(r.ranks)
                               .arg(r.ranks > ranks ? QString(" (first %1 drawn)").arg(ranks) : QString())
                               .arg(total_us, 0, 'f', 1));
  setCurrentIndex(kTimeline);
  return r;
}

int ChartsPanel::show_breakdown(const Scenario& scenario, QString* error) {
  if (scenario.workload.empty()) {
    if (error) *error = "the scenario has no training job: add a \"workload\" section (docs/training.md)";
    return 0;
  }
  sim::TrainReport report;
  try {
    report = sim::run_training(sim::train_job_from_scenario(scenario), scenario.cluster, scenario.name);
  } catch (const std::exception& e) {  // InputError from the job's sections, invalid_argument from the strategy
    if (error) *error = e.what();
    return 0;
  }
  breakdown_.clear();
  auto ms = [](Duration d) { return d.seconds() * 1e3; };
  auto add = [&](const std::string& name, const sim::StepResult& step) {
    breakdown_[name] = {ms(step.compute), ms(step.exposed_comm()), ms(step.overlap())};
  };
  add(std::string(sim::to_string(report.job.strategy.kind)) + " (the job's)", report.step);
  for (const auto& alternative : report.alternatives)
    if (alternative.step) add(std::string(sim::to_string(alternative.kind)), *alternative.step);
  auto* chart = new QChart();
  chart->setTitle("one optimizer step (ms): compute, exposed and overlapped communication");
  auto* series = new QStackedBarSeries(chart);
  const char* parts[3] = {"compute", "exposed communication", "overlapped communication"};
  QStringList names;
  for (const auto& [name, values] : breakdown_) names << QString::fromStdString(name);
  double top = 0;
  for (int part = 0; part < 3; ++part) {
    auto* set = new QBarSet(parts[part], series);
    for (const auto& [name, values] : breakdown_) *set << values[std::size_t(part)];
    series->append(set);
  }
  for (const auto& [name, values] : breakdown_) top = std::max(top, values[0] + values[1] + values[2]);
  chart->addSeries(series);
  auto* x = new QBarCategoryAxis(chart);
  x->append(names);
  auto* y = new QValueAxis(chart);
  y->setTitleText("ms");
  y->setRange(0, top * 1.1);
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  series->attachAxis(x);
  series->attachAxis(y);
  QChart* old = breakdown_view_->chart();
  breakdown_view_->setChart(chart);
  delete old;
  breakdown_label_->setText(QString("%1: step %2 ms, %3 % of it exposed communication (compute + exposed = step; "
                                    "the overlapped part runs during backward)")
                                .arg(QString::fromStdString(scenario.name))
                                .arg(ms(report.step.step), 0, 'f', 2)
                                .arg(report.step.comm_fraction() * 100, 0, 'f', 1));
  setCurrentIndex(kBreakdown);
  return int(breakdown_.size());
}

bool ChartsPanel::export_current(const QString& path) {
  QWidget* page = currentWidget();
  if (path.endsWith(".svg", Qt::CaseInsensitive)) {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(page->size());
    svg.setViewBox(QRect(QPoint(), page->size()));
    QPainter painter;
    if (!painter.begin(&svg)) return false;
    page->render(&painter);
    return painter.end();
  }
  return page->grab().save(path);
}

}  // namespace ringlab::gui
