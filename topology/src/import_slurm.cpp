// Slurm topology.conf (topology/tree) and hostlist expressions, plus the tree-to-fabric step shared
// with topology.yaml (import_slurm_yaml.cpp). Format: SchedMD slurm doc/man/man5/topology.conf.5.
#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>

#include "import_common.hpp"
#include "ringlab/topology/error.hpp"

namespace ringlab {
namespace {

using detail::kMaxHostlistNames;

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

// Splits at commas that are not inside brackets.
std::vector<std::string_view> top_level_items(std::string_view expr) {
  std::vector<std::string_view> items;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= expr.size(); ++i) {
    if (i < expr.size() && expr[i] == '[') ++depth;
    if (i < expr.size() && expr[i] == ']') --depth;
    if (i < expr.size() && (expr[i] != ',' || depth > 0)) continue;
    items.push_back(expr.substr(start, i - start));
    start = i + 1;
  }
  return items;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string padded(long value, std::size_t width) {
  std::string digits = std::to_string(value);
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

// "001-003,7" -> {"001","002","003","7"}
std::vector<std::string> expand_group(std::string_view group, std::string_view expr) {
  std::vector<std::string> out;
  if (group.empty()) throw std::invalid_argument("empty brackets in " + quoted(expr) + ": expected numbers such as [0-3,7]");
  for (std::string_view part : top_level_items(group)) {
    const std::size_t dash = part.find('-');
    const std::string_view lo = part.substr(0, dash);
    const std::string_view hi = dash == std::string_view::npos ? lo : part.substr(dash + 1);
    if (!all_digits(lo) || !all_digits(hi))
      throw std::invalid_argument("bad range " + quoted(part) + " in " + quoted(expr) +
                                  ": expected a number or a range such as 0-15 or 001-128");
    const auto a = detail::parse_count(lo), b = detail::parse_count(hi);
    if (!a || !b || *b < *a)
      throw std::invalid_argument("range " + quoted(part) + " in " + quoted(expr) +
                                  " runs backwards or overflows: expected low-high with low <= high");
    if (std::size_t(*b - *a) >= kMaxHostlistNames)
      throw std::invalid_argument("range " + quoted(part) + " in " + quoted(expr) + " is too large: expected at most " +
                                  std::to_string(kMaxHostlistNames) + " names");
    for (long v = *a; v <= *b; ++v) out.push_back(padded(v, lo.size()));
  }
  return out;
}

// One item without top-level commas: literal text and bracket groups, expanded as a product.
void expand_item(std::string_view item, std::string_view expr, std::vector<std::string>& out) {
  std::vector<std::string> names{""};
  std::size_t i = 0;
  while (i < item.size()) {
    const std::size_t open = item.find_first_of("[]", i);
    const std::string_view literal = item.substr(i, open == std::string_view::npos ? open : open - i);
    for (std::string& n : names) n += literal;
    if (open == std::string_view::npos) break;
    if (item[open] == ']')
      throw std::invalid_argument("unbalanced ']' in " + quoted(expr) + ": expected [ before ]");
    const std::size_t close = item.find_first_of("[]", open + 1);
    if (close == std::string_view::npos || item[close] == '[')
      throw std::invalid_argument("unclosed '[' in " + quoted(expr) + ": expected a closing ]");
    const auto values = expand_group(item.substr(open + 1, close - open - 1), expr);
    if (names.size() * values.size() > kMaxHostlistNames)
      throw std::invalid_argument(quoted(expr) + " expands to too many names: expected at most " +
                                  std::to_string(kMaxHostlistNames));
    std::vector<std::string> product;
    product.reserve(names.size() * values.size());
    for (const std::string& n : names)
      for (const std::string& v : values) product.push_back(n + v);
    names = std::move(product);
    i = close + 1;
  }
  out.insert(out.end(), names.begin(), names.end());
}

// ---- topology.conf ---------------------------------------------------------------------------------

struct ConfLine {
  int number;
  std::string text;  // comment removed, continuation lines joined
};

std::vector<ConfLine> logical_lines(std::string_view text) {
  std::vector<ConfLine> out;
  std::optional<ConfLine> pending;
  for (const detail::TextLine& l : detail::split_lines(text)) {
    std::string_view body = l.text.substr(0, l.text.find('#'));
    body = detail::trim(body);
    const bool continues = !body.empty() && body.back() == '\\';
    if (continues) body.remove_suffix(1);
    if (!pending) pending = ConfLine{l.number, ""};
    pending->text += " " + std::string(body);
    if (continues) continue;
    if (!detail::trim(pending->text).empty()) out.push_back(*pending);
    pending.reset();
  }
  if (pending && !detail::trim(pending->text).empty()) out.push_back(*pending);
  return out;
}

class ConfParser {
 public:
  explicit ConfParser(const std::string& file) : problems_(file) { fabric_.file = file; }

  Fabric parse(std::string_view text) {
    for (const ConfLine& line : logical_lines(text)) parse_line(line);
    if (switches_.empty() && problems_.empty())
      problems_.add("", "no SwitchName= lines: expected a topology/tree configuration (SwitchName=, Switches=, Nodes=)");
    problems_.throw_if_any();
    if (link_speeds_)
      fabric_.report.assumptions.push_back(fabric_.file + ": LinkSpeed= is in arbitrary units (Slurm does not use it): " +
                                           "ignored on " + std::to_string(link_speeds_) + " switch(es)");
    detail::add_slurm_tree(fabric_, switches_, problems_);
    problems_.throw_if_any();
    return std::move(fabric_);
  }

 private:
  void parse_line(const ConfLine& line) {
    const std::string where = detail::line_location(line.number);
    detail::SlurmSwitch sw;
    sw.location = where;
    bool named = false;
    for (std::string_view token : detail::split_fields(line.text)) {
      const std::size_t eq = token.find('=');
      if (eq == std::string_view::npos) {
        problems_.add(where, "\"" + std::string(token) + "\" has no '=': expected Key=value pairs");
        return;
      }
      const std::string_view key = token.substr(0, eq), value = token.substr(eq + 1);
      if (value.empty()) {
        problems_.add(where, std::string(key) + "= has no value: expected " + expected_value(key));
        continue;
      }
      if (detail::iequals(key, "SwitchName")) {
        sw.name = value;
        named = true;
      } else if (detail::iequals(key, "Switches")) {
        expand(value, where, sw.switches);
      } else if (detail::iequals(key, "Nodes")) {
        expand(value, where, sw.nodes);
      } else if (detail::iequals(key, "LinkSpeed")) {
        ++link_speeds_;
      } else if (is_other_plugin(key)) {
        problems_.add(where, std::string(key) + "= belongs to another Slurm topology plugin: ringlab imports "
                                                "topology/tree (expected SwitchName=, Switches=, Nodes=, LinkSpeed=)");
        return;
      } else {
        problems_.add(where, "unknown key \"" + std::string(key) +
                                 "\": expected SwitchName=, Switches=, Nodes= or LinkSpeed=");
      }
    }
    if (!named) {
      problems_.add(where, "no SwitchName=: expected each line to name a switch (SwitchName=NAME ...)");
      return;
    }
    switches_.push_back(std::move(sw));
  }

  static bool is_other_plugin(std::string_view key) {
    for (std::string_view k : {"BlockName", "BlockSizes", "RingName"})
      if (detail::iequals(key, k)) return true;
    return false;
  }

  static std::string expected_value(std::string_view key) {
    if (detail::iequals(key, "SwitchName")) return "a switch name";
    if (detail::iequals(key, "LinkSpeed")) return "a number";
    return "a hostlist such as node[01-16]";
  }

  void expand(std::string_view value, const std::string& where, std::vector<std::string>& out) {
    try {
      const auto names = expand_hostlist(value);
      if (!names_.take(names.size())) {
        problems_.add(where, names_.message());
        return;
      }
      out.insert(out.end(), names.begin(), names.end());
    } catch (const std::invalid_argument& e) {
      problems_.add(where, e.what());
    }
  }

  Fabric fabric_;
  ProblemList problems_;
  std::vector<detail::SlurmSwitch> switches_;
  detail::NameBudget names_;
  int link_speeds_ = 0;
};

}  // namespace

std::vector<std::string> expand_hostlist(std::string_view expression) {
  const std::string_view expr = detail::trim(expression);
  if (expr.empty()) throw std::invalid_argument("empty hostlist: expected names such as node[01-16]");
  std::vector<std::string> out;
  for (std::string_view item : top_level_items(expr)) {
    item = detail::trim(item);
    if (item.empty())
      throw std::invalid_argument("empty name in " + quoted(expr) + ": expected names separated by single commas");
    expand_item(item, expr, out);
    if (out.size() > kMaxHostlistNames)
      throw std::invalid_argument(quoted(expr) + " expands to too many names: expected at most " +
                                  std::to_string(kMaxHostlistNames));
  }
  return out;
}

Fabric parse_slurm_topology_conf(std::string_view text, const std::string& file) { return ConfParser(file).parse(text); }

namespace detail {

void add_slurm_tree(Fabric& fabric, const std::vector<SlurmSwitch>& switches, ProblemList& problems) {
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < switches.size(); ++i) {
    const auto [it, fresh] = index.emplace(switches[i].name, i);
    if (!fresh)
      problems.add(switches[i].location, "duplicate switch \"" + switches[i].name + "\" (first at " +
                                             switches[it->second].location + "): expected unique switch names");
  }
  for (const SlurmSwitch& sw : switches)
    for (const std::string& child : sw.switches)
      if (!index.count(child))
        problems.add(sw.location, "switch \"" + sw.name + "\" lists child switch \"" + child +
                                      "\", which is not defined: expected a switch of this file");
  if (!problems.empty()) return;

  // Height: 1 for a switch without child switches, else 1 + the highest child; a cycle is an error.
  std::vector<int> height(switches.size(), 0);  // 0 unknown, -1 in progress
  bool cycle = false;
  std::function<int(std::size_t)> visit = [&](std::size_t i) -> int {
    if (height[i] > 0) return height[i];
    if (height[i] < 0) {
      if (!cycle) problems.add(switches[i].location, "switch \"" + switches[i].name +
                                                         "\" is its own ancestor: expected a tree (no cycles)");
      cycle = true;
      return 1;
    }
    height[i] = -1;
    int h = 1;
    for (const std::string& child : switches[i].switches) h = std::max(h, 1 + visit(index.at(child)));
    return height[i] = h;
  };
  for (std::size_t i = 0; i < switches.size(); ++i) visit(i);
  if (cycle) return;

  std::set<std::string> parented, hosts;
  for (const SlurmSwitch& sw : switches)
    for (const std::string& child : sw.switches) parented.insert(child);
  for (std::size_t i = 0; i < switches.size(); ++i) {
    const int h = height[i];
    const DeviceKind kind = h == 1 ? DeviceKind::Leaf : h == 2 ? DeviceKind::Spine : DeviceKind::Core;
    fabric.switches.push_back(FabricSwitch{switches[i].name, kind, switches[i].location});
  }
  for (const SlurmSwitch& sw : switches) {
    std::set<std::string> seen;
    for (const std::string& node : sw.nodes) {
      if (!seen.insert(node).second) continue;
      if (index.count(node))
        problems.add(sw.location, "\"" + node + "\" is both a switch and a node: expected distinct names");
      if (hosts.insert(node).second) fabric.hosts.push_back(node);
      fabric.links.push_back(FabricLink{FabricPort{node, true, ""}, FabricPort{sw.name, false, ""}, {}, {}, 1, sw.location});
    }
    for (const std::string& child : sw.switches)
      if (seen.insert(child).second)
        fabric.links.push_back(
            FabricLink{FabricPort{child, false, ""}, FabricPort{sw.name, false, ""}, {}, {}, 1, sw.location});
    if (sw.nodes.empty() && sw.switches.empty())
      fabric.report.warnings.push_back(fabric.file + ": " + sw.location + ": switch \"" + sw.name +
                                       "\" has no nodes and no child switches");
  }
  // Several top-level switches (separate networks) are reported by combine(), with their lines.
  if (fabric.hosts.empty()) problems.add("", "no Nodes= in any switch: expected at least one node under a switch");
}

}  // namespace detail
}  // namespace ringlab
