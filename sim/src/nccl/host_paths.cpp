// Ranks by host and distances inside a host (host_paths.hpp).
#include "nccl/host_paths.hpp"

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

}  // namespace ringlab::sim::detail
