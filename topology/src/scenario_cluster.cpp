// The "cluster" section of a scenario file: generator blocks, then explicit racks, hosts, devices and
// links (which may name generated devices), then a connectivity check of the GPUs.
//
// Every problem is recorded and reading goes on, so one run reports them all. A device whose entry has
// problems still counts as declared: links to it are skipped without a second, misleading "no device
// named" report. Likewise when a generator block fails, unknown link ends are not reported, since they
// may be names that block would have created.
#include "scenario_cluster.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>
#include <limits>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "ringlab/topology/generators.hpp"

namespace ringlab::detail {
namespace {

constexpr int kIntMin = std::numeric_limits<int>::min();
constexpr int kIntMax = std::numeric_limits<int>::max();
constexpr std::int64_t kMaxLinkLanes = 1024;  // sanity bound on the lanes of one explicit link
constexpr std::size_t kMaxNamesShown = 8;     // names listed in one message before "and N more"

std::string in_quotes(std::string_view s) { return "\"" + std::string(s) + "\""; }

// "a, b, c and 5 more"
std::string name_list(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < kMaxNamesShown; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > kMaxNamesShown) out += " and " + std::to_string(names.size() - kMaxNamesShown) + " more";
  return out;
}

bool is_network(LinkKind k) {
  const LinkFamily f = link_family(k);
  return f == LinkFamily::InfiniBand || f == LinkFamily::Ethernet;
}

bool can_reduce(DeviceKind k) { return k == DeviceKind::NvSwitch || is_fabric_switch(k); }

std::string transport_names() { return "rdma, roce (= rdma), tcp, srd, efa (= srd), tcpx, tcpxo (= tcpx)"; }

class ClusterReader {
 public:
  ClusterReader(JsonReader& r, Topology& t) : r_(r), t_(t) {}

  void read(const JsonNode& cluster) {
    if (!r_.expect_object(cluster)) return;
    const std::size_t before = r_.problem_count();
    r_.check_keys(cluster, {"generate", "racks", "hosts", "devices", "links"});
    if (auto n = r_.member(cluster, "racks")) read_list(*n, &ClusterReader::read_rack);
    if (auto n = r_.member(cluster, "generate")) read_generate(*n);
    if (auto n = r_.member(cluster, "hosts")) read_list(*n, &ClusterReader::read_host);
    if (auto n = r_.member(cluster, "devices")) read_list(*n, &ClusterReader::read_device);
    if (auto n = r_.member(cluster, "links")) read_list(*n, &ClusterReader::read_link);
    if (r_.problem_count() == before) check_gpus_connected(cluster);
    vendors_from_socket_links();
  }

 private:
  using Origins = std::unordered_map<std::string, std::string>;  // name -> JSON pointer defining it

  void read_list(const JsonNode& array, void (ClusterReader::*read_one)(const JsonNode&)) {
    if (!r_.expect_array(array)) return;
    for (const JsonNode& e : r_.elements(array)) (this->*read_one)(e);
  }

  // ---- small typed reads ----

  void read_int(const JsonNode& obj, std::string_view key, int& field) { r_.field(obj, key, field, kIntMin, kIntMax); }
  std::optional<LinkKind> link_kind(const JsonNode& n) {
    return r_.name<LinkKind>(n, find_link_kind, "link kind", link_kind_names());
  }
  std::optional<CpuVendor> cpu_vendor(const JsonNode& n) {
    return r_.name<CpuVendor>(n, find_cpu_vendor, "CPU vendor", "intel, amd, other");
  }
  std::optional<std::string> name_field(const JsonNode& obj, std::string_view key, std::string_view expected) {
    auto node = r_.required(obj, key, expected);
    if (!node) return std::nullopt;
    auto text = r_.string(*node, expected);
    if (text && text->empty()) {
      r_.add(node->path, "empty name: expected " + std::string(expected));
      return std::nullopt;
    }
    return text;
  }
  // True when `name` is new in `origins`; otherwise records the duplicate at `path`.
  bool unique(Origins& origins, const std::string& name, const std::string& path, std::string_view what) {
    auto it = origins.find(name);
    if (it == origins.end()) return true;
    r_.add(path, "duplicate " + std::string(what) + " name " + in_quotes(name) + " (already defined at " + it->second +
                     "): expected a unique name");
    return false;
  }

  // ---- generate ----

  void read_generate(const JsonNode& node) {
    if (!node->is_array()) return read_generate_block(node);
    for (const JsonNode& e : r_.elements(node)) read_generate_block(e);
  }

  void read_generate_block(const JsonNode& block) {
    const std::size_t before = r_.problem_count();
    const ClusterSpec spec = read_cluster_spec(block);
    if (r_.problem_count() == before)
      for (const SpecProblem& p : check_cluster_spec(spec)) r_.add(block.path + "/" + p.field, p.message);
    if (r_.problem_count() != before) {
      names_complete_ = false;
      return;
    }
    Topology generated = make_cluster(spec);
    if (!claim_generated_names(generated, block.path)) {
      names_complete_ = false;
      return;
    }
    const bool empty = t_.device_count() == 0 && t_.host_count() == 0 && t_.rack_count() == 0;
    if (empty)
      t_ = std::move(generated);  // the common single-block case: no second build
    else
      add_cluster(t_, spec);
  }

  ClusterSpec read_cluster_spec(const JsonNode& block) {
    ClusterSpec spec;
    if (!r_.expect_object(block)) return spec;
    r_.check_keys(block, {"nodes", "prefix", "node", "fabric"});
    if (auto n = r_.required(block, "nodes", "the number of nodes, an integer >= 1")) {
      if (auto v = r_.integer(*n, kIntMin, kIntMax)) spec.nodes = int(*v);
    }
    if (auto n = r_.member(block, "prefix")) read_prefix(*n, spec.prefix);
    spec.node = node_template(NodeTemplate::Generic);
    if (auto n = r_.member(block, "node")) read_node(*n, spec.node);
    if (auto n = r_.member(block, "fabric")) read_fabric(*n, spec.fabric);
    return spec;
  }

  void read_prefix(const JsonNode& n, std::string& prefix) {
    constexpr std::string_view expected = "a non-empty host name prefix without '/'";
    auto text = r_.string(n, expected);
    if (!text) return;
    if (text->empty() || text->find('/') != std::string::npos) {
      r_.add(n.path, "bad prefix " + in_quotes(*text) + ": expected " + std::string(expected));
      return;
    }
    prefix = *text;
  }

  void read_node(const JsonNode& node, NodeSpec& n) {
    if (!r_.expect_object(node)) return;
    r_.check_keys(node, {"template", "gpus", "gpu_model", "gpu_interconnect", "nvlink", "nvlinks", "nvswitch_reduction",
                         "cpus", "cpu_link", "cpu_vendor", "pcie", "pcie_lanes", "pcie_switches", "nics", "nic", "nic_ports", "transport",
                         "nvlink_domain"});
    if (auto t = r_.optional_member(node, "template", [&](const JsonNode& x) {
          return r_.name<NodeTemplate>(x, find_node_template, "node template", node_template_names());
        }))
      n = node_template(*t);
    if (auto m = r_.optional_member(node, "gpu_model", [&](const JsonNode& x) {
          return r_.name<GpuModel>(x, find_gpu_model, "GPU model", gpu_model_names());
        }))
      set_gpu_model(n, *m);
    if (auto g = r_.optional_member(node, "gpu_interconnect", [&](const JsonNode& x) {
          return r_.name<GpuInterconnect>(x, find_gpu_interconnect, "GPU interconnect", gpu_interconnect_names());
        }))
      n.gpu_interconnect = *g;
    auto kind = [&](const JsonNode& x) { return link_kind(x); };
    if (auto k = r_.optional_member(node, "nvlink", kind)) n.nvlink = *k;
    if (auto k = r_.optional_member(node, "pcie", kind)) n.pcie = *k;
    const auto cpu_link = r_.optional_member(node, "cpu_link", kind);
    const auto vendor = r_.optional_member(node, "cpu_vendor", [&](const JsonNode& x) { return cpu_vendor(x); });
    // Either names the other where only one is given: a cpu_link alone drops a template's vendor that
    // it does not match (the link then names it: xgmi AMD's, the others Intel's); a cpu_vendor alone
    // keeps the template's link if it matches, else takes xgmi for amd and smp otherwise.
    if (cpu_link) {
      n.cpu_link = *cpu_link;
      if (n.cpu_vendor && !cpu_vendor_matches(*n.cpu_vendor, *cpu_link)) n.cpu_vendor.reset();
    }
    if (vendor) n.cpu_vendor = *vendor;
    if (vendor && !cpu_link && !cpu_vendor_matches(*vendor, n.cpu_link))
      n.cpu_link = *vendor == CpuVendor::Amd ? LinkKind::Xgmi : LinkKind::Smp;
    if (auto k = r_.optional_member(node, "nic", kind)) n.nic = *k;
    if (auto t = r_.optional_member(node, "transport", [&](const JsonNode& x) {
          return r_.name<Transport>(x, find_transport, "transport", transport_names());
        }))
      n.transport = *t;
    read_int(node, "gpus", n.gpus);
    read_int(node, "nvlinks", n.nvlinks);
    r_.field(node, "nvswitch_reduction", n.nvswitch_reduction);
    read_int(node, "cpus", n.cpus);
    read_int(node, "pcie_lanes", n.pcie_lanes);
    read_int(node, "pcie_switches", n.pcie_switches);
    read_int(node, "nics", n.nics);
    read_int(node, "nic_ports", n.nic_ports);
    read_int(node, "nvlink_domain", n.nvlink_domain);
  }

  void check_fabric_keys(const JsonNode& node, FabricKind kind) {
    const std::string context = "for fabric kind " + std::string(to_string(kind));
    switch (kind) {
      case FabricKind::None:
      case FabricKind::SingleSwitch: return r_.check_keys(node, {"kind", "prefix", "in_network_reduction"}, context);
      case FabricKind::LeafSpine:
        return r_.check_keys(
            node, {"kind", "prefix", "in_network_reduction", "nodes_per_leaf", "spines", "oversubscription", "uplink"},
            context);
      case FabricKind::FatTree3:
        return r_.check_keys(node,
                             {"kind", "prefix", "in_network_reduction", "nodes_per_leaf", "leaves_per_pod", "spines",
                              "cores", "oversubscription", "uplink"},
                             context);
      case FabricKind::RailOptimized:
        return r_.check_keys(
            node, {"kind", "prefix", "in_network_reduction", "nodes_per_group", "spines", "oversubscription", "uplink"},
            context);
      case FabricKind::Racks:
        return r_.check_keys(node, {"kind", "prefix", "in_network_reduction", "nodes_per_leaf", "uplink", "uplinks"},
                             context);
      case FabricKind::Dragonfly:
        return r_.check_keys(node,
                             {"kind", "prefix", "in_network_reduction", "nodes_per_leaf", "routers_per_group",
                              "global_links", "uplink", "uplinks"},
                             context);
    }
  }

  void read_fabric(const JsonNode& node, FabricSpec& f) {
    if (!r_.expect_object(node)) return;
    auto kind_node = r_.required(node, "kind", "a fabric kind (one of " + fabric_kind_names() + ")");
    if (!kind_node) return;
    auto kind = r_.name<FabricKind>(*kind_node, find_fabric_kind, "fabric kind", fabric_kind_names());
    if (!kind) return;
    f.kind = *kind;
    check_fabric_keys(node, f.kind);
    const bool leaf_based =
        f.kind == FabricKind::LeafSpine || f.kind == FabricKind::FatTree3 || f.kind == FabricKind::Racks;
    if (f.kind == FabricKind::Dragonfly) {
      r_.required(node, "nodes_per_leaf", "the number of nodes on each dragonfly router");
      r_.required(node, "routers_per_group", "the number of routers in each dragonfly group");
    } else if (leaf_based) {
      r_.required(node, "nodes_per_leaf", "the number of nodes under each leaf (ToR) switch");
    }
    if (auto n = r_.member(node, "prefix")) {
      if (auto text = r_.string(*n, "a switch and rack name prefix")) f.prefix = *text;
    }
    r_.field(node, "in_network_reduction", f.in_network_reduction);
    read_int(node, "nodes_per_leaf", f.nodes_per_leaf);
    read_int(node, "spines", f.spines);
    read_int(node, "leaves_per_pod", f.leaves_per_pod);
    read_int(node, "cores", f.cores);
    read_int(node, "nodes_per_group", f.nodes_per_group);
    read_int(node, "uplinks", f.uplinks);
    read_int(node, "routers_per_group", f.routers_per_group);
    read_int(node, "global_links", f.global_links);
    if (auto v = r_.optional_member(node, "oversubscription", [&](const JsonNode& x) { return r_.number(x); }))
      f.oversubscription = *v;
    if (auto k = r_.optional_member(node, "uplink", [&](const JsonNode& x) { return link_kind(x); })) f.uplink = *k;
  }

  // Checks that no name of the generated cluster exists yet; records them as defined at `path`.
  bool claim_generated_names(const Topology& generated, const std::string& path) {
    std::vector<std::string> clashes;
    auto check = [&](Origins& origins, const std::string& name, std::string_view what) {
      if (auto it = origins.find(name); it != origins.end())
        clashes.push_back(std::string(what) + " " + in_quotes(name) + " (defined at " + it->second + ")");
    };
    for (const Rack& x : generated.racks()) check(racks_, x.name, "rack");
    for (const Host& x : generated.hosts()) check(hosts_, x.name, "host");
    for (const Device& x : generated.devices()) check(devices_, x.name, "device");
    if (!clashes.empty()) {
      r_.add(path, "generated names clash with names already defined: " + name_list(clashes) +
                       ": expected a different \"prefix\" for the nodes or the fabric");
      return false;
    }
    for (const Rack& x : generated.racks()) racks_.emplace(x.name, path);
    for (const Host& x : generated.hosts()) hosts_.emplace(x.name, path);
    for (const Device& x : generated.devices()) devices_.emplace(x.name, path);
    return true;
  }

  // ---- explicit racks, hosts, devices ----

  void read_rack(const JsonNode& e) {
    if (!r_.expect_object(e)) return;
    r_.check_keys(e, {"name"});
    auto name = name_field(e, "name", "a rack name");
    if (!name || !unique(racks_, *name, child_path(e.path, "name"), "rack")) return;
    racks_.emplace(*name, e.path);
    t_.add_rack(*name);
  }

  std::optional<RackId> rack_ref(const JsonNode& n) {
    auto name = r_.string(n, "a rack name");
    if (!name) return std::nullopt;
    if (auto id = t_.find_rack(*name)) return id;
    r_.add(n.path, "no rack named " + in_quotes(*name) + ": expected a rack from /cluster/racks or a generated one");
    return std::nullopt;
  }

  void read_host(const JsonNode& e) {
    if (!r_.expect_object(e)) return;
    r_.check_keys(e, {"name", "rack", "cpu_vendor"});
    auto name = name_field(e, "name", "a host name");
    const auto rack = r_.optional_member(e, "rack", [&](const JsonNode& n) { return rack_ref(n); });
    const auto vendor = r_.optional_member(e, "cpu_vendor", [&](const JsonNode& x) { return cpu_vendor(x); });
    if (!name || !unique(hosts_, *name, child_path(e.path, "name"), "host")) return;
    hosts_.emplace(*name, e.path);
    // A bad rack is reported; the host stays usable.
    const HostId id = t_.add_host(*name, rack.value_or(kNoRack), {}, vendor.value_or(CpuVendor::Intel));
    if (!vendor) vendor_unsaid_.push_back(id);
  }

  /// An explicit host that names no CPU vendor takes the one its CPUs' socket links name (xgmi:
  /// AMD's), else ringlab's default, Intel's.
  void vendors_from_socket_links() {
    for (const HostId h : vendor_unsaid_)
      for (const DeviceId d : t_.host_devices(h)) {
        if (t_.device(d).kind != DeviceKind::Cpu) continue;
        for (const Adjacency& adj : t_.neighbors(d))
          if (const auto v = socket_link_vendor(t_.link(adj.link).kind)) t_.set_cpu_vendor(h, *v);
      }
  }

  std::optional<HostId> host_ref(const JsonNode& n) {
    auto name = r_.string(n, "a host name");
    if (!name) return std::nullopt;
    if (auto id = t_.find_host(*name)) return id;
    r_.add(n.path, "no host named " + in_quotes(*name) + ": expected a host from /cluster/hosts or a generated one");
    return std::nullopt;
  }

  // Index of the next device of `kind` in `host` (gpu3 -> 3), counting generated devices too.
  int next_local_index(HostId host, DeviceKind kind) {
    const auto key = std::pair{host, kind};
    auto it = next_index_.find(key);
    if (it == next_index_.end()) {
      int count = 0;
      for (DeviceId d : t_.host_devices(host)) count += t_.device(d).kind == kind;
      it = next_index_.emplace(key, count).first;
    }
    return it->second++;
  }

  // Placement rules: internal devices need a host and take its rack; fabric switches have no host. An
  // nvswitch may also stand outside every host: the switch of a multi-node NVLink domain (GB200 NVL72).
  void check_placement(const JsonNode& e, DeviceKind kind) {
    const auto host = r_.member(e, "host");
    const auto rack = r_.member(e, "rack");
    const std::string k = in_quotes(to_string(kind));
    if (is_host_internal(kind) && kind != DeviceKind::NvSwitch && !host)
      r_.add(child_path(e.path, "host"), "missing required field: expected the host of this " + k +
                                             " device (gpu, cpu, pcie_switch and nic sit inside a host)");
    if (is_host_internal(kind) && host && rack)
      r_.add(rack->path, "a " + k + " device takes the rack of its host: expected no \"rack\" here");
    if (is_fabric_switch(kind) && host)
      r_.add(host->path, "a " + k + " switch is not inside a host: expected no \"host\" (use \"rack\" for a ToR)");
    if (kind != DeviceKind::Gpu && r_.member(e, "gpu_model"))
      r_.add(child_path(e.path, "gpu_model"), "gpu_model applies to gpu devices only, not to " + k);
    if (!can_reduce(kind) && r_.member(e, "in_network_reduction"))
      r_.add(child_path(e.path, "in_network_reduction"),
             "in_network_reduction applies to switches (nvswitch, leaf, spine, core) only, not to " + k);
  }

  std::optional<DeviceKind> device_kind(const JsonNode& e) {
    const auto node = r_.required(e, "kind", "a device kind (one of " + device_kind_names() + ")");
    if (!node) return std::nullopt;
    return r_.name<DeviceKind>(*node, find_device_kind, "device kind", device_kind_names());
  }

  void read_device(const JsonNode& e) {
    if (!r_.expect_object(e)) return;
    const std::size_t before = r_.problem_count();
    r_.check_keys(e, {"name", "kind", "host", "rack", "gpu_model", "in_network_reduction"});
    auto name = name_field(e, "name", "a device name");
    const bool declared = name && unique(devices_, *name, child_path(e.path, "name"), "device");
    if (declared) devices_.emplace(*name, e.path);
    const std::optional<DeviceKind> kind = device_kind(e);
    Device d;
    if (kind) check_placement(e, *kind);
    if (auto h = r_.optional_member(e, "host", [&](const JsonNode& n) { return host_ref(n); })) d.host = *h;
    if (auto rk = r_.optional_member(e, "rack", [&](const JsonNode& n) { return rack_ref(n); })) d.rack = *rk;
    if (auto m = r_.optional_member(e, "gpu_model", [&](const JsonNode& n) {
          return r_.name<GpuModel>(n, find_gpu_model, "GPU model", gpu_model_names());
        }))
      d.gpu_model = *m;
    r_.field(e, "in_network_reduction", d.in_network_reduction);
    if (!declared) return;
    if (r_.problem_count() != before || !kind) {
      broken_devices_.insert(*name);
      return;
    }
    d.name = *name;
    d.kind = kind.value();
    d.tier = default_tier(d.kind);
    if (d.host != kNoHost) d.local_index = next_local_index(d.host, d.kind);
    t_.add_device(std::move(d));
  }

  // ---- links ----

  // The device a link end names; nullopt (with a problem unless the name may be legitimately missing).
  std::optional<DeviceId> link_end(const JsonNode& e, std::string_view key) {
    auto name = name_field(e, key, "the name of a device");
    if (!name) return std::nullopt;
    if (auto id = t_.find_device(*name)) return id;
    if (broken_devices_.count(*name) || !names_complete_) return std::nullopt;
    r_.add(child_path(e.path, key),
           "no device named " + in_quotes(*name) + ": expected a device from /cluster/devices or a generated one");
    return std::nullopt;
  }

  int read_lanes(const JsonNode& e) {
    std::optional<JsonNode> given;
    for (std::string_view key : {"lanes", "count", "width"}) {
      auto n = r_.member(e, key);
      if (!n) continue;
      if (given) r_.add(n->path, "give only one of \"lanes\", \"count\", \"width\" (all mean the lane count)");
      given = n;
    }
    if (!given) return 0;  // the kind's default
    return int(r_.integer(*given, 1, kMaxLinkLanes).value_or(0));
  }

  std::optional<Transport> read_transport(const JsonNode& e, std::optional<LinkKind> kind) {
    auto n = r_.member(e, "transport");
    if (!n) return Transport::None;
    auto t = r_.name<Transport>(*n, find_transport, "transport", transport_names());
    if (!t || !kind) return t;
    if (!is_network(*kind)) {
      r_.add(n->path, "transport applies to InfiniBand and Ethernet links only: expected no \"transport\" on a " +
                          in_quotes(to_string(*kind)) + " link");
      return std::nullopt;
    }
    if (*t != Transport::Rdma && link_family(*kind) == LinkFamily::InfiniBand) {
      r_.add(n->path, std::string(to_string(*t)) + " over InfiniBand (" + in_quotes(to_string(*kind)) + "): expected rdma");
      return std::nullopt;
    }
    return t;
  }

  std::optional<LinkKind> required_link_kind(const JsonNode& e) {
    const auto node = r_.required(e, "kind", "a link kind (one of " + link_kind_names() + ")");
    if (!node) return std::nullopt;
    return link_kind(*node);
  }

  void read_link(const JsonNode& e) {
    if (!r_.expect_object(e)) return;
    const std::size_t before = r_.problem_count();
    r_.check_keys(e, {"a", "b", "kind", "lanes", "count", "width", "transport", "bandwidth", "latency", "overhead"});
    const auto a = link_end(e, "a");
    const auto b = link_end(e, "b");
    const std::optional<LinkKind> kind = required_link_kind(e);
    const int lanes = read_lanes(e);
    const auto transport = read_transport(e, kind);
    const auto bandwidth = r_.optional_member(e, "bandwidth", [&](const JsonNode& n) { return r_.bandwidth(n); });
    const auto latency = r_.optional_member(e, "latency", [&](const JsonNode& n) { return r_.duration(n); });
    const auto overhead = r_.optional_member(e, "overhead", [&](const JsonNode& n) { return r_.duration(n); });
    if (kind == LinkKind::Custom) {
      r_.required(e, "bandwidth", "a bandwidth such as \"100Gbps\" (a custom link has no defaults)");
      r_.required(e, "latency", "a latency such as \"1us\" (a custom link has no defaults)");
    }
    if (a && b && *a == *b)
      r_.add(child_path(e.path, "b"),
             "both ends are " + in_quotes(t_.device(*a).name) + ": expected two different devices");
    if (r_.problem_count() != before || !a || !b || *a == *b) return;
    Link link = Topology::default_link(*a, *b, *kind, lanes, *transport);
    if (bandwidth) link.bandwidth = *bandwidth;
    if (latency) link.latency = *latency;
    if (overhead) link.overhead = *overhead;
    t_.add_link(link);
  }

  // ---- connectivity ----

  void check_gpus_connected(const JsonNode& cluster) {
    const std::vector<DeviceId> gpus = t_.gpus();
    if (gpus.empty()) {
      r_.add(cluster.path, "the cluster has no GPUs: expected at least one device of kind \"gpu\"");
      return;
    }
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
    Graph g(t_.device_count());
    for (const Link& l : t_.links()) boost::add_edge(l.a, l.b, g);
    std::vector<int> component(t_.device_count());
    boost::connected_components(g, component.data());
    std::map<int, std::vector<std::string>> groups;  // component -> its GPUs' names
    for (DeviceId id : gpus) groups[component[id]].push_back(t_.device(id).name);
    if (groups.size() == 1) return;
    const auto& reference = groups[component[gpus.front()]];
    for (const auto& [c, names] : groups) {
      if (c == component[gpus.front()]) continue;
      r_.add(cluster.path, "disconnected GPUs: " + name_list(names) + " cannot reach " + name_list(reference) +
                               ": expected every GPU to reach every other over links");
    }
  }

  JsonReader& r_;
  Topology& t_;
  Origins racks_, hosts_, devices_;
  std::vector<HostId> vendor_unsaid_;  ///< explicit hosts without a cpu_vendor
  std::unordered_set<std::string> broken_devices_;
  bool names_complete_ = true;
  std::map<std::pair<HostId, DeviceKind>, int> next_index_;
};

}  // namespace

void read_cluster(JsonReader& reader, const JsonNode& cluster, Topology& out) {
  ClusterReader(reader, out).read(cluster);
}

}  // namespace ringlab::detail
