// What NCCL's model (nccl_tuning.cpp) and its transports (nccl_transport.cpp) both read off the hosts
// of a rank list: the ranks grouped by host, and hop distances over a host's internals.
#pragma once

#include <span>
#include <unordered_map>
#include <vector>

#include "ringlab/topology/topology.hpp"

namespace ringlab::sim::detail {

/// Ranks grouped by host, hosts in order of their first rank; a GPU outside any host is a group of
/// its own.
struct HostGroups {
  std::vector<HostId> host;                ///< per group (kNoHost for a lone GPU)
  std::vector<std::vector<int>> members;   ///< per group: rank indices, in rank order
};
HostGroups group_by_host(const Topology& topology, std::span<const DeviceId> ranks);

/// Hop counts from `from` to every device of its host that it reaches over the host's internals
/// (GPUs other than `from` are reached but do not forward), `from` itself at 0.
std::unordered_map<DeviceId, int> host_distances(const Topology& topology, DeviceId from);

}  // namespace ringlab::sim::detail
