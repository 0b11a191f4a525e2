// Shared by compare and calibrate (measurements.hpp).
#include "measurements.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

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

namespace {

/// The NCCL release the measured runs name (nccl-tests' "nccl-library=", NCCL's "NCCL version" line,
/// ringlab-validate's backend), when they all name the same one; nullopt otherwise.
std::optional<std::string> measured_nccl_version(const std::vector<sim::Result>& measured) {
  static const std::regex release(R"((^|[ ,(])nccl ([0-9]+\.[0-9]+(\.[0-9]+)?))");
  std::optional<std::string> found;
  for (const sim::Result& run : measured) {
    std::smatch m;
    if (!std::regex_search(run.source.engine, m, release)) return std::nullopt;
    if (found && *found != m[2].str()) return std::nullopt;
    found = m[2].str();
  }
  return found;
}

/// Under --algo nccl, NCCL's tables of the release the measured runs name, unless the scenario or
/// --nccl-env names one (then a warning where the two differ).
void take_measured_nccl_version(sim::NcclEnv& env, const std::vector<sim::Result>& measured) {
  const std::optional<std::string> version = measured_nccl_version(measured);
  if (!version) return;
  sim::NcclEnv named;
  std::string warning;
  try {
    warning = sim::set_nccl_env(named, "version", *version);
  } catch (const std::invalid_argument&) {
    return;  // not a release ringlab reads (3.x): the scenario's or the newest tables stay
  }
  if (env.version == 0) {
    sim::set_nccl_env(env, "version", *version);
    std::cerr << "ringlab: NCCL " << *version << " as the measured runs name it (its tuning tables; the scenario's "
              << "\"nccl\": {\"version\"} or --nccl-env version= sets another)\n";
    if (!warning.empty()) std::cerr << "ringlab: warning: " << warning << "\n";
    return;
  }
  if (named.version != env.version)
    std::cerr << "ringlab: warning: the measured runs name NCCL " << *version
              << "; predicting with the NCCL version the scenario or --nccl-env sets\n";
}

/// Calls `f(match)` for each line of the files of `paths` that holds `needle` and matches `line_re`
/// (the cheap substring test first: logs run to millions of lines).
template <class F>
void each_log_match(const std::vector<std::string>& paths, std::string_view needle, const std::regex& line_re, F&& f) {
  for (const std::string& path : paths) {
    std::ifstream in(path, std::ios::binary);
    for (std::string line; std::getline(in, line);) {
      if (line.find(needle) == std::string::npos) continue;
      std::smatch m;
      if (std::regex_search(line, m, line_re)) f(m);
    }
  }
}

/// NCCL's "NAME set by environment to VALUE" lines (NCCL_DEBUG=INFO: src/misc/param.cc, utils.cc;
/// NCCL_PARAM integers end with '.') in the files of `paths`, once per name in order of appearance;
/// a name the lines give different values is left out, with a warning.
std::vector<std::pair<std::string, std::string>> logged_nccl_settings(const std::vector<std::string>& paths) {
  static const std::regex line_re(R"(NCCL INFO (NCCL_[A-Z0-9_]+) set by environment to (.*?)\r?$)");
  static const std::regex integer_re(R"(-?[0-9]+\.)");
  std::vector<std::pair<std::string, std::string>> out;
  std::vector<std::string> conflicting;
  each_log_match(paths, " set by environment to ", line_re, [&](const std::smatch& m) {
    std::string value = m[2].str();
    if (std::regex_match(value, integer_re)) value.pop_back();
    const auto it = std::find_if(out.begin(), out.end(), [&](const auto& s) { return s.first == m[1].str(); });
    if (it == out.end()) out.emplace_back(m[1].str(), value);
    else if (it->second != value) conflicting.push_back(it->first);
  });
  for (const std::string& name : conflicting) {
    std::erase_if(out, [&](const auto& s) { return s.first == name; });
    std::cerr << "ringlab: warning: the measured runs' NCCL log sets " << name << " to different values; left out\n";
  }
  return out;
}

/// Under --algo nccl, the settings NCCL's log reports that the scenario and --nccl-env leave unset.
void take_logged_nccl_settings(sim::NcclEnv& env, const std::vector<std::string>& paths) {
  std::string taken;
  for (const auto& [name, value] : logged_nccl_settings(paths)) {
    const std::string prefix = name + "=";
    const auto set = std::find_if(env.settings.begin(), env.settings.end(),
                                  [&](const std::string& s) { return s.rfind(prefix, 0) == 0; });
    if (set != env.settings.end()) {
      if (set->substr(prefix.size()) != value)
        std::cerr << "ringlab: warning: the measured runs' NCCL log sets " << name << "=" << value
                  << "; predicting with " << *set << " as the scenario or --nccl-env sets it\n";
      continue;
    }
    try {
      sim::NcclEnv trial = env;
      const std::string warning = sim::set_nccl_env(trial, name, value);
      env = std::move(trial);
      taken += (taken.empty() ? "" : ", ") + name + "=" + value;
      if (!warning.empty()) std::cerr << "ringlab: warning: " << warning << "\n";
    } catch (const std::invalid_argument& e) {
      std::cerr << "ringlab: warning: the measured runs' NCCL log sets " << e.what() << "; predicting without it\n";
    }
  }
  if (!taken.empty())
    std::cerr << "ringlab: NCCL settings from the measured runs' log: " << taken
              << " (the scenario's \"nccl\" section or --nccl-env sets others)\n";
}

}  // namespace

std::vector<int> logged_coll_channels(const std::vector<std::string>& paths) {
  static const std::regex line_re(R"(NCCL INFO ([0-9]{1,4}) coll channels[, ])");
  std::vector<int> out;
  each_log_match(paths, " coll channels", line_re, [&](const std::smatch& m) {
    const int channels = std::stoi(m[1].str());
    if (std::find(out.begin(), out.end(), channels) == out.end()) out.push_back(channels);
  });
  return out;
}

sim::PredictOptions predict_options(const Scenario& scenario, const PredictLine& line,
                                    const std::vector<sim::Result>& measured, const std::vector<std::string>& paths) {
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
  o.nccl_env.latency_factors = o.calibration.nccl_latency;  // what the model lines and tuning log show
  if (o.algorithm == sim::Algorithm::Nccl) {
    take_logged_nccl_settings(o.nccl_env, paths);
    take_measured_nccl_version(o.nccl_env, measured);
  }
  if (!line.rank_order.empty()) {
    const int ranks = measured.empty() ? 0 : measured.front().ranks;
    o.order = sim::load_rank_order(scenario.cluster, line.rank_order, ranks);
  }
  return o;
}

}  // namespace ringlab::cli
