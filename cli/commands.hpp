// Subcommand registration for the ringlab command line. Each add_* function attaches a subcommand
// to the app and stores a callback; the callback throws InputError on bad user input.
#pragma once

#include <CLI/CLI.hpp>

namespace ringlab::cli {

void add_topo_commands(CLI::App& app);
/// `topo import`, attached to the `topo` subcommand.
void add_import_command(CLI::App& topo);
void add_simulate_command(CLI::App& app);

}  // namespace ringlab::cli
