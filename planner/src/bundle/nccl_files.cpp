// NCCL's files of the bundle: the environment (system settings apart from debug-only ones) and one
// NCCL_GRAPH_FILE per host that pins each channel's ring inside the node and its NICs.
//
// Graph file grammar, from NVIDIA/nccl at commit 5067397c (shared/reference/launchers.md 3):
//   - src/graph/xml.cc:87-195 (xmlGetToken, xmlGetNode): elements and attributes are split by single
//     spaces and line breaks only (a tab is an error: "expecting '<'"), a tag stays on one line
//     (a line break ends its attributes: "expected >"), no text between elements, values are quoted, no
//     `<?xml?>` prolog (read as an unknown element that never closes), at most 16 attributes;
//   - xml.cc:1237-1265: the root is <graphs version="1">, then <graph>, <channel>, <net>/<gpu>;
//   - src/graph/search.cc:891-926 (ncclTopoGetChannelFromXml): `dev` is read with strtol(.., 16),
//     so it is hex: we write "0x" values. A <gpu> dev is matched against the GPU's NVML index
//     (xml.cc:893-910, nvmlDeviceGetIndex: the nvidia-smi number, not the CUDA_VISIBLE_DEVICES one),
//     which is the GPU's local index in our model; a `rank=` attribute would override it with a
//     global rank, so it is never written. <net> devs are NCCL's network device indices, taken to be
//     the NIC's local index (mlx5_0 -> 0);
//   - search.cc:928-956: `nchannels` is trusted as given while the channels read are the <channel>
//     children: they must be equal. A graph with crossnic="1" is skipped when NCCL_CROSS_NIC=0.
//     Ring is graph id 0 / pattern 4; the tree is id 1 / pattern 1 (balanced tree, NCCL's default for
//     trees, src/init.cc:1175-1183); NCCL keeps the smaller channel count, so both get the plan's.
//   - search.cc:1111-1121: the file is read for every graph search; "channels loaded from XML graph"
//     is logged per graph id (check.sh looks for it).
#include <algorithm>
#include <array>
#include <cmath>
#include <iomanip>
#include <limits>
#include <optional>
#include <sstream>

#include "bundle/bundle_internal.hpp"
#include "ringlab/topology/routing.hpp"

namespace ringlab::planner::bundle {
namespace {

constexpr int kSpeedDigits = 4;  // significant digits of speedintra/speedinter (NCCL writes %g)

/// NCCL's path types, best first (src/graph/topo.h PATH_LOC .. PATH_SYS; kvDictLinkType).
enum class PathType { Loc, Nvl, Nvb, Pix, Pxb, P2c, Pxn, Phb, Sys };
constexpr std::array<const char*, 9> kPathNames{"LOC", "NVL", "NVB", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS"};

struct PathFacts {
  PathType type = PathType::Loc;
  double gigabytes_per_second = std::numeric_limits<double>::infinity();  ///< bottleneck, per direction
};

/// The type and bottleneck of a route inside a host, classified as NCCL does (topo.h): across the
/// CPU interconnect SYS, through a CPU PHB, through more than one PCIe switch PXB, one PIX, NVLink only NVL.
PathFacts path_facts(const Topology& topology, const Router& router, DeviceId from, DeviceId to) {
  PathFacts facts;
  if (from == to) return facts;
  const Route route = router.route(from, to);
  bool smp = false, cpu = false, pcie = false;
  int pcie_switches = 0;
  for (std::size_t i = 0; i < route.directions.size(); ++i) {
    const DirectionId d = route.directions[i];
    const Link& link = topology.link(Topology::direction_link(d));
    facts.gigabytes_per_second = std::min(facts.gigabytes_per_second, link.bandwidth.gigabytes_per_second());
    const LinkFamily family = link_family(link.kind);
    smp = smp || family == LinkFamily::Smp;
    pcie = pcie || family == LinkFamily::Pcie;
    if (i + 1 == route.directions.size()) break;  // the last target is `to`, not a hop
    const DeviceKind hop = topology.device(topology.direction_target(d)).kind;
    cpu = cpu || hop == DeviceKind::Cpu;
    pcie_switches += hop == DeviceKind::PcieSwitch;
  }
  facts.type = smp ? PathType::Sys : cpu ? PathType::Phb : pcie_switches > 1 ? PathType::Pxb
               : pcie || pcie_switches == 1 ? PathType::Pix : PathType::Nvl;
  return facts;
}

std::optional<DeviceId> host_nic(const Topology& topology, HostId host, int local_index) {
  for (DeviceId d : topology.host_devices(host))
    if (topology.device(d).kind == DeviceKind::Nic && topology.device(d).local_index == local_index) return d;
  return std::nullopt;
}

/// Bandwidth of the NIC's own network port(s), GB/s per direction.
double nic_speed(const Topology& topology, DeviceId nic) {
  double best = 0;
  for (const Adjacency& a : topology.neighbors(nic))
    if (!is_host_internal(topology.device(a.peer).kind))
      best = std::max(best, topology.link(a.link).bandwidth.gigabytes_per_second());
  return best;
}

std::string speed_text(double gigabytes_per_second) {
  std::ostringstream out;
  out << std::setprecision(kSpeedDigits) << gigabytes_per_second;
  return out.str();
}

std::string hex(int value) {
  std::ostringstream out;
  out << "0x" << std::hex << value;
  return out.str();
}

std::string quoted_env_line(const NcclSetting& s) {
  std::string text;
  if (!s.reason.empty()) text += "# " + s.reason + "\n";
  return text + "export " + s.name + "='" + s.value + "'\n";
}

}  // namespace

BundleFile nccl_env(const Plan& plan) {
  std::string text =
      "# nccl.env written by `ringlab plan`: NCCL system settings for this plan and each node's GPU order,\n"
      "# safe to keep in job scripts (NCCL's docs: system configuration, unlike nccl-debug.env's settings).\n"
      "# Source it on every node before NCCL starts (srun.sh and torchrun.sh do):  . plan/nccl.env\n"
      "# RINGLAB_PLAN_DIR is this folder (default ./plan), RINGLAB_HOST the node (default `hostname`).\n"
      "RINGLAB_PLAN_DIR=${RINGLAB_PLAN_DIR:-$PWD/plan}\n"
      "RINGLAB_HOST=${RINGLAB_HOST:-$(hostname)}\n"
      "# Pins each channel's ring inside this node and the NICs it uses (nccl-graph/<host>.xml, one per\n"
      "# node). It is written for every plan; NCCL would find the same rings by itself only where the\n"
      "# plan keeps NCCL's own intra-node order. Remove these three lines to let NCCL search.\n"
      "NCCL_GRAPH_FILE=\"$RINGLAB_PLAN_DIR/nccl-graph/$RINGLAB_HOST.xml\"\n"
      "[ -r \"$NCCL_GRAPH_FILE\" ] || NCCL_GRAPH_FILE=\"$RINGLAB_PLAN_DIR/nccl-graph/${RINGLAB_HOST%%.*}.xml\"\n"
      "export NCCL_GRAPH_FILE\n"
      "# The plan's GPU of each local rank: local rank i uses visible device i (plan.json \"gpus\"),\n"
      "# so launchers that only choose hosts (mpirun --hostfile, mpiexec -f) keep the GPU order too.\n"
      "case \"$RINGLAB_HOST\" in\n";
  for (const HostPlan& h : plan.hosts)
    text += "  " + host_pattern(h.name) + ") CUDA_VISIBLE_DEVICES=" + join(h.gpus, ",") + " ;;\n";
  text +=
      "  *) echo \"nccl.env: host $RINGLAB_HOST is not in the plan\" >&2 ;;\n"
      "esac\n"
      "export CUDA_VISIBLE_DEVICES\n";
  for (const NcclSetting& s : plan.nccl_env)
    if (!is_debug_setting(s)) text += quoted_env_line(s);
  return {"nccl.env", text, false, "NCCL system settings (NCCL_GRAPH_FILE per node, ...) and CUDA_VISIBLE_DEVICES: source on every node"};
}

BundleFile nccl_debug_env(const Plan& plan) {
  std::string text =
      "# nccl-debug.env written by `ringlab plan`: settings that force what the plan measured or assumed.\n"
      "# NCCL's documentation says these \"should not be used in production nor retained in scripts\":\n"
      "# use them to reproduce or debug the plan's prediction, then drop them (a tuner plugin is the\n"
      "# supported way to steer NCCL's choice). Source after nccl.env:  . plan/nccl-debug.env\n";
  for (const NcclSetting& s : plan.nccl_env)
    if (is_debug_setting(s)) text += quoted_env_line(s);
  return {"nccl-debug.env", text, false, "debug-only NCCL settings (NCCL_ALGO, NCCL_PROTO, ...): not for production"};
}

BundleFile graph_file(const Topology& topology, const Plan& plan, std::size_t host) {
  const HostPlan& h = plan.hosts[host];
  const std::vector<GraphChannel> channels = graph_channels(plan, host);
  const Router router(topology);
  const HostId host_id = topology.device(plan.order.ranks[std::size_t(h.first_rank)]).host;
  auto gpu_device = [&](int gpu_index) {
    for (int i = 0; i < h.size(); ++i)
      if (h.gpus[std::size_t(i)] == gpu_index) return plan.order.ranks[std::size_t(h.first_rank + i)];
    return plan.order.ranks[std::size_t(h.first_rank)];
  };
  // Per-channel speeds: the bottleneck of the host's chains and NIC ports, shared by the channels
  // (NCCL multiplies speed by nchannels to estimate a graph's bandwidth).
  PathType intra = h.size() > 1 ? PathType::Nvl : PathType::Loc, inter = PathType::Pix;
  double intra_speed = std::numeric_limits<double>::infinity(), inter_speed = intra_speed;
  for (const GraphChannel& c : channels) {
    for (std::size_t i = 0; i + 1 < c.gpus.size(); ++i) {
      const PathFacts f = path_facts(topology, router, gpu_device(c.gpus[i]), gpu_device(c.gpus[i + 1]));
      intra = std::max(intra, f.type);
      intra_speed = std::min(intra_speed, f.gigabytes_per_second);
    }
    if (!c.has_nets) continue;
    for (const auto& [nic_index, gpu] : {std::pair{c.net_in, c.gpus.front()}, std::pair{c.net_out, c.gpus.back()}}) {
      const auto nic = host_nic(topology, host_id, nic_index);
      if (!nic) continue;
      const PathFacts f = path_facts(topology, router, gpu_device(gpu), *nic);
      inter = std::max(inter, f.type);
      inter_speed = std::min({inter_speed, f.gigabytes_per_second, nic_speed(topology, *nic)});
    }
  }
  if (!std::isfinite(inter_speed)) inter_speed = intra_speed;
  if (!std::isfinite(intra_speed)) intra_speed = inter_speed;
  if (!std::isfinite(intra_speed)) intra_speed = inter_speed = 0;
  const double n = double(std::max<std::size_t>(channels.size(), 1));
  bool same = true;
  for (const GraphChannel& c : channels)
    same = same && c.gpus == channels.front().gpus && c.net_in == channels.front().net_in &&
           c.net_out == channels.front().net_out;

  std::string text = "<graphs version=\"1\" name=\"ringlab:" + h.name + "\">\n";
  for (const auto& [id, pattern] : {std::pair{0, 4}, std::pair{1, 1}}) {
    text += "  <graph id=\"" + std::to_string(id) + "\" pattern=\"" + std::to_string(pattern) + "\" crossnic=\"" +
            std::to_string(graph_crossnic(plan, host)) + "\" nchannels=\"" + std::to_string(channels.size()) +
            "\" speedintra=\"" + speed_text(intra_speed / n) + "\" speedinter=\"" + speed_text(inter_speed / n) +
            "\" latencyinter=\"0\" typeintra=\"" + kPathNames[std::size_t(intra)] + "\" typeinter=\"" +
            kPathNames[std::size_t(inter)] + "\" samechannels=\"" + (same ? "1" : "0") + "\">\n";
    for (const GraphChannel& c : channels) {
      text += "    <channel>\n";
      if (c.has_nets) text += "      <net dev=\"" + hex(c.net_in) + "\"/>\n";
      for (int gpu : c.gpus) text += "      <gpu dev=\"" + hex(gpu) + "\"/>\n";
      if (c.has_nets) text += "      <net dev=\"" + hex(c.net_out) + "\"/>\n";
      text += "    </channel>\n";
    }
    text += "  </graph>\n";
  }
  text += "</graphs>\n";
  return {"nccl-graph/" + h.name + ".xml", text, false,
          "NCCL_GRAPH_FILE for " + h.name + ": ring (id 0) and tree (id 1) per channel, set by nccl.env"};
}

}  // namespace ringlab::planner::bundle
