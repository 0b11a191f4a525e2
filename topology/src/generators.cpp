// Generators: node templates and fabrics (see generators.hpp for the model and naming).
//
// The template table below is the only place where node layouts are written down; link speeds come
// from kinds.cpp through Topology::default_link. The checks mirror the scenario-file keys so the
// scenario loader can point at the offending field.
#include "ringlab/topology/generators.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace ringlab {
namespace {

struct TemplateRow {
  NodeTemplate id;
  std::string_view name;
  std::string_view alias;  ///< second accepted name, or ""
  GpuModel gpu;
  int gpus;
  GpuInterconnect interconnect;
  bool nvswitch_reduction;
  int cpus;
  LinkKind pcie;
  int pcie_switches;
  int nics;
  LinkKind nic;
  Transport transport;
  std::string_view source;
  int nvlink_domain = 1;  ///< hosts per multi-node NVLink domain (NodeSpec::nvlink_domain)
};

// Node layouts. NVLink generation and links per GPU come from gpu_spec(gpu); PCIe width from
// link_defaults(pcie).default_lanes. Storage, management and host (front-end) NICs are left out: they
// carry no gradient traffic. One row per NIC port that NCCL sees as a device: a dual-port card is two
// NICs. Where a vendor publishes no PCIe switch layout, the HGX board's layout is assumed and the
// source says so ("inferred"). GPU i sits on PCIe switch i*S/gpus and NIC j on switch j*S/nics.
constexpr std::array<TemplateRow, kNodeTemplateCount> kTemplates{{
    {NodeTemplate::DgxA100, "dgx_a100", "hgx_a100", GpuModel::A100, 8, GpuInterconnect::NvSwitch, false, 2,
     LinkKind::Pcie4, 4, 8, LinkKind::IbHdr, Transport::Rdma,
     "NVIDIA DGX A100 System Architecture white paper (2020): 8 A100 SXM4, 6 NVSwitch, 4 PCIe gen4 "
     "switches each with 2 GPUs and 2 ConnectX-6 HDR 200 Gb/s NICs, 2x AMD EPYC 7742"},
    {NodeTemplate::DgxH100, "dgx_h100", "hgx_h100", GpuModel::H100, 8, GpuInterconnect::NvSwitch, true, 2,
     LinkKind::Pcie5, 8, 8, LinkKind::IbNdr, Transport::Rdma,
     "NVIDIA DGX H100 User Guide (2023): 8 H100 SXM5, 4 third-generation NVSwitch with NVLink SHARP, "
     "8 ConnectX-7 NDR 400 Gb/s, each on a PCIe gen5 switch with its GPU, 2x Xeon 8480C"},
    {NodeTemplate::Pcie8, "pcie8", "", GpuModel::A100Pcie, 8, GpuInterconnect::None, false, 2, LinkKind::Pcie4, 4, 2,
     LinkKind::IbHdr, Transport::Rdma,
     "typical 8-GPU PCIe gen4 server (e.g. Supermicro SYS-420GP-TNR): 8 A100 80GB PCIe, 4 PCIe switches under 2 sockets, "
     "2 HDR NICs"},
    {NodeTemplate::V100x4, "v100x4", "", GpuModel::V100, 4, GpuInterconnect::AllToAll, false, 2, LinkKind::Pcie3, 2, 1,
     LinkKind::IbEdr, Transport::Rdma,
     "4-GPU V100 SXM2 server (DGX Station, a DGX-1 quad): each V100's 6 NVLink2 links as 2 to each "
     "peer, PCIe gen3, one EDR 100 Gb/s NIC"},
    {NodeTemplate::Generic, "generic", "", GpuModel::Generic, 8, GpuInterconnect::None, false, 2, LinkKind::Pcie4, 4, 1,
     LinkKind::Eth100, Transport::Rdma, "a neutral starting point for custom nodes: PCIe gen4, one 100GbE RoCE NIC"},
    // ---- DGX systems --------------------------------------------------------------------------------
    {NodeTemplate::DgxH200, "dgx_h200", "hgx_h200", GpuModel::H200, 8, GpuInterconnect::NvSwitch, true, 2,
     LinkKind::Pcie5, 8, 8, LinkKind::IbNdr, Transport::Rdma,
     "NVIDIA DGX H200 datasheet (2024): 8 H200 SXM 141 GB, 4 NVSwitch (NVLink4, 900 GB/s per GPU, NVLink "
     "SHARP), 8 single-port ConnectX-7 NDR 400 Gb/s, 2x Xeon 8480C; PCIe gen5 layout as DGX H100 (same "
     "system board, inferred)"},
    {NodeTemplate::DgxB200, "dgx_b200", "hgx_b200", GpuModel::B200, 8, GpuInterconnect::NvSwitch, true, 2,
     LinkKind::Pcie5, 8, 8, LinkKind::IbNdr, Transport::Rdma,
     "NVIDIA DGX B200 datasheet (2024): 8 B200 (1440 GB), 2 fifth-generation NVLink switches (NVLink5 "
     "1.8 TB/s per GPU, NVLink SHARP), 8 single-port ConnectX-7 VPI 400 Gb/s (taken as NDR InfiniBand), "
     "2x Xeon Platinum 8570; PCIe gen5 switches pairing GPU i with NIC i as in DGX H100 (inferred)"},
    // ---- AWS (EFA: AWS's SRD transport over Ethernet-speed ports, Transport::Srd) --------------------
    {NodeTemplate::AwsP4d, "aws_p4d", "p4d.24xlarge", GpuModel::A100_40GB, 8, GpuInterconnect::NvSwitch, false, 2,
     LinkKind::Pcie4, 4, 4, LinkKind::Eth100, Transport::Srd,
     "AWS EC2 P4 instance page (p4d.24xlarge): 8 A100 40GB, NVSwitch 600 GB/s per GPU, 400 Gb/s EFA as "
     "4x 100 Gb/s EFA with GPUDirect RDMA, 2x Xeon 8275CL (gen3 root ports); HGX A100 board: 4 PCIe gen4 "
     "switches each with 2 GPUs and 1 EFA NIC (inferred)"},
    {NodeTemplate::AwsP4de, "aws_p4de", "p4de.24xlarge", GpuModel::A100, 8, GpuInterconnect::NvSwitch, false, 2,
     LinkKind::Pcie4, 4, 4, LinkKind::Eth100, Transport::Srd,
     "AWS EC2 P4 instance page (p4de.24xlarge): 8 A100 80GB, otherwise as p4d.24xlarge (NVSwitch, "
     "4x 100 Gb/s EFA, GPUDirect RDMA; PCIe layout inferred)"},
    {NodeTemplate::AwsP5, "aws_p5", "p5.48xlarge", GpuModel::H100, 8, GpuInterconnect::NvSwitch, true, 2,
     LinkKind::Pcie5, 8, 32, LinkKind::Eth100, Transport::Srd,
     "AWS EC2 P5 instance page (p5.48xlarge): 8 H100 80GB, NVSwitch 900 GB/s per GPU, 3200 Gb/s EFAv2 as "
     "32 network cards of 100 Gb/s with GPUDirect RDMA, 2x AMD EPYC 7R13; 8 PCIe gen5 switches each with "
     "1 GPU and 4 EFA NICs (inferred from the HGX H100 board); NVLS as on HGX H100 (inferred)"},
    {NodeTemplate::AwsP5e, "aws_p5e", "p5e.48xlarge", GpuModel::H200, 8, GpuInterconnect::NvSwitch, true, 2,
     LinkKind::Pcie5, 8, 32, LinkKind::Eth100, Transport::Srd,
     "AWS EC2 P5 instance page (p5e.48xlarge): 8 H200 141 GB, NVSwitch 900 GB/s per GPU, 3200 Gb/s EFA "
     "as 32x 100 Gb/s, GPUDirect RDMA; layout as p5.48xlarge (inferred)"},
    // ---- Azure ---------------------------------------------------------------------------------------
    {NodeTemplate::AzureNdv4, "azure_ndv4", "Standard_ND96asr_v4", GpuModel::A100_40GB, 8, GpuInterconnect::NvSwitch,
     false, 2, LinkKind::Pcie4, 4, 8, LinkKind::IbHdr, Transport::Rdma,
     "Azure ND A100 v4-series page (Standard_ND96asr_v4): 8 A100 40GB SXM with NVLink3/NVSwitch, 8x 200 Gb/s "
     "HDR InfiniBand (one per GPU, GPUDirect RDMA), 2x AMD EPYC 7V12 (PCIe gen4); HGX A100 PCIe layout as "
     "DGX A100 (inferred)"},
    {NodeTemplate::AzureNdmV4, "azure_ndm_v4", "Standard_ND96amsr_A100_v4", GpuModel::A100, 8,
     GpuInterconnect::NvSwitch, false, 2, LinkKind::Pcie4, 4, 8, LinkKind::IbHdr, Transport::Rdma,
     "Azure NDm A100 v4-series page (Standard_ND96amsr_A100_v4): 8 A100 80GB SXM, NVSwitch, 8x 200 Gb/s HDR "
     "InfiniBand, 2x AMD EPYC 7V12; layout as azure_ndv4 (inferred)"},
    {NodeTemplate::AzureNdv5, "azure_ndv5", "Standard_ND96isr_H100_v5", GpuModel::H100, 8, GpuInterconnect::NvSwitch,
     true, 2, LinkKind::Pcie5, 8, 8, LinkKind::IbNdr, Transport::Rdma,
     "Azure ND H100 v5-series page (Standard_ND96isr_H100_v5): 8 H100 80GB SXM, NVLink4/NVSwitch, 8x 400 Gb/s "
     "NDR InfiniBand (one per GPU, 3.2 Tb/s), 2x Xeon Sapphire Rapids (PCIe gen5); PCIe layout as DGX H100 "
     "(inferred)"},
    {NodeTemplate::AzureNdH200v5, "azure_nd_h200_v5", "Standard_ND96isr_H200_v5", GpuModel::H200, 8,
     GpuInterconnect::NvSwitch, true, 2, LinkKind::Pcie5, 8, 8, LinkKind::IbNdr, Transport::Rdma,
     "Azure ND H200 v5-series page (Standard_ND96isr_H200_v5): 8 H200 141 GB SXM, NVSwitch, 8x 400 Gb/s NDR "
     "InfiniBand, 2x Xeon Sapphire Rapids; layout as azure_ndv5 (inferred)"},
    // ---- Google Cloud (the 200 Gb/s primary host NIC is left out) -----------------------------------
    {NodeTemplate::GcpA3, "gcp_a3", "a3-highgpu-8g", GpuModel::H100, 8, GpuInterconnect::NvSwitch, true, 2,
     LinkKind::Pcie5, 4, 4, LinkKind::Eth200, Transport::Tcpx,
     "GCP A3 machine series and GKE GPUDirect-TCPX pages (a3-highgpu-8g): 8 H100 80GB, 4 GPU NICs of "
     "200 Gb/s with GPUDirect-TCPX (TCP into GPU memory: tcpx), 2x Xeon Sapphire Rapids; 4 PCIe gen5 "
     "switches each with 2 GPUs and 1 GPU NIC (inferred from one NIC per GPU pair)"},
    {NodeTemplate::GcpA3Mega, "gcp_a3_mega", "a3-megagpu-8g", GpuModel::H100, 8, GpuInterconnect::NvSwitch, true, 2,
     LinkKind::Pcie5, 8, 8, LinkKind::Eth200, Transport::Tcpx,
     "GCP A3 machine series page (a3-megagpu-8g): 8 H100 80GB, 8 GPU NICs of 200 Gb/s (1600 Gb/s) with "
     "GPUDirect-TCPXO (TCP with NIC offload; modelled as tcpx, inferred), one NIC per GPU on its PCIe gen5 "
     "switch (inferred)"},
    {NodeTemplate::GcpA3Ultra, "gcp_a3_ultra", "a3-ultragpu-8g", GpuModel::H200, 8, GpuInterconnect::NvSwitch, true,
     2, LinkKind::Pcie5, 8, 8, LinkKind::Eth400, Transport::Rdma,
     "GCP A3 machine series page (a3-ultragpu-8g): 8 H200 141 GB, 8 ConnectX-7 400 Gb/s RoCE (3200 Gb/s, "
     "GPUDirect RDMA), one per GPU, 2x Xeon Emerald Rapids; PCIe gen5 switch per GPU/NIC pair (inferred)"},
    // ---- Oracle Cloud (the host NIC is left out) ------------------------------------------------------
    {NodeTemplate::OciBmGpu4_8, "oci_bm_gpu4_8", "BM.GPU4.8", GpuModel::A100_40GB, 8, GpuInterconnect::NvSwitch, false,
     2, LinkKind::Pcie4, 4, 16, LinkKind::Eth100, Transport::Rdma,
     "OCI Compute shapes page (BM.GPU4.8): 8 A100 40GB SXM, cluster network 16x 100 Gb/s RDMA (RoCEv2, "
     "8 dual-port NICs, 1.6 Tb/s), 2x AMD EPYC 7542 (PCIe gen4); 4 PCIe gen4 switches each with 2 GPUs and "
     "4 NIC ports (HGX A100 layout, inferred)"},
    {NodeTemplate::OciBmGpuH100_8, "oci_bm_gpu_h100_8", "BM.GPU.H100.8", GpuModel::H100, 8, GpuInterconnect::NvSwitch,
     true, 2, LinkKind::Pcie5, 8, 16, LinkKind::Eth200, Transport::Rdma,
     "OCI Compute shapes page (BM.GPU.H100.8): 8 H100 80GB SXM, cluster network 16x 200 Gb/s RDMA (RoCEv2, "
     "8 dual-port ConnectX-7, 3.2 Tb/s), 2x Xeon Platinum 8480+; 8 PCIe gen5 switches each with 1 GPU and "
     "2 NIC ports (inferred)"},
    // ---- Multi-node NVLink ---------------------------------------------------------------------------
    {NodeTemplate::Gb200Nvl72, "gb200_nvl72", "", GpuModel::GB200, 4, GpuInterconnect::NvSwitch, true, 2,
     LinkKind::Pcie5, 4, 4, LinkKind::IbNdr, Transport::Rdma,
     "NVIDIA GB200 NVL72 spec page: a rack of 72 Blackwell GPUs and 36 Grace CPUs in 18 compute trays "
     "(4 GPUs, 2 Grace each) on one NVLink domain, 1.8 TB/s NVLink per GPU (18 NVLink5 links) through the "
     "rack's NVLink switch trays, NVLink SHARP; compute network 4x ConnectX-7 400 Gb/s per tray. The NVLink "
     "switch trays are one logical NVSwitch per rack (nvlink_domain 18); GPU-to-Grace NVLink-C2C is "
     "modelled as the NIC's PCIe gen5 path (inferred)",
     18},
    {NodeTemplate::AzureNdGb200v6, "azure_nd_gb200_v6", "Standard_ND128isr_NDR_GB200_v6", GpuModel::GB200, 4,
     GpuInterconnect::NvSwitch, true, 2, LinkKind::Pcie5, 4, 4, LinkKind::IbNdr, Transport::Rdma,
     "Azure ND GB200 v6-series page (Standard_ND128isr_NDR_GB200_v6): one GB200 NVL72 compute tray, 2 Grace "
     "CPUs and 4 Blackwell GPUs with 1.8 TB/s NVLink5 each, 18 VMs to a 72-GPU NVLink domain, 4x 400 Gb/s "
     "Quantum-2 ConnectX-7 InfiniBand (the 160 Gb/s front-end NIC left out); otherwise as gb200_nvl72 (inferred)",
     18},
}};
static_assert(
    [] {
      for (std::size_t i = 0; i < kTemplates.size(); ++i)
        if (kTemplates[i].id != NodeTemplate(i)) return false;
      return true;
    }(),
    "kTemplates rows must be in NodeTemplate order");

// CPU socket links of the templates whose CPUs are not Skylake-class Xeons (those, and templates
// whose source names no CPU, keep smp): the CPUs each row's source names, or the instance page's.
struct TemplateCpuLink {
  NodeTemplate id;
  LinkKind cpu_link;
};
constexpr std::array<TemplateCpuLink, 15> kTemplateCpuLinks{{
    {NodeTemplate::DgxA100, LinkKind::Xgmi},        // 2x AMD EPYC 7742
    {NodeTemplate::DgxH100, LinkKind::UpiSpr},      // 2x Xeon 8480C
    {NodeTemplate::DgxH200, LinkKind::UpiSpr},      // 2x Xeon 8480C
    {NodeTemplate::DgxB200, LinkKind::UpiEmr},      // 2x Xeon Platinum 8570
    {NodeTemplate::AwsP5, LinkKind::Xgmi},          // 2x AMD EPYC 7R13
    {NodeTemplate::AwsP5e, LinkKind::Xgmi},         // AWS P5 instance page: p5e also on AMD EPYC 7R13
    {NodeTemplate::AzureNdv4, LinkKind::Xgmi},      // 2x AMD EPYC 7V12
    {NodeTemplate::AzureNdmV4, LinkKind::Xgmi},     // 2x AMD EPYC 7V12
    {NodeTemplate::AzureNdv5, LinkKind::UpiSpr},    // 2x Xeon Sapphire Rapids
    {NodeTemplate::AzureNdH200v5, LinkKind::UpiSpr},  // 2x Xeon Sapphire Rapids
    {NodeTemplate::GcpA3, LinkKind::UpiSpr},        // 2x Xeon Sapphire Rapids
    {NodeTemplate::GcpA3Mega, LinkKind::UpiSpr},    // as a3-highgpu-8g (inferred)
    {NodeTemplate::GcpA3Ultra, LinkKind::UpiEmr},   // 2x Xeon Emerald Rapids
    {NodeTemplate::OciBmGpu4_8, LinkKind::Xgmi},    // 2x AMD EPYC 7542
    {NodeTemplate::OciBmGpuH100_8, LinkKind::UpiSpr},  // 2x Xeon Platinum 8480+
}};

constexpr std::array<std::string_view, 3> kInterconnectNames{"none", "nvswitch", "all_to_all"};
constexpr std::array<std::string_view, 7> kFabricNames{"none",           "single_switch", "leaf_spine", "fat_tree3",
                                                       "rail_optimized", "racks",         "dragonfly"};

// Sanity limits against typos ("nodes": 1000000) that would exhaust memory; not hardware limits.
struct Limits {
  int nodes = 65536;
  int gpus = 64;
  int cpus = 8;
  int pcie_switches = 64;
  int nics = 64;
  int lanes = 64;
  int switches = 4096;
  double oversubscription = 1024.0;
  std::int64_t links = 4'000'000;  ///< host-internal links of the whole cluster
};
constexpr Limits kLimits;

// Slack for the uplink port count: 16.000000001 ports needed means 16, not 17.
constexpr double kRoundingSlack = 1e-9;

const TemplateRow& template_row(NodeTemplate t) { return kTemplates[std::size_t(t)]; }

template <typename Names>
std::string join_names(const Names& names) {
  std::string out;
  for (std::string_view n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

template <typename Names>
std::optional<std::size_t> index_of(const Names& names, std::string_view name) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return i;
  return std::nullopt;
}

bool is_network(LinkKind k) {
  const LinkFamily f = link_family(k);
  return f == LinkFamily::InfiniBand || f == LinkFamily::Ethernet;
}

// Bandwidth per direction of one link of `kind` with `lanes` lanes, as Topology would build it.
Bandwidth link_bandwidth(LinkKind kind, int lanes) { return Topology::default_link(0, 1, kind, lanes).bandwidth; }

// ---- checks ----------------------------------------------------------------------------------------

class Checker {
 public:
  void range(std::string field, int value, int lo, int hi) {
    if (value >= lo && value <= hi) return;
    add(std::move(field), "expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + ", got " +
                              std::to_string(value));
  }
  void divides(std::string field, int divisor, int total, std::string_view total_name) {
    if (divisor < 1 || total % divisor == 0) return;
    add(std::move(field), std::to_string(divisor) + " does not divide the " + std::string(total_name) + " (" +
                              std::to_string(total) + "): expected a divisor of " + std::to_string(total));
  }
  void family(std::string field, LinkKind kind, bool ok, std::string_view expected) {
    if (ok) return;
    add(std::move(field), "link kind \"" + std::string(to_string(kind)) + "\" is not " + std::string(expected));
  }
  void add(std::string field, std::string message) {
    problems_.push_back(SpecProblem{std::move(field), std::move(message)});
  }
  std::vector<SpecProblem> take() { return std::move(problems_); }

 private:
  std::vector<SpecProblem> problems_;
};

void check_node(Checker& c, const NodeSpec& n, bool needs_nics) {
  c.range("node/gpus", n.gpus, 1, kLimits.gpus);
  c.range("node/cpus", n.cpus, 1, kLimits.cpus);
  c.range("node/pcie_switches", n.pcie_switches, 0, kLimits.pcie_switches);
  c.range("node/pcie_lanes", n.pcie_lanes, 1, kLimits.lanes);
  c.range("node/nics", n.nics, needs_nics ? 1 : 0, kLimits.nics);
  c.range("node/nic_ports", n.nic_ports, 1, kLimits.lanes);
  c.family("node/pcie", n.pcie, link_family(n.pcie) == LinkFamily::Pcie, "a PCIe generation (pcie3 .. pcie6)");
  c.family("node/cpu_link", n.cpu_link, link_family(n.cpu_link) == LinkFamily::Smp,
           "a CPU socket link kind (smp, qpi, upi_spr, upi_emr, xgmi)");
  if (n.cpus > 1 && n.cpu_vendor && link_family(n.cpu_link) == LinkFamily::Smp &&
      !cpu_vendor_matches(*n.cpu_vendor, n.cpu_link))
    c.add("node/cpu_vendor", std::string(to_string(*n.cpu_vendor)) + " CPUs with cpu_link " +
                                 std::string(to_string(n.cpu_link)) +
                                 ": expected xgmi for amd, smp, qpi, upi_spr or upi_emr for intel, smp for other");
  c.family("node/nic", n.nic, is_network(n.nic), "an InfiniBand or Ethernet port kind");
  if (n.transport == Transport::None) c.add("node/transport", "expected rdma, tcp, srd or tcpx");
  if (n.transport != Transport::Rdma && link_family(n.nic) == LinkFamily::InfiniBand)
    c.add("node/transport", std::string(to_string(n.transport)) + " over InfiniBand (" + std::string(to_string(n.nic)) +
                                "): expected rdma, or an Ethernet NIC kind for " + std::string(to_string(n.transport)));
  if (n.gpu_interconnect == GpuInterconnect::None) return;
  c.family("node/nvlink", n.nvlink, link_family(n.nvlink) == LinkFamily::NvLink,
           "an NVLink generation (nvlink1 .. nvlink5)");
  const int min_links = n.gpu_interconnect == GpuInterconnect::AllToAll ? std::max(1, n.gpus - 1) : 1;
  if (n.nvlinks < min_links || n.nvlinks > kLimits.lanes)
    c.add("node/nvlinks", "expected " + std::to_string(min_links) + " to " + std::to_string(kLimits.lanes) +
                              " NVLink links per GPU for gpu_interconnect " +
                              std::string(to_string(n.gpu_interconnect)) + ", got " + std::to_string(n.nvlinks));
}

void check_nvlink_domain(Checker& c, const NodeSpec& n) {
  c.range("node/nvlink_domain", n.nvlink_domain, 1, kLimits.nodes);
  if (n.nvlink_domain > 1 && n.gpu_interconnect != GpuInterconnect::NvSwitch)
    c.add("node/nvlink_domain", "a multi-node NVLink domain needs gpu_interconnect nvswitch, not " +
                                    std::string(to_string(n.gpu_interconnect)));
}

// Host-internal links of one node, for the size limit.
std::int64_t node_link_count(const NodeSpec& n) {
  const std::int64_t gpus = n.gpus, cpus = n.cpus;
  const std::int64_t nvlinks = n.gpu_interconnect == GpuInterconnect::AllToAll   ? gpus * (gpus - 1) / 2
                               : n.gpu_interconnect == GpuInterconnect::NvSwitch ? gpus
                                                                                 : 0;
  return nvlinks + gpus + n.nics + n.pcie_switches + cpus * (cpus - 1) / 2;
}

void check_size(Checker& c, const ClusterSpec& s) {
  const std::int64_t links = node_link_count(s.node) * s.nodes;
  if (links <= kLimits.links) return;
  c.add("nodes", "the cluster would have " + std::to_string(links) + " host-internal links: expected at most " +
                     std::to_string(kLimits.links) + " (is the node count a typo?)");
}

void check_uplink(Checker& c, const FabricSpec& f) {
  if (f.uplink) c.family("fabric/uplink", *f.uplink, is_network(*f.uplink), "an InfiniBand or Ethernet port kind");
}

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

void check_oversubscription(Checker& c, double ratio) {
  if (std::isfinite(ratio) && ratio >= 1.0 && ratio <= kLimits.oversubscription) return;
  c.add("fabric/oversubscription", "expected a ratio from 1 (non-blocking) to " +
                                       std::to_string(int(kLimits.oversubscription)) +
                                       " (downlink / uplink bandwidth), got " + format_number(ratio));
}

// Router-to-router links of a dragonfly: r(r-1)/2 local links in each of g groups, plus
// global_links per pair of groups. Preconditions: every count is in range and divides.
std::int64_t dragonfly_link_count(const FabricSpec& f, int nodes) {
  const std::int64_t routers = nodes / f.nodes_per_leaf, r = f.routers_per_group, g = routers / r;
  return g * r * (r - 1) / 2 + std::int64_t(f.global_links) * g * (g - 1) / 2;
}

// At least two groups: routers / routers_per_group >= 2. Precondition: routers_per_group divides routers.
void check_dragonfly_groups(Checker& c, const FabricSpec& f, int nodes, int routers) {
  if (routers / f.routers_per_group >= 2) return;
  if (routers < 2)
    return c.add("fabric/nodes_per_leaf", std::to_string(f.nodes_per_leaf) + " puts all " + std::to_string(nodes) +
                                              " nodes on one router: expected at least 2 routers (a dragonfly has at "
                                              "least 2 groups)");
  c.add("fabric/routers_per_group", std::to_string(f.routers_per_group) + " puts all " + std::to_string(routers) +
                                        " routers in one group: expected at least 2 groups (at most " +
                                        std::to_string(routers / 2) + " routers per group)");
}

void check_dragonfly(Checker& c, const FabricSpec& f, int nodes) {
  c.range("fabric/routers_per_group", f.routers_per_group, 1, kLimits.switches);
  c.range("fabric/global_links", f.global_links, 1, kLimits.switches);
  c.range("fabric/uplinks", f.uplinks, 1, kLimits.lanes);
  check_uplink(c, f);
  const bool counts_ok = f.nodes_per_leaf >= 1 && nodes % f.nodes_per_leaf == 0 && f.routers_per_group >= 1 &&
                         f.routers_per_group <= kLimits.switches && f.global_links >= 1 &&
                         f.global_links <= kLimits.switches;
  if (!counts_ok) return;
  const int routers = nodes / f.nodes_per_leaf;
  if (routers % f.routers_per_group != 0)
    return c.divides("fabric/routers_per_group", f.routers_per_group, routers, "number of routers");
  check_dragonfly_groups(c, f, nodes, routers);
  const std::int64_t links = dragonfly_link_count(f, nodes);
  if (links <= kLimits.links) return;
  c.add("fabric", "the dragonfly would have " + std::to_string(links) + " router-to-router links: expected at most " +
                      std::to_string(kLimits.links) + " (fewer routers or global_links)");
}

void check_fabric(Checker& c, const FabricSpec& f, int nodes) {
  const bool leaf_based = f.kind == FabricKind::LeafSpine || f.kind == FabricKind::FatTree3 ||
                          f.kind == FabricKind::Racks || f.kind == FabricKind::Dragonfly;
  if (leaf_based) {
    c.range("fabric/nodes_per_leaf", f.nodes_per_leaf, 1, kLimits.nodes);
    c.divides("fabric/nodes_per_leaf", f.nodes_per_leaf, nodes, "number of nodes");
  }
  switch (f.kind) {
    case FabricKind::None:
    case FabricKind::SingleSwitch: return;
    case FabricKind::LeafSpine:
      c.range("fabric/spines", f.spines, 1, kLimits.switches);
      check_oversubscription(c, f.oversubscription);
      check_uplink(c, f);
      return;
    case FabricKind::FatTree3: {
      c.range("fabric/spines", f.spines, 1, kLimits.switches);
      c.range("fabric/cores", f.cores, 1, kLimits.switches);
      c.range("fabric/leaves_per_pod", f.leaves_per_pod, 1, kLimits.switches);
      if (f.nodes_per_leaf >= 1 && nodes % f.nodes_per_leaf == 0)
        c.divides("fabric/leaves_per_pod", f.leaves_per_pod, nodes / f.nodes_per_leaf, "number of leaves");
      check_oversubscription(c, f.oversubscription);
      check_uplink(c, f);
      return;
    }
    case FabricKind::RailOptimized: {
      c.range("fabric/nodes_per_group", f.nodes_per_group, 0, kLimits.nodes);
      c.divides("fabric/nodes_per_group", f.nodes_per_group, nodes, "number of nodes");
      const bool one_group = f.nodes_per_group == 0 || f.nodes_per_group == nodes;
      c.range("fabric/spines", f.spines, one_group ? 0 : 1, kLimits.switches);
      check_oversubscription(c, f.oversubscription);
      check_uplink(c, f);
      return;
    }
    case FabricKind::Racks:
      c.range("fabric/uplinks", f.uplinks, 1, kLimits.lanes);
      check_uplink(c, f);
      return;
    case FabricKind::Dragonfly: return check_dragonfly(c, f, nodes);
  }
}

// ---- building --------------------------------------------------------------------------------------

struct NodeIds {
  HostId host = kNoHost;
  std::vector<DeviceId> nics;
};

void connect(Topology& t, DeviceId a, DeviceId b, LinkKind kind, int lanes, Transport transport = Transport::None) {
  t.add_link(Topology::default_link(a, b, kind, lanes, transport));
}

std::vector<DeviceId> add_devices(Topology& t, HostId host, const std::string& host_name, DeviceKind kind,
                                  std::string_view stem, int count, GpuModel model = GpuModel::Generic) {
  std::vector<DeviceId> ids;
  for (int i = 0; i < count; ++i) {
    Device d;
    d.name = host_name + "/" + std::string(stem) + std::to_string(i);
    d.kind = kind;
    d.host = host;
    d.local_index = i;
    d.gpu_model = model;
    ids.push_back(t.add_device(std::move(d)));
  }
  return ids;
}

// Connects item i of `items` to targets[i*T/items] with a PCIe link: the even-spread attachment rule.
void attach_spread(Topology& t, const NodeSpec& n, const std::vector<DeviceId>& items,
                   const std::vector<DeviceId>& targets) {
  for (std::size_t i = 0; i < items.size(); ++i)
    connect(t, items[i], targets[i * targets.size() / items.size()], n.pcie, n.pcie_lanes);
}

void add_gpu_interconnect(Topology& t, const NodeSpec& n, HostId host, const std::string& host_name,
                          const std::vector<DeviceId>& gpus, std::optional<DeviceId> domain_switch) {
  if (n.gpu_interconnect == GpuInterconnect::NvSwitch && domain_switch) {
    for (DeviceId g : gpus) connect(t, g, *domain_switch, n.nvlink, n.nvlinks);
    return;
  }
  if (n.gpu_interconnect == GpuInterconnect::NvSwitch) {
    Device sw;
    sw.name = host_name + "/nvswitch";
    sw.kind = DeviceKind::NvSwitch;
    sw.host = host;
    sw.local_index = 0;
    sw.in_network_reduction = n.nvswitch_reduction;
    const DeviceId nvswitch = t.add_device(std::move(sw));
    for (DeviceId g : gpus) connect(t, g, nvswitch, n.nvlink, n.nvlinks);
    return;
  }
  if (n.gpu_interconnect != GpuInterconnect::AllToAll || n.gpus < 2) return;  // one GPU: no pair to join
  const int per_pair = n.nvlinks / (n.gpus - 1);
  for (std::size_t i = 0; i < gpus.size(); ++i)
    for (std::size_t j = i + 1; j < gpus.size(); ++j) connect(t, gpus[i], gpus[j], n.nvlink, per_pair);
}

NodeIds add_node(Topology& t, const NodeSpec& n, const std::string& name, RackId rack,
                 std::optional<DeviceId> domain_switch) {
  NodeIds ids;
  ids.host = t.add_host(name, rack, std::string(to_string(n.base)), n.host_cpu_vendor());
  const auto gpus = add_devices(t, ids.host, name, DeviceKind::Gpu, "gpu", n.gpus, n.gpu_model);
  add_gpu_interconnect(t, n, ids.host, name, gpus, domain_switch);
  const auto cpus = add_devices(t, ids.host, name, DeviceKind::Cpu, "cpu", n.cpus);
  const auto pcie = add_devices(t, ids.host, name, DeviceKind::PcieSwitch, "pcie", n.pcie_switches);
  ids.nics = add_devices(t, ids.host, name, DeviceKind::Nic, "nic", n.nics);

  const std::vector<DeviceId>& attach = pcie.empty() ? cpus : pcie;
  attach_spread(t, n, gpus, attach);
  attach_spread(t, n, ids.nics, attach);
  attach_spread(t, n, pcie, cpus);
  for (std::size_t a = 0; a < cpus.size(); ++a)
    for (std::size_t b = a + 1; b < cpus.size(); ++b) connect(t, cpus[a], cpus[b], n.cpu_link, 0);
  return ids;
}

// The NVSwitch of multi-node NVLink domain `d` (NodeSpec::nvlink_domain): outside every host, so that
// the router treats it as fabric, reducing where the node's NVSwitch would (NVLink SHARP).
DeviceId add_nvlink_domain_switch(Topology& t, const ClusterSpec& spec, int d) {
  Device sw;
  sw.name = spec.fabric.prefix + "nvlink" + std::to_string(d);
  sw.kind = DeviceKind::NvSwitch;
  sw.local_index = d;
  sw.in_network_reduction = spec.node.nvswitch_reduction;
  return t.add_device(std::move(sw));
}

// Builds the fabric of one cluster once its nodes exist.
class FabricBuilder {
 public:
  FabricBuilder(Topology& t, const ClusterSpec& spec, const std::vector<RackId>& racks)
      : t_(t), spec_(spec), f_(spec.fabric), racks_(racks) {}

  void build(const std::vector<NodeIds>& nodes) {
    switch (f_.kind) {
      case FabricKind::None: return;
      case FabricKind::SingleSwitch: return single_switch(nodes);
      case FabricKind::LeafSpine: return leaf_spine(nodes);
      case FabricKind::FatTree3: return fat_tree3(nodes);
      case FabricKind::RailOptimized: return rail_optimized(nodes);
      case FabricKind::Racks: return racks(nodes);
      case FabricKind::Dragonfly: return dragonfly(nodes);
    }
  }

 private:
  DeviceId add_switch(DeviceKind kind, std::string stem, int index, RackId rack = kNoRack) {
    Device d;
    d.name = f_.prefix + stem;
    d.kind = kind;
    d.rack = rack;
    d.local_index = index;
    d.tier = default_tier(kind);
    d.in_network_reduction = f_.in_network_reduction;
    return t_.add_device(std::move(d));
  }
  std::vector<DeviceId> add_switches(DeviceKind kind, std::string_view stem, int count, bool racked = false) {
    std::vector<DeviceId> ids;
    for (int i = 0; i < count; ++i)
      ids.push_back(add_switch(kind, std::string(stem) + std::to_string(i), i, racked ? rack_of_leaf(i) : kNoRack));
    return ids;
  }
  RackId rack_of_leaf(int leaf) const { return racks_.empty() ? kNoRack : racks_[std::size_t(leaf)]; }

  LinkKind uplink_kind() const { return f_.uplink.value_or(spec_.node.nic); }
  Bandwidth nic_bandwidth() const { return link_bandwidth(spec_.node.nic, spec_.node.nic_ports); }
  void down(DeviceId nic, DeviceId leaf) {
    connect(t_, nic, leaf, spec_.node.nic, spec_.node.nic_ports, spec_.node.transport);
  }
  void up(DeviceId lower, DeviceId upper, int lanes) {
    connect(t_, lower, upper, uplink_kind(), lanes, spec_.node.transport);
  }

  // Ports from a switch with `down_bw` of downlinks to each of `uppers` upper switches so that
  // down / up <= ratio: total ports rounded up, then spread evenly (rounded up).
  int uplink_lanes(Bandwidth down_bw, double ratio, int uppers) const {
    const double needed = down_bw / (link_bandwidth(uplink_kind(), 1) * ratio);
    const int total = std::max(1, int(std::ceil(needed - kRoundingSlack)));
    return (total + uppers - 1) / uppers;
  }

  void single_switch(const std::vector<NodeIds>& nodes) {
    const DeviceId sw = add_switch(DeviceKind::Leaf, "switch", 0, rack_of_leaf(0));
    for (const NodeIds& n : nodes)
      for (DeviceId nic : n.nics) down(nic, sw);
  }

  // Attaches node i's NICs to leaf i / nodes_per_leaf; returns the leaves.
  std::vector<DeviceId> leaves(const std::vector<NodeIds>& nodes, std::string_view stem) {
    const int per_leaf = f_.nodes_per_leaf;
    auto ids = add_switches(DeviceKind::Leaf, stem, spec_.nodes / per_leaf, true);
    for (std::size_t i = 0; i < nodes.size(); ++i)
      for (DeviceId nic : nodes[i].nics) down(nic, ids[i / std::size_t(per_leaf)]);
    return ids;
  }
  Bandwidth leaf_down_bandwidth(int nodes_on_leaf) const {
    return nic_bandwidth() * double(nodes_on_leaf * spec_.node.nics);
  }

  void leaf_spine(const std::vector<NodeIds>& nodes) {
    const auto leaf_ids = leaves(nodes, "leaf");
    const auto spine_ids = add_switches(DeviceKind::Spine, "spine", f_.spines);
    const int lanes = uplink_lanes(leaf_down_bandwidth(f_.nodes_per_leaf), f_.oversubscription, f_.spines);
    for (DeviceId l : leaf_ids)
      for (DeviceId s : spine_ids) up(l, s, lanes);
  }

  void fat_tree3(const std::vector<NodeIds>& nodes) {
    const auto leaf_ids = leaves(nodes, "leaf");
    const int pods = int(leaf_ids.size()) / f_.leaves_per_pod;
    const auto agg_ids = add_switches(DeviceKind::Spine, "spine", pods * f_.spines);
    const auto core_ids = add_switches(DeviceKind::Core, "core", f_.cores);
    const int leaf_lanes = uplink_lanes(leaf_down_bandwidth(f_.nodes_per_leaf), f_.oversubscription, f_.spines);
    for (std::size_t l = 0; l < leaf_ids.size(); ++l) {
      const std::size_t pod = l / std::size_t(f_.leaves_per_pod);
      for (int j = 0; j < f_.spines; ++j)
        up(leaf_ids[l], agg_ids[pod * std::size_t(f_.spines) + std::size_t(j)], leaf_lanes);
    }
    const Bandwidth agg_down = link_bandwidth(uplink_kind(), leaf_lanes) * double(f_.leaves_per_pod);
    const int core_lanes = uplink_lanes(agg_down, 1.0, f_.cores);
    for (DeviceId a : agg_ids)
      for (DeviceId c : core_ids) up(a, c, core_lanes);
  }

  void rail_optimized(const std::vector<NodeIds>& nodes) {
    const int group = f_.nodes_per_group > 0 ? f_.nodes_per_group : spec_.nodes;
    const int groups = spec_.nodes / group;
    const int rails = spec_.node.nics;
    std::vector<DeviceId> rail_leaves;
    for (int g = 0; g < groups; ++g)
      for (int r = 0; r < rails; ++r)
        rail_leaves.push_back(
            add_switch(DeviceKind::Leaf, "leaf" + std::to_string(g * rails + r), g * rails + r, rack_of_leaf(g)));
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const std::size_t g = i / std::size_t(group);
      for (std::size_t r = 0; r < nodes[i].nics.size(); ++r)
        down(nodes[i].nics[r], rail_leaves[g * std::size_t(rails) + r]);
    }
    if (f_.spines == 0) return;
    const auto spine_ids = add_switches(DeviceKind::Spine, "spine", f_.spines);
    const int lanes = uplink_lanes(nic_bandwidth() * double(group), f_.oversubscription, f_.spines);
    for (DeviceId l : rail_leaves)
      for (DeviceId s : spine_ids) up(l, s, lanes);
  }

  void racks(const std::vector<NodeIds>& nodes) {
    const auto tors = leaves(nodes, "tor");
    const DeviceId core = add_switch(DeviceKind::Core, "core", 0);
    for (DeviceId tor : tors) up(tor, core, f_.uplinks);
  }

  // Routers "g<group>r<router>" (leaves, one rack per group); node i on router i / nodes_per_leaf; every
  // router pair of a group joined by a local link; global_links per pair of groups, each end taken
  // round-robin from its group's routers, so a group's routers carry global links within one of each other.
  void dragonfly(const std::vector<NodeIds>& nodes) {
    const int per_group = f_.routers_per_group;
    const int groups = spec_.nodes / f_.nodes_per_leaf / per_group;
    std::vector<DeviceId> routers;
    for (int g = 0; g < groups; ++g)
      for (int r = 0; r < per_group; ++r)
        routers.push_back(add_switch(DeviceKind::Leaf, "g" + std::to_string(g) + "r" + std::to_string(r),
                                     g * per_group + r, rack_of_leaf(g)));
    for (std::size_t i = 0; i < nodes.size(); ++i)
      for (DeviceId nic : nodes[i].nics) down(nic, routers[i / std::size_t(f_.nodes_per_leaf)]);
    auto router = [&](int group, int index) { return routers[std::size_t(group * per_group + index)]; };
    for (int g = 0; g < groups; ++g)
      for (int a = 0; a < per_group; ++a)
        for (int b = a + 1; b < per_group; ++b) up(router(g, a), router(g, b), f_.uplinks);
    std::vector<int> next(std::size_t(groups), 0);  // next router of each group to take a global link
    auto take = [&](int group) { return router(group, next[std::size_t(group)]++ % per_group); };
    for (int g = 0; g < groups; ++g)
      for (int h = g + 1; h < groups; ++h)
        for (int k = 0; k < f_.global_links; ++k) up(take(g), take(h), f_.uplinks);
  }

  Topology& t_;
  const ClusterSpec& spec_;
  const FabricSpec& f_;
  const std::vector<RackId>& racks_;
};

// Number of racks of the fabric, and the rack index of node i.
int rack_count(const ClusterSpec& s) {
  switch (s.fabric.kind) {
    case FabricKind::None: return 0;
    case FabricKind::SingleSwitch: return 1;
    case FabricKind::RailOptimized: return s.fabric.nodes_per_group > 0 ? s.nodes / s.fabric.nodes_per_group : 1;
    case FabricKind::Dragonfly: return s.nodes / s.fabric.nodes_per_leaf / s.fabric.routers_per_group;
    default: return s.nodes / s.fabric.nodes_per_leaf;
  }
}

std::string joined(const std::vector<SpecProblem>& problems) {
  std::string out = "invalid cluster spec:";
  for (const SpecProblem& p : problems) out += " " + p.field + ": " + p.message + ";";
  return out;
}

}  // namespace

NodeSpec node_template(NodeTemplate t) {
  const TemplateRow& row = template_row(t);
  NodeSpec n;
  n.base = t;
  n.gpus = row.gpus;
  set_gpu_model(n, row.gpu);
  n.gpu_interconnect = row.interconnect;
  n.nvswitch_reduction = row.nvswitch_reduction;
  n.cpus = row.cpus;
  for (const TemplateCpuLink& c : kTemplateCpuLinks)
    if (c.id == t) n.cpu_link = c.cpu_link;
  if (row.gpu == GpuModel::GB200) n.cpu_vendor = CpuVendor::Other;  // a GB200 superchip's CPU: Grace (Arm)
  n.pcie = row.pcie;
  n.pcie_lanes = link_defaults(row.pcie).default_lanes;
  n.pcie_switches = row.pcie_switches;
  n.nics = row.nics;
  n.nic = row.nic;
  n.nic_ports = link_defaults(row.nic).default_lanes;
  n.transport = row.transport;
  n.nvlink_domain = row.nvlink_domain;
  return n;
}

std::optional<NodeTemplate> find_node_template(std::string_view name) {
  for (const TemplateRow& row : kTemplates)
    if (row.name == name || (!row.alias.empty() && row.alias == name)) return row.id;
  return std::nullopt;
}

std::string_view to_string(NodeTemplate t) { return template_row(t).name; }
std::string_view node_template_source(NodeTemplate t) { return template_row(t).source; }

std::string node_template_names() {
  std::string out;
  for (const TemplateRow& row : kTemplates) {
    if (!out.empty()) out += ", ";
    out += row.name;
    if (!row.alias.empty()) out += ", " + std::string(row.alias);
  }
  return out;
}

std::optional<GpuInterconnect> find_gpu_interconnect(std::string_view name) {
  if (auto i = index_of(kInterconnectNames, name)) return GpuInterconnect(*i);
  return std::nullopt;
}
std::string_view to_string(GpuInterconnect g) { return kInterconnectNames[std::size_t(g)]; }
std::string gpu_interconnect_names() { return join_names(kInterconnectNames); }

std::optional<FabricKind> find_fabric_kind(std::string_view name) {
  if (auto i = index_of(kFabricNames, name)) return FabricKind(*i);
  return std::nullopt;
}
std::string_view to_string(FabricKind k) { return kFabricNames[std::size_t(k)]; }
std::string fabric_kind_names() { return join_names(kFabricNames); }

int default_tier(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::Leaf: return 1;
    case DeviceKind::Spine: return 2;
    case DeviceKind::Core: return 3;
    default: return 0;
  }
}

void set_gpu_model(NodeSpec& node, GpuModel model) {
  const GpuSpec& gpu = gpu_spec(model);
  node.gpu_model = model;
  node.nvlink = gpu.nvlink;
  node.nvlinks = gpu.nvlinks;
}

std::vector<SpecProblem> check_cluster_spec(const ClusterSpec& spec) {
  Checker c;
  c.range("nodes", spec.nodes, 1, kLimits.nodes);
  check_node(c, spec.node, spec.fabric.kind != FabricKind::None);
  check_nvlink_domain(c, spec.node);
  if (spec.nodes >= 1) check_fabric(c, spec.fabric, spec.nodes);
  std::vector<SpecProblem> problems = c.take();
  if (!problems.empty()) return problems;
  check_size(c, spec);  // only meaningful once every count is in range
  return c.take();
}

void add_cluster(Topology& topology, const ClusterSpec& spec) {
  if (auto problems = check_cluster_spec(spec); !problems.empty()) throw std::invalid_argument(joined(problems));
  std::vector<RackId> racks;
  for (int r = 0; r < rack_count(spec); ++r)
    racks.push_back(topology.add_rack(spec.fabric.prefix + "rack" + std::to_string(r)));
  const int nodes_per_rack = racks.empty() ? 1 : spec.nodes / int(racks.size());
  std::vector<NodeIds> nodes;
  std::optional<DeviceId> domain_switch;
  const int domain = spec.node.gpu_interconnect == GpuInterconnect::NvSwitch ? spec.node.nvlink_domain : 1;
  for (int i = 0; i < spec.nodes; ++i) {
    const RackId rack = racks.empty() ? kNoRack : racks[std::size_t(i / nodes_per_rack)];
    if (domain > 1 && i % domain == 0) domain_switch = add_nvlink_domain_switch(topology, spec, i / domain);
    nodes.push_back(add_node(topology, spec.node, spec.prefix + std::to_string(i), rack, domain_switch));
  }
  FabricBuilder(topology, spec, racks).build(nodes);
}

Topology make_cluster(const ClusterSpec& spec) {
  Topology t;
  add_cluster(t, spec);
  return t;
}

}  // namespace ringlab
