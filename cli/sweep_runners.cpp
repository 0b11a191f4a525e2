// The runner table of `ringlab sweep`: one line per command that a sweep file's "command" may name.
#include "sweep_runners.hpp"

#include "commands.hpp"

namespace ringlab::cli {

const std::map<std::string, SweepRunner>& sweep_runners() {
  static const std::map<std::string, SweepRunner> kRunners{
      // The first size of each point (give the base scenario one size, or sweep "/simulate/sizes").
      {"simulate",
       {run_simulate_json, {"/results/0/size_B", "/results/0/time_us", "/results/0/algbw_GBps", "/results/0/busbw_GBps"}}},
      {"train",
       {run_train_json,
        {"/step/step_s", "/step/exposed_comm_s", "/step/comm_fraction", "/samples_per_second", "/scaling_efficiency",
         "/time_to_train_s"}}},
  };
  return kRunners;
}

}  // namespace ringlab::cli
