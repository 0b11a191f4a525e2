// The commands `ringlab sweep` can run at each point: a name, the headless function that runs a scenario
// document and returns the command's JSON result, and the result fields reported by default.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ringlab::cli {

/// Runs one scenario document headless; throws InputError naming `source` for an invalid scenario.
/// Must be safe to call from several threads at once.
using SweepFunction = nlohmann::json (*)(const nlohmann::json& scenario, const std::string& source);

struct SweepRunner {
  SweepFunction run;
  std::vector<std::string> default_metrics;  ///< JSON pointers into the result; empty = the file must list them
};

/// Every runnable command by name.
const std::map<std::string, SweepRunner>& sweep_runners();

}  // namespace ringlab::cli
