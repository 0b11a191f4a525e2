// JsonReader: typed, problem-collecting access to JSON documents (see json_reader.hpp).
#include "ringlab/topology/json_reader.hpp"

#include <cmath>
#include <limits>
#include <sstream>

namespace ringlab {
namespace {

constexpr std::size_t kMaxShownValue = 40;  // characters of a wrong value quoted in a message

// "number 100", "string \"abc\"", "array" -- what the user wrote, briefly.
std::string describe(const nlohmann::json& value) {
  if (value.is_array() || value.is_object() || value.is_null()) return value.type_name();
  std::string text = value.dump();
  if (text.size() > kMaxShownValue) text = text.substr(0, kMaxShownValue) + "...";
  return std::string(value.type_name()) + " " + text;
}

// 1e+13, 0.5, 2: range ends as a reader would write them.
std::string format_number(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

}  // namespace

std::string child_path(const std::string& parent, std::string_view key) {
  std::string out = parent + "/";
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

std::string child_path(const std::string& parent, std::size_t index) { return parent + "/" + std::to_string(index); }

void JsonReader::wrong_type(const JsonNode& node, std::string_view expected) {
  add(node.path, "expected " + std::string(expected) + ", got " + describe(*node));
}

bool JsonReader::expect_object(const JsonNode& node) {
  if (node->is_object()) return true;
  wrong_type(node, "an object");
  return false;
}

bool JsonReader::expect_array(const JsonNode& node) {
  if (node->is_array()) return true;
  wrong_type(node, "an array");
  return false;
}

std::optional<JsonNode> JsonReader::member(const JsonNode& object, std::string_view key) const {
  auto it = object->find(key);
  if (it == object->end()) return std::nullopt;
  return JsonNode{&*it, child_path(object.path, key)};
}

std::optional<JsonNode> JsonReader::required(const JsonNode& object, std::string_view key, std::string_view expected) {
  if (auto node = member(object, key)) return node;
  add(child_path(object.path, key), "missing required field: expected " + std::string(expected));
  return std::nullopt;
}

void JsonReader::check_keys(const JsonNode& object, std::initializer_list<std::string_view> allowed,
                            std::string_view context) {
  for (const auto& [key, value] : object->items()) {
    bool known = false;
    for (std::string_view a : allowed) known = known || a == key;
    if (known) continue;
    std::string names;
    for (std::string_view a : allowed) names += (names.empty() ? "" : ", ") + std::string(a);
    const std::string where = context.empty() ? "" : " " + std::string(context);
    add(child_path(object.path, key),
        "unknown key \"" + key + "\"" + did_you_mean(key, names) + where + ": expected one of " + names);
  }
}

std::vector<JsonNode> JsonReader::elements(const JsonNode& array) const {
  std::vector<JsonNode> out;
  for (std::size_t i = 0; i < array->size(); ++i) out.push_back(JsonNode{&(*array)[i], child_path(array.path, i)});
  return out;
}

std::optional<std::string> JsonReader::string(const JsonNode& node, std::string_view expected) {
  if (node->is_string()) return node->get<std::string>();
  wrong_type(node, expected);
  return std::nullopt;
}

std::optional<std::int64_t> JsonReader::integer(const JsonNode& node, std::int64_t lo, std::int64_t hi) {
  if (!node->is_number_integer()) {
    wrong_type(node, "an integer");
    return std::nullopt;
  }
  const std::string expected = "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
  // Unsigned values above INT64_MAX read back negative; compare as unsigned first.
  const bool too_big = node->is_number_unsigned() && node->get<std::uint64_t>() > std::uint64_t(hi);
  const std::int64_t v = too_big ? hi : node->get<std::int64_t>();
  if (too_big || v < lo || v > hi) {
    wrong_type(node, expected);
    return std::nullopt;
  }
  return v;
}

std::optional<double> JsonReader::number(const JsonNode& node) {
  if (node->is_number() && std::isfinite(node->get<double>())) return node->get<double>();
  wrong_type(node, "a number");
  return std::nullopt;
}

std::optional<std::uint64_t> JsonReader::unsigned_integer(const JsonNode& node) {
  // Values built in code (not parsed) may be signed even when non-negative.
  if (node->is_number_unsigned() || (node->is_number_integer() && node->get<std::int64_t>() >= 0))
    return node->get<std::uint64_t>();
  wrong_type(node, "an integer from 0 to " + std::to_string(std::numeric_limits<std::uint64_t>::max()));
  return std::nullopt;
}

std::optional<double> JsonReader::number(const JsonNode& node, double lo, double hi, std::string_view what) {
  if (node->is_number() && node->get<double>() >= lo && node->get<double>() <= hi) return node->get<double>();
  wrong_type(node, std::string(what) + " from " + format_number(lo) + " to " + format_number(hi));
  return std::nullopt;
}

std::optional<bool> JsonReader::boolean(const JsonNode& node) {
  if (node->is_boolean()) return node->get<bool>();
  wrong_type(node, "true or false");
  return std::nullopt;
}

std::optional<Bandwidth> JsonReader::bandwidth(const JsonNode& node) {
  constexpr std::string_view expected = "a bandwidth string with a unit such as \"400Gbps\" or \"50GB/s\"";
  if (node->is_number()) {
    add(node.path, "missing unit: expected " + std::string(expected) + ", got " + describe(*node));
    return std::nullopt;
  }
  const auto text = string(node, expected);
  if (!text) return std::nullopt;
  try {
    const Bandwidth bw = parse_bandwidth(*text);
    if (bw.bits_per_second() > 0 && std::isfinite(bw.bits_per_second())) return bw;
    add(node.path, "bandwidth \"" + *text + "\" is not positive: expected a bandwidth > 0");
  } catch (const UnitError& e) {
    add(node.path, e.what());
  }
  return std::nullopt;
}

std::optional<Duration> JsonReader::duration(const JsonNode& node) {
  constexpr std::string_view expected = "a duration string with a unit such as \"1.5us\" or \"700ns\"";
  if (node->is_number() && node->get<double>() != 0) {
    add(node.path, "missing unit: expected " + std::string(expected) + ", got " + describe(*node));
    return std::nullopt;
  }
  if (node->is_number()) return Duration{};
  const auto text = string(node, expected);
  if (!text) return std::nullopt;
  try {
    const Duration d = parse_duration(*text);
    if (d >= Duration{}) return d;
    add(node.path, "duration \"" + *text + "\" is negative: expected a duration >= 0");
  } catch (const UnitError& e) {
    add(node.path, e.what());
  }
  return std::nullopt;
}

std::optional<Bytes> JsonReader::bytes(const JsonNode& node) {
  return with_unit(node, "a size with a unit such as \"25MiB\"", [](const std::string& text) { return parse_bytes(text); });
}

void JsonReader::field(const JsonNode& object, std::string_view key, std::string& into) {
  if (auto v = optional_member(object, key, [&](const JsonNode& n) { return string(n); })) into = *v;
}

void JsonReader::field(const JsonNode& object, std::string_view key, bool& into) {
  if (auto v = optional_member(object, key, [&](const JsonNode& n) { return boolean(n); })) into = *v;
}

void JsonReader::field(const JsonNode& object, std::string_view key, int& into, int lo, int hi) {
  if (auto v = optional_member(object, key, [&](const JsonNode& n) { return integer(n, lo, hi); })) into = int(*v);
}

void JsonReader::field(const JsonNode& object, std::string_view key, std::uint64_t& into) {
  if (auto v = optional_member(object, key, [&](const JsonNode& n) { return unsigned_integer(n); })) into = *v;
}

void JsonReader::field(const JsonNode& object, std::string_view key, double& into, double lo, double hi,
                       std::string_view what) {
  if (auto v = optional_member(object, key, [&](const JsonNode& n) { return number(n, lo, hi, what); })) into = *v;
}

void JsonReader::field(const JsonNode& object, std::string_view key, Bytes& into) {
  if (auto v = optional_member(object, key, [&](const JsonNode& n) { return bytes(n); })) into = *v;
}

JsonNode JsonReader::section(const JsonNode& object, std::string_view key) {
  static const nlohmann::json kEmpty = nlohmann::json::object();
  auto node = member(object, key);
  if (node && expect_object(*node)) return *node;
  return JsonNode{&kEmpty, child_path(object.path, key)};
}

bool JsonReader::check_schema(const JsonNode& root, std::string_view schema, int version) {
  const std::size_t before = problem_count();
  const std::string quoted = "\"" + std::string(schema) + "\"";
  if (auto n = required(root, "schema", quoted))
    if (auto v = string(*n); v && *v != schema) add(n->path, "expected schema " + quoted + ", got \"" + *v + "\"");
  if (auto n = required(root, "version", std::to_string(version)))
    if (auto v = integer(*n, 0, std::numeric_limits<int>::max()); v && *v != version)
      add(n->path, "unsupported version " + std::to_string(*v) + ": this build reads version " + std::to_string(version));
  return problem_count() == before;
}

}  // namespace ringlab
