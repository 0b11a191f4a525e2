// Generators: build whole clusters (nodes of a template, joined by a fabric) into a Topology.
//
// A cluster is N identical nodes plus a network fabric connecting their NICs. A node is described by a
// NodeSpec, normally taken from a named template (dgx_h100, dgx_a100, pcie8, v100x4, generic, and the
// catalogue of DGX and rented cloud nodes: dgx_h200, aws_p5, azure_ndv5, gcp_a3_mega, ...) and then
// overridden field by field; a fabric by a FabricSpec (single_switch, leaf_spine, fat_tree3,
// rail_optimized, racks, dragonfly). Every bandwidth and latency comes from the defaults tables in kinds.hpp via
// Topology::default_link; the generators only decide which devices exist and how they are wired.
//
// Names: hosts "<prefix><i>" ("node3"); devices "node3/gpu5", "node3/nvswitch" (or, for a
// multi-node NVLink domain, "<fabric prefix>nvlink0" outside the hosts), "node3/cpu0",
// "node3/pcie1", "node3/nic0"; fabric switches "<fabric prefix>" followed by "switch", "leaf0", "tor0",
// "spine0", "core0", "core" or, for dragonfly routers, "g<group>r<router>" ("g2r0"); racks
// "<fabric prefix>rack0". Output is deterministic: the same spec always gives the same ids.
//
// One logical NVSwitch per node: the physical NVSwitch chips of a DGX/HGX baseboard (4 on H100, 6 on
// A100) each carry a slice of every GPU's NVLinks and are used in parallel by the hardware. Routing
// picks one path per flow, so four chips modelled separately would force a flow onto a quarter of the
// GPU's NVLink bandwidth; one switch holding each GPU's aggregated links models the real capacity.
//
// JSON keys in scenario files are the field names below (see docs/scenario-format.md), and
// check_cluster_spec names fields the same way, so a problem can be located in the file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ringlab/topology/kinds.hpp"
#include "ringlab/topology/topology.hpp"

namespace ringlab {

/// Named node presets; see node_template() for what each one builds. New templates are appended (the
/// enum indexes the template table).
enum class NodeTemplate : std::uint8_t {
  DgxA100, DgxH100, Pcie8, V100x4, Generic,
  DgxH200, DgxB200,
  AwsP4d, AwsP4de, AwsP5, AwsP5e,
  AzureNdv4, AzureNdmV4, AzureNdv5, AzureNdH200v5,
  GcpA3, GcpA3Mega, GcpA3Ultra,
  OciBmGpu4_8, OciBmGpuH100_8,
  Gb200Nvl72,
  AzureNdGb200v6,
};
inline constexpr int kNodeTemplateCount = 22;

/// How a node's GPUs talk to each other without PCIe.
enum class GpuInterconnect : std::uint8_t {
  None,      ///< PCIe only
  NvSwitch,  ///< every GPU has `nvlinks` bonded links to one logical NVSwitch
  AllToAll,  ///< direct NVLink between every GPU pair, nvlinks / (gpus - 1) links per pair
};

/// One node (server). All link speeds come from kinds.hpp for the kinds named here.
struct NodeSpec {
  NodeTemplate base = NodeTemplate::Generic;  ///< template it started from; recorded as Host::template_name
  int gpus = 8;
  GpuModel gpu_model = GpuModel::Generic;
  GpuInterconnect gpu_interconnect = GpuInterconnect::None;
  LinkKind nvlink = LinkKind::NvLink3;  ///< NVLink generation (ignored for GpuInterconnect::None)
  int nvlinks = 0;                      ///< NVLink links per GPU in total
  bool nvswitch_reduction = false;      ///< NVSwitch reduces in the network (NVLink SHARP / NVLS)
  int cpus = 2;                         ///< CPU sockets; more than one are joined pairwise by `cpu_link`
  LinkKind cpu_link = LinkKind::Smp;    ///< CPU socket link kind (smp, qpi, upi_spr, upi_emr, xgmi)
  /// The CPUs' vendor (Host::cpu_vendor); unset: the one cpu_link names (xgmi: amd; smp, qpi,
  /// upi_*: intel). When set on several sockets it must match cpu_link (intel: smp, qpi, upi_*; amd:
  /// xgmi; other: smp).
  std::optional<CpuVendor> cpu_vendor;
  /// The vendor its hosts get: cpu_vendor, else the one cpu_link names.
  CpuVendor host_cpu_vendor() const {
    return cpu_vendor.value_or(socket_link_vendor(cpu_link).value_or(CpuVendor::Intel));
  }
  LinkKind pcie = LinkKind::Pcie4;      ///< PCIe generation of every host-internal PCIe link
  int pcie_lanes = 16;                  ///< width of each PCIe link
  /// PCIe switches; GPU i sits on switch i*S/gpus, NIC j on switch j*S/nics, switch s on CPU
  /// s*cpus/S. With 0, GPUs and NICs attach to the CPUs directly by the same rule.
  int pcie_switches = 4;
  int nics = 1;                           ///< compute NICs; NIC i is rail i
  LinkKind nic = LinkKind::Eth100;        ///< NIC port kind (InfiniBand or Ethernet)
  int nic_ports = 1;                      ///< ports per NIC bonded into its fabric link
  Transport transport = Transport::Rdma;  ///< rdma, tcp, srd or tcpx (InfiniBand is always rdma)
  /// Hosts whose GPUs share one NVLink switch (multi-node NVLink, GB200 NVL72: 18 trays): with more
  /// than 1, the `nvswitch` interconnect of consecutive groups of this many hosts is one NVSwitch
  /// outside them, named "<fabric prefix>nvlink<d>", in place of one per host. A node count that it
  /// does not divide leaves the last domain partly filled (a rack with fewer trays).
  int nvlink_domain = 1;

  /// A default-constructed NodeSpec equals node_template(NodeTemplate::Generic).
  friend bool operator==(const NodeSpec&, const NodeSpec&) = default;
};

enum class FabricKind : std::uint8_t { None, SingleSwitch, LeafSpine, FatTree3, RailOptimized, Racks, Dragonfly };

/// The network joining the NICs of a cluster's nodes. Fields a kind does not use are ignored.
/// Uplink lane counts are derived from `oversubscription` = (downlink bandwidth of a leaf) /
/// (uplink bandwidth of that leaf): the uplink port count is rounded *up*, then spread evenly over the
/// upper switches (again rounded up), so the achieved ratio is never worse than the one asked for.
///
/// Dragonfly (HPE Slingshot, Cray EX): routers in groups of `routers_per_group`, all-to-all "local"
/// links inside a group, `global_links` links between every pair of groups spread round-robin over
/// each group's routers; node i's NICs all go to router i / nodes_per_leaf; one rack per group. Local
/// and global links are of kind `uplink` with `uplinks` ports bonded. Routing stays shortest-path in
/// hops with ECMP: minimal routing, at most local-global-local, though an equally short path through a
/// third group is an ECMP choice too; adaptive (non-minimal) routing is not modelled.
struct FabricSpec {
  FabricKind kind = FabricKind::SingleSwitch;
  int nodes_per_leaf = 0;             ///< per leaf (ToR, dragonfly router); must divide nodes; not rail_optimized
  int spines = 2;                     ///< leaf_spine, rail_optimized (0 allowed with one group); fat_tree3: per pod
  double oversubscription = 1.0;      ///< >= 1, at the leaf tier (leaf_spine, fat_tree3, rail_optimized)
  int leaves_per_pod = 2;             ///< fat_tree3; must divide the number of leaves
  int cores = 2;                      ///< fat_tree3 core switches (the aggregation->core tier is non-blocking)
  int nodes_per_group = 0;            ///< rail_optimized nodes per rail group (scalable unit); 0 = all nodes
  std::optional<LinkKind> uplink;     ///< kind of switch-to-switch links; default: the nodes' NIC kind
  int uplinks = 1;                    ///< ports bonded in each racks ToR-to-core / dragonfly router-to-router link
  int routers_per_group = 0;          ///< dragonfly; must divide the routers (nodes / nodes_per_leaf)
  int global_links = 1;               ///< dragonfly links joining each pair of groups, >= 1
  bool in_network_reduction = false;  ///< set on every fabric switch (SHARP)
  std::string prefix;                 ///< prepended to switch and rack names
};

/// `nodes` identical nodes named "<prefix><i>" and the fabric between them.
struct ClusterSpec {
  int nodes = 1;
  std::string prefix = "node";
  NodeSpec node;
  FabricSpec fabric;
};

/// A problem with a spec: `field` is the path of the offending field relative to the ClusterSpec,
/// spelled as in scenario files ("fabric/nodes_per_leaf", "node/nics"); `message` says what was expected.
struct SpecProblem {
  std::string field;
  std::string message;
};

/// The preset of a template:
///  - dgx_a100 (hgx_a100): 8x A100, NVSwitch with 12 nvlink3 per GPU, 2 CPUs, 4 pcie4 switches each
///    with 2 GPUs and 2 NICs, 8x ib_hdr (200 Gb/s).
///  - dgx_h100 (hgx_h100): 8x H100, NVSwitch with 18 nvlink4 per GPU (NVLS reduction), 2 CPUs,
///    8 pcie5 switches pairing GPU i with NIC i, 8x ib_ndr (400 Gb/s).
///  - pcie8: 8x A100 without NVLink, 2 CPUs, 4 pcie4 switches, 2x ib_hdr.
///  - v100x4: 4x V100, NVLink all-to-all with 2 nvlink2 per pair, 2 CPUs, 2 pcie3 switches, 1x ib_edr.
///  - generic: 8x generic GPU, no NVLink, 2 CPUs, 4 pcie4 switches, 1x eth100 (RoCE).
///  - dgx_h200 (hgx_h200), dgx_b200 (hgx_b200): as dgx_h100 with 8x H200 / 8x B200 (nvlink5).
///  - rented 8-GPU nodes, named <cloud>_<type> with the vendor's type name as alias: aws_p4d, aws_p4de,
///    aws_p5, aws_p5e (EFA as eth100 rdma), azure_ndv4, azure_ndm_v4, azure_ndv5, azure_nd_h200_v5
///    (InfiniBand), gcp_a3, gcp_a3_mega (eth200 tcp: GPUDirect-TCPX/TCPXO), gcp_a3_ultra (eth400 RoCE),
///    oci_bm_gpu4_8, oci_bm_gpu_h100_8 (RoCE). NIC counts, speeds and sources in generators.cpp and
///    docs/scenario-format.md.
NodeSpec node_template(NodeTemplate t);
/// Accepts the names above, including the hgx_* and vendor type aliases; nullopt when unknown.
std::optional<NodeTemplate> find_node_template(std::string_view name);
std::string_view to_string(NodeTemplate t);
/// Where the template's numbers come from (spec sheet, instance page; inferences marked).
std::string_view node_template_source(NodeTemplate t);
std::string node_template_names();

std::optional<GpuInterconnect> find_gpu_interconnect(std::string_view name);
std::string_view to_string(GpuInterconnect g);
std::string gpu_interconnect_names();

std::optional<FabricKind> find_fabric_kind(std::string_view name);
std::string_view to_string(FabricKind k);
std::string fabric_kind_names();

/// Fabric tier of a device kind: leaf 1, spine 2, core 3, anything else 0.
int default_tier(DeviceKind kind);

/// Sets the GPU model and, from gpu_spec(), its NVLink generation and links per GPU.
void set_gpu_model(NodeSpec& node, GpuModel model);

/// Every problem with the spec (counts out of range, nodes_per_leaf not dividing nodes,
/// oversubscription < 1, link kinds of the wrong family, ...); empty when add_cluster may be called.
std::vector<SpecProblem> check_cluster_spec(const ClusterSpec& spec);

/// Adds the cluster's racks, hosts, devices and links to `topology`.
/// Preconditions: check_cluster_spec(spec) is empty (else std::invalid_argument is thrown) and none of
/// the names it creates exists in `topology` yet (build make_cluster(spec) first to list them).
void add_cluster(Topology& topology, const ClusterSpec& spec);

/// Convenience: a new topology holding just this cluster.
Topology make_cluster(const ClusterSpec& spec);

}  // namespace ringlab
