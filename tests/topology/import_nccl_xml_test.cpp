// NCCL topology XML import on tests/data/import/dgx_a100_nccl_topo.xml (a DGX A100 dump: four NUMA
// <cpu>s 1,3,5,7, each with a PCIe switch holding two switches of one GPU and one HDR NIC; 6 NVSwitch
// targets with 2 links per GPU; one NVMe drive), the round trip XML -> scenario -> XML, and bad files.
#include <catch2/catch.hpp>

#include <map>
#include <sstream>

#include "import_helpers.hpp"
#include "ringlab/topology/export.hpp"
#include "ringlab/topology/generators.hpp"
#include "ringlab/topology/import.hpp"
#include "ringlab/topology/scenario.hpp"

using namespace ringlab;
using namespace ringlab::test;
using namespace ringlab::literals;

namespace {

/// What matters of a node, device by device: for each GPU its model and NVLink (count, bandwidth, peer
/// kind); for each NIC its HCA and port bandwidth; for both the PCIe path up to the CPU (each hop's kind,
/// width, bandwidth and the device above). Independent of device ids and bus numbers.
std::map<std::string, std::string> node_signature(const NodeLayout& layout) {
  const Topology& t = layout.node;
  std::map<std::string, std::string> sig;
  const std::string host = t.host(0).name + "/";
  auto local = [&](DeviceId d) { return t.device(d).name.substr(host.size()); };
  // Parent of each device in the PCIe tree: the neighbour over a PCIe link that is closer to a CPU.
  std::map<DeviceId, int> depth;
  std::vector<DeviceId> frontier;
  for (DeviceId d = 0; d < t.device_count(); ++d)
    if (t.device(d).kind == DeviceKind::Cpu) depth[d] = 0, frontier.push_back(d);
  for (int level = 1; !frontier.empty(); ++level) {
    std::vector<DeviceId> next;
    for (DeviceId d : frontier)
      for (const Adjacency& a : t.neighbors(d))
        if (link_family(t.link(a.link).kind) == LinkFamily::Pcie && !depth.count(a.peer))
          depth[a.peer] = level, next.push_back(a.peer);
    frontier = std::move(next);
  }
  for (DeviceId d = 0; d < t.device_count(); ++d) {
    const Device& dev = t.device(d);
    if (dev.kind != DeviceKind::Gpu && dev.kind != DeviceKind::Nic) continue;
    std::ostringstream s;
    DeviceId x = d;
    while (depth.at(x) > 0) {
      for (const Adjacency& a : t.neighbors(x)) {
        const Link& l = t.link(a.link);
        if (link_family(l.kind) != LinkFamily::Pcie || !depth.count(a.peer) || depth.at(a.peer) != depth.at(x) - 1) continue;
        s << " -" << to_string(l.kind) << "x" << l.lanes << "/" << l.bandwidth.gbps() << "-> "
          << to_string(t.device(a.peer).kind);
        x = a.peer;
        break;
      }
    }
    s << " " << local(x);
    if (dev.kind == DeviceKind::Gpu) {
      s << " model " << to_string(dev.gpu_model);
      for (const Adjacency& a : t.neighbors(d)) {
        const Link& l = t.link(a.link);
        if (link_family(l.kind) == LinkFamily::NvLink)
          s << " nvlink " << to_string(l.kind) << "x" << l.lanes << "/" << l.bandwidth.gbps() << " to "
            << to_string(t.device(a.peer).kind);
      }
    }
    sig[local(d)] = s.str();
  }
  for (const NodeNic& n : layout.nics) sig[local(n.device)] += " hca " + n.hca + " " + std::to_string(n.bandwidth.gbps());
  return sig;
}

}  // namespace

TEST_CASE("NCCL XML: DGX A100 dump gives 8 A100, one NVSwitch of 12 nvlink3 each, 8 HDR NICs", "[import][nccl]") {
  const NodeLayout l = parse_nccl_topo_xml(import_fixture("dgx_a100_nccl_topo.xml"), "a100.xml");
  const Topology& t = l.node;
  CHECK(count_kind(t, DeviceKind::Gpu) == 8);
  CHECK(count_kind(t, DeviceKind::Cpu) == 4);
  CHECK(count_kind(t, DeviceKind::PcieSwitch) == 12);  // 4 x (one switch holding two)
  CHECK(count_kind(t, DeviceKind::NvSwitch) == 1);
  CHECK(count_kind(t, DeviceKind::Nic) == 8);  // the NVMe drive is left out
  for (int g = 0; g < 8; ++g) {
    const Link& nv = link_between(t, "node0/gpu" + std::to_string(g), "node0/nvswitch");
    CHECK(nv.kind == LinkKind::NvLink3);
    CHECK(nv.lanes == 12);  // 6 NVSwitch targets x count 2
    CHECK(nv.bandwidth == 300_GBps);
  }
  CHECK(t.device(t.device_by_name("node0/gpu0")).gpu_model == GpuModel::A100);  // sm 80
  // 8 NVLink + 12 switch uplinks + 16 GPU/NIC links + 6 smp pairs among 4 CPUs.
  CHECK(t.link_count() == 42);
  CHECK(count_links(t, LinkKind::Pcie4) == 28);
  // "16.0 GT/s PCIe", width 16: 16 GT/s x 128/130 x 16 lanes = 252.06 Gbps.
  const DeviceId up = t.neighbors(t.device_by_name("node0/gpu0"))[1].peer;
  CHECK(link_between(t, "node0/gpu0", t.device(up).name).bandwidth.gbps() == Approx(16.0 * 128 / 130 * 16));
  REQUIRE(l.nics.size() == 8);
  CHECK(l.nics[5].hca == "mlx5_5");
  CHECK(l.nics[5].port == LinkKind::IbHdr);
  CHECK(l.nics[5].bandwidth == 200_Gbps);
  CHECK(l.nics[5].near_gpu);
  // GPU0 and GPU1 hang off the second <cpu> (numaid 3), GPU2 and GPU3 off the first (numaid 1).
  const auto sig = node_signature(l);
  CHECK_THAT(sig.at("gpu0"), Catch::StartsWith(" -pcie4x16/") && Catch::Contains("-> pcie_switch") &&
                                 Catch::Contains("-> cpu cpu1 model a100 nvlink nvlink3x12/2400 to nvswitch"));
  CHECK_THAT(sig.at("gpu2"), Catch::Contains(" cpu0 model a100"));
  CHECK_THAT(sig.at("nic0"), Catch::Contains(" cpu1 hca mlx5_0 200"));
}

TEST_CASE("NCCL XML: the CPUs' vendor and CPUID model pick the socket link kind as NCCL does", "[import][nccl]") {
  // dgx_a100_nccl_topo.xml: four NUMA domains of AuthenticAMD (EPYC 7742): every pair joined by xGMI.
  const NodeLayout amd = parse_nccl_topo_xml(import_fixture("dgx_a100_nccl_topo.xml"), "a100.xml");
  CHECK(count_links(amd.node, LinkKind::Xgmi) == 6);
  CHECK(count_links(amd.node, LinkKind::Smp) == 0);
  CHECK(any_contains(amd.report.assumptions, "CPUs joined pairwise by xgmi links (vendor AuthenticAMD"));
  // ncclTopoAddCpu's Intel models (family 6): from 0xCF Emerald Rapids, from 0x8F Sapphire Rapids, from
  // 0x55 Skylake-class, below Broadwell; Arm and unknown vendors the generic link.
  const std::string gpu = R"(<pci busid="0000:07:00.0" class="0x030200" vendor="0x10de" device="0x20b0" link_speed="16.0 GT/s PCIe" link_width="16"><gpu dev="0" sm="80" rank="0" gdr="1"/></pci>)";
  auto with_cpus = [&](const std::string& attrs) {
    const std::string xml = "<system version=\"1\"><cpu numaid=\"0\" " + attrs + ">" + gpu + "</cpu><cpu numaid=\"1\" " +
                            attrs + "></cpu></system>";
    return parse_nccl_topo_xml(xml, "cpus.xml").node;
  };
  const std::vector<std::pair<std::string, LinkKind>> cases{
      {R"(arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="207")", LinkKind::UpiEmr},
      {R"(arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143")", LinkKind::UpiSpr},
      {R"(arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="85")", LinkKind::Smp},
      {R"(arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="79")", LinkKind::Qpi},
      {R"(arch="x86_64" vendor="AuthenticAMD" familyid="25" modelid="1")", LinkKind::Xgmi},
      {R"(arch="arm64")", LinkKind::Smp},
      {"", LinkKind::Smp},
  };
  for (const auto& [attrs, kind] : cases) {
    CAPTURE(attrs);
    CHECK(count_links(with_cpus(attrs), kind) == 1);
  }
  // The host's CPU vendor, as NCCL tells them apart (Intel's PCIe overhead depends on it): x86_64 by
  // the CPUID vendor, another arch or vendor Other; none given, ringlab's default (Intel), said so.
  const std::vector<std::pair<std::string, CpuVendor>> vendors{
      {R"(arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143")", CpuVendor::Intel},
      {R"(arch="x86_64" vendor="AuthenticAMD" familyid="25" modelid="1")", CpuVendor::Amd},
      {R"(arch="x86_64" vendor="HygonGenuine")", CpuVendor::Other},
      {R"(arch="arm64")", CpuVendor::Other},
      {"", CpuVendor::Intel},
  };
  for (const auto& [attrs, vendor] : vendors) {
    CAPTURE(attrs);
    CHECK(with_cpus(attrs).host(0).cpu_vendor == vendor);
  }
  const std::string one = "<system version=\"1\"><cpu numaid=\"0\">" + gpu + "</cpu></system>";
  const NodeLayout unsaid = parse_nccl_topo_xml(one, "one.xml");
  CHECK_FALSE(unsaid.cpu_vendor_stated);
  CHECK_THAT(unsaid.cpu_vendor_assumption, Catch::StartsWith("one.xml: the <cpu> names no vendor: an Intel CPU"));
  CHECK(any_contains(combine(nullptr, &unsaid).report.assumptions, "names no vendor: an Intel CPU"));
  CHECK(with_cpus(R"(arch="arm64")").host(0).cpu_vendor == CpuVendor::Other);
}

TEST_CASE("NCCL XML: a vendor the file names stands; one it does not name can be given", "[import][nccl]") {
  // The DGX A100 dump names AMD EPYC CPUs: giving AMD again changes nothing, Intel is refused.
  NodeLayout a100 = parse_nccl_topo_xml(import_fixture("dgx_a100_nccl_topo.xml"), "a100.xml");
  CHECK(a100.cpu_vendor_stated);
  CHECK(a100.cpu_vendor_assumption.empty());
  const std::size_t links = a100.node.link_count(), xgmi = std::size_t(count_links(a100.node, LinkKind::Xgmi));
  set_layout_cpu_vendor(a100, CpuVendor::Amd, "--cpu-vendor");
  CHECK(count_links(a100.node, LinkKind::Xgmi) == int(xgmi));
  CHECK(a100.node.link_count() == links);
  const Problem p = first_problem([&] { set_layout_cpu_vendor(a100, CpuVendor::Intel, "--cpu-vendor"); }, "a100.xml");
  CHECK_THAT(p.message, Catch::Contains("names amd CPUs, but --cpu-vendor says intel"));
  // Two CPUs without a vendor: Intel and smp by default; AMD turns the socket link into xgmi.
  const std::string gpu = R"(<pci busid="0000:07:00.0" class="0x030000" link_speed="16.0 GT/s PCIe" link_width="16"><gpu dev="0" sm="80" rank="0" gdr="1"/></pci>)";
  NodeLayout two = parse_nccl_topo_xml("<system version=\"1\"><cpu numaid=\"0\">" + gpu +
                                           "</cpu><cpu numaid=\"1\"></cpu></system>",
                                       "two.xml");
  REQUIRE(count_links(two.node, LinkKind::Smp) == 1);
  set_layout_cpu_vendor(two, CpuVendor::Amd, "--cpu-vendor");
  CHECK(two.node.host(0).cpu_vendor == CpuVendor::Amd);
  CHECK(count_links(two.node, LinkKind::Smp) == 0);
  CHECK(count_links(two.node, LinkKind::Xgmi) == 1);
  CHECK(two.cpu_vendor_assumption.empty());
  CHECK(any_contains(two.report.assumptions, "two.xml: amd CPUs (--cpu-vendor): 1 socket link(s) xgmi"));
  const ImportedCluster c = combine(nullptr, &two);
  CHECK_FALSE(any_contains(c.report.assumptions, "names no vendor"));
  CHECK(c.cluster.host(0).cpu_vendor == CpuVendor::Amd);
}

TEST_CASE("NCCL XML round trip: XML -> scenario JSON -> XML keeps GPUs, NICs, NVLink, PCIe tree, bandwidths",
          "[import][nccl]") {
  const NodeLayout first = parse_nccl_topo_xml(import_fixture("dgx_a100_nccl_topo.xml"), "a100.xml");
  const ImportedCluster imported = combine(nullptr, &first);
  const nlohmann::json doc{{"ringlab", kScenarioFormatVersion}, {"cluster", cluster_json(imported.cluster)}};
  const Scenario scenario = scenario_from_json(doc, "imported.json");
  std::ostringstream xml;
  write_nccl_xml(xml, scenario.cluster, 0);
  const NodeLayout second = parse_nccl_topo_xml(xml.str(), "exported.xml");
  CHECK(count_kind(second.node, DeviceKind::PcieSwitch) == count_kind(first.node, DeviceKind::PcieSwitch));
  CHECK(count_kind(second.node, DeviceKind::Cpu) == count_kind(first.node, DeviceKind::Cpu));
  CHECK(second.node.link_count() == first.node.link_count());
  CHECK(count_links(second.node, LinkKind::Xgmi) == 6);  // the CPUs written back as AMD ones
  CHECK_THAT(xml.str(), Catch::Contains(R"(vendor="AuthenticAMD")"));
  const auto a = node_signature(first), b = node_signature(second);
  REQUIRE(a.size() == 16);
  CHECK(a == b);
  // And a second trip changes nothing at all.
  std::ostringstream again;
  const ImportedCluster reimported = combine(nullptr, &second);
  write_nccl_xml(again, reimported.cluster, 0);
  CHECK(again.str() == xml.str());
}

TEST_CASE("NCCL XML export: a named socket link writes its CPUs, the default smp none", "[import][nccl]") {
  ClusterSpec spec;
  spec.nodes = 1;
  spec.node.gpus = 2;
  spec.node.cpus = 2;
  spec.node.nics = 0;
  spec.fabric.kind = FabricKind::None;
  std::ostringstream generic;
  write_nccl_xml(generic, make_cluster(spec), 0);
  CHECK_THAT(generic.str(), !Catch::Contains("familyid"));  // NCCL takes the machine's own CPU
  spec.node.cpu_link = LinkKind::UpiSpr;
  std::ostringstream spr;
  write_nccl_xml(spr, make_cluster(spec), 0);
  CHECK_THAT(spr.str(), Catch::Contains(R"(vendor="GenuineIntel" familyid="6" modelid="143")"));
  CHECK(count_links(parse_nccl_topo_xml(spr.str(), "spr.xml").node, LinkKind::UpiSpr) == 1);
  // One AMD socket has no socket link to name it: its vendor writes it, and reads back.
  spec.node.cpus = 1;
  spec.node.cpu_vendor = CpuVendor::Amd;
  spec.node.cpu_link = LinkKind::Xgmi;
  std::ostringstream amd;
  write_nccl_xml(amd, make_cluster(spec), 0);
  CHECK_THAT(amd.str(), Catch::Contains(R"(vendor="AuthenticAMD")"));
  CHECK(parse_nccl_topo_xml(amd.str(), "amd.xml").node.host(0).cpu_vendor == CpuVendor::Amd);
}

TEST_CASE("NCCL XML: PCIe gen3 x8 and an Ethernet NIC directly in the <cpu>", "[import][nccl]") {
  const std::string xml = R"(<system version="1">
  <cpu numaid="0">
    <pci busid="0000:3b:00.0" class="0x030200" link_speed="8.0 GT/s PCIe" link_width="8">
      <gpu dev="0" sm="70" rank="0" gdr="1"/>
    </pci>
    <nic><net name="eth0" dev="0" speed="25000" port="1"/></nic>
  </cpu>
</system>
)";
  const NodeLayout l = parse_nccl_topo_xml(xml, "small.xml");
  CHECK(l.node.device(l.node.device_by_name("node0/gpu0")).gpu_model == GpuModel::V100);
  const Link& pcie = link_between(l.node, "node0/gpu0", "node0/cpu0");
  CHECK(pcie.kind == LinkKind::Pcie3);
  CHECK(pcie.lanes == 8);
  REQUIRE(l.nics.size() == 1);
  CHECK(l.nics[0].port == LinkKind::Eth25);
  CHECK_FALSE(l.nics[0].near_gpu);
}

TEST_CASE("NCCL XML: bad files are reported with their line number", "[import][nccl]") {
  const auto problem = [](const std::string& text) {
    return first_problem([&] { parse_nccl_topo_xml(text, "bad.xml"); }, "bad.xml");
  };
  Problem p = problem("<system version=\"1\">\n  <cpu numaid=\"0\">\n    <pci busid=\"0\" class=\"0x030200\">\n  </cpu>\n</system>\n");
  CHECK(p.location == "line 4");
  CHECK_THAT(p.message, Catch::Contains("malformed XML"));
  p = problem("<system>\n<cpu>\n<pci class=\"0x030200\" link_speed=\"12 GT/s\"><gpu dev=\"0\"/></pci>\n</cpu>\n</system>\n");
  CHECK(p.location == "line 3");
  CHECK_THAT(p.message, Catch::Contains("link_speed=\"12 GT/s\""));
  p = problem("<system>\n<cpu>\n<pci class=\"0x030200\"><gpu dev=\"0\"/></pci>\n<pci class=\"0x030200\"><gpu dev=\"0\"/></pci>\n</cpu>\n</system>\n");
  CHECK(p.location == "line 4");
  CHECK_THAT(p.message, Catch::Contains("dev=\"0\" repeats"));
  p = problem("<system>\n<cpu>\n<pci class=\"0x030200\">\n<gpu sm=\"80\"/></pci>\n</cpu>\n</system>\n");
  CHECK(p.location == "line 4");
  CHECK_THAT(p.message, Catch::Contains("no dev="));
  p = problem("<topology/>\n");
  CHECK_THAT(p.message, Catch::Contains("<system>"));
  p = problem("<system>\n<cpu>\n<pci class=\"0x030200\"><gpu dev=\"0\"><nvlink target=\"x\" count=\"two\"/></gpu></pci>\n</cpu>\n</system>\n");
  CHECK(p.location == "line 3");
  CHECK_THAT(p.message, Catch::Contains("count=\"two\""));
}
