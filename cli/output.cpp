// Scenario loading for the command line; atomic output files are ringlab::write_output
// (topology/output_file.hpp), shared with the harness.
#include "output.hpp"

namespace ringlab::cli {

Scenario load_scenario_or_default(const std::string& path) {
  if (path.empty()) return default_scenario();
  return load_scenario(path);
}

}  // namespace ringlab::cli
