// Scenario "nccl" section and --nccl-env (nccl_env_options.hpp).
#include "nccl_env_options.hpp"

#include <iostream>
#include <optional>
#include <stdexcept>

#include "ringlab/sim/nccl_tuning.hpp"

namespace ringlab::cli {

void add_nccl_env_option(CLI::App& cmd, std::vector<std::string>& settings) {
  cmd.add_option("--nccl-env", settings,
                 "NCCL setting NAME=VALUE for the nccl algorithm (NCCL_ALGO, NCCL_PROTO, NCCL_MIN/MAX_NCHANNELS, "
                 "NCCL_NVLS_ENABLE, NCCL_COLLNET_ENABLE, NCCL_BUFFSIZE, ...); repeatable, over the scenario's \"nccl\"")
      ->type_name("NAME=VALUE");
}

sim::NcclEnv read_nccl_env(const Scenario& scenario, const std::vector<std::string>& settings) {
  std::vector<std::string> warnings;
  sim::NcclEnv env = sim::nccl_env_from(scenario.nccl, scenario.file, settings, warnings);
  for (const std::string& w : warnings) std::cerr << "ringlab: warning: " << w << "\n";
  return env;
}

void warn_no_tuning_log(const sim::NcclEnv& env, const std::string& what) {
  if (!env.debug_tuning) return;
  std::cerr << "ringlab: warning: NCCL_DEBUG_SUBSYS=TUNING: " << what
            << " prints no NCCL tuning log (simulate and compare with --algo nccl do)\n";
}

void print_nccl_tuning_log(std::ostream& err, const Topology& cluster, std::span<const DeviceId> ranks,
                           const sim::NcclEnv& env, sim::Collective collective, std::span<const Bytes> sizes,
                           const sim::Payload& payload) {
  if (!env.debug_tuning || ranks.size() < 2) return;
  std::optional<Topology> view;
  try {
    view = sim::nccl_view(cluster, ranks, env);
  } catch (const std::invalid_argument&) {
    return;
  }
  const sim::NcclModel model = sim::nccl_model(view ? *view : cluster, ranks, env);
  constexpr const char* kPrefix = "ringlab: NCCL INFO ";
  for (const std::string& line : sim::nccl_tuning_table(model)) err << kPrefix << line << "\n";
  for (const Bytes size : sizes) {
    const sim::NcclChoice choice = sim::nccl_choose(model, collective, size, payload);
    if (choice.unavailable.empty()) err << kPrefix << sim::nccl_choice_line(model, collective, size, choice) << "\n";
  }
}

}  // namespace ringlab::cli
