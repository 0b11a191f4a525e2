// Export of a cluster graph: Graphviz DOT and GraphML for drawing and graph tools, ringlab's own
// scenario JSON (the explicit "cluster" form) that load_scenario reads back into the same Topology,
// and a SimGrid platform (XML v4.1) with explicit routes, for the SimGrid reference engine.
//
// Every writer is deterministic: devices in id order, links in id order, fixed attribute sets.
// JSON and SimGrid carry units in their values ("400Gbps", "600ns"); GraphML carries typed numbers with
// the unit in the key name (bandwidth_bps, latency_ps); bandwidths are per direction.
#pragma once

#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ringlab/topology/routing.hpp"
#include "ringlab/topology/scenario.hpp"
#include "ringlab/topology/topology.hpp"

namespace ringlab {

/// How much of a cluster write_dot draws: every device, or one box per host.
enum class DotDetail : std::uint8_t {
  Auto,   ///< Full up to kDotMaxFullHosts hosts and kDotMaxFullGpus GPUs, Hosts above
  Full,   ///< every device, host boxes as clusters
  Hosts,  ///< one box per host ("node0: 8x H100, 8x 400G IB"); links inside hosts left out
};
inline constexpr std::size_t kDotMaxFullHosts = 64;
inline constexpr std::size_t kDotMaxFullGpus = 512;

/// True when write_dot with `detail` collapses the hosts of `topology`.
bool dot_collapses_hosts(const Topology& topology, DotDetail detail);

/// A short label for a link, as a datasheet would write it: "NVLink4 x18", "PCIe5 x16", "400G IB",
/// "2x400G IB" (two ports bonded), "100G RoCE" (Ethernet with RDMA), "25G Ethernet" (TCP),
/// "CPU link"; NVLink and PCIe links whose bandwidth is not the kind's nominal one add it:
/// "PCIe4 x16 (100G)". Bandwidths are per direction, in bits/s, with at most three digits.
std::string link_label(const Link& link);

/// Graphviz DOT for reading (render with `dot -Tsvg`), an undirected graph:
///   - one cluster per rack (dashed) holding its switches and hosts, one per host (rounded) holding
///     its devices; node id = device name, label = the name inside its host, the GPU model, and
///     "(reduces)" for in-network reduction;
///   - fabric switches on one rank line per tier (`rank=same`), core above spine above leaf;
///   - edges labelled with link_label(), coloured by link family (NVLink, PCIe, CPU link, InfiniBand,
///     Ethernet; TCP dashed), a legend cluster naming the colours; identical parallel links (same
///     ends and label) drawn once as "N x <label>" with a wider pen;
///   - with hosts collapsed (dot_collapses_hosts), a host is one box "<host>: 8x H100, 8x 400G IB"
///     (rows of four per rack) and a comment at the top says so.
/// Deterministic. Machine-readable attributes are GraphML's job (write_graphml).
void write_dot(std::ostream& out, const Topology& topology, DotDetail detail = DotDetail::Auto);

/// GraphML, undirected, with typed keys so graph tools read numbers as numbers:
///   nodes (id = device name, edges e<link id>): name, kind, gpu_model, host, rack (string), tier (int), in_network_reduction (boolean);
///   edges: kind, transport (string), lanes (int), bandwidth_bps (double, bits/s per direction),
///          latency_ps and overhead_ps (long, picoseconds), label (string, link_label()).
/// Empty strings for a device outside a host or rack. Deterministic.
void write_graphml(std::ostream& out, const Topology& topology);

/// The explicit "cluster" object of a scenario file:
///   racks:   [{name}]
///   hosts:   [{name, rack?}]
///   devices: [{name, kind, host? (host-internal kinds), rack? (switches in a rack), gpu_model? (GPUs),
///              in_network_reduction? (switches and NVSwitches, written when true)}]
///   links:   [{a, b, kind, lanes, transport? (InfiniBand/Ethernet), bandwidth, latency, overhead}]
/// Bandwidths are written in Gbps with 12 significant digits ("400Gbps", "504.123076923Gbps"),
/// durations exactly ("600ns", "1us", "1500ps"). Not carried: a host's template name and a switch tier
/// that differs from its kind's default (the loader derives tiers from kinds).
nlohmann::ordered_json cluster_json(const Topology& topology);

/// NCCL's topology XML (the format of NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE) for one host:
///   <system version="1"><cpu numaid=i> <pci ...> ... </cpu></system>
/// Each CPU holds the PCIe tree reached from it (PCIe switches as bridges, class 0x060400), GPUs as
/// <pci class="0x030200"><gpu dev sm rank gdr><nvlink target count tclass/></gpu></pci>, NICs as
/// <pci class="0x020700" (InfiniBand) or "0x020000"><nic><net name="mlx5_<i>" dev speed(Mb/s) port
/// latency gdr/></nic></pci>. PCIe links give link_speed ("32.0 GT/s PCIe") and link_width. Bus ids are
/// synthetic ("0000:01:00.0" in output order); the host's logical NVSwitch is one NVLink target with
/// tclass 0x068000, as in NCCL's VM dumps. Not written: CPU affinity, arch and vendor, GUIDs.
/// Precondition: `host` is a host of `topology`. Deterministic.
void write_nccl_xml(std::ostream& out, const Topology& topology, HostId host);

/// A cluster-only scenario document: {"ringlab": <format version>, "cluster": cluster_json(topology)},
/// indented by two spaces, ending in a newline.
void write_json(std::ostream& out, const Topology& topology);

/// A whole scenario (`topo export -f json`): "ringlab", "name" and "description" (when set), "cluster" as
/// cluster_json(), then "workload", "strategy", "train", "simulate", "nccl" and "layout" as they were read (when not
/// empty; keys in sorted order). load_scenario() of the output gives the same Topology and settings, and
/// exporting that again gives the same bytes. File names inside the sections (a "rank_order" file, a
/// "compute_calibration" file) are written as given: relative to the scenario's directory.
void write_scenario_json(std::ostream& out, const Scenario& scenario);

/// One explicit route of a SimGrid platform: the link directions from src to dst, in order.
struct SimgridRoute {
  DeviceId src = 0;
  DeviceId dst = 0;
  std::vector<DirectionId> directions;  ///< the link directions of the route, in order
};

/// SimGrid link id of every link, by link id: "<a>--<b>" from the device names, with "#<link id>"
/// appended when an earlier link joins the same two devices. SimGrid names the two directions of a
/// SPLITDUPLEX link "<id>_UP" (a->b, direction 2*link) and "<id>_DOWN" (b->a, direction 2*link+1).
std::vector<std::string> simgrid_link_names(const Topology& topology);

/// The routes `topo export -f simgrid` writes: every ordered pair of devices that can be a schedule
/// endpoint (GPUs, CPUs, switches with in-network reduction) that reach each other, each on the path
/// router.route(src, dst, 0) picks (flow key 0: ECMP channel 0). O(endpoints^2) routes.
std::vector<SimgridRoute> simgrid_endpoint_routes(const Topology& topology, const Router& router);

/// SimGrid platform XML, version 4.1, loadable by SimGrid 3.32's Engine::load_platform:
///   one zone "ringlab" with routing="Full" (every route explicit, so SimGrid uses ringlab's paths);
///   a <host> per device, id = device name, speed = HBM bandwidth in bytes/s for GPUs (one flop per
///     byte of HBM traffic) and "1f" for every other device, with <prop id="kind"> (and "gpu_model");
///     switches are hosts rather than routers because in-network reduction makes them endpoints;
///   a <link> per link, sharing_policy SPLITDUPLEX (one capacity per direction, like ringlab's
///     channels), bandwidth per direction and latency as exact unit strings ("400Gbps", "600ns");
///   a <route symmetrical="NO"> per entry of `routes`, a <link_ctn direction="UP|DOWN"> per hop.
/// Per-message software overhead has no SimGrid equivalent and is written as <prop id="overhead">
/// on each link. Deterministic: devices, links and routes in the order given.
/// Precondition: every route is a path of link directions from src to dst of this topology.
void write_simgrid(std::ostream& out, const Topology& topology, std::span<const SimgridRoute> routes);

}  // namespace ringlab
