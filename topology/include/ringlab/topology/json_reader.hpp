// JsonReader: typed access to a parsed JSON document that records a Problem (RFC 6901 JSON pointer +
// what was expected) for every mismatch instead of throwing, so a reader can keep going and report
// every problem of a file at once. Shared by the scenario loader, the training sections, the
// "simulate" section and sweep files.
#pragma once

#include <cstdint>
#include <exception>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ringlab/topology/error.hpp"
#include "ringlab/topology/suggest.hpp"
#include "ringlab/topology/units.hpp"

namespace ringlab {

/// A value in the document and its JSON pointer ("/cluster/links/3").
struct JsonNode {
  const nlohmann::json* value = nullptr;
  std::string path;
  const nlohmann::json& operator*() const { return *value; }
  const nlohmann::json* operator->() const { return value; }
};

/// "/a" + "b" -> "/a/b", escaping '~' and '/' in the key as RFC 6901 requires.
std::string child_path(const std::string& parent, std::string_view key);
std::string child_path(const std::string& parent, std::size_t index);

class JsonReader {
 public:
  explicit JsonReader(ProblemList& problems) : problems_(problems) {}

  void add(std::string path, std::string message) { problems_.add(std::move(path), std::move(message)); }
  std::size_t problem_count() const { return problems_.size(); }

  /// True when the node is of the type; otherwise records "expected ..., got ..." and returns false.
  bool expect_object(const JsonNode& node);
  bool expect_array(const JsonNode& node);

  /// A member of an object node, or nullopt when absent. Precondition: object.value is an object.
  std::optional<JsonNode> member(const JsonNode& object, std::string_view key) const;
  /// Like member(), but records "missing required field: expected <expected>" when absent.
  std::optional<JsonNode> required(const JsonNode& object, std::string_view key, std::string_view expected);
  /// Records one problem per key of `object` not in `allowed`, listing the accepted keys; `context`
  /// ("for fabric kind racks") is added to the message when given.
  void check_keys(const JsonNode& object, std::initializer_list<std::string_view> allowed,
                  std::string_view context = {});
  /// A versioned document's "schema" and "version" members: records a problem unless they are
  /// `schema` and `version` (both required). True when both are right.
  bool check_schema(const JsonNode& root, std::string_view schema, int version);
  /// Elements of an array node with their paths.
  std::vector<JsonNode> elements(const JsonNode& array) const;

  /// Typed reads of a node; each records a problem and returns nullopt on a mismatch.
  std::optional<std::string> string(const JsonNode& node, std::string_view expected = "a string");
  std::optional<std::int64_t> integer(const JsonNode& node, std::int64_t lo, std::int64_t hi);
  /// Any integer from 0 to UINT64_MAX.
  std::optional<std::uint64_t> unsigned_integer(const JsonNode& node);
  std::optional<double> number(const JsonNode& node);
  /// A number from lo to hi; `what` ("a probability") names it in the message.
  std::optional<double> number(const JsonNode& node, double lo, double hi, std::string_view what = "a number");
  std::optional<bool> boolean(const JsonNode& node);
  /// A string with a unit, e.g. "400Gbps"; must be > 0.
  std::optional<Bandwidth> bandwidth(const JsonNode& node);
  /// A string with a unit, e.g. "1.5us"; must be >= 0.
  std::optional<Duration> duration(const JsonNode& node);

  /// A string with a unit converted by `parse` (parse_bytes, ...), whose exception text becomes the
  /// problem; `expected` describes the string ("a size with a unit such as \"25MiB\"").
  template <typename Parse>
  auto with_unit(const JsonNode& node, std::string_view expected, Parse parse)
      -> std::optional<decltype(parse(std::string()))> {
    const auto text = string(node, expected);
    if (!text) return std::nullopt;
    try {
      return parse(*text);
    } catch (const std::exception& e) {
      add(node.path, e.what());
    }
    return std::nullopt;
  }
  /// A byte size with a unit, e.g. "25MiB".
  std::optional<Bytes> bytes(const JsonNode& node);

  /// A name looked up with `find` (find_link_kind, ...); on a miss records
  /// `unknown <what> "<name>": expected one of <names>`.
  template <typename T, typename Find>
  std::optional<T> name(const JsonNode& node, Find find, std::string_view what, const std::string& names) {
    const auto text = string(node, "a " + std::string(what) + " name (one of " + names + ")");
    if (!text) return std::nullopt;
    if (std::optional<T> found = find(*text)) return found;
    add(node.path, "unknown " + std::string(what) + " \"" + *text + "\"" + did_you_mean(*text, names) +
                       ": expected one of " + names);
    return std::nullopt;
  }

  /// A value looked up with `find`; on a miss records `unknown value '<text>'; expected <expected>`.
  template <typename Find>
  auto choice(const JsonNode& node, Find find, const std::string& expected) -> decltype(find(std::string())) {
    const auto text = string(node);
    if (!text) return std::nullopt;
    if (auto found = find(*text)) return found;
    add(node.path, "unknown value '" + *text + "'" + did_you_mean(*text, expected) + "; expected " + expected);
    return std::nullopt;
  }

  /// Reads member `key` of `object` with `read` when present; nullopt when absent or invalid.
  template <typename Read>
  auto optional_member(const JsonNode& object, std::string_view key, Read read) -> decltype(read(object)) {
    if (auto node = member(object, key)) return read(*node);
    return std::nullopt;
  }

  /// Section fields: overwrite `into` with member `key` of `object` when it is present and valid, and
  /// leave `into` (the default) otherwise; a mismatch is recorded. Precondition as member().
  void field(const JsonNode& object, std::string_view key, std::string& into);
  void field(const JsonNode& object, std::string_view key, bool& into);
  void field(const JsonNode& object, std::string_view key, int& into, int lo, int hi);
  void field(const JsonNode& object, std::string_view key, std::uint64_t& into);
  void field(const JsonNode& object, std::string_view key, double& into, double lo, double hi,
             std::string_view what = "a number");
  void field(const JsonNode& object, std::string_view key, Bytes& into);
  /// A field looked up with `find`, as choice().
  template <typename T, typename Find>
  void choice_field(const JsonNode& object, std::string_view key, T& into, Find find, const std::string& expected) {
    if (auto v = optional_member(object, key, [&](const JsonNode& n) { return choice(n, find, expected); })) into = *v;
  }
  /// Member `key` of `object` as an object node: a shared empty object when absent, and also (after
  /// recording the mismatch) when it is not an object, so that its fields keep their defaults.
  JsonNode section(const JsonNode& object, std::string_view key);

 private:
  void wrong_type(const JsonNode& node, std::string_view expected);
  ProblemList& problems_;
};

}  // namespace ringlab
