// Sweep files: checking, grid expansion, pointer substitution, metric columns and CSV/JSON output.
// The format is specified in docs/sweep.md.
#include "sweep_grid.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "ringlab/topology/error.hpp"
#include "ringlab/topology/json_reader.hpp"
#include "ringlab/topology/scenario.hpp"
#include "ringlab/topology/suggest.hpp"

namespace ringlab::cli {
namespace {

using Json = nlohmann::json;
using Pointer = Json::json_pointer;

/// Tolerance on range end points, so that 0.1 to 0.5 step 0.1 ends at 0.5 despite rounding.
constexpr double kRangeTolerance = 1e-9;
/// Significant digits kept in non-integer range values (0.1 + 2 * 0.1 is written 0.3).
constexpr int kRangeDigits = 12;

const char* type_name(const Json& v) {
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return "null";
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// Unknown keys of `object` (at JSON pointer `at`) are reported with the accepted ones.
void check_keys(JsonReader& c, const Json& object, const std::string& at,
                std::initializer_list<std::string_view> keys) {
  c.check_keys(JsonNode{&object, at}, keys);
}

std::optional<Pointer> read_pointer(JsonReader& c, const Json& v, const std::string& at, const std::string& example) {
  if (!v.is_string() || v.get<std::string>().empty() || v.get<std::string>()[0] != '/') {
    c.add(at, "expected a JSON pointer string such as \"" + example + "\"");
    return std::nullopt;
  }
  try {
    return Pointer(v.get<std::string>());
  } catch (const Json::exception&) {
    c.add(at, "not a valid JSON pointer (a '~' must be written ~0 and a '/' in a key ~1)");
    return std::nullopt;
  }
}

// Rounds a non-integer range value to kRangeDigits significant digits.
double round_digits(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", kRangeDigits, v);
  return std::stod(buf);
}

// Integer ranges are exact: from, from*times (or from+step), ... while <= to.
std::vector<Json> integer_range(std::int64_t from, std::int64_t to, std::int64_t by, bool times) {
  std::vector<Json> values;
  for (std::int64_t v = from; std::int64_t(values.size()) <= kMaxPointsCeiling; v = times ? v * by : v + by) {
    values.emplace_back(v);
    const bool next_fits = times ? v <= to / by : v <= to - by;
    if (!next_fits) break;
  }
  return values;
}

// Other ranges: from * times^i or from + i*step for i = 0, 1, ... while <= to (within kRangeTolerance).
std::vector<Json> real_range(double from, double to, double by, bool times) {
  const double steps = times ? std::log(to / from) / std::log(by) : (to - from) / by;
  const double count = std::floor(std::min(steps, double(kMaxPointsCeiling)) + kRangeTolerance) + 1;
  std::vector<Json> values;
  for (double i = 0; i < count; ++i) values.emplace_back(round_digits(times ? from * std::pow(by, i) : from + i * by));
  return values;
}

// {"from": a, "to": b, "times": f} or {"from": a, "to": b, "step": s} into its values.
std::vector<Json> expand_range(const Json& range, const std::string& at, JsonReader& c) {
  check_keys(c, range, at, {"from", "to", "times", "step"});
  const bool times = range.contains("times");
  if (times == range.contains("step")) {
    c.add(at, "expected exactly one of \"times\" (from, from*times, ...) or \"step\" (from, from+step, ...)");
    return {};
  }
  const char* how = times ? "times" : "step";
  bool numbers = true;
  for (const char* key : {"from", "to", how}) {
    if (range.contains(key) && range[key].is_number()) continue;
    c.add(at + "/" + key, "expected a number");
    numbers = false;
  }
  if (!numbers) return {};
  const double from = range["from"].get<double>();
  const double to = range["to"].get<double>();
  const double by = range[how].get<double>();
  const std::size_t problems = c.problem_count();
  if (to < from) c.add(at + "/to", "expected \"to\" >= \"from\"");
  if (times && (by <= 1 || from <= 0)) c.add(at, "a \"times\" range needs \"times\" > 1 and \"from\" > 0");
  if (!times && by <= 0) c.add(at + "/step", "expected a step > 0");
  if (c.problem_count() != problems) return {};
  std::vector<Json> values = range["from"].is_number_integer() && range["to"].is_number_integer() &&
                                     range[how].is_number_integer()
                                 ? integer_range(range["from"].get<std::int64_t>(), range["to"].get<std::int64_t>(),
                                                 range[how].get<std::int64_t>(), times)
                                 : real_range(from, to, by, times);
  if (std::int64_t(values.size()) > kMaxPointsCeiling)
    c.add(at, "more than " + std::to_string(kMaxPointsCeiling) + " values");
  return values;
}

bool same_kind(const Json& a, const Json& b) {
  return (a.is_number() && b.is_number()) || a.type() == b.type();
}

std::optional<SweepAxis> read_axis(const Json& entry, const std::string& at, const Json& base, JsonReader& c) {
  if (!entry.is_object()) {
    c.add(at, "expected an object {\"pointer\": \"/simulate/algorithm\", \"values\": [...]}");
    return std::nullopt;
  }
  check_keys(c, entry, at, {"pointer", "values", "name"});
  SweepAxis axis;
  const std::optional<Pointer> pointer =
      read_pointer(c, entry.value("pointer", Json()), at + "/pointer", "/cluster/generate/nodes");
  const Json* target = nullptr;
  if (pointer) {
    try {
      target = &base.at(*pointer);
      axis.pointer = *pointer;
    } catch (const Json::exception&) {
      c.add(at + "/pointer", "'" + pointer->to_string() +
                                 "' is not in the base scenario; an axis replaces a field the base scenario has "
                                 "(write the field there with any value)");
    }
  }
  if (entry.contains("name")) {
    if (entry["name"].is_string() && !entry["name"].get<std::string>().empty()) axis.name = entry["name"].get<std::string>();
    else c.add(at + "/name", "expected a non-empty string");
  } else if (pointer) {
    axis.name = pointer->back();
  }
  const Json values = entry.value("values", Json());
  if (values.is_array()) axis.values.assign(values.begin(), values.end());
  else if (values.is_object()) axis.values = expand_range(values, at + "/values", c);
  else c.add(at + "/values", "expected a list of values or a range {\"from\": 1, \"to\": 64, \"times\": 2}");
  if (values.is_array() && values.empty()) c.add(at + "/values", "empty; expected at least one value");
  if (!target) return axis;
  for (std::size_t i = 0; i < axis.values.size(); ++i) {
    if (same_kind(axis.values[i], *target)) continue;
    const std::string where = values.is_array() ? at + "/values/" + std::to_string(i) : at + "/values";
    c.add(where, std::string("expected ") + type_name(*target) + " like the base scenario's " +
                     pointer->to_string() + " (" + target->dump() + "), got " + axis.values[i].dump());
    break;
  }
  return axis;
}

// "zip": [["/a", "/b"], ...]: groups of axis pointers that vary together.
std::vector<std::vector<std::size_t>> read_zip(const Json& zip, const std::vector<SweepAxis>& axes, JsonReader& c) {
  std::vector<std::vector<std::size_t>> groups;
  if (!zip.is_array()) {
    c.add("/zip", "expected a list of groups of axis pointers, e.g. [[\"/a\", \"/b\"]]");
    return groups;
  }
  std::vector<int> group_of(axes.size(), -1);
  for (std::size_t g = 0; g < zip.size(); ++g) {
    const std::string at = "/zip/" + std::to_string(g);
    if (!zip[g].is_array() || zip[g].size() < 2) {
      c.add(at, "expected a list of at least two axis pointers");
      continue;
    }
    std::vector<std::size_t> group;
    for (std::size_t k = 0; k < zip[g].size(); ++k) {
      const std::string member_at = at + "/" + std::to_string(k);
      const Json& ref = zip[g][k];
      auto it = std::find_if(axes.begin(), axes.end(), [&](const SweepAxis& a) {
        return ref.is_string() && !a.pointer.empty() && a.pointer.to_string() == ref.get<std::string>();
      });
      if (it == axes.end()) {
        c.add(member_at, "expected the pointer of an axis, got " + ref.dump());
        continue;
      }
      const auto axis = std::size_t(it - axes.begin());
      if (group_of[axis] >= 0) {
        c.add(member_at, "axis " + ref.get<std::string>() + " is already in zip group " + std::to_string(group_of[axis]));
        continue;
      }
      group_of[axis] = int(g);
      group.push_back(axis);
    }
    for (std::size_t axis : group) {
      if (axes[axis].values.size() == axes[group[0]].values.size()) continue;
      c.add(at, "axes " + axes[group[0]].pointer.to_string() + " (" + std::to_string(axes[group[0]].values.size()) +
                    " values) and " + axes[axis].pointer.to_string() + " (" +
                    std::to_string(axes[axis].values.size()) + " values) vary together and need equally many values");
      break;
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

// Factors in axis order: a zip group stands where its first axis is.
std::vector<std::vector<std::size_t>> make_factors(std::size_t axis_count,
                                                   const std::vector<std::vector<std::size_t>>& groups) {
  std::vector<std::vector<std::size_t>> factors;
  std::vector<bool> placed(axis_count, false);
  for (std::size_t i = 0; i < axis_count; ++i) {
    if (placed[i]) continue;
    auto group = std::find_if(groups.begin(), groups.end(), [&](const auto& g) {
      return std::find(g.begin(), g.end(), i) != g.end();
    });
    std::vector<std::size_t> factor = group == groups.end() ? std::vector<std::size_t>{i} : *group;
    std::sort(factor.begin(), factor.end());
    for (std::size_t a : factor) placed[a] = true;
    factors.push_back(std::move(factor));
  }
  return factors;
}

std::vector<SweepMetric> read_metrics(const Json& metrics, JsonReader& c) {
  std::vector<SweepMetric> out;
  if (!metrics.is_array() || metrics.empty()) {
    c.add("/metrics", "expected a non-empty list of JSON pointers into the result, e.g. [\"/results/0/time_us\"]");
    return out;
  }
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const std::string at = "/metrics/" + std::to_string(i);
    const Json& m = metrics[i];
    SweepMetric metric;
    if (m.is_object()) {
      check_keys(c, m, at, {"name", "pointer"});
      if (auto p = read_pointer(c, m.value("pointer", Json()), at + "/pointer", "/results/0/time_us")) metric.pointer = *p;
      if (m.contains("name") && m["name"].is_string() && !m["name"].get<std::string>().empty()) metric.name = m["name"].get<std::string>();
      else c.add(at + "/name", "expected a non-empty string");
    } else if (auto p = read_pointer(c, m, at, "/results/0/time_us")) {
      metric.pointer = *p;
      metric.name = p->back();
    }
    out.push_back(std::move(metric));
  }
  return out;
}

std::int64_t read_max_points(const Json& document, JsonReader& c) {
  const auto read = [&](const JsonNode& n) { return c.integer(n, 1, kMaxPointsCeiling); };
  return c.optional_member(JsonNode{&document, ""}, "max_points", read).value_or(kDefaultMaxPoints);
}

// Column names must be unique: they head the CSV and key the JSON.
void check_columns(const SweepSpec& spec, JsonReader& c) {
  std::map<std::string, std::string> seen{{"error", "the error column"}};
  auto check = [&](const std::string& name, const std::string& at) {
    if (name.empty()) return;
    auto [it, fresh] = seen.emplace(name, at);
    if (!fresh) c.add(at, "column name '" + name + "' is already used by " + it->second + "; give a \"name\"");
  };
  for (std::size_t i = 0; i < spec.axes.size(); ++i) check(spec.axes[i].name, "/axes/" + std::to_string(i));
  for (std::size_t i = 0; i < spec.metrics.size(); ++i) check(spec.metrics[i].name, "/metrics/" + std::to_string(i));
}

// The base scenario: inline, or a file relative to the sweep file's folder.
void read_base(const Json& document, SweepSpec& spec, JsonReader& c) {
  spec.base_source = spec.file;
  if (!document.contains("base")) return c.add("", "missing \"base\": a scenario file or an inline scenario object");
  const Json& base = document["base"];
  if (base.is_object()) {
    spec.base = base;
    return;
  }
  if (!base.is_string() || base.get<std::string>().empty())
    return c.add("/base", "expected the path of a scenario file or an inline scenario object");
  namespace fs = std::filesystem;
  const fs::path path = (fs::path(spec.file).parent_path() / base.get<std::string>()).lexically_normal();
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    return c.add("/base", "cannot read '" + path.generic_string() +
                              "': expected an existing scenario file (a path relative to the sweep file's folder)");
  spec.base_source = path.generic_string();
  spec.base = read_json_file(spec.base_source, "base scenario");
  if (!spec.base.is_object()) c.add("/base", "'" + spec.base_source + "' does not hold a JSON object");
}

std::int64_t count_points(const SweepSpec& spec, std::int64_t max_points, JsonReader& c) {
  std::int64_t count = 1;
  std::string sizes;
  for (const auto& factor : spec.factors) {
    const auto n = std::int64_t(spec.axes[factor[0]].values.size());
    sizes += (sizes.empty() ? "" : " x ") + std::to_string(n);
    count = count > max_points / n ? max_points + 1 : count * n;  // saturates just above the cap
  }
  if (count <= max_points) return count;
  c.add("/axes", "the grid of " + sizes + " values has more than " + std::to_string(max_points) +
                     " points (the cap); shrink the axes or raise \"max_points\" (at most " +
                     std::to_string(kMaxPointsCeiling) + ")");
  return 0;
}

std::string csv_cell(const Json& v) {
  if (v.is_null()) return "";
  const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
  const bool quote = v.is_structured() || text.find_first_of(",\"\r\n") != std::string::npos;
  if (!quote) return text;
  std::string out = "\"";
  for (char ch : text) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

}  // namespace

SweepSpec parse_sweep(const Json& document, const std::string& file, const SweepCommands& commands) {
  ProblemList problems(file);
  JsonReader c(problems);
  SweepSpec spec;
  spec.file = file;
  if (!document.is_object()) {
    c.add("", "expected a JSON object with \"base\", \"command\" and \"axes\" (see docs/sweep.md)");
    problems.throw_if_any();
  }
  check_keys(c, document, "", {"ringlab", "description", "base", "command", "axes", "zip", "metrics", "max_points"});
  if (document.value("ringlab", Json()) != Json(1)) c.add("/ringlab", "expected \"ringlab\": 1 (the format version)");
  std::vector<std::string> names;
  for (const auto& [name, defaults] : commands) names.push_back(name);
  const Json command = document.value("command", Json());
  if (command.is_string() && commands.count(command.get<std::string>())) spec.command = command.get<std::string>();
  else if (command.is_string()) c.add("/command", unknown_name_message("command", command.get<std::string>(), join(names)));
  else c.add("/command", "expected one of " + join(names) + ", got " + command.dump());
  read_base(document, spec, c);

  const Json axes = document.value("axes", Json());
  if (!axes.is_array() || axes.empty()) c.add("/axes", "expected a non-empty list of axes");
  for (std::size_t i = 0; axes.is_array() && i < axes.size(); ++i) {
    const std::string at = "/axes/" + std::to_string(i);
    if (auto axis = read_axis(axes[i], at, spec.base, c)) {
      for (std::size_t k = 0; k < spec.axes.size(); ++k)
        if (!axis->pointer.empty() && spec.axes[k].pointer == axis->pointer)
          c.add(at + "/pointer", "the same pointer as /axes/" + std::to_string(k));
      spec.axes.push_back(std::move(*axis));
    }
  }
  const auto groups = document.contains("zip") ? read_zip(document["zip"], spec.axes, c)
                                               : std::vector<std::vector<std::size_t>>{};
  spec.factors = make_factors(spec.axes.size(), groups);

  if (document.contains("metrics")) {
    spec.metrics = read_metrics(document["metrics"], c);
  } else if (!spec.command.empty()) {
    const std::vector<std::string>& defaults = commands.at(spec.command);
    if (defaults.empty()) c.add("/metrics", "the command '" + spec.command + "' has no default metrics; list them");
    for (const std::string& p : defaults) spec.metrics.push_back({Pointer(p).back(), Pointer(p)});
  }
  check_columns(spec, c);
  const std::int64_t max_points = read_max_points(document, c);
  if (problems.empty()) spec.point_count = count_points(spec, max_points, c);
  problems.throw_if_any();
  return spec;
}

SweepSpec load_sweep(const std::string& path, const SweepCommands& commands) {
  return parse_sweep(read_json_file(path, "sweep file"), path, commands);
}

std::vector<std::size_t> point_coordinates(const SweepSpec& spec, std::int64_t index) {
  std::vector<std::size_t> coordinates(spec.axes.size(), 0);
  for (auto f = spec.factors.rbegin(); f != spec.factors.rend(); ++f) {
    const auto n = std::int64_t(spec.axes[f->front()].values.size());
    for (std::size_t axis : *f) coordinates[axis] = std::size_t(index % n);
    index /= n;
  }
  return coordinates;
}

std::vector<Json> point_values(const SweepSpec& spec, std::int64_t index) {
  const std::vector<std::size_t> at = point_coordinates(spec, index);
  std::vector<Json> values;
  for (std::size_t i = 0; i < spec.axes.size(); ++i) values.push_back(spec.axes[i].values[at[i]]);
  return values;
}

Json point_scenario(const SweepSpec& spec, std::int64_t index) {
  Json scenario = spec.base;
  const std::vector<Json> values = point_values(spec, index);
  for (std::size_t i = 0; i < spec.axes.size(); ++i) scenario[spec.axes[i].pointer] = values[i];
  return scenario;
}

SweepRow metric_row(const SweepSpec& spec, const Json& result) {
  SweepRow row;
  for (const SweepMetric& m : spec.metrics) {
    if (!result.contains(m.pointer)) {
      row.metrics.clear();
      row.error = "the result has no " + m.pointer.to_string() + " (metric '" + m.name + "')";
      return row;
    }
    row.metrics.push_back(result.at(m.pointer));
  }
  return row;
}

std::string sweep_csv_header(const SweepSpec& spec) {
  std::string line;
  for (const SweepAxis& a : spec.axes) line += (line.empty() ? "" : ",") + csv_cell(a.name);
  for (const SweepMetric& m : spec.metrics) line += (line.empty() ? "" : ",") + csv_cell(m.name);
  return line + (line.empty() ? "" : ",") + "error";
}

std::string sweep_csv_line(const SweepSpec& spec, std::int64_t index, const SweepRow& row) {
  std::string line;
  for (const Json& v : point_values(spec, index)) line += csv_cell(v) + ',';
  for (std::size_t m = 0; m < spec.metrics.size(); ++m) line += (row.failed() ? std::string() : csv_cell(row.metrics[m])) + ',';
  return line + csv_cell(row.error);
}

void write_sweep_csv(std::ostream& out, const SweepSpec& spec, const std::vector<SweepRow>& rows) {
  out << sweep_csv_header(spec) << '\n';
  for (std::int64_t i = 0; i < std::int64_t(rows.size()); ++i) out << sweep_csv_line(spec, i, rows[std::size_t(i)]) << '\n';
}

void write_sweep_json(std::ostream& out, const SweepSpec& spec, const std::vector<SweepRow>& rows) {
  using Ordered = nlohmann::ordered_json;
  Ordered doc;
  doc["schema"] = kSweepResultsSchema;
  doc["version"] = kSweepResultsVersion;
  doc["ringlab"] = 1;
  doc["sweep"] = spec.file;
  doc["command"] = spec.command;
  doc["axes"] = Ordered::array();
  for (const SweepAxis& a : spec.axes) doc["axes"].push_back({{"name", a.name}, {"pointer", a.pointer.to_string()}});
  doc["metrics"] = Ordered::array();
  for (const SweepMetric& m : spec.metrics)
    doc["metrics"].push_back({{"name", m.name}, {"pointer", m.pointer.to_string()}});
  Ordered points = Ordered::array();
  std::int64_t failed = 0;
  for (std::int64_t i = 0; i < std::int64_t(rows.size()); ++i) {
    const SweepRow& row = rows[std::size_t(i)];
    Ordered point;
    point["index"] = i;
    Ordered values = Ordered::object();
    const std::vector<Json> axis_values = point_values(spec, i);
    for (std::size_t a = 0; a < spec.axes.size(); ++a) values[spec.axes[a].name] = Ordered(axis_values[a]);
    point["values"] = values;
    if (row.failed()) {
      point["error"] = row.error;
      ++failed;
    } else {
      Ordered metrics = Ordered::object();
      for (std::size_t m = 0; m < spec.metrics.size(); ++m) metrics[spec.metrics[m].name] = Ordered(row.metrics[m]);
      point["metrics"] = metrics;
    }
    points.push_back(std::move(point));
  }
  doc["points"] = std::move(points);
  doc["failed"] = failed;
  out << doc.dump(2) << '\n';
}

}  // namespace ringlab::cli
