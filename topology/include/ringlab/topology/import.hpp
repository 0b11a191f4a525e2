// Import of the topology descriptions real clusters already have, into a ringlab Topology.
//
// Two halves are combined into one cluster:
//  - a *fabric* (hosts, fabric switches, links) from Slurm's topology.conf / topology.yaml or from
//    InfiniBand's `ibnetdiscover`;
//  - a *node layout* (one host's GPUs, NICs, CPUs, PCIe switches, NVLink) from `nvidia-smi topo -m`, an
//    NCCL topology XML dump (NCCL_TOPO_DUMP_FILE), or a node template.
// combine() stamps the node layout onto every fabric host and attaches its NICs where the fabric says.
// A fabric alone uses a node template; a node layout alone gives a one-host cluster.
//
// What a format lacks (link speeds in topology.conf, the GPU model in nvidia-smi, PCIe generations, ...)
// comes from the defaults tables (kinds.cpp, the templates in generators.cpp, and the import table in
// import_defaults.hpp); every such assumption is written to the ImportReport, as are suspicious findings
// (InfiniBand links that trained down). Syntax and consistency problems throw one InputError naming
// the file, the line (or YAML line) and what was expected. All functions are deterministic.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ringlab/topology/generators.hpp"
#include "ringlab/topology/kinds.hpp"
#include "ringlab/topology/topology.hpp"
#include "ringlab/topology/units.hpp"

namespace ringlab {

/// What an importer assumed (defaults it filled in) and what it found suspicious.
struct ImportReport {
  std::vector<std::string> assumptions;  ///< "topology.conf: no link speeds: ..."
  std::vector<std::string> warnings;     ///< "ibnetdiscover: link ... trained down to 4xDDR ..."
  void append(const ImportReport& other);
};

/// One end of a fabric link: a fabric switch, or a host port.
struct FabricPort {
  std::string device;  ///< switch name, or host name when `host` is set
  bool host = false;
  /// For a host end: the HCA ("mlx5_0") or, when the format names none (Slurm), "" meaning "the host's
  /// compute NICs", which combine() spreads over all the host's hca-less links.
  std::string hca;
};

struct FabricSwitch {
  std::string name;
  DeviceKind kind = DeviceKind::Leaf;  ///< leaf, spine or core, from the switch's height in the tree
  std::string location;                ///< where the file defines it ("line 4"); "" when unknown
};

struct FabricLink {
  FabricPort a, b;
  /// Port kind, or nullopt when the format gives no speed (Slurm): combine() then uses the NIC's port
  /// kind for host links and a non-blocking bundle of that kind for switch-to-switch links.
  std::optional<LinkKind> kind;
  /// Bandwidth per direction when it differs from the kind's default (a link that trained down).
  std::optional<Bandwidth> bandwidth;
  int lanes = 1;  ///< ports bonded (parallel cables between the same two ends)
  std::string location;  ///< where the file gives it ("line 12"); "" when unknown
};

/// Hosts, switches and links of a network, in file order.
struct Fabric {
  std::string file;
  std::vector<std::string> hosts;
  std::vector<FabricSwitch> switches;
  std::vector<FabricLink> links;
  ImportReport report;
};

/// One NIC of a node layout.
struct NodeNic {
  DeviceId device = 0;       ///< the NIC in NodeLayout::node
  std::string hca;           ///< "mlx5_0"; "" when unknown
  LinkKind port = LinkKind::IbNdr;  ///< port kind of its network link
  Bandwidth bandwidth;       ///< port bandwidth per direction
  bool near_gpu = false;     ///< shares a PCIe switch with a GPU (a compute / rail NIC)
  Transport transport = Transport::Rdma;  ///< of its network link (Srd for AWS EFA)
};

/// One host's devices and internal links, as a Topology holding a single host.
struct NodeLayout {
  std::string file;
  Topology node;               ///< exactly one host; device names "<host>/<kind><index>"
  std::vector<NodeNic> nics;   ///< in NIC local-index order
  ImportReport report;
  /// The file names the CPUs' vendor (NCCL XML's <cpu vendor=, arch=>): set_layout_cpu_vendor() may
  /// not contradict it.
  bool cpu_vendor_stated = false;
  /// Non-empty when the file does not say and the host took ringlab's default (Intel): why, reported
  /// by combine() as an assumption unless set_layout_cpu_vendor() has given a vendor.
  std::string cpu_vendor_assumption;
};

/// Expands a Slurm hostlist expression: "gpu[001-128]", "rack[0-3]-n[00-15]", "a[1,3,5-7],b",
/// "tux[2,1-2]". Ranges keep the zero padding of their first bound; several bracket groups in one
/// name give their Cartesian product (leftmost group varies slowest). Names keep their order of
/// appearance (duplicates included). Throws std::invalid_argument saying what was expected.
std::vector<std::string> expand_hostlist(std::string_view expression);

/// Slurm topology.conf (topology/tree: SwitchName=, Switches=, Nodes=, LinkSpeed=). Throws InputError.
Fabric parse_slurm_topology_conf(std::string_view text, const std::string& file);
/// Slurm topology.yaml: the tree topology (the cluster_default one, else the first). Throws InputError.
Fabric parse_slurm_topology_yaml(std::string_view text, const std::string& file);
/// `ibnetdiscover` topology output (Switch/Ca blocks with their port lines). Throws InputError.
Fabric parse_ibnetdiscover(std::string_view text, const std::string& file);

/// `nvidia-smi topo -m` output. `host` names the host of the layout. Throws InputError.
NodeLayout parse_nvidia_smi_topo(std::string_view text, const std::string& file, const std::string& host = "node0");
/// NCCL topology XML (NCCL_TOPO_DUMP_FILE / NCCL_TOPO_FILE). `fill` names the machine's template for
/// what the file does not say (GPU model, the NVLink of PCI-only files, NIC rates without speed=); each
/// use is an assumption in the report. Throws InputError.
NodeLayout parse_nccl_topo_xml(std::string_view text, const std::string& file, const std::string& host = "node0",
                               std::optional<NodeTemplate> fill = std::nullopt);
/// The layout of a node template (its NICs named mlx5_<i>).
NodeLayout template_layout(NodeTemplate t, const std::string& host = "node0");

/// Gives the host of `layout` CPUs of `vendor`, which `nvidia-smi topo -m` cannot show and on which
/// NCCL's PCIe overhead and tuning depend. Socket links of another vendor's kind become this vendor's
/// default (xgmi for AMD, smp for Intel and other CPUs), reported as an assumption; the vendor
/// assumption goes. `option` names the setting in messages ("--cpu-vendor"). Throws InputError naming
/// the layout's file when the file names another vendor.
void set_layout_cpu_vendor(NodeLayout& layout, CpuVendor vendor, std::string_view option);

/// The cluster from a fabric and/or a node layout (at least one). Without a layout, `node_template`
/// builds one. Fabric hosts are added in fabric order, each with the layout's devices and links, then
/// the switches, then the fabric links. Throws InputError naming the fabric's file and line when they
/// do not fit together: a fabric of separate networks (GPUs that could not reach each other), a fabric
/// host whose HCAs cannot be matched to any NIC, ...
struct ImportedCluster {
  Topology cluster;
  ImportReport report;
};
ImportedCluster combine(const Fabric* fabric, const NodeLayout* layout,
                        NodeTemplate node_template = NodeTemplate::Generic);

/// Reads a whole text file; throws InputError naming the file when it cannot be read.
std::string read_import_file(const std::string& path);

}  // namespace ringlab
