// Output helpers for the command line: atomic output files (ringlab::write_output) and scenario loading.
#pragma once

#include <functional>
#include <ostream>
#include <string>

#include "ringlab/topology/output_file.hpp"
#include "ringlab/topology/scenario.hpp"

namespace ringlab::cli {

using ringlab::write_output;

/// Loads the scenario at `path`, or the built-in default scenario when `path` is empty.
Scenario load_scenario_or_default(const std::string& path);

}  // namespace ringlab::cli
