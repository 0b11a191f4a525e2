// Hand-built topologies and a data-flow checker shared by the collective tests (the generators are
// tested on their own; these stay small and explicit so every number in a test can be derived).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "hand_topologies.hpp"
#include "ringlab/sim/schedule.hpp"
#include "ringlab/topology/topology.hpp"

namespace ringlab::test {

struct Cluster {
  Topology topology;
  std::vector<DeviceId> gpus;      ///< host-major, local index ascending
  std::vector<DeviceId> cpus;      ///< one per host
  std::vector<DeviceId> switches;  ///< leaf switches
};

/// `hosts` hosts on one leaf switch. Each host: a CPU, `gpus_per_host` GPUs on an NVSwitch, and one
/// NIC per GPU (rail style) linked to the leaf; the CPU hangs off NIC 0. Every link has bandwidth
/// `bw`, latency `lat` and per-message overhead `ovh` (Custom kind, so nothing comes from defaults).
/// `sharp` marks the leaf as reducing, `nvls` the NVSwitches.
inline Cluster leaf_cluster(int hosts, int gpus_per_host, Bandwidth bw, Duration lat, Duration ovh = {},
                            bool sharp = false, bool nvls = false) {
  Cluster c;
  Topology& t = c.topology;
  const RackId rack = t.add_rack("rack0");
  const DeviceId leaf = add(t, "leaf0", DeviceKind::Leaf, kNoHost, rack, -1, sharp);
  c.switches.push_back(leaf);
  for (int h = 0; h < hosts; ++h) {
    const std::string node = "node" + std::to_string(h);
    const HostId host = t.add_host(node, rack);
    const DeviceId cpu = add(t, node + "/cpu0", DeviceKind::Cpu, host, rack, 0);
    c.cpus.push_back(cpu);
    DeviceId nvswitch = 0;
    if (gpus_per_host > 1) nvswitch = add(t, node + "/nvswitch0", DeviceKind::NvSwitch, host, rack, 0, nvls);
    for (int g = 0; g < gpus_per_host; ++g) {
      const DeviceId gpu = add(t, node + "/gpu" + std::to_string(g), DeviceKind::Gpu, host, rack, g);
      const DeviceId nic = add(t, node + "/nic" + std::to_string(g), DeviceKind::Nic, host, rack, g);
      c.gpus.push_back(gpu);
      t.add_link(custom_link(gpu, nic, bw, lat, ovh));
      t.add_link(custom_link(nic, leaf, bw, lat, ovh));
      if (gpus_per_host > 1) t.add_link(custom_link(gpu, nvswitch, bw, lat, ovh));
      if (g == 0) t.add_link(custom_link(cpu, nic, bw, lat, ovh));
    }
  }
  return c;
}

/// p single-GPU hosts where every pair of GPUs has its own direct link (bandwidth bw, latency lat,
/// overhead ovh): no two flows of a schedule whose steps pair distinct peers share a channel.
inline Cluster full_mesh(int p, Bandwidth bw, Duration lat, Duration ovh = {}) {
  Cluster c;
  Topology& t = c.topology;
  for (int i = 0; i < p; ++i) {
    const std::string node = "node" + std::to_string(i);
    const HostId host = t.add_host(node);
    c.gpus.push_back(add(t, node + "/gpu0", DeviceKind::Gpu, host, kNoRack, 0));
  }
  for (int i = 0; i < p; ++i)
    for (int j = i + 1; j < p; ++j)
      t.add_link(custom_link(c.gpus[std::size_t(i)], c.gpus[std::size_t(j)], bw, lat, ovh));
  return c;
}

/// Per-rank totals of a schedule.
struct RankTotals {
  std::vector<std::int64_t> sends, recvs, reduces, encodes, decodes;
  std::vector<std::int64_t> bytes_sent, bytes_received;
};

inline RankTotals totals(const sim::Schedule& s) {
  const std::size_t n = s.endpoints().size();
  RankTotals t{std::vector<std::int64_t>(n), std::vector<std::int64_t>(n), std::vector<std::int64_t>(n),
               std::vector<std::int64_t>(n), std::vector<std::int64_t>(n), std::vector<std::int64_t>(n),
               std::vector<std::int64_t>(n)};
  for (const sim::Op& op : s.ops()) {
    switch (op.kind) {
      case sim::OpKind::Send:
        ++t.sends[op.at];
        t.bytes_sent[op.at] += op.bytes.count();
        break;
      case sim::OpKind::Recv:
        ++t.recvs[op.at];
        t.bytes_received[op.at] += op.bytes.count();
        break;
      case sim::OpKind::Reduce: ++t.reduces[op.at]; break;
      case sim::OpKind::Encode: ++t.encodes[op.at]; break;
      case sim::OpKind::Decode: ++t.decodes[op.at]; break;
      case sim::OpKind::Copy: break;
    }
  }
  return t;
}

/// Rank r's element i in executor tests: (r + 1) * 1000 + i. Sums of these are exact in double.
inline double exec_input(int rank, std::int64_t i) { return (rank + 1) * 1000.0 + double(i); }

/// Every rank's input for `n` elements.
inline std::vector<std::vector<double>> exec_inputs(int p, std::int64_t n) {
  std::vector<std::vector<double>> in(std::size_t(p), std::vector<double>(static_cast<std::size_t>(n)));
  for (int r = 0; r < p; ++r)
    for (std::int64_t i = 0; i < n; ++i) in[std::size_t(r)][std::size_t(i)] = exec_input(r, i);
  return in;
}

/// Rank r's block of an n-element array over p ranks: [n*r/p, n*(r+1)/p).
inline std::int64_t block_start(std::int64_t n, int r, int p) { return n * r / p; }

/// Compares executor output (from exec_inputs) with the collective's promise; returns the first
/// mismatch ("rank 3 element 17: got 4, want 5") or "".
inline std::string verify_collective(sim::Collective c, int p, int root, std::int64_t n,
                                     const std::vector<std::vector<double>>& out) {
  auto sum = [&](std::int64_t i) {
    double s = 0;
    for (int r = 0; r < p; ++r) s += exec_input(r, i);
    return s;
  };
  auto owner = [&](std::int64_t i) {
    int b = 0;
    while (b + 1 < p && block_start(n, b + 1, p) <= i) ++b;
    return b;
  };
  for (int r = 0; r < p; ++r)
    for (std::int64_t i = 0; i < n; ++i) {
      double want = 0;
      switch (c) {
        case sim::Collective::AllReduce: want = sum(i); break;
        case sim::Collective::ReduceScatter:
          if (owner(i) != r) continue;
          want = sum(i);
          break;
        case sim::Collective::AllGather: want = exec_input(owner(i), i); break;
        case sim::Collective::Broadcast: want = exec_input(root, i); break;
        case sim::Collective::Reduce:
          if (r != root) continue;
          want = sum(i);
          break;
      }
      const double got = out[std::size_t(r)][std::size_t(i)];
      if (got != want)
        return "rank " + std::to_string(r) + " element " + std::to_string(i) + ": got " + std::to_string(got) +
               ", want " + std::to_string(want);
    }
  return "";
}

}  // namespace ringlab::test
