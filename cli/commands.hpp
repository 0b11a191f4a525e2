// Subcommand registration for the ringlab command line. Each add_* function attaches a subcommand
// to the app and stores a callback; the callback throws InputError on bad user input.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace ringlab::cli {

/// What `ringlab --version` prints (RINGLAB_VERSION is the CMake project version).
inline constexpr std::string_view kVersionText = "ringlab " RINGLAB_VERSION;

/// Exit codes of the ringlab command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;          ///< a bug: an unexpected exception
inline constexpr int kExitBadInput = 2;          ///< bad scenario, sweep file or option value; nothing written
inline constexpr int kExitSomePointsFailed = 3;  ///< sweep: output written, but some points failed
inline constexpr int kExitCheckFailed = 3;       ///< plan --check: some launch file does not encode the plan

void add_topo_commands(CLI::App& app);
/// `topo import`, attached to the `topo` subcommand.
void add_import_command(CLI::App& topo);
void add_simulate_command(CLI::App& app);
void add_sweep_command(CLI::App& app);
void add_train_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_calibrate_command(CLI::App& app);
void add_plan_command(CLI::App& app);

/// Runs the scenario document's "simulate" section headless and returns what `simulate --format json`
/// prints. `source` names the document in problems (and is the scenario's name when it has none).
/// Throws InputError for an invalid scenario or settings. Deterministic; safe to call from several
/// threads at once (each call builds its own topology and simulator).
nlohmann::json run_simulate_json(const nlohmann::json& scenario, const std::string& source);

/// Thrown by a command that has written its output but must end with a non-zero exit status
/// (sweep: some points failed); main() returns `code` and prints nothing more.
struct ExitStatus {
  int code;
};

/// Runs the scenario document's training job headless and returns what `train --format json` prints.
/// Throws InputError naming `source` and the JSON path on bad input.
nlohmann::json run_train_json(const nlohmann::json& scenario, const std::string& source);

}  // namespace ringlab::cli
