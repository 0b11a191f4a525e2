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

/// Symbolic execution of an uncompressed schedule: every byte of every endpoint carries the set of
/// ranks whose input it contains (p <= 64). Ops run in insertion order; a Recv merges the sender's
/// set into the receiver's bytes. `problems` also lists every Send that does not (transitively)
/// depend on an earlier op of its endpoint that wrote bytes it sends (a Recv counts as following
/// its Send), so the result holds for any execution order the dependencies allow.
struct DataFlow {
  std::vector<std::int64_t> cuts;                 ///< atom boundaries
  std::vector<std::vector<std::uint64_t>> state;  ///< [endpoint][atom] -> rank set
  std::vector<std::string> problems;

  std::size_t atom(std::int64_t offset) const {
    return std::size_t(std::lower_bound(cuts.begin(), cuts.end(), offset) - cuts.begin());
  }
  /// Intersection of the rank sets over [offset, offset+bytes) at endpoint e (all ones when empty).
  std::uint64_t common(sim::Endpoint e, std::int64_t offset, std::int64_t bytes) const {
    std::uint64_t m = ~std::uint64_t{0};
    for (std::size_t a = atom(offset); a < atom(offset + bytes); ++a) m &= state[e][a];
    return m;
  }
};

inline std::int64_t block_begin(std::int64_t n_bytes, std::int64_t elem, int r, int p) {
  return n_bytes / elem * r / p * elem;
}

inline DataFlow run_data_flow(const sim::Schedule& s, std::int64_t elem, int root = 0) {
  DataFlow f;
  const int p = s.rank_count();
  const std::int64_t n = s.message().count();
  f.cuts = {0, n};
  for (int r = 0; r <= p; ++r) f.cuts.push_back(block_begin(n, elem, r, p));
  for (const sim::Op& op : s.ops()) {
    f.cuts.push_back(op.first * elem);
    f.cuts.push_back(op.first * elem + op.count * elem);
  }
  std::sort(f.cuts.begin(), f.cuts.end());
  f.cuts.erase(std::unique(f.cuts.begin(), f.cuts.end()), f.cuts.end());
  const std::size_t atoms = f.cuts.size();
  f.state.assign(s.endpoints().size(), std::vector<std::uint64_t>(atoms, 0));
  for (int r = 0; r < p; ++r) {
    const std::uint64_t bit = std::uint64_t{1} << r;
    auto& st = f.state[std::size_t(r)];
    switch (s.collective()) {
      case sim::Collective::AllReduce:
      case sim::Collective::ReduceScatter:
      case sim::Collective::Reduce:
        for (auto& a : st) a = bit;
        break;
      case sim::Collective::AllGather:
        for (std::size_t a = f.atom(block_begin(n, elem, r, p)); a < f.atom(block_begin(n, elem, r + 1, p)); ++a)
          st[a] = bit;
        break;
      case sim::Collective::Broadcast:
        if (r == root)
          for (auto& a : st) a = bit;
        break;
    }
  }
  // Dependency completeness: every Send depends on all earlier writers of its bytes at its endpoint.
  std::vector<std::uint32_t> seen(s.ops().size(), 0);
  std::uint32_t stamp = 0;
  for (sim::OpId id = 0; id < s.ops().size(); ++id) {
    const sim::Op& op = s.op(id);
    if (op.kind == sim::OpKind::Recv) {
      const sim::Op& send = s.op(op.match);
      for (std::size_t a = f.atom(op.first * elem); a < f.atom(op.first * elem + op.count * elem); ++a)
        f.state[op.at][a] |= f.state[send.at][a];
      continue;
    }
    if (op.kind != sim::OpKind::Send) continue;
    ++stamp;
    std::vector<sim::OpId> stack(s.deps(id).begin(), s.deps(id).end());
    while (!stack.empty()) {
      const sim::OpId d = stack.back();
      stack.pop_back();
      if (seen[d] == stamp) continue;
      seen[d] = stamp;
      for (sim::OpId dd : s.deps(d)) stack.push_back(dd);
      if (s.op(d).kind == sim::OpKind::Recv) stack.push_back(s.op(d).match);  // data arrives after its send
    }
    const std::int64_t lo = op.first * elem;
    const std::int64_t hi = lo + op.count * elem;
    for (sim::OpId w = 0; w < id; ++w) {
      const sim::Op& wop = s.op(w);
      if (wop.at != op.at || wop.kind == sim::OpKind::Send) continue;
      const std::int64_t wlo = wop.first * elem;
      const std::int64_t whi = wlo + wop.count * elem;
      if (whi <= lo || wlo >= hi) continue;
      if (seen[w] != stamp)
        f.problems.push_back("send #" + std::to_string(id) + " does not wait for #" + std::to_string(w));
    }
  }
  return f;
}

}  // namespace ringlab::test
