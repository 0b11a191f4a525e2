// Ranks by host, distances and NCCL path types inside a host (host_paths.hpp).
#include "nccl/host_paths.hpp"

#include <algorithm>

#include "ringlab/topology/kinds.hpp"

namespace ringlab::sim::detail {

HostGroups group_by_host(const Topology& topology, std::span<const DeviceId> ranks) {
  HostGroups g;
  std::unordered_map<HostId, std::size_t> index;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const HostId h = topology.device(ranks[r]).host;
    if (h == kNoHost) {
      g.host.push_back(kNoHost);
      g.members.push_back({int(r)});
      continue;
    }
    const auto [it, added] = index.emplace(h, g.host.size());
    if (added) {
      g.host.push_back(h);
      g.members.emplace_back();
    }
    g.members[it->second].push_back(int(r));
  }
  return g;
}

std::unordered_map<DeviceId, int> host_distances(const Topology& topology, DeviceId from) {
  const HostId host = topology.device(from).host;
  std::unordered_map<DeviceId, int> distance{{from, 0}};
  std::vector<DeviceId> queue{from};
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const DeviceId x = queue[head];
    if (x != from && topology.device(x).kind == DeviceKind::Gpu) continue;  // GPUs do not forward
    const int d = distance[x];
    for (const Adjacency& adj : topology.neighbors(x)) {
      if (topology.device(adj.peer).host != host || distance.count(adj.peer)) continue;
      distance.emplace(adj.peer, d + 1);
      queue.push_back(adj.peer);
    }
  }
  return distance;
}

namespace {

/// The type NCCL gives one hop from `x` to `y` over `link` (paths.cc ncclTopoSetPaths).
NcclPath hop_type(const Topology& topology, DeviceId x, DeviceId y, const Link& link) {
  const DeviceKind a = topology.device(x).kind;
  const DeviceKind b = topology.device(y).kind;
  if (link_family(link.kind) == LinkFamily::NvLink) return NcclPath::Nvl;
  if (a == DeviceKind::Cpu && b == DeviceKind::Cpu) return NcclPath::Sys;
  if (a == DeviceKind::Cpu || b == DeviceKind::Cpu) return NcclPath::Phb;
  if (a == DeviceKind::PcieSwitch && b == DeviceKind::PcieSwitch) return NcclPath::Pxb;
  return NcclPath::Pix;
}

}  // namespace

std::unordered_map<DeviceId, NcclPath> host_path_types(const Topology& topology, DeviceId from) {
  const HostId host = topology.device(from).host;
  std::unordered_map<DeviceId, int> distance{{from, 0}};
  std::unordered_map<DeviceId, NcclPath> type{{from, NcclPath::Loc}};
  std::vector<DeviceId> queue{from};
  // Breadth first: every fewest-hop predecessor of a device is settled before the device forwards,
  // and a route's type (its worst hop) only grows along it, so the least over predecessors is the
  // least over the device's fewest-hop routes.
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const DeviceId x = queue[head];
    if (x != from && topology.device(x).kind == DeviceKind::Gpu) continue;  // GPUs do not forward
    const int d = distance[x];
    const NcclPath here = type[x];
    for (const Adjacency& adj : topology.neighbors(x)) {
      if (topology.device(adj.peer).host != host) continue;
      const NcclPath t = std::max(here, hop_type(topology, x, adj.peer, topology.link(adj.link)));
      const auto [it, added] = distance.emplace(adj.peer, d + 1);
      if (added) {
        type.emplace(adj.peer, t);
        queue.push_back(adj.peer);
      } else if (it->second == d + 1) {
        type[adj.peer] = std::min(type[adj.peer], t);
      }
    }
  }
  return type;
}

}  // namespace ringlab::sim::detail
