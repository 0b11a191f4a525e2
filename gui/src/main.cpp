// ringlab-gui: draw or generate a cluster, simulate it, see where the time goes.
//   ringlab-gui [scenario.json]
//   ringlab-gui --screenshot out.png [--algo A] [--plan] [scenario.json]   renders the window
//       (the scenario, a simulation's link utilisation and busbw chart, and with --plan the planned
//       rings) to a PNG and exits; no display needed with QT_QPA_PLATFORM=offscreen.
// Exit codes: 0 ok, 2 bad arguments or scenario.
#include <QApplication>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QImage>

#include <cstdio>

#include "main_window.hpp"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("ringlab-gui");
  QCommandLineParser parser;
  parser.setApplicationDescription("ringlab's desktop app: draw a cluster, simulate it, see where the time goes");
  parser.addHelpOption();
  const QCommandLineOption screenshot("screenshot", "Render the window to FILE (PNG) and exit.", "FILE");
  const QCommandLineOption algo("algo", "Algorithm for --screenshot (default ring).", "A", "ring");
  const QCommandLineOption plan("plan", "With --screenshot: plan the rank order and draw its rings.");
  parser.addOption(screenshot);
  parser.addOption(algo);
  parser.addOption(plan);
  parser.addPositionalArgument("scenario", "Scenario file (default: the built-in scenario).");
  parser.process(app);

  ringlab::gui::MainWindow window;
  const QStringList files = parser.positionalArguments();
  if (!files.isEmpty() && !window.open_file(files.front(), !parser.isSet(screenshot))) {
    std::fprintf(stderr, "ringlab-gui: %s\n", qPrintable(window.last_error()));
    return 2;
  }
  if (!parser.isSet(screenshot)) {
    window.show();
    return app.exec();
  }
  const auto outcome = ringlab::gui::SimJob::run(window.document().cluster(), parser.value(algo).toStdString(),
                                                 ringlab::gui::SimJob::default_sizes());
  if (!outcome.error.empty() && outcome.points.empty()) {
    std::fprintf(stderr, "ringlab-gui: %s\n", outcome.error.c_str());
    return 2;
  }
  window.resize(1400, 900);
  window.show();
  window.show_outcome(outcome);
  if (parser.isSet(plan)) {
    const auto planned = ringlab::gui::PlanJob::run(window.document().scenario());
    if (!planned.report) {
      std::fprintf(stderr, "ringlab-gui: no plan: %s\n", planned.error.c_str());
      return 2;
    }
    window.show_plan(planned);
    window.resizeDocks({window.findChild<QDockWidget*>("B: declaration order")}, {420}, Qt::Horizontal);
  }
  QApplication::processEvents();
  window.fit();
  QApplication::processEvents();
  const QImage image = window.grab().toImage();
  if (!image.save(parser.value(screenshot))) {
    std::fprintf(stderr, "ringlab-gui: cannot write %s\n", qPrintable(parser.value(screenshot)));
    return 2;
  }
  return 0;
}
