// Generators: node templates and fabrics, checked against counts derived by hand from the hardware
// descriptions in generators.hpp (devices per kind, links per kind and lanes, bandwidth sums, the
// oversubscription actually achieved, rail wiring) and the spec checks.
#include "ringlab/topology/generators.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <string>

using namespace ringlab;
using namespace ringlab::literals;

namespace {

std::size_t count_devices(const Topology& t, DeviceKind kind) {
  return std::size_t(
      std::count_if(t.devices().begin(), t.devices().end(), [&](const Device& d) { return d.kind == kind; }));
}

std::vector<Link> links_of(const Topology& t, LinkKind kind) {
  std::vector<Link> out;
  for (const Link& l : t.links())
    if (l.kind == kind) out.push_back(l);
  return out;
}

/// Links whose ends are of kinds {ka, kb} (either order).
std::vector<Link> links_between(const Topology& t, DeviceKind ka, DeviceKind kb) {
  std::vector<Link> out;
  for (const Link& l : t.links()) {
    const DeviceKind a = t.device(l.a).kind, b = t.device(l.b).kind;
    if ((a == ka && b == kb) || (a == kb && b == ka)) out.push_back(l);
  }
  return out;
}

/// Names of the neighbours of a device, sorted.
std::vector<std::string> peers(const Topology& t, const std::string& name) {
  std::vector<std::string> out;
  for (const Adjacency& adj : t.neighbors(t.device_by_name(name))) out.push_back(t.device(adj.peer).name);
  std::sort(out.begin(), out.end());
  return out;
}

bool linked(const Topology& t, const std::string& a, const std::string& b) {
  const auto p = peers(t, a);
  return std::find(p.begin(), p.end(), b) != p.end();
}

Bandwidth uplink_bandwidth(const Topology& t, const std::string& sw, DeviceKind upper) {
  Bandwidth sum;
  for (const Adjacency& adj : t.neighbors(t.device_by_name(sw)))
    if (t.device(adj.peer).kind == upper) sum = sum + t.link(adj.link).bandwidth;
  return sum;
}

Bandwidth downlink_bandwidth(const Topology& t, const std::string& sw) {
  Bandwidth sum;
  for (const Adjacency& adj : t.neighbors(t.device_by_name(sw)))
    if (t.device(adj.peer).kind == DeviceKind::Nic) sum = sum + t.link(adj.link).bandwidth;
  return sum;
}

ClusterSpec one_node(NodeTemplate tmpl) {
  ClusterSpec spec;
  spec.node = node_template(tmpl);
  spec.fabric.kind = FabricKind::None;
  return spec;
}

ClusterSpec cluster(int nodes, NodeTemplate tmpl, FabricKind fabric) {
  ClusterSpec spec;
  spec.nodes = nodes;
  spec.node = node_template(tmpl);
  spec.fabric.kind = fabric;
  return spec;
}

std::vector<std::string> fields(const std::vector<SpecProblem>& problems) {
  std::vector<std::string> out;
  for (const SpecProblem& p : problems) out.push_back(p.field);
  return out;
}

}  // namespace

TEST_CASE("dgx_h100: 8 GPUs on one NVSwitch (18 nvlink4 each), 8 pcie5 switches pairing GPU i with NIC i",
          "[generators]") {
  const Topology t = make_cluster(one_node(NodeTemplate::DgxH100));
  CHECK(t.host_count() == 1);
  CHECK(t.host(0).name == "node0");
  CHECK(t.host(0).template_name == "dgx_h100");
  CHECK(count_devices(t, DeviceKind::Gpu) == 8);
  CHECK(count_devices(t, DeviceKind::NvSwitch) == 1);
  CHECK(count_devices(t, DeviceKind::Cpu) == 2);
  CHECK(count_devices(t, DeviceKind::PcieSwitch) == 8);
  CHECK(count_devices(t, DeviceKind::Nic) == 8);
  CHECK(t.device_count() == 27);

  const auto nvlinks = links_of(t, LinkKind::NvLink4);
  REQUIRE(nvlinks.size() == 8);
  for (const Link& l : nvlinks) {
    CHECK(l.lanes == 18);
    CHECK(l.bandwidth == 450_GBps);  // 18 x 25 GB/s per direction = 900 GB/s bidirectional
  }
  // PCIe: 8 GPU + 8 NIC + 8 switch-to-CPU links, all x16 gen5.
  const auto pcie = links_of(t, LinkKind::Pcie5);
  CHECK(pcie.size() == 24);
  for (const Link& l : pcie) CHECK(l.lanes == 16);
  CHECK(links_of(t, LinkKind::UpiSpr).size() == 1);  // 2x Xeon 8480C
  CHECK(t.link_count() == 33);

  for (int i = 0; i < 8; ++i) {
    const std::string gpu = "node0/gpu" + std::to_string(i);
    const std::string pcie_switch = "node0/pcie" + std::to_string(i);
    CHECK(linked(t, gpu, pcie_switch));
    CHECK(linked(t, "node0/nic" + std::to_string(i), pcie_switch));
    CHECK(linked(t, pcie_switch, i < 4 ? "node0/cpu0" : "node0/cpu1"));
    const Device& g = t.device(t.device_by_name(gpu));
    CHECK(g.local_index == i);
    CHECK(g.host == 0);
    CHECK(g.gpu_model == GpuModel::H100);
  }
  CHECK(t.device(t.device_by_name("node0/nvswitch")).in_network_reduction);  // NVLink SHARP
  CHECK(t.device(t.device_by_name("node0/nic3")).local_index == 3);
}

TEST_CASE("dgx_a100: 4 pcie4 switches each with 2 GPUs and 2 HDR NICs, 12 nvlink3 per GPU", "[generators]") {
  const Topology t = make_cluster(one_node(NodeTemplate::DgxA100));
  CHECK(count_devices(t, DeviceKind::Gpu) == 8);
  CHECK(count_devices(t, DeviceKind::NvSwitch) == 1);
  CHECK(count_devices(t, DeviceKind::PcieSwitch) == 4);
  CHECK(count_devices(t, DeviceKind::Nic) == 8);
  CHECK(t.device_count() == 23);

  const auto nvlinks = links_of(t, LinkKind::NvLink3);
  REQUIRE(nvlinks.size() == 8);
  for (const Link& l : nvlinks) CHECK(l.bandwidth == 300_GBps);  // 12 x 25 GB/s: 600 GB/s bidirectional
  CHECK(links_of(t, LinkKind::Pcie4).size() == 20);              // 8 GPU + 8 NIC + 4 switch-to-CPU
  CHECK_FALSE(t.device(t.device_by_name("node0/nvswitch")).in_network_reduction);

  CHECK(peers(t, "node0/pcie1") ==
        std::vector<std::string>{"node0/cpu0", "node0/gpu2", "node0/gpu3", "node0/nic2", "node0/nic3"});
  CHECK(peers(t, "node0/pcie3") ==
        std::vector<std::string>{"node0/cpu1", "node0/gpu6", "node0/gpu7", "node0/nic6", "node0/nic7"});
  CHECK(peers(t, "node0/cpu0") == std::vector<std::string>{"node0/cpu1", "node0/pcie0", "node0/pcie1"});

  ClusterSpec spec = cluster(2, NodeTemplate::DgxA100, FabricKind::SingleSwitch);
  const Topology two = make_cluster(spec);
  const auto nic_links = links_between(two, DeviceKind::Nic, DeviceKind::Leaf);
  REQUIRE(nic_links.size() == 16);
  for (const Link& l : nic_links) {
    CHECK(l.kind == LinkKind::IbHdr);
    CHECK(l.bandwidth == 200_Gbps);
    CHECK(l.transport == Transport::Rdma);
  }
}

TEST_CASE("a default NodeSpec is the generic template", "[generators]") {
  CHECK(NodeSpec{} == node_template(NodeTemplate::Generic));
  CHECK_FALSE(NodeSpec{} == node_template(NodeTemplate::Pcie8));
}

TEST_CASE("CPU sockets are joined by the CPUs' own link kind: the templates' sources, or the node's cpu_link",
          "[generators]") {
  // Each template's CPUs as its source names them: DGX A100 2x AMD EPYC 7742, DGX H100 2x Xeon 8480C
  // (Sapphire Rapids), DGX B200 2x Xeon 8570 (Emerald Rapids), p4d 2x Xeon 8275CL (Cascade Lake).
  const std::vector<std::pair<NodeTemplate, LinkKind>> expected{{NodeTemplate::DgxA100, LinkKind::Xgmi},
                                                                {NodeTemplate::DgxH100, LinkKind::UpiSpr},
                                                                {NodeTemplate::DgxB200, LinkKind::UpiEmr},
                                                                {NodeTemplate::AwsP4d, LinkKind::Smp}};
  for (const auto& [tmpl, kind] : expected) {
    const Topology t = make_cluster(one_node(tmpl));
    const std::vector<Link> links = links_of(t, kind);
    REQUIRE(links.size() == 1);
    const Link& l = links.front();
    CHECK(t.device(l.a).kind == DeviceKind::Cpu);
    CHECK(t.device(l.b).kind == DeviceKind::Cpu);
    CHECK(l.bandwidth == link_defaults(kind).per_lane * link_defaults(kind).default_lanes);
  }
  // xGMI-2 between two EPYC 7002s: 4 links x 36 GB/s per direction.
  ClusterSpec s = one_node(NodeTemplate::Generic);
  s.node.cpu_link = LinkKind::Xgmi;
  const Topology t = make_cluster(s);
  REQUIRE(links_of(t, LinkKind::Xgmi).size() == 1);
  CHECK(links_of(t, LinkKind::Xgmi).front().bandwidth == 144_GBps);
  CHECK(links_of(t, LinkKind::Smp).empty());
}

TEST_CASE("hgx_* names are aliases of the dgx_* templates", "[generators]") {
  CHECK(find_node_template("hgx_h100") == NodeTemplate::DgxH100);
  CHECK(find_node_template("hgx_a100") == NodeTemplate::DgxA100);
  CHECK(find_node_template("dgx_h200") == NodeTemplate::DgxH200);
  CHECK(find_node_template("dgx_h300") == std::nullopt);
  CHECK(node_template_names() ==
        "dgx_a100, hgx_a100, dgx_h100, hgx_h100, pcie8, v100x4, generic, dgx_h200, hgx_h200, dgx_b200, hgx_b200, "
        "aws_p4d, p4d.24xlarge, aws_p4de, p4de.24xlarge, aws_p5, p5.48xlarge, aws_p5e, p5e.48xlarge, azure_ndv4, "
        "Standard_ND96asr_v4, azure_ndm_v4, Standard_ND96amsr_A100_v4, azure_ndv5, Standard_ND96isr_H100_v5, "
        "azure_nd_h200_v5, Standard_ND96isr_H200_v5, gcp_a3, a3-highgpu-8g, gcp_a3_mega, a3-megagpu-8g, "
        "gcp_a3_ultra, a3-ultragpu-8g, oci_bm_gpu4_8, BM.GPU4.8, oci_bm_gpu_h100_8, BM.GPU.H100.8, gb200_nvl72, "
        "azure_nd_gb200_v6, Standard_ND128isr_NDR_GB200_v6");
}

TEST_CASE("v100x4: NVLink all-to-all with 2 nvlink2 per pair (6 links per GPU), 1 EDR NIC, pcie3", "[generators]") {
  const Topology t = make_cluster(one_node(NodeTemplate::V100x4));
  CHECK(count_devices(t, DeviceKind::Gpu) == 4);
  CHECK(count_devices(t, DeviceKind::NvSwitch) == 0);
  CHECK(count_devices(t, DeviceKind::Nic) == 1);
  CHECK(count_devices(t, DeviceKind::PcieSwitch) == 2);
  const auto nvlinks = links_of(t, LinkKind::NvLink2);
  REQUIRE(nvlinks.size() == 6);  // C(4, 2) pairs
  for (const Link& l : nvlinks) {
    CHECK(l.lanes == 2);
    CHECK(l.bandwidth == 50_GBps);
  }
  // Each GPU: 3 peers x 2 links x 25 GB/s = 150 GB/s = 6 NVLink2 links.
  Bandwidth gpu0;
  for (const Adjacency& adj : t.neighbors(t.device_by_name("node0/gpu0")))
    if (t.device(adj.peer).kind == DeviceKind::Gpu) gpu0 = gpu0 + t.link(adj.link).bandwidth;
  CHECK(gpu0 == 150_GBps);
  CHECK(links_of(t, LinkKind::Pcie3).size() == 7);  // 4 GPU + 1 NIC + 2 switch-to-CPU
  CHECK(linked(t, "node0/nic0", "node0/pcie0"));
}

TEST_CASE("an all-to-all node cut to one GPU has no NVLink pair (it divided by zero)", "[generators]") {
  // Found by the NCCL property test: v100x4 with "gpus": 1 passed the spec check and crashed.
  ClusterSpec s = one_node(NodeTemplate::V100x4);
  s.node.gpus = 1;
  s.node.pcie_switches = 1;
  s.node.cpus = 1;
  REQUIRE(check_cluster_spec(s).empty());
  const Topology t = make_cluster(s);
  CHECK(count_devices(t, DeviceKind::Gpu) == 1);
  CHECK(links_of(t, LinkKind::NvLink2).empty());
}

TEST_CASE("every template cut to any small node the spec check accepts builds", "[generators]") {
  // A grid over each template's GPU, NIC, PCIe switch and CPU counts and 1-3 nodes: what
  // check_cluster_spec accepts, make_cluster must build, with the GPUs and NICs asked for.
  int built = 0;
  for (int i = 0; i < kNodeTemplateCount; ++i)
    for (int gpus = 1; gpus <= 9; gpus += 1)
      for (int nics = 0; nics <= 3; ++nics)
        for (int switches = 0; switches <= 3; ++switches)
          for (int cpus = 1; cpus <= 2; ++cpus)
            for (int nodes = 1; nodes <= 3; nodes += 2) {
              ClusterSpec s = cluster(nodes, NodeTemplate(i), nodes > 1 ? FabricKind::SingleSwitch : FabricKind::None);
              s.node.gpus = gpus;
              s.node.nics = nics;
              s.node.pcie_switches = switches;
              s.node.cpus = cpus;
              if (!check_cluster_spec(s).empty()) continue;
              INFO(to_string(NodeTemplate(i)) << ": " << gpus << " GPUs, " << nics << " NICs, " << switches
                                              << " PCIe switches, " << cpus << " CPUs, " << nodes << " nodes");
              const Topology t = make_cluster(s);
              CHECK(count_devices(t, DeviceKind::Gpu) == std::size_t(gpus * nodes));
              CHECK(count_devices(t, DeviceKind::Nic) == std::size_t(nics * nodes));
              ++built;
            }
  CHECK(built > 1000);
}

TEST_CASE("pcie8: 8 GPUs without NVLink on 4 PCIe switches, 2 NICs on switches 0 and 2", "[generators]") {
  const Topology t = make_cluster(one_node(NodeTemplate::Pcie8));
  CHECK(count_devices(t, DeviceKind::Gpu) == 8);
  CHECK(count_devices(t, DeviceKind::NvSwitch) == 0);
  CHECK(count_devices(t, DeviceKind::Nic) == 2);
  for (const Link& l : t.links()) CHECK(link_family(l.kind) != LinkFamily::NvLink);
  CHECK(linked(t, "node0/nic0", "node0/pcie0"));
  CHECK(linked(t, "node0/nic1", "node0/pcie2"));
  CHECK(t.device(t.device_by_name("node0/gpu0")).gpu_model == GpuModel::A100Pcie);
}

TEST_CASE("generic node with overrides: 4 H100 on an NVSwitch, 2 eth25 NICs over TCP", "[generators]") {
  ClusterSpec spec = cluster(2, NodeTemplate::Generic, FabricKind::SingleSwitch);
  spec.node.gpus = 4;
  set_gpu_model(spec.node, GpuModel::H100);
  spec.node.gpu_interconnect = GpuInterconnect::NvSwitch;
  spec.node.nics = 2;
  spec.node.nic = LinkKind::Eth25;
  spec.node.transport = Transport::Tcp;
  spec.node.pcie_switches = 0;  // GPUs and NICs straight on the CPUs
  const Topology t = make_cluster(spec);
  CHECK(count_devices(t, DeviceKind::Gpu) == 8);
  CHECK(count_devices(t, DeviceKind::PcieSwitch) == 0);
  CHECK(links_of(t, LinkKind::NvLink4).size() == 8);
  CHECK(linked(t, "node1/gpu1", "node1/cpu0"));
  CHECK(linked(t, "node1/gpu2", "node1/cpu1"));
  const auto nic_links = links_of(t, LinkKind::Eth25);
  REQUIRE(nic_links.size() == 4);
  for (const Link& l : nic_links) {
    CHECK(l.transport == Transport::Tcp);
    CHECK(l.overhead == link_defaults(LinkKind::Eth25).tcp_overhead);
  }
}

TEST_CASE("every template: GPUs named by host and index, each GPU reaches PCIe, NICs are rails", "[generators]") {
  const NodeTemplate tmpl = GENERATE(NodeTemplate::DgxA100, NodeTemplate::DgxH100, NodeTemplate::Pcie8,
                                     NodeTemplate::V100x4, NodeTemplate::Generic);
  CAPTURE(to_string(tmpl));
  const NodeSpec node = node_template(tmpl);
  ClusterSpec spec = cluster(2, tmpl, FabricKind::SingleSwitch);
  CHECK(check_cluster_spec(spec).empty());
  const Topology t = make_cluster(spec);
  CHECK(t.gpus().size() == std::size_t(2 * node.gpus));
  for (int h = 0; h < 2; ++h) {
    for (int i = 0; i < node.gpus; ++i) {
      const std::string name = "node" + std::to_string(h) + "/gpu" + std::to_string(i);
      const Device& g = t.device(t.device_by_name(name));
      CHECK(g.host == h);
      CHECK(g.local_index == i);
      CHECK(g.gpu_model == node.gpu_model);
      const auto p = peers(t, name);
      CHECK(std::any_of(p.begin(), p.end(), [&](const std::string& n) {
        const DeviceKind k = t.device(t.device_by_name(n)).kind;
        return k == DeviceKind::PcieSwitch || k == DeviceKind::Cpu;
      }));
    }
    for (int r = 0; r < node.nics; ++r)
      CHECK(linked(t, "node" + std::to_string(h) + "/nic" + std::to_string(r), "switch"));
  }
}

TEST_CASE("single_switch: every NIC on one leaf, one rack holding every host", "[generators]") {
  const Topology t = make_cluster(cluster(4, NodeTemplate::V100x4, FabricKind::SingleSwitch));
  CHECK(t.host_count() == 4);
  CHECK(t.gpus().size() == 16);
  REQUIRE(t.rack_count() == 1);
  CHECK(t.rack(0).name == "rack0");
  const Device& sw = t.device(t.device_by_name("switch"));
  CHECK(sw.kind == DeviceKind::Leaf);
  CHECK(sw.tier == 1);
  CHECK(sw.rack == 0);
  CHECK(sw.host == kNoHost);
  for (const Host& h : t.hosts()) CHECK(h.rack == 0);
  const auto nic_links = links_between(t, DeviceKind::Nic, DeviceKind::Leaf);
  REQUIRE(nic_links.size() == 4);
  for (const Link& l : nic_links) CHECK(l.bandwidth == 100_Gbps);
  CHECK(downlink_bandwidth(t, "switch") == 400_Gbps);
}

TEST_CASE("leaf_spine, 8 DGX H100, 4 per leaf, 4 spines, 2:1: 16 NDR uplinks per leaf, 4 to each spine",
          "[generators]") {
  ClusterSpec spec = cluster(8, NodeTemplate::DgxH100, FabricKind::LeafSpine);
  spec.fabric.nodes_per_leaf = 4;
  spec.fabric.spines = 4;
  spec.fabric.oversubscription = 2.0;
  const Topology t = make_cluster(spec);
  CHECK(count_devices(t, DeviceKind::Leaf) == 2);
  CHECK(count_devices(t, DeviceKind::Spine) == 4);
  CHECK(t.device(t.device_by_name("spine3")).tier == 2);
  const auto up = links_between(t, DeviceKind::Leaf, DeviceKind::Spine);
  REQUIRE(up.size() == 8);
  for (const Link& l : up) {
    CHECK(l.kind == LinkKind::IbNdr);
    CHECK(l.lanes == 4);
  }
  // Down: 4 nodes x 8 NICs x 400 Gb/s = 12.8 Tb/s; up: 4 spines x 4 x 400 Gb/s = 6.4 Tb/s.
  CHECK(downlink_bandwidth(t, "leaf1") == 12800_Gbps);
  CHECK(uplink_bandwidth(t, "leaf1", DeviceKind::Spine) == 6400_Gbps);
  CHECK(downlink_bandwidth(t, "leaf1") / uplink_bandwidth(t, "leaf1", DeviceKind::Spine) == Approx(2.0));
  // Racks are leaves.
  REQUIRE(t.rack_count() == 2);
  CHECK(t.host(3).rack == 0);
  CHECK(t.host(4).rack == 1);
  CHECK(t.device(t.device_by_name("leaf1")).rack == 1);
  CHECK(t.device(t.device_by_name("node5/gpu0")).rack == 1);
  CHECK(linked(t, "node5/nic7", "leaf1"));
}

TEST_CASE("leaf_spine rounds uplink ports up: 3:1 asked on 32 NDR downlinks gives 11 ports, 3 per spine, 2.67:1",
          "[generators]") {
  ClusterSpec spec = cluster(4, NodeTemplate::DgxH100, FabricKind::LeafSpine);
  spec.fabric.nodes_per_leaf = 4;
  spec.fabric.spines = 4;
  spec.fabric.oversubscription = 3.0;
  const Topology t = make_cluster(spec);
  // 12800 / (3 x 400) = 10.67 -> 11 ports -> ceil(11 / 4) = 3 per spine -> 12 ports = 4800 Gb/s.
  for (const Link& l : links_between(t, DeviceKind::Leaf, DeviceKind::Spine)) CHECK(l.lanes == 3);
  const double achieved = downlink_bandwidth(t, "leaf0") / uplink_bandwidth(t, "leaf0", DeviceKind::Spine);
  CHECK(achieved == Approx(12800.0 / 4800.0));
  CHECK(achieved <= 3.0);
}

TEST_CASE("leaf_spine with a faster uplink kind: 4 eth100 downlinks, 1:1, eth400 uplinks need one port",
          "[generators]") {
  ClusterSpec spec = cluster(4, NodeTemplate::Generic, FabricKind::LeafSpine);
  spec.fabric.nodes_per_leaf = 4;
  spec.fabric.spines = 2;
  spec.fabric.uplink = LinkKind::Eth400;
  const Topology t = make_cluster(spec);
  const auto up = links_between(t, DeviceKind::Leaf, DeviceKind::Spine);
  REQUIRE(up.size() == 2);
  for (const Link& l : up) {
    CHECK(l.kind == LinkKind::Eth400);
    CHECK(l.lanes == 1);  // 400 Gb/s needs 1 port; spread over 2 spines -> 1 each (rounded up)
  }
}

TEST_CASE("fat_tree3: 16 nodes, 4 per leaf, 2 leaves per pod, 2 aggregation per pod, 2 cores, non-blocking",
          "[generators]") {
  ClusterSpec spec = cluster(16, NodeTemplate::Generic, FabricKind::FatTree3);
  spec.fabric.nodes_per_leaf = 4;
  spec.fabric.leaves_per_pod = 2;
  spec.fabric.spines = 2;
  spec.fabric.cores = 2;
  const Topology t = make_cluster(spec);
  CHECK(count_devices(t, DeviceKind::Leaf) == 4);
  CHECK(count_devices(t, DeviceKind::Spine) == 4);
  CHECK(count_devices(t, DeviceKind::Core) == 2);
  CHECK(t.device(t.device_by_name("core1")).tier == 3);
  CHECK(links_between(t, DeviceKind::Nic, DeviceKind::Leaf).size() == 16);
  // Leaf: 4 x 100 Gb/s down -> 4 ports up -> 2 to each of its pod's 2 aggregation switches.
  const auto leaf_up = links_between(t, DeviceKind::Leaf, DeviceKind::Spine);
  REQUIRE(leaf_up.size() == 8);
  for (const Link& l : leaf_up) CHECK(l.lanes == 2);
  CHECK(peers(t, "leaf0") ==
        std::vector<std::string>{"node0/nic0", "node1/nic0", "node2/nic0", "node3/nic0", "spine0", "spine1"});
  CHECK(linked(t, "leaf3", "spine2"));
  CHECK_FALSE(linked(t, "leaf3", "spine0"));
  // Aggregation: 2 leaves x 2 ports x 100 Gb/s = 400 Gb/s down -> 4 ports up -> 2 per core.
  const auto agg_up = links_between(t, DeviceKind::Spine, DeviceKind::Core);
  REQUIRE(agg_up.size() == 8);
  for (const Link& l : agg_up) CHECK(l.lanes == 2);
  CHECK(uplink_bandwidth(t, "spine2", DeviceKind::Core) == 400_Gbps);
}

TEST_CASE("fat_tree3 oversubscription applies at the leaf tier only", "[generators]") {
  ClusterSpec spec = cluster(8, NodeTemplate::Generic, FabricKind::FatTree3);
  spec.fabric.nodes_per_leaf = 8;
  spec.fabric.leaves_per_pod = 1;
  spec.fabric.spines = 1;
  spec.fabric.cores = 1;
  spec.fabric.oversubscription = 4.0;
  const Topology t = make_cluster(spec);
  // 800 Gb/s down / 4 = 200 Gb/s -> 2 ports to the aggregation switch, which passes 2 ports to the core.
  CHECK(uplink_bandwidth(t, "leaf0", DeviceKind::Spine) == 200_Gbps);
  CHECK(uplink_bandwidth(t, "spine0", DeviceKind::Core) == 200_Gbps);
}

TEST_CASE("rail_optimized: 32 DGX H100 in 2 groups of 16, 8 spines: NIC r of node i on rail leaf (i/16)*8 + r",
          "[generators]") {
  ClusterSpec spec = cluster(32, NodeTemplate::DgxH100, FabricKind::RailOptimized);
  spec.fabric.nodes_per_group = 16;
  spec.fabric.spines = 8;
  const Topology t = make_cluster(spec);
  CHECK(t.gpus().size() == 256);
  CHECK(count_devices(t, DeviceKind::Leaf) == 16);
  CHECK(count_devices(t, DeviceKind::Spine) == 8);
  CHECK(links_between(t, DeviceKind::Nic, DeviceKind::Leaf).size() == 256);
  for (int i = 0; i < 32; ++i)
    for (int r = 0; r < 8; ++r)
      CHECK(
          linked(t, "node" + std::to_string(i) + "/nic" + std::to_string(r), "leaf" + std::to_string(i / 16 * 8 + r)));
  // Each rail leaf: 16 x 400 Gb/s down, non-blocking -> 16 ports -> 2 to each of 8 spines.
  const auto up = links_between(t, DeviceKind::Leaf, DeviceKind::Spine);
  REQUIRE(up.size() == 128);
  for (const Link& l : up) CHECK(l.lanes == 2);
  CHECK(downlink_bandwidth(t, "leaf13") == uplink_bandwidth(t, "leaf13", DeviceKind::Spine));
  CHECK(t.rack_count() == 2);
  CHECK(t.host(17).rack == 1);
}

TEST_CASE("rail_optimized with one group and no spines: rails only, as in a single scalable unit", "[generators]") {
  ClusterSpec spec = cluster(4, NodeTemplate::DgxH100, FabricKind::RailOptimized);
  spec.fabric.spines = 0;
  CHECK(check_cluster_spec(spec).empty());
  const Topology t = make_cluster(spec);
  CHECK(count_devices(t, DeviceKind::Leaf) == 8);
  CHECK(count_devices(t, DeviceKind::Spine) == 0);
  CHECK(peers(t, "leaf2") == std::vector<std::string>{"node0/nic2", "node1/nic2", "node2/nic2", "node3/nic2"});
}

TEST_CASE("racks: two racks of 4 hosts on 10GbE TCP, ToRs with 1x eth40 (40 Gbps) uplinks to one core",
          "[generators]") {
  ClusterSpec spec = cluster(8, NodeTemplate::V100x4, FabricKind::Racks);
  spec.node.nic = LinkKind::Eth10;
  spec.node.transport = Transport::Tcp;
  spec.fabric.nodes_per_leaf = 4;
  spec.fabric.uplink = LinkKind::Eth40;
  spec.fabric.uplinks = 1;
  const Topology t = make_cluster(spec);
  CHECK(t.rack_count() == 2);
  CHECK(count_devices(t, DeviceKind::Leaf) == 2);
  CHECK(count_devices(t, DeviceKind::Core) == 1);
  CHECK(t.device(t.device_by_name("tor1")).rack == 1);
  CHECK(t.host(5).rack == 1);
  const auto up = links_between(t, DeviceKind::Leaf, DeviceKind::Core);
  REQUIRE(up.size() == 2);
  for (const Link& l : up) {
    CHECK(l.bandwidth == 40_Gbps);
    CHECK(l.transport == Transport::Tcp);
  }
  CHECK(downlink_bandwidth(t, "tor0") == 40_Gbps);  // 4 x 10 Gb/s: this rack is not oversubscribed
  CHECK(peers(t, "core") == std::vector<std::string>{"tor0", "tor1"});
}

namespace {

/// A dragonfly of `groups` x `per_group` routers with `per_router` nodes each.
ClusterSpec dragonfly(int groups, int per_group, int per_router, int global_links, NodeTemplate tmpl) {
  ClusterSpec spec = cluster(groups * per_group * per_router, tmpl, FabricKind::Dragonfly);
  spec.fabric.nodes_per_leaf = per_router;
  spec.fabric.routers_per_group = per_group;
  spec.fabric.global_links = global_links;
  return spec;
}

/// Router-to-router links split by whether both ends sit in the same group (rack).
struct RouterLinks {
  std::vector<Link> local, global;
};
RouterLinks router_links(const Topology& t) {
  RouterLinks out;
  for (const Link& l : links_between(t, DeviceKind::Leaf, DeviceKind::Leaf))
    (t.device(l.a).rack == t.device(l.b).rack ? out.local : out.global).push_back(l);
  return out;
}

}  // namespace

TEST_CASE("dragonfly, 3 groups x 2 routers x 2 generic nodes: routers g<g>r<r>, 3 local and 3 global eth100 links",
          "[generators]") {
  const Topology t = make_cluster(dragonfly(3, 2, 2, 1, NodeTemplate::Generic));
  CHECK(t.host_count() == 12);
  CHECK(count_devices(t, DeviceKind::Leaf) == 6);
  CHECK(count_devices(t, DeviceKind::Spine) == 0);
  CHECK(count_devices(t, DeviceKind::Core) == 0);
  REQUIRE(t.rack_count() == 3);  // one rack per group
  const Device& router = t.device(t.device_by_name("g1r0"));
  CHECK(router.tier == 1);
  CHECK(router.rack == 1);
  CHECK(router.host == kNoHost);
  CHECK(t.find_device("g2r1"));
  CHECK_FALSE(t.find_device("g3r0"));
  // node i on router i / 2: node5 on router 2 = g1r0, in group 1's rack.
  CHECK(linked(t, "node5/nic0", "g1r0"));
  CHECK(t.host(5).rack == 1);
  CHECK(downlink_bandwidth(t, "g1r0") == 200_Gbps);  // 2 nodes x 1 eth100 NIC

  const RouterLinks links = router_links(t);
  CHECK(links.local.size() == 3);   // 3 groups x 2*1/2
  CHECK(links.global.size() == 3);  // 1 x 3*2/2 pairs of groups
  for (const Link& l : t.links()) {
    if (t.device(l.a).kind != DeviceKind::Leaf || t.device(l.b).kind != DeviceKind::Leaf) continue;
    CHECK(l.kind == LinkKind::Eth100);  // the NIC kind when no uplink is given
    CHECK(l.bandwidth == 100_Gbps);
    CHECK(l.transport == Transport::Rdma);
  }
  CHECK(linked(t, "g0r0", "g0r1"));
  CHECK(linked(t, "g2r0", "g2r1"));
}

TEST_CASE("dragonfly: g(r(r-1)/2) local links, global_links per pair of groups, globals balanced over each group's "
          "routers",
          "[generators]") {
  struct Case {
    int groups, per_group, per_router, global_links;
    std::size_t local, global;
  };
  const Case c = GENERATE(Case{3, 2, 2, 1, 3, 3},     // each group: 2 global ends on 2 routers
                          Case{4, 2, 1, 1, 4, 6},     // 3 ends on 2 routers: 2 and 1
                          Case{5, 4, 1, 3, 30, 30},   // 12 ends on 4 routers: 3 each
                          Case{4, 3, 2, 2, 12, 12});  // 6 ends on 3 routers: 2 each
  CAPTURE(c.groups, c.per_group, c.per_router, c.global_links);
  const Topology t =
      make_cluster(dragonfly(c.groups, c.per_group, c.per_router, c.global_links, NodeTemplate::Generic));
  CHECK(count_devices(t, DeviceKind::Leaf) == std::size_t(c.groups * c.per_group));
  const RouterLinks links = router_links(t);
  CHECK(links.local.size() == c.local);
  CHECK(links.global.size() == c.global);

  std::map<std::pair<RackId, RackId>, int> per_pair;
  std::map<DeviceId, int> per_router;
  for (DeviceId id = 0; id < t.device_count(); ++id)
    if (t.device(id).kind == DeviceKind::Leaf) per_router[id] = 0;
  for (const Link& l : links.global) {
    const RackId a = t.device(l.a).rack, b = t.device(l.b).rack;
    ++per_pair[{std::min(a, b), std::max(a, b)}];
    ++per_router[l.a];
    ++per_router[l.b];
  }
  CHECK(per_pair.size() == std::size_t(c.groups * (c.groups - 1) / 2));  // every pair of groups joined
  for (const auto& [pair, count] : per_pair) CHECK(count == c.global_links);
  for (RackId g = 0; g < RackId(c.groups); ++g) {
    int lo = 1 << 30, hi = 0;
    for (const auto& [id, count] : per_router) {
      if (t.device(id).rack != g) continue;
      lo = std::min(lo, count);
      hi = std::max(hi, count);
    }
    CAPTURE(g);
    CHECK(hi - lo <= 1);
    CHECK(lo >= (c.global_links * (c.groups - 1)) / c.per_group);
  }
}

TEST_CASE("dragonfly of DGX H100: all 8 NICs of a node on its router, uplink kind, bonded ports, prefix, SHARP",
          "[generators]") {
  ClusterSpec spec = dragonfly(2, 2, 1, 2, NodeTemplate::DgxH100);
  spec.fabric.uplink = LinkKind::IbNdr;
  spec.fabric.uplinks = 2;
  spec.fabric.prefix = "df-";
  spec.fabric.in_network_reduction = true;
  REQUIRE(check_cluster_spec(spec).empty());
  const Topology t = make_cluster(spec);
  CHECK(t.find_rack("df-rack1"));
  for (int r = 0; r < 8; ++r) CHECK(linked(t, "node3/nic" + std::to_string(r), "df-g1r1"));
  CHECK(downlink_bandwidth(t, "df-g1r1") == 3200_Gbps);  // 8 x 400 Gb/s
  const RouterLinks links = router_links(t);
  CHECK(links.local.size() == 2);
  CHECK(links.global.size() == 2);  // global_links 2 between the only pair of groups
  for (const Link& l : links.global) CHECK(l.bandwidth == 800_Gbps);  // 2 NDR ports bonded
  CHECK(t.device(t.device_by_name("df-g0r1")).in_network_reduction);
}

TEST_CASE("in_network_reduction marks every fabric switch, and prefixes keep two clusters apart", "[generators]") {
  ClusterSpec a = cluster(4, NodeTemplate::DgxH100, FabricKind::LeafSpine);
  a.fabric.nodes_per_leaf = 2;
  a.fabric.in_network_reduction = true;
  ClusterSpec b = cluster(2, NodeTemplate::V100x4, FabricKind::SingleSwitch);
  b.prefix = "old";
  b.fabric.prefix = "old-";
  Topology t;
  add_cluster(t, a);
  add_cluster(t, b);
  CHECK(t.host_count() == 6);
  for (const Device& d : t.devices()) {
    if (!is_fabric_switch(d.kind)) continue;
    CHECK(d.in_network_reduction == (d.name.rfind("old-", 0) != 0));
  }
  CHECK(t.find_device("old-switch"));
  CHECK(t.find_device("old1/gpu3"));
  CHECK(t.find_rack("old-rack0"));
  CHECK(t.gpus().size() == 40);
}

TEST_CASE("generation is deterministic: the same spec gives the same names in the same order", "[generators]") {
  ClusterSpec spec = cluster(6, NodeTemplate::DgxA100, FabricKind::FatTree3);
  spec.fabric.nodes_per_leaf = 1;
  spec.fabric.leaves_per_pod = 3;
  const Topology x = make_cluster(spec), y = make_cluster(spec);
  REQUIRE(x.device_count() == y.device_count());
  REQUIRE(x.link_count() == y.link_count());
  for (DeviceId i = 0; i < x.device_count(); ++i) CHECK(x.device(i).name == y.device(i).name);
  for (LinkId i = 0; i < x.link_count(); ++i) CHECK((x.link(i).a == y.link(i).a && x.link(i).b == y.link(i).b));
}

TEST_CASE("check_cluster_spec names each bad field as in scenario files", "[generators]") {
  SECTION("zero nodes") {
    ClusterSpec s = cluster(0, NodeTemplate::DgxH100, FabricKind::SingleSwitch);
    const auto p = check_cluster_spec(s);
    REQUIRE(p.size() == 1);
    CHECK(p[0].field == "nodes");
    CHECK(p[0].message == "expected an integer from 1 to 65536, got 0");
  }
  SECTION("oversubscription below 1 and nodes_per_leaf not dividing the nodes") {
    ClusterSpec s = cluster(8, NodeTemplate::DgxH100, FabricKind::LeafSpine);
    s.fabric.nodes_per_leaf = 3;
    s.fabric.oversubscription = 0.5;
    const auto p = check_cluster_spec(s);
    CHECK(fields(p) == std::vector<std::string>{"fabric/nodes_per_leaf", "fabric/oversubscription"});
    CHECK(p[0].message == "3 does not divide the number of nodes (8): expected a divisor of 8");
    CHECK_THAT(p[1].message, Catch::StartsWith("expected a ratio from 1 (non-blocking)"));
  }
  SECTION("leaves_per_pod must divide the leaves of a 3-tier fat tree") {
    ClusterSpec s = cluster(6, NodeTemplate::Generic, FabricKind::FatTree3);
    s.fabric.nodes_per_leaf = 2;
    s.fabric.leaves_per_pod = 2;
    const auto p = check_cluster_spec(s);
    REQUIRE(p.size() == 1);
    CHECK(p[0].field == "fabric/leaves_per_pod");
    CHECK(p[0].message == "2 does not divide the number of leaves (3): expected a divisor of 3");
  }
  SECTION("link kinds of the wrong family, tcp over InfiniBand") {
    ClusterSpec s = cluster(2, NodeTemplate::DgxH100, FabricKind::SingleSwitch);
    s.node.nic = LinkKind::NvLink4;
    s.node.pcie = LinkKind::IbNdr;
    s.node.nvlink = LinkKind::Pcie5;
    s.node.cpu_link = LinkKind::Pcie4;
    const auto p = check_cluster_spec(s);
    CHECK(fields(p) == std::vector<std::string>{"node/pcie", "node/cpu_link", "node/nic", "node/nvlink"});
    CHECK(p[1].message == "link kind \"pcie4\" is not a CPU socket link kind (smp, qpi, upi_spr, upi_emr, xgmi)");
    CHECK(p[2].message == "link kind \"nvlink4\" is not an InfiniBand or Ethernet port kind");
    ClusterSpec tcp = cluster(2, NodeTemplate::DgxH100, FabricKind::SingleSwitch);
    tcp.node.transport = Transport::Tcp;
    const auto q = check_cluster_spec(tcp);
    REQUIRE(q.size() == 1);
    CHECK(q[0].field == "node/transport");
    CHECK(q[0].message == "tcp over InfiniBand (ib_ndr): expected rdma, or an Ethernet NIC kind for tcp");
    tcp.node.transport = Transport::Srd;
    CHECK(check_cluster_spec(tcp).at(0).message ==
          "srd over InfiniBand (ib_ndr): expected rdma, or an Ethernet NIC kind for srd");
  }
  SECTION("all-to-all NVLink needs a link per GPU pair") {
    ClusterSpec s = one_node(NodeTemplate::V100x4);
    s.node.gpus = 8;  // 7 peers, but a V100 has 6 links
    const auto p = check_cluster_spec(s);
    REQUIRE(p.size() == 1);
    CHECK(p[0].field == "node/nvlinks");
    CHECK(p[0].message == "expected 7 to 64 NVLink links per GPU for gpu_interconnect all_to_all, got 6");
  }
  SECTION("several rail groups need spines; a fabric needs NICs") {
    ClusterSpec s = cluster(4, NodeTemplate::DgxH100, FabricKind::RailOptimized);
    s.fabric.nodes_per_group = 2;
    s.fabric.spines = 0;
    s.node.nics = 0;
    CHECK(fields(check_cluster_spec(s)) == std::vector<std::string>{"node/nics", "fabric/spines"});
  }
  SECTION("dragonfly: nodes_per_leaf divides the nodes, routers_per_group the routers, at least 2 groups") {
    ClusterSpec s = dragonfly(3, 2, 2, 1, NodeTemplate::Generic);  // 12 nodes, 6 routers
    REQUIRE(check_cluster_spec(s).empty());
    s.fabric.nodes_per_leaf = 5;
    auto p = check_cluster_spec(s);
    REQUIRE(p.size() == 1);
    CHECK(p[0].field == "fabric/nodes_per_leaf");
    CHECK(p[0].message == "5 does not divide the number of nodes (12): expected a divisor of 12");
    s.fabric.nodes_per_leaf = 2;
    s.fabric.routers_per_group = 4;
    p = check_cluster_spec(s);
    REQUIRE(p.size() == 1);
    CHECK(p[0].field == "fabric/routers_per_group");
    CHECK(p[0].message == "4 does not divide the number of routers (6): expected a divisor of 6");
    s.fabric.routers_per_group = 6;
    p = check_cluster_spec(s);
    REQUIRE(p.size() == 1);
    CHECK(p[0].field == "fabric/routers_per_group");
    CHECK(p[0].message ==
          "6 puts all 6 routers in one group: expected at least 2 groups (at most 3 routers per group)");
    s.fabric.routers_per_group = 0;
    s.fabric.global_links = 0;
    s.fabric.uplink = LinkKind::Pcie5;
    p = check_cluster_spec(s);
    CHECK(fields(p) == std::vector<std::string>{"fabric/routers_per_group", "fabric/global_links", "fabric/uplink"});
    CHECK(p[0].message == "expected an integer from 1 to 4096, got 0");
    CHECK(p[1].message == "expected an integer from 1 to 4096, got 0");
    CHECK(p[2].message == "link kind \"pcie5\" is not an InfiniBand or Ethernet port kind");
    ClusterSpec unset = cluster(12, NodeTemplate::Generic, FabricKind::Dragonfly);  // no counts given
    CHECK(fields(check_cluster_spec(unset)) ==
          std::vector<std::string>{"fabric/nodes_per_leaf", "fabric/routers_per_group"});
  }
  SECTION("dragonfly: one router cannot make two groups; a typo-sized dragonfly is refused") {
    ClusterSpec one = dragonfly(1, 1, 2, 1, NodeTemplate::Generic);  // 2 nodes on one router
    auto p = check_cluster_spec(one);
    REQUIRE(p.size() == 1);
    CHECK(p[0].field == "fabric/nodes_per_leaf");
    CHECK(p[0].message ==
          "2 puts all 2 nodes on one router: expected at least 2 routers (a dragonfly has at least 2 groups)");
    ClusterSpec huge = dragonfly(65536, 1, 1, 1, NodeTemplate::Generic);
    p = check_cluster_spec(huge);
    REQUIRE(p.size() == 1);
    CHECK(p[0].field == "fabric");
    // 65536 groups of one router: 65536 x 65535 / 2 global links, no local ones.
    CHECK(p[0].message ==
          "the dragonfly would have 2147450880 router-to-router links: expected at most 4000000 (fewer routers or "
          "global_links)");
  }
  SECTION("a typo-sized cluster is refused before building it") {
    ClusterSpec s = cluster(65536, NodeTemplate::V100x4, FabricKind::None);
    s.node.gpus = 64;
    s.node.nvlinks = 64;
    const auto p = check_cluster_spec(s);
    REQUIRE(p.size() == 1);
    CHECK(p[0].field == "nodes");
    CHECK_THAT(p[0].message, Catch::Contains("host-internal links: expected at most 4000000"));
  }
  SECTION("add_cluster refuses a bad spec instead of asserting") {
    Topology t;
    CHECK_THROWS_AS(add_cluster(t, cluster(0, NodeTemplate::Generic, FabricKind::None)), std::invalid_argument);
    CHECK(t.device_count() == 0);
  }
}
