// NCCL's tuning model (ncclTopoTuneModel + ncclTopoGetAlgoTime in src/graph/tuning.cc), with its
// constant tables. Tables are indexed the way NCCL indexes them: protocol LL, LL128, Simple.
//
// Provenance: every table below is NCCL src/graph/tuning.cc; those that changed between releases are
// kept per release (TuningEra, chosen by NcclEnv::version), the others are v2.19's and unchanged
// from v2.18.1 (checked up to v2.29.7); latencies are microseconds, bandwidths GB/s (1e9 B/s).
// Where ringlab has to stand in for something NCCL measures at init (CPU vendor, path types,
// per-channel bandwidth from the topology search), the stand-in is named next to its use.
#include "ringlab/sim/nccl_tuning.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iomanip>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "nccl/host_paths.hpp"
#include "nccl/nccl_search.hpp"

namespace ringlab::sim {
namespace {

using detail::group_by_host;
using detail::HostGroups;

constexpr int kLL = 0;
constexpr int kLL128 = 1;
constexpr int kSimple = 2;
constexpr int kNcclProtocols = 3;

int nccl_protocol(Protocol p) {
  switch (p) {
    case Protocol::LL: return kLL;
    case Protocol::LL128: return kLL128;
    case Protocol::Simple: return kSimple;
  }
  return kSimple;
}

using ProtoRow = std::array<double, kNcclProtocols>;
using AlgoTable = std::array<ProtoRow, kNcclAlgorithmCount>;  // Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT

enum Hw { kHwNvLink = 0, kHwPci = 1, kHwNet = 2 };

// NCCL's tuning tables by release: they changed in 2.18.3, 2.19, 2.21, 2.23, 2.28.3, 2.28.9, 2.29.2 and
// 2.30.3 (read from each release's src/graph/tuning.cc, tags v2.18.1-1, v2.18.3-1, v2.19.4-1, v2.21.5-1,
// v2.23.4-1, v2.28.3-1, v2.28.9-1, v2.29.2-1, v2.30.3-1; unchanged in between: v2.18.5, v2.18.6, v2.20.5,
// v2.22.3, v2.24.3-v2.27.7, v2.28.7, v2.29.3, v2.29.7, v2.30.4 and v2.30.7 checked, but for Blackwell's
// rows, kept apart in kBlackwellReleases).
// Releases before 2.18.1 (2.12-2.17: no NVLS-Tree, other latencies and caps) take 2.18.1's, with a
// warning (nccl_env.cpp). Latencies in microseconds.
struct TuningEra {
  int from_version;         // NCCL_VERSION_CODE of the first release using the row
  std::string_view name;
  AlgoTable base_latency;   // baseLat[algorithm][protocol]
  std::array<AlgoTable, 3> hw_latency;  // hwLat[NVLINK/PCI/NET][algorithm][protocol], per hop
  double hopper_ll_max_one_node;        // llMaxBws[Hopper][N1], GB/s
  double ring_ll_share_multi;           // ring LL busBw factor (multi-node, AllReduce, Reduce)
  double ring_ll_share_other;           // ring LL busBw factor otherwise
  double ring_ll128_one_ppn;            // ring LL128 busBw factor with < 2 ranks per node
  bool inter_steps_exclusive;           // ring inter-node steps 2(nodes-1) (from 2.23), else 2 nodes
  bool one_ppn_tree_net_latency;        // one rank per node: NET hop latency is the tree's (from 2.23)
  bool nvls_efficiency;                 // NVLS busBw from nvlsEfficiency (from 2.28), else x nvls_ratio
  double pat_efficiency;                // PAT busBw factor (from 2.23); 0: no PAT in the release
  // 2.18: NVLSTree crosses 2(nNodes-1) NET hops (from 2.19 2 log2(nNodes)), its busBw is the graph's
  // bwIntra on <= 2 nodes, else bwInter (from 2.19 the smaller of the two), to algBw x .7 n/(2(n-1))
  // (from 2.19 x 5/6).
  bool nvls_tree_linear;
  double collnet_arity_latency;         // CollNetDirect arity serialisation per local rank, us
  // From 2.19 NVLS also serves AllGather and ReduceScatter on one node (enqueue.cc topoGetAlgoInfo:
  // "now we only support single-node NVLS allgather and reducescatter"; 2.28 adds them across nodes
  // through a CollNet plugin's iallgather/ireducescatter, which ringlab does not model).
  bool nvls_gather_scatter;
  double nvls_ratio;                    // NVLS (and 2.19-2.27 NVLSTree) busBw -> algBw: .75 in 2.18.1,
                                        // then 5/6; from 2.28 nvlsEfficiency instead
  // 2.18.1 has one LL128 per-channel cap for ring and tree (ll128MaxBwPerCh {20, 20, 36.7}: Hopper's
  // tree LL128 at 4+ nodes 36.7 where 2.18.3 has 29.0) and Hopper's tree cap at 4+ nodes 33.0 (36.0).
  bool ll128_one_cap;
  double hopper_tree_max_n4;            // perChMaxTreeBws[Hopper][N4], GB/s
  // From 2.23 AllGather and ReduceScatter rows of algorithms other than the ring keep their busBw
  // as algBw ("Convert bus BW to algorithm BW" skips them); before, NVLS took x 5/6 there too.
  bool gather_scatter_bus_unconverted;
  // From 2.29.2 ncclTopoGetAlgoTime applies treeCorrectionFactor (to 512 MiB) to NVLS-Tree AllReduce
  // too, on Blackwell (minCompCap >= 100) with x86 CPUs.
  bool nvls_tree_correction_blackwell_x86 = false;
  // From 2.30.3 LL128 is on by default for ranks of different compute capability when the oldest is
  // 9.0 or newer ("Enable LL128 for interoperability between GPUs with different compcap").
  bool ll128_mixed_from_hopper = false;
};
// 2.23 and the releases after it, each as the one before changed it.
constexpr TuningEra kEra223{.from_version = 22300,
     .name = "2.23",
     .base_latency = {{{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}}},
     .hw_latency = {{{{{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}, {0.0, 0.0, 3.7}, {0.0, 0.0, 2.8}, {0.0, 0.0, 25.0}, {0.0, 0.0, 25.0}}},
       {{{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0.0, 0.0, 3.7}, {0.0, 0.0, 2.8}, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}}},
       {{{5.0, 8.5, 14.0}, {2.7, 4.0, 14.0}, {0.0, 0.0, 31.0}, {0.0, 0.0, 30.0}, {0.0, 0.0, 18.0}, {0.0, 0.0, 14.0}}}}},
     .hopper_ll_max_one_node = 141.0, .ring_ll_share_multi = 0.5, .ring_ll_share_other = 0.5,
     .ring_ll128_one_ppn = 0.92, .inter_steps_exclusive = true, .one_ppn_tree_net_latency = true,
     .nvls_efficiency = false, .pat_efficiency = 0.85, .nvls_tree_linear = false, .collnet_arity_latency = 0.4,
     .nvls_gather_scatter = true, .nvls_ratio = 5.0 / 6.0, .ll128_one_cap = false,
     .hopper_tree_max_n4 = 36.0, .gather_scatter_bus_unconverted = true};
// 2.28: NVLS and NVLS-Tree from nvlsEfficiency, PAT x .75 (2.28.3 and 2.28.7; their Blackwell rows
// differ, kBlackwellReleases).
constexpr TuningEra kEra228 = [] {
  TuningEra e = kEra223;
  e.from_version = 22800;
  e.name = "2.28";
  e.nvls_efficiency = true;
  e.pat_efficiency = 0.75;
  return e;
}();
// 2.28.9: NVLSTree's NET hop 20.9 us.
constexpr TuningEra kEra2289 = [] {
  TuningEra e = kEra228;
  e.from_version = 22809;
  e.name = "2.28.9";
  e.hw_latency[std::size_t(kHwNet)][std::size_t(NcclAlgorithm::NvlsTree)][std::size_t(kSimple)] = 20.9;
  return e;
}();
constexpr TuningEra kEra229 = [] {
  TuningEra e = kEra2289;
  e.from_version = 22902;
  e.name = "2.29";
  e.nvls_tree_correction_blackwell_x86 = true;
  return e;
}();
constexpr TuningEra kEra230 = [] {
  TuningEra e = kEra229;
  e.from_version = 23003;
  e.name = "2.30";
  e.ll128_mixed_from_hopper = true;
  return e;
}();
// PAT (from 2.23; AllGather and ReduceScatter, Simple, one GPU per node): its tables' rows are not
// used, the latency is its own formula (kPat* below) on the tree's NET hop latency, busBw the tree
// graph's x pat_efficiency (.85 in 2.23-2.27, .75 from 2.28), not converted to algBw.
// NVLSTree columns: baseLat 0; hwLat Simple NVLINK 23 (2.19) / 25 (from 2.21), PCI 0, NET 14 (to
// 2.28.7) / 20.9 (from 2.28.9). 2.28.3 and 2.28.7 share their tables but for Blackwell's rows.
// 2.18.3 (2.18.5, 2.18.6 the same): baseLat also 6.8/14.0 for CollNet (unused: Simple only) and 23
// for NVLS/NVLSTree Simple, whose NVLINK hwLat is 0; Tree Simple hwLat 4/6/14 (NVLINK/PCI/NET);
// CollNet 8.0/4.75, 8.0/8.0, 10.7/14; NVLSTree NET 19.
// 2.18.1: as 2.18.3 but Tree Simple hwLat 28 on every hop, NVLS algBw x .75, and the LL128 and tree
// caps above (ll128_one_cap, hopper_tree_max_n4).
constexpr std::array<TuningEra, 9> kEras{{
    {.from_version = 21801,
     .name = "2.18.1",
     .base_latency = {{{6.8, 14.0, 0.0}, {6.6, 14.0, 8.4}, {6.8, 14.0, 0.0}, {6.8, 14.0, 0.0}, {0.0, 0.0, 23.0}, {0.0, 0.0, 23.0}}},
     .hw_latency = {{{{{0.6, 1.25, 28.0}, {0.6, 1.9, 3.4}, {0.0, 0.0, 8.0}, {0.0, 0.0, 4.75}, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}}},
       {{{1.0, 1.9, 28.0}, {1.0, 2.5, 5.7}, {0.0, 0.0, 8.0}, {0.0, 0.0, 8.0}, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}}},
       {{{5.0, 8.5, 28.0}, {2.7, 4.0, 14.0}, {0.0, 0.0, 10.7}, {0.0, 0.0, 14.0}, {0.0, 0.0, 18.0}, {0.0, 0.0, 19.0}}}}},
     .hopper_ll_max_one_node = 87.7, .ring_ll_share_multi = 1.0 / 4.0, .ring_ll_share_other = 1.0 / 3.0,
     .ring_ll128_one_ppn = 0.7, .inter_steps_exclusive = false, .one_ppn_tree_net_latency = false,
     .nvls_efficiency = false, .pat_efficiency = 0.0, .nvls_tree_linear = true, .collnet_arity_latency = 0.5,
     .nvls_gather_scatter = false, .nvls_ratio = 0.75, .ll128_one_cap = true, .hopper_tree_max_n4 = 33.0,
     .gather_scatter_bus_unconverted = false},
    {.from_version = 21803,
     .name = "2.18.3",
     .base_latency = {{{6.8, 14.0, 0.0}, {6.6, 14.0, 8.4}, {6.8, 14.0, 0.0}, {6.8, 14.0, 0.0}, {0.0, 0.0, 23.0}, {0.0, 0.0, 23.0}}},
     .hw_latency = {{{{{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}, {0.0, 0.0, 8.0}, {0.0, 0.0, 4.75}, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}}},
       {{{1.0, 1.9, 6.0}, {1.0, 2.5, 5.7}, {0.0, 0.0, 8.0}, {0.0, 0.0, 8.0}, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}}},
       {{{5.0, 8.5, 14.0}, {2.7, 4.0, 14.0}, {0.0, 0.0, 10.7}, {0.0, 0.0, 14.0}, {0.0, 0.0, 18.0}, {0.0, 0.0, 19.0}}}}},
     .hopper_ll_max_one_node = 87.7, .ring_ll_share_multi = 1.0 / 4.0, .ring_ll_share_other = 1.0 / 3.0,
     .ring_ll128_one_ppn = 0.7, .inter_steps_exclusive = false, .one_ppn_tree_net_latency = false,
     .nvls_efficiency = false, .pat_efficiency = 0.0, .nvls_tree_linear = true, .collnet_arity_latency = 0.5,
     .nvls_gather_scatter = false, .nvls_ratio = 5.0 / 6.0, .ll128_one_cap = false,
     .hopper_tree_max_n4 = 36.0, .gather_scatter_bus_unconverted = false},
    {.from_version = 21900,
     .name = "2.19",
     .base_latency = {{{6.8, 14.0, 0.0}, {6.6, 14.0, 8.4}, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}}},
     .hw_latency = {{{{{0.6, 1.25, 28.0}, {0.6, 1.9, 3.4}, {0.0, 0.0, 3.7}, {0.0, 0.0, 2.8}, {0.0, 0.0, 23.0}, {0.0, 0.0, 23.0}}},
       {{{1.0, 1.9, 28.0}, {1.0, 2.5, 5.7}, {0.0, 0.0, 3.7}, {0.0, 0.0, 2.8}, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}}},
       {{{5.0, 8.5, 28.0}, {2.7, 4.0, 14.0}, {0.0, 0.0, 31.0}, {0.0, 0.0, 30.0}, {0.0, 0.0, 18.0}, {0.0, 0.0, 14.0}}}}},
     .hopper_ll_max_one_node = 87.7, .ring_ll_share_multi = 1.0 / 4.0, .ring_ll_share_other = 1.0 / 3.0,
     .ring_ll128_one_ppn = 0.7, .inter_steps_exclusive = false, .one_ppn_tree_net_latency = false,
     .nvls_efficiency = false, .pat_efficiency = 0.0, .nvls_tree_linear = false, .collnet_arity_latency = 0.4,
     .nvls_gather_scatter = true, .nvls_ratio = 5.0 / 6.0, .ll128_one_cap = false,
     .hopper_tree_max_n4 = 36.0, .gather_scatter_bus_unconverted = false},
    {.from_version = 22100,
     .name = "2.21",
     .base_latency = {{{6.8, 14.0, 0.0}, {6.6, 14.0, 8.4}, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}}},
     .hw_latency = {{{{{0.6, 1.25, 28.0}, {0.6, 1.9, 3.4}, {0.0, 0.0, 3.7}, {0.0, 0.0, 2.8}, {0.0, 0.0, 25.0}, {0.0, 0.0, 25.0}}},
       {{{1.0, 1.9, 28.0}, {1.0, 2.5, 5.7}, {0.0, 0.0, 3.7}, {0.0, 0.0, 2.8}, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}}},
       {{{5.0, 8.5, 28.0}, {2.7, 4.0, 14.0}, {0.0, 0.0, 31.0}, {0.0, 0.0, 30.0}, {0.0, 0.0, 18.0}, {0.0, 0.0, 14.0}}}}},
     .hopper_ll_max_one_node = 141.0, .ring_ll_share_multi = 0.5, .ring_ll_share_other = 0.5,
     .ring_ll128_one_ppn = 0.7, .inter_steps_exclusive = false, .one_ppn_tree_net_latency = false,
     .nvls_efficiency = false, .pat_efficiency = 0.0, .nvls_tree_linear = false, .collnet_arity_latency = 0.4,
     .nvls_gather_scatter = true, .nvls_ratio = 5.0 / 6.0, .ll128_one_cap = false,
     .hopper_tree_max_n4 = 36.0, .gather_scatter_bus_unconverted = false},
    kEra223, kEra228, kEra2289, kEra229, kEra230,
}};

/// The row of `rows` (ordered by from_version) for NCCL `version` (NCCL_VERSION_CODE; 0 = the newest
/// ringlab knows); versions older than the first row take the first.
template <typename Row, std::size_t N>
const Row& row_of_release(const std::array<Row, N>& rows, int version) {
  if (version <= 0) return rows.back();
  const Row* row = &rows.front();
  for (const Row& r : rows)
    if (version >= r.from_version) row = &r;
  return *row;
}

/// The tables of NCCL `version`; versions older than 2.18.1 take 2.18.1's.
const TuningEra& tuning_era(int version) { return row_of_release(kEras, version); }

// GPU generation rows (VOLTA/AMPERE/HOPPER_COMPCAP_IDX) x node-count columns (N1, N2, N4+), GB/s.
using GenTable = std::array<std::array<double, 3>, 3>;
enum Gen { kVolta = 0, kAmpere = 1, kHopper = 2 };
// llMaxBws: LL bandwidth cap. For multi-node NCCL picks the row by the CPU vendor (AMD, or MIXED from
// 2.28: 1; else 0), from the hosts' cpu_vendor. NCCL src/graph/tuning.cc (v2.19); the Hopper
// single-node entry is the era's (TuningEra::hopper_ll_max_one_node).
constexpr GenTable kLLMaxBw{{{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {87.7, 22.5, 19.0}}};
// perChMaxRingLL128Bws, perChMaxTreeLL128Bws, perChMaxTreeBws: per-channel caps, GB/s (v2.19).
constexpr GenTable kRingLL128MaxBwPerChannel{{{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}}};
constexpr GenTable kTreeLL128MaxBwPerChannel{{{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}}};
constexpr GenTable kTreeMaxBwPerChannel{{{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}}};

// treeCorrectionFactor [protocol][log2(bytes/64)]. NCCL src/graph/tuning.cc: 23 sizes, 64 B .. 256 MiB
// (v2.19), applied to the tree's AllReduce; from v2.29.2 a 24th (512 MiB) that only NVLS-Tree reads,
// whose AllReduce takes the same factors on Blackwell with x86 CPUs
// (TuningEra::nvls_tree_correction_blackwell_x86).
constexpr int kTreeCorrectionSizes = 23;
constexpr int kLog2DownVersion = 22200;  // src/include/utils.h log2i: log2Down from v2.22.3 (v2.21.5: a loop, 0 -> 0)
constexpr int kNvlsTreeCorrectionSizes = 24;
constexpr std::array<std::array<double, kNvlsTreeCorrectionSizes>, kNcclProtocols> kTreeCorrection{{
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9},
}};

// PAT's latency (tuning.cc, v2.23.4 and v2.28.9): 8 us + log2(nNodes) x interLat / 3.5 + nRanks x 2.8 us.
constexpr double kPatBaseUs = 8.0;
constexpr double kPatLogLatencyDivisor = 3.5;
constexpr double kPatPerRankUs = 2.8;
constexpr int kPatMinSm = 60;  // ncclPatEnable: CUDA atomics

// Scalar refinements of ncclTopoTuneModel / ncclTopoGetAlgoTime (v2.18.1 .. v2.29), dimensionless unless noted.
constexpr double kNetOverheadUs = 1.0;               // getNetOverhead(): x86 Intel, and any other CPU
constexpr double kAmdNetOverheadUs = 2.0;            // getNetOverhead(): x86 AMD
constexpr double kSimpleNetOverheadFactor = 3;       // Simple protocol pays the net overhead three times
constexpr double kRingLL128Efficiency = 0.92;        // ring LL128 (~120/128) when ppn >= 2
constexpr double kTreeEfficiency = 0.92;             // tree busBw factor
constexpr double kTreeLLShare = 1.0 / 3.8;           // tree LL
constexpr double kTreeLL128SingleNode = 7.0 / 9.0;   // tree LL128, one node
constexpr double kTreeLL128MultiNode = 120.0 / 128.0;  // tree LL128, several nodes
constexpr double kCollNetHopperFactor = 0.85;          // CollNetDirect on compute capability >= 9.0
// From 2.26 (tuning.cc, v2.26.2-v2.29.7): busBw x .85 for the tree when some rank's tree graph has the
// plain TREE pattern (comm->maxTreePattern). search.cc gives every non-ring graph of a node with one
// GPU that pattern (ncclTopoCompute: "if (ngpus == 1) ... pattern = NCCL_TOPO_PATTERN_TREE"), so
// one rank per node takes it; Hopper's fallback when its balanced-tree search fails is not modelled.
constexpr double kTreePatternFactor = 0.85;
constexpr int kTreePatternVersion = 22600;
constexpr double kTreeAlgoRatio = 0.5;                 // tree and CollNet busBw -> algBw
constexpr double kNvlsTreeAlgoRatio218 = 0.70;          // NVLSTree busBw -> algBw in 2.18, x n/(2(n-1))
constexpr double kRingPlateauPreAmpere = 1.9;          // ring/Simple multi-node AllReduce latency factor
constexpr double kRingPlateau = 1.4;                   // the same from compute capability 8.0
constexpr std::int64_t kRingPlateauMinBytes = 64;      // per channel per rank before the plateau applies
// Two nodes (src/graph/search.cc, ncclTopoCompute pass 2, unchanged 2.19 .. 2.28: "increase bwIntra for
// trees (2 nodes or collnet)"): the tree graph's intra bandwidth may rise to twice its inter bandwidth,
// and tuning.cc takes bwIntra for nNodes <= 2 (and for CollNet at any count). So on two nodes a tree
// channel runs at min(intra, 2 x inter): each node sends its half up and receives the other half down.
constexpr double kTreeIntraOverInter = 2.0;

// EFA (AWS SRD, Transport::Srd) replaces NCCL's IB/RoCE network hop latency hwLat[NET] with the
// latency AWS's own NCCL plugin models it with: aws-ofi-nccl src/tuner/nccl_ofi_model.cpp (commit
// 2daf7d30, P5/P5e platform params) net_lat = 20 us ("2 nodes, 8B RDMA w/imm lat"), plus
// TUNER_NET_COMP_OVERHEAD (include/nccl_ofi_param.h, default 3 us) for Simple, whose completions go
// through NCCL's proxy thread. NCCL's hop counts are kept.
constexpr double kEfaNetLatencyUs = 20.0;
constexpr double kEfaSimpleCompletionUs = 3.0;

// NVLS (NCCL master, 2.28/2.29: src/graph/search.cc ncclTopoSearchTryNvls and ncclTopoCompute,
// src/graph/tuning.cc, src/graph/topo.h). The NVLS graph has one channel per GPU of the node
// (NCCL_MAX_NVLS_ARITY caps it); every channel pulls from every GPU's NVLink, the head's twice, so
// its bandwidth is the fastest entry of the generation's intra speed array with
// (gpus + 1) x speed <= the GPU's NVLink bandwidth in NCCL's units (links x SMxx_NVLINK_BW). The
// switch's multicast and reduction run at nvlsEfficiency of that, and AllReduce pipelines its
// reduce-scatter and all-gather halves (x 2).
constexpr int kNvlsMaxArity = 32;                                          // NCCL_MAX_NVLS_ARITY (device.h)
// NCCL picks SMxx_NVLINK_BW by compute capability; the generation's NVLink kind carries that figure
// (nccl_nvlink_link_gbytes: Volta NVLink2 20, Ampere NVLink3 20, Hopper NVLink4 20.6 GB/s).
constexpr std::array<LinkKind, 3> kGenerationNvlink{LinkKind::NvLink2, LinkKind::NvLink3, LinkKind::NvLink4};
constexpr std::array<double, 3> kNvlsEfficiency{0.0, 0.0, 0.85};           // nvlsEfficiency (Volta, Ampere, Hopper)
constexpr double kNvlsEfficiencyBlackwell = 0.74;  // nvlsEfficiency[NCCL_BLACKWELL_COMPCAP_IDX] (v2.28.9 tuning.cc)
constexpr std::array<double, 11> kSm90SpeedIntra{60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0};
constexpr double kNvlsAllReducePipelining = 2.0;

// NVLS-Tree (multi-node NVLS, src/graph/search.cc ncclTopoCompute with NCCL_TOPO_PATTERN_NVLS and
// system->inter, ncclTopoSearchTryNvls; src/graph/tuning.cc). One head per NIC-local GPU (its channel);
// the search runs on the inter-node speed array: bwIntra is the fastest speed with
// (heads + 1) x speed <= the GPU's NVLink and speed <= the head's network path, then pass 2 raises
// bwInter towards 2 x bwIntra while the network path carries it. A head's network path is its NICs
// (NCCL fuses the NICs of one GPU, as AWS's plugin does with EFA) behind its PCIe link, in NCCL's units.
// Busbw per channel: 2.19-2.27 min(bwIntra, nodes <= 2 ? bwInter : bwInter / 2), algBw = 5/6 busBw;
// from 2.28 min(bwIntra x nvlsEfficiency x (h-1)/h x 2, bwInter x (nodes <= 2 ? 2 : 1),
// perChMaxNVLSTreeBws), algBw = busBw x ranks / (2 (ranks - 1)).
constexpr std::array<double, 17> kSm90SpeedInter{48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
                                                 15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
// perChMaxNVLSTreeBws (v2.28.9; Volta and Ampere rows have no NVLS), GB/s, columns N1, N2, N4+.
constexpr std::array<double, 3> kNvlsTreeMaxBwPerChannelHopper{0.0, 57.7, 45.5};

// Blackwell (NCCL_BLACKWELL_COMPCAP_IDX, compute capability >= 10.0) by release: its rows of the
// per-channel tables above and of perChMaxNVLSTreeBws (src/graph/tuning.cc), and the search's speed
// arrays (src/graph/search.cc sm100SpeedArrayIntra/Inter), all GB/s. NCCL first ran on Blackwell in
// 2.25.1, whose rows are twice Hopper's; releases before take 2.25.1's. Read from tags v2.25.1-1,
// v2.27.3-1, v2.27.5-1, v2.27.6-1, v2.28.3-1, v2.28.7-1, v2.28.9-1, v2.29.2-1, v2.29.7-1 and v2.30.3-1;
// unchanged in v2.26.2-v2.26.6, v2.27.7, v2.29.3, v2.30.4 and v2.30.7. Hopper's llMaxBws N2/N4 entries
// changed too but are never read (several nodes pick the row by CPU vendor).
struct BlackwellRelease {
  int from_version;                    // NCCL_VERSION_CODE of the first release with the row
  double ll_max_one_node;              // llMaxBws[Blackwell][N1]
  std::array<double, 3> ring_ll128;    // perChMaxRingLL128Bws[Blackwell], N1/N2/N4
  std::array<double, 3> tree_ll128;    // perChMaxTreeLL128Bws[Blackwell]
  std::array<double, 3> tree;          // perChMaxTreeBws[Blackwell]
  std::array<double, 3> nvls_tree;     // perChMaxNVLSTreeBws[Blackwell] (from 2.28; none before)
  std::span<const double> speeds_intra;  // sm100SpeedArrayIntra
  std::span<const double> speeds_inter;  // sm100SpeedArrayInter (2.25 and 2.26: Hopper's)
};
constexpr std::array<double, 10> kSm100SpeedIntra2251{90.0, 80.0, 70.0, 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 19.0};
constexpr std::array<double, 11> kSm100SpeedIntra2273{90.0, 80.0, 70.0, 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0};
constexpr std::array<double, 12> kSm100SpeedIntra2292{90.0, 80.0, 70.0, 60.0, 50.0, 45.0,
                                                      40.0, 30.0, 24.0, 20.0, 19.0, 18.0};
constexpr std::array<double, 17> kSm100SpeedInter2273{47.9, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
                                                      15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
constexpr std::array<double, 17> kSm100SpeedInter2275{48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
                                                      15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
constexpr std::array<double, 18> kSm100SpeedInter2276{96.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0,
                                                      17.5, 15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
constexpr std::array<double, 19> kSm100SpeedInter2297{96.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0,
                                                      17.5, 15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
constexpr std::array<double, 20> kSm100SpeedInter2303{96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0,
                                                      30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0,
                                                      6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
constexpr std::array<double, 3> kRowsTwiceHopperRingLL128{2 * 36.7, 2 * 36.7, 2 * 36.7};
constexpr std::array<double, 3> kRowsTwiceHopperTreeLL128{2 * 36.7, 2 * 36.7, 2 * 29.0};
constexpr std::array<double, 3> kRowsTwiceHopperTree{2 * 38.7, 2 * 41.4, 2 * 36.0};
constexpr std::array<double, 3> kRowsTreeLL128From228{55.6, 31.67, 20.0};
constexpr std::array<double, 3> kRowsTreeFrom228{70.0, 42.8, 24.0};
constexpr double kBlackwellLLMaxOneNode = 2 * 141.0;
constexpr std::array<BlackwellRelease, 10> kBlackwellReleases{{
    {22501, kBlackwellLLMaxOneNode, kRowsTwiceHopperRingLL128, kRowsTwiceHopperTreeLL128, kRowsTwiceHopperTree,
     {0.0, 0.0, 0.0}, kSm100SpeedIntra2251, kSm90SpeedInter},
    {22703, kBlackwellLLMaxOneNode, kRowsTwiceHopperRingLL128, kRowsTwiceHopperTreeLL128, kRowsTwiceHopperTree,
     {0.0, 0.0, 0.0}, kSm100SpeedIntra2273, kSm100SpeedInter2273},
    {22705, kBlackwellLLMaxOneNode, kRowsTwiceHopperRingLL128, kRowsTwiceHopperTreeLL128, kRowsTwiceHopperTree,
     {0.0, 0.0, 0.0}, kSm100SpeedIntra2273, kSm100SpeedInter2275},
    {22706, kBlackwellLLMaxOneNode, kRowsTwiceHopperRingLL128, kRowsTwiceHopperTreeLL128, kRowsTwiceHopperTree,
     {0.0, 0.0, 0.0}, kSm100SpeedIntra2273, kSm100SpeedInter2276},
    {22800, kBlackwellLLMaxOneNode, kRowsTwiceHopperRingLL128, kRowsTreeLL128From228, kRowsTreeFrom228,
     {0.0, 96.0, 43.1}, kSm100SpeedIntra2273, kSm100SpeedInter2276},
    {22807, kBlackwellLLMaxOneNode, {2 * 36.7, 34.6, 2 * 36.7}, kRowsTreeLL128From228, kRowsTreeFrom228,
     {0.0, 96.0, 43.1}, kSm100SpeedIntra2273, kSm100SpeedInter2276},
    {22809, kBlackwellLLMaxOneNode, {2 * 36.7, 34.6, 2 * 36.7}, kRowsTreeLL128From228, kRowsTreeFrom228,
     {0.0, 96.0, 43.8}, kSm100SpeedIntra2273, kSm100SpeedInter2276},
    {22902, kBlackwellLLMaxOneNode, {34.5, 34.6, 34.5}, kRowsTreeLL128From228, kRowsTreeFrom228,
     {0.0, 96.0, 43.8}, kSm100SpeedIntra2292, kSm100SpeedInter2276},
    {22907, kBlackwellLLMaxOneNode, {40.0, 40.0, 40.0}, kRowsTreeLL128From228, kRowsTreeFrom228,
     {0.0, 96.0, 43.8}, kSm100SpeedIntra2292, kSm100SpeedInter2297},
    {23003, kBlackwellLLMaxOneNode, {40.0, 40.0, 40.0}, kRowsTreeLL128From228, kRowsTreeFrom228,
     {0.0, 96.0, 80.0}, kSm100SpeedIntra2292, kSm100SpeedInter2303},
}};

/// Blackwell's rows and speeds of NCCL `version` (0: the newest ringlab knows).
const BlackwellRelease& blackwell_release(int version) { return row_of_release(kBlackwellReleases, version); }

// Channel count stand-in: NCCL's search finds nChannels; ringlab splits the per-GPU bottleneck
// bandwidth into channels no faster than the generation's ring LL128 per-channel cap, within
// NCCL's limits (MAXCHANNELS 32 in src/include/device.h; NCCL keeps at least 2 rings).
constexpr int kMinChannels = 2;
constexpr int kMaxChannels = 32;
// NCCL's ring search on a one-node NVLink mesh (nvlink_mesh_rings) instead: its graph's channels, doubled
// at connection (src/graph/connect.cc ncclTopoPostset, "Duplication should be complete now"; ringlab
// assumes the tree graph found as many, NCCL taking the fewer of the two), each channel on its ring.
constexpr int kMaxMeshGpus = 64;                   // the search's used-GPU bit masks are 64 bits wide
constexpr int kMaxChannels64Version = 22501;       // MAXCHANNELS 32 -> 64 in v2.25.1 (src/include/device.h)
constexpr int kMaxChannelsBefore2251 = 32;
constexpr int kMaxChannelsFrom2251 = 64;
constexpr int kGenericComputeCapability = 80;      // unnamed GPUs count as Ampere (generation())
constexpr int kPostsetDuplication = 2;

// Step sizes: the bytes one protocol step carries, ringlab's schedule piece ("chunk") per protocol.
// From NCCL src/include/device.h (v2.19) defaults: NCCL_STEPS 8; Simple: NCCL_BUFFSIZE 4 MiB / 8;
// LL128: 120 elems/thread x 640 threads x 8 B per step, 15 of 16 words data; LL: 8 lines/thread x
// 512 threads x 16 B per step, half of each line data. Approximate: NCCL also slices and scales
// chunks by thread count and channel.
constexpr std::int64_t kNcclSteps = 8;  // NCCL_STEPS: a Simple buffer (NCCL_BUFFSIZE) holds 8 steps
constexpr std::array<Bytes, kNcclProtocols> kStepBytes{
    Bytes{8 * 512 * 16 / 2},         // LL: 32 KiB of data
    Bytes{120 * 640 * 8 * 15 / 16},  // LL128: 576000 B of data
    Bytes{(4 << 20) / kNcclSteps},   // Simple: 512 KiB (NcclEnv::buffer / kNcclSteps when set)
};


/// NCCL's compCapIndex (tuning.cc): minCompCap >= 90 Hopper, >= 80 Ampere, else Volta. Listed per model
/// so a new GpuModel fails to compile (-Wswitch) until it is placed here.
int generation(GpuModel gpu) {
  switch (gpu) {
    case GpuModel::V100:
    case GpuModel::Rtx2080Ti: return kVolta;  // sm 7.5
    case GpuModel::A100:
    case GpuModel::A100_40GB:
    case GpuModel::A100Pcie:
    case GpuModel::A100Pcie40GB: return kAmpere;
    case GpuModel::A10:          // sm 8.6
    case GpuModel::L40S:         // sm 8.9
    case GpuModel::Rtx4090:      // sm 8.9
    case GpuModel::Rtx6000Ada: return kAmpere;  // sm 8.9: NCCL's Ampere rows (8.0 <= cc < 9.0)
    case GpuModel::H100:
    case GpuModel::H200:
    case GpuModel::H100Pcie:
    case GpuModel::H100Nvl:
    case GpuModel::H20: return kHopper;
    case GpuModel::B200:
    case GpuModel::GB200: return kHopper;  // Hopper's rows, but for the tables of channel_caps()
    case GpuModel::Generic: return kAmpere;  // unnamed GPUs: Ampere rows
  }
  return kAmpere;
}

/// NCCL's Blackwell compute-capability index (sm >= 10.0; NCCL_BLACKWELL_COMPCAP_IDX), which the
/// 2.28 NVLS tables and search speeds have and the v2.19 rows of generation() do not.
bool blackwell(GpuModel gpu) { return gpu_spec(gpu).sm >= 100; }

double nvls_efficiency(GpuModel gpu) {
  if (blackwell(gpu)) return kNvlsEfficiencyBlackwell;
  return kNvlsEfficiency[std::size_t(generation(gpu))];
}

/// Compute capability >= 8.0 (NCCL's minCompCap checks); unnamed GPUs count as Ampere.
bool ampere_or_newer(GpuModel gpu) { return gpu == GpuModel::Generic || gpu_spec(gpu).sm >= 80; }

/// NCCL's LL128 bound on the graphs' typeInter (tuning.cc): within PXB, or on sm 9.0 and newer within
/// PXN (v2.18.1-v2.26.6, and from v2.27.5 with NCCL_LL128_C2C's default 1), except 2.27.3's within
/// P2C there (ringlab has no P2C paths: PXB). Single node: typeInter is never past PIX.
constexpr int kLl128C2cVersion = 22703;       // v2.27.3: "typeInter <= (ncclParamLl128C2c() ? PATH_P2C : PATH_PXN)"
constexpr int kLl128PxnAgainVersion = 22705;  // v2.27.5: "typeInter <= PATH_PXN" with NCCL_LL128_C2C
bool ll128_net_path(const NcclModel& m) {
  if (m.net_path <= NcclPath::Pxb) return true;
  const bool v2273 = m.env.version >= kLl128C2cVersion && m.env.version < kLl128PxnAgainVersion;
  return gpu_spec(m.gpu).sm >= 90 && !v2273 && m.net_path <= NcclPath::Pxn;
}

/// NCCL enables LL128 by default only on NVLink systems, and by compute capability: up to 2.24 for
/// 7.0, 8.0 and 9.0 (tuning.cc `switch (minCompCap)`, v2.19.4-v2.24.3), in 2.25 and 2.26 also for
/// 10.0 and 12.0 (v2.25.1, v2.26.6), from 2.27 for every 7.0 or newer (v2.27.7: `minCompCap < 70`).
bool ll128_enabled(const NcclModel& m) {
  const int sm = gpu_spec(m.gpu).sm;
  const int version = m.env.version;
  bool known = sm == 70 || sm == 80 || sm == 90;
  if (version <= 0 || version >= 22700) known = sm >= 70;
  else if (version >= 22500) known = known || sm == 100 || sm == 120;
  // tuning.cc: "pEnable &= (minCompCap == maxCompCap)" (2.18.1 on), from 2.30.3 "|| minCompCap >= 90".
  const bool mixed_ok = tuning_era(version).ll128_mixed_from_hopper && sm >= 90;
  return m.nvlink && known && (!m.mixed_compute || mixed_ok) && ll128_net_path(m);
}

/// NCCL's minCompCap over the ranks: Generic if either is unnamed, else the lower compute capability
/// (the first on a tie). GpuModel values are not in age order, so this compares GpuSpec::sm.
GpuModel older_gpu(GpuModel a, GpuModel b) {
  if (a == GpuModel::Generic || b == GpuModel::Generic) return GpuModel::Generic;
  return gpu_spec(b).sm < gpu_spec(a).sm ? b : a;
}

int log2i(std::int64_t n) {
  int l = 0;
  while (n >>= 1) ++l;
  return l;
}

double gbytes(Bandwidth b) { return b.gigabytes_per_second(); }

struct Steps {
  int steps;
  int inter_steps;
};

/// NCCL's nsteps and nInterSteps; `exclusive`: from 2.23 AllReduce crosses nodes 2(nodes-1) times
/// and Broadcast/Reduce nodes-1 (2 nodes and nodes before).
Steps ring_steps(Collective c, int ranks, int nodes, bool exclusive = true) {
  if (nodes <= 1) exclusive = true;
  switch (c) {
    case Collective::AllReduce: return {2 * (ranks - 1), nodes > 1 ? (exclusive ? 2 * (nodes - 1) : 2 * nodes) : 0};
    case Collective::ReduceScatter:
    case Collective::AllGather: return {ranks - 1, nodes - 1};
    case Collective::Broadcast:
    case Collective::Reduce: return {ranks, exclusive ? nodes - 1 : nodes};
  }
  return {ranks, nodes};
}

/// ncclPatEnable: a release with PAT, compute capability >= 6.0, and NCCL_PAT_ENABLE=1 or (default)
/// one GPU per node.
bool pat_enabled(const NcclModel& m) {
  if (tuning_era(m.env.version).pat_efficiency == 0.0) return false;
  const int sm = gpu_spec(m.gpu).sm;
  if (sm != 0 && sm < kPatMinSm) return false;
  if (m.env.pat != NcclEnable::Default) return m.env.pat == NcclEnable::On;
  return m.nodes == m.ranks;
}

bool algorithm_applies(const NcclModel& m, Collective c, NcclAlgorithm a, int proto) {
  switch (a) {
    case NcclAlgorithm::Ring: return true;
    case NcclAlgorithm::Tree: return c == Collective::AllReduce;
    // CollNet Direct needs an NVSwitch in the node (tuning.cc: "Disable CollNet+Direct if not on an
    // NVSwitch system", nvsCount == 0); the chain does not.
    case NcclAlgorithm::CollNetDirect:
      return c == Collective::AllReduce && m.collnet && m.nvswitch && proto == kSimple;
    case NcclAlgorithm::CollNetChain: return c == Collective::AllReduce && m.collnet && proto == kSimple;
    case NcclAlgorithm::Nvls:
      if (!m.nvls || proto != kSimple) return false;
      if (c == Collective::AllReduce) return true;
      // One node, at most NCCL_MAX_NVLS_ARITY ranks (2.28's enqueue.cc check for the non-AllReduce
      // collectives), a release that has it.
      return (c == Collective::AllGather || c == Collective::ReduceScatter) && m.nodes == 1 &&
             m.ranks <= kNvlsMaxArity && tuning_era(m.env.version).nvls_gather_scatter;
    case NcclAlgorithm::NvlsTree: return c == Collective::AllReduce && m.nvls_tree && proto == kSimple;
    case NcclAlgorithm::Pat:
      return (c == Collective::AllGather || c == Collective::ReduceScatter) && proto == kSimple && pat_enabled(m);
  }
  return false;
}

/// The NVLS graph's channels: one per GPU of the node, at most NCCL_MAX_NVLS_ARITY; across nodes one
/// per head (a GPU with a NIC of its own).
int nvls_channels(const NcclModel& m) {
  const int ppn = m.ranks / std::max(1, m.nodes);
  const int channels = std::min(kNvlsMaxArity, ppn);
  return m.nodes > 1 && m.nics > 0 ? std::min(channels, m.nics) : channels;
}

bool is_nvlink(LinkKind k) { return link_family(k) == LinkFamily::NvLink; }

/// A GPU's NVLink bandwidth in NCCL's units, GB/s: links x NCCL's per-link figure (topo.h
/// SMxx_NVLINK_BW) for the links' generation (the GPU's when the model names none).
double nccl_nvlink_gbytes(const NcclModel& m) {
  const LinkKind kind = is_nvlink(m.nvlink_kind) ? m.nvlink_kind : kGenerationNvlink[std::size_t(generation(m.gpu))];
  return m.nvlinks * nccl_nvlink_link_gbytes(kind);
}

/// A GPU's intra-node bandwidth as NCCL's search sees it (the graphs' bwIntra ceiling), GB/s: its
/// NVLink in NCCL's units, else the topology's widest link (PCIe).
double nccl_intra_gbytes(const NcclModel& m) {
  return m.nvlink && m.nvlinks > 0 ? nccl_nvlink_gbytes(m) : gbytes(m.intra);
}

/// NVLS busBw in GB/s (see the NVLS constants); 0 where NCCL's search finds no NVLS graph.
double nvls_bus_bandwidth(const NcclModel& m, Collective c, double ppn) {
  const int channels = nvls_channels(m);
  if (channels < 2 || m.nvlinks == 0 || nvls_efficiency(m.gpu) == 0.0) return 0.0;
  const double nvlink = nccl_nvlink_gbytes(m);
  double speed = 0.0;
  const std::span<const double> speeds = blackwell(m.gpu) ? blackwell_release(m.env.version).speeds_intra
                                                          : std::span<const double>(kSm90SpeedIntra);
  for (double s : speeds)
    if ((channels + 1) * s <= nvlink) {
      speed = s;
      break;
    }
  // Before 2.28 NCCL's model took the NVLS graph's bandwidth as it is (busBw = channels x speed)
  // and converted it with the release's nvls_ratio (see model_bandwidth).
  if (!tuning_era(m.env.version).nvls_efficiency) return channels * speed;
  double per_channel = speed * nvls_efficiency(m.gpu) * (channels - 1) / channels;
  per_channel *= c == Collective::AllReduce ? kNvlsAllReducePipelining : (ppn - 1) / ppn;
  return channels * per_channel;
}

/// The multi-node NVLS graph's (bwIntra, bwInter), GB/s (see kSm90SpeedInter); {0, 0} when none fits.
std::pair<double, double> nvls_tree_graph(const NcclModel& m) {
  const int heads = nvls_channels(m);
  const double nvlink = nccl_nvlink_gbytes(m);
  const double net = m.nvls_head_gbytes;
  std::size_t i = 0;
  const std::span<const double> speeds =
      blackwell(m.gpu) ? blackwell_release(m.env.version).speeds_inter : std::span<const double>(kSm90SpeedInter);
  while (i < speeds.size() && ((heads + 1) * speeds[i] > nvlink || speeds[i] > net)) ++i;
  if (i == speeds.size()) return {0.0, 0.0};
  const double intra = speeds[i];
  double inter = intra;
  while (i > 0 && speeds[i - 1] <= net && inter < 2 * intra) inter = speeds[--i];
  return {intra, inter};
}

/// NVLS-Tree AllReduce algorithm bandwidth in GB/s under NCCL release `era`'s formula (see
/// kSm90SpeedInter); 0 where NCCL finds no graph.
double nvls_tree_bandwidth(const NcclModel& m, const TuningEra& era) {
  const auto [intra, inter] = nvls_tree_graph(m);
  const int heads = nvls_channels(m);
  if (intra <= 0 || heads < 2) return 0.0;
  if (era.nvls_tree_linear)
    return heads * (m.nodes <= 2 ? intra : inter) * kNvlsTreeAlgoRatio218 * m.nodes / (2.0 * (m.nodes - 1));
  if (!era.nvls_efficiency) return heads * std::min(intra, m.nodes <= 2 ? inter : inter / 2) * era.nvls_ratio;
  const double intra_bw = intra * nvls_efficiency(m.gpu) * (heads - 1) / heads *
                          kNvlsAllReducePipelining;
  const double inter_bw = inter * (m.nodes <= 2 ? 2 : 1);
  const double cap = (blackwell(m.gpu) ? blackwell_release(m.env.version).nvls_tree
                                       : kNvlsTreeMaxBwPerChannelHopper)[m.nodes <= 2 ? 1 : 2];
  const double bus = heads * std::min({intra_bw, inter_bw, cap});
  return bus * double(m.ranks) / ring_steps(Collective::AllReduce, m.ranks, m.nodes).steps;
}

/// The per-channel caps (ring LL128, tree LL128, tree) of the model's GPUs in node-count column
/// `col` (N1, N2, N4+), GB/s: their generation's row, Blackwell's own by release.
struct ChannelCaps {
  double ring_ll128, tree_ll128, tree;
};

ChannelCaps channel_caps(const NcclModel& m, int col) {
  const auto c = std::size_t(col);
  if (blackwell(m.gpu)) {
    const BlackwellRelease& r = blackwell_release(m.env.version);
    return {r.ring_ll128[c], r.tree_ll128[c], r.tree[c]};
  }
  const auto g = std::size_t(generation(m.gpu));
  const TuningEra& era = tuning_era(m.env.version);
  ChannelCaps caps{kRingLL128MaxBwPerChannel[g][c], kTreeLL128MaxBwPerChannel[g][c], kTreeMaxBwPerChannel[g][c]};
  if (era.ll128_one_cap) caps.tree_ll128 = caps.ring_ll128;
  if (g == std::size_t(kHopper) && c == 2) caps.tree = era.hopper_tree_max_n4;
  return caps;
}

/// comm->bandwidths[coll][a][p] in GB/s (algorithm bandwidth), 0 when disabled.
double model_bandwidth(const NcclModel& m, Collective c, NcclAlgorithm a, int p) {
  if (a == NcclAlgorithm::NvlsTree) return nvls_tree_bandwidth(m, tuning_era(m.env.version));
  const int gen = generation(m.gpu);
  const int node_col = m.nodes <= 2 ? m.nodes - 1 : 2;
  const int ll_row = m.nodes == 1 ? gen : m.cpu_vendor == CpuVendor::Intel || m.cpu_vendor == CpuVendor::Other ? 0 : 1;
  const double ppn = double(m.ranks) / m.nodes;
  // busBw = graphs[a]->nChannels x the graph's bw, capped per graph channel (tuning.cc)
  const double channels = m.graph_channels > 0 ? m.graph_channels : m.channels;
  const double intra = nccl_intra_gbytes(m) / channels;
  const double inter = m.nodes > 1 ? gbytes(m.inter) / channels : intra;
  double bw = m.nodes == 1 ? intra : std::min(intra, inter);
  if (a == NcclAlgorithm::Ring && m.ring_graph_gbytes > 0.0) bw = m.ring_graph_gbytes;
  // PAT runs on the tree graph (init.cc: graphs[NCCL_ALGO_PAT] = treeGraph). tuning.cc takes a tree
  // graph's bwIntra on two nodes, its bwInter (the ring graph's speed) on more.
  const bool tree_graph = a == NcclAlgorithm::Tree || a == NcclAlgorithm::Pat;
  const double tree_intra = m.tree_graph_intra_gbytes > 0.0 ? m.tree_graph_intra_gbytes
                                                             : std::min(intra, kTreeIntraOverInter * inter);
  if (tree_graph && m.nodes == 2) bw = tree_intra;
  if (tree_graph && m.nodes > 2 && m.ring_graph_gbytes > 0.0) bw = m.ring_graph_gbytes;
  if (a == NcclAlgorithm::CollNetDirect) bw = intra;
  // The chain's graph (init.cc: pattern TREE, collNet 1, the ring's channel count) has its bwIntra
  // raised in search pass 2, and tuning.cc takes bwIntra for CollNet at any node count: each head
  // sends its channel's share up to the network once and gets the sum back.
  if (a == NcclAlgorithm::CollNetChain) bw = tree_intra;
  double bus = channels * bw;
  if (a == NcclAlgorithm::Nvls) bus = nvls_bus_bandwidth(m, c, ppn);
  const TuningEra& era = tuning_era(m.env.version);
  double ll_max = kLLMaxBw[std::size_t(ll_row)][std::size_t(node_col)];
  if (ll_row == kHopper && node_col == 0) ll_max = era.hopper_ll_max_one_node;
  if (m.nodes == 1 && blackwell(m.gpu)) ll_max = blackwell_release(m.env.version).ll_max_one_node;
  const ChannelCaps caps = channel_caps(m, node_col);
  if (a == NcclAlgorithm::Ring && p == kLL) {
    const bool multi = m.nodes > 1 || c == Collective::AllReduce || c == Collective::Reduce;
    bus = std::min(ll_max, bus * (multi ? era.ring_ll_share_multi : era.ring_ll_share_other));
  }
  if (a == NcclAlgorithm::Ring && p == kLL128)
    bus = std::min(bus * (ppn < 2 ? era.ring_ll128_one_ppn : kRingLL128Efficiency),
                   channels * caps.ring_ll128);
  if (a == NcclAlgorithm::Tree) {
    bus = std::min(bus * kTreeEfficiency, channels * caps.tree);
    if (p == kLL) bus = std::min(bus * kTreeLLShare, ll_max);
    if (p == kLL128)
      bus = std::min(bus * (m.nodes == 1 ? kTreeLL128SingleNode : kTreeLL128MultiNode),
                     channels * caps.tree_ll128);
    const bool pattern_era = m.env.version <= 0 || m.env.version >= kTreePatternVersion;
    if (pattern_era && m.ranks == m.nodes) bus *= kTreePatternFactor;
  }
  if (a == NcclAlgorithm::CollNetDirect) {
    double factor = ppn / channels;  // GPU/NIC ratio as NCCL approximates it
    factor -= (factor - 1) / 2;
    bus /= factor;
    if (generation(m.gpu) == kHopper) bus *= kCollNetHopperFactor;
  }
  if (a == NcclAlgorithm::Pat) return bus * era.pat_efficiency;  // AllGather/ReduceScatter: busBw as is
  const bool gather_scatter = c == Collective::AllGather || c == Collective::ReduceScatter;
  if (a != NcclAlgorithm::Ring && gather_scatter && era.gather_scatter_bus_unconverted) return bus;
  double ratio = kTreeAlgoRatio;
  if (a == NcclAlgorithm::Ring) ratio = double(m.ranks) / ring_steps(c, m.ranks, m.nodes).steps;
  if (a == NcclAlgorithm::Nvls)
    ratio = era.nvls_efficiency ? double(m.ranks) / ring_steps(c, m.ranks, m.nodes).steps : era.nvls_ratio;
  return bus * ratio;
}

int hw_intra(const NcclModel& m) { return m.nvlink ? kHwNvLink : kHwPci; }

double hw_latency(const TuningEra& era, int hw, NcclAlgorithm a, int p) {
  return era.hw_latency[std::size_t(hw)][std::size_t(a)][std::size_t(p)];
}

/// One hop's latency in microseconds: NCCL's hwLat row, except EFA's own on the network (see
/// kEfaNetLatencyUs), times a calibration's factor (NcclEnv::latency_factors: `net` on the network,
/// `intra` inside nodes; 1 unless calibrated).
double hop_latency(const NcclModel& m, const TuningEra& era, int hw, NcclAlgorithm a, int p) {
  const NcclLatencyFactors& f = m.env.latency_factors;
  if (hw != kHwNet) return f.intra * hw_latency(era, hw, a, p);
  if (m.efa) return f.net * (kEfaNetLatencyUs + (p == kSimple ? kEfaSimpleCompletionUs : 0.0));
  return f.net * hw_latency(era, hw, a, p);
}

/// comm->latencies[coll][a][p] in microseconds (before the size-dependent plateau factor), with a
/// calibration's factors (NcclEnv::latency_factors) on its base and hop terms.
double model_latency(const NcclModel& m, Collective c, NcclAlgorithm a, int p) {
  const TuningEra& era = tuning_era(m.env.version);
  const NcclLatencyFactors& f = m.env.latency_factors;
  double lat = f.base * era.base_latency[std::size_t(a)][std::size_t(p)];
  double intra = hop_latency(m, era, hw_intra(m), a, p);
  const int ppn = m.ranks / m.nodes;
  // + graph latencyInter, 0 unless measured; with one rank per node (from 2.23) the tree's NET latency.
  const NcclAlgorithm net_row = ppn == 1 && era.one_ppn_tree_net_latency ? NcclAlgorithm::Tree : a;
  const double inter = hop_latency(m, era, kHwNet, net_row, p);
  switch (a) {
    case NcclAlgorithm::Ring: {
      const Steps s = ring_steps(c, m.ranks, m.nodes, era.inter_steps_exclusive);
      const int hw = m.nodes == 1 ? hw_intra(m) : kHwNet;
      if (c == Collective::Reduce || c == Collective::Broadcast) {
        // Rings are not assumed to share channels: Simple adds the tree's chunk latency per step.
        const double step = hop_latency(m, era, hw, p == kSimple ? NcclAlgorithm::Tree : a, p);
        return lat + s.steps * step;
      }
      double overhead = 0.0;
      const double net_overhead = m.cpu_vendor == CpuVendor::Amd ? kAmdNetOverheadUs : kNetOverheadUs;
      if (m.nodes > 1) overhead = f.net * net_overhead * (p == kSimple ? kSimpleNetOverheadFactor : 1.0);
      intra = std::max(intra, overhead);
      return lat + (s.steps - s.inter_steps) * intra + s.inter_steps * inter;
    }
    case NcclAlgorithm::Tree: return lat + 2 * ((ppn - 1) * intra + log2i(m.nodes) * inter);
    case NcclAlgorithm::CollNetDirect:
      return lat + 2 * (std::min(1, ppn - 1) * intra + (ppn - 1) * f.intra * era.collnet_arity_latency) + inter;
    case NcclAlgorithm::CollNetChain: return lat + 2 * (ppn - 1) * intra + inter;
    // From 2.19 NVLS's base latency is 0 and its NVLINK hop 23 us; 2.18 had them the other way round.
    case NcclAlgorithm::Nvls: return lat + intra + (m.nodes > 1 ? inter : 0.0);
    case NcclAlgorithm::NvlsTree:
      return lat + intra + 2 * (era.nvls_tree_linear ? m.nodes - 1 : log2i(m.nodes)) * inter;
    case NcclAlgorithm::Pat: {
      // One GPU per node: the tree's NET hop latency (with ppn 1 NCCL takes the tree's row).
      const double net = hop_latency(m, era, kHwNet, NcclAlgorithm::Tree, p);
      return f.base * (kPatBaseUs + m.ranks * kPatPerRankUs) + log2i(m.nodes) * (net / kPatLogLatencyDivisor);
    }
  }
  return lat;
}

Algorithm ringlab_algorithm(NcclAlgorithm a) {
  switch (a) {
    case NcclAlgorithm::Tree: return Algorithm::Tree;
    case NcclAlgorithm::Ring: return Algorithm::Ring;
    case NcclAlgorithm::CollNetDirect:
    case NcclAlgorithm::CollNetChain:
    case NcclAlgorithm::Nvls: return Algorithm::InNetwork;
    case NcclAlgorithm::NvlsTree: return Algorithm::Hierarchical;
    case NcclAlgorithm::Pat: return Algorithm::HalvingDoubling;
  }
  return Algorithm::Ring;
}

}  // namespace


namespace {

constexpr int kMnnvlMinVersion = 22000;  // MNNVL arrived in NCCL 2.20 (src/init.cc, v2.20.3-1)

/// Hosts whose GPUs among `ranks` reach each other over NVLink (through NVSwitches, GPUs do not
/// forward), as a representative per host (union-find roots; hosts without ranks map to themselves).
std::vector<HostId> nvlink_cliques(const Topology& topology, std::span<const DeviceId> ranks) {
  std::vector<HostId> parent(topology.hosts().size());
  for (HostId h = 0; h < HostId(parent.size()); ++h) parent[h] = h;
  auto root = [&](HostId h) {
    while (parent[h] != h) h = parent[h] = parent[parent[h]];
    return h;
  };
  std::vector<char> is_rank(topology.device_count(), 0);
  for (DeviceId r : ranks) is_rank[r] = 1;
  std::vector<std::uint32_t> seen(topology.device_count(), UINT32_MAX);
  std::vector<DeviceId> stack;
  for (std::uint32_t i = 0; i < ranks.size(); ++i) {
    const HostId home = topology.device(ranks[i]).host;
    if (home == kNoHost) continue;
    stack.assign(1, ranks[i]);
    seen[ranks[i]] = i;
    while (!stack.empty()) {
      const DeviceId x = stack.back();
      stack.pop_back();
      for (const Adjacency& adj : topology.neighbors(x)) {
        if (!is_nvlink(topology.link(adj.link).kind) || seen[adj.peer] == i) continue;
        seen[adj.peer] = i;
        const Device& peer = topology.device(adj.peer);
        if (peer.kind != DeviceKind::Gpu) {
          stack.push_back(adj.peer);
          continue;
        }
        if (is_rank[adj.peer] && peer.host != kNoHost) parent[root(peer.host)] = root(home);
      }
    }
  }
  for (HostId h = 0; h < HostId(parent.size()); ++h) parent[h] = root(h);
  return parent;
}


struct HostNetwork {
  Bandwidth egress;
  std::vector<DeviceId> nics;
  bool efa = true;  ///< every link leaving the host is EFA (Transport::Srd)
};

/// Per host: bandwidth of the links leaving it and the NICs that carry them (NIC rails, in
/// local-index order), counting only the NICs `filter` (NCCL_IB_HCA) lets NCCL use. One pass over
/// the links.
std::unordered_map<HostId, HostNetwork> host_networks(const Topology& topology, const NicFilter& filter = {}) {
  std::unordered_map<HostId, HostNetwork> out;
  auto note = [&](DeviceId inside, DeviceId outside, const Link& link) {
    const Device& d = topology.device(inside);
    if (d.host == kNoHost || topology.device(outside).host == d.host) return;
    if (d.kind == DeviceKind::Nic && !filter.selects(d.name)) return;
    HostNetwork& n = out[d.host];
    n.egress = n.egress + link.bandwidth;
    n.efa = n.efa && link.transport == Transport::Srd;
    if (d.kind == DeviceKind::Nic && std::find(n.nics.begin(), n.nics.end(), inside) == n.nics.end())
      n.nics.push_back(inside);
  };
  for (const Link& link : topology.links()) {
    note(link.a, link.b, link);
    note(link.b, link.a, link);
  }
  for (auto& [host, n] : out)
    std::sort(n.nics.begin(), n.nics.end(), [&](DeviceId x, DeviceId y) {
      return topology.device(x).local_index < topology.device(y).local_index;
    });
  return out;
}

/// The rails (indices into `nics`) nearest to `gpu` inside its host, by hop count over the host's
/// internals (GPUs do not forward), lowest first: a GPU whose PCIe switch holds several NICs is
/// equally near to all of them; and that distance (INT32_MAX when no NIC is reachable inside the
/// host, rails then {0}; one NIC is rail 0 at its distance).
struct NearestRails {
  std::vector<int> rails{0};
  int distance = INT32_MAX;
};

NearestRails nearest_rails_and_distance(const Topology& topology, DeviceId gpu, const std::vector<DeviceId>& nics) {
  NearestRails best;
  if (nics.empty()) return best;
  const std::unordered_map<DeviceId, int> distance = detail::host_distances(topology, gpu);
  for (std::size_t r = 0; r < nics.size(); ++r) {
    const auto it = distance.find(nics[r]);
    if (it == distance.end() || it->second > best.distance) continue;
    if (it->second < best.distance) best.rails.clear();
    best.distance = it->second;
    best.rails.push_back(int(r));
  }
  if (best.rails.empty()) best.rails = {0};
  return best;
}

/// nearest_rails_and_distance's rails; {0} when the host has fewer than two NICs.
std::vector<int> nearest_rails(const Topology& topology, DeviceId gpu, const std::vector<DeviceId>& nics) {
  if (nics.size() < 2) return {0};
  return nearest_rails_and_distance(topology, gpu, nics).rails;
}

/// The bandwidth of a NIC's links out of its host.
Bandwidth nic_network_bandwidth(const Topology& topology, DeviceId nic) {
  Bandwidth out;
  const HostId host = topology.device(nic).host;
  for (const Adjacency& adj : topology.neighbors(nic))
    if (topology.device(adj.peer).host != host) out = out + topology.link(adj.link).bandwidth;
  return out;
}

/// MAXCHANNELS of the release (src/include/device.h).
int maxchannels(const NcclEnv& env) {
  return env.version <= 0 || env.version >= kMaxChannels64Version ? kMaxChannelsFrom2251 : kMaxChannelsBefore2251;
}

int compute_capability(GpuModel gpu) {
  return gpu == GpuModel::Generic ? kGenericComputeCapability : gpu_spec(gpu).sm;
}

/// A GPU's or NIC's widest PCIe link, GB/s in NCCL's units (0: none).
double pcie_gbytes(const Topology& topology, DeviceId device) {
  double widest = 0.0;
  for (const Adjacency& adj : topology.neighbors(device)) {
    const Link& link = topology.link(adj.link);
    if (link_family(link.kind) == LinkFamily::Pcie)
      widest = std::max(widest, gbytes(link.bandwidth * nccl_link_goodput(link.kind)));
  }
  return widest;
}

/// NVLS-Tree's preconditions and head bandwidth (NcclModel::nvls_tree, nvls_head_gbytes): every host
/// of the ranks reduces on an NVSwitch of its own (Hopper or newer), and each of its GPUs reaches
/// NICs of its own; a head's network path is those NICs together, at most its PCIe link in NCCL's
/// units.
using HostNetworks = std::unordered_map<HostId, HostNetwork>;

void nvls_tree_network(const Topology& topology, std::span<const DeviceId> ranks, const HostGroups& groups,
                       const HostNetworks& networks, NcclModel& m) {
  if (nvls_efficiency(m.gpu) == 0.0) return;
  double slowest = 0.0;
  bool first = true;
  for (std::size_t g = 0; g < groups.host.size(); ++g) {
    const HostId h = groups.host[g];
    const auto it = networks.find(h);
    if (h == kNoHost || it == networks.end() || it->second.nics.empty()) return;
    std::vector<DeviceId> members;
    for (int r : groups.members[g]) members.push_back(ranks[std::size_t(r)]);
    const auto sw = find_reducing_switch(topology, members);
    if (!sw || topology.device(*sw).kind != DeviceKind::NvSwitch || topology.device(*sw).host != h) return;
    for (DeviceId gpu : members) {
      double nics = 0.0;
      for (int rail : nearest_rails(topology, gpu, it->second.nics))
        nics += gbytes(nic_network_bandwidth(topology, it->second.nics[std::size_t(rail)]));
      const double pcie = pcie_gbytes(topology, gpu);
      const double head = pcie > 0 ? std::min(nics, pcie) : nics;
      slowest = first ? head : std::min(slowest, head);
      first = false;
    }
  }
  m.nvls_tree = !first;
  m.nvls_head_gbytes = slowest;
}

/// NcclModel::net_path: over the hosts of the ranks and each NIC of a host, the path type from the
/// host's nearest rank GPU to it, the worst. NCCL's search keeps relaxing typeInter until its graph
/// uses the NICs (src/graph/search.cc ncclTopoCompute), and ringlab's channels use every NIC. A GPU
/// relaying to a NIC by PXN is never the nearest: the relay itself is nearer.
NcclPath net_path_type(const Topology& topology, std::span<const DeviceId> ranks, const HostGroups& groups,
                       const HostNetworks& networks) {
  NcclPath worst = NcclPath::Loc;
  for (std::size_t g = 0; g < groups.host.size(); ++g) {
    const auto it = networks.find(groups.host[g]);
    if (it == networks.end()) continue;
    std::vector<NcclPath> nearest(it->second.nics.size(), NcclPath::Sys);
    for (int r : groups.members[g]) {
      const auto types = detail::host_path_types(topology, ranks[std::size_t(r)]);
      for (std::size_t n = 0; n < nearest.size(); ++n)
        if (const auto t = types.find(it->second.nics[n]); t != types.end())
          nearest[n] = std::min(nearest[n], t->second);
    }
    for (const NcclPath t : nearest) worst = std::max(worst, t);
  }
  return worst;
}

/// The tree graphs' bwIntra across nodes (the tree's and CollNet chain's, GB/s): search pass 2
/// (ncclTopoCompute, "increase bwIntra for trees (2 nodes or collnet)") starts from the ring graph's
/// speed `bw` and, while bwIntra is below twice it, tries the next faster speed of the inter array,
/// kept if every GPU's intra bandwidth carries it on each of the graph's channels (a chain crosses a
/// GPU's links once each way except at its two ends: channels - channels / gpus of them). The tree
/// graphs are taken to have the ring graph's channels and bwInter.
double tree_graph_intra(std::span<const float> speeds, int channels, float bw, int gpus, double intra_gbytes) {
  const double load = double(channels) - double(channels) / std::max(1, gpus);
  float intra = bw;
  while (intra < 2 * bw) {
    const auto faster = std::find_if(speeds.rbegin(), speeds.rend(), [&](float s) { return s > intra; });
    if (faster == speeds.rend() || load * *faster > intra_gbytes) break;
    intra = *faster;
  }
  return intra;
}

struct NetChannels {
  int graph_channels = 0;     ///< the ring graph's, fewest over the hosts
  double graph_gbytes = 0.0;  ///< its bandwidth per channel, the lowest over the hosts
  int channels = 0;           ///< comm->nChannels after ncclTopoPostset
  double tree_intra_gbytes = 0.0;  ///< the tree graphs' bwIntra (tree_graph_intra)
};

/// The channels NCCL gives a communicator across nodes (nccl_search.hpp NcclNet): its ring graph
/// searched on each host's NICs, the fewest over the hosts (init.cc takes the minimum of every
/// rank's graph, and of the ring and tree graphs: ringlab takes the tree's as the ring's), doubled
/// at connection (ncclTopoPostset), and doubled again on Hopper and newer where a ring channel runs
/// above 45 GB/s ("Use 4 compute channels per search channel to reach peak BW on <8 PPN": 2.18.1-2.19
/// while the doubled count fits in MAXCHANNELS; from 2.20.3 only below 16 channels; sm_90 exactly
/// until 2.25.1, sm_90 and newer from it). nullopt where a host has no NIC or GPUs on neither PCIe
/// nor NVLink, or no NIC reaches the search's slowest speed. (The count needs no per-GPU bit masks,
/// so MNNVL domains of more than 64 GPUs count as any host.)
std::optional<NetChannels> net_ring_graph(const Topology& topology, std::span<const DeviceId> ranks,
                                          const HostGroups& groups, const HostNetworks& networks, const NcclModel& m,
                                          const NcclEnv& env) {
  constexpr int kHopperDoubleBelow16Version = 22003;  // v2.20.3: "nChannels < 16"
  constexpr int kHopperDoubleSm90PlusVersion = 22501;  // v2.25.1: minCompCap >= 90 (== 90 before)
  constexpr float kHopperDoubleMinBw = 45.0f;
  constexpr int kHopperDoubleBelow = 16;
  const int cc = compute_capability(m.gpu);
  const double nvlink = m.nvlinks > 0 ? nccl_nvlink_gbytes(m) : 0.0;  // each GPU's, the fewest links
  std::optional<detail::NcclNetGraph> fewest;
  for (std::size_t g = 0; g < groups.host.size(); ++g) {
    const auto it = networks.find(groups.host[g]);
    if (groups.host[g] == kNoHost || it == networks.end() || it->second.nics.empty()) return std::nullopt;
    detail::NcclNet net;
    double gpu_pcie = 0.0;
    for (const int r : groups.members[g]) gpu_pcie = std::max(gpu_pcie, pcie_gbytes(topology, ranks[std::size_t(r)]));
    const double total = std::max(gpu_pcie, nvlink);  // ncclTopoSearchInit's totalBw: a GPU's NVLink or PCIe
    if (total <= 0.0) return std::nullopt;  // GPUs on neither PCIe nor NVLink: nothing NCCL's search reads
    const std::size_t gpus = groups.members[g].size();
    const std::vector<DeviceId>& nics = it->second.nics;
    net.gpus = int(gpus);
    net.nvlink_gbytes = float(nvlink);
    if (it->second.efa && gpus < nics.size()) {
      // aws-ofi-nccl's RDMA protocol (EFA with more NICs than GPUs, v1.8.1 on): the NICs near each GPU
      // become one NCCL device of their summed speed, its PCIe link reported as wide (nccl_ofi_topo,
      // nccl_ofi_rdma get_properties: port_speed x max_group_size). ringlab splits the NICs evenly.
      const std::size_t rails = (nics.size() + gpus - 1) / gpus;
      const double device = double(rails) * gbytes(nic_network_bandwidth(topology, nics.front()));
      net.nic_gbytes.assign(gpus, float(gpu_pcie > 0.0 ? std::min(device, gpu_pcie) : device));
    } else {
      for (const DeviceId nic : nics) {
        double path = gbytes(nic_network_bandwidth(topology, nic));
        for (const double pcie : {pcie_gbytes(topology, nic), gpu_pcie})
          if (pcie > 0.0) path = std::min(path, pcie);
        net.nic_gbytes.push_back(float(path));
      }
    }
    // One GPU: NCCL scales totalBw by ngpus / (ngpus - 1), which is infinite.
    net.total_gbytes = gpus == 1 ? std::numeric_limits<float>::infinity() : float(total);
    net.speeds = detail::nccl_inter_speeds(cc);
    net.max_channels = maxchannels(env) / 2;  // init.cc: ringGraph->maxChannels = MAXCHANNELS / 2
    net.min_compute_capability = cc;
    const detail::NcclNetGraph graph = detail::nccl_search_net_rings(net);
    if (graph.channels == 0) return std::nullopt;
    if (!fewest) fewest = graph;
    fewest->channels = std::min(fewest->channels, graph.channels);
    fewest->bw = std::min(fewest->bw, graph.bw);
  }
  if (!fewest) return std::nullopt;
  const int most = maxchannels(env);
  int channels = std::min(most, kPostsetDuplication * fewest->channels);
  const double tree_intra = tree_graph_intra(detail::nccl_inter_speeds(cc), fewest->channels, fewest->bw,
                                             m.ranks / m.nodes, nccl_intra_gbytes(m));
  // CollNet (ncclTopoPostset "Add more channels to saturate intra-node bandwidth, except the 1 PPN
  // case", v2.18.1-v2.30.7): half as many again where the chain graph's bwIntra exceeds its bwInter,
  // before Hopper's doubling, which then sees the larger count.
  if (m.collnet && env.collnet && m.ranks > m.nodes && tree_intra > fewest->bw)
    channels = std::min(most, channels + channels / 2);
  const bool newest = env.version <= 0;
  const bool hopper = (newest || env.version >= kHopperDoubleSm90PlusVersion) ? cc >= 90 : cc == 90;
  if (hopper && fewest->bw > kHopperDoubleMinBw) {
    if (!newest && env.version < kHopperDoubleBelow16Version) {
      if (2 * channels <= most) channels *= 2;
    } else if (channels < kHopperDoubleBelow) {
      channels *= 2;
    }
  }
  return NetChannels{fewest->channels, fewest->bw, channels, tree_intra};
}

/// NCCL's ring graph where the ranks are one host's GPUs joined pairwise by NVLink, or all behind
/// NVSwitches (nccl_search.hpp), with NCCL's GPU order (`gpu_rank`: GPU index -> rank index; local
/// index stands in for PCI order, as ringlab has no bus IDs). nullopt anywhere else.
struct MeshRings {
  std::vector<int> gpu_rank;
  detail::NcclRingGraph graph;
  bool switched = false;  ///< the GPUs meet in an NVSwitch
};
std::optional<MeshRings> nvlink_mesh_rings(const Topology& topology, std::span<const DeviceId> ranks,
                                           const NcclEnv& env) {
  const std::size_t n = ranks.size();
  if (n < 2 || n > kMaxMeshGpus || !env.p2p) return std::nullopt;
  const HostId host = topology.device(ranks.front()).host;
  const auto elsewhere = [&](DeviceId r) { return topology.device(r).host != host; };
  if (host == kNoHost || std::any_of(ranks.begin(), ranks.end(), elsewhere)) return std::nullopt;
  std::vector<int> order(n);
  for (std::size_t r = 0; r < n; ++r) order[r] = int(r);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return topology.device(ranks[std::size_t(a)]).local_index < topology.device(ranks[std::size_t(b)]).local_index;
  });
  std::unordered_map<DeviceId, int> index;  // GPU -> NCCL GPU index
  for (std::size_t k = 0; k < n; ++k) index.emplace(ranks[std::size_t(order[k])], int(k));
  if (index.size() != n) return std::nullopt;
  detail::NcclMesh mesh;
  mesh.gpus = int(n);
  mesh.link_gbytes.assign(n * n, 0.0f);
  std::vector<float> to_switch(n, 0.0f);  // NVLink to NVSwitches (NCCL merges them into one)
  int cc = INT32_MAX;
  for (std::size_t k = 0; k < n; ++k) {
    const DeviceId gpu = ranks[std::size_t(order[k])];
    const Device& dev = topology.device(gpu);
    cc = std::min(cc, compute_capability(dev.gpu_model));
    for (const Adjacency& adj : topology.neighbors(gpu)) {
      const Link& link = topology.link(adj.link);
      if (!is_nvlink(link.kind)) {
        mesh.pci_gbytes = std::max(mesh.pci_gbytes, float(gbytes(link.bandwidth * nccl_link_goodput(link.kind))));
        continue;
      }
      const float gb = float(link.lanes * nccl_nvlink_link_gbytes(link.kind));
      if (topology.device(adj.peer).kind == DeviceKind::NvSwitch) {
        to_switch[k] += gb;
        continue;
      }
      const auto peer = index.find(adj.peer);  // NCCL's node holds only the ranks' GPUs
      if (peer != index.end()) mesh.link_gbytes[k * n + std::size_t(peer->second)] += gb;
    }
  }
  const bool any_switch = std::any_of(to_switch.begin(), to_switch.end(), [](float b) { return b > 0.0f; });
  if (any_switch) {  // every GPU behind the switch and no direct NVLink: else neither search applies
    const bool direct = std::any_of(mesh.link_gbytes.begin(), mesh.link_gbytes.end(), [](float b) { return b > 0.0f; });
    const bool all = std::all_of(to_switch.begin(), to_switch.end(), [](float b) { return b > 0.0f; });
    if (direct || !all) return std::nullopt;
    mesh.switch_gbytes = std::move(to_switch);
    mesh.link_gbytes.clear();
  } else {
    for (std::size_t a = 0; a < n; ++a)
      for (std::size_t b = 0; b < n; ++b)
        if (a != b && mesh.link_gbytes[a * n + b] <= 0.0f) return std::nullopt;
  }
  mesh.min_compute_capability = cc;
  mesh.speeds = detail::nccl_intra_speeds(cc);
  mesh.max_channels = maxchannels(env) / 2;  // init.cc: ringGraph->maxChannels = MAXCHANNELS / 2
  const bool switched = !mesh.switch_gbytes.empty();
  return MeshRings{std::move(order), detail::nccl_search_mesh_rings(mesh), switched};
}

/// NCCL_MAX_NCHANNELS and NCCL_MAX_CTAS, then NCCL_MIN_NCHANNELS and NCCL_MIN_CTAS, the minimum winning
/// (src/graph/connect.cc ncclTopoPostset: "We permit combining max, then min, to only use the first
/// channels, then duplicate them"; init.cc sets minCTAs above maxCTAs to maxCTAs), within the
/// release's MAXCHANNELS.
int bounded_channels(int channels, const NcclEnv& env) {
  const int most = maxchannels(env);
  int min_ctas = std::min(env.min_ctas, most);
  const int max_ctas = std::min(env.max_ctas, most);
  if (max_ctas > 0 && min_ctas > max_ctas) min_ctas = max_ctas;
  if (env.max_channels > 0) channels = std::min(channels, env.max_channels);
  if (max_ctas > 0) channels = std::min(channels, max_ctas);
  return std::max({channels, env.min_channels, min_ctas});
}

}  // namespace

NcclModel nccl_model(const Topology& topology, std::span<const DeviceId> ranks, const NcclEnv& env) {
  // Hosts that share NVLink are one node (MNNVL) or talk over the network: NCCL's nodes first.
  if (const std::optional<Topology> nodes = nccl_node_topology(topology, ranks, env)) return nccl_model(*nodes, ranks, env);
  NcclModel m;
  m.env = env;
  m.ranks = int(ranks.size());
  if (ranks.empty()) return m;
  m.nvlink = true;
  m.nvswitch = true;
  m.gpu = topology.device(ranks.front()).gpu_model;
  bool first = true;
  for (DeviceId r : ranks) {
    const Device& dev = topology.device(r);
    m.mixed_compute = m.mixed_compute || gpu_spec(dev.gpu_model).sm != gpu_spec(m.gpu).sm;
    m.gpu = older_gpu(m.gpu, dev.gpu_model);  // Generic if any GPU is unnamed, else the oldest
    Bandwidth nvlink;
    Bandwidth widest;  // the widest other link (PCIe) in NCCL's units
    int nvlinks = 0;
    bool on_nvswitch = false;
    for (const Adjacency& adj : topology.neighbors(r)) {
      const Link& link = topology.link(adj.link);
      on_nvswitch = on_nvswitch || topology.device(adj.peer).kind == DeviceKind::NvSwitch;
      if (is_nvlink(link.kind)) {
        nvlink = nvlink + link.bandwidth;
        nvlinks += link.lanes;
        // the oldest generation among the ranks (NvLink1 .. NvLink5 are in order)
        if (!is_nvlink(m.nvlink_kind) || link.kind < m.nvlink_kind) m.nvlink_kind = link.kind;
        continue;
      }
      widest = std::max(widest, link.bandwidth * nccl_link_goodput(link.kind));
    }
    if (!env.p2p) nvlink = Bandwidth{};  // NCCL_P2P_DISABLE: GPUs of a node talk through host memory
    m.nvlinks = first ? nvlinks : std::min(m.nvlinks, nvlinks);
    const bool has_nvlink = nvlink.bits_per_second() > 0;
    m.nvlink = m.nvlink && has_nvlink;
    m.nvswitch = m.nvswitch && on_nvswitch;
    const Bandwidth intra = has_nvlink ? nvlink : widest;
    m.intra = first ? intra : std::min(m.intra, intra);
    first = false;
  }
  const HostGroups groups = group_by_host(topology, ranks);
  m.nodes = int(groups.host.size());
  bool first_host = true;
  for (const HostId h : groups.host) {
    if (h == kNoHost) continue;
    const CpuVendor v = topology.host(h).cpu_vendor;
    if (first_host) m.cpu_vendor = v;
    else if (m.cpu_vendor != v) m.cpu_vendor.reset();
    m.x86 = m.x86 && v != CpuVendor::Other;
    first_host = false;
  }
  // The NICs that leave each host, as NCCL_IB_HCA leaves them (several nodes only).
  const HostNetworks networks = m.nodes > 1 ? host_networks(topology, env.ib_hca) : HostNetworks{};
  if (m.nodes > 1) {
    bool any = false;
    for (const HostId h : groups.host) {
      if (h == kNoHost) continue;
      const auto it = networks.find(h);
      const Bandwidth egress = it == networks.end() ? Bandwidth{} : it->second.egress;
      const int nics = it == networks.end() ? 0 : int(it->second.nics.size());
      m.inter = any ? std::min(m.inter, egress) : egress;
      m.nics = any ? std::min(m.nics, nics) : nics;
      m.efa = (any ? m.efa : true) && it != networks.end() && it->second.efa;
      any = true;
    }
    if (!any || m.inter.bits_per_second() <= 0) m.inter = m.intra;
  }
  if (const auto sw = find_reducing_switch(topology, ranks)) {
    const DeviceKind kind = topology.device(*sw).kind;
    m.nvls = m.nodes == 1 && kind == DeviceKind::NvSwitch;
    m.collnet = m.nodes > 1 && is_fabric_switch(kind);
  }
  if (m.nodes > 1) {
    nvls_tree_network(topology, ranks, groups, networks, m);
    m.net_path = net_path_type(topology, ranks, groups, networks);
  }
  const double bottleneck = gbytes(m.nodes == 1 ? m.intra : std::min(m.intra, m.inter));
  // ringlab's stand-in for the search's channel count: Hopper's ring LL128 cap for Blackwell too.
  const double per_channel = kRingLL128MaxBwPerChannel[std::size_t(generation(m.gpu))][0];
  m.channels = std::clamp(int(std::ceil(bottleneck / per_channel)), kMinChannels, kMaxChannels);
  if (m.nodes > 1 && m.nics > 1) {  // every NIC carries the same number of channels
    const int per_nic = std::max(1, (m.channels + m.nics - 1) / m.nics);
    m.channels = std::min(kMaxChannels, per_nic * m.nics);
  }
  if (m.nodes == 1)
    if (const auto mesh = nvlink_mesh_rings(topology, ranks, env)) {
      m.graph_channels = mesh->graph.channels;
      m.ring_graph_gbytes = mesh->graph.bw_intra;
      m.channels = std::min(kMaxChannels, kPostsetDuplication * mesh->graph.channels);
    }
  if (m.nodes > 1)
    if (const auto net = net_ring_graph(topology, ranks, groups, networks, m, env)) {
      m.graph_channels = net->graph_channels;
      m.ring_graph_gbytes = net->graph_gbytes;
      m.tree_graph_intra_gbytes = net->tree_intra_gbytes;
      m.channels = net->channels;
    }
  m.channels = bounded_channels(m.channels, env);
  m.nvls = m.nvls && env.nvls && env.p2p;  // NVLS maps peers over NVLink: not without P2P
  m.nvls_tree = m.nvls_tree && env.nvls && env.p2p && m.nvlink;
  m.collnet = m.collnet && env.collnet;
  return m;
}

Topology nccl_net_topology(const Topology& topology, std::span<const DeviceId> ranks, const NicFilter& filter) {
  Topology out;
  for (const Rack& r : topology.racks()) out.add_rack(r.name);
  for (const Host& h : topology.hosts()) out.add_host(h.name, h.rack, h.template_name, h.cpu_vendor);
  for (const Device& d : topology.devices()) out.add_device(d);
  // Network links of excluded NICs end on a placeholder outside every host instead: no route between
  // GPUs can cross them, and every device and link keeps its id.
  std::unordered_map<DeviceId, DeviceId> placeholder;
  auto end = [&](DeviceId nic, DeviceId other) {
    const Device& d = topology.device(nic);
    if (d.kind != DeviceKind::Nic || d.host == kNoHost || topology.device(other).host == d.host) return nic;
    if (filter.selects(d.name)) return nic;
    auto [it, added] = placeholder.try_emplace(nic, DeviceId{});
    if (added) {
      Device p;
      p.name = d.name + " (left out by NCCL_IB_HCA)";
      p.kind = DeviceKind::Nic;
      it->second = out.add_device(std::move(p));
    }
    return it->second;
  };
  for (const Link& l : topology.links()) {
    Link copy = l;
    copy.a = end(l.a, l.b);
    copy.b = end(l.b, l.a);
    out.add_link(copy);
  }
  const HostGroups groups = group_by_host(out, ranks);
  if (groups.host.size() < 2) return out;
  const auto networks = host_networks(out);
  for (const HostId h : groups.host) {
    if (h == kNoHost || networks.count(h)) continue;
    throw std::invalid_argument("NCCL_IB_HCA=" + filter.text + " leaves host " + topology.host(h).name +
                                " without a NIC (NCCL would fall back to sockets, which ringlab does not model)");
  }
  return out;
}

namespace {

/// MNNVL: each clique of hosts one node (see nccl_node_topology).
Topology fuse_cliques(const Topology& topology, const std::vector<HostId>& clique,
                      const std::vector<std::vector<HostId>>& members) {
  Topology out;
  for (const Rack& r : topology.racks()) out.add_rack(r.name);
  std::vector<HostId> fused(clique.size(), kNoHost);
  for (HostId h = 0; h < HostId(clique.size()); ++h) {
    if (clique[h] != h) continue;
    const Host& first = topology.host(members[h].front());  // members ascend; the root may be any of them
    const std::string name =
        members[h].size() == 1 ? first.name : first.name + ".." + topology.host(members[h].back()).name;
    fused[h] = out.add_host(name, first.rack, first.template_name, first.cpu_vendor);
  }
  // Local indices host by host within the clique: a device's index plus the counts of its kind in the
  // clique's earlier hosts.
  std::vector<std::unordered_map<int, int>> offset(clique.size());  // per host: kind -> offset
  std::vector<std::unordered_map<int, int>> totals(clique.size());  // per clique root: kind -> count
  for (const auto& hosts : members) {
    if (hosts.empty()) continue;  // not a clique's root
    std::unordered_map<int, int>& running = totals[clique[hosts.front()]];
    for (HostId h : hosts) {
      std::unordered_map<int, int> count;
      for (DeviceId d : topology.host_devices(h)) {
        const Device& dev = topology.device(d);
        count[int(dev.kind)] = std::max(count[int(dev.kind)], dev.local_index + 1);
      }
      offset[h] = running;
      for (const auto& [kind, n] : count) running[kind] += n;
    }
  }
  // NVLink switches outside every host that only one multi-host clique's GPUs reach (the rack's
  // NVLink switch trays) join that node, as the NVS node is part of NCCL's fused system.
  std::unordered_map<DeviceId, HostId> joins;  // switch -> clique root
  for (DeviceId gpu = 0; gpu < DeviceId(topology.device_count()); ++gpu) {
    const Device& d = topology.device(gpu);
    if (d.kind != DeviceKind::Gpu || d.host == kNoHost || members[clique[d.host]].size() < 2) continue;
    for (const Adjacency& adj : topology.neighbors(gpu)) {
      if (!is_nvlink(topology.link(adj.link).kind) || topology.device(adj.peer).host != kNoHost) continue;
      const auto [it, added] = joins.try_emplace(adj.peer, clique[d.host]);
      if (!added && it->second != clique[d.host]) it->second = kNoHost;  // shared by cliques: stays outside
    }
  }
  for (DeviceId id = 0; id < DeviceId(topology.device_count()); ++id) {
    const Device& d = topology.device(id);
    Device copy = d;
    if (d.host != kNoHost) {
      copy.host = fused[clique[d.host]];
      if (d.local_index >= 0) copy.local_index += offset[d.host][int(d.kind)];
    } else if (const auto it = joins.find(id); it != joins.end() && it->second != kNoHost) {
      copy.host = fused[it->second];
      copy.rack = topology.host(members[it->second].front()).rack;
      copy.local_index = totals[it->second][int(d.kind)]++;
    }
    out.add_device(std::move(copy));
  }
  for (const Link& l : topology.links()) out.add_link(l);
  return out;
}

/// Without MNNVL: every host reaches the NVLink devices outside it through a private copy of each,
/// and NVLink straight to another host's GPU ends on an unconnected placeholder.
Topology split_cliques(const Topology& topology) {
  Topology out;
  for (const Rack& r : topology.racks()) out.add_rack(r.name);
  for (const Host& h : topology.hosts()) out.add_host(h.name, h.rack, h.template_name, h.cpu_vendor);
  std::vector<std::unordered_map<int, int>> next_index(topology.hosts().size());  // per host: kind -> count
  for (const Device& d : topology.devices()) {
    out.add_device(d);
    if (d.host != kNoHost) {
      int& n = next_index[std::size_t(d.host)][int(d.kind)];
      n = std::max(n, d.local_index + 1);
    }
  }
  std::map<std::pair<HostId, DeviceId>, DeviceId> copies;  // (host, outside device) -> its private copy
  auto private_copy = [&](HostId host, DeviceId outside) {
    auto [it, added] = copies.try_emplace({host, outside}, DeviceId{});
    if (!added) return it->second;
    Device copy = topology.device(outside);
    if (host == kNoHost || copy.kind == DeviceKind::Gpu) {  // NVLink to another host's GPU: leads nowhere
      copy.name += " (not used by " + topology.device(outside).name + " peers without MNNVL)";
      copy.kind = DeviceKind::NvSwitch;
      copy.host = kNoHost;
      copy.in_network_reduction = false;
    } else {
      copy.name += " (" + topology.host(host).name + "'s share without MNNVL)";
      copy.host = host;
      copy.rack = topology.host(host).rack;
      copy.local_index = next_index[std::size_t(host)][int(copy.kind)]++;
    }
    it->second = out.add_device(std::move(copy));
    return it->second;
  };
  for (const Link& l : topology.links()) {
    Link copy = l;
    const HostId ha = topology.device(l.a).host, hb = topology.device(l.b).host;
    if (is_nvlink(l.kind) && ha != hb) {
      // The host side keeps its end; the other end becomes that host's copy (GPU-GPU: a dead end).
      if (ha != kNoHost && topology.device(l.a).kind == DeviceKind::Gpu) copy.b = private_copy(ha, l.b);
      else if (hb != kNoHost && topology.device(l.b).kind == DeviceKind::Gpu) copy.a = private_copy(hb, l.a);
    }
    out.add_link(copy);
  }
  return out;
}

}  // namespace

std::optional<Topology> nccl_node_topology(const Topology& topology, std::span<const DeviceId> ranks,
                                           const NcclEnv& env) {
  const std::vector<HostId> clique = nvlink_cliques(topology, ranks);
  std::vector<std::vector<HostId>> members(clique.size());
  for (HostId h = 0; h < HostId(clique.size()); ++h) members[clique[h]].push_back(h);
  if (std::none_of(members.begin(), members.end(), [](const auto& m) { return m.size() > 1; })) return std::nullopt;
  // src/init.cc: MNNVL is tried when NCCL_MNNVL_ENABLE is not 0 and P2P is not disabled (p2pLevel != 0).
  const bool p2p = env.p2p && env.p2p_level.value_or(NcclPath::Pxb) != NcclPath::Loc;
  const bool mnnvl = (env.version <= 0 || env.version >= kMnnvlMinVersion) && env.mnnvl != NcclEnable::Off && p2p;
  return mnnvl ? fuse_cliques(topology, clique, members) : split_cliques(topology);
}

std::optional<Topology> nccl_view(const Topology& cluster, std::span<const DeviceId> ranks, const NcclEnv& env) {
  std::optional<Topology> filtered;
  if (!env.ib_hca.empty()) filtered.emplace(nccl_net_topology(cluster, ranks, env.ib_hca));
  if (auto nodes = nccl_node_topology(filtered ? *filtered : cluster, ranks, env)) return nodes;
  return filtered;
}

namespace {

/// Where a channel's ring leaves a host it enters at `entry` (indices into the host's members in
/// rail order): the member before the entry in that order, unless another member (not the entry) is
/// nearer a NIC; then the nearest such member, counting back from there. NCCL's ring search ends
/// each host's part of a ring at a GPU whose path to a NIC is of the best type it can reach
/// (search.cc: ncclTopoSearchRecGpu's last step to the net must pass followPath at typeInter, which
/// ncclTopoCompute raises from the best type only when no ring is found): on a host where only some
/// GPUs share a PCIe root with a NIC (one socket in NPS4 with two NICs; a PCIe server with NICs on
/// half its switches), the last GPU is one of those, not whichever GPU the rank order puts last.
/// Only where a ring may leave by another NIC than it entered (NCCL_CROSS_NIC): otherwise NCCL
/// needs the entry's NIC again, and trees' chains keep their order.
std::size_t ring_exit(const std::vector<NearestRails>& near, std::size_t entry) {
  const std::size_t n = near.size();
  const std::size_t before = (entry + n - 1) % n;
  int best = INT32_MAX;
  for (std::size_t k = 0; k < n; ++k)
    if (k != entry) best = std::min(best, near[k].distance);
  if (n < 3 || near[before].distance <= best) return before;
  for (std::size_t back = 2; back < n; ++back) {
    const std::size_t k = (entry + n - back) % n;
    if (near[k].distance == best) return k;
  }
  return before;
}

/// nccl_channel_rings and nccl_tree_chains: `same_rail` enters every host on rail c mod rails.
std::vector<std::vector<int>> channel_orders(const Topology& topology, std::span<const DeviceId> ranks, int channels,
                                             bool same_rail) {
  const HostGroups groups = group_by_host(topology, ranks);
  if (groups.host.size() < 2 || channels < 1) return {};
  const auto networks = host_networks(topology);
  // Per host: its ranks sorted by their first nearest rail (stable: rank order within a rail), each
  // one's nearest rails and its distance to them.
  std::vector<std::vector<int>> sorted(groups.host.size());
  std::vector<std::vector<NearestRails>> near(groups.host.size());
  int rails = 1;
  for (std::size_t h = 0; h < groups.host.size(); ++h) {
    const auto it = groups.host[h] == kNoHost ? networks.end() : networks.find(groups.host[h]);
    static const std::vector<DeviceId> kNone;
    const std::vector<DeviceId>& nics = it == networks.end() ? kNone : it->second.nics;
    if (h == 0) rails = std::max<int>(1, int(nics.size()));
    std::vector<std::pair<NearestRails, int>> by_rail;  // (nearest rails, rank)
    for (int r : groups.members[h])
      by_rail.emplace_back(nearest_rails_and_distance(topology, ranks[std::size_t(r)], nics), r);
    std::stable_sort(by_rail.begin(), by_rail.end(),
                     [](const auto& x, const auto& y) { return x.first.rails.front() < y.first.rails.front(); });
    for (auto& [rl, r] : by_rail) {
      sorted[h].push_back(r);
      near[h].push_back(std::move(rl));
    }
  }
  std::vector<std::vector<int>> rings;
  for (int c = 0; c < channels; ++c) {
    std::vector<int> ring;
    ring.reserve(ranks.size());
    int want = c % rails;
    for (std::size_t h = 0; h < sorted.size(); ++h) {
      const std::vector<int>& members = sorted[h];
      const auto n = members.size();
      // The GPUs nearest to rail `want` take its channels in turn (two GPUs on a PCIe switch with
      // four NICs enter on two rails each), so no GPU's PCIe link carries two rails.
      // Of those, only the nearest enter (NCCL's search tries the best GPU-NIC path type first): a GPU
      // that is as far from every NIC lists them all but enters none while a nearer one can.
      std::vector<std::size_t> candidates;
      std::size_t position = 0;
      int entry_distance = INT32_MAX;
      for (std::size_t k = 0; k < n; ++k) {
        const std::vector<int>& rails_k = near[h][k].rails;
        const auto at = std::find(rails_k.begin(), rails_k.end(), want);
        if (at == rails_k.end() || near[h][k].distance > entry_distance) continue;
        if (near[h][k].distance < entry_distance) candidates.clear();
        entry_distance = near[h][k].distance;
        position = std::size_t(at - rails_k.begin());
        candidates.push_back(k);
      }
      const std::size_t entry = candidates.empty() ? std::size_t(want) % n : candidates[position % candidates.size()];
      const std::size_t exit = same_rail ? (entry + n - 1) % n : ring_exit(near[h], entry);
      for (std::size_t k = 0; k < n; ++k)
        if ((entry + k) % n != exit) ring.push_back(members[(entry + k) % n]);
      ring.push_back(members[exit]);
      if (!same_rail) {  // the next host enters where this one leaves (EcmpPolicy::Channel picks rail c)
        const std::vector<int>& exit_rails = near[h][exit].rails;
        want = exit_rails[std::size_t(c) % exit_rails.size()];
      }
    }
    rings.push_back(std::move(ring));
  }
  return rings;
}

}  // namespace

namespace {
/// The rings NCCL's search gives the channels on one node's NVLink mesh (rank indices; channel c
/// takes ring c mod their count); none behind a switch, where every order loads the same links, or
/// where there is no such mesh.
std::vector<std::vector<int>> searched_mesh_rings(const Topology& topology, std::span<const DeviceId> ranks,
                                                  const NcclEnv& env) {
  std::vector<std::vector<int>> rings;
  const auto mesh = nvlink_mesh_rings(topology, ranks, env);
  if (!mesh || mesh->switched) return rings;
  for (const std::vector<int>& ring : mesh->graph.rings) {
    rings.emplace_back();
    for (int gpu : ring) rings.back().push_back(mesh->gpu_rank[std::size_t(gpu)]);
  }
  return rings;
}
}  // namespace

std::vector<std::vector<int>> nccl_channel_rings(const Topology& topology, std::span<const DeviceId> ranks,
                                                 int channels, const NcclEnv& env) {
  std::vector<std::vector<int>> rings = searched_mesh_rings(topology, ranks, env);
  if (!rings.empty()) return rings;
  return channel_orders(topology, ranks, channels, env.cross_nic == 0);
}

std::vector<std::vector<int>> nccl_tree_chains(const Topology& topology, std::span<const DeviceId> ranks,
                                               int channels) {
  return channel_orders(topology, ranks, channels, true);
}

namespace {
// NCCL's LL and LL128 primitives forward each line to the next rank as soon as its flag shows it has
// arrived (v2.28.9 src/device/prims_ll.h LLGenericOp: readLL, then storeLL to the send peer in the
// same loop; prims_ll128.h recvReduceSendCopy likewise per 128-byte line), so a ring broadcast's or
// reduce's chain moves its data cut-through and pays its hops once. The flow model moves pieces
// store-and-forward: a chain of h hops and P pieces per channel takes P + h - 1 piece times where
// cut-through takes about P. Pieces of 1 / (kCutThroughFill x h) of a channel's share keep that fill
// under 1/8 of the transfer. These are the discretisation's bounds, not NCCL constants: pieces of at
// least kMinCutThroughPiece and at most kMaxCutThroughPieces per channel (events stay below channels
// x hops x 256; a 144-rank chain then fills 142/256 of its transfer), and never more than the
// protocol's step.
constexpr std::int64_t kCutThroughFill = 8;
constexpr std::int64_t kMinCutThroughPiece = 4096;  // bytes
constexpr std::int64_t kMaxCutThroughPieces = 256;

Bytes cut_through_piece(Bytes message, int channels, std::size_t ranks, Bytes step) {
  const std::int64_t per = std::max(1, channels);
  const std::int64_t share = (message.count() + per - 1) / per;
  const std::int64_t hops = std::max<std::int64_t>(1, std::int64_t(ranks) - 1);
  const std::int64_t pieces = std::min(kMaxCutThroughPieces, kCutThroughFill * hops);
  const std::int64_t piece = std::max(kMinCutThroughPiece, (share + pieces - 1) / pieces);
  return Bytes{std::min(step.count(), piece)};
}
}  // namespace

NcclResolved nccl_resolve(const Topology& topology, std::span<const DeviceId> ranks, const CollectiveSpec& spec) {
  return NcclComm(topology, ranks, spec.nccl_env).resolve(spec);
}

NcclComm::NcclComm(const Topology& topology, std::span<const DeviceId> ranks, const NcclEnv& env)
    : topology_(topology),
      ranks_(ranks.begin(), ranks.end()),
      model_(nccl_model(topology, ranks, env)),
      mesh_rings_(searched_mesh_rings(topology, ranks, env)) {}

NcclResolved NcclComm::resolve(const CollectiveSpec& spec) const {
  const Topology& topology = topology_;
  const std::span<const DeviceId> ranks = ranks_;
  NcclResolved out{nccl_choose(model_, spec.collective, spec.message, spec.payload), spec};
  const NcclChoice& choice = out.choice;
  out.spec.algorithm = choice.algorithm;
  out.spec.channels = choice.channels;
  out.spec.chunk = choice.chunk;
  out.spec.channel_rings.clear();
  out.spec.host_chains = false;
  // NCCL's kernels loop over a channel's share in whole chunks, the remainder last (v2.28.9
  // src/device/all_reduce.h, tree, NVLS and CollNet, and src/device/broadcast.h, reduce.h: nelem =
  // min(chunkCount, channelCount - elemOffset); src/include/collectives.h, PAT's getNelem). Ring
  // AllReduce, ReduceScatter and AllGather keep equal pieces: NCCL's last ring loop spreads its
  // remainder over the ranks, and the compact ring's repeat shortcut needs equal blocks.
  const bool chain = spec.collective == Collective::Broadcast || spec.collective == Collective::Reduce;
  out.spec.whole_chunks = choice.nccl_algorithm != NcclAlgorithm::Ring || chain;
  if (chain && choice.algorithm == Algorithm::Ring && choice.protocol != Protocol::Simple)
    out.spec.chunk = cut_through_piece(spec.message, choice.channels, ranks.size(), choice.chunk);
  if (choice.algorithm == Algorithm::Ring) {
    out.spec.channel_rings = !mesh_rings_.empty()
                                 ? mesh_rings_
                                 : channel_orders(topology, ranks, choice.channels, spec.nccl_env.cross_nic == 0);
  } else if (choice.algorithm == Algorithm::Tree && spec.collective == Collective::AllReduce) {
    out.spec.channel_rings = nccl_tree_chains(topology, ranks, choice.channels);
    out.spec.host_chains = !out.spec.channel_rings.empty();
  } else if (choice.nccl_algorithm == NcclAlgorithm::NvlsTree) {
    // NVLS-Tree (src/device/all_reduce.h, NCCL_ALGO_NVLS_TREE): the NVSwitch reduces each head's
    // slice, the heads all-reduce their slices along a tree between nodes over their own NICs, and
    // the switch multicasts the result: ringlab's rail hierarchy with NVLS inside nodes.
    out.spec.algorithm = Algorithm::Hierarchical;
    out.spec.hierarchy = Hierarchy::Rail;
    out.spec.inter = InterAlgorithm::Tree;
    out.spec.intra_in_network = true;
  } else if (choice.nccl_algorithm == NcclAlgorithm::Pat) {
    // PAT (src/device/prims_simple.h, patAlgorithm): Bruck-style, log2(ranks) steps, each rank moving
    // (ranks - 1)/ranks of the buffer through its one NIC. Recursive halving/doubling has the same
    // steps and volume for a power-of-two count; otherwise every rank sends to every other at once
    // (direct), the same volume per NIC in one step: a non-blocking fabric times both alike.
    const std::size_t n = ranks.size();
    out.spec.algorithm = (n & (n - 1)) == 0 ? Algorithm::HalvingDoubling : Algorithm::Direct;
  } else if (choice.nccl_algorithm == NcclAlgorithm::CollNetChain) {
    // CollNet Chain (src/device/all_reduce.h, NCCL_ALGO_COLLNET_CHAIN): per channel a chain inside
    // each node up to its head, the network's reduction across the heads, and the chain back down:
    // the tree's host chains with the switch in place of the tree between heads.
    out.spec.algorithm = Algorithm::Tree;
    out.spec.channel_rings = nccl_tree_chains(topology, ranks, choice.channels);
    out.spec.host_chains = !out.spec.channel_rings.empty();
    out.spec.inter = InterAlgorithm::InNetwork;
  } else if (choice.nccl_algorithm == NcclAlgorithm::CollNetDirect) {
    // CollNet Direct (src/device/all_reduce.h, RunWorkColl<..., NCCL_ALGO_COLLNET_DIRECT>): each GPU
    // scatters to the node's heads, every head sends its slice through its own NIC to the network's
    // reduction, and the result comes back the same way: ringlab's rail hierarchy with SHARP per rail.
    out.spec.algorithm = Algorithm::Hierarchical;
    out.spec.hierarchy = Hierarchy::Rail;
    out.spec.inter = InterAlgorithm::InNetwork;
  }
  return out;
}

namespace {
// What NCCL_ALGO does to the ring by release (tuning.cc): 2.18 never disables it for collectives
// other than AllReduce ("Never disable ring for non-allreduce operations", v2.18.1-v2.18.6); 2.19 to
// 2.23 give a collective that the settings leave without any algorithm the ring back with every
// protocol at its bandwidth before the settings (comm->ringbdw, "at least set ring algo available");
// from 2.24 NCCL fails there ("no algorithm/protocol available for function").
constexpr int kRingFallbackVersion = 21900;
constexpr int kNoFallbackVersion = 22400;

/// Whether NCCL_ALGO and NCCL_PROTO leave the pair on for `c` (LL128 by default only where NCCL
/// enables it).
bool pair_enabled(const NcclModel& m, Collective c, NcclAlgorithm a, int p) {
  const int v = m.env.version;
  const bool ring_kept = v > 0 && v < kRingFallbackVersion && a == NcclAlgorithm::Ring && c != Collective::AllReduce;
  if (!ring_kept && m.env.algorithms_for(c)[std::size_t(a)] == NcclEnable::Off) return false;
  const NcclEnable proto = m.env.protocols_for(c)[std::size_t(kNcclProtocolOrder[std::size_t(p)])];
  if (proto == NcclEnable::Off) return false;
  return !(p == kLL128 && proto == NcclEnable::Default && !ll128_enabled(m));
}

bool ring_fallback(const NcclModel& m) {
  return m.env.version >= kRingFallbackVersion && m.env.version < kNoFallbackVersion;
}

/// 2.19 to 2.23: the settings leave `c` no row, so NCCL gives it the ring back (kRingFallbackVersion).
bool ring_restored(const NcclModel& m, Collective c) {
  if (!ring_fallback(m)) return false;
  for (int ai = 0; ai < kNcclAlgorithmCount; ++ai)
    for (int p = 0; p < kNcclProtocols; ++p) {
      const auto a = NcclAlgorithm(ai);
      if (algorithm_applies(m, c, a, p) && pair_enabled(m, c, a, p) && model_bandwidth(m, c, a, p) > 0) return false;
    }
  return true;
}

/// The (a, p) row of NCCL's table for `c` and `message`; nullopt where its bandwidth is 0.
std::optional<NcclEstimate> estimate(const NcclModel& m, Collective c, Bytes message, NcclAlgorithm a, int p) {
  double bw = model_bandwidth(m, c, a, p);
  if (bw <= 0) return std::nullopt;
  double lat = model_latency(m, c, a, p);
  // log2i(nBytes >> 6): from 2.22 NCCL's log2i is log2Down, -1 for 0 (under 64 B: no correction).
  const bool log2_down = m.env.version <= 0 || m.env.version >= kLog2DownVersion;
  const int log_size = log2_down && message.count() < 64 ? -1 : log2i(message.count() >> 6);
  if (a == NcclAlgorithm::Tree && log_size >= 0 && log_size < kTreeCorrectionSizes)
    bw *= kTreeCorrection[std::size_t(p)][std::size_t(log_size)];
  if (a == NcclAlgorithm::NvlsTree && c == Collective::AllReduce && log_size >= 0 && log_size < kNvlsTreeCorrectionSizes &&
      blackwell(m.gpu) && m.x86 && tuning_era(m.env.version).nvls_tree_correction_blackwell_x86)
    bw *= kTreeCorrection[std::size_t(p)][std::size_t(log_size)];
  if (a == NcclAlgorithm::Ring && p == kSimple && m.nodes > 1 && c == Collective::AllReduce &&
      message.count() / (std::int64_t(m.channels) * m.ranks) >= kRingPlateauMinBytes)
    lat *= ampere_or_newer(m.gpu) ? kRingPlateau : kRingPlateauPreAmpere;
  const double time_us = lat + double(message.count()) / (1000.0 * bw);
  return NcclEstimate{a, kNcclProtocolOrder[std::size_t(p)], Duration::from_us(lat),
                      Bandwidth::from_bytes_per_second(bw * 1e9), Duration::from_us(time_us)};
}
}  // namespace

std::vector<NcclEstimate> nccl_estimates(const NcclModel& m, Collective c, Bytes message) {
  std::vector<NcclEstimate> out;
  if (m.ranks < 2) return out;
  for (int ai = 0; ai < kNcclAlgorithmCount; ++ai) {
    const auto a = NcclAlgorithm(ai);
    for (int p = 0; p < kNcclProtocols; ++p)
      if (algorithm_applies(m, c, a, p) && pair_enabled(m, c, a, p))
        if (const auto row = estimate(m, c, message, a, p)) out.push_back(*row);
  }
  if (!out.empty() || !ring_restored(m, c)) return out;
  for (int p = 0; p < kNcclProtocols; ++p)
    if (const auto row = estimate(m, c, message, NcclAlgorithm::Ring, p)) out.push_back(*row);
  return out;
}

bool nccl_runs_payload(NcclAlgorithm a, const Payload& payload) {
  const bool in_network = ringlab_algorithm(a) == Algorithm::InNetwork;
  return !in_network || payload.compression.kind == CompressionKind::None;
}

namespace {

/// NcclChoice::floor: NVLS and NVLS-Tree at the newest release's model of the switch's rate (its
/// nvlsEfficiency measures the same silicon whatever release runs on it), the tree and the ring under
/// LL at the model's own, nothing for the rest.
Bandwidth floor_bandwidth(const NcclModel& m, Collective c, const NcclEstimate& chosen) {
  switch (chosen.algorithm) {
    case NcclAlgorithm::Tree:
    case NcclAlgorithm::Pat: return chosen.bandwidth;  // both run below their links' rate by NCCL's model
    case NcclAlgorithm::Ring:
      // NCCL's model runs a ring's LL at a share of its channels' bandwidth (1/4 or 1/3 before 2.23,
      // 1/2 from it) and at most llMaxBw (tuning.cc); the flows carry LL lines at their wire
      // efficiency (8 data bytes of 16) without that cap. LL128 (0.92 against 120/128) and Simple
      // keep the links' time.
      return chosen.protocol == Protocol::LL ? chosen.bandwidth : Bandwidth{};
    case NcclAlgorithm::Nvls:
    case NcclAlgorithm::NvlsTree: {
      NcclModel newest = m;
      newest.env.version = 0;
      const double gbps = model_bandwidth(newest, c, chosen.algorithm, kSimple);
      return Bandwidth::from_bytes_per_second(gbps * 1e9);
    }
    case NcclAlgorithm::CollNetDirect:
    case NcclAlgorithm::CollNetChain: return Bandwidth{};
  }
  return Bandwidth{};
}

}  // namespace

namespace {
// NCCL's names (src/init.cc ncclFuncStr, ncclAlgoStr, ncclProtoStr; src/collectives.cc
// ncclAlgoToString, ncclProtoToString), in NCCL's order.
constexpr std::array<Collective, 5> kCollectivesInNcclOrder{Collective::Broadcast, Collective::Reduce, Collective::AllGather,
                                                            Collective::ReduceScatter, Collective::AllReduce};
constexpr std::string_view kNcclAlgoTableNames[] = {"Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"};
constexpr std::string_view kNcclProtoTableNames[] = {"LL", "LL128", "Simple"};

/// One cell of the table: latency and bandwidth, or 0/0 where the model has no such pair.
std::pair<double, double> table_cell(const NcclModel& m, Collective c, NcclAlgorithm a, int p) {
  if (!algorithm_applies(m, c, a, p)) return {0.0, 0.0};
  const double bw = model_bandwidth(m, c, a, p);
  if (bw <= 0) return {0.0, 0.0};
  const bool on = pair_enabled(m, c, a, p) || (a == NcclAlgorithm::Ring && ring_restored(m, c));
  return {model_latency(m, c, a, p), on ? bw : 0.0};
}

template <class... Args>
void append_format(std::string& line, const char* format, Args... args) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, args...);
  line += buffer;
}
}  // namespace

std::string_view nccl_log_name(Collective c) {
  switch (c) {
    case Collective::AllReduce: return "AllReduce";
    case Collective::ReduceScatter: return "ReduceScatter";
    case Collective::AllGather: return "AllGather";
    case Collective::Broadcast: return "Broadcast";
    case Collective::Reduce: return "Reduce";
  }
  return "Invalid";
}

std::vector<std::string> nccl_tuning_table(const NcclModel& m) {
  std::vector<std::string> lines;
  // NCCL_NUM_ALGORITHMS: 7 from 2.23 (PAT), 6 before.
  const int algorithms = tuning_era(m.env.version).pat_efficiency == 0.0 ? kNcclAlgorithmCount - 1 : kNcclAlgorithmCount;
  for (int block = 0; block < (algorithms + 2) / 3; ++block) {
    const int first = block * 3, last = std::min(algorithms, first + 3);
    std::string line = "  Algorithm   |";
    for (int a = first; a < last; ++a) append_format(line, " %14s   %14s   %14s |", "", kNcclAlgoTableNames[a].data(), "");
    lines.push_back(line);
    line = "  Protocol    |";
    for (int a = first; a < first + 3; ++a)  // NCCL prints three blocks of protocols even for a short last block
      for (int p = 0; p < kNcclProtocols; ++p) append_format(line, " %14s |", kNcclProtoTableNames[p].data());
    lines.push_back(line);
    for (std::size_t f = 0; f < kCollectivesInNcclOrder.size(); ++f) {
      line.clear();
      append_format(line, "%13s |", nccl_log_name(kCollectivesInNcclOrder[f]).data());
      for (int a = first; a < last; ++a)
        for (int p = 0; p < kNcclProtocols; ++p) {
          const auto [lat, bw] = table_cell(m, kCollectivesInNcclOrder[f], NcclAlgorithm(a), p);
          append_format(line, "%8.1f/%6.1f |", lat, bw);
        }
      lines.push_back(line);
    }
  }
  return lines;
}

// NCCL_NVLS_NCHANNELS' default: the CTAs that run NVLS and NVLS-Tree work (src/transport/nvls.cc: 16
// up to 2.25; from 2.26 NVLS_NCHANNELS_SM90 16 and NVLS_NCHANNELS_SM100 32).
constexpr int kNvlsCtas = 16;
constexpr int kNvlsCtasSm100 = 32;
constexpr int kNvlsCtasSm100MinVersion = 22600;

std::string nccl_model_summary(const NcclModel& m) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1);
  const int sm = compute_capability(m.gpu);
  if (m.nodes > 0 && m.ranks % m.nodes == 0) out << m.nodes << (m.nodes == 1 ? " node x " : " nodes x ") << m.ranks / m.nodes;
  else out << m.ranks << " ranks on " << m.nodes << " nodes,";
  out << ' ' << to_string(m.gpu) << " (sm " << sm << "), ";
  if (m.nvlink && m.nvlinks > 0) out << "NVLink " << nccl_intra_gbytes(m) << " GB/s per GPU" << (m.nvswitch ? " through NVSwitch" : "");
  else out << "PCIe " << nccl_intra_gbytes(m) << " GB/s per GPU";
  if (m.nodes > 1)
    out << ", " << m.nics << (m.nics == 1 ? " NIC " : " NICs ") << gbytes(m.inter) << " GB/s out of each node"
        << (m.efa ? " (EFA)" : "");
  if (m.net_path > NcclPath::Pxb) out << ", GPU to NIC " << to_string(m.net_path);
  out << ", " << (m.cpu_vendor ? std::string(to_string(*m.cpu_vendor)) + " CPUs" : std::string("mixed CPU vendors"));
  out << ", " << m.channels << " channels";
  if (m.nvls) out << ", NVLS";
  if (m.nvls_tree) out << ", NVLS-Tree";
  if (m.collnet) out << ", CollNet";
  out << ", tuning tables of " << tuning_era(m.env.version).name;
  if (const NcclLatencyFactors& f = m.env.latency_factors; f != NcclLatencyFactors{})
    out << std::setprecision(2) << ", latencies calibrated (base x" << f.base << ", intra-node hops x" << f.intra
        << ", network hops x" << f.net << ")";
  return out.str();
}

std::optional<NcclModel> nccl_cluster_model(const Topology& cluster, std::span<const DeviceId> ranks,
                                            const NcclEnv& env) {
  std::optional<Topology> view;
  try {
    view = nccl_view(cluster, ranks, env);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
  return nccl_model(view ? *view : cluster, ranks, env);
}

std::string nccl_model_summary(const Topology& cluster, std::span<const DeviceId> ranks, const NcclEnv& env) {
  const std::optional<NcclModel> model = nccl_cluster_model(cluster, ranks, env);
  return model ? nccl_model_summary(*model) : "";
}

namespace {
// The channels one collective call runs on (src/enqueue.cc topoGetAlgoInfo, getChannnelThreadInfo in
// 2.20 and 2.21, v2.18.1-v2.30.7): from comm->nChannels NCCL drops one channel at a time while the
// bytes are fewer than channels x threads x the protocol's bytes per thread. Then the planner
// (scheduleCollTasksToPlan) spreads the call over those channels, so a small call may run on fewer
// still; NCCL's tuning log prints the result (channel{Lo..Hi}):
// - 2.18 and 2.19: on all of them.
// - 2.20 and 2.21 (addCBDCollToPlan, "channel-based distribution"): each channel in turn takes
//   ceil(bytes / channels) rounded up to 16 B (maxBytesPerChannel), then up to a multiple of the
//   protocol's alignment (computeCollAlignCount), until the bytes run out.
// - From 2.22: cells of at least MinTrafficPerChannel of traffic (512 B, and cells of 16 B, in 2.22;
//   16 KiB from 2.23.4, 32 KiB from 2.29.2), spread over the channels.
constexpr std::int64_t kLlThreadThreshold = 8;       // NCCL_LL_THREAD_THRESHOLD (src/include/comm.h)
constexpr std::int64_t kLl128ThreadThreshold = 8;    // NCCL_LL128_THREAD_THRESHOLD
constexpr std::int64_t kSimpleThreadThreshold = 64;  // NCCL_SIMPLE_THREAD_THRESHOLD
constexpr std::int64_t kCollNetThreadThreshold = 512;  // tuning.cc: threadThresholds[COLLNET_CHAIN][SIMPLE]
constexpr std::int64_t kLlMaxThreads = 512;          // NCCL_LL_MAX_NTHREADS (src/include/device.h)
constexpr std::int64_t kLl128MaxThreads = 640;       // NCCL_LL128_MAX_NTHREADS
constexpr std::int64_t kSimpleMaxThreads = 512;      // NCCL_SIMPLE_MAX_NTHREADS
constexpr std::int64_t kMaxThreads = 640;            // NCCL_MAX_NTHREADS: CollNet Chain's Simple
constexpr std::int64_t kSlowRingSimpleThreads = 256;  // tuning.cc simpleDefaultThreads when the ring is slow
constexpr double kPciBwGbytes = 12.0;                // PCI_BW (src/graph/topo.h): "PCI Gen3 x16"
constexpr int kCbdPlannerVersion = 22000;            // v2.20.3: addCBDCollToPlan
constexpr int kCellPlannerVersion222 = 22200;        // v2.22.3: cells of 16 B, MinTrafficPerChannel 512 B
constexpr int kCellPlannerVersion = 22304;           // v2.23.4: cells of MinTrafficPerChannel 16 KiB
constexpr int kLlCellTrafficVersion = 22602;         // v2.26.2: LL cells count 4 x their traffic
constexpr int kEvenTrafficVersion = 22902;           // v2.29.2: 32 KiB, trafficPerChannel = traffic / channels
constexpr int kNvlsCollnetMinChannelsVersion = 22803;  // v2.28.3: NVLS across nodes on min(nvlsChannels, nChannels)
constexpr std::int64_t kMinTrafficPerChannel222 = 512;
constexpr std::int64_t kCellBytes222 = 16;
constexpr std::int64_t kMinTrafficPerChannel = 16 << 10;
constexpr std::int64_t kMinTrafficPerChannel229 = 32 << 10;
// computeCollAlignCount's units in bytes (src/include/enqueue.h, v2.20.3 and v2.21.5).
constexpr std::int64_t kSimpleAlignment = 32 * 8 * 16;  // NCCL_SIMPLE_ALIGNMENT: WARP_SIZE x 8 x 16
constexpr std::int64_t kLl128AlignmentPerWarp = 480;    // NCCL_LL128_ALIGNMENT_PER_WARP
constexpr std::int64_t kLlAlignmentPerThread = 8;       // NCCL_LL_ALIGNMENT_PER_THREAD: sizeof(uint64_t)
constexpr std::int64_t kWarpSize = 32;
constexpr std::int64_t kMinWarps = 3;  // getChannnelThreadInfo: "nt/WARP_SIZE < 3 ? 3*WARP_SIZE : nt"

bool from_release(const NcclModel& m, int version) { return m.env.version <= 0 || m.env.version >= version; }
std::int64_t div_up(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
std::int64_t round_up16(std::int64_t a) { return div_up(a, 16) * 16; }

/// ncclFuncTrafficPerByte (src/enqueue.cc).
std::int64_t traffic_per_byte(Collective c, int ranks) {
  if (c == Collective::AllReduce) return 2;
  if (c == Collective::AllGather || c == Collective::ReduceScatter) return ranks;
  return 1;
}

/// A call's comm->maxThreads and threadThresholds for (algorithm, protocol).
struct ThreadRule {
  std::int64_t threads;
  std::int64_t threshold;
};

ThreadRule thread_rule(const NcclModel& m, NcclAlgorithm a, int p) {
  std::int64_t threads = p == kLL ? kLlMaxThreads : p == kLL128 ? kLl128MaxThreads : 0;
  std::int64_t threshold = p == kLL ? kLlThreadThreshold : p == kLL128 ? kLl128ThreadThreshold : kSimpleThreadThreshold;
  if (p == kSimple) {
    // The ring graph's bwIntra x nChannels, as ringlab approximates it.
    const double ring_gbytes = m.nodes > 1 ? std::min(nccl_intra_gbytes(m), gbytes(m.inter)) : nccl_intra_gbytes(m);
    if (a == NcclAlgorithm::Ring) threads = ring_gbytes <= kPciBwGbytes ? kSlowRingSimpleThreads : kSimpleMaxThreads;
    if (a == NcclAlgorithm::Tree) threads = kSimpleMaxThreads;
    if (a == NcclAlgorithm::CollNetChain) threads = kMaxThreads, threshold = kCollNetThreadThreshold;
    // PAT: comm->maxThreads[PAT] is never set (0), so the loop keeps every channel.
  }
  if (a == NcclAlgorithm::Ring && p == kLL) threshold *= m.ranks;
  return {threads, threshold};
}

/// topoGetAlgoInfo's "Ring/Tree channel tuning": the call's nMaxChannels.
int threshold_channels(const NcclModel& m, NcclAlgorithm a, int p, std::int64_t bytes) {
  const ThreadRule rule = thread_rule(m, a, p);
  int nc = m.channels;
  while (nc >= 2 && bytes < std::int64_t(nc) * rule.threads * rule.threshold) --nc;
  return nc;
}

/// 2.20 and 2.21's addCBDCollToPlan for one call of `count_bytes` (per rank for AllGather and
/// ReduceScatter; `bytes` is the whole buffer, as the thresholds count it) on `nc` channels.
int cbd_channels(const NcclModel& m, NcclAlgorithm a, int p, std::int64_t count_bytes, std::int64_t bytes, int nc) {
  // getChannnelThreadInfo: the threads halve while the call is too small for them, down to 3 warps.
  const ThreadRule rule = thread_rule(m, a, p);
  std::int64_t nt = rule.threads;
  while (bytes < nc * nt * rule.threshold && nt % 128 == 0) nt /= 2;
  nt = std::max(nt, kMinWarps * kWarpSize);
  const std::int64_t align = p == kSimple ? kSimpleAlignment
                             : p == kLL128 ? kLl128AlignmentPerWarp * (nt / kWarpSize)
                                           : kLlAlignmentPerThread * nt;
  const std::int64_t per_channel = div_up(round_up16(div_up(count_bytes, nc)), align) * align;
  return int(std::min<std::int64_t>(nc, div_up(count_bytes, per_channel)));
}

/// scheduleCollTasksToPlan for one call on `nc` channels of `all` (v2.22.3-v2.30.7): the channels
/// its cells fill (channelHi - channelLo + 1).
int planned_channels(const NcclModel& m, Collective c, int p, std::int64_t count_bytes, int nc, int all) {
  const bool v222 = !from_release(m, kCellPlannerVersion);
  const bool even = from_release(m, kEvenTrafficVersion);
  const std::int64_t min_traffic = v222 ? kMinTrafficPerChannel222 : even ? kMinTrafficPerChannel229 : kMinTrafficPerChannel;
  const std::int64_t per_byte = traffic_per_byte(c, m.ranks);
  const std::int64_t traffic = std::max(min_traffic, count_bytes * per_byte);
  const std::int64_t per_channel = even ? round_up16(traffic / nc) : std::max(min_traffic, traffic / nc);
  const std::int64_t cell_per_byte = per_byte * (p == kLL && from_release(m, kLlCellTrafficVersion) ? 4 : 1);
  const std::int64_t cell = v222 ? kCellBytes222 : round_up16(div_up(min_traffic, cell_per_byte));
  const std::int64_t cells = div_up(count_bytes, cell);
  const std::int64_t traffic_per_cell = cell * cell_per_byte;
  std::int64_t cells_per_channel = std::min(cells, div_up(per_channel, traffic_per_cell));
  const std::int64_t lo = all == 1 ? cells : cells_per_channel;  // the last channel takes everything
  std::int64_t mid = (cells - lo) / cells_per_channel;
  std::int64_t hi = (cells - lo) % cells_per_channel;
  if (all < (lo != 0) + mid + (hi != 0)) {  // overflowed the available channels
    mid = all - 2;
    cells_per_channel = (cells - lo) / (mid + 1);
    hi = cells_per_channel + (cells - lo) % (mid + 1);
  }
  if (hi == 0 && mid != 0) hi = cells_per_channel, --mid;
  return int((lo != 0) + mid + (hi != 0));
}

/// The release's planner for one call of `message` on `nc` of the kind's `all` channels.
int planner_channels(const NcclModel& m, Collective c, NcclAlgorithm a, int p, Bytes message, int nc, int all) {
  if (!from_release(m, kCbdPlannerVersion)) return nc;
  // The planner's count is per rank for AllGather and ReduceScatter, whose `message` is the whole
  // buffer. Cells are multiples of 16 bytes and the alignments of 8, so the element size (at most 8
  // bytes) does not change the split.
  std::int64_t count_bytes = message.count();
  if (c == Collective::AllGather || c == Collective::ReduceScatter) count_bytes /= std::max(1, m.ranks);
  count_bytes = std::max<std::int64_t>(1, count_bytes);
  if (!from_release(m, kCellPlannerVersion222)) return cbd_channels(m, a, p, count_bytes, message.count(), nc);
  return planned_channels(m, c, p, count_bytes, nc, all);
}
}  // namespace

int nccl_call_channels(const NcclModel& m, Collective c, NcclAlgorithm a, Protocol protocol, Bytes message) {
  const int p = nccl_protocol(protocol);
  if (a == NcclAlgorithm::Nvls || a == NcclAlgorithm::NvlsTree) return nvls_channels(m);
  if (a == NcclAlgorithm::CollNetDirect || message.count() <= 0) return m.channels;
  const int nc = threshold_channels(m, a, p, message.count());
  // CollNet tasks skip the planner (task->isCollnet; 2.20 and 2.21: addCollnetCollToPlan).
  if (a == NcclAlgorithm::CollNetChain) return nc;
  return planner_channels(m, c, a, p, message, nc, m.channels);
}

namespace {
/// NcclChoice::logged_channels for a choice of `a` on `channels`.
int logged_channels(const NcclModel& m, Collective c, Bytes message, NcclAlgorithm a, int channels) {
  if (a != NcclAlgorithm::Nvls && a != NcclAlgorithm::NvlsTree) return channels;
  // The NVLS CTAs; the planner splits a call over them, but for NVLS across nodes (a CollNet task).
  const bool sm100 = blackwell(m.gpu) && (m.env.version == 0 || m.env.version >= kNvlsCtasSm100MinVersion);
  const int ctas = sm100 ? kNvlsCtasSm100 : kNvlsCtas;
  // NVLS across nodes: from 2.28.3 no more CTAs than comm->nChannels (topoGetAlgoInfo).
  if (a == NcclAlgorithm::Nvls && m.nodes > 1)
    return from_release(m, kNvlsCollnetMinChannelsVersion) ? std::min(ctas, m.channels) : ctas;
  return planner_channels(m, c, a, kSimple, message, ctas, ctas);
}
}  // namespace

std::string nccl_choice_line(const NcclModel& m, Collective c, Bytes message, const NcclChoice& choice) {
  const int channels = choice.logged_channels;
  std::int64_t bytes = message.count();
  if (c == Collective::AllGather || c == Collective::ReduceScatter) bytes /= std::max(1, m.ranks);
  std::string line = std::string(nccl_log_name(c)) + ": " + std::to_string(bytes) + " Bytes -> Algo " +
                     std::string(nccl_log_name(choice.nccl_algorithm)) + " proto " +
                     std::string(nccl_log_name(choice.protocol));
  return line + " channel{Lo..Hi}={0.." + std::to_string(std::max(1, channels) - 1) + "}";
}

NcclChoice nccl_choose(const NcclModel& m, Collective c, Bytes message, const Payload& payload) {
  NcclChoice choice;
  choice.channels = m.channels;
  choice.logged_channels = m.channels;
  choice.chunk = kStepBytes[kSimple];
  choice.name = "ring/simple";
  std::vector<NcclEstimate> all = nccl_estimates(m, c, message);
  std::erase_if(all, [&](const NcclEstimate& e) { return !nccl_runs_payload(e.algorithm, payload); });
  if (all.empty()) {
    if (m.ranks >= 2 && !m.env.settings.empty())
      choice.unavailable = "NCCL would fail: no algorithm/protocol available for " + std::string(to_string(c)) +
                           " under the NCCL settings given";
    return choice;
  }
  const auto best = std::min_element(all.begin(), all.end(),
                                     [](const NcclEstimate& x, const NcclEstimate& y) { return x.time < y.time; });
  const int p = nccl_protocol(best->protocol);
  choice.algorithm = ringlab_algorithm(best->algorithm);
  choice.nccl_algorithm = best->algorithm;
  choice.channels = nccl_call_channels(m, c, best->algorithm, best->protocol, message);
  choice.logged_channels = logged_channels(m, c, message, best->algorithm, choice.channels);
  choice.protocol = best->protocol;
  choice.chunk = p == kSimple ? Bytes{m.env.buffer.count() / kNcclSteps} : kStepBytes[std::size_t(p)];
  choice.predicted = best->time;
  choice.latency = best->latency;
  choice.bandwidth = best->bandwidth;
  choice.floor = floor_bandwidth(m, c, *best);
  const int hw = m.nodes > 1 ? kHwNet : hw_intra(m);
  choice.step_latency = Duration::from_us(hop_latency(m, tuning_era(m.env.version), hw, best->algorithm, p));
  choice.name = std::string(to_string(best->algorithm)) + "/" + std::string(to_string(best->protocol));
  return choice;
}

NcclChoice nccl_choose(const Topology& topology, std::span<const DeviceId> ranks, Collective collective,
                       Bytes message, const Payload& payload, const NcclEnv& env) {
  return nccl_choose(nccl_model(topology, ranks, env), collective, message, payload);
}

}  // namespace ringlab::sim
