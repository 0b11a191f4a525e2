// InfiniBand `ibnetdiscover` topology output (rdma-core infiniband-diags, "TOPOLOGY FILE FORMAT"):
// per node a few header lines (vendid=, devid=, sysimgguid=, switchguid=/caguid=), the node line
//   Switch|Ca|Rtr <ports> "S-|H-|R-<guid>"  # "<NodeDescription>" ...
// and one line per connected port
//   [port](portguid)? "peer-id"[peer port](peer portguid)?  # ... "peer description" lid N <width>x<speed>
// Every link appears from both ends; links are deduplicated. Switches are named by the Mellanox
// "MF0;<name>:<model>/U1" description when it is unique, else by their "S-<guid>" id; CAs become a
// host (the description's first word) and an HCA (its second word, e.g. "mlx5_0").
//
// Real fabrics also hold (each left out or resolved with a note in the report):
//  - loopback cables, a port cabled to another port of the same node (or two HCAs of one host): skipped;
//  - CAs whose node description was never set: the firmware default ("MT4123 ConnectX6   Mellanox
//    Technologies") or nothing. Each such CA is its own host, named by its id "H-<guid>";
//  - SHARP aggregation nodes ("Mellanox Technologies Aggregation Node"), a CA inside every Quantum
//    switch: not hosts, left out, so that they do not make every switch a leaf.
// Switch tiers come from the graph: switches with hosts are leaves, switches one hop above spines,
// anything higher core.
#include <algorithm>
#include <array>
#include <map>
#include <regex>
#include <set>

#include "import_common.hpp"
#include "ringlab/topology/error.hpp"

namespace ringlab {
namespace {

enum class NodeType { Switch, Ca, Router };

struct IbNode {
  NodeType type = NodeType::Ca;
  std::string description;
  int line = 0;
  bool has_block = false;
};

struct IbLink {
  std::string a, b;  // node ids
  int a_port = 0, b_port = 0;
  int width = 4;
  std::string speed;
  double gbps = 0;  // width x lane rate
  int line = 0;
};

const detail::IbSpeedRow* speed_row(std::string_view name) {
  for (const detail::IbSpeedRow& row : detail::kIbSpeeds)
    if (row.name == name) return &row;
  return nullptr;
}

std::string speed_names() {
  std::string out;
  for (const detail::IbSpeedRow& row : detail::kIbSpeeds) out += (out.empty() ? "" : ", ") + std::string(row.name);
  return out;
}

std::string gbps_text(double gbps) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g Gbps", gbps);
  return buf;
}

NodeType type_of_id(std::string_view id) {
  if (id[0] == 'S') return NodeType::Switch;
  if (id[0] == 'R') return NodeType::Router;
  return NodeType::Ca;
}

class IbParser {
 public:
  explicit IbParser(const std::string& file) : problems_(file) { fabric_.file = file; }

  Fabric parse(std::string_view text) {
    for (const detail::TextLine& l : detail::split_lines(text)) parse_line(l);
    if (nodes_.empty() && problems_.empty())
      problems_.add("", "no Switch or Ca lines: expected ibnetdiscover output (not ibnetdiscover -p)");
    problems_.throw_if_any();
    name_nodes();
    build();
    problems_.throw_if_any();
    return std::move(fabric_);
  }

 private:
  void parse_line(const detail::TextLine& l) {
    const std::string_view t = detail::trim(l.text);
    if (t.empty() || t[0] == '#') return;
    if (t.starts_with("Chassis") || t.starts_with("Non-Chassis")) return;  // -g grouping headers
    static const std::regex header(R"(^(vendid|devid|sysimgguid|switchguid|caguid|rtrguid)=\S+$)");
    static const std::regex node_line(R"re(^(Switch|Ca|Rtr)\s+(\d+)\s+"([SHR]-[0-9a-fA-F]+)"\s*(#\s*"([^"]*)".*)?$)re");
    static const std::regex port_line(
        R"re(^\[(\d+)\](\([0-9a-fA-F]+\))?\s*"([SHR]-[0-9a-fA-F]+)"\[(\d+)\](\([0-9a-fA-F]+\))?\s*#(.*)$)re");
    const std::string s(t);
    std::smatch m;
    if (std::regex_match(s, header)) return;
    if (std::regex_match(s, m, node_line)) return add_node(m, l.number);
    if (std::regex_match(s, m, port_line)) return add_port(m, l.number);
    problems_.add(detail::line_location(l.number),
                  "unrecognised line: expected a header (vendid=, devid=, sysimgguid=, switchguid=, caguid=), a node "
                  "line (Switch|Ca|Rtr <ports> \"S-<guid>\" # \"<description>\"), or a port line "
                  "([port] \"<peer>\"[peer port] # ... <width>x<speed>)");
  }

  void add_node(const std::smatch& m, int line) {
    const std::string id = m[3];
    IbNode& n = nodes_[id];
    if (n.has_block) {
      problems_.add(detail::line_location(line),
                    "node " + id + " appears twice (first at line " + std::to_string(n.line) + "): expected one block per node");
      return;
    }
    const std::string type = m[1];
    n.type = type == "Switch" ? NodeType::Switch : type == "Ca" ? NodeType::Ca : NodeType::Router;
    if (type_of_id(id) != n.type)
      problems_.add(detail::line_location(line), type + " line with id " + id + ": expected an id starting with " +
                                                     (type == "Switch" ? "S-" : type == "Ca" ? "H-" : "R-"));
    n.description = m[5];
    n.line = line;
    n.has_block = true;
    current_ = id;
  }

  void add_port(const std::smatch& m, int line) {
    const std::string where = detail::line_location(line);
    if (current_.empty()) {
      problems_.add(where, "port line before any Switch or Ca line: expected it inside a node block");
      return;
    }
    static const std::regex rate(R"re((\d+)x([A-Z0-9]+)\s*$)re");
    static const std::regex peer_desc(R"re("([^"]*)"\s+lid\s+\d+\s+\d+x[A-Z0-9]+\s*$)re");
    const std::string comment = m[6];
    std::smatch r;
    if (!std::regex_search(comment, r, rate)) {
      problems_.add(where, "no link rate at the end of the port line: expected <width>x<speed> such as 4xHDR");
      return;
    }
    const auto port = detail::parse_count(m[1].str()), peer_port = detail::parse_count(m[4].str()),
               width = detail::parse_count(r[1].str());
    constexpr long kMaxPort = 65535;  // ports and widths are small integers; anything else is corrupt
    if (!port || !peer_port || !width || *port > kMaxPort || *peer_port > kMaxPort || *width > kMaxPort) {
      problems_.add(where, "port number or link width out of range: expected small integers such as [1] and 4x");
      return;
    }
    IbLink link{current_, m[3], int(*port), int(*peer_port), int(*width), r[2], 0, line};
    if (link.b == link.a) {  // a loopback cable: listed from both of its ports, noted once
      const auto ports = std::minmax(link.a_port, link.b_port);
      if (loopbacks_.insert({link.a, ports.first, ports.second}).second)
        node_loopbacks_.push_back({line, link.a, ports.first, ports.second});
      return;
    }
    const detail::IbSpeedRow* row = speed_row(link.speed);
    if (!row) {
      problems_.add(where, "unknown InfiniBand speed \"" + link.speed + "\": expected one of " + speed_names());
      return;
    }
    if (link.width < 1) {
      problems_.add(where, "link width " + std::to_string(link.width) + "x: expected 1x, 2x, 4x, 8x or 12x");
      return;
    }
    link.gbps = link.width * row->gbps_per_lane;
    IbNode& peer = nodes_[link.b];
    if (!peer.has_block) {
      peer.type = type_of_id(link.b);
      if (std::smatch d; std::regex_search(comment, d, peer_desc)) peer.description = d[1];
      if (!peer.line) peer.line = line;
    }
    const std::pair near{link.a, link.a_port}, far{link.b, link.b_port};
    const auto& [lo, hi] = near < far ? std::pair{near, far} : std::pair{far, near};
    if (seen_.insert({lo.first, lo.second, hi.first, hi.second}).second) links_.push_back(std::move(link));
  }

  // ---- naming ----

  static std::string mellanox_name(const std::string& description) {
    static const std::regex mf(R"(^MF0;([^:]+):.*$)");
    std::smatch m;
    return std::regex_match(description, m, mf) ? std::string(m[1]) : std::string();
  }

  void name_nodes() {
    std::map<std::string, int> uses;
    for (const auto& [id, n] : nodes_)
      if (n.type == NodeType::Switch) ++uses[mellanox_name(n.description)];
    int by_guid = 0;
    for (const auto& [id, n] : nodes_) {
      if (n.type != NodeType::Switch) continue;
      const std::string name = mellanox_name(n.description);
      const bool usable = !name.empty() && uses[name] == 1;
      names_[id] = usable ? name : id;
      by_guid += !usable;
    }
    if (by_guid)
      fabric_.report.assumptions.push_back(
          fabric_.file + ": " + std::to_string(by_guid) +
          " switch(es) without a unique \"MF0;<name>:<model>\" description are named by GUID (\"S-<guid>\"); "
          "use ibnetdiscover --node-name-map for readable names");
  }

  // A CA whose node description was never set: empty, or the firmware's "MT<device id> <product>
  // Mellanox Technologies" / "... NVIDIA Technologies" (no host name in it).
  static bool unnamed(const std::string& description) {
    static const std::regex firmware(R"(^\s*(MT\d+\b.*|.*(Mellanox|NVIDIA) Technologies\s*)$)", std::regex::icase);
    return detail::trim(description).empty() || std::regex_match(description, firmware);
  }

  // A SHARP aggregation node: a CA inside a Quantum switch, not a host.
  static bool aggregation_node(const IbNode& n) {
    return n.type == NodeType::Ca && n.description.find("Aggregation Node") != std::string::npos;
  }

  // Host and HCA of a CA: "node01 mlx5_0" -> {node01, mlx5_0}; a one-word description keeps the CA id as
  // HCA; a CA without a host name is host "H-<guid>" with that id as HCA.
  std::pair<std::string, std::string> host_port(const std::string& id) const {
    const IbNode& n = nodes_.at(id);
    if (unnamed(n.description)) return {id, id};
    const auto words = detail::split_fields(n.description);
    return {std::string(words[0]), words.size() > 1 ? std::string(words[1]) : id};
  }

  // ---- fabric ----

  std::map<std::string, double> max_rate_per_node() const {
    std::map<std::string, double> best;
    for (const IbLink& l : links_)
      for (const std::string& end : {l.a, l.b}) best[end] = std::max(best[end], l.gbps);
    return best;
  }

  double majority_rate() const {
    std::map<double, int> count;
    for (const IbLink& l : links_) ++count[l.gbps];
    double best = 0;
    int most = 0;
    for (const auto& [rate, n] : count)
      if (n >= most) best = rate, most = n;  // ties go to the higher rate
    return best;
  }

  std::string end_name(const std::string& id, int port) const {
    const IbNode& n = nodes_.at(id);
    if (n.type == NodeType::Switch) return names_.at(id) + "[" + std::to_string(port) + "]";
    const auto [host, hca] = host_port(id);
    return host + " " + hca;
  }

  // Kind of the link's own speed (ib_hdr for 4xHDR, 2xHDR, ...) with its bandwidth when not 4x; speeds
  // older than EDR take kIbLegacyTimingKind with their own bandwidth.
  std::pair<LinkKind, std::optional<Bandwidth>> kind_of(const IbLink& l) {
    const detail::IbSpeedRow* row = speed_row(l.speed);
    const Bandwidth actual = Bandwidth::from_bits_per_second(l.gbps * 1e9);
    if (row->kind_4x)
      return {*row->kind_4x, l.width == detail::kIbStandardWidth ? std::nullopt : std::optional(actual)};
    legacy_.insert(std::to_string(l.width) + "x" + l.speed);
    return {detail::kIbLegacyTimingKind, actual};
  }

  void build() {
    for (const auto& [id, n] : nodes_)
      if (n.type == NodeType::Router)
        fabric_.report.warnings.push_back(fabric_.file + ": " + detail::line_location(n.line) + ": router " + id +
                                          " is not modelled: its links are left out");
    std::set<std::string> aggregation, nameless;
    for (const auto& [id, n] : nodes_) {
      if (aggregation_node(n)) aggregation.insert(id);
      else if (n.type == NodeType::Ca && unnamed(n.description)) nameless.insert(id);
    }
    std::erase_if(links_, [&](const IbLink& l) { return aggregation.count(l.a) || aggregation.count(l.b); });
    const auto max_rate = max_rate_per_node();
    const double majority = majority_rate();
    std::map<std::tuple<std::string, std::string, LinkKind, double>, std::size_t> bundles;
    for (const IbLink& l : links_) {
      const IbNode &a = nodes_.at(l.a), &b = nodes_.at(l.b);
      if (a.type == NodeType::Router || b.type == NodeType::Router) continue;
      if (a.type == NodeType::Ca && b.type == NodeType::Ca && host_port(l.a).first == host_port(l.b).first) {
        loopback_lines_.push_back(detail::line_location(l.line) + " (host " + host_port(l.a).first + ": " +
                                  host_port(l.a).second + " <-> " + host_port(l.b).second + ")");
        continue;
      }
      const double expected = std::min(max_rate.at(l.a), max_rate.at(l.b));
      check_rate(l, expected, majority);
      const auto [kind, bandwidth] = kind_of(l);
      FabricLink fl{port_of(l.a), port_of(l.b), kind, bandwidth, 1, detail::line_location(l.line)};
      if (!fl.a.host && !fl.b.host) {  // parallel switch cables: one bonded link
        const auto key = std::tuple{std::min(fl.a.device, fl.b.device), std::max(fl.a.device, fl.b.device), kind, l.gbps};
        if (auto it = bundles.find(key); it != bundles.end()) {
          ++fabric_.links[it->second].lanes;
          continue;
        }
        bundles.emplace(key, fabric_.links.size());
      }
      fabric_.links.push_back(std::move(fl));
    }
    std::sort(fabric_.hosts.begin(), fabric_.hosts.end(), detail::natural_less);
    add_switches();
    note_left_out(aggregation, nameless);
    for (const std::string& kind : legacy_)
      fabric_.report.assumptions.push_back(
          fabric_.file + ": " + kind + " has no ringlab link kind: such links are " +
          std::string(to_string(detail::kIbLegacyTimingKind)) + " links with their own bandwidth (IB speed table)");
  }

  void note(const std::string& text) { fabric_.report.assumptions.push_back(fabric_.file + ": " + text); }

  static std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
    return out;
  }

  void note_left_out(const std::set<std::string>& aggregation, const std::set<std::string>& nameless) {
    for (const auto& [line, id, p, q] : node_loopbacks_) {
      const IbNode& n = nodes_.at(id);
      const std::string name = n.type == NodeType::Switch ? names_.at(id) : host_port(id).first + " " + host_port(id).second;
      loopback_lines_.push_back(detail::line_location(line) + " (" + name + " [" + std::to_string(p) + "] <-> [" +
                                std::to_string(q) + "])");
    }
    if (!loopback_lines_.empty())
      note(std::to_string(loopback_lines_.size()) + " loopback cable(s), a port cabled to another port of the same " +
           "node or host, skipped: " + joined(loopback_lines_));
    if (!aggregation.empty())
      note(std::to_string(aggregation.size()) + " SHARP aggregation node(s) (\"Aggregation Node\" CAs inside the " +
           "switches) are not hosts: left out");
    if (!nameless.empty())
      note(std::to_string(nameless.size()) + " CA(s) without a host name in their node description (empty, or the " +
           "firmware default such as \"MT4123 ConnectX6   Mellanox Technologies\"): each is its own host, named by its " +
           "GUID (\"H-<guid>\"); set the hosts' node descriptions to group HCAs by host");
  }

  FabricPort port_of(const std::string& id) {
    const IbNode& n = nodes_.at(id);
    if (n.type == NodeType::Switch) return FabricPort{names_.at(id), false, ""};
    const auto [host, hca] = host_port(id);
    if (std::find(fabric_.hosts.begin(), fabric_.hosts.end(), host) == fabric_.hosts.end()) fabric_.hosts.push_back(host);
    return FabricPort{host, true, hca};
  }

  void check_rate(const IbLink& l, double expected, double majority) {
    const std::string what = fabric_.file + ": " + detail::line_location(l.line) + ": link " + end_name(l.a, l.a_port) +
                             " <-> " + end_name(l.b, l.b_port) + " runs at " + std::to_string(l.width) + "x" + l.speed +
                             " (" + gbps_text(l.gbps) + ")";
    if (l.gbps < expected)
      fabric_.report.warnings.push_back(what + ", below the " + gbps_text(expected) +
                                        " both ends run on other ports: trained down");
    else if (l.gbps < majority)
      fabric_.report.warnings.push_back(what + ", below the fabric's majority rate " + gbps_text(majority) +
                                        ": trained down or a slower device");
  }

  // Leaf: a switch with a CA link; then spine and core by distance (in switch hops) from the leaves.
  void add_switches() {
    std::map<std::string, std::vector<std::string>> adjacent;
    std::map<std::string, int> distance;
    for (const FabricLink& l : fabric_.links) {
      if (l.a.host != l.b.host) distance[l.a.host ? l.b.device : l.a.device] = 0;
      if (l.a.host || l.b.host) continue;
      adjacent[l.a.device].push_back(l.b.device);
      adjacent[l.b.device].push_back(l.a.device);
    }
    std::vector<std::string> frontier;
    for (const auto& [name, d] : distance) frontier.push_back(name);
    for (int level = 1; !frontier.empty(); ++level) {
      std::vector<std::string> next;
      for (const std::string& s : frontier)
        for (const std::string& p : adjacent[s])
          if (distance.emplace(p, level).second) next.push_back(p);
      frontier = std::move(next);
    }
    std::array<int, 3> tiers{};
    for (const auto& [id, n] : nodes_) {
      if (n.type != NodeType::Switch) continue;
      const std::string& name = names_.at(id);
      const auto it = distance.find(name);
      const int d = std::min(it == distance.end() ? 2 : it->second, 2);
      ++tiers[std::size_t(d)];
      fabric_.switches.push_back(FabricSwitch{name, d == 0 ? DeviceKind::Leaf : d == 1 ? DeviceKind::Spine : DeviceKind::Core,
                                              detail::line_location(n.line)});
    }
    if (tiers[1] + tiers[2] > 0)
      note("switch tiers from the graph: " + std::to_string(tiers[0]) + " leaf (switches with hosts), " +
           std::to_string(tiers[1]) + " spine (one switch hop above a leaf), " + std::to_string(tiers[2]) + " core (above)");
  }

  Fabric fabric_;
  ProblemList problems_;
  std::map<std::string, IbNode> nodes_;  // by id, so output order does not depend on file order
  std::map<std::string, std::string> names_;
  std::vector<IbLink> links_;
  std::set<std::tuple<std::string, int, std::string, int>> seen_;
  std::set<std::string> legacy_;
  std::set<std::tuple<std::string, int, int>> loopbacks_;
  std::vector<std::tuple<int, std::string, int, int>> node_loopbacks_;  // line, node id, ports
  std::vector<std::string> loopback_lines_;
  std::string current_;
};

}  // namespace

Fabric parse_ibnetdiscover(std::string_view text, const std::string& file) { return IbParser(file).parse(text); }

}  // namespace ringlab
