// NCCL's environment settings as input to the nccl algorithm: the variables that change what NCCL
// runs (algorithm, protocol, channels, buffers, NVLS, CollNet), parsed as NCCL parses them
// (src/graph/tuning.cc parseList: comma lists, case-insensitive, a leading '^' excludes), with
// everything ringlab does not model either refused or reported as a warning, never dropped silently.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ringlab/sim/calibration.hpp"
#include "ringlab/sim/schedule.hpp"
#include "ringlab/topology/units.hpp"

namespace ringlab::sim {

/// NCCL's algorithms as its tuning model knows them, in NCCL's order (NCCL_ALGO_*, which also
/// breaks ties). NvlsTree: NVLS inside each node, a tree between nodes per NVLS head.
enum class NcclAlgorithm : std::uint8_t { Tree, Ring, CollNetDirect, CollNetChain, Nvls, NvlsTree, Pat };
inline constexpr int kNcclAlgorithmCount = 7;
std::string_view to_string(NcclAlgorithm a);
/// The names NCCL's log lines give (src/collectives.cc ncclAlgoToString, ncclProtoToString):
/// "TREE", "RING", "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS", "NVLS_TREE", "PAT"; "LL", "LL128", "SIMPLE".
std::string_view nccl_log_name(NcclAlgorithm a);
std::string_view nccl_log_name(Protocol p);
/// NCCL's protocols in the order of their indices (NCCL_PROTO_LL, NCCL_PROTO_LL128, NCCL_PROTO_SIMPLE).
inline constexpr std::array<Protocol, 3> kNcclProtocolOrder{Protocol::LL, Protocol::LL128, Protocol::Simple};

/// NCCL's path types between two devices of a node, nearest first (src/graph/topo.h PATH_* and
/// topoPathTypeStr): the same device, NVLink, NVLink through another GPU, Grace's C2C, one PCIe
/// switch, several PCIe switches, PCIe to Grace, PCIe through another GPU (PXN), a CPU's host bridge,
/// across CPU sockets. ringlab's own paths are Loc, Nvl, Pix, Pxb, Phb or Sys; the rest are parsed
/// so that NCCL_P2P_LEVEL and NCCL_NET_GDR_LEVEL keep NCCL's order.
enum class NcclPath : std::uint8_t { Loc, Nvl, Nvb, C2c, Pix, Pxb, P2c, Pxn, Phb, Sys };
std::string_view to_string(NcclPath p);

/// NCCL's enable states (tuning.cc algoEnable/protoEnable): 2 = NCCL's default decides.
enum class NcclEnable : std::uint8_t { Off = 0, On = 1, Default = 2 };

/// NCCL_IB_HCA as NCCL parses it (src/misc/utils.cc parseStringList/matchIfList, net_ib.cc): a
/// comma-separated list of name prefixes, each with an optional ":port"; a leading '^' keeps the NICs
/// that do NOT match, a leading '=' (after any '^') asks for exact names. ringlab matches the NIC's
/// device name after its last '/' ("nic3" for "node0/nic3", "mlx5_0" from an NCCL XML import); its
/// NICs have one port, port 1. Empty: every NIC.
struct NicFilter {
  struct Entry {
    std::string prefix;
    int port = -1;  ///< -1: any port
    bool operator==(const Entry&) const = default;
  };
  std::vector<Entry> entries;
  bool exclude = false;  ///< '^'
  bool exact = false;    ///< '='
  std::string text;      ///< the value as given, for messages

  bool empty() const { return entries.empty(); }
  /// Whether NCCL would use the NIC named `device_name` (a full device name such as "node0/nic3").
  bool selects(std::string_view device_name) const;
  bool operator==(const NicFilter&) const = default;
};

/// NCCL_ALGO's setting of each algorithm (NcclAlgorithm order), NCCL_PROTO's of each protocol
/// (indexed by Protocol: Simple, LL128, LL).
using NcclAlgorithmSet = std::array<NcclEnable, kNcclAlgorithmCount>;
using NcclProtocolSet = std::array<NcclEnable, 3>;
/// NCCL's collective functions (ncclFunc_t up to AllReduce; ncclFuncStr names the prefixes of
/// per-collective NCCL_ALGO/NCCL_PROTO entries): Broadcast, Reduce, AllGather, ReduceScatter, AllReduce.
inline constexpr int kNcclFunctionCount = 5;
int nccl_function(Collective c);

/// The NCCL environment of a run. Defaults are NCCL's own.
struct NcclEnv {
  NcclAlgorithmSet algorithms{NcclEnable::Default, NcclEnable::Default, NcclEnable::Default, NcclEnable::Default,
                              NcclEnable::Default, NcclEnable::Default, NcclEnable::Default};
  NcclProtocolSet protocols{NcclEnable::Default, NcclEnable::Default, NcclEnable::Default};
  /// Per-collective entries of NCCL_ALGO and NCCL_PROTO (NCCL 2.24 and later parse
  /// "ring;allreduce:tree,ring": the first list for every collective, a prefixed one for its own), by
  /// nccl_function(): each replaces `algorithms` / `protocols` for its collective.
  std::array<std::optional<NcclAlgorithmSet>, kNcclFunctionCount> function_algorithms;
  std::array<std::optional<NcclProtocolSet>, kNcclFunctionCount> function_protocols;
  /// The settings in force for collective `c`.
  const NcclAlgorithmSet& algorithms_for(Collective c) const;
  const NcclProtocolSet& protocols_for(Collective c) const;
  int min_channels = 0;                ///< NCCL_MIN_NCHANNELS; 0 = NCCL's own
  int max_channels = 0;                ///< NCCL_MAX_NCHANNELS; 0 = NCCL's own
  /// NCCL_MIN_CTAS / NCCL_MAX_CTAS (the communicator config's minCTAs/maxCTAs, NCCL 2.17 and later):
  /// bounds on the channels with NCCL_MIN/MAX_NCHANNELS (connect.cc ncclTopoPostset); 0 = unset.
  int min_ctas = 0;
  int max_ctas = 0;
  bool nvls = true;                    ///< NCCL_NVLS_ENABLE (default 2: on where supported)
  bool collnet = false;                ///< NCCL_COLLNET_ENABLE (default 0)
  Bytes buffer = Bytes{4 << 20};       ///< NCCL_BUFFSIZE: the Simple protocol's buffer (8 steps)
  /// NCCL's version as NCCL_VERSION_CODE (2.20.3 = 22003): picks the tuning tables of that release
  /// (ringlab's key "version", not an NCCL variable). 0 = the newest tables ringlab has (2.30).
  int version = 0;
  /// Not an NCCL variable either: a calibration's factors on NCCL's latency table
  /// (Calibration::nccl_latency, set by the run from its calibration); all 1: NCCL's own.
  NcclLatencyFactors latency_factors;
  NicFilter ib_hca;                    ///< NCCL_IB_HCA: the NICs NCCL may use
  /// Transports (src/graph/paths.cc, src/transport/shm.cc). NCCL_P2P_LEVEL: the farthest path GPUs
  /// of a node talk over directly; unset: NCCL's default (PXB, src/graph/paths.cc ncclTopoCheckP2p).
  /// NCCL_P2P_DISABLE=1 (p2p false) overrides it with LOC: no P2P at all, NVLink included.
  std::optional<NcclPath> p2p_level;
  bool p2p = true;                     ///< NCCL_P2P_DISABLE=0
  bool shm = true;                     ///< NCCL_SHM_DISABLE=0: GPUs without P2P go through host memory
  bool ib = true;                      ///< NCCL_IB_DISABLE=0; 1: NCCL's socket transport on every NIC
  /// NCCL_SOCKET_NTHREADS and NCCL_NSOCKS_PERTHREAD (src/transport/net_socket.cc): the socket
  /// transport's helper threads and TCP streams per thread; -2: NCCL's auto-detection by the NIC's
  /// vendor (SocketNicVendor).
  int socket_threads = -2;
  int socks_per_thread = -2;
  /// NCCL_NET_GDR_LEVEL: the farthest path between a GPU and its NIC over which the NIC reads and
  /// writes GPU memory (GPUDirect RDMA); unset: NCCL's default (PXB, ncclTopoCheckGdr).
  std::optional<NcclPath> gdr_level;
  /// NCCL_NET_GDR_READ: 1 sends with GPUDirect too, 0 never; -2 (NCCL's default): sends use it from
  /// compute capability 8.0, or on older GPUs that have an NVLink peer (ncclTopoCheckGdr).
  int gdr_read = -2;
  /// NCCL_CROSS_NIC (default 2): 0 keeps each ring channel on one NIC in and out of every node
  /// (and so on one rail between nodes); 1 and 2 let it leave a node by another NIC.
  int cross_nic = 2;
  /// NCCL_PXN_DISABLE=0: a GPU whose path to a NIC goes through a CPU sends through the NIC's local
  /// GPU over NVLink (PXN, src/graph/paths.cc ncclTopoComputePaths).
  bool pxn = true;
  /// NCCL_PAT_ENABLE: PAT for AllGather and ReduceScatter (Default: with one GPU per node, from 2.23).
  NcclEnable pat = NcclEnable::Default;
  /// NCCL_MNNVL_ENABLE: multi-node NVLink (Default: on where hosts share an NVLink fabric, from 2.20).
  NcclEnable mnnvl = NcclEnable::Default;
  /// NCCL_DEBUG and NCCL_DEBUG_SUBSYS as src/debug.cc reads them: NCCL logs its tuning (the table at
  /// init and the algorithm of every call) at level INFO or above (ABORT, TRACE) when TUNING is among
  /// the subsystems (default INIT,BOOTSTRAP,ENV). ringlab then prints the same lines from its model
  /// (nccl_tuning_table(), nccl_choice_line()); nothing else of NCCL's log is modelled.
  bool debug_tuning = false;
  std::vector<std::string> settings;   ///< NAME=VALUE as given, in order (for reports)

  bool operator==(const NcclEnv&) const = default;
};

/// The NIC vendor NCCL's socket transport reads (/sys/class/net/IF/device/vendor) to pick its thread
/// and stream counts where the environment leaves them: Amazon's (0x1d0f: ENA and EFA) 2 threads of
/// 8 streams, Google's (0x1ae0: gVNIC) 4 threads of 1, any other none and 1.
enum class SocketNicVendor : std::uint8_t { Other, Aws, Gcp };

/// The TCP streams one connection of NCCL's socket transport moves its data on
/// (ncclNetSocketGetNsockNthread, v2.19-2.28): threads x streams per thread, each the environment's
/// or else the vendor's default, at most MAX_SOCKETS (64) as NCCL trims it, or 1 when that is 0 (the
/// connection's control socket carries the data).
int nccl_socket_streams(const NcclEnv& env, SocketNicVendor vendor = SocketNicVendor::Other);

/// Applies NAME=VALUE to `env` ("version" = NCCL's release, "2.20.3" or "2.20"). Throws std::invalid_argument with a message naming what was
/// expected for a bad value, for a variable that is not NCCL's, and for a setting that changes what
/// NCCL runs in a way ringlab does not model (NCCL_P2P_DISABLE=1, NCCL_NET_GDR_LEVEL, ...). Returns a
/// warning ("" when none) for variables that do not change the model (NCCL_DEBUG, ...) or that
/// ringlab accepts with a caveat.
std::string set_nccl_env(NcclEnv& env, std::string_view name, std::string_view value);

/// "NAME=VALUE" split at the first '='; throws std::invalid_argument when there is none.
std::pair<std::string, std::string> split_nccl_setting(std::string_view setting);

/// Applies a scenario's "nccl" section ({"NCCL_ALGO": "Ring", "NCCL_BUFFSIZE": 8388608, ...}; values
/// are strings or integers, as the environment variable's value) over `env`, then each NAME=VALUE of
/// `settings` (--nccl-env) over that. Throws InputError naming `file` and /nccl/NAME (or
/// "--nccl-env") and what was expected. Warnings (settings ringlab accepts but does not model) are
/// appended to `warnings`.
NcclEnv nccl_env_from(const nlohmann::json& section, const std::string& file, const std::vector<std::string>& settings,
                      std::vector<std::string>& warnings);

}  // namespace ringlab::sim
