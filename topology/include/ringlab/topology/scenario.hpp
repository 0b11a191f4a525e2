// Scenario files: the JSON document a user writes (cluster, workload, strategy, simulation settings)
// read into a validated Scenario. The format is specified in docs/scenario-format.md.
//
// Only the "cluster" section is interpreted here (it becomes a Topology); "workload", "strategy",
// "train" and "simulate" are checked to be objects and kept as raw JSON for the layers that own them. Loading is
// all-or-nothing: every problem in the file is collected, then one InputError (error.hpp) is thrown
// whose problems each carry the file name, a JSON pointer ("/cluster/links/3/bandwidth") or a line and
// column for malformed JSON, and what was expected.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "ringlab/topology/topology.hpp"

namespace ringlab {

/// Format version written as the top-level "ringlab" key; the only one this build reads.
inline constexpr int kScenarioFormatVersion = 1;

struct Scenario {
  std::string file;         ///< the file name as given by the user ("" for built-in scenarios)
  std::string name;         ///< "name", or the file's stem when the file gives none
  std::string description;  ///< "description", or ""
  Topology cluster;         ///< generated and explicit parts of "cluster", validated
  nlohmann::json workload = nlohmann::json::object();  ///< "workload" as written (an object)
  nlohmann::json strategy = nlohmann::json::object();  ///< "strategy" as written (an object)
  nlohmann::json simulate = nlohmann::json::object();  ///< "simulate" as written (an object)
  nlohmann::json train = nlohmann::json::object();     ///< "train" as written (an object)
  /// "nccl" as written (an object of NCCL_* environment settings, read by the sim layer's nccl algorithm)
  nlohmann::json nccl = nlohmann::json::object();
  /// "layout" as written (an object): where ringlab-gui draws things; nothing else reads it.
  nlohmann::json layout = nlohmann::json::object();
  nlohmann::json document;                             ///< the whole document as read, for editors that save it back
};

/// Reads and validates a scenario file. Throws InputError listing every problem (a file that cannot be
/// read is one problem). Deterministic: the same file gives the same Topology ids.
Scenario load_scenario(const std::string& path);

/// Validates scenario text; `file_name` is only used in problem reports and Scenario::file.
/// Throws InputError listing every problem.
Scenario parse_scenario(std::string_view json_text, const std::string& file_name);

/// Validates an already parsed document (e.g. one edited in the GUI). Throws InputError.
Scenario scenario_from_json(const nlohmann::json& document, const std::string& file_name);

/// Parses JSON text as scenario files are parsed (`//` and `/* */` comments allowed) without checking
/// what it holds. A syntax error throws InputError naming `file_name` and the line and column; so does a
/// key given twice in one object (naming its JSON pointer and both places), which nlohmann::json would
/// otherwise resolve silently by keeping the last.
nlohmann::json parse_json_text(std::string_view json_text, const std::string& file_name);

/// Reads and parses the JSON file at `path` like parse_json_text(). A missing or unreadable file throws
/// InputError naming `path`; `what` names the file in that message ("scenario", "sweep file").
nlohmann::json read_json_file(const std::string& path, std::string_view what);

/// The built-in scenario used when none is given: 4 servers of 4 V100 (NVLink all-to-all), one
/// 100 Gb/s EDR InfiniBand NIC each, on a single switch. Empty workload, strategy and simulate.
Scenario default_scenario();

/// The JSON text of default_scenario(), a complete example of the format.
std::string_view default_scenario_json();

}  // namespace ringlab
