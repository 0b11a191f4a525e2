// NCCL's public tuning model (src/graph/tuning.cc): for each algorithm and protocol a latency
// (base + per-hop hardware latency) and a bus bandwidth (channels x per-channel bandwidth, with the
// model's per-protocol refinements), predicted time = latency + bytes / bandwidth, and the cheapest
// enabled pair wins. ringlab uses it two ways: `nccl` as an algorithm (build the schedule NCCL would
// run, with that protocol's chunk) and as a closed-form reference next to the simulation.
//
// The constants are NCCL's from 2.18.1 on, per release where they changed (tables in nccl_tuning.cpp,
// each cited). What NCCL learns from its
// topology search (per-channel bandwidth, channel count, path types) ringlab derives from the
// Topology in nccl_model(); that step is an approximation and is documented there.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ringlab/sim/calibration.hpp"
#include "ringlab/sim/collectives.hpp"
#include "ringlab/sim/nccl_env.hpp"
#include "ringlab/sim/payload.hpp"
#include "ringlab/sim/schedule.hpp"
#include "ringlab/topology/kinds.hpp"
#include "ringlab/topology/topology.hpp"
#include "ringlab/topology/units.hpp"

namespace ringlab::sim {

/// The cluster as NCCL's tuning model sees it.
struct NcclModel {
  int ranks = 1;
  int nodes = 1;                     ///< distinct hosts among the ranks
  int channels = 1;                  ///< NCCL channels (comm->nChannels)
  /// The ring and tree graphs' channels as NCCL's tuning reads them (graphs[a]->nChannels: the
  /// search's, before ncclTopoPostset doubles them into `channels`); 0: the same as `channels`.
  int graph_channels = 0;
  /// The ring graph's bandwidth per channel (bwIntra, = bwInter across nodes), GB/s in NCCL's units;
  /// 0: not searched (the ranks' NVLink or network split over the channels stands in).
  double ring_graph_gbytes = 0.0;
  /// The tree graphs' bwIntra across nodes (tree, PAT, CollNet chain), GB/s: the ring graph's speed
  /// raised by NCCL's search pass 2 while the GPUs' NVLink carries it, to at most twice that speed;
  /// tuning reads it on two nodes and for CollNet. 0: not searched (min(intra, 2 x inter) stands in).
  double tree_graph_intra_gbytes = 0.0;
  bool nvlink = false;               ///< every rank's GPU has NVLink (intra hw NVLINK, else PCI)
  bool nvswitch = false;             ///< every rank's GPU is on an NVSwitch (NCCL's nvsCount > 0)
  bool nvls = false;                 ///< single node with an NVSwitch that reduces (NVLink SHARP)
  bool collnet = false;              ///< a fabric switch that reduces (InfiniBand SHARP) and > 1 node
  bool nvls_tree = false;            ///< > 1 node, each with an NVSwitch that reduces (NVLS-Tree)
  /// NVLS-Tree: the slowest head's network path in NCCL's units, GB/s: the NICs nearest the head GPU
  /// together (NCCL fuses them), at most its PCIe link.
  double nvls_head_gbytes = 0.0;
  GpuModel gpu = GpuModel::Generic;  ///< oldest GPU among the ranks (NCCL's minCompCap)
  bool mixed_compute = false;        ///< the ranks' compute capabilities differ (minCompCap != maxCompCap)
  int nics = 0;                      ///< network rails: fewest NICs that leave a host (0 single node)
  Bandwidth intra;                   ///< per-GPU intra-node bandwidth (NVLink sum or PCIe link)
  int nvlinks = 0;                   ///< NVLink links per GPU, fewest over the ranks (0 without NVLink)
  LinkKind nvlink_kind = LinkKind::Custom;  ///< their oldest generation (Custom: the GPU's generation's)
  Bandwidth inter;                   ///< bandwidth leaving a host, fewest over the hosts (0 single node):
                                     ///< NCCL spreads its channels over every NIC of the node
  bool efa = false;                  ///< every host leaves through AWS EFA (Transport::Srd): EFA's
                                     ///< network hop latency replaces NCCL's IB/RoCE one
  /// NCCL's graphs' typeInter: the path from a GPU to its channel's NIC, the worst over the NICs the
  /// channels use (every NIC of a host, each from its nearest rank GPU); Loc on one node. LL128 needs
  /// it within PXB (PXN from sm 9.0).
  NcclPath net_path = NcclPath::Loc;
  /// The ranks' hosts' CPU vendor (NCCL's comm->cpuVendor); nullopt when they differ (NCCL's MIXED).
  std::optional<CpuVendor> cpu_vendor = CpuVendor::Intel;
  bool x86 = true;                   ///< every such host's CPU is Intel's or AMD's (NCCL's cpuArch X86)
  NcclEnv env;                       ///< the NCCL settings (algorithms, protocols, buffers) it runs under
};

/// One (algorithm, protocol) row of NCCL's table for a collective and size.
struct NcclEstimate {
  NcclAlgorithm algorithm = NcclAlgorithm::Ring;
  Protocol protocol = Protocol::Simple;
  Duration latency;     ///< comm->latencies[coll][a][p] after the size-dependent adjustments
  Bandwidth bandwidth;  ///< comm->bandwidths[coll][a][p] (algorithm bandwidth) after corrections
  Duration time;        ///< latency + bytes / bandwidth
};

struct NcclChoice {
  Algorithm algorithm = Algorithm::Ring;  ///< ring, tree or in_network (for CollNet and NVLS)
  NcclAlgorithm nccl_algorithm = NcclAlgorithm::Ring;
  Protocol protocol = Protocol::Simple;
  int channels = 1;       ///< the channels simulated (NVLS and NVLS-Tree: one per head)
  /// The channels NCCL's tuning log gives the call (channel{Lo..Hi}): `channels`, but for NVLS and
  /// NVLS-Tree the NVLS CTAs the planner spreads the call over.
  int logged_channels = 1;
  Bytes chunk;            ///< the protocol's step size: the schedule's piece size
  Duration predicted;     ///< NCCL's model time for the whole collective
  Duration latency;       ///< the model's latency term
  Duration step_latency;  ///< hwLat of the chosen pair on the hops it crosses (NET when multi-node)
  Bandwidth bandwidth;    ///< the model's algorithm bandwidth
  /// The algorithm bandwidth the simulated time is floored at (NVLS, NVLS-Tree, Tree, PAT, Ring/LL: see
  /// run_collective.cpp): the model's, except that NVLS and NVLS-Tree take the newest release's
  /// hardware figure (nvlsEfficiency, 2.28) whatever release chose them. Zero: no floor.
  Bandwidth floor;
  std::string name;       ///< "ring/ll128"
  /// Non-empty when the NCCL settings leave no (algorithm, protocol) for the collective: NCCL fails
  /// ("no algorithm/protocol available", src/enqueue.cc); the other fields are then meaningless.
  std::string unavailable;
};

/// Summarises the topology for the model. Approximations (NCCL measures these in its search):
/// intra = sum of a GPU's NVLink bandwidth, or its PCIe link; inter = bandwidth leaving the host
/// (NCCL's channels together use every NIC); channels = bottleneck bandwidth / the per-channel cap of
/// the GPU generation, rounded up, clamped to [2, 32], then across nodes rounded up to a multiple of
/// the NIC count so that every NIC carries as many channels (NCCL builds one ring per NIC and
/// duplicates them, src/graph/search.cc ncclTopoCompute, ncclTopoDupChannels); on one node (at most 64
/// GPUs) whose GPUs are joined pairwise by NVLink or meet in NVSwitches, NCCL's own ring search's
/// channels, doubled as ncclTopoPostset does (nccl_channel_rings). Precondition: ranks
/// are distinct GPUs. `env`: NCCL_MIN/MAX_NCHANNELS bound the channels (applied last, as NCCL does),
/// NCCL_NVLS_ENABLE and NCCL_COLLNET_ENABLE switch NVLS and CollNet.
NcclModel nccl_model(const Topology& topology, std::span<const DeviceId> ranks, const NcclEnv& env = {});

/// The cluster as NCCL_IB_HCA leaves it to NCCL: the network links of the NICs `filter` excludes
/// end on placeholder devices outside every host, so no route between GPUs crosses them; every
/// device and link keeps its id (results index directions alike). Throws std::invalid_argument when
/// a host of `ranks` keeps no NIC that leaves it (NCCL would fall back to sockets).
Topology nccl_net_topology(const Topology& topology, std::span<const DeviceId> ranks, const NicFilter& filter);

/// NCCL's nodes where hosts share NVLink (GB200 NVL72 trays on their rack's NVLink switches). With
/// multi-node NVLink (MNNVL: NCCL 2.20 and later, NCCL_MNNVL_ENABLE not 0, P2P not disabled) NCCL
/// fuses a clique's topologies into one system and nNodes counts cliques (src/init.cc ncclMnnvlCheck,
/// src/graph/topo.cc ncclTopoGetSystem "XML topo fusion"): the clique's hosts become one host named
/// "first..last", the NVLink switches only it reaches join it, and each kind's local indices run
/// host by host (tray t's NIC k follows the NICs of the trays before it), so rails span the clique.
/// Without MNNVL each host is a node that reaches those switches through a private copy (NVLink
/// inside the host only) and other hosts over the network. Every device and link keeps its id
/// (copies are appended). nullopt when no NVLink among the ranks joins two hosts.
std::optional<Topology> nccl_node_topology(const Topology& topology, std::span<const DeviceId> ranks,
                                           const NcclEnv& env = {});

/// The cluster as NCCL sees it under `env`: nccl_net_topology() when NCCL_IB_HCA is set, then
/// nccl_node_topology(); nullopt when neither changes it. Throws std::invalid_argument as
/// nccl_net_topology() does.
std::optional<Topology> nccl_view(const Topology& cluster, std::span<const DeviceId> ranks, const NcclEnv& env);

/// NCCL's ring per channel across several hosts (src/graph/search.cc: "NET n -> GPU a -> .. -> GPU x
/// -> NET n"): hosts in the order of their first rank; inside a host the GPUs sorted by their nearest
/// NIC (rail). Channel c enters the first host on rail c mod rails; each later host is entered on
/// the rail the previous host leaves by, so a ring stays on one rail between hosts (a rail-optimised
/// fabric keeps it on one leaf) but for the hop that closes it, and the channels together use every
/// NIC in both directions; a host's last GPU sends on its own NIC. A host is entered at a GPU
/// nearest the rail of those at the least distance from it, and left at the rank order's last GPU
/// unless another GPU is nearer a NIC, which then goes last (NCCL's search begins and ends a host's
/// part of a ring at GPUs within the best path type to a NIC it can find). With NCCL_CROSS_NIC=0
/// (env.cross_nic) every host is entered on rail c mod rails, as NCCL's crossNic 0 graph enters and
/// leaves a node by one NIC; the last GPU then sends through that NIC (PXN, nccl_transport.hpp).
/// Returns rank-index permutations, one per channel. A single host: NCCL's own ring search where its
/// GPUs are joined pairwise by NVLink without an NVSwitch (one ring per graph channel, fewer than
/// `channels`: channel c takes ring c mod their count), else empty (every order loads a switch alike).
std::vector<std::vector<int>> nccl_channel_rings(const Topology& topology, std::span<const DeviceId> ranks,
                                                 int channels, const NcclEnv& env = {});

/// NCCL's tree channels (src/graph/search.cc tree pattern "NET n -> GPU a -> .. -> GPU x", the same
/// NET n on every node): like nccl_channel_rings but channel c enters every host on rail c mod rails,
/// so the host's head (first in the order) is the GPU nearest that NIC and the rest chain below it.
/// For CollectiveSpec::host_chains. Empty for a single host.
std::vector<std::vector<int>> nccl_tree_chains(const Topology& topology, std::span<const DeviceId> ranks,
                                               int channels);

/// Every enabled (algorithm, protocol) pair for `collective` on `message` bytes, in NCCL's table
/// order (algorithm, then LL, LL128, Simple); NCCL_ALGO and NCCL_PROTO (model.env) disable pairs as
/// in NCCL, and NCCL_PROTO naming LL128 enables it where NCCL's default would not. Empty for a single
/// rank.
std::vector<NcclEstimate> nccl_estimates(const NcclModel& model, Collective collective, Bytes message);

/// A collective as NCCL's log lines name it (src/collectives.cc ncclFuncToString): "AllReduce", ...
std::string_view nccl_log_name(Collective c);

/// NCCL's tuning table as NCCL prints it at init under NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING
/// (src/graph/tuning.cc ncclTopoTuneModel, rank 0): blocks of three algorithms, a row per collective
/// (Broadcast, Reduce, AllGather, ReduceScatter, AllReduce) holding "latency/bandwidth" per (algorithm,
/// protocol), microseconds and the algorithm bandwidth in GB/s, before the size-dependent corrections.
/// As in NCCL, a pair NCCL_ALGO or NCCL_PROTO disables keeps its latency with bandwidth 0; a pair
/// ringlab's model does not run there (NVLS on one node without NVSwitch, CollNet off, ...) prints
/// 0.0/0.0. NCCL's "Max NThreads" row is left out (ringlab does not model thread counts); PAT's
/// column appears from 2.23, as in NCCL. Lines without NCCL's "host:pid:tid [dev] NCCL INFO" prefix.
std::vector<std::string> nccl_tuning_table(const NcclModel& model);

/// NCCL's line for one call at rank 0 under NCCL_DEBUG_SUBSYS=TUNING (src/enqueue.cc, 2.19 and
/// later): "AllReduce: 1048576 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..15}". Bytes as
/// NCCL counts them (count x type size: per rank for AllGather and ReduceScatter, so `message` / ranks).
/// Channels: the choice's logged_channels: for ring and tree nccl_call_channels; for NVLS and
/// NVLS-Tree NCCL's NVLS CTAs (16, and 32 on Blackwell from 2.26), which run the heads' channels that
/// ringlab simulates one per head, less those the release's planner leaves a small call without (not
/// for NVLS across nodes).
std::string nccl_choice_line(const NcclModel& model, Collective collective, Bytes message, const NcclChoice& choice);

/// What NCCL's model sees, in one line for report headers (no leading "nccl model: "): "2 nodes x 8
/// a100 (sm 80), NVLink 240.0 GB/s per GPU through NVSwitch, 8 NICs 200.0 GB/s out of each node, amd
/// CPUs, 16 channels, tuning tables of 2.23". Bandwidths are in NCCL's units (its per-link figures).
std::string nccl_model_summary(const NcclModel& model);
/// The same for the model NCCL builds for `ranks` under `env`, on the cluster as nccl_view leaves it;
/// "" when NCCL would not run there (NCCL_IB_HCA leaves a host without a NIC).
std::string nccl_model_summary(const Topology& cluster, std::span<const DeviceId> ranks, const NcclEnv& env);
/// That model itself; nullopt when NCCL would not run there.
std::optional<NcclModel> nccl_cluster_model(const Topology& cluster, std::span<const DeviceId> ranks,
                                            const NcclEnv& env);

/// True when ringlab can build NCCL algorithm `a` for `payload`: in-network reduction (CollNet,
/// NVLS) reduces the gradient's own type, so it cannot carry a compressed payload.
bool nccl_runs_payload(NcclAlgorithm a, const Payload& payload);

/// The channels one call of `message` bytes (the whole buffer; AllGather's and ReduceScatter's too)
/// runs on under (algorithm, protocol), as NCCL's tuning log prints them (channel{Lo..Hi}): for ring,
/// tree, PAT and CollNet Chain, comm->nChannels less those the call is too small to fill
/// (src/enqueue.cc topoGetAlgoInfo's thread thresholds, then the planner's split: in 2.20 and 2.21
/// per channel ceil(bytes / channels) up to the protocol's alignment, from 2.22 cells of 512 B, 16 KiB
/// from 2.23.4, 32 KiB from 2.29, of traffic; CollNet Chain: the thresholds alone); NVLS and
/// NVLS-Tree: nvls_channels; CollNet Direct: all.
int nccl_call_channels(const NcclModel& model, Collective collective, NcclAlgorithm algorithm, Protocol protocol,
                       Bytes message);

/// The pair NCCL's model predicts fastest among those that can carry `payload` (ties: table order):
/// with compression, CollNet and NVLS are skipped and the best remaining row wins. A single rank
/// gives ring/simple, 0.
NcclChoice nccl_choose(const NcclModel& model, Collective collective, Bytes message, const Payload& payload = {});
NcclChoice nccl_choose(const Topology& topology, std::span<const DeviceId> ranks, Collective collective, Bytes message,
                       const Payload& payload = {}, const NcclEnv& env = {});

/// Algorithm::Nccl resolved: NCCL's choice for `spec` and the spec that runs it (algorithm, channels,
/// chunk, and NCCL's per-channel rings or tree chains across hosts), under spec.nccl_env.
struct NcclResolved {
  NcclChoice choice;
  CollectiveSpec spec;
};
NcclResolved nccl_resolve(const Topology& topology, std::span<const DeviceId> ranks, const CollectiveSpec& spec);

/// NCCL's size-independent view of one communicator, `ranks` of `topology` under `env`: its model and
/// the rings its search gives the channels, made once for the calls of every size (a sweep's, a
/// calibration's). NCCL's searches can take tens of milliseconds each. `topology` must outlive it.
class NcclComm {
 public:
  NcclComm(const Topology& topology, std::span<const DeviceId> ranks, const NcclEnv& env);

  const NcclModel& model() const { return model_; }
  /// nccl_resolve of `spec`, whose NCCL settings must be the communicator's.
  NcclResolved resolve(const CollectiveSpec& spec) const;

 private:
  const Topology& topology_;
  std::vector<DeviceId> ranks_;
  NcclModel model_;
  std::vector<std::vector<int>> mesh_rings_;  ///< NCCL's searched rings on one node's NVLink mesh, or none
};

}  // namespace ringlab::sim
