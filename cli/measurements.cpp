// Shared by compare and calibrate (measurements.hpp).
#include "measurements.hpp"

#include <filesystem>
#include <fstream>

#include "names.hpp"
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

std::vector<sim::Result> load_all_measurements(const std::vector<std::string>& paths, bool in_place) {
  std::vector<sim::Result> all;
  for (const std::string& path : paths) {
    std::vector<sim::Result> runs =
        sim::load_measurements(path, in_place ? sim::Placement::InPlace : sim::Placement::OutOfPlace);
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
  if (!line.rank_order.empty()) {
    const int ranks = measured.empty() ? 0 : measured.front().ranks;
    o.order = sim::load_rank_order(scenario.cluster, line.rank_order, ranks);
  }
  return o;
}

}  // namespace ringlab::cli
