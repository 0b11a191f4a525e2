// Private helpers of the launch bundle (bundle.hpp): the facts the writers and check_bundle() share,
// so a file and its checker cannot drift apart.
#pragma once

#include <string>
#include <vector>

#include "ringlab/planner/bundle.hpp"
#include "ringlab/planner/plan.hpp"
#include "ringlab/topology/topology.hpp"

namespace ringlab::planner::bundle {

/// TF_CONFIG's worker port: the port TensorFlow's documentation uses in its examples
/// (tensorflow.org TFConfigClusterResolver; shared/reference/formats.md 6).
inline constexpr int kTfPort = 2222;

/// "a,b,c" from numbers.
std::string join(const std::vector<int>& values, const std::string& separator);
/// The host name up to its first '.': NCCL logs that much (src/debug.cc getHostName with '.').
std::string short_name(const std::string& host);
/// The shell case pattern that matches a host by its plan name, short or fully qualified.
std::string host_pattern(const std::string& host);
/// Channel c's ring as global ranks, starting at rank 0 as NCCL prints it (src/graph/rings.cc:40-49):
/// host by host in node order, each host's local ranks in the channel's order.
std::vector<int> global_ring(const Plan& plan, int channel);
/// Index in plan.hosts of the host that runs `rank`.
std::size_t host_of_rank(const Plan& plan, int rank);
/// True for settings NCCL's documentation calls debugging-only (launchers.md 4).
bool is_debug_setting(const NcclSetting& setting);

/// One channel of a graph file as NCCL's parser reads it: the NIC (hex "dev") the channel enters
/// by, its GPUs' NVML indices in ring order, the NIC it leaves by; no NICs on a single-node plan.
struct GraphChannel {
  bool has_nets = false;
  int net_in = 0;
  std::vector<int> gpus;
  int net_out = 0;
};
/// What the graph file of plans.hosts[host] must hold, channel by channel (the ring, graph id 0;
/// the tree, graph id 1, uses the same chains).
std::vector<GraphChannel> graph_channels(const Plan& plan, std::size_t host);
/// 1 when some channel enters and leaves the host by different NICs (graph attribute "crossnic").
int graph_crossnic(const Plan& plan, std::size_t host);

// The files, one function each (bundle.cpp puts them in order).
BundleFile plan_file(const Topology& topology, const Plan& plan);
BundleFile hostfile(const Plan& plan);
BundleFile rankfile(const Topology& topology, const Plan& plan);
BundleFile machinefile(const Plan& plan);
BundleFile slurm_hosts(const Plan& plan);
BundleFile srun_script(const Plan& plan);
BundleFile torchrun_script(const Plan& plan);
BundleFile tf_config(const Plan& plan, std::size_t host);
BundleFile nccl_env(const Plan& plan);
BundleFile nccl_debug_env(const Plan& plan);
BundleFile graph_file(const Topology& topology, const Plan& plan, std::size_t host);
BundleFile check_script(const Plan& plan);
BundleFile readme(const std::vector<BundleFile>& files);

}  // namespace ringlab::planner::bundle
