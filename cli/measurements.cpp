// Shared by compare and calibrate (measurements.hpp).
#include "measurements.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>

#include "names.hpp"
#include "nccl_env_options.hpp"
#include "ringlab/sim/calibration_file.hpp"
#include "ringlab/sim/nccl_tests.hpp"
#include "ringlab/sim/result_json.hpp"
#include "ringlab/topology/error.hpp"

namespace ringlab::cli {

void add_predict_options(CLI::App& cmd, PredictLine& line) {
  cmd.add_option("--rank-order", line.rank_order, "the order the measured runs used (plan.json, hostfile, ...)");
  cmd.add_option("--algo", line.algorithm, "algorithm to predict with (nccl: NCCL's choice per size; ring, tree, ...)")
      ->capture_default_str();
  cmd.add_option("--calibration", line.calibration,
                 "pure, nccl, or a calibration file from `ringlab calibrate` (default: nccl for --algo nccl, else pure)");
  cmd.add_flag("--in-place", line.in_place, "nccl-tests input: take the in-place half of the table (default out-of-place)");
  add_nccl_env_option(cmd, line.nccl_env);
  cmd.add_option("--collective", line.collective,
                 "nccl-tests text without a '# Collective test starting' line (older versions): which collective ran "
                 "(default: the scenario's simulate collective)");
}

bool is_scenario_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot read the file");
  std::string head(4096, '\0');
  in.read(head.data(), std::streamsize(head.size()));
  head.resize(std::size_t(in.gcount()));
  // A results file names its schema; a scenario has the "ringlab" format version key and a "cluster".
  return head.find("\"schema\"") == std::string::npos && head.find("\"ringlab\"") != std::string::npos;
}

std::vector<sim::Result> load_all_measurements(const std::vector<std::string>& paths, const PredictLine& line,
                                               const Scenario* scenario) {
  std::string name = line.collective;
  if (name.empty() && scenario && scenario->simulate.contains("collective") && scenario->simulate["collective"].is_string())
    name = scenario->simulate["collective"].get<std::string>();
  std::optional<sim::Collective> collective;
  if (!name.empty()) {
    collective = sim::find_collective(name);
    if (!collective) throw InputError("", "--collective", "unknown collective '" + name + "'");
  }
  std::vector<sim::Result> all;
  for (const std::string& path : paths) {
    std::vector<sim::Result> runs = sim::load_measurements(
        path, line.in_place ? sim::Placement::InPlace : sim::Placement::OutOfPlace, collective);
    if (scenario && sim::fill_unknown_ranks(runs, int(scenario->cluster.gpus().size())) > 0)
      std::cerr << "ringlab: assumed: " << path << " lists no devices (or only some); its runs are taken to span all "
                << scenario->cluster.gpus().size() << " GPUs of " << scenario->file << "\n";
    all.insert(all.end(), std::make_move_iterator(runs.begin()), std::make_move_iterator(runs.end()));
  }
  return all;
}

sim::PredictOptions predict_options(const Scenario& scenario, const PredictLine& line,
                                    const std::vector<sim::Result>& measured) {
  sim::PredictOptions o;
  const auto algorithm = sim::find_algorithm(line.algorithm);
  if (!algorithm)
    throw InputError("", "--algo", "unknown algorithm '" + line.algorithm + "'" +
                                       did_you_mean(line.algorithm, sim::algorithm_names()) + "; expected " +
                                       sim::algorithm_names());
  o.algorithm = *algorithm;
  const std::string calibration =
      line.calibration.empty() ? (*algorithm == sim::Algorithm::Nccl ? "nccl" : "pure") : line.calibration;
  if (calibration == "pure") o.calibration = sim::Calibration::pure();
  else if (calibration == "nccl") o.calibration = sim::Calibration::nccl();
  else o.calibration = sim::load_calibration_file(calibration).calibration();
  o.scenario_digest = sim::digest_hex(scenario.document.dump());
  o.nccl_env = read_nccl_env(scenario, line.nccl_env);
  if (!line.rank_order.empty()) {
    const int ranks = measured.empty() ? 0 : measured.front().ranks;
    o.order = sim::load_rank_order(scenario.cluster, line.rank_order, ranks);
  }
  return o;
}

}  // namespace ringlab::cli
