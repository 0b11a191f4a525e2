// What `ringlab compare` and `ringlab calibrate` share: reading measurement files (ringlab.results,
// nccl-tests text or JSON), telling a scenario from a results file, and the prediction settings
// (--rank-order, --algo, --calibration) of measured runs.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "ringlab/sim/predict.hpp"
#include "ringlab/topology/scenario.hpp"

namespace ringlab::cli {

struct PredictLine {
  std::string rank_order;           ///< --rank-order: plan.json, hostfile, ...
  std::string algorithm = "nccl";   ///< --algo
  std::string calibration;          ///< --calibration: pure, nccl or a file ("": nccl for nccl, else pure)
  bool in_place = false;            ///< --in-place: nccl-tests' in-place half
  std::vector<std::string> nccl_env;  ///< --nccl-env NAME=VALUE, over the scenario's "nccl" section
  std::string collective;           ///< --collective: for nccl-tests text that does not name it
};

/// Adds --rank-order, --algo, --calibration and --in-place to `cmd`.
void add_predict_options(CLI::App& cmd, PredictLine& line);

/// True when the JSON file at `path` is a scenario (has the "ringlab" format key), false otherwise.
bool is_scenario_file(const std::string& path);

/// Every measured run of `paths`, in file order (the in-place half with --in-place). Output that
/// does not name its collective takes --collective, else the scenario's /simulate/collective; runs
/// that do not list their devices are taken to span every GPU of `scenario` (said on stderr as
/// "assumed: ..."). `scenario` may be null (results files need neither).
std::vector<sim::Result> load_all_measurements(const std::vector<std::string>& paths, const PredictLine& line,
                                               const Scenario* scenario = nullptr);

/// The prediction settings for `measured` runs on `scenario` (the rank order sized to their rank count).
/// Under --algo nccl, what the measured output says NCCL ran under fills what the scenario and
/// --nccl-env leave unset (said on stderr): NCCL's release, and the settings NCCL's log in the
/// text files of `paths` reports ("NCCL INFO NCCL_ALGO set by environment to RING").
sim::PredictOptions predict_options(const Scenario& scenario, const PredictLine& line,
                                    const std::vector<sim::Result>& measured, const std::vector<std::string>& paths);

/// The channel counts NCCL's log in the text files of `paths` reports for its communicators ("NCCL
/// INFO 32 coll channels, ..." at init, NCCL_DEBUG=INFO: src/init.cc), distinct, in order of
/// appearance; empty where no such line is logged.
std::vector<int> logged_coll_channels(const std::vector<std::string>& paths);

}  // namespace ringlab::cli
