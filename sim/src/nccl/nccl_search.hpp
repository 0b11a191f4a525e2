// NCCL's search for a node's rings where its GPUs are joined pairwise by NVLink (HGX A100 4-GPU,
// any all-to-all NVLink board) or all through an NVSwitch (DGX/HGX A100, H100, B200): which GPU
// order each channel's ring takes, how many channels, and their bandwidth. NCCL spreads the
// channels over different orders on a mesh, so that every GPU pair's links carry some; one order
// for all channels would load a third of an all-to-all board's links. Behind a switch every order
// loads the same links, and the search decides the channel count (24 on a DGX H100, as NCCL logs).
//
// A port of src/graph/search.cc (ncclTopoCompute with NCCL_TOPO_PATTERN_RING and system->inter 0,
// ncclTopoSearchRec, ncclTopoSearchRecGpu, ncclTopoSearchTryGpu, ncclTopoSearchNextGpuSort,
// followPath, ncclTopoCompareGraphs, ncclTopoDupChannels; unchanged in what it does here from
// v2.19.4 to v2.28.9): the same depth-first search, in the same order, with the same step budgets
// (NCCL_SEARCH_TIMEOUT*), bandwidth rounding (SUB_ROUND) and passes, so it finds what NCCL finds,
// timeouts included. Only what a one-node NVLink mesh or switch exercises is kept: every GPU pair
// has an NVLink path (PATH_NVL), one hop or two through the switch (whose rule of trying a GPU's
// ring neighbours only, previous first, ncclTopoSearchNextGpuSort, is kept); no path type or NIC
// rule of the search applies. Across nodes (nccl_search_net_rings) only the channel count and speed
// are derived, from the NICs, with the same passes.
#pragma once

#include <span>
#include <vector>

namespace ringlab::sim::detail {

/// A node as NCCL's ring search sees it.
struct NcclMesh {
  int gpus = 0;  ///< >= 2, in NCCL's GPU order (PCI order); at most 64
  /// gpus x gpus, [a * gpus + b]: NVLink bandwidth from a to b in NCCL's units (links x
  /// SMxx_NVLINK_BW), GB/s; every a != b > 0.
  std::vector<float> link_gbytes;
  /// Non-empty: the GPUs reach each other through an NVSwitch instead (NCCL merges a node's switches
  /// into one), GPU g's NVLink bandwidth to it per direction in NCCL's units; link_gbytes unused.
  std::vector<float> switch_gbytes;
  float pci_gbytes = 0.0f;        ///< the widest GPU's PCIe link in NCCL's units (totalBw's other term)
  std::span<const float> speeds;  ///< the search's intra speed array for the GPUs' compute capability
  int max_channels = 16;          ///< the ring graph's maxChannels: MAXCHANNELS / 2 (init.cc)
  int min_compute_capability = 80;  ///< ccMin, e.g. 80 for sm_80
};

/// The ring graph NCCL's search returns: `channels` rings (GPU indices in ring order; channel c's
/// GPU k sends to its GPU k + 1, the last to the first) of `bw_intra` GB/s each (NCCL's units).
struct NcclRingGraph {
  int channels = 0;
  float bw_intra = 0.0f;
  std::vector<std::vector<int>> rings;
};

/// NCCL's ring graph on `mesh` (after ncclTopoDupChannels). Precondition: the mesh is as described.
NcclRingGraph nccl_search_mesh_rings(const NcclMesh& mesh);

/// speedArrayIntra, sm90SpeedArrayIntra, sm100SpeedArrayIntra of search.cc (v2.28.9), GB/s.
std::span<const float> nccl_intra_speeds(int min_compute_capability);

/// One node's NICs as NCCL's ring search across nodes sees them (ncclTopoCompute with NET nodes).
/// Counted, not searched: a ring enters the node through a NIC and leaves through the same one
/// (crossNic 0; NCCL_CROSS_NIC=1 lets it leave by another, which changes no count here), taking its
/// bandwidth from each direction, and NCCL's greedy search adds rings while a NIC has that much left.
/// Inside, a ring crosses every GPU's NVLink once each way except where it enters (from a NIC) and
/// leaves (to one); the search spreads entries and exits over the GPUs, so R rings load a GPU's
/// NVLink with R - floor(R / gpus) of them. Which GPU pairs a mesh's rings take, and PCIe between
/// GPUs, are not checked (PXN where a NIC is far from a ring's end GPU is taken as found).
struct NcclNet {
  /// per NIC, the bandwidth of its path from the node's GPUs, GB/s in NCCL's units: the NIC's speed,
  /// at most the PCIe links on the way (NCCL's path bandwidth is its narrowest link)
  std::vector<float> nic_gbytes;
  float total_gbytes = 0.0f;      ///< system->totalBw (a GPU's NVLink or PCIe); +inf for one GPU
  int gpus = 1;                   ///< the node's GPUs (ranks)
  float nvlink_gbytes = 0.0f;     ///< each GPU's NVLink each way, the fewest; 0: none (not checked)
  std::span<const float> speeds;  ///< the search's inter speed array (nccl_inter_speeds)
  int max_channels = 16;          ///< the ring graph's maxChannels: MAXCHANNELS / 2 (init.cc)
  int min_compute_capability = 80;
};

/// The ring graph's channel count and per-channel bandwidth across nodes (after ncclTopoDupChannels
/// and pass 2's faster speeds); 0 channels where no NIC reaches the slowest speed.
struct NcclNetGraph {
  int channels = 0;
  float bw = 0.0f;  ///< bwIntra = bwInter, GB/s
};
NcclNetGraph nccl_search_net_rings(const NcclNet& net);

/// speedArrayInter, sm90SpeedArrayInter, sm100SpeedArrayInter of search.cc (v2.28.9), GB/s.
std::span<const float> nccl_inter_speeds(int min_compute_capability);

}  // namespace ringlab::sim::detail
