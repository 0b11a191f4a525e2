// The NCCL environment a command runs the nccl algorithm under: the scenario's "nccl" section
// ({"NCCL_ALGO": "Ring", "NCCL_MAX_NCHANNELS": 8, ...}) with --nccl-env NAME=VALUE given over it.
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "ringlab/sim/nccl_env.hpp"
#include "ringlab/sim/payload.hpp"
#include "ringlab/sim/schedule.hpp"
#include "ringlab/topology/scenario.hpp"

namespace ringlab::cli {

/// Adds the repeatable --nccl-env NAME=VALUE option to `cmd`, collected into `settings`.
void add_nccl_env_option(CLI::App& cmd, std::vector<std::string>& settings);

/// The scenario's "nccl" section, then `settings` (later wins). Throws InputError naming the file
/// and JSON path (/nccl/NAME) or --nccl-env and what was expected; prints each warning to stderr as
/// "ringlab: warning: ...".
sim::NcclEnv read_nccl_env(const Scenario& scenario, const std::vector<std::string>& settings);

/// Under NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=TUNING (env.debug_tuning), a warning to stderr that
/// `what` prints no NCCL tuning log (simulate and compare with --algo nccl do), so that the setting
/// is never ignored silently.
void warn_no_tuning_log(const sim::NcclEnv& env, const std::string& what);

/// Under NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=TUNING (env.debug_tuning), prints to `err` what NCCL
/// logs at rank 0, from ringlab's model of NCCL on `ranks` of `cluster`: the tuning table, then the
/// algorithm of one call per size, each line prefixed "ringlab: NCCL INFO " (NCCL's own prefix is
/// "host:pid:tid [dev] NCCL INFO "). Prints nothing otherwise, or where NCCL's view of the cluster
/// cannot be formed (the run itself reports why).
void print_nccl_tuning_log(std::ostream& err, const Topology& cluster, std::span<const DeviceId> ranks,
                           const sim::NcclEnv& env, sim::Collective collective, std::span<const Bytes> sizes,
                           const sim::Payload& payload);

}  // namespace ringlab::cli
