// combine(): a fabric and a node layout into one cluster (import.hpp), and the layouts of templates.
//
// Every fabric host gets a copy of the layout. A host link that names an HCA goes to the layout NIC of
// that name (HCAs whose names match no NIC take the unmatched NICs in order); a host link without an HCA
// (Slurm) stands for the host's compute NICs, spread over its switches in order. Link speeds missing
// from the fabric come from the NIC ports and, for switch uplinks, a non-blocking bundle of ports
// (kImportPolicy); each such choice is reported.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "import_common.hpp"
#include "ringlab/topology/error.hpp"

namespace ringlab {
namespace {

using detail::kImportPolicy;

bool is_network(LinkKind k) {
  const LinkFamily f = link_family(k);
  return f == LinkFamily::InfiniBand || f == LinkFamily::Ethernet;
}

Transport transport_of(LinkKind k) { return is_network(k) ? Transport::Rdma : Transport::None; }

constexpr std::size_t kNamesShown = 4;  ///< names of a group listed in a problem before "and N more"

/// "a, b, c, d and 3 more".
std::string some_names(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < kNamesShown; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > kNamesShown) out += " and " + std::to_string(names.size() - kNamesShown) + " more";
  return out;
}

/// One connected part of a fabric: its switches and hosts, and where the file first mentions it.
struct FabricPart {
  std::vector<std::string> switches, hosts;
  std::string location;
};

/// The connected parts of a fabric (hosts and switches joined by its links), in file order of their
/// first member. One part: every GPU of the imported cluster can reach every other.
std::vector<FabricPart> fabric_parts(const Fabric& f) {
  std::map<std::string, std::string> parent;  // union-find over "h:" host / "s:" switch keys
  std::function<std::string(const std::string&)> root = [&](const std::string& k) -> std::string {
    const std::string& p = parent.at(k);
    return p == k ? k : parent[k] = root(p);
  };
  for (const std::string& h : f.hosts) parent["h:" + h] = "h:" + h;
  for (const FabricSwitch& s : f.switches) parent["s:" + s.name] = "s:" + s.name;
  auto key = [](const FabricPort& p) { return (p.host ? "h:" : "s:") + p.device; };
  for (const FabricLink& l : f.links)
    if (parent.count(key(l.a)) && parent.count(key(l.b))) parent[root(key(l.a))] = root(key(l.b));
  std::vector<FabricPart> parts;
  std::map<std::string, std::size_t> part_of_root;
  auto part = [&](const std::string& k) -> FabricPart& {
    const auto [it, fresh] = part_of_root.emplace(root(k), parts.size());
    if (fresh) parts.emplace_back();
    return parts[it->second];
  };
  for (const FabricSwitch& s : f.switches) {
    FabricPart& p = part("s:" + s.name);
    p.switches.push_back(s.name);
    if (p.location.empty()) p.location = s.location;
  }
  for (const std::string& h : f.hosts) part("h:" + h).hosts.push_back(h);
  for (const FabricLink& l : f.links)
    if (parent.count(key(l.a)) && part(key(l.a)).location.empty()) part(key(l.a)).location = l.location;
  return parts;
}

/// A fabric of separate networks is an input error (its GPUs could not reach each other): one problem
/// per part after the first, at the line that defines it.
void check_connected(const Fabric& f, ProblemList& problems) {
  const std::vector<FabricPart> parts = fabric_parts(f);
  if (parts.size() < 2) return;
  auto describe = [](const FabricPart& p) {
    auto noun = [](const std::vector<std::string>& names, const char* one, const char* many) {
      return std::string(names.size() == 1 ? one : many) + " " + some_names(names);
    };
    if (p.switches.empty()) return noun(p.hosts, "host", "hosts");
    std::string text = noun(p.switches, "switch", "switches");
    if (!p.hosts.empty()) text += " (" + noun(p.hosts, "host", "hosts") + ")";
    return text;
  };
  const FabricPart& first = parts.front();
  for (std::size_t i = 1; i < parts.size(); ++i)
    problems.add(parts[i].location,
                 describe(parts[i]) + " is not connected to " + describe(first) +
                     (first.location.empty() ? "" : " (" + first.location + ")") + ": the fabric is " +
                     std::to_string(parts.size()) + " separate networks whose GPUs cannot reach each other; "
                     "expected one connected network (e.g. a switch above the top-level switches)");
}

/// Copies the single host of `layout` into `out` as host `name`; returns the new ids of its devices.
std::vector<DeviceId> stamp(Topology& out, const Topology& layout, const std::string& name) {
  const HostId host = out.add_host(name, kNoRack, {}, layout.host(0).cpu_vendor);
  const std::string& old_name = layout.host(0).name;
  std::vector<DeviceId> ids(layout.device_count());
  for (DeviceId d = 0; d < layout.device_count(); ++d) {
    Device copy = layout.device(d);
    copy.name = name + copy.name.substr(old_name.size());
    copy.host = host;
    copy.rack = kNoRack;
    ids[d] = out.add_device(std::move(copy));
  }
  for (Link l : layout.links()) {
    l.a = ids[l.a];
    l.b = ids[l.b];
    out.add_link(l);
  }
  return ids;
}

Link network_link(DeviceId a, DeviceId b, LinkKind kind, int lanes, std::optional<Bandwidth> bandwidth,
                  std::optional<Transport> transport = std::nullopt) {
  Link l = Topology::default_link(a, b, kind, lanes, transport.value_or(transport_of(kind)));
  if (bandwidth) l.bandwidth = *bandwidth * double(lanes);
  return l;
}

class Combiner {
 public:
  Combiner(const Fabric& f, const NodeLayout& layout) : f_(f), layout_(layout) {}

  ImportedCluster run() {
    check_connected(f_, problems_);
    problems_.throw_if_any();
    for (const std::string& h : f_.hosts) host_ids_[h] = stamp(out_.cluster, layout_.node, h);
    for (const FabricSwitch& s : f_.switches) {
      Device d;
      d.name = s.name;
      d.kind = s.kind;
      d.tier = default_tier(s.kind);
      switch_ids_[s.name] = out_.cluster.add_device(std::move(d));
    }
    assign_hcas();
    size_uplinks();
    for (std::size_t i = 0; i < f_.links.size(); ++i) add_link(i);
    report();
    problems_.throw_if_any();
    return std::move(out_);
  }

 private:
  std::vector<std::size_t> compute_nics() const {
    std::vector<std::size_t> near, all;
    for (std::size_t i = 0; i < layout_.nics.size(); ++i) {
      all.push_back(i);
      if (layout_.nics[i].near_gpu) near.push_back(i);
    }
    return near.empty() ? all : near;
  }

  std::optional<std::size_t> nic_named(const std::string& hca) const {
    for (std::size_t i = 0; i < layout_.nics.size(); ++i)
      if (!hca.empty() && layout_.nics[i].hca == hca) return i;
    return std::nullopt;
  }

  // Host end of each link -> the layout NICs it uses.
  void assign_hcas() {
    std::map<std::string, std::vector<std::size_t>> hcaless;  // host -> its links without HCA
    std::map<std::string, std::vector<std::size_t>> unmatched;
    std::map<std::string, std::set<std::size_t>> taken;
    for (std::size_t i = 0; i < f_.links.size(); ++i) {
      for (const FabricPort* p : {&f_.links[i].a, &f_.links[i].b}) {
        if (!p->host) continue;
        if (p->hca.empty()) hcaless[p->device].push_back(i);
        else if (auto n = nic_named(p->hca)) nics_of_[i].push_back(*n), taken[p->device].insert(*n);
        else unmatched[p->device].push_back(i);
      }
    }
    const std::vector<std::size_t> compute = compute_nics();
    for (const auto& [host, links] : hcaless) {
      for (std::size_t k = 0; k < compute.size(); ++k) nics_of_[links[k % links.size()]].push_back(compute[k]);
      if (compute.size() < links.size()) few_nics_.insert(host);
    }
    if (!hcaless.empty() && compute.size() < layout_.nics.size()) spread_compute_only_ = true;
    for (const auto& [host, links] : unmatched) {
      std::size_t next = 0;
      for (std::size_t i : links) {
        while (next < layout_.nics.size() && taken[host].count(next)) ++next;
        if (next == layout_.nics.size()) {
          const FabricPort& p = f_.links[i].a.host ? f_.links[i].a : f_.links[i].b;
          out_.report.warnings.push_back(f_.file + ": " + host + " " + p.hca + " has no NIC left in the node layout: "
                                         "its link is left out");
          continue;
        }
        nics_of_[i].push_back(next);
        taken[host].insert(next++);
        matched_by_order_.insert(host);
      }
    }
  }

  // The port kind of host links without a kind: the NICs' (most common) port kind.
  LinkKind nic_port_kind() const {
    std::map<LinkKind, int> count;
    for (const NodeNic& n : layout_.nics) ++count[n.port];
    LinkKind best = node_template(kImportPolicy.fallback_template).nic;
    int most = 0;
    for (const auto& [k, c] : count)
      if (c > most) best = k, most = c;
    return best;
  }

  Bandwidth host_link_bandwidth(std::size_t i) const {
    const FabricLink& l = f_.links[i];
    Bandwidth sum;
    for (std::size_t n : nics_of_.count(i) ? nics_of_.at(i) : std::vector<std::size_t>{})
      sum = sum + (l.kind ? network_link(0, 1, *l.kind, l.lanes, l.bandwidth).bandwidth : layout_.nics[n].bandwidth);
    return sum;
  }

  // Lanes of kind-less switch-to-switch links: non-blocking at kImportPolicy.slurm_oversubscription.
  void size_uplinks() {
    std::map<std::string, std::vector<std::size_t>> ups;   // lower switch -> its kind-less uplinks
    std::map<std::string, Bandwidth> host_down;             // switch -> bandwidth of its host links
    std::map<std::string, std::vector<std::string>> lower;  // upper switch -> lower switches
    for (std::size_t i = 0; i < f_.links.size(); ++i) {
      const FabricLink& l = f_.links[i];
      if (l.a.host != l.b.host) host_down[l.a.host ? l.b.device : l.a.device] =
                                    host_down[l.a.host ? l.b.device : l.a.device] + host_link_bandwidth(i);
      if (l.a.host || l.b.host || l.kind) continue;
      ups[l.a.device].push_back(i);
      lower[l.b.device].push_back(l.a.device);
    }
    if (ups.empty()) return;
    uplink_kind_ = nic_port_kind();
    const Bandwidth port = link_defaults(uplink_kind_).per_lane;
    std::map<std::string, Bandwidth> down;
    std::function<Bandwidth(const std::string&)> downlink = [&](const std::string& s) {
      if (auto it = down.find(s); it != down.end()) return it->second;
      Bandwidth bw = host_down[s];
      for (const std::string& c : lower[s]) bw = bw + port * double(lanes_of(c, downlink(c), ups));
      return down[s] = bw;
    };
    for (const auto& [s, links] : ups) {
      const int lanes = lanes_of(s, downlink(s), ups);
      for (std::size_t i : links) uplink_lanes_[i] = lanes;
    }
  }

  int lanes_of(const std::string& s, Bandwidth down, const std::map<std::string, std::vector<std::size_t>>& ups) const {
    constexpr double kRoundingSlack = 1e-9;  // 16.000000001 ports needed means 16
    const auto it = ups.find(s);
    if (it == ups.end()) return 0;
    const double needed = down / (link_defaults(uplink_kind_).per_lane * kImportPolicy.slurm_oversubscription);
    const int total = std::max(1, int(std::ceil(needed - kRoundingSlack)));
    const int uppers = int(it->second.size());
    return (total + uppers - 1) / uppers;
  }

  DeviceId end_device(const FabricPort& p, std::size_t nic) const {
    if (!p.host) return switch_ids_.at(p.device);
    return host_ids_.at(p.device)[layout_.nics[nic].device];
  }

  void add_link(std::size_t i) {
    const FabricLink& l = f_.links[i];
    for (const FabricPort* p : {&l.a, &l.b})
      if ((p->host && !host_ids_.count(p->device)) || (!p->host && !switch_ids_.count(p->device)))
        problems_.add("", "link end \"" + p->device + "\" is not a host or switch of the fabric");
    if (!problems_.empty()) return;
    if (!l.a.host && !l.b.host) {
      const DeviceId a = switch_ids_.at(l.a.device), b = switch_ids_.at(l.b.device);
      if (l.kind) out_.cluster.add_link(network_link(a, b, *l.kind, l.lanes, l.bandwidth));
      else out_.cluster.add_link(network_link(a, b, uplink_kind_, uplink_lanes_.at(i), std::nullopt));
      return;
    }
    for (std::size_t nic : nics_of_.count(i) ? nics_of_.at(i) : std::vector<std::size_t>{}) {
      const DeviceId a = end_device(l.a, nic), b = end_device(l.b, nic);
      const NodeNic& n = layout_.nics[nic];
      if (l.kind) {
        out_.cluster.add_link(network_link(a, b, *l.kind, l.lanes, l.bandwidth));
        continue;
      }
      const bool standard = n.bandwidth == Topology::default_link(0, 1, n.port).bandwidth;
      out_.cluster.add_link(
          network_link(a, b, n.port, 1, standard ? std::nullopt : std::optional(n.bandwidth), n.transport));
      kindless_hosts_ = true;
    }
  }

  void report() {
    auto& r = out_.report;
    const std::string src = f_.file + ": ";
    if (kindless_hosts_)
      r.assumptions.push_back(src + "no link speeds: host links run at the NICs' port speed (" +
                              std::string(to_string(nic_port_kind())) + ")");
    if (!uplink_lanes_.empty())
      r.assumptions.push_back(src + "no switch uplink counts: each switch's uplinks are bundles of " +
                              std::string(to_string(uplink_kind_)) + " ports sized for oversubscription " +
                              std::to_string(int(kImportPolicy.slurm_oversubscription)) +
                              " (downlink bandwidth / port bandwidth, spread over its parents; import table)");
    if (spread_compute_only_)
      r.assumptions.push_back(src + "hosts' NICs spread over their switches: only the " +
                              std::to_string(compute_nics().size()) + " NIC(s) sharing a PCIe switch with a GPU; the other " +
                              std::to_string(layout_.nics.size() - compute_nics().size()) +
                              " (storage, management) stay unconnected");
    for (const std::string& h : few_nics_)
      r.warnings.push_back(src + h + " is under more switches than it has compute NICs: some switches get no link");
    if (!matched_by_order_.empty())
      r.assumptions.push_back(src + std::to_string(matched_by_order_.size()) +
                              " host(s) have HCA names that match no NIC of the node layout: matched to NICs in order");
  }

  const Fabric& f_;
  const NodeLayout& layout_;
  ImportedCluster out_;
  ProblemList problems_{f_.file};
  std::map<std::string, std::vector<DeviceId>> host_ids_;
  std::map<std::string, DeviceId> switch_ids_;
  std::map<std::size_t, std::vector<std::size_t>> nics_of_;  // fabric link -> layout NICs
  std::map<std::size_t, int> uplink_lanes_;
  std::set<std::string> few_nics_, matched_by_order_;
  LinkKind uplink_kind_ = LinkKind::IbHdr;
  bool spread_compute_only_ = false;
  bool kindless_hosts_ = false;
};

// A layout on its own: one host, its NICs on one switch so that their port speed is kept.
ImportedCluster lone_host(const NodeLayout& layout) {
  ImportedCluster out;
  out.cluster = layout.node;
  if (layout.nics.empty()) return out;
  Device sw;
  sw.name = std::string(kImportPolicy.lone_switch);
  sw.kind = DeviceKind::Leaf;
  sw.tier = default_tier(DeviceKind::Leaf);
  const DeviceId s = out.cluster.add_device(std::move(sw));
  for (const NodeNic& n : layout.nics) {
    const bool standard = n.bandwidth == Topology::default_link(0, 1, n.port).bandwidth;
    out.cluster.add_link(
        network_link(n.device, s, n.port, 1, standard ? std::nullopt : std::optional(n.bandwidth), n.transport));
  }
  out.report.assumptions.push_back(layout.file + ": no fabric: one host, its NICs on one switch \"" +
                                   std::string(kImportPolicy.lone_switch) + "\" so that their port speeds are kept");
  return out;
}

}  // namespace

NodeLayout template_layout(NodeTemplate t, const std::string& host) {
  ClusterSpec spec;
  spec.node = node_template(t);
  spec.fabric.kind = FabricKind::None;
  const Topology one = make_cluster(spec);
  NodeLayout layout;
  layout.file = "template " + std::string(to_string(t));
  stamp(layout.node, one, host);
  const Bandwidth port = Topology::default_link(0, 1, spec.node.nic, spec.node.nic_ports).bandwidth;
  for (DeviceId d : layout.node.host_devices(0)) {
    const Device& dev = layout.node.device(d);
    if (dev.kind == DeviceKind::Nic)
      layout.nics.push_back(NodeNic{d, "mlx5_" + std::to_string(dev.local_index), spec.node.nic, port, true});
  }
  layout.report.assumptions.push_back("node layout from template " + std::string(to_string(t)) + " (" +
                                      std::to_string(spec.node.gpus) + " GPUs, " + std::to_string(spec.node.nics) +
                                      "x " + std::string(to_string(spec.node.nic)) + "), NICs named mlx5_0 ..");
  return layout;
}

void set_layout_cpu_vendor(NodeLayout& layout, CpuVendor vendor, std::string_view option) {
  Topology& node = layout.node;
  const CpuVendor had = node.host(0).cpu_vendor;
  if (layout.cpu_vendor_stated && had != vendor)
    throw InputError(layout.file, "",
                     "the file names " + std::string(to_string(had)) + " CPUs, but " + std::string(option) + " says " +
                         std::string(to_string(vendor)) + ": expected the file's vendor or no " + std::string(option));
  node.set_cpu_vendor(0, vendor);
  layout.cpu_vendor_assumption.clear();
  const LinkKind socket = vendor == CpuVendor::Amd ? LinkKind::Xgmi : LinkKind::Smp;
  int replaced = 0;
  for (LinkId id = 0; id < node.link_count(); ++id) {
    const Link& l = node.link(id);
    if (link_family(l.kind) != LinkFamily::Smp || cpu_vendor_matches(vendor, l.kind)) continue;
    node.replace_link(id, Topology::default_link(l.a, l.b, socket, 0));
    ++replaced;
  }
  if (replaced > 0)
    layout.report.assumptions.push_back(layout.file + ": " + std::string(to_string(vendor)) + " CPUs (" +
                                        std::string(option) + "): " + std::to_string(replaced) + " socket link(s) " +
                                        std::string(to_string(socket)) + ", the vendor's default (defaults table)");
}

ImportedCluster combine(const Fabric* fabric, const NodeLayout* layout, NodeTemplate node_template) {
  if (!fabric && !layout) throw InputError("", "", "nothing to import: expected a fabric, a node layout, or both");
  const NodeLayout fallback = layout || !fabric ? NodeLayout{} : template_layout(node_template);
  const NodeLayout& used = layout ? *layout : fallback;
  ImportedCluster out = fabric ? Combiner(*fabric, used).run() : lone_host(used);
  ImportReport r = fabric ? fabric->report : ImportReport{};
  r.append(used.report);
  if (!used.cpu_vendor_assumption.empty()) r.assumptions.push_back(used.cpu_vendor_assumption);
  r.append(out.report);
  out.report = std::move(r);
  return out;
}

}  // namespace ringlab
