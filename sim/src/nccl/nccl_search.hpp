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
// rule of the search applies.
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

}  // namespace ringlab::sim::detail
