// NCCL's transports between two ranks, and the way their bytes go (NCCL src/graph/paths.cc
// ncclTopoComputePaths, ncclTopoCheckP2p, ncclTopoCheckGdr; src/transport/{p2p,shm,net}.cc):
// - P2P: GPUs of one node talk directly when their path is no farther than NCCL_P2P_LEVEL (default
//   PXB: NVLink, or PCIe switches without a CPU between them) and they can map each other's memory
//   (over NVLink always; over PCIe when the GPU's driver allows it, GpuSpec::pcie_p2p);
// - SHM: the other GPUs of a node go through host memory: NCCL diverts their path through the CPU
//   local to the receiver (addInterStep(CPU, receiver's CPU)), so the bytes go up the sender's PCIe
//   to that CPU and down the receiver's;
// - NET: GPUs of different nodes, and GPUs of one node that have neither P2P nor SHM (through a NIC's
//   loopback), go through NICs. A NIC reads and writes GPU memory directly (GPUDirect RDMA) when the
//   GPU-NIC path is no farther than NCCL_NET_GDR_LEVEL (default PXB) and, for sends, the GPU is
//   compute capability 8.0 or newer or has an NVLink peer (NCCL_NET_GDR_READ's default); NCCL's
//   socket transport (TCP links, or NCCL_IB_DISABLE=1) never does. A side without it stages through its GPU's local CPU memory.
//   A connection enters by the receiving GPU's nearest NIC (NCCL's graph pairs a channel's NET with the
//   GPU nearest it), and a sender whose path to its NIC goes through a CPU relays through that NIC's
//   own GPU over NVLink where NCCL's PXN rule allows (NCCL_PXN_DISABLE=0). Under NCCL_CROSS_NIC=0 the
//   connection leaves by the sender's NIC of the receiving NIC's rail (NIC i is rail i).
// - A sender's path through one Intel CPU (PATH_PHB: SHM between GPUs of that CPU, a NET send through
//   its host memory, P2P at NCCL_P2P_LEVEL PHB) takes 1.2x its bytes on each PCIe link of the path, as
//   NCCL's search charges it (INTEL_P2P_OVERHEAD, "P2P inefficiency through Intel CPU RC"), on hosts
//   whose CPU vendor (Host::cpu_vendor) is Intel.
// - NCCL's socket transport moves a connection's bytes on nccl_socket_streams() TCP streams
//   (src/transport/net_socket.cc; one by default), each no faster than one TCP stream between two
//   hosts runs: 25 Gb/s, the middle of ESnet's 15-35 Gb/s for a single stream on a 100G host
//   (fasterdata.es.net, "Performance Expectations for a 100G Host", 2024-01-17), whatever the NIC.
// The simulator routes a transfer through the waypoints connect() returns, at its PCIe cost
// (SimOptions::detours).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringlab/sim/nccl_env.hpp"
#include "ringlab/topology/units.hpp"
#include "ringlab/topology/routing.hpp"
#include "ringlab/topology/topology.hpp"

namespace ringlab::sim {

enum class NcclTransport : std::uint8_t { P2p, Shm, Net };
std::string_view to_string(NcclTransport t);

/// How NCCL connects one ordered pair of ranks.
struct NcclConnection {
  NcclTransport transport = NcclTransport::P2p;
  NcclPath path = NcclPath::Loc;   ///< P2P/SHM: the pair's direct path; NET: not set
  bool send_gdr = false;           ///< NET: the sending NIC reads GPU memory directly
  bool recv_gdr = false;           ///< NET: the receiving NIC writes GPU memory directly
  std::vector<DeviceId> waypoints; ///< devices the bytes pass between source and destination, in order;
                                   ///< empty: the router's direct route
  /// NCCL's INTEL_P2P_OVERHEAD: the capacity a byte takes on the PCIe links of the first
  /// `costed_legs` legs of the route through the waypoints (Detour, simulator.hpp): 1.2 where the
  /// sender's path goes through one Intel CPU (PATH_PHB), else 1 with no costed legs.
  double pcie_cost = 1.0;
  std::uint8_t costed_legs = 0;
  /// NET over NCCL's socket transport: its TCP streams' rate, the most the connection moves; zero
  /// elsewhere (no limit of its own).
  Bandwidth max_rate;
};

/// NCCL's transport decisions over one topology and environment. Const methods are thread-safe (the
/// Router's are). The topology must outlive it.
class NcclTransports {
 public:
  /// `policy`: the ECMP policy the flows are routed by, so that a staged NET transfer leaves and
  /// enters by the NICs its direct route would take (NCCL pins channels to rails: Channel).
  NcclTransports(const Topology& topology, const NcclEnv& env, EcmpPolicy policy = EcmpPolicy::Channel);
  ~NcclTransports();
  NcclTransports(NcclTransports&&) noexcept;
  NcclTransports& operator=(NcclTransports&&) noexcept;

  /// How `src` sends to `dst` on channel `channel` (GPUs, src != dst). Throws std::invalid_argument
  /// naming both when NCCL has no transport between them (neither P2P nor SHM, and no NIC).
  NcclConnection connect(DeviceId src, DeviceId dst, std::uint64_t channel = 0) const;
  /// NCCL's path type between two devices of one host, read off the route between them: Nvl over
  /// NVLink only, else Sys across CPU sockets, Phb through one CPU, Pxb through several PCIe
  /// switches, Pix through one. Loc for a == b.
  NcclPath path_type(DeviceId a, DeviceId b) const;
  /// Whether any connection among `ranks` leaves the direct route at line rate: bytes through host
  /// memory or a NIC loopback (a pair of one host without P2P, or a GPU and NIC of a host without
  /// GPUDirect RDMA in either direction), or a sender's PCIe through an Intel CPU at NCCL's overhead.
  /// Only then does the simulator need detours (the socket transport always stages, so its stream
  /// limit rides on them). O(pairs per host + GPUs x NICs) routes.
  bool detours(std::span<const DeviceId> ranks) const;
  /// What detours among `ranks`, for a report header: "" when detours() is false; else, e.g.,
  /// "nccl transports: SHM or a NIC loopback for 2 of 2 GPU pairs inside nodes; NET through host
  /// memory for 16 of 16 GPU-NIC pairs; PCIe through an Intel CPU at 1.2x for 2 of 2 GPU pairs;
  /// NCCL's socket transport on 2 of 2 NICs, 1 TCP stream per connection at 25.0 Gb/s each".
  std::string summary(std::span<const DeviceId> ranks) const;

 private:
  struct Impl;
  struct Count;
  Count count_detours(std::span<const DeviceId> ranks, bool first_only) const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ringlab::sim
