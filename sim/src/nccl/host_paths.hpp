// What NCCL's model (nccl_tuning.cpp) and its transports (nccl_transport.cpp) both read off the hosts
// of a rank list: the ranks grouped by host, hop distances and NCCL path types over a host's internals.
#pragma once

#include <span>
#include <unordered_map>
#include <vector>

#include "ringlab/sim/nccl_env.hpp"
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

/// NCCL's path type from `from` to every device host_distances() reaches, over fewest-hop routes, the
/// least among them: each hop is typed as NCCL's ncclTopoSetPaths types it (src/graph/paths.cc,
/// v2.19-v2.28: NVLink NVL, PCIe PIX, PCIe switch to PCIe switch PXB, PCIe to or from a CPU PHB,
/// between CPUs SYS) and a route takes its worst hop. `from` itself is LOC.
std::unordered_map<DeviceId, NcclPath> host_path_types(const Topology& topology, DeviceId from);

}  // namespace ringlab::sim::detail
