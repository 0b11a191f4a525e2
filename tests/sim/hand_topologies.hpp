// Small topologies built by hand for the simulator tests (independent of the generators).
#pragma once

#include <string>
#include <vector>

#include "ringlab/topology/topology.hpp"

namespace ringlab::test {

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
    for (int g = 0; g < gpus_per_host; ++g) {
      Device gpu;
      gpu.name = host_name + "/gpu" + std::to_string(g);
      gpu.kind = DeviceKind::Gpu;
      gpu.host = host;
      gpu.local_index = g;
      gpu.gpu_model = model;
      c.gpus.back().push_back(c.topology.add_device(gpu));
    }
    Device nic;
    nic.name = host_name + "/nic0";
    nic.kind = DeviceKind::Nic;
    nic.host = host;
    nic.local_index = 0;
    c.nics.push_back(c.topology.add_device(nic));
  }
  Device leaf;
  leaf.name = "leaf0";
  leaf.kind = DeviceKind::Leaf;
  leaf.rack = rack;
  leaf.tier = 1;
  c.leaf = c.topology.add_device(leaf);
  for (int h = 0; h < hosts; ++h) {
    for (DeviceId gpu : c.gpus[std::size_t(h)])
      c.topology.add_link(Topology::default_link(gpu, c.nics[std::size_t(h)], LinkKind::Pcie5));
    c.topology.add_link(Topology::default_link(c.nics[std::size_t(h)], c.leaf, LinkKind::IbNdr));
  }
  return c;
}

}  // namespace ringlab::test
