// Export of a cluster graph: Graphviz DOT and GraphML for drawing and graph tools, and ringlab's own
// scenario JSON (the explicit "cluster" form) that load_scenario reads back into the same Topology.
//
// Every writer is deterministic: devices in id order, links in id order, fixed attribute sets.
// Attributes carry units in their values ("400Gbps", "600ns"); bandwidths are per direction.
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

#include "ringlab/topology/topology.hpp"

namespace ringlab {

/// Graphviz DOT, an undirected graph. Node id = device name; node attributes label, kind, host, rack,
/// tier; edge attributes label ("<kind> <bandwidth>"), kind, lanes, transport, bandwidth, latency,
/// overhead.
void write_dot(std::ostream& out, const Topology& topology);

/// GraphML with the same node and edge attributes as write_dot (all of type string), undirected edges.
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

/// A whole scenario document: {"ringlab": <format version>, "cluster": cluster_json(topology)},
/// indented by two spaces, ending in a newline.
void write_json(std::ostream& out, const Topology& topology);

}  // namespace ringlab
