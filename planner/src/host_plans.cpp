// host_plans(): a host-contiguous rank order, seen host by host as launchers and NCCL_GRAPH_FILE
// need it (plan.hpp).
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "ringlab/planner/plan.hpp"

namespace ringlab::planner {
namespace {

/// Ring of channel c as rank indices (identity when the order has no per-channel rings).
std::vector<int> channel_ring(const sim::RankOrder& order, int c) {
  if (order.per_channel()) return order.channel_rings[std::size_t(c) % order.channel_rings.size()];
  std::vector<int> ring(std::size_t(order.size()));
  for (int r = 0; r < order.size(); ++r) ring[std::size_t(r)] = r;
  return ring;
}

/// The first NIC of `host` on the route (leaving), or the last one (entering); -1 when none.
int nic_on_route(const Topology& topology, const Route& route, HostId host, bool leaving) {
  int found = -1;
  for (DirectionId d : route.directions) {
    const Device& dev = topology.device(topology.direction_target(d));
    if (dev.kind != DeviceKind::Nic || dev.host != host) continue;
    found = dev.local_index;
    if (leaving) return found;
  }
  return found;
}

}  // namespace

std::vector<HostPlan> host_plans(const Topology& topology, const sim::RankOrder& order, int channels,
                                 EcmpPolicy ecmp) {
  if (channels < 1) throw std::invalid_argument("a plan needs at least one channel");
  std::vector<HostPlan> hosts;
  std::vector<int> host_slot(topology.host_count(), -1);  // host id -> index in hosts
  std::vector<int> rank_host(std::size_t(order.size()));
  for (int r = 0; r < order.size(); ++r) {
    const Device& gpu = topology.device(order.ranks[std::size_t(r)]);
    if (gpu.host == kNoHost) throw std::invalid_argument("GPU " + gpu.name + " belongs to no host");
    int& slot = host_slot[std::size_t(gpu.host)];
    if (slot < 0) {
      slot = int(hosts.size());
      hosts.push_back({topology.host(gpu.host).name, r, {}, {}});
    } else if (slot != int(hosts.size()) - 1) {
      throw std::invalid_argument("rank " + std::to_string(r) + " returns to host " + topology.host(gpu.host).name +
                                  " after other hosts: launchers need each host's ranks in one block");
    }
    hosts[std::size_t(slot)].gpus.push_back(gpu.local_index);
    rank_host[std::size_t(r)] = slot;
  }

  const Router router(topology, ecmp);
  for (int c = 0; c < channels; ++c) {
    const std::vector<int> ring = channel_ring(order, c);
    // Split the ring into runs of one host; the runs must follow the node order.
    std::vector<std::vector<int>> runs;  // global ranks per visited host, in ring order
    std::vector<int> run_host;
    for (int r : ring) {
      const int h = rank_host[std::size_t(r)];
      if (run_host.empty() || run_host.back() != h) {
        run_host.push_back(h);
        runs.emplace_back();
      }
      runs.back().push_back(r);
    }
    // A ring may start in the middle of host 0's run: join the wrapped tail onto the head.
    if (runs.size() > 1 && run_host.front() == run_host.back()) {
      runs.back().insert(runs.back().end(), runs.front().begin(), runs.front().end());
      runs.erase(runs.begin());
      run_host.erase(run_host.begin());
      std::rotate(runs.begin(), runs.end() - 1, runs.end());
      std::rotate(run_host.begin(), run_host.end() - 1, run_host.end());
    }
    if (runs.size() != hosts.size())
      throw std::invalid_argument("channel " + std::to_string(c) + " enters some host more than once");
    for (std::size_t k = 0; k < runs.size(); ++k) {
      if (run_host[k] != int(k))
        throw std::invalid_argument("channel " + std::to_string(c) + " visits the hosts in another order than channel 0");
    }
    for (std::size_t k = 0; k < runs.size(); ++k) {
      HostChannel hc;
      for (int r : runs[k]) hc.local_ranks.push_back(r - hosts[k].first_rank);
      if (hosts.size() > 1) {
        const std::size_t next = (k + 1) % runs.size(), prev = (k + runs.size() - 1) % runs.size();
        const auto key = std::uint64_t(c);
        const Route out = router.route(order.ranks[std::size_t(runs[k].back())],
                                       order.ranks[std::size_t(runs[next].front())], key);
        const Route in = router.route(order.ranks[std::size_t(runs[prev].back())],
                                      order.ranks[std::size_t(runs[k].front())], key);
        const HostId self = topology.device(order.ranks[std::size_t(runs[k].front())]).host;
        hc.nic_out = nic_on_route(topology, out, self, true);
        hc.nic_in = nic_on_route(topology, in, self, false);
      }
      hosts[k].channels.push_back(std::move(hc));
    }
  }
  return hosts;
}

}  // namespace ringlab::planner
