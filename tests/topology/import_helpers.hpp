// Helpers shared by the import tests: fixtures under tests/data/import, the problems an importer
// reports, and per-device lookups in an imported cluster.
#pragma once

#include <catch2/catch.hpp>
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "ringlab/topology/error.hpp"
#include "ringlab/topology/import.hpp"

namespace ringlab::test {

inline std::string import_fixture(const std::string& name) {
  return read_import_file(std::string(RINGLAB_SOURCE_DIR) + "/tests/data/import/" + name);
}

/// The problems `parse` throws (empty when it does not throw); each must name `file`.
inline std::vector<Problem> import_problems(const std::function<void()>& parse, const std::string& file) {
  try {
    parse();
  } catch (const InputError& e) {
    for (const Problem& p : e.problems()) CHECK(p.file == file);
    return e.problems();
  }
  return {};
}

/// The first problem; fails the test when there is none.
inline Problem first_problem(const std::function<void()>& parse, const std::string& file) {
  const auto problems = import_problems(parse, file);
  REQUIRE_FALSE(problems.empty());
  INFO(problems.front().to_string());
  return problems.front();
}

inline int count_kind(const Topology& t, DeviceKind kind) {
  int n = 0;
  for (const Device& d : t.devices()) n += d.kind == kind;
  return n;
}

/// Some line of `lines` contains `text`.
inline bool any_contains(const std::vector<std::string>& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

inline int count_links(const Topology& t, LinkKind kind) {
  int n = 0;
  for (const Link& l : t.links()) n += l.kind == kind;
  return n;
}

/// The link between two named devices; fails when there is none.
inline const Link& link_between(const Topology& t, const std::string& a, const std::string& b) {
  const DeviceId x = t.device_by_name(a), y = t.device_by_name(b);
  for (const Adjacency& adj : t.neighbors(x))
    if (adj.peer == y) return t.link(adj.link);
  FAIL("no link between " << a << " and " << b);
  throw std::logic_error("unreachable");
}

}  // namespace ringlab::test
