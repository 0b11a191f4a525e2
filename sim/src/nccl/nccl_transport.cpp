// NCCL's transports (nccl_transport.hpp): which of P2P, SHM and NET connects two ranks, and the
// devices a staged transfer passes. Rules and defaults from NCCL src/graph/paths.cc (master, checked
// against v2.19 .. v2.28): ncclTopoCheckP2p (p2pLevel PATH_PXB, NCCL_P2P_DISABLE/LEVEL, NVML's P2P
// status), ncclTopoComputePaths (SHM: addInterStep through the receiver's local CPU; no GDR:
// addInterStep through the GPU's local CPU on both directions; PXN: addInterStep through the NIC's
// local GPU, sends only), ncclTopoCheckGdr (netGdrLevel
// PATH_PXB, NCCL_NET_GDR_LEVEL; reads only from sm 8.0 or with an NVLink peer unless
// NCCL_NET_GDR_READ says otherwise).
#include "ringlab/sim/nccl_transport.hpp"

#include <algorithm>
#include <cstdint>
#include <iomanip>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include "nccl/host_paths.hpp"
#include "ringlab/topology/generators.hpp"

namespace ringlab::sim {
namespace {

constexpr NcclPath kDefaultP2pLevel = NcclPath::Pxb;  // paths.cc ncclTopoCheckP2p
constexpr NcclPath kDefaultGdrLevel = NcclPath::Pxb;  // paths.cc ncclTopoCheckGdr (no C2C in ringlab)
constexpr int kGdrReadMinSm = 80;                     // ncclTopoCheckGdr: "Disable GDR Reads pre-Ampere"
constexpr DeviceId kNone = UINT32_MAX;
// INTEL_P2P_OVERHEAD (src/graph/topo.h, bw * 6 / 5; applied in search.cc followPath, the same from
// v2.19 to v2.28): "P2P inefficiency through Intel CPU RC", a path from a GPU through one x86 Intel
// CPU (PATH_PHB) takes 6/5 of its bandwidth on each PCIe link it crosses.
constexpr double kIntelP2pOverhead = 6.0 / 5.0;
// The rate of one TCP stream between two hosts, whatever their NICs' speed: ESnet measures 15-35 Gb/s
// for a single stream on 100G hosts, "depending on how well tuned the host is" (fasterdata.es.net,
// "Performance Expectations for a 100G Host", 2024-01-17); ringlab takes the middle. A connection of
// NCCL's socket transport runs on nccl_socket_streams() of them.
constexpr Bandwidth kTcpStreamRate = Bandwidth::from_bits_per_second(25e9);

bool is_nvlink_kind(LinkKind k) { return link_family(k) == LinkFamily::NvLink; }

/// The nearest device of `kind` to `from` over its host's internals (GPUs do not forward), fewest
/// hops, then lowest local index; kNone when the host has none.
DeviceId nearest_in_host(const Topology& topology, DeviceId from, DeviceKind kind) {
  DeviceId best = kNone;
  int best_distance = INT32_MAX;
  for (const auto& [x, d] : detail::host_distances(topology, from)) {
    const Device& dx = topology.device(x);
    if (x == from || dx.kind != kind) continue;
    if (d < best_distance || (d == best_distance && dx.local_index < topology.device(best).local_index)) {
      best = x;
      best_distance = d;
    }
  }
  return best;
}

/// Whether NCCL would read `cpu` as an x86 Intel CPU (ncclTopoAddCpu: vendor from CPUID): its host's
/// CPU vendor.
bool intel_cpu(const Topology& topology, DeviceId cpu) {
  const HostId host = topology.device(cpu).host;
  return host != kNoHost && topology.host(host).cpu_vendor == CpuVendor::Intel;
}

bool has_nvlink(const Topology& topology, DeviceId gpu) {
  for (const Adjacency& adj : topology.neighbors(gpu))
    if (is_nvlink_kind(topology.link(adj.link).kind)) return true;
  return false;
}

}  // namespace

std::string_view to_string(NcclTransport t) {
  switch (t) {
    case NcclTransport::P2p: return "p2p";
    case NcclTransport::Shm: return "shm";
    case NcclTransport::Net: return "net";
  }
  return "p2p";
}

struct NcclTransports::Impl {
  const Topology& topology;
  NcclEnv env;
  Router router;

  Impl(const Topology& t, const NcclEnv& e, EcmpPolicy policy) : topology(t), env(e), router(t, policy) {}

  /// NCCL's path type of a route: the link kinds it uses and the devices it passes.
  NcclPath classify(const Route& route) const {
    bool nvlink_only = true;
    int cpus = 0;
    int switches = 0;
    for (std::size_t i = 0; i < route.directions.size(); ++i) {
      const DirectionId c = route.directions[i];
      nvlink_only = nvlink_only && is_nvlink_kind(topology.link(Topology::direction_link(c)).kind);
      if (i + 1 == route.directions.size()) break;  // the last hop's target is the far end
      const DeviceKind k = topology.device(topology.direction_target(c)).kind;
      cpus += k == DeviceKind::Cpu;
      switches += k == DeviceKind::PcieSwitch;
    }
    if (nvlink_only) return NcclPath::Nvl;
    if (cpus > 1) return NcclPath::Sys;
    if (cpus == 1) return NcclPath::Phb;
    return switches > 1 ? NcclPath::Pxb : NcclPath::Pix;
  }

  /// The capacity a byte of a GPU's path along `route` takes on its PCIe links: kIntelP2pOverhead when
  /// the path is PHB through an Intel CPU, else 1.
  double pcie_cost(const Route& route) const {
    if (classify(route) != NcclPath::Phb) return 1.0;
    for (std::size_t i = 0; i + 1 < route.directions.size(); ++i) {
      const DeviceId x = topology.direction_target(route.directions[i]);
      if (topology.device(x).kind == DeviceKind::Cpu) return intel_cpu(topology, x) ? kIntelP2pOverhead : 1.0;
    }
    return 1.0;
  }

  /// The sending side of a NET connection from `gpu` by `nic` (no PXN relay): the devices its bytes
  /// pass up to and including the NIC, and their PCIe cost (NCCL's path from the GPU to the NIC:
  /// through the GPU's local CPU without GPUDirect RDMA reads, paths.cc addInterStep).
  struct SendSide {
    std::vector<DeviceId> via;
    double pcie_cost = 1.0;
  };
  SendSide send_side(DeviceId gpu, DeviceId nic, bool gdr_read) const {
    if (gdr_read) return SendSide{{nic}, pcie_cost(router.route(gpu, nic))};
    const DeviceId cpu = nearest_in_host(topology, gpu, DeviceKind::Cpu);
    if (cpu == kNone) return SendSide{{nic}, 1.0};
    const DeviceId via_cpu[] = {cpu};
    return SendSide{{cpu, nic}, pcie_cost(router.route_via(gpu, via_cpu, nic))};
  }

  /// ncclTopoCheckP2p: within the P2P level, and NVML's P2P status (PCIe peer access by the driver).
  bool p2p(DeviceId src, DeviceId dst, NcclPath path) const {
    const NcclPath level = !env.p2p ? NcclPath::Loc : env.p2p_level.value_or(kDefaultP2pLevel);
    if (path > level) return false;
    if (path == NcclPath::Nvl) return true;
    return gpu_spec(topology.device(src).gpu_model).pcie_p2p && gpu_spec(topology.device(dst).gpu_model).pcie_p2p;
  }

  /// ncclTopoCheckGdr for one side of a NET connection through `nic`: `read` for the sender.
  bool gdr(DeviceId gpu, DeviceId nic, bool read) const { return gdr(gpu, nic, path_type(gpu, nic), read); }
  /// The same, given the path type between them.
  bool gdr(DeviceId gpu, DeviceId nic, NcclPath path, bool read) const {
    if (tcp(nic)) return false;  // NCCL's socket transport works on host memory only
    if (path > env.gdr_level.value_or(kDefaultGdrLevel)) return false;
    if (!read) return true;
    if (env.gdr_read == 0) return false;
    if (env.gdr_read == 1) return true;
    const int sm = gpu_spec(topology.device(gpu).gpu_model).sm;
    return sm == 0 || sm >= kGdrReadMinSm || has_nvlink(topology, gpu);
  }

  /// The NIC's network links run NCCL's socket transport (NCCL_IB_DISABLE=1, or TCP links).
  bool tcp(DeviceId nic) const {
    if (!env.ib) return true;
    const HostId host = topology.device(nic).host;
    for (const Adjacency& adj : topology.neighbors(nic))
      if (topology.device(adj.peer).host != host && topology.link(adj.link).transport == Transport::Tcp) return true;
    return false;
  }

  NcclPath path_type(DeviceId a, DeviceId b) const {
    if (a == b) return NcclPath::Loc;
    return classify(router.route(a, b));
  }

  /// NCCL's path bandwidth between two devices: the narrowest link of the route, bits per second.
  double path_bits_per_second(DeviceId a, DeviceId b) const {
    double narrowest = std::numeric_limits<double>::infinity();
    for (DirectionId d : router.route(a, b).directions)
      narrowest = std::min(narrowest, topology.link(Topology::direction_link(d)).bandwidth.bits_per_second());
    return narrowest;
  }

  /// The NIC of `host` whose local index is `rail`, or kNone.
  DeviceId nic_of_rail(HostId host, int rail) const {
    for (const DeviceId d : topology.host_devices(host))
      if (topology.device(d).kind == DeviceKind::Nic && topology.device(d).local_index == rail) return d;
    return kNone;
  }

  /// The first and last NIC of the route from `src` to `dst` on `channel` (kNone where none).
  std::pair<DeviceId, DeviceId> first_and_last_nic(DeviceId src, DeviceId dst, std::uint64_t channel) const {
    DeviceId first = kNone, last = kNone;
    for (DirectionId d : router.route(src, dst, channel).directions) {
      const DeviceId x = topology.direction_target(d);
      if (topology.device(x).kind != DeviceKind::Nic) continue;
      if (first == kNone) first = x;
      last = x;
    }
    return {first, last};
  }

  /// PXN (src/graph/paths.cc ncclTopoComputePaths, "Update paths for NICs"; the relay is
  /// ncclTopoGetIntermediateRank's): the GPU through which `gpu` sends to `nic`, or kNone. NCCL
  /// relays when the NIC's local GPU reaches it within PXB with GPUDirect RDMA, is NVLink-connected
  /// to `gpu`, and either has a wider path to the NIC or `gpu`'s own path goes through a CPU (farther
  /// than PXN). Sends only, as in NCCL ("favor receiving locally and sending remotely").
  DeviceId pxn_relay(DeviceId gpu, DeviceId nic) const {
    if (!env.pxn) return kNone;
    // ncclTopoGetLocalGpu takes the GPUs with the widest, then nearest path to the NIC; the nearest
    // by hops (then lowest local index) is the same GPU wherever a NIC shares a PCIe switch with one.
    const DeviceId peer = nearest_in_host(topology, nic, DeviceKind::Gpu);
    if (peer == kNone || peer == gpu) return kNone;
    const NcclPath peer_path = path_type(peer, nic);
    if (peer_path > NcclPath::Pxb || !gdr(peer, nic, peer_path, true)) return kNone;
    if (path_type(peer, gpu) > NcclPath::Nvl) return kNone;
    if (!(path_bits_per_second(peer, nic) > path_bits_per_second(gpu, nic) || path_type(gpu, nic) > NcclPath::Pxn))
      return kNone;
    return peer;
  }

  /// The NICs a connection between hosts leaves and enters by (kNone where its route has none), and
  /// whether they differ from its direct route's, so that the flow must be routed through them.
  struct Nics {
    DeviceId out = kNone, in = kNone;
    bool pinned = false;
  };
  Nics nics(DeviceId src, DeviceId dst, std::uint64_t channel) const {
    // The direct route's first and last NIC.
    Nics n;
    std::tie(n.out, n.in) = first_and_last_nic(src, dst, channel);
    if (n.out == kNone) return n;
    // NCCL receives on the NIC its graph pairs with the receiving GPU (search.cc: NET n -> the GPU
    // nearest it), never on a far one through host memory; where the direct route enters by a NIC
    // the receiver cannot reach with GPUDirect RDMA (a rail-only fabric whose rails differ), the
    // connection enters by the receiver's nearest NIC and leaves by the sender's NIC that routes to it.
    if (!gdr(dst, n.in, false)) {
      const DeviceId local = nearest_in_host(topology, dst, DeviceKind::Nic);
      const DeviceId out = local != kNone && local != n.in && gdr(dst, local, false)
                               ? first_and_last_nic(src, local, channel).first
                               : kNone;
      if (out != kNone) n = Nics{out, local, true};
    }
    // NCCL_CROSS_NIC=0: a channel leaves a node by the NIC it enters the next one by, rail for rail
    // (NIC i is rail i), through PXN where that NIC is not the sender's own.
    if (env.cross_nic == 0) {
      const DeviceId same = nic_of_rail(topology.device(src).host, topology.device(n.in).local_index);
      if (same != kNone && same != n.out) n = Nics{same, n.in, true};
    }
    return n;
  }

  /// The vendor of `nic` as NCCL's socket transport reads it, from its host's node template: AWS
  /// instances' NICs are Amazon's (ENA and EFA); GCP's A3 and A3 Mega GPU NICs are gVNIC (A3 Ultra's
  /// are ConnectX-7, as are the rest).
  SocketNicVendor socket_vendor(DeviceId nic) const {
    const HostId host = topology.device(nic).host;
    if (host == kNoHost) return SocketNicVendor::Other;
    const std::optional<NodeTemplate> t = find_node_template(topology.host(host).template_name);
    if (!t) return SocketNicVendor::Other;
    switch (*t) {  // every template listed, so that a new one must be placed (-Wswitch)
      case NodeTemplate::AwsP4d:
      case NodeTemplate::AwsP4de:
      case NodeTemplate::AwsP5:
      case NodeTemplate::AwsP5e: return SocketNicVendor::Aws;
      case NodeTemplate::GcpA3:
      case NodeTemplate::GcpA3Mega: return SocketNicVendor::Gcp;
      case NodeTemplate::DgxA100:
      case NodeTemplate::DgxH100:
      case NodeTemplate::Pcie8:
      case NodeTemplate::V100x4:
      case NodeTemplate::Generic:
      case NodeTemplate::DgxH200:
      case NodeTemplate::DgxB200:
      case NodeTemplate::AzureNdv4:
      case NodeTemplate::AzureNdmV4:
      case NodeTemplate::AzureNdv5:
      case NodeTemplate::AzureNdH200v5:
      case NodeTemplate::GcpA3Ultra:
      case NodeTemplate::OciBmGpu4_8:
      case NodeTemplate::OciBmGpuH100_8:
      case NodeTemplate::Gb200Nvl72:
      case NodeTemplate::AzureNdGb200v6: return SocketNicVendor::Other;
    }
    return SocketNicVendor::Other;
  }
  int socket_streams(DeviceId nic) const { return nccl_socket_streams(env, socket_vendor(nic)); }

  /// The rate limit of a NET connection through `nic`: its TCP streams' under NCCL's socket transport.
  Bandwidth net_max_rate(DeviceId nic) const {
    return tcp(nic) ? kTcpStreamRate * double(socket_streams(nic)) : Bandwidth{};
  }

  NcclConnection net(DeviceId src, DeviceId dst, std::uint64_t channel) const {
    NcclConnection c;
    c.transport = NcclTransport::Net;
    const bool same_host = topology.device(src).host == topology.device(dst).host;
    if (same_host) {  // loopback through the sender's nearest NIC
      const DeviceId nic = nearest_in_host(topology, src, DeviceKind::Nic);
      if (nic == kNone)
        throw std::invalid_argument("NCCL has no transport from " + topology.device(src).name + " to " +
                                    topology.device(dst).name + ": no P2P, SHM disabled and no NIC in the node");
      c.send_gdr = c.recv_gdr = true;
      c.waypoints.push_back(nic);
      c.max_rate = net_max_rate(nic);
      return c;
    }
    const auto [nic_out, nic_in, pinned] = nics(src, dst, channel);
    if (nic_out == kNone) {  // no NIC on the way (NVLink across hosts): direct
      c.send_gdr = c.recv_gdr = true;
      return c;
    }
    const DeviceId relay = pxn_relay(src, nic_out);
    // The listening (receiving) side sets the streams: ncclNetSocketConnect takes its handle's nSocks.
    c.max_rate = net_max_rate(tcp(nic_in) ? nic_in : nic_out);
    c.send_gdr = relay != kNone || gdr(src, nic_out, true);
    c.recv_gdr = gdr(dst, nic_in, false);
    if (relay != kNone) {
      c.waypoints.insert(c.waypoints.end(), {relay, nic_out});
    } else {
      // NCCL's overhead counts on the sending side only: its receiving path starts at the NIC.
      SendSide send = send_side(src, nic_out, c.send_gdr);
      if (send.pcie_cost != 1.0) {
        c.pcie_cost = send.pcie_cost;
        c.costed_legs = std::uint8_t(send.via.size());
      }
      if (!c.send_gdr || pinned || c.costed_legs > 0) c.waypoints = std::move(send.via);
    }
    if (!c.recv_gdr) c.waypoints.insert(c.waypoints.end(), {nic_in, nearest_in_host(topology, dst, DeviceKind::Cpu)});
    else if (pinned) c.waypoints.push_back(nic_in);
    std::erase(c.waypoints, kNone);
    return c;
  }
};

NcclTransports::NcclTransports(const Topology& topology, const NcclEnv& env, EcmpPolicy policy)
    : impl_(std::make_unique<Impl>(topology, env, policy)) {}
NcclTransports::~NcclTransports() = default;
NcclTransports::NcclTransports(NcclTransports&&) noexcept = default;
NcclTransports& NcclTransports::operator=(NcclTransports&&) noexcept = default;

NcclPath NcclTransports::path_type(DeviceId a, DeviceId b) const { return impl_->path_type(a, b); }

NcclConnection NcclTransports::connect(DeviceId src, DeviceId dst, std::uint64_t channel) const {
  const Topology& t = impl_->topology;
  if (t.device(src).host == kNoHost || t.device(src).host != t.device(dst).host) return impl_->net(src, dst, channel);
  NcclConnection c;
  c.path = path_type(src, dst);
  if (impl_->p2p(src, dst, c.path)) {
    if (c.path == NcclPath::Phb) {  // P2P through a CPU (NCCL_P2P_LEVEL PHB or SYS)
      c.pcie_cost = impl_->pcie_cost(impl_->router.route(src, dst));
      c.costed_legs = c.pcie_cost != 1.0 ? 1 : 0;
    }
    return c;
  }
  if (!impl_->env.shm) return impl_->net(src, dst, channel);
  c.transport = NcclTransport::Shm;
  const DeviceId cpu = nearest_in_host(t, dst, DeviceKind::Cpu);
  if (cpu == kNone)
    throw std::invalid_argument("NCCL has no transport from " + t.device(src).name + " to " + t.device(dst).name +
                                ": no P2P between them and no CPU in the node for SHM");
  c.waypoints.push_back(cpu);
  // NCCL's path through host memory (paths.cc addInterStep through the receiver's CPU) is PHB when
  // both GPUs hang off that CPU, and pays the Intel overhead on both legs.
  c.pcie_cost = impl_->pcie_cost(impl_->router.route_via(src, c.waypoints, dst));
  c.costed_legs = c.pcie_cost != 1.0 ? 2 : 0;
  return c;
}

namespace {

/// Ranks by host (hosts in order of their first rank), GPUs outside any host left out.
std::vector<std::vector<DeviceId>> ranks_by_host(const Topology& t, std::span<const DeviceId> ranks) {
  const detail::HostGroups groups = detail::group_by_host(t, ranks);
  std::vector<std::vector<DeviceId>> out;
  for (std::size_t g = 0; g < groups.host.size(); ++g) {
    if (groups.host[g] == kNoHost) continue;
    out.emplace_back();
    for (int r : groups.members[g]) out.back().push_back(ranks[std::size_t(r)]);
  }
  return out;
}

}  // namespace

struct NcclTransports::Count {
  int shm = 0, pairs = 0;        ///< ordered GPU pairs inside nodes: not P2P, all
  int staged = 0, gpu_nics = 0;  ///< (GPU, NIC) pairs of a node without GPUDirect both ways, all
  int costed_pairs = 0, costed_nics = 0;  ///< GPU pairs and GPU-NIC pairs whose PCIe pays the Intel overhead
  int socket_nics = 0, nics = 0;          ///< the ranks' hosts' NICs on the socket transport, all
  int min_streams = INT32_MAX, max_streams = 0;  ///< over those socket NICs, TCP streams per connection
};

NcclTransports::Count NcclTransports::count_detours(std::span<const DeviceId> ranks, bool first_only) const {
  const Topology& t = impl_->topology;
  Count n;
  const auto hosts = ranks_by_host(t, ranks);
  for (const auto& gpus : hosts)
    for (DeviceId a : gpus)
      for (DeviceId b : gpus) {
        if (a == b) continue;
        ++n.pairs;
        const NcclConnection c = connect(a, b);
        n.costed_pairs += c.costed_legs > 0;
        if (c.transport != NcclTransport::P2p && ++n.shm && first_only) return n;
        if (n.costed_pairs > 0 && first_only) return n;
      }
  if (hosts.size() < 2) return n;
  std::unordered_map<HostId, std::vector<DeviceId>> nics;  // per host, in id order (one pass, not one per host)
  for (DeviceId d = 0; d < DeviceId(t.devices().size()); ++d)
    if (t.device(d).kind == DeviceKind::Nic) nics[t.device(d).host].push_back(d);
  for (const auto& gpus : hosts) {
    const auto it = nics.find(t.device(gpus.front()).host);
    if (it == nics.end()) continue;
    for (const DeviceId nic : it->second) {
      ++n.nics;
      if (impl_->tcp(nic)) {
        const int streams = impl_->socket_streams(nic);
        ++n.socket_nics;
        n.min_streams = std::min(n.min_streams, streams);
        n.max_streams = std::max(n.max_streams, streams);
      }
      for (DeviceId a : gpus) {
        ++n.gpu_nics;
        const NcclPath path = impl_->path_type(a, nic);
        const bool read = impl_->gdr(a, nic, path, true);
        const bool direct = read && impl_->gdr(a, nic, path, false);
        n.costed_nics += impl_->send_side(a, nic, read).pcie_cost != 1.0;
        if (!direct && ++n.staged && first_only) return n;
        if (n.costed_nics > 0 && first_only) return n;
      }
    }
  }
  return n;
}

bool NcclTransports::detours(std::span<const DeviceId> ranks) const {
  const Count n = count_detours(ranks, true);
  return n.shm > 0 || n.staged > 0 || n.costed_pairs > 0 || n.costed_nics > 0;
}

std::string NcclTransports::summary(std::span<const DeviceId> ranks) const {
  const Count n = count_detours(ranks, false);
  std::string out;
  if (n.shm > 0)
    out += "SHM or a NIC loopback for " + std::to_string(n.shm) + " of " + std::to_string(n.pairs) +
           " GPU pairs inside nodes";
  if (n.staged > 0)
    out += (out.empty() ? "" : "; ") + std::string("NET through host memory for ") + std::to_string(n.staged) +
           " of " + std::to_string(n.gpu_nics) + " GPU-NIC pairs";
  std::string costed;
  if (n.costed_pairs > 0) costed = std::to_string(n.costed_pairs) + " of " + std::to_string(n.pairs) + " GPU pairs";
  if (n.costed_nics > 0)
    costed += (costed.empty() ? "" : " and ") + std::to_string(n.costed_nics) + " of " + std::to_string(n.gpu_nics) +
              " GPU-NIC sends";
  if (!costed.empty()) out += (out.empty() ? "" : "; ") + std::string("PCIe through an Intel CPU at 1.2x for ") + costed;
  if (n.socket_nics > 0) {
    std::ostringstream rate;
    rate << std::fixed << std::setprecision(1) << kTcpStreamRate.gbps();
    const std::string streams = n.min_streams == n.max_streams
                                    ? std::to_string(n.min_streams)
                                    : std::to_string(n.min_streams) + "-" + std::to_string(n.max_streams);
    out += (out.empty() ? "" : "; ") + std::string("NCCL's socket transport on ") + std::to_string(n.socket_nics) +
           " of " + std::to_string(n.nics) + " NICs, " + streams + (n.max_streams == 1 ? " TCP stream" : " TCP streams") +
           " per connection at " + rate.str() + " Gb/s each";
  }
  return out.empty() ? out : "nccl transports: " + out;
}

}  // namespace ringlab::sim
