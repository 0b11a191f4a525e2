// Sweep files for `ringlab sweep`: the grid of scenario variants to run and the table of results.
//
// Pure logic, no threads and no running: reading and checking a sweep file (docs/sweep.md), expanding
// its axes into points in a fixed order, writing each point's values into a copy of the base scenario
// at the axes' JSON pointers, picking metric columns out of a runner's JSON result, and writing the
// results as CSV or JSON. The driver (sweep_command.cpp) runs the points; tests drive this directly.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace ringlab::cli {

/// Grid size limits: the default cap a sweep file may raise with "max_points", and the hard ceiling.
inline constexpr std::int64_t kDefaultMaxPoints = 10000;
inline constexpr std::int64_t kMaxPointsCeiling = 1000000;

/// One varied field: where it goes in the scenario and the values it takes, in order.
struct SweepAxis {
  std::string name;                        ///< column name: "name" from the file, else the pointer's last token
  nlohmann::json::json_pointer pointer;    ///< into the scenario document; exists in the base
  std::vector<nlohmann::json> values;      ///< at least one
};

/// One result field reported as a column.
struct SweepMetric {
  std::string name;                      ///< column name
  nlohmann::json::json_pointer pointer;  ///< into the runner's JSON result
};

/// A checked sweep file.
struct SweepSpec {
  std::string file;         ///< the sweep file as given (for messages and the JSON output)
  std::string command;      ///< a key of the commands table given to parse_sweep ("simulate", "train")
  nlohmann::json base;      ///< the base scenario document
  std::string base_source;  ///< the base's path (relative to the working directory), or `file` for an inline base
  std::vector<SweepAxis> axes;                     ///< in file order
  std::vector<std::vector<std::size_t>> factors;   ///< axis indices varying together; outermost first
  std::vector<SweepMetric> metrics;
  std::int64_t point_count = 0;  ///< product of the factors' lengths, at most max_points
};

/// Default metric pointers of each command a sweep can run; a command with an empty list makes "metrics"
/// required in the sweep file.
using SweepCommands = std::map<std::string, std::vector<std::string>>;

/// Checks a parsed sweep document read from `file` and reads its base scenario (a path is relative to the
/// folder of `file`). Throws InputError listing every problem, each naming `file` and a JSON pointer into
/// it (a base scenario that is malformed JSON is reported with its own name, line and column).
SweepSpec parse_sweep(const nlohmann::json& document, const std::string& file, const SweepCommands& commands);

/// Reads the sweep file at `path` (comments allowed) and checks it with parse_sweep().
SweepSpec load_sweep(const std::string& path, const SweepCommands& commands);

/// Index of each axis's value at point `index` (0 <= index < point_count), in axis order. Points are
/// numbered row-major over spec.factors: the last factor varies fastest; zipped axes share one index.
std::vector<std::size_t> point_coordinates(const SweepSpec& spec, std::int64_t index);

/// Each axis's value at point `index`, in axis order.
std::vector<nlohmann::json> point_values(const SweepSpec& spec, std::int64_t index);

/// The scenario document of point `index`: the base with each axis's value written at its pointer, in
/// axis order.
nlohmann::json point_scenario(const SweepSpec& spec, std::int64_t index);

/// The outcome of one point: metric values in spec.metrics order, or an error message.
struct SweepRow {
  std::vector<nlohmann::json> metrics;
  std::string error;  ///< empty when the point succeeded
  bool failed() const { return !error.empty(); }
};

/// Picks spec.metrics out of a runner result; a metric the result lacks makes the row failed.
SweepRow metric_row(const SweepSpec& spec, const nlohmann::json& result);

/// The CSV header line (axis names, metric names, "error") and one point's line, without newlines.
std::string sweep_csv_header(const SweepSpec& spec);
std::string sweep_csv_line(const SweepSpec& spec, std::int64_t index, const SweepRow& row);

/// Writes one CSV line per point (header: axis names, metric names, "error"). rows[i] is point i.
/// Strings are written as they are (quoted when they hold a comma, quote or line break), numbers as
/// JSON writes them, null as an empty cell, arrays and objects as quoted JSON.
void write_sweep_csv(std::ostream& out, const SweepSpec& spec, const std::vector<SweepRow>& rows);

/// The sweep result's JSON schema name and version (docs/sweep.md).
inline constexpr std::string_view kSweepResultsSchema = "ringlab.sweep-results";
inline constexpr int kSweepResultsVersion = 1;

/// Writes the sweep's axes, metrics and one entry per point (values, then metrics or error) as JSON:
/// {"schema": "ringlab.sweep-results", "version": 1, "ringlab": 1, "sweep", "command", ...}.
void write_sweep_json(std::ostream& out, const SweepSpec& spec, const std::vector<SweepRow>& rows);

}  // namespace ringlab::cli
