// Two-tier clusters built by hand for the planner tests: racks of hosts behind a ToR switch each,
// ToRs joined by one core switch, every number chosen by the test.
#pragma once

#include <string>
#include <vector>

#include "../sim/hand_topologies.hpp"
#include "ringlab/planner/planner.hpp"
#include "ringlab/topology/scenario.hpp"

namespace ringlab::test {

inline const Duration kFabricHop = Duration::from_ns(500);  ///< small next to the transfers the tests time
inline const Bandwidth kPcie = Bandwidth::from_bits_per_second(400e9);

struct RackSpec {
  std::vector<Bandwidth> nics;  ///< one host per entry: its NIC's speed
  Bandwidth uplink;             ///< ToR -> core
};

/// Racks of hosts with `gpus` GPUs each (GPUs on the NIC over PCIe); hosts are named n<i> in rack order.
inline Scenario racks_cluster(const std::vector<RackSpec>& racks, int gpus) {
  Scenario s;
  s.name = "racks";
  Topology& t = s.cluster;
  const DeviceId core = add(t, "core", DeviceKind::Core);
  int host_index = 0;
  for (std::size_t r = 0; r < racks.size(); ++r) {
    const RackId rack = t.add_rack("r" + std::to_string(r));
    const DeviceId tor = add(t, "r" + std::to_string(r) + "-tor", DeviceKind::Leaf, kNoHost, rack);
    t.add_link(custom_link(tor, core, racks[r].uplink, kFabricHop));
    for (Bandwidth nic_bw : racks[r].nics) {
      const std::string name = "n" + std::to_string(host_index++);
      const HostId host = t.add_host(name, rack);
      const DeviceId nic = add(t, name + "/nic0", DeviceKind::Nic, host, rack, 0);
      for (int g = 0; g < gpus; ++g) {
        const DeviceId gpu = add_gpu(t, name + "/gpu" + std::to_string(g), host, g, GpuModel::H100);
        t.add_link(custom_link(gpu, nic, kPcie, kFabricHop));
      }
      t.add_link(custom_link(nic, tor, nic_bw, kFabricHop));
    }
  }
  return s;
}

inline Bandwidth gbps(double g) { return Bandwidth::from_bits_per_second(g * 1e9); }

/// GPUs of hosts in the given host order (host index as in racks_cluster), local order inside.
inline sim::RankOrder host_order(const Topology& t, const std::vector<int>& hosts) {
  sim::RankOrder o;
  for (int h : hosts)
    for (DeviceId d : t.host_devices(HostId(h)))
      if (t.device(d).kind == DeviceKind::Gpu) o.ranks.push_back(d);
  o.source = "test";
  return o;
}

/// Seconds of a ring all-reduce whose slowest edge gets `per_flow` (bandwidth only).
inline double ring_seconds(int p, Bytes message, Bandwidth per_flow) {
  return 2.0 * (p - 1) / p * double(message.value) / per_flow.bytes_per_second();
}

}  // namespace ringlab::test
