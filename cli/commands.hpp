// Subcommand registration for the ringlab command line. Each add_* function attaches a subcommand
// to the app and stores a callback; the callback throws InputError on bad user input.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

namespace ringlab::cli {

void add_topo_commands(CLI::App& app);
void add_simulate_command(CLI::App& app);
void add_train_command(CLI::App& app);

/// Runs the scenario document's training job headless and returns what `train --format json` prints.
/// Throws InputError naming `source` and the JSON path on bad input.
nlohmann::json run_train_json(const nlohmann::json& scenario, const std::string& source);

}  // namespace ringlab::cli
