// Scenario files: reading, top-level validation and the built-in default scenario. The "cluster"
// section is read by scenario_cluster.cpp; the format is specified in docs/scenario-format.md.
#include "ringlab/topology/scenario.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ringlab/topology/error.hpp"
#include "json_duplicate_keys.hpp"
#include "scenario_cluster.hpp"
#include "ringlab/topology/json_reader.hpp"

namespace ringlab {
namespace {

constexpr std::string_view kDefaultScenario = R"({
  "ringlab": 1,
  "name": "default",
  "description": "4 servers with 4 V100 each (NVLink all-to-all), one 100 Gb/s EDR InfiniBand NIC per server, one switch",
  "cluster": {
    "generate": {
      "nodes": 4,
      "node": { "template": "v100x4" },
      "fabric": { "kind": "single_switch" }
    }
  }
}
)";

// "line 3, column 5" for a parse error at 1-based byte `byte` (nlohmann's parse_error::byte).
std::string line_and_column(std::string_view text, std::size_t byte) {
  const std::size_t pos = std::min(byte > 0 ? byte - 1 : 0, text.size());
  std::size_t line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < pos; ++i) {
    if (text[i] != '\n') continue;
    ++line;
    line_start = i + 1;
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(pos - line_start + 1);
}

// "line L, column C" of the number nlohmann names in "number overflow parsing '1e400'", or "" when
// the message does not name one.
std::string number_overflow_location(std::string_view text, std::string_view what) {
  const std::size_t open = what.find('\'');
  const std::size_t close = open == std::string_view::npos ? open : what.find('\'', open + 1);
  if (close == std::string_view::npos) return "";
  const std::size_t at = text.find(what.substr(open + 1, close - open - 1));
  return at == std::string_view::npos ? "" : line_and_column(text, at + 1);
}

// nlohmann's message without its "[json.exception.parse_error.101] parse error at ...: " prefix.
std::string parse_error_reason(const nlohmann::json::parse_error& e) {
  const std::string what = e.what();
  const std::size_t start = what.find("parse error");
  const std::size_t colon = start == std::string::npos ? std::string::npos : what.find(": ", start);
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

void read_version(JsonReader& r, const JsonNode& root) {
  const std::string version = std::to_string(kScenarioFormatVersion);
  auto v = r.required(root, "ringlab", "\"ringlab\": " + version + " (the format version)");
  if (!v) return;
  if ((*v)->is_number_integer() && (*v)->get<std::int64_t>() == kScenarioFormatVersion) return;
  r.add(v->path, "unsupported format version " + (*v)->dump() + ": expected " + version);
}

// workload, strategy, train, simulate: kept as written; only their type is checked here.
void read_section(JsonReader& r, const JsonNode& root, std::string_view key, nlohmann::json& out) {
  auto node = r.member(root, key);
  if (node && r.expect_object(*node)) out = **node;
}

std::string file_stem(const std::string& file) { return std::filesystem::path(file).stem().string(); }

}  // namespace

Scenario scenario_from_json(const nlohmann::json& document, const std::string& file_name) {
  ProblemList problems(file_name);
  JsonReader r(problems);
  const JsonNode root{&document, ""};
  Scenario s;
  s.file = file_name;
  s.name = file_stem(file_name);
  s.document = document;
  if (!r.expect_object(root)) problems.throw_if_any();
  r.check_keys(root, {"ringlab", "name", "description", "cluster", "workload", "strategy", "train", "simulate", "nccl",
                      "layout"});
  read_version(r, root);
  if (auto name = r.optional_member(root, "name", [&](const JsonNode& n) { return r.string(n); })) s.name = *name;
  if (auto d = r.optional_member(root, "description", [&](const JsonNode& n) { return r.string(n); }))
    s.description = *d;
  if (auto cluster = r.required(root, "cluster", "an object describing the cluster (\"generate\", \"devices\", ...)"))
    detail::read_cluster(r, *cluster, s.cluster);
  read_section(r, root, "workload", s.workload);
  read_section(r, root, "strategy", s.strategy);
  read_section(r, root, "simulate", s.simulate);
  read_section(r, root, "train", s.train);
  read_section(r, root, "nccl", s.nccl);
  read_section(r, root, "layout", s.layout);
  problems.throw_if_any();
  return s;
}

nlohmann::json parse_json_text(std::string_view json_text, const std::string& file_name) {
  try {
    nlohmann::json document = nlohmann::json::parse(json_text.begin(), json_text.end(), nullptr,
                                                     /*allow_exceptions=*/true, /*ignore_comments=*/true);
    detail::check_duplicate_keys(json_text, file_name);
    return document;
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(file_name, line_and_column(json_text, e.byte), "malformed JSON: " + parse_error_reason(e));
  } catch (const nlohmann::json::out_of_range& e) {  // a number too large for a double, e.g. 1e400
    throw InputError(file_name, number_overflow_location(json_text, e.what()),
                     "a number is out of range: expected a finite number");
  }
}

nlohmann::json read_json_file(const std::string& path, std::string_view what) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw InputError(path, "", "cannot read the " + std::string(what) + ": expected an existing JSON file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open the " + std::string(what) + " for reading");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_json_text(text.str(), path);
}

Scenario parse_scenario(std::string_view json_text, const std::string& file_name) {
  return scenario_from_json(parse_json_text(json_text, file_name), file_name);
}

Scenario load_scenario(const std::string& path) { return scenario_from_json(read_json_file(path, "scenario"), path); }

Scenario default_scenario() { return parse_scenario(kDefaultScenario, ""); }

std::string_view default_scenario_json() { return kDefaultScenario; }

}  // namespace ringlab
