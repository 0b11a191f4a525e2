// Export of one host as NCCL topology XML (export.hpp), written with pugixml. The PCIe tree is found by
// a breadth-first walk over PCIe links from each CPU in order; a device belongs to the first CPU that
// reaches it. Speeds are written in NCCL's units: PCIe in GT/s, NIC speed in Mb/s.
#include <array>
#include <cmath>
#include <cstdio>
#include <deque>
#include <map>

#include <pugixml.hpp>

#include "import_common.hpp"
#include "ringlab/topology/export.hpp"

namespace ringlab {
namespace {

constexpr const char* kBridgeClass = "0x060400";
constexpr const char* kGpuClass = "0x030200";
constexpr const char* kInfiniBandClass = "0x020700";
constexpr const char* kEthernetClass = "0x020000";
constexpr const char* kNvSwitchClass = "0x068000";
constexpr const char* kNvSwitchBusId = "ffff:ff:00.0";  ///< the logical NVSwitch's synthetic bus id
constexpr double kBitsPerMbit = 1e6;
constexpr double kRelativeTolerance = 1e-9;

/// A CPU that NCCL's ncclTopoAddCpu maps to each named socket link kind (src/graph/topo.cc: Intel family
/// 6 by model, AMD by vendor), written on every <cpu> of a host with several sockets (and on a one-socket
/// AMD host's, as Rome) so that NCCL, and
/// the importer, see the same CPUs: Broadwell-EP 0x4F, Sapphire Rapids 0x8F, Emerald Rapids 0xCF, AMD
/// Rome (family 0x17, model 0x31). The default `smp` names no CPU: its <cpu>s carry no such attributes,
/// and NCCL fills them in from the machine it runs on (as the importer reads them back as smp).
struct CpuIdentity {
  LinkKind link;
  const char* vendor;
  int family, model;
};
constexpr std::array<CpuIdentity, 4> kCpuIdentities{{
    {LinkKind::Qpi, "GenuineIntel", 6, 0x4F},
    {LinkKind::UpiSpr, "GenuineIntel", 6, 0x8F},
    {LinkKind::UpiEmr, "GenuineIntel", 6, 0xCF},
    {LinkKind::Xgmi, "AuthenticAMD", 0x17, 0x31},
}};

bool is_pcie(const Link& l) { return link_family(l.kind) == LinkFamily::Pcie; }
bool is_network(LinkKind k) {
  const LinkFamily f = link_family(k);
  return f == LinkFamily::InfiniBand || f == LinkFamily::Ethernet;
}

std::string bus_id(int n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:00.0", n / 256, n % 256);
  return buf;
}

// "32.0 GT/s PCIe": the row of kPcieGens whose rate x encoding x width gives the link's bandwidth.
std::string link_speed(const Link& l) {
  for (const detail::PcieRow& row : detail::kPcieGens) {
    const double expected = row.gt_per_s * 1e9 * row.encoding * l.lanes;
    if (std::abs(l.bandwidth.bits_per_second() / expected - 1.0) < kRelativeTolerance) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.1f GT/s PCIe", row.gt_per_s);
      return buf;
    }
  }
  for (const detail::PcieRow& row : detail::kPcieGens)  // a bandwidth override: the kind's own rate
    if (row.kind == l.kind) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.1f GT/s PCIe", row.gt_per_s);
      return buf;
    }
  return "";
}

class NcclWriter {
 public:
  NcclWriter(const Topology& t, HostId host) : t_(t), host_(host) {}

  void write(std::ostream& out) {
    pugi::xml_document doc;
    pugi::xml_node system = doc.append_child("system");
    system.append_attribute("version") = 1;
    std::vector<DeviceId> cpus;
    for (DeviceId d : t_.host_devices(host_))
      if (t_.device(d).kind == DeviceKind::Cpu) cpus.push_back(d);
    for (DeviceId c : cpus) discover(c);
    int next_bus = 1;
    for (const auto& [device, parent] : order_) bus_[device] = bus_id(next_bus++);
    std::vector<pugi::xml_node> cpu_nodes;
    const CpuIdentity* identity = cpu_identity(cpus);
    for (DeviceId c : cpus) {
      cpu_nodes.push_back(system.append_child("cpu"));
      pugi::xml_node node = cpu_nodes.back();
      node.append_attribute("numaid") = t_.device(c).local_index;
      if (identity) {
        node.append_attribute("arch") = "x86_64";
        node.append_attribute("vendor") = identity->vendor;
        node.append_attribute("familyid") = identity->family;
        node.append_attribute("modelid") = identity->model;
      }
      write_children(node, c);
    }
    for (DeviceId d : t_.host_devices(host_))  // NICs without a PCIe path sit in the first CPU
      if (t_.device(d).kind == DeviceKind::Nic && !bus_.count(d) && !cpu_nodes.empty()) write_nic(cpu_nodes[0], d);
    doc.save(out, "  ");
  }

 private:
  /// The CPUs behind the host's socket link kind; a one-socket AMD host's, Rome's; else null (a single
  /// Intel or other socket, or the default smp).
  const CpuIdentity* cpu_identity(const std::vector<DeviceId>& cpus) const {
    for (DeviceId c : cpus)
      for (const Adjacency& a : t_.neighbors(c)) {
        if (t_.device(a.peer).kind != DeviceKind::Cpu) continue;
        const LinkKind kind = t_.link(a.link).kind;
        for (const CpuIdentity& id : kCpuIdentities)
          if (id.link == kind) return &id;
      }
    if (t_.host(host_).cpu_vendor != CpuVendor::Amd) return nullptr;
    for (const CpuIdentity& id : kCpuIdentities)
      if (id.link == LinkKind::Xgmi) return &id;
    return nullptr;
  }

  // Breadth-first over PCIe links from a CPU; records (device, parent link) in visiting order.
  void discover(DeviceId cpu) {
    std::deque<DeviceId> queue{cpu};
    while (!queue.empty()) {
      const DeviceId d = queue.front();
      queue.pop_front();
      for (const Adjacency& a : t_.neighbors(d)) {
        const Device& peer = t_.device(a.peer);
        if (!is_pcie(t_.link(a.link)) || peer.host != host_ || peer.kind == DeviceKind::Cpu) continue;
        if (parent_.count(a.peer)) continue;
        parent_[a.peer] = a.link;
        children_[d].push_back(a.peer);
        order_.emplace_back(a.peer, d);
        if (peer.kind == DeviceKind::PcieSwitch) queue.push_back(a.peer);
      }
    }
  }

  pugi::xml_node pci(pugi::xml_node parent, DeviceId d, const char* cls) {
    const Link& up = t_.link(parent_.at(d));
    pugi::xml_node p = parent.append_child("pci");
    p.append_attribute("busid") = bus_.at(d).c_str();
    p.append_attribute("class") = cls;
    p.append_attribute("link_speed") = link_speed(up).c_str();
    p.append_attribute("link_width") = up.lanes;
    return p;
  }

  void write_children(pugi::xml_node parent, DeviceId d) {
    for (DeviceId c : children_[d]) {
      switch (t_.device(c).kind) {
        case DeviceKind::PcieSwitch: write_children(pci(parent, c, kBridgeClass), c); break;
        case DeviceKind::Gpu: write_gpu(pci(parent, c, kGpuClass), c); break;
        case DeviceKind::Nic: write_nic(pci(parent, c, nic_class(c)), c); break;
        default: break;
      }
    }
  }

  void write_gpu(pugi::xml_node p, DeviceId d) {
    const Device& dev = t_.device(d);
    pugi::xml_node gpu = p.append_child("gpu");
    gpu.append_attribute("dev") = dev.local_index;
    if (auto sm = detail::sm_of_model(dev.gpu_model)) gpu.append_attribute("sm") = *sm;
    gpu.append_attribute("rank") = dev.local_index;
    gpu.append_attribute("gdr") = 1;
    for (const Adjacency& a : t_.neighbors(d)) {
      const Link& l = t_.link(a.link);
      if (link_family(l.kind) != LinkFamily::NvLink) continue;
      const bool to_gpu = t_.device(a.peer).kind == DeviceKind::Gpu;
      pugi::xml_node nv = gpu.append_child("nvlink");
      nv.append_attribute("target") = to_gpu && bus_.count(a.peer) ? bus_.at(a.peer).c_str() : kNvSwitchBusId;
      nv.append_attribute("count") = l.lanes;
      nv.append_attribute("tclass") = to_gpu ? kGpuClass : kNvSwitchClass;
    }
  }

  std::optional<Link> network_link(DeviceId nic) const {
    for (const Adjacency& a : t_.neighbors(nic))
      if (is_network(t_.link(a.link).kind)) return t_.link(a.link);
    return std::nullopt;
  }

  const char* nic_class(DeviceId nic) const {
    const auto l = network_link(nic);
    return l && link_family(l->kind) == LinkFamily::Ethernet ? kEthernetClass : kInfiniBandClass;
  }

  void write_nic(pugi::xml_node p, DeviceId d) {
    const Device& dev = t_.device(d);
    pugi::xml_node net = p.append_child("nic").append_child("net");
    net.append_attribute("name") = ("mlx5_" + std::to_string(dev.local_index)).c_str();
    net.append_attribute("dev") = dev.local_index;
    if (const auto l = network_link(d))
      net.append_attribute("speed") = std::llround(l->bandwidth.bits_per_second() / kBitsPerMbit);
    net.append_attribute("port") = 1;
    net.append_attribute("latency") = "0.000000";
    net.append_attribute("gdr") = 1;
  }

  const Topology& t_;
  HostId host_;
  std::map<DeviceId, LinkId> parent_;
  std::map<DeviceId, std::vector<DeviceId>> children_;
  std::vector<std::pair<DeviceId, DeviceId>> order_;
  std::map<DeviceId, std::string> bus_;
};

}  // namespace

void write_nccl_xml(std::ostream& out, const Topology& topology, HostId host) { NcclWriter(topology, host).write(out); }

}  // namespace ringlab
