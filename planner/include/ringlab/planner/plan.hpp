// Plan: what the planner decides for one cluster and job, in the shape launchers and NCCL need.
//
// The rank order is the lever (shared/reference/launchers.md 1): NCCL stitches nodes into rings and
// trees in global rank order and never looks at the network between nodes, so the node order is
// whatever the launcher assigns; inside a node NCCL's own search picks the ring, which an
// NCCL_GRAPH_FILE can pin per channel together with the NIC each channel enters and leaves by.
//
// A plan's order is therefore host-contiguous: hosts[h] holds ranks first_rank .. first_rank+n-1,
// and local rank i of host h runs on the host's GPU with local index hosts[h].gpus[i]
// (CUDA_VISIBLE_DEVICES lists them in that order, so local rank i uses visible device i). Every
// channel visits the hosts in the same order; inside a host it visits local ranks in
// hosts[h].channels[c].local_ranks order, entering by NIC nic_in and leaving by nic_out. `order` is
// the same thing as a sim::RankOrder (ranks numbered along channel 0; channel_rings when channels
// differ), which `ringlab simulate --rank-order plan.json` reads back.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ringlab/sim/collectives.hpp"
#include "ringlab/sim/rank_order.hpp"
#include "ringlab/topology/routing.hpp"
#include "ringlab/topology/topology.hpp"
#include "ringlab/topology/units.hpp"

namespace ringlab::planner {

/// plan.json's "schema" and "version"; the only version this build reads.
inline constexpr const char* kPlanSchema = "ringlab.plan";
inline constexpr int kPlanFormatVersion = 1;

/// How one channel (one of NCCL's parallel rings) crosses one host.
struct HostChannel {
  std::vector<int> local_ranks;  ///< the host's local ranks in this channel's ring order
  int nic_in = -1;               ///< local index of the NIC the ring enters the host by; -1: none (one host)
  int nic_out = -1;              ///< local index of the NIC it leaves by; -1: none
  bool operator==(const HostChannel&) const = default;
};

/// One host of the plan, in node (rank) order.
struct HostPlan {
  std::string name;                   ///< Host::name, as launchers and hostfiles spell it
  int first_rank = 0;                 ///< global rank of local rank 0
  std::vector<int> gpus;              ///< local rank i runs on the GPU with local index gpus[i]
  std::vector<HostChannel> channels;  ///< one per channel; every host has the same count
  int size() const { return int(gpus.size()); }
  bool operator==(const HostPlan&) const = default;
};

/// One NCCL environment variable the plan sets. NCCL's documentation separates system
/// configuration, safe to ship (NCCL_TOPO_FILE, NCCL_GRAPH_FILE, NCCL_CROSS_NIC, NCCL_IB_HCA, ...),
/// from debugging settings that "should not be used in production nor retained in scripts"
/// (NCCL_ALGO, NCCL_PROTO, NCCL_MIN/MAX_NCHANNELS): launchers.md 4.
struct NcclSetting {
  std::string name;      ///< "NCCL_CROSS_NIC"
  std::string value;     ///< "0"
  std::string reason;    ///< one line, for the environment file's comment
  bool debug_only = false;
  bool operator==(const NcclSetting&) const = default;
};

/// The per-GPU batch and accumulation the planner chose (training scenarios only).
struct BatchPlan {
  int micro_batch = 0;                ///< samples per GPU per micro-batch (the largest that fits and pays)
  std::vector<int> rank_micro_batch;  ///< per rank, when GPUs differ in speed (else empty)
  int accumulation = 1;               ///< micro-batches per optimizer step
  long long global_batch = 0;         ///< samples per optimizer step over all ranks
  std::string lr_scaling;             ///< "linear (SGD): lr x 4.0 ..." in plain words
  bool operator==(const BatchPlan&) const = default;
};

struct Plan {
  std::string scenario;           ///< scenario name
  std::string scenario_digest;    ///< digest_hex of the scenario document
  sim::RankOrder order;           ///< ranks numbered along channel 0; channel_rings when channels differ
  std::vector<HostPlan> hosts;    ///< node order: host k holds the k-th block of ranks

  sim::Collective collective = sim::Collective::AllReduce;
  Bytes message;                  ///< the message the order and algorithm were planned for
  std::string algorithm;          ///< the chosen algorithm ("ring", "tree", ... as simulate names it)
  int channels = 1;
  EcmpPolicy ecmp = EcmpPolicy::Hash;  ///< routing the NICs per channel were derived with

  std::vector<NcclSetting> nccl_env;
  std::optional<BatchPlan> batch;

  std::string master_host;        ///< torchrun/TF rendezvous host: the host of rank 0
  int master_port = 29500;        ///< torchrun's default --master-port

  /// What the planner found (predicted times, the naive and random orders, the lower bound, the
  /// reasons), as plan.json's "report" object; opaque to the bundle writers and readers.
  nlohmann::json report = nlohmann::json::object();

  int ranks() const { return order.size(); }
};

/// Builds hosts[] from a host-contiguous order: node order and local ranks follow order.ranks,
/// channel c's local ranks follow order.channel_rings (or channel 0 when there are none), and the
/// NICs are those the routes between consecutive hosts leave and enter by. `channels` >= 1.
/// Throws std::invalid_argument when the order, or a channel ring, is not host-contiguous or a
/// channel visits the hosts in a different order (NCCL cannot express it).
std::vector<HostPlan> host_plans(const Topology& topology, const sim::RankOrder& order, int channels,
                                 EcmpPolicy ecmp = EcmpPolicy::Hash);

}  // namespace ringlab::planner
