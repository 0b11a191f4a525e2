// The catalogue: GPU rows of kinds.cpp and the DGX / rented-cloud node templates of generators.cpp.
// Expected values are derived here by hand from the spec sheets (GPU count, NVLink links x the per-link
// rate of the generation, NIC count x port rate), not read back from the tables they check.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "ringlab/topology/generators.hpp"
#include "ringlab/topology/export.hpp"
#include "ringlab/topology/kinds.hpp"
#include "ringlab/topology/routing.hpp"
#include "ringlab/topology/scenario.hpp"

using namespace ringlab;
using namespace ringlab::literals;

namespace {

/// Two nodes of a template on one switch, so every compute NIC has its fabric link.
Topology two_nodes(NodeTemplate tmpl) {
  ClusterSpec spec;
  spec.nodes = 2;
  spec.node = node_template(tmpl);
  spec.fabric.kind = FabricKind::SingleSwitch;
  return make_cluster(spec);
}

int count_on_host(const Topology& t, HostId host, DeviceKind kind) {
  int n = 0;
  for (const Device& d : t.devices()) n += d.host == host && d.kind == kind;
  return n;
}

/// Sum over node0's NICs of their links to the fabric (per direction).
Bandwidth host_egress(const Topology& t) {
  Bandwidth sum;
  for (const Link& l : t.links()) {
    const Device& a = t.device(l.a);
    const Device& b = t.device(l.b);
    if (a.kind == DeviceKind::Nic && a.host == 0 && is_fabric_switch(b.kind)) sum = sum + l.bandwidth;
    if (b.kind == DeviceKind::Nic && b.host == 0 && is_fabric_switch(a.kind)) sum = sum + l.bandwidth;
  }
  return sum;
}

/// NVLink bandwidth per direction of node0/gpu0 (all its NVLink links together).
Bandwidth gpu0_nvlink(const Topology& t) {
  Bandwidth sum;
  for (const Adjacency& adj : t.neighbors(t.device_by_name("node0/gpu0"))) {
    const Link& l = t.link(adj.link);
    if (link_family(l.kind) == LinkFamily::NvLink) sum = sum + l.bandwidth;
  }
  return sum;
}

struct Expected {
  NodeTemplate tmpl;
  GpuModel gpu;
  int gpus;
  double nvlink_gbytes_per_gpu;  ///< per direction: links x per-link rate
  int nics;
  LinkKind nic;
  Transport transport;
  double egress_gbytes;  ///< NICs x port rate in Gb/s / 8
};

}  // namespace

TEST_CASE("catalogue: every GPU row has a source, a positive memory bandwidth and a name that round-trips",
          "[catalogue]") {
  for (int i = 0; i < kGpuModelCount; ++i) {
    const GpuModel m = GpuModel(i);
    const GpuSpec& g = gpu_spec(m);
    INFO(to_string(m));
    CHECK(g.model == m);
    CHECK_FALSE(g.source.empty());
    CHECK(g.hbm.bytes_per_second() > 0);
    CHECK(g.nvlinks >= 0);
    CHECK(link_family(g.nvlink) == LinkFamily::NvLink);
    CHECK(link_family(g.pcie) == LinkFamily::Pcie);
    CHECK(find_gpu_model(to_string(m)) == m);
  }
  CHECK(gpu_model_names() ==
        "generic, v100, a100, h100, h200, b200, a100_40gb, a100_pcie, a10, l40s, h100_pcie, h100_nvl, h20, gb200, "
        "rtx4090, rtx6000_ada, rtx2080ti, a100_40gb_pcie");
}

TEST_CASE("catalogue: GPU rows carry the datasheet numbers", "[catalogue]") {
  // A100 40GB SXM: 1555 GB/s HBM2; 12 NVLink3 links = 600 GB/s bidirectional = 300 GB/s per direction.
  const GpuSpec& a100_40 = gpu_spec(GpuModel::A100_40GB);
  CHECK(a100_40.hbm == 1555_GBps);
  CHECK(link_defaults(a100_40.nvlink).per_lane * a100_40.nvlinks == 300_GBps);
  CHECK(a100_40.pcie == LinkKind::Pcie4);
  CHECK(a100_40.sm == 80);
  // H100 NVL: 3.9 TB/s, a bridge pair of 600 GB/s bidirectional.
  const GpuSpec& nvl = gpu_spec(GpuModel::H100Nvl);
  CHECK(nvl.hbm == 3900_GBps);
  CHECK(link_defaults(nvl.nvlink).per_lane * nvl.nvlinks == 300_GBps);
  CHECK(nvl.pcie == LinkKind::Pcie5);
  // GB200's B200: 8 TB/s, 18 NVLink5 links = 1.8 TB/s bidirectional = 900 GB/s per direction, as B200.
  const GpuSpec& gb200 = gpu_spec(GpuModel::GB200);
  CHECK(gb200.hbm == 8000_GBps);
  CHECK(gb200.nvlink == LinkKind::NvLink5);
  CHECK(link_defaults(gb200.nvlink).per_lane * gb200.nvlinks == 900_GBps);
  CHECK(gb200.sm == gpu_spec(GpuModel::B200).sm);
  // H20: 4.0 TB/s HBM3, the full 900 GB/s NVLink4.
  CHECK(gpu_spec(GpuModel::H20).hbm == 4000_GBps);
  CHECK(gpu_spec(GpuModel::H20).nvlinks == 18);
  // PCIe-only boards: no NVLink; the GeForce RTX 4090 has no PCIe P2P, the professional boards do.
  for (GpuModel m : {GpuModel::A10, GpuModel::L40S, GpuModel::Rtx4090, GpuModel::Rtx6000Ada, GpuModel::Rtx2080Ti})
    CHECK(gpu_spec(m).nvlinks == 0);
  CHECK_FALSE(gpu_spec(GpuModel::Rtx4090).pcie_p2p);
  CHECK_FALSE(gpu_spec(GpuModel::Rtx2080Ti).pcie_p2p);
  CHECK(gpu_spec(GpuModel::Rtx2080Ti).hbm == 616_GBps);  // 14 Gb/s x 352 bit / 8
  CHECK(gpu_spec(GpuModel::Rtx2080Ti).pcie == LinkKind::Pcie3);
  CHECK(gpu_spec(GpuModel::Rtx6000Ada).pcie_p2p);
  CHECK(gpu_spec(GpuModel::L40S).pcie_p2p);
  CHECK(gpu_spec(GpuModel::Rtx4090).hbm == 1008_GBps);  // 21 Gb/s x 384 bit / 8
  CHECK(gpu_spec(GpuModel::A10).hbm == 600_GBps);
  CHECK(gpu_spec(GpuModel::L40S).hbm == 864_GBps);
  CHECK(gpu_spec(GpuModel::Rtx6000Ada).hbm == 960_GBps);
  CHECK(gpu_spec(GpuModel::A100Pcie).hbm == 1935_GBps);
  // A100 40GB PCIe: 1555 GB/s HBM2 as the 40GB SXM, the 80GB PCIe card's bridge NVLink and gen4.
  const GpuSpec& a100_40_pcie = gpu_spec(GpuModel::A100Pcie40GB);
  CHECK(a100_40_pcie.hbm == 1555_GBps);
  CHECK(link_defaults(a100_40_pcie.nvlink).per_lane * a100_40_pcie.nvlinks == 300_GBps);
  CHECK(a100_40_pcie.pcie == LinkKind::Pcie4);
  CHECK(a100_40_pcie.sm == 80);
  CHECK(gpu_spec(GpuModel::H100Pcie).hbm == 2000_GBps);
}

TEST_CASE("catalogue: the names nvidia-smi prints find their GPU model", "[catalogue]") {
  CHECK(find_gpu_model("NVIDIA H100 80GB HBM3") == GpuModel::H100);
  CHECK(find_gpu_model("NVIDIA A100-SXM4-40GB") == GpuModel::A100_40GB);
  CHECK(find_gpu_model("NVIDIA A100-SXM4-80GB") == GpuModel::A100);
  CHECK(find_gpu_model("NVIDIA GeForce RTX 4090") == GpuModel::Rtx4090);
  CHECK(find_gpu_model("nvidia geforce rtx 4090") == GpuModel::Rtx4090);  // case is ignored
  CHECK(find_gpu_model("NVIDIA H20") == GpuModel::H20);
  CHECK(find_gpu_model("NVIDIA H100 NVL") == GpuModel::H100Nvl);
  CHECK(find_gpu_model("NVIDIA RTX 6000 Ada Generation") == GpuModel::Rtx6000Ada);
  CHECK(find_gpu_model("NVIDIA GeForce RTX 2080 Ti") == GpuModel::Rtx2080Ti);
  // Boards outside the catalogue are not mapped to a near model, and prefixes do not match.
  CHECK(find_gpu_model("NVIDIA H200 NVL") == std::nullopt);
  CHECK(find_gpu_model("NVIDIA A100-PCIE-40GB") == GpuModel::A100Pcie40GB);
  CHECK(find_gpu_model("NVIDIA V100-PCIE-32GB") == std::nullopt);
  CHECK(find_gpu_model("NVIDIA H1") == std::nullopt);
  CHECK(find_gpu_model("H100") == std::nullopt);  // catalogue names are lower case
}

TEST_CASE("catalogue: every node template round-trips by name, has a source and builds", "[catalogue]") {
  for (int i = 0; i < kNodeTemplateCount; ++i) {
    const NodeTemplate t = NodeTemplate(i);
    INFO(to_string(t));
    CHECK(find_node_template(to_string(t)) == t);
    CHECK_FALSE(node_template_source(t).empty());
    const NodeSpec n = node_template(t);
    CHECK(n.base == t);
    ClusterSpec spec;
    spec.nodes = 2;
    spec.node = n;
    CHECK(check_cluster_spec(spec).empty());
    const Topology topo = make_cluster(spec);
    CHECK(topo.host(0).template_name == to_string(t));
  }
  CHECK(find_node_template("p5.48xlarge") == NodeTemplate::AwsP5);
  CHECK(find_node_template("a3-megagpu-8g") == NodeTemplate::GcpA3Mega);
  CHECK(find_node_template("BM.GPU.H100.8") == NodeTemplate::OciBmGpuH100_8);
  CHECK(find_node_template("Standard_ND96isr_H100_v5") == NodeTemplate::AzureNdv5);
  CHECK(find_node_template("hgx_b200") == NodeTemplate::DgxB200);
  CHECK(find_node_template("Standard_ND128isr_NDR_GB200_v6") == NodeTemplate::AzureNdGb200v6);
}

TEST_CASE("catalogue: templates of rented nodes give the published GPU, NVLink and NIC numbers",
          "[catalogue]") {
  // nvlink: links x 25 GB/s (nvlink3/4) or x 50 GB/s (nvlink5) per direction; egress: NICs x Gb/s / 8.
  const Expected e = GENERATE(
      Expected{NodeTemplate::DgxH200, GpuModel::H200, 8, 18 * 25.0, 8, LinkKind::IbNdr, Transport::Rdma, 8 * 400 / 8.0},
      Expected{NodeTemplate::DgxB200, GpuModel::B200, 8, 18 * 50.0, 8, LinkKind::IbNdr, Transport::Rdma, 8 * 400 / 8.0},
      Expected{NodeTemplate::AwsP4d, GpuModel::A100_40GB, 8, 12 * 25.0, 4, LinkKind::Eth100, Transport::Srd,
               4 * 100 / 8.0},
      Expected{NodeTemplate::AwsP4de, GpuModel::A100, 8, 12 * 25.0, 4, LinkKind::Eth100, Transport::Srd, 4 * 100 / 8.0},
      Expected{NodeTemplate::AwsP5, GpuModel::H100, 8, 18 * 25.0, 32, LinkKind::Eth100, Transport::Srd,
               32 * 100 / 8.0},  // 3200 Gb/s = 400 GB/s
      Expected{NodeTemplate::AwsP5e, GpuModel::H200, 8, 18 * 25.0, 32, LinkKind::Eth100, Transport::Srd,
               32 * 100 / 8.0},
      Expected{NodeTemplate::AzureNdv4, GpuModel::A100_40GB, 8, 12 * 25.0, 8, LinkKind::IbHdr, Transport::Rdma,
               8 * 200 / 8.0},
      Expected{NodeTemplate::AzureNdmV4, GpuModel::A100, 8, 12 * 25.0, 8, LinkKind::IbHdr, Transport::Rdma,
               8 * 200 / 8.0},
      Expected{NodeTemplate::AzureNdv5, GpuModel::H100, 8, 18 * 25.0, 8, LinkKind::IbNdr, Transport::Rdma,
               8 * 400 / 8.0},
      Expected{NodeTemplate::AzureNdH200v5, GpuModel::H200, 8, 18 * 25.0, 8, LinkKind::IbNdr, Transport::Rdma,
               8 * 400 / 8.0},
      Expected{NodeTemplate::GcpA3, GpuModel::H100, 8, 18 * 25.0, 4, LinkKind::Eth200, Transport::Tcpx, 4 * 200 / 8.0},
      Expected{NodeTemplate::GcpA3Mega, GpuModel::H100, 8, 18 * 25.0, 8, LinkKind::Eth200, Transport::Tcpx,
               8 * 200 / 8.0},
      Expected{NodeTemplate::GcpA3Ultra, GpuModel::H200, 8, 18 * 25.0, 8, LinkKind::Eth400, Transport::Rdma,
               8 * 400 / 8.0},
      Expected{NodeTemplate::OciBmGpu4_8, GpuModel::A100_40GB, 8, 12 * 25.0, 16, LinkKind::Eth100, Transport::Rdma,
               16 * 100 / 8.0},
      Expected{NodeTemplate::OciBmGpuH100_8, GpuModel::H100, 8, 18 * 25.0, 16, LinkKind::Eth200, Transport::Rdma,
               16 * 200 / 8.0});
  INFO(to_string(e.tmpl));
  const Topology t = two_nodes(e.tmpl);
  CHECK(count_on_host(t, 0, DeviceKind::Gpu) == e.gpus);
  CHECK(t.device(t.device_by_name("node0/gpu0")).gpu_model == e.gpu);
  CHECK(count_on_host(t, 0, DeviceKind::NvSwitch) == 1);
  CHECK(gpu0_nvlink(t).gigabytes_per_second() == Approx(e.nvlink_gbytes_per_gpu));
  CHECK(count_on_host(t, 0, DeviceKind::Nic) == e.nics);
  CHECK(host_egress(t).gigabytes_per_second() == Approx(e.egress_gbytes));
  for (const Link& l : t.links()) {
    if (!is_fabric_switch(t.device(l.a).kind) && !is_fabric_switch(t.device(l.b).kind)) continue;
    CHECK(l.kind == e.nic);
    CHECK(l.transport == e.transport);
  }
}

TEST_CASE("catalogue: aws_p5 puts 4 EFA NICs on each GPU's PCIe switch", "[catalogue]") {
  const Topology t = two_nodes(NodeTemplate::AwsP5);
  // 8 switches, GPU i on switch i, NIC j on switch j*8/32 = j/4.
  CHECK(count_on_host(t, 0, DeviceKind::PcieSwitch) == 8);
  for (int j = 0; j < 32; ++j) {
    bool on_switch = false;
    for (const Adjacency& adj : t.neighbors(t.device_by_name("node0/nic" + std::to_string(j))))
      on_switch = on_switch || t.device(adj.peer).name == "node0/pcie" + std::to_string(j / 4);
    CHECK(on_switch);
  }
}

TEST_CASE("GB200 NVL72: 18 trays of 4 GPUs share one NVLink switch outside the hosts, a second rack has its own",
          "[catalogue][nvl72]") {
  ClusterSpec spec;
  spec.nodes = 36;  // two racks
  spec.node = node_template(NodeTemplate::Gb200Nvl72);
  spec.fabric.kind = FabricKind::SingleSwitch;
  CHECK(spec.node.nvlink_domain == 18);
  CHECK(spec.node.gpus == 4);
  CHECK(spec.node.gpu_model == GpuModel::GB200);
  const Topology t = make_cluster(spec);
  const DeviceId rack0 = t.device_by_name("nvlink0");
  const DeviceId rack1 = t.device_by_name("nvlink1");
  CHECK(t.device(rack0).kind == DeviceKind::NvSwitch);
  CHECK(t.device(rack0).host == kNoHost);
  CHECK(t.device(rack0).in_network_reduction);  // NVLink SHARP
  CHECK_FALSE(t.find_device("node0/nvswitch"));
  CHECK(t.neighbors(rack0).size() == 72);
  CHECK(t.neighbors(rack1).size() == 72);
  CHECK(t.device(t.neighbors(rack1).front().peer).host >= 18);
  for (const Adjacency& adj : t.neighbors(rack0)) {
    const Link& l = t.link(adj.link);
    CHECK(l.kind == LinkKind::NvLink5);
    CHECK(l.bandwidth.gigabytes_per_second() == Approx(18 * 50.0));  // 1.8 TB/s bidirectional per GPU
    CHECK(t.device(adj.peer).host < 18);
  }
  // Within a rack GPUs of different trays meet over NVLink (GPU, switch, GPU); across racks over the NICs.
  const Router router(t);
  CHECK(router.hops(t.device_by_name("node0/gpu0"), t.device_by_name("node17/gpu3")) == 2);
  const Route across = router.route(t.device_by_name("node0/gpu0"), t.device_by_name("node18/gpu0"));
  bool via_nic = false;
  for (DirectionId c : across.directions) via_nic |= t.device(t.direction_target(c)).kind == DeviceKind::Nic;
  CHECK(via_nic);
  // The scenario JSON of the cluster loads back, the rack switch still outside every host.
  std::ostringstream out;
  write_json(out, t);
  const Scenario s = parse_scenario(out.str(), "nvl72.json");
  CHECK(s.cluster.device(s.cluster.device_by_name("nvlink1")).host == kNoHost);
  CHECK(s.cluster.link_count() == t.link_count());
}

TEST_CASE("Azure ND GB200 v6: one GB200 NVL72 tray, 4x 400 Gb/s InfiniBand, 18 VMs to an NVLink domain",
          "[catalogue][nvl72]") {
  const NodeSpec azure = node_template(NodeTemplate::AzureNdGb200v6);
  CHECK(azure.gpus == 4);
  CHECK(azure.gpu_model == GpuModel::GB200);
  CHECK(azure.nvlink_domain == 18);
  CHECK(azure.nics == 4);
  CHECK(azure.nic == LinkKind::IbNdr);
  CHECK(azure.cpu_vendor == CpuVendor::Other);  // 2 Grace CPUs
  ClusterSpec spec;
  spec.nodes = 18;
  spec.node = azure;
  spec.fabric.kind = FabricKind::SingleSwitch;
  const Topology t = make_cluster(spec);
  CHECK(t.neighbors(t.device_by_name("nvlink0")).size() == 72);
  CHECK(host_egress(t).gigabytes_per_second() == Approx(4 * 400 / 8.0));
}

TEST_CASE("nvlink_domain: a partial last domain, at least 1, needs an NVSwitch", "[catalogue][nvl72][bad-input]") {
  ClusterSpec spec;
  spec.nodes = 20;  // a full rack of 18 trays and one with 2
  spec.node = node_template(NodeTemplate::Gb200Nvl72);
  const Topology t = make_cluster(spec);
  CHECK(t.neighbors(t.device_by_name("nvlink0")).size() == 72);
  CHECK(t.neighbors(t.device_by_name("nvlink1")).size() == 8);
  spec.node.nvlink_domain = 0;
  auto problems = check_cluster_spec(spec);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].field == "node/nvlink_domain");
  spec.node.nvlink_domain = 18;
  spec.node.gpu_interconnect = GpuInterconnect::None;
  problems = check_cluster_spec(spec);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].field == "node/nvlink_domain");
  CHECK(problems[0].message == "a multi-node NVLink domain needs gpu_interconnect nvswitch, not none");
}
