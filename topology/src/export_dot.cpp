// Graphviz DOT export for people (export.hpp, write_dot): one cluster box per rack and per host,
// fabric switches on one rank line per tier (core above spine above leaf), short link labels in the
// words a datasheet uses ("400G IB", "NVLink4 x18", "PCIe5 x16", "100G RoCE"), one colour per link
// family with a legend, and identical parallel links drawn once with a count. Above a size the hosts
// are collapsed to one box each ("node0: 8x H100, 8x 400G IB") so a 1,024-GPU fabric still lays out
// in seconds.
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "ringlab/topology/export.hpp"

namespace ringlab {
namespace {

constexpr double kGiga = 1e9;
constexpr double kTera = 1e12;
constexpr double kMega = 1e6;
constexpr double kMaxPenWidth = 6.0;  ///< widest edge, for the most parallel links
constexpr std::size_t kHostsPerRow = 4;  ///< collapsed hosts of a rack are laid out this many abreast

/// The colour of a link family (edges and legend), chosen to tell the families apart at a glance.
struct FamilyStyle {
  LinkFamily family;
  const char* name;
  const char* colour;
};
constexpr std::array<FamilyStyle, 6> kFamilyStyles{{{LinkFamily::NvLink, "NVLink", "#76b900"},
                                                    {LinkFamily::Pcie, "PCIe", "#1f77b4"},
                                                    {LinkFamily::Smp, "CPU socket link", "#7f7f7f"},
                                                    {LinkFamily::InfiniBand, "InfiniBand", "#9467bd"},
                                                    {LinkFamily::Ethernet, "Ethernet", "#ff7f0e"},
                                                    {LinkFamily::Custom, "custom", "#000000"}}};

const FamilyStyle& family_style(LinkFamily f) {
  for (const FamilyStyle& s : kFamilyStyles)
    if (s.family == f) return s;
  return kFamilyStyles.back();
}

/// Fill colour and shape of a device kind.
struct DeviceStyle {
  const char* fill;
  const char* shape;
};
DeviceStyle device_style(DeviceKind k) {
  switch (k) {
    case DeviceKind::Gpu: return {"#d9f0c4", "box"};
    case DeviceKind::Cpu: return {"#cfe2f3", "box"};
    case DeviceKind::PcieSwitch: return {"#eeeeee", "box"};
    case DeviceKind::NvSwitch: return {"#b6d7a8", "box"};
    case DeviceKind::Nic: return {"#fff2cc", "box"};
    case DeviceKind::Leaf: return {"#e6d8f0", "box"};
    case DeviceKind::Spine: return {"#d9c6ea", "box"};
    case DeviceKind::Core: return {"#c9b3e0", "box"};
  }
  return {"#ffffff", "box"};
}

/// Top-to-bottom drawing order: an edge is written from the higher level to the lower one, so dot
/// puts cores on top, hosts at the bottom, and inside a host NICs above CPUs above GPUs.
int level(DeviceKind k) {
  switch (k) {
    case DeviceKind::Core: return 7;
    case DeviceKind::Spine: return 6;
    case DeviceKind::Leaf: return 5;
    case DeviceKind::Nic: return 4;
    case DeviceKind::Cpu: return 3;
    case DeviceKind::PcieSwitch: return 2;
    case DeviceKind::NvSwitch: return 1;
    case DeviceKind::Gpu: return 0;
  }
  return 0;
}

/// "400G", "1.6T", "12.5G", "800M": a bandwidth in the fewest digits that keep it exact to 3 places.
std::string short_bandwidth(Bandwidth b) {
  const double bps = b.bits_per_second();
  char buf[32];
  if (bps >= kTera) std::snprintf(buf, sizeof buf, "%.3gT", bps / kTera);
  else if (bps >= kGiga) std::snprintf(buf, sizeof buf, "%.3gG", bps / kGiga);
  else std::snprintf(buf, sizeof buf, "%.3gM", bps / kMega);
  return buf;
}

/// "NVLink4", "PCIe5", "IB", from the kind's scenario name.
std::string generation(LinkKind k) {
  const std::string name(to_string(k));
  const std::string digits = name.substr(name.find_first_of("0123456789") == std::string::npos
                                             ? name.size()
                                             : name.find_first_of("0123456789"));
  switch (link_family(k)) {
    case LinkFamily::NvLink: return "NVLink" + digits;
    case LinkFamily::Pcie: return "PCIe" + digits;
    default: return name;
  }
}

bool is_nominal(const Link& l) {
  if (l.kind == LinkKind::Custom) return false;
  const double nominal = (link_defaults(l.kind).per_lane * double(l.lanes)).bits_per_second();
  return std::abs(nominal - l.bandwidth.bits_per_second()) <= 1e-9 * nominal;
}

}  // namespace

std::string link_label(const Link& l) {
  const std::string lanes = l.lanes > 1 ? std::to_string(l.lanes) + "x" : "";
  const std::string per_lane = short_bandwidth(l.bandwidth / double(std::max(l.lanes, 1)));
  switch (link_family(l.kind)) {
    case LinkFamily::NvLink:
    case LinkFamily::Pcie: {
      const std::string base = generation(l.kind) + " x" + std::to_string(l.lanes);
      return is_nominal(l) ? base : base + " (" + short_bandwidth(l.bandwidth) + ")";
    }
    case LinkFamily::Smp: return "CPU link" + (l.lanes > 1 ? " x" + std::to_string(l.lanes) : "");
    case LinkFamily::InfiniBand: return lanes + per_lane + " IB";
    case LinkFamily::Ethernet:
      return lanes + per_lane + (l.transport == Transport::Rdma ? " RoCE" : l.transport == Transport::Srd ? " EFA" : " Ethernet");
    case LinkFamily::Custom: return short_bandwidth(l.bandwidth) + " custom";
  }
  return short_bandwidth(l.bandwidth);
}

namespace {

/// A DOT quoted string: backslashes and quotes escaped, newlines as \n.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

/// A drawn node: a device, or a whole host when hosts are collapsed.
struct Node {
  std::string id;
  int level = 0;
};

/// Edges drawn once per (ends, label): identical parallel links merge.
struct EdgeKey {
  std::string upper, lower;  ///< node ids, the higher level first
  std::string label;
  LinkFamily family;
  bool tcp;
  auto tie() const { return std::tie(upper, lower, label, family, tcp); }
  bool operator<(const EdgeKey& o) const { return tie() < o.tie(); }
};

class DotWriter {
 public:
  DotWriter(std::ostream& out, const Topology& t, bool collapse) : out_(out), t_(t), collapse_(collapse) {}

  void write() {
    out_ << "graph ringlab {\n";
    out_ << "  // ringlab topo export -f dot: " << t_.hosts().size() << " hosts, " << t_.gpus().size() << " GPUs, "
         << t_.device_count() << " devices, " << t_.links().size() << " links\n";
    if (collapse_)
      out_ << "  // hosts collapsed to one box each (more than " << kDotMaxFullHosts << " hosts or "
           << kDotMaxFullGpus << " GPUs); --detail full draws every device\n";
    out_ << "  graph [newrank=true, rankdir=TB, nodesep=0.25, ranksep=0.6, fontname=\"Helvetica\", fontsize=11];\n"
         << "  node [fontname=\"Helvetica\", fontsize=10, shape=box, style=\"rounded,filled\", fillcolor=white];\n"
         << "  edge [fontname=\"Helvetica\", fontsize=8];\n";
    write_placement();
    write_tiers();
    write_edges();
    write_legend();
    out_ << "}\n";
  }

 private:
  std::string node_id(DeviceId d) const {
    const Device& dev = t_.device(d);
    if (collapse_ && dev.host != kNoHost) return t_.host(dev.host).name;
    return dev.name;
  }

  /// "gpu3\nH100" inside a host box (the box names the host), the full name elsewhere.
  std::string device_label(const Device& d) const {
    std::string name = d.name;
    if (d.host != kNoHost) {
      const std::string& host = t_.host(d.host).name;
      if (name.starts_with(host + "/")) name = name.substr(host.size() + 1);
    }
    if (d.kind == DeviceKind::Gpu && d.gpu_model != GpuModel::Generic) name += "\n" + gpu_name(d);
    if (d.in_network_reduction) name += "\n(reduces)";
    return name;
  }

  void write_device(const Device& d, const std::string& indent) {
    const DeviceStyle s = device_style(d.kind);
    out_ << indent << quoted(d.name) << " [label=" << quoted(device_label(d)) << ", fillcolor=\"" << s.fill
         << "\", shape=" << s.shape << "];\n";
  }

  /// "node0: 8x H100, 8x 400G IB": GPUs by model and links leaving the host by label.
  std::string host_summary(HostId h) const {
    std::map<std::string, int> gpus;
    for (const DeviceId d : host_devices_[h])
      if (t_.device(d).kind == DeviceKind::Gpu) ++gpus[gpu_name(t_.device(d))];
    std::vector<std::string> parts;
    for (const auto& [model, n] : gpus) parts.push_back(std::to_string(n) + "x " + model);
    for (const auto& [label, n] : host_links_[h]) parts.push_back(std::to_string(n) + "x " + label);
    std::string text = t_.host(h).name + ":";
    for (std::size_t i = 0; i < parts.size(); ++i) text += (i == 0 ? " " : ", ") + parts[i];
    return text;
  }

  /// Per host, the links that leave it, counted by label.
  void count_host_links() {
    host_links_.assign(t_.hosts().size(), {});
    for (const Link& l : t_.links()) {
      const HostId ha = t_.device(l.a).host, hb = t_.device(l.b).host;
      if (ha == hb) continue;
      if (ha != kNoHost) ++host_links_[ha][link_label(l)];
      if (hb != kNoHost) ++host_links_[hb][link_label(l)];
    }
  }

  static std::string gpu_name(const Device& d) {
    std::string model(to_string(d.gpu_model));
    for (char& c : model) c = char(std::toupper(static_cast<unsigned char>(c)));
    return d.gpu_model == GpuModel::Generic ? "GPU" : model;
  }

  void write_host(HostId h, const std::string& indent) {
    const Host& host = t_.host(h);
    if (collapse_) {
      out_ << indent << quoted(host.name) << " [label=" << quoted(host_summary(h))
           << ", fillcolor=\"#d9f0c4\", shape=box];\n";
      return;
    }
    out_ << indent << "subgraph " << quoted("cluster_host_" + host.name) << " {\n"
         << indent << "  label=" << quoted(host.name) << "; style=\"rounded\"; color=\"#888888\";\n";
    for (const DeviceId d : host_devices_[h]) write_device(t_.device(d), indent + "  ");
    out_ << indent << "}\n";
  }

  void write_placement() {
    if (collapse_) count_host_links();
    host_devices_.assign(t_.hosts().size(), {});
    std::vector<std::vector<DeviceId>> rack_switches(t_.racks().size());
    std::vector<DeviceId> loose;  // switches and devices in no rack and no host
    for (DeviceId d = 0; d < t_.device_count(); ++d) {
      const Device& dev = t_.device(d);
      if (dev.host != kNoHost) host_devices_[dev.host].push_back(d);
      else if (dev.rack != kNoRack) rack_switches[dev.rack].push_back(d);
      else loose.push_back(d);
    }
    std::vector<std::vector<HostId>> rack_hosts(t_.racks().size());
    std::vector<HostId> free_hosts;
    for (HostId h = 0; h < HostId(t_.hosts().size()); ++h) {
      if (t_.host(h).rack != kNoRack) rack_hosts[t_.host(h).rack].push_back(h);
      else free_hosts.push_back(h);
    }
    for (RackId r = 0; r < RackId(t_.racks().size()); ++r) {
      const std::string& name = t_.racks()[r].name;
      out_ << "  subgraph " << quoted("cluster_rack_" + name) << " {\n"
           << "    label=" << quoted(name) << "; style=\"dashed\"; color=\"#555555\";\n";
      for (const DeviceId d : rack_switches[r]) write_device(t_.device(d), "    ");
      for (const HostId h : rack_hosts[r]) write_host(h, "    ");
      write_host_grid(rack_hosts[r], "    ");
      out_ << "  }\n";
    }
    for (const HostId h : free_hosts) write_host(h, "  ");
    write_host_grid(free_hosts, "  ");
    for (const DeviceId d : loose) write_device(t_.device(d), "  ");
  }

  /// Collapsed hosts in rows of kHostsPerRow (invisible edges stack each row under the one above),
  /// so a rack of many hosts is a block rather than one long strip.
  void write_host_grid(const std::vector<HostId>& hosts, const std::string& indent) {
    if (!collapse_) return;
    for (std::size_t i = kHostsPerRow; i < hosts.size(); ++i)
      out_ << indent << quoted(t_.host(hosts[i - kHostsPerRow]).name) << " -- " << quoted(t_.host(hosts[i]).name)
           << " [style=invis];\n";
  }

  /// One rank line per fabric tier: leaves side by side, spines above them, cores on top.
  void write_tiers() {
    std::map<int, std::vector<DeviceId>> tiers;
    for (DeviceId d = 0; d < t_.device_count(); ++d)
      if (is_fabric_switch(t_.device(d).kind)) tiers[t_.device(d).tier].push_back(d);
    for (const auto& [tier, switches] : tiers) {
      out_ << "  { rank=same; // tier " << tier << '\n';
      for (const DeviceId d : switches) out_ << "    " << quoted(t_.device(d).name) << ";\n";
      out_ << "  }\n";
    }
  }

  void write_edges() {
    std::map<EdgeKey, int> edges;
    for (const Link& l : t_.links()) {
      std::string a = node_id(l.a), b = node_id(l.b);
      if (a == b) continue;  // inside a collapsed host
      int la = level(t_.device(l.a).kind), lb = level(t_.device(l.b).kind);
      if (la < lb || (la == lb && b < a)) std::swap(a, b);
      const LinkFamily f = link_family(l.kind);
      families_.insert(f);
      ++edges[EdgeKey{a, b, link_label(l), f, l.transport == Transport::Tcp || l.transport == Transport::Tcpx}];
    }
    for (const auto& [e, count] : edges) {
      const std::string label = count > 1 ? std::to_string(count) + " x " + e.label : e.label;
      const double width = std::min(kMaxPenWidth, 1.0 + std::log2(double(count)));
      char pen[16];
      std::snprintf(pen, sizeof pen, "%.2g", width);
      out_ << "  " << quoted(e.upper) << " -- " << quoted(e.lower) << " [label=" << quoted(label) << ", color=\""
           << family_style(e.family).colour << "\", fontcolor=\"" << family_style(e.family).colour << "\", penwidth="
           << pen << (e.tcp ? ", style=dashed" : "") << "];\n";
    }
  }

  void write_legend() {
    if (families_.empty()) return;
    out_ << "  subgraph cluster_legend {\n    label=\"links\"; style=\"rounded\"; color=\"#bbbbbb\";\n"
         << "    legend [shape=plaintext, style=\"\", label=<<TABLE BORDER=\"0\" CELLSPACING=\"2\">";
    for (const FamilyStyle& s : kFamilyStyles) {
      if (!families_.count(s.family)) continue;
      out_ << "<TR><TD BGCOLOR=\"" << s.colour << "\" WIDTH=\"24\"> </TD><TD ALIGN=\"LEFT\">" << s.name
           << (s.family == LinkFamily::Ethernet ? " (dashed: TCP)" : "") << "</TD></TR>";
    }
    out_ << "<TR><TD COLSPAN=\"2\" ALIGN=\"LEFT\">N x: N identical links</TD></TR></TABLE>>];\n  }\n";
  }

  std::ostream& out_;
  const Topology& t_;
  bool collapse_;
  std::vector<std::vector<DeviceId>> host_devices_;
  std::vector<std::map<std::string, int>> host_links_;  ///< collapsed hosts: links leaving, by label
  std::set<LinkFamily> families_;
};

}  // namespace

bool dot_collapses_hosts(const Topology& topology, DotDetail detail) {
  if (detail != DotDetail::Auto) return detail == DotDetail::Hosts;
  return topology.hosts().size() > kDotMaxFullHosts || topology.gpus().size() > kDotMaxFullGpus;
}

void write_dot(std::ostream& out, const Topology& topology, DotDetail detail) {
  DotWriter(out, topology, dot_collapses_hosts(topology, detail)).write();
}

}  // namespace ringlab
