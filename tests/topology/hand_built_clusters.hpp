// Hand-built clusters for the routing, metrics and export tests: a thin builder over Topology's own
// API, a two-rack leaf-spine and a rail-optimised cluster of DGX-like hosts. Header-only, test use only.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ringlab/topology/topology.hpp"

namespace ringlab::test {

/// Small builder over Topology's own API so each test reads as a wiring diagram.
struct Cluster {
  Topology t;

  DeviceId add(const std::string& name, DeviceKind kind, HostId host = kNoHost, int tier = 0) {
    Device d;
    d.name = name;
    d.kind = kind;
    d.host = host;
    d.tier = tier;
    return t.add_device(d);
  }
  LinkId link(DeviceId a, DeviceId b, LinkKind kind, int lanes = 0) {
    return t.add_link(Topology::default_link(a, b, kind, lanes));
  }
  /// A host with one GPU and one NIC on PCIe; returns {gpu, nic}.
  std::pair<DeviceId, DeviceId> simple_host(const std::string& name) {
    const HostId h = t.add_host(name);
    const DeviceId gpu = add(name + "/gpu0", DeviceKind::Gpu, h);
    const DeviceId nic = add(name + "/nic0", DeviceKind::Nic, h);
    link(gpu, nic, LinkKind::Pcie4);
    return {gpu, nic};
  }
};

/// Two racks, one leaf each, two spines; `hosts_per_rack` single-GPU hosts per rack.
struct LeafSpine {
  Cluster c;
  std::vector<DeviceId> gpus;
  DeviceId spine0 = 0, spine1 = 0;

  explicit LeafSpine(int hosts_per_rack = 1) {
    const DeviceId leaf0 = c.add("leaf0", DeviceKind::Leaf, kNoHost, 1);
    const DeviceId leaf1 = c.add("leaf1", DeviceKind::Leaf, kNoHost, 1);
    spine0 = c.add("spine0", DeviceKind::Spine, kNoHost, 2);
    spine1 = c.add("spine1", DeviceKind::Spine, kNoHost, 2);
    for (DeviceId leaf : {leaf0, leaf1})
      for (DeviceId spine : {spine0, spine1}) c.link(leaf, spine, LinkKind::IbNdr);
    for (int i = 0; i < 2 * hosts_per_rack; ++i) {
      auto [gpu, nic] = c.simple_host("node" + std::to_string(i));
      c.link(nic, i < hosts_per_rack ? leaf0 : leaf1, LinkKind::IbNdr);
      gpus.push_back(gpu);
    }
  }
};

/// One DGX-like host: a CPU pair, per GPU a PCIe switch holding the GPU and its NIC, one NVSwitch.
/// Returns the GPUs and NICs in local order.
struct RailHost {
  std::vector<DeviceId> gpus, nics;
};
inline RailHost add_rail_host(Cluster& c, const std::string& name, int gpus_per_host) {
  const HostId h = c.t.add_host(name);
  RailHost out;
  const DeviceId cpu0 = c.add(name + "/cpu0", DeviceKind::Cpu, h);
  const DeviceId cpu1 = c.add(name + "/cpu1", DeviceKind::Cpu, h);
  c.link(cpu0, cpu1, LinkKind::Smp);
  const DeviceId nvswitch = c.add(name + "/nvswitch0", DeviceKind::NvSwitch, h);
  for (int g = 0; g < gpus_per_host; ++g) {
    const std::string i = std::to_string(g);
    const DeviceId psw = c.add(name + "/pcie_switch" + i, DeviceKind::PcieSwitch, h);
    const DeviceId gpu = c.add(name + "/gpu" + i, DeviceKind::Gpu, h);
    const DeviceId nic = c.add(name + "/nic" + i, DeviceKind::Nic, h);
    c.link(g < gpus_per_host / 2 ? cpu0 : cpu1, psw, LinkKind::Pcie5);
    c.link(psw, gpu, LinkKind::Pcie5);
    c.link(psw, nic, LinkKind::Pcie5);
    c.link(gpu, nvswitch, LinkKind::NvLink4, 18);
    out.gpus.push_back(gpu);
    out.nics.push_back(nic);
  }
  return out;
}

/// Rail-optimised cluster: rail r of every host goes to rail r's leaf of its group; every leaf goes to
/// every spine.
struct RailCluster {
  Cluster c;
  std::vector<RailHost> hosts;
  RailCluster(int host_count, int gpus_per_host, int hosts_per_leaf, int spines) {
    const int groups = (host_count + hosts_per_leaf - 1) / hosts_per_leaf;
    std::vector<DeviceId> spine_ids;
    for (int s = 0; s < spines; ++s)
      spine_ids.push_back(c.add("spine" + std::to_string(s), DeviceKind::Spine, kNoHost, 2));
    std::vector<DeviceId> leaves;  // group * gpus_per_host + rail
    for (int g = 0; g < groups; ++g)
      for (int r = 0; r < gpus_per_host; ++r) {
        const DeviceId leaf = c.add("leaf" + std::to_string(g) + "_" + std::to_string(r), DeviceKind::Leaf, kNoHost, 1);
        for (DeviceId s : spine_ids) c.link(leaf, s, LinkKind::IbNdr);
        leaves.push_back(leaf);
      }
    for (int h = 0; h < host_count; ++h) {
      hosts.push_back(add_rail_host(c, "node" + std::to_string(h), gpus_per_host));
      for (int r = 0; r < gpus_per_host; ++r)
        c.link(hosts.back().nics[std::size_t(r)], leaves[std::size_t((h / hosts_per_leaf) * gpus_per_host + r)],
               LinkKind::IbNdr);
    }
  }
};

}  // namespace ringlab::test
