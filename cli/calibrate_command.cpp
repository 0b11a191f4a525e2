// `ringlab calibrate SCENARIO MEASURED... -o calib.json`: fits link factors (and takes GPU rates from
// --gpu) so that predictions of the measured runs match them; reports the error before and after, on
// the runs used for the fit and on held-out runs (sim/calibrate.hpp).
#include <cstdio>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "measurements.hpp"
#include "nccl_env_options.hpp"
#include "names.hpp"
#include "output.hpp"
#include "ringlab/sim/calibrate.hpp"
#include "ringlab/topology/error.hpp"

namespace ringlab::cli {
namespace {

struct CalibrateLine {
  std::vector<std::string> files;
  PredictLine predict;
  std::string gpu;
  std::string holdout = "every-other";
  std::string output;
  std::string format = "table";
};

std::string percent(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %%", v * 100);
  return text;
}

nlohmann::ordered_json summary_json(const sim::ErrorSummary& s) {
  return {{"runs", s.runs}, {"median_abs_error", s.median_abs_error}, {"worst_abs_error", s.worst_abs_error}};
}

void run_calibrate(const CalibrateLine& c) {
  if (c.files.size() < 2 || !is_scenario_file(c.files[0]))
    throw InputError(c.files.empty() ? "" : c.files[0], "", "expected SCENARIO MEASURED... (a scenario, then measurements)");
  const Scenario scenario = load_scenario(c.files[0]);
  const std::vector<std::string> paths(c.files.begin() + 1, c.files.end());
  // Which runs are fitted: every other run (sizes interleave), or all but the last file's.
  std::vector<sim::Result> measured;
  std::vector<bool> fit;
  for (std::size_t f = 0; f < paths.size(); ++f) {
    for (sim::Result& r : load_all_measurements({paths[f]}, c.predict, &scenario)) {
      const std::size_t i = measured.size();
      fit.push_back(c.holdout == "none" || (c.holdout == "every-other" ? i % 2 == 0 : f + 1 < paths.size()));
      measured.push_back(std::move(r));
    }
  }
  if (c.holdout == "last-file" && paths.size() < 2)
    throw InputError("", "--holdout", "last-file needs at least two measurement files");
  if (measured.empty()) throw InputError(paths.front(), "", "no measured runs");
  const std::string base = c.predict.calibration.empty()
                               ? (c.predict.algorithm == "nccl" ? "nccl" : "pure")
                               : c.predict.calibration;
  if (base != "pure" && base != "nccl") throw InputError("", "--calibration", "calibrate starts from pure or nccl");
  const sim::PredictOptions options = predict_options(scenario, c.predict, measured, paths);
  warn_no_tuning_log(options.nccl_env, "calibrate");
  sim::CalibrationFit result = sim::fit_calibration(scenario.cluster, measured, fit, base, options, paths.front());
  if (!c.gpu.empty()) sim::add_gpu_calibration(result.file, read_json_file(c.gpu, "GPU calibration"), c.gpu);

  nlohmann::ordered_json fitj;
  fitj["scenario"] = scenario.name;
  fitj["measurements"] = paths;
  fitj["algorithm"] = c.predict.algorithm;
  fitj["holdout"] = c.holdout;
  fitj["evaluations"] = result.evaluations;
  fitj["fit_before"] = summary_json(result.fit_before);
  fitj["fit_after"] = summary_json(result.fit_after);
  fitj["held_out_before"] = summary_json(result.held_out_before);
  fitj["held_out_after"] = summary_json(result.held_out_after);
  result.file.fit = fitj;
  if (!c.output.empty())
    write_output(c.output, [&](std::ostream& out) { out << sim::to_json(result.file).dump(2) << '\n'; });

  std::ostream& out = std::cout;
  if (c.format == "json") {
    out << sim::to_json(result.file).dump(2) << '\n';
    return;
  }
  out << "# ringlab calibrate: " << scenario.name << ", " << measured.size() << " measured runs, algorithm "
      << c.predict.algorithm << ", base " << base << ", hold-out " << c.holdout << "\n";
  out << "# fitted factors (x the " << base << " table):\n";
  if (result.nccl_latency_fitted)
    out << "#   NCCL's latency table: base x" << result.file.nccl_latency.base << ", intra-node hops x"
        << result.file.nccl_latency.intra << ", network hops x" << result.file.nccl_latency.net << "\n";
  for (const auto& [family, f] : result.file.links)
    out << "#   " << sim::to_string(family) << ": bandwidth x" << f.bandwidth << ", latency x" << f.latency << "\n";
  for (const auto& [model, gpu] : result.file.gpus)
    if (gpu.reduce_bytes_per_second)
      out << "#   " << to_string(model) << ": reduction " << *gpu.reduce_bytes_per_second / 1e9 << " GB/s (measured)\n";
  out << "#                 runs   median |error|   worst |error|\n";
  const auto line = [&](const char* name, const sim::ErrorSummary& s) {
    char text[128];
    std::snprintf(text, sizeof text, "%-16s %5d   %14s   %13s\n", name, s.runs, percent(s.median_abs_error).c_str(),
                  percent(s.worst_abs_error).c_str());
    out << text;
  };
  line("fit, before", result.fit_before);
  line("fit, after", result.fit_after);
  if (result.held_out_before.runs > 0) {
    line("held out, before", result.held_out_before);
    line("held out, after", result.held_out_after);
  }
  out << "# " << result.evaluations << " simulations of the fit runs\n";
}

}  // namespace

void add_calibrate_command(CLI::App& app) {
  auto c = std::make_shared<CalibrateLine>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "Fit link factors (and take GPU rates) so predictions match measurements; error before and after");
  cmd->add_option("files", c->files, "SCENARIO MEASURED... (ringlab-validate results, nccl-tests text or -J JSON)")
      ->required();
  add_predict_options(*cmd, c->predict);
  cmd->add_option("--gpu", c->gpu, "a GPU calibration (ringlab-validate --gpu-calibration) to include");
  cmd->add_option("--holdout", c->holdout, "runs not used for the fit: every-other, last-file or none")
      ->check(one_of("holdout", {"every-other", "last-file", "none"}))
      ->capture_default_str();
  cmd->add_option("-o,--output", c->output, "write the calibration file here (read by --calibration)");
  cmd->add_option("-f,--format", c->format, "table or json")->check(one_of("format", {"table", "json"}))->capture_default_str();
  cmd->callback([c] { run_calibrate(*c); });
}

}  // namespace ringlab::cli
