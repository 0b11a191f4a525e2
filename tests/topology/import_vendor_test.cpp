// Import of real vendor topology files (tests/data/import/vendor/, each naming its source URL and commit)
// and of the edge cases real fabrics hold (tests/data/import/ib_edge_cases.ibnetdiscover, hand-written).
// Every expected number comes from the file itself and the machine's spec sheet, not from the importer:
//  - Azure ND A100 v4 (ndv4-topo.xml): 8 A100 SXM4 on NVSwitch (NVLink3: 12 links x 25 GB/s = 300 GB/s per
//    GPU per direction), 8 HDR InfiniBand NICs of 200 Gb/s, PCIe gen4 (16 GT/s) x16, 4 NUMA nodes.
//  - Azure ND H100 v5 (ndv5-topo.xml): 8 H100 SXM5 (NVLink4: 18 x 25 GB/s = 450 GB/s), 8 NDR InfiniBand
//    NICs of 400 Gb/s, PCIe gen5 (32 GT/s) x16, 2 NUMA nodes.
//    Both files are PCI-only NCCL_TOPO_FILE hints (no <gpu>, no <net>, no PCI ids): the machine must be
//    named with a template; without one the importer must say what it cannot know.
//  - AWS p4d.24xlarge (p4d-24xl-topo.xml): 8 A100 SXM4 40GB (PCI device 0x20b0), 4 EFA NICs of 100 Gb/s
//    (400 Gbps in all), PCIe gen3 (8 GT/s) x16 under 4 PCIe switches.
//  - IBM Cloud gx3d H100 (an NCCL dump): 8 H100 (sm 90), each with 5+5+4+4 = 18 NVLinks to four NVSwitch
//    bus ids (tclass 0x068000), 8 mlx5 NICs on PCI class 0x020000 at speed="200000" Mb/s = 200 Gb/s on a
//    RoCEv2 network, link_width="0" on every GPU and NIC.
//  - ibnetdiscover of two Fujitsu BX900 chassis switches: 20 hosts (18 + 2), both switches with hosts
//    (leaves), 5 QDR cables between them (4 x 10 Gb/s = 40 Gb/s each).
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "import_helpers.hpp"
#include "ringlab/topology/import.hpp"

using namespace ringlab;
using namespace ringlab::test;
using namespace ringlab::literals;

namespace {

NodeLayout vendor_xml(const std::string& name, std::optional<NodeTemplate> fill = std::nullopt) {
  return parse_nccl_topo_xml(import_fixture("vendor/" + name), name, "node0", fill);
}

/// NVLink bandwidth of one GPU per direction, in GB/s: the sum over its NVLink links.
double nvlink_gbytes_per_s(const Topology& t, const std::string& gpu) {
  double gbits = 0;
  for (const Adjacency& a : t.neighbors(t.device_by_name(gpu)))
    if (link_family(t.link(a.link).kind) == LinkFamily::NvLink) gbits += t.link(a.link).bandwidth.gbps();
  return gbits / 8;
}

int nvlink_count(const Topology& t, const std::string& gpu) {
  int n = 0;
  for (const Adjacency& a : t.neighbors(t.device_by_name(gpu)))
    if (link_family(t.link(a.link).kind) == LinkFamily::NvLink) n += t.link(a.link).lanes;
  return n;
}

void check_gpus(const NodeLayout& l, GpuModel model, double nvlink_gbytes, int links) {
  const Topology& t = l.node;
  REQUIRE(count_kind(t, DeviceKind::Gpu) == 8);
  for (int g = 0; g < 8; ++g) {
    const std::string name = "node0/gpu" + std::to_string(g);
    INFO(name);
    CHECK(t.device(t.device_by_name(name)).gpu_model == model);
    CHECK(nvlink_count(t, name) == links);
    CHECK(nvlink_gbytes_per_s(t, name) == Approx(nvlink_gbytes));
  }
}

void check_nics(const NodeLayout& l, std::size_t count, LinkKind port, Bandwidth rate) {
  REQUIRE(l.nics.size() == count);
  for (const NodeNic& n : l.nics) {
    CHECK(n.port == port);
    CHECK(n.bandwidth == rate);
    CHECK(n.near_gpu);
  }
}

}  // namespace

TEST_CASE("Azure NDv4 NCCL_TOPO_FILE with template dgx_a100: 8 A100 at 300 GB/s NVLink, 8 HDR 200 Gb/s", "[import][vendor]") {
  const NodeLayout l = vendor_xml("azure_ndv4_topo.xml", NodeTemplate::DgxA100);
  check_gpus(l, GpuModel::A100, 300.0, 12);
  check_nics(l, 8, LinkKind::IbHdr, 200_Gbps);
  CHECK(count_kind(l.node, DeviceKind::NvSwitch) == 1);
  CHECK(count_kind(l.node, DeviceKind::Cpu) == 4);
  CHECK(link_between(l.node, "node0/gpu0", "node0/pcie0").kind == LinkKind::Pcie4);
  CHECK(link_between(l.node, "node0/gpu0", "node0/pcie0").lanes == 16);
  CHECK(any_contains(l.report.assumptions, "NVLink as in template dgx_a100"));
}

TEST_CASE("Azure NDv4 without a template: InfiniBand from the PCI class, and no NVLink said out loud", "[import][vendor]") {
  const NodeLayout l = vendor_xml("azure_ndv4_topo.xml");
  CHECK(count_kind(l.node, DeviceKind::Gpu) == 8);
  CHECK(count_kind(l.node, DeviceKind::NvSwitch) == 0);
  CHECK(count_links(l.node, LinkKind::NvLink3) == 0);
  REQUIRE(l.nics.size() == 8);
  for (const NodeNic& n : l.nics) CHECK(link_family(n.port) == LinkFamily::InfiniBand);  // class 0x020700
  CHECK(any_contains(l.report.warnings, "does not say their NVLink"));
  CHECK(any_contains(l.report.assumptions, "names no GPU model"));
  CHECK(any_contains(l.report.assumptions, "NICs without speed="));
}

TEST_CASE("Azure NDv5 NCCL_TOPO_FILE with template dgx_h100: 8 H100 at 450 GB/s NVLink, 8 NDR 400 Gb/s", "[import][vendor]") {
  const NodeLayout l = vendor_xml("azure_ndv5_topo.xml", NodeTemplate::DgxH100);
  check_gpus(l, GpuModel::H100, 450.0, 18);
  check_nics(l, 8, LinkKind::IbNdr, 400_Gbps);
  CHECK(count_kind(l.node, DeviceKind::Cpu) == 2);
  CHECK(link_between(l.node, "node0/gpu0", "node0/pcie0").kind == LinkKind::Pcie5);
}

TEST_CASE("AWS p4d.24xlarge: A100 by PCI id 0x20b0, NVSwitch assumed for 8 SXM GPUs, 4 EFA of 100 Gb/s", "[import][vendor]") {
  const NodeLayout l = vendor_xml("aws_p4d_24xl_topo.xml");
  check_gpus(l, GpuModel::A100_40GB, 300.0, 12);
  check_nics(l, 4, LinkKind::Eth100, 100_Gbps);
  CHECK(count_kind(l.node, DeviceKind::PcieSwitch) == 4);
  const Link& pcie = link_between(l.node, "node0/gpu0", "node0/pcie0");
  CHECK(pcie.kind == LinkKind::Pcie3);
  CHECK(pcie.lanes == 16);
  CHECK(any_contains(l.report.assumptions, "PCI device id 20b0 (A100 SXM4 40GB)"));
  CHECK(any_contains(l.report.assumptions, "AWS EFA"));
  // Amazon's PCI vendor id marks them as EFA: their network links take the srd transport.
  for (const NodeNic& n : l.nics) CHECK(n.transport == Transport::Srd);
  CHECK(any_contains(l.report.assumptions, "are AWS EFA devices (PCI vendor 0x1d0f): transport srd"));
}

TEST_CASE("IBM Cloud H100 dump: 18 NVLinks to 4 NVSwitches, link_width 0 accepted, RoCE NICs of 200 Gb/s", "[import][vendor]") {
  const NodeLayout l = vendor_xml("ibm_cloud_h100_topo.xml");
  check_gpus(l, GpuModel::H100, 450.0, 18);
  for (const NodeNic& n : l.nics) CHECK(n.transport == Transport::Rdma);
  CHECK(count_kind(l.node, DeviceKind::NvSwitch) == 1);
  check_nics(l, 8, LinkKind::Eth200, 200_Gbps);
  const Link& gpu_link = link_between(l.node, "node0/gpu0", "node0/pcie0");
  CHECK(gpu_link.kind == LinkKind::Pcie5);  // 32 GT/s; width 0 -> the template's x16
  CHECK(gpu_link.lanes == 16);
  CHECK(any_contains(l.report.assumptions, "link_width=\"0\""));
  CHECK(any_contains(l.report.assumptions, "RoCE"));
}

TEST_CASE("NCCL XML: every <nvlink> form: GPU peer, NVSwitch, unlisted GPU and CPU targets warned", "[import][vendor]") {
  const std::string xml = R"(<system version="1">
  <cpu numaid="0">
    <pci busid="0000:01:00.0" class="0x030200" link_speed="16.0 GT/s PCIe" link_width="16">
      <gpu dev="0" sm="80" rank="0" gdr="1">
        <nvlink target="0000:02:00.0" count="4" tclass="0x030200"/>
        <nvlink target="0000:0a:00.0" count="2" tclass="0x068000"/>
        <nvlink target="0000:09:00.0" count="2" tclass="0x030200"/>
      </gpu>
    </pci>
    <pci busid="0000:02:00.0" class="0x030200" link_speed="16.0 GT/s PCIe" link_width="0">
      <gpu dev="1" sm="80" rank="1" gdr="1">
        <nvlink target="0000:01:00.0" count="4" tclass="0x030200"/>
        <nvlink target="0000:00:00.0" count="3" tclass="0x060400"/>
      </gpu>
    </pci>
    <nic><net name="mlx5_0" dev="0" speed="200000" port="1" guid="0x1234" gdr="1"/></nic>
  </cpu>
</system>
)";
  const NodeLayout l = parse_nccl_topo_xml(xml, "forms.xml");
  CHECK(link_between(l.node, "node0/gpu0", "node0/gpu1").lanes == 4);
  CHECK(link_between(l.node, "node0/gpu0", "node0/nvswitch").lanes == 2);
  CHECK(nvlink_count(l.node, "node0/gpu1") == 4);  // the CPU target is left out
  CHECK(any_contains(l.report.warnings, "line 7: <nvlink target=\"0000:09:00.0\"> (2 links) goes to a GPU"));
  CHECK(any_contains(l.report.warnings, "line 13: <nvlink target=\"0000:00:00.0\"> (3 links) goes to a device of class"));
  REQUIRE(l.nics.size() == 1);
  CHECK(l.nics[0].port == LinkKind::IbHdr);  // an RDMA NIC without a PCI class: InfiniBand, said
  CHECK(any_contains(l.report.assumptions, "does not tell InfiniBand from RoCE"));
}

TEST_CASE("NCCL XML: a bad link_width is still an error naming file and line", "[import][vendor]") {
  const Problem p = first_problem(
      [] {
        parse_nccl_topo_xml("<system>\n<cpu>\n<pci class=\"0x030200\" link_width=\"-4\"><gpu dev=\"0\"/></pci>\n</cpu>\n</system>\n",
                            "bad.xml");
      },
      "bad.xml");
  CHECK(p.location == "line 3");
  CHECK_THAT(p.message, Catch::Contains("link_width=\"-4\""));
}

TEST_CASE("ibnetdiscover of two BX900 QDR switches: 20 hosts, 2 leaves joined by 5 cables", "[import][vendor]") {
  const Fabric f = parse_ibnetdiscover(import_fixture("vendor/fujitsu_bx900_qdr.ibnetdiscover"), "bx900.txt");
  CHECK(f.hosts.size() == 20);
  CHECK(std::count(f.hosts.begin(), f.hosts.end(), "bx900-02-04") == 1);
  REQUIRE(f.switches.size() == 2);
  for (const FabricSwitch& s : f.switches) CHECK(s.kind == DeviceKind::Leaf);
  int host_links = 0, bundles = 0;
  for (const FabricLink& l : f.links) {
    if (l.a.host || l.b.host) {
      ++host_links;
      CHECK(l.bandwidth == 40_Gbps);
    } else {
      ++bundles;
      CHECK(l.lanes == 5);
    }
  }
  CHECK(host_links == 20);
  CHECK(bundles == 1);
}

TEST_CASE("ibnetdiscover edge cases: loopbacks skipped, nameless CAs are hosts, aggregation nodes out, 3 tiers",
          "[import][vendor]") {
  const Fabric f = parse_ibnetdiscover(import_fixture("ib_edge_cases.ibnetdiscover"), "edge.txt");
  CHECK(f.hosts == std::vector<std::string>{"H-b8599f0300c10300", "H-b8599f0300c10400", "node01", "node02", "node03"});
  std::map<std::string, DeviceKind> kinds;
  for (const FabricSwitch& s : f.switches) kinds[s.name] = s.kind;
  CHECK(kinds == std::map<std::string, DeviceKind>{{"core01", DeviceKind::Core},
                                                   {"leaf01", DeviceKind::Leaf},
                                                   {"leaf02", DeviceKind::Leaf},
                                                   {"spine01", DeviceKind::Spine},
                                                   {"spine02", DeviceKind::Spine}});
  CHECK(f.links.size() == 11);  // 5 host links, 4 leaf-spine, 2 spine-core
  CHECK(any_contains(f.report.assumptions, "2 loopback cable(s)"));
  CHECK(any_contains(f.report.assumptions, "5 SHARP aggregation node(s)"));
  CHECK(any_contains(f.report.assumptions, "2 CA(s) without a host name"));
  CHECK(any_contains(f.report.assumptions, "1 core"));

  const NodeLayout node = template_layout(NodeTemplate::DgxA100);
  const ImportedCluster c = combine(&f, &node);
  CHECK(c.cluster.gpus().size() == 40);
  CHECK(c.cluster.device(c.cluster.device_by_name("core01")).tier == 3);
}
