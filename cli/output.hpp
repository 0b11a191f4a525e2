// Output helpers for the command line: files are written to a temporary name and renamed into
// place, so an error never leaves a half-written output file behind.
#pragma once

#include <functional>
#include <ostream>
#include <string>

#include "ringlab/topology/scenario.hpp"

namespace ringlab::cli {

/// Calls `write` with a stream; if `path` is empty or "-", that stream is standard output, otherwise
/// a temporary file next to `path` that is renamed onto it once `write` returns (a device or pipe such as
/// /dev/null is written in place). Throws
/// InputError when the file cannot be created or written.
void write_output(const std::string& path, const std::function<void(std::ostream&)>& write);

/// Loads the scenario at `path`, or the built-in default scenario when `path` is empty.
Scenario load_scenario_or_default(const std::string& path);

}  // namespace ringlab::cli
