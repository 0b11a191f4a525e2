// Results files ("ringlab.results", version 1): predicted and measured Results in one versioned JSON
// form, so a simulation, a validation run on real GPUs and their comparison exchange files. The
// schema is in docs/results-format.md. Writing, reading and writing again gives the same bytes
// (per-op timelines are not written).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringlab/sim/result.hpp"
#include "ringlab/topology/json_reader.hpp"
#include "ringlab/topology/topology.hpp"

namespace ringlab::sim {

inline constexpr std::string_view kResultsSchema = "ringlab.results";
inline constexpr int kResultsVersion = 1;

/// One Result as JSON. Times are integer picoseconds ("_ps"), sizes bytes ("_bytes"). With a
/// topology, each link statistic also names its link direction ("leaf0->spine1"); readers ignore it.
nlohmann::ordered_json result_to_json(const Result& result, const Topology* topology = nullptr);

/// Reads one Result at `node`; problems go to `reader` (nullopt when there were any).
std::optional<Result> read_result(JsonReader& reader, const JsonNode& node);

/// Writes {"schema": "ringlab.results", "version": 1, "results": [...]}, one result per line.
void write_results_json(std::ostream& out, std::span<const Result> results, const Topology* topology = nullptr);

/// Reads a results document; throws InputError naming `source` and the JSON pointer of every problem.
std::vector<Result> read_results_json(const nlohmann::json& document, const std::string& source);

/// Reads a results file (read_json_file + read_results_json).
std::vector<Result> load_results(const std::string& path);

}  // namespace ringlab::sim
