// Scenario "nccl" section and --nccl-env (nccl_env_options.hpp).
#include "nccl_env_options.hpp"

#include <iostream>

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

}  // namespace ringlab::cli
