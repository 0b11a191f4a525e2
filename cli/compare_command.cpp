// `ringlab compare`: per-size error of predictions against measurements.
//   ringlab compare PREDICTED MEASURED            two files (ringlab.results; MEASURED may be nccl-tests output)
//   ringlab compare SCENARIO MEASURED...          predicts every measured run on the scenario first
// with a table or JSON and, with --plot, an SVG of both curves.
#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "measurements.hpp"
#include "names.hpp"
#include "nccl_env_options.hpp"
#include "output.hpp"
#include "ringlab/sim/compare.hpp"
#include "ringlab/sim/nccl_tuning.hpp"
#include "ringlab/sim/predict.hpp"
#include "ringlab/sim/rank_order.hpp"
#include "ringlab/sim/result_json.hpp"
#include "ringlab/topology/error.hpp"

namespace ringlab::cli {
namespace {

struct CompareLine {
  std::vector<std::string> files;
  PredictLine predict;
  std::string format = "table";
  std::string output;
  std::string plot;
};

/// The order a measured run of `ranks` GPUs is predicted in; nullopt when the scenario cannot hold it
/// (fewer than 2 ranks, or more than its GPUs).
std::optional<sim::RankOrder> run_order(const Scenario& scenario, int ranks, const sim::PredictOptions& options) {
  if (ranks < 2 || ranks > int(scenario.cluster.gpus().size())) return std::nullopt;
  return options.order ? *options.order : sim::declaration_order(scenario.cluster, ranks);
}

/// NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING: NCCL's log of each communicator the runs use (one per
/// collective and rank count, in order of first appearance), with the sizes measured on it.
void print_nccl_tuning_logs(const Scenario& scenario, const std::vector<sim::Result>& measured,
                            const sim::PredictOptions& options) {
  if (!options.nccl_env.debug_tuning) return;
  std::vector<std::pair<sim::Collective, int>> done;
  for (const sim::Result& run : measured) {
    const std::pair<sim::Collective, int> key{run.collective, run.ranks};
    if (std::find(done.begin(), done.end(), key) != done.end()) continue;
    const std::optional<sim::RankOrder> order = run_order(scenario, run.ranks, options);
    if (!order) continue;
    done.push_back(key);
    std::vector<Bytes> sizes;
    for (const sim::Result& r : measured)
      if (r.collective == run.collective && r.ranks == run.ranks) sizes.push_back(r.message);
    print_nccl_tuning_log(std::cerr, scenario.cluster, order->ranks, options.nccl_env, run.collective, sizes, {});
  }
}

/// What NCCL's model sees (sim::nccl_model_summary, as `simulate` prints it in its header) per rank
/// count the runs use, in order of first appearance.
struct NcclModelLine {
  int ranks;
  std::string summary;
  int channels;  ///< the channels NCCL's model connects (comm->nChannels)
};
std::vector<NcclModelLine> nccl_model_lines(const Scenario& scenario, const std::vector<sim::Result>& measured,
                                            const sim::PredictOptions& options) {
  std::vector<int> done;
  std::vector<NcclModelLine> lines;
  for (const sim::Result& run : measured) {
    if (std::find(done.begin(), done.end(), run.ranks) != done.end()) continue;
    const std::optional<sim::RankOrder> order = run_order(scenario, run.ranks, options);
    if (!order) continue;
    done.push_back(run.ranks);
    const auto model = sim::nccl_cluster_model(scenario.cluster, order->ranks, options.nccl_env);
    if (model) lines.push_back(NcclModelLine{run.ranks, sim::nccl_model_summary(*model), model->channels});
  }
  return lines;
}

/// "# nccl log: N coll channels" per count NCCL logged, with the model's where one rank count was
/// predicted and it connects another.
std::vector<std::string> logged_channel_lines(const std::vector<int>& logged, const std::vector<NcclModelLine>& models) {
  std::vector<std::string> lines;
  for (const int n : logged) {
    std::string line = "# nccl log: " + std::to_string(n) + " coll channels";
    if (models.size() == 1 && models.front().channels != n)
      line += " (the model above connects " + std::to_string(models.front().channels) + ")";
    lines.push_back(std::move(line));
  }
  return lines;
}

void run_compare(const CompareLine& c) {
  if (c.files.size() < 2) throw InputError("", "compare", "expected PREDICTED MEASURED, or SCENARIO MEASURED...");
  std::vector<sim::Result> predicted, measured;
  std::string title;
  std::vector<NcclModelLine> models;
  std::vector<int> logged_channels;
  if (is_scenario_file(c.files[0])) {
    const Scenario scenario = load_scenario(c.files[0]);
    measured = load_all_measurements({c.files.begin() + 1, c.files.end()}, c.predict, &scenario);
    const sim::PredictOptions options =
        predict_options(scenario, c.predict, measured, {c.files.begin() + 1, c.files.end()});
    predicted = sim::predict_measured(scenario.cluster, measured, options, c.files[1]);
    if (options.algorithm == sim::Algorithm::Nccl) {
      print_nccl_tuning_logs(scenario, measured, options);
      models = nccl_model_lines(scenario, measured, options);
      logged_channels = logged_coll_channels({c.files.begin() + 1, c.files.end()});
    } else {
      warn_no_tuning_log(options.nccl_env, "an algorithm other than nccl");
    }
    title = scenario.name + ": predicted (" + c.predict.algorithm + ") vs measured";
  } else {
    if (c.files.size() != 2) throw InputError(c.files[0], "", "is a results file: expected exactly PREDICTED MEASURED");
    predicted = sim::load_results(c.files[0]);
    measured = load_all_measurements({c.files[1]}, c.predict);
    title = "predicted vs measured";
  }
  const sim::Comparison comparison = sim::compare(predicted, measured);
  if (!c.plot.empty()) write_output(c.plot, [&](std::ostream& out) { sim::write_comparison_svg(out, comparison, title); });
  write_output(c.output, [&](std::ostream& out) {
    if (c.format == "json") {
      nlohmann::ordered_json doc = sim::to_json(comparison);
      if (!models.empty()) {
        doc["nccl_models"] = nlohmann::ordered_json::array();
        for (const NcclModelLine& m : models)
          doc["nccl_models"].push_back({{"ranks", m.ranks}, {"summary", m.summary}, {"channels", m.channels}});
      }
      if (!logged_channels.empty()) doc["nccl_logged_coll_channels"] = logged_channels;
      out << doc.dump(2) << '\n';
      return;
    }
    for (const NcclModelLine& m : models) out << "# nccl model (" << m.ranks << " ranks): " << m.summary << '\n';
    for (const std::string& line : logged_channel_lines(logged_channels, models)) out << line << '\n';
    write_comparison_table(out, comparison);
  });
}

}  // namespace

void add_compare_command(CLI::App& app) {
  auto c = std::make_shared<CompareLine>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "Compare predictions with measurements (ringlab-validate results, nccl-tests text or -J JSON): "
                 "per-size error, median and worst, and an SVG plot");
  cmd->add_option("files", c->files,
                  "PREDICTED MEASURED (results files), or SCENARIO MEASURED... (each measured run is predicted on the scenario)")
      ->required();
  add_predict_options(*cmd, c->predict);
  cmd->add_option("-f,--format", c->format, "table or json")->check(one_of("format", {"table", "json"}))->capture_default_str();
  cmd->add_option("-o,--output", c->output, "write the comparison to this file instead of standard output");
  cmd->add_option("--plot", c->plot, "write an SVG plot of predicted and measured time against size");
  cmd->callback([c] { run_compare(*c); });
}

}  // namespace ringlab::cli
