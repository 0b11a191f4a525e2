// Small topologies built by hand for the simulator tests (independent of the generators).
#pragma once

#include <string>
#include <vector>

#include "ringlab/topology/generators.hpp"
#include "ringlab/topology/topology.hpp"

namespace ringlab::test {

/// A link of kind Custom with exactly the given numbers (nothing from the defaults table).
inline Link custom_link(DeviceId a, DeviceId b, Bandwidth bw, Duration latency, Duration overhead = {}) {
  Link l;
  l.a = a;
  l.b = b;
  l.kind = LinkKind::Custom;
  l.bandwidth = bw;
  l.latency = latency;
  l.overhead = overhead;
  return l;
}

inline DeviceId add(Topology& t, std::string name, DeviceKind kind, HostId host = kNoHost, RackId rack = kNoRack,
                    int local = -1, bool reduces = false) {
  Device d;
  d.name = std::move(name);
  d.kind = kind;
  d.host = host;
  d.rack = rack;
  d.local_index = local;
  d.in_network_reduction = reduces;
  d.tier = default_tier(kind);
  return t.add_device(d);
}

inline DeviceId add_gpu(Topology& t, std::string name, HostId host, int local, GpuModel model) {
  Device d;
  d.name = std::move(name);
  d.kind = DeviceKind::Gpu;
  d.host = host;
  d.local_index = local;
  d.gpu_model = model;
  return t.add_device(d);
}

/// Hosts of `gpus_per_host` GPUs; each GPU reaches its host's NIC over PCIe 5 x16, every NIC
/// connects to one leaf switch over InfiniBand NDR (400 Gb/s, the bottleneck of any inter-host
/// path). Devices: for each host its GPUs then its NIC, then the leaf.
struct StarCluster {
  Topology topology;
  std::vector<std::vector<DeviceId>> gpus;  ///< per host
  std::vector<DeviceId> nics;
  DeviceId leaf = 0;
};

inline StarCluster star_cluster(int hosts, int gpus_per_host, GpuModel model = GpuModel::H100) {
  StarCluster c;
  const RackId rack = c.topology.add_rack("rack0");
  for (int h = 0; h < hosts; ++h) {
    const std::string host_name = "node" + std::to_string(h);
    const HostId host = c.topology.add_host(host_name, rack);
    c.gpus.emplace_back();
    for (int g = 0; g < gpus_per_host; ++g)
      c.gpus.back().push_back(add_gpu(c.topology, host_name + "/gpu" + std::to_string(g), host, g, model));
    c.nics.push_back(add(c.topology, host_name + "/nic0", DeviceKind::Nic, host, kNoRack, 0));
  }
  c.leaf = add(c.topology, "leaf0", DeviceKind::Leaf, kNoHost, rack);
  for (int h = 0; h < hosts; ++h) {
    for (DeviceId gpu : c.gpus[std::size_t(h)])
      c.topology.add_link(Topology::default_link(gpu, c.nics[std::size_t(h)], LinkKind::Pcie5));
    c.topology.add_link(Topology::default_link(c.nics[std::size_t(h)], c.leaf, LinkKind::IbNdr));
  }
  return c;
}

}  // namespace ringlab::test
