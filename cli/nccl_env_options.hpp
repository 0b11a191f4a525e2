// The NCCL environment a command runs the nccl algorithm under: the scenario's "nccl" section
// ({"NCCL_ALGO": "Ring", "NCCL_MAX_NCHANNELS": 8, ...}) with --nccl-env NAME=VALUE given over it.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "ringlab/sim/nccl_env.hpp"
#include "ringlab/topology/scenario.hpp"

namespace ringlab::cli {

/// Adds the repeatable --nccl-env NAME=VALUE option to `cmd`, collected into `settings`.
void add_nccl_env_option(CLI::App& cmd, std::vector<std::string>& settings);

/// The scenario's "nccl" section, then `settings` (later wins). Throws InputError naming the file
/// and JSON path (/nccl/NAME) or --nccl-env and what was expected; prints each warning to stderr as
/// "ringlab: warning: ...".
sim::NcclEnv read_nccl_env(const Scenario& scenario, const std::vector<std::string>& settings);

}  // namespace ringlab::cli
