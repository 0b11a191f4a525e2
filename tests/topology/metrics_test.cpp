// Topology metrics: counts, bisection, oversubscription, diameter (checked against the Router pair by
// pair), NIC share per GPU, path spread and ECMP balance, and the exact text of print_summary.
#include <catch2/catch.hpp>

#include <chrono>
#include <sstream>
#include <tuple>

#include "hand_built_clusters.hpp"
#include "ringlab/topology/generators.hpp"
#include "ringlab/topology/metrics.hpp"
#include "ringlab/topology/scenario.hpp"

using namespace ringlab;
using namespace ringlab::literals;
using namespace ringlab::test;

namespace {

/// `hosts` hosts of `gpus` GPUs joined all-to-all by NVLink2 (2 links per pair), each GPU on PCIe 3 to
/// one CPU that holds one EDR NIC; all NICs on one switch (the shape of the built-in scenario).
Cluster single_switch(int hosts, int gpus) {
  Cluster c;
  const RackId rack = c.t.add_rack("rack0");
  const DeviceId sw = c.add("switch", DeviceKind::Leaf, kNoHost, 1);
  for (int h = 0; h < hosts; ++h) {
    const std::string name = "node" + std::to_string(h);
    const HostId host = c.t.add_host(name, rack);
    const DeviceId cpu = c.add(name + "/cpu0", DeviceKind::Cpu, host);
    const DeviceId nic = c.add(name + "/nic0", DeviceKind::Nic, host);
    c.link(cpu, nic, LinkKind::Pcie3);
    c.link(nic, sw, LinkKind::IbEdr);
    std::vector<DeviceId> g;
    for (int i = 0; i < gpus; ++i) {
      g.push_back(c.add(name + "/gpu" + std::to_string(i), DeviceKind::Gpu, host));
      c.link(g.back(), cpu, LinkKind::Pcie3);
    }
    for (std::size_t i = 0; i < g.size(); ++i)
      for (std::size_t j = i + 1; j < g.size(); ++j) c.link(g[i], g[j], LinkKind::NvLink2, 2);
  }
  return c;
}

/// Brute force: the largest Router::hops over every ordered GPU pair, or nullopt if one is unreachable.
std::optional<int> diameter_pairwise(const Topology& t, const Router& r) {
  int worst = 0;
  for (DeviceId a : t.gpus())
    for (DeviceId b : t.gpus()) {
      if (a == b) continue;
      const auto h = r.hops(a, b);
      if (!h) return std::nullopt;
      worst = std::max(worst, *h);
    }
  return worst;
}

std::string text_of(const Topology& t, const TopologySummary& s) {
  std::ostringstream out;
  print_summary(out, t, s);
  return out.str();
}

}  // namespace

TEST_CASE("single switch, 4 hosts of 4 GPUs: counts, 2 NICs of bisection, 6-hop diameter, a quarter NIC "
          "per GPU",
          "[metrics]") {
  const Cluster c = single_switch(4, 4);
  const Router router(c.t);
  const TopologySummary s = summarize(c.t, router);
  CHECK(s.hosts == 4);
  CHECK(s.racks == 1);
  CHECK(s.gpus == 16);
  CHECK(s.devices == 16 + 4 + 4 + 1);
  CHECK(s.devices_per_kind[std::size_t(DeviceKind::Nic)] == 4);
  CHECK(s.devices_per_kind[std::size_t(DeviceKind::Leaf)] == 1);
  REQUIRE(s.links_per_kind.size() == 3);
  CHECK(s.links_per_kind[0].kind == LinkKind::NvLink2);
  CHECK(s.links_per_kind[0].count == 24);
  CHECK(s.links_per_kind[0].total == link_defaults(LinkKind::NvLink2).per_lane * 48.0);
  CHECK(s.links_per_kind[2].kind == LinkKind::IbEdr);
  CHECK(s.bisection_split == BisectionSplit::Hosts);
  CHECK(s.bisection_half == 2);
  CHECK(s.bisection == 200_Gbps);
  CHECK(s.oversubscription.empty());
  CHECK(s.diameter_hops == 6);
  CHECK(s.diameter_hops == diameter_pairwise(c.t, router));
  CHECK(s.nic_bandwidth_per_gpu_min == 25_Gbps);
  CHECK(s.nic_bandwidth_per_gpu_max == 25_Gbps);
  CHECK(s.spread_pairs == 3);
  CHECK(s.paths_min == 1);
  CHECK(s.paths_max == 1);
  CHECK_FALSE(s.balance_worst.has_value());
}

TEST_CASE("print_summary: a stable text with a unit on every number", "[metrics]") {
  const Cluster c = single_switch(4, 4);
  const Router router(c.t);
  const std::string text = text_of(c.t, summarize(c.t, router));
  CHECK(text ==
        "cluster: 4 hosts, 1 rack, 16 GPUs (25 devices, 48 links)\n"
        "devices: gpu 16, cpu 4, nic 4, leaf 1\n"
        "GPUs by model: generic 16\n"
        "hosts by CPU vendor: intel 4\n"
        "links:\n"
        "  nvlink2     24 links, 400.0 Gbps each, 9600.0 Gbps total (per direction)\n"
        "  pcie3       20 links, 126.0 Gbps each, 2520.6 Gbps total (per direction)\n"
        "  ib_edr       4 links, 100.0 Gbps each, 400.0 Gbps total (per direction)\n"
        "bisection (hosts 0-1 | 2-3, split in host order): 200.0 Gbps one direction\n"
        "oversubscription (downlink/uplink bandwidth per switch): n/a (no switch has uplinks)\n"
        "diameter: 6 hops (GPU to GPU)\n"
        "per-GPU NIC bandwidth: 25.0 Gbps (min) .. 25.0 Gbps (max)\n"
        "routing spread (first GPU to the first GPU of 3 other hosts): 1 .. 1 .. 1 equal-cost paths "
        "(min .. median .. max)\n"
        "ECMP balance: n/a (no sampled pair has 2-64 equal-cost paths)\n");
  CHECK(text == text_of(c.t, summarize(c.t, Router(c.t))));
}

TEST_CASE("GPUs are counted by model and hosts by CPU vendor, in enum order, absent ones left out",
          "[metrics]") {
  Cluster c = single_switch(3, 2);
  c.t.set_cpu_vendor(0, CpuVendor::Amd);
  c.t.set_cpu_vendor(2, CpuVendor::Other);
  Device h100;
  h100.name = "node1/gpu2";
  h100.host = 1;
  h100.gpu_model = GpuModel::H100;
  c.t.add_device(h100);
  const TopologySummary s = summarize(c.t, Router(c.t));
  CHECK(s.gpus_per_model[std::size_t(GpuModel::Generic)] == 6);
  CHECK(s.gpus_per_model[std::size_t(GpuModel::H100)] == 1);
  CHECK(s.hosts_per_cpu_vendor == std::array<std::size_t, kCpuVendorCount>{1, 1, 1});
  const std::string text = text_of(c.t, s);
  CHECK_THAT(text, Catch::Contains("\nGPUs by model: generic 6, h100 1\nhosts by CPU vendor: intel 1, amd 1, other 1\n"));
  const nlohmann::ordered_json doc = summary_json(s, "x");
  CHECK(doc["gpus_per_model"].dump() == R"({"generic":6,"h100":1})");
  CHECK(doc["hosts_per_cpu_vendor"].dump() == R"({"intel":1,"amd":1,"other":1})");
  CHECK(doc["devices_per_kind"].dump() == R"({"gpu":7,"cpu":3,"nic":3,"leaf":1})");
}

TEST_CASE("leaf-spine: leaf oversubscription is downlinks over uplinks, rack-to-rack pairs have one path "
          "per spine and Hash spreads flows over them",
          "[metrics]") {
  SECTION("2 hosts per leaf, 2 uplinks: 1.00:1") {
    LeafSpine ls(2);
    const Router router(ls.c.t);
    const TopologySummary s = summarize(ls.c.t, router);
    REQUIRE(s.oversubscription.size() == 1);
    CHECK(s.oversubscription[0].tier == 1);
    CHECK(s.oversubscription[0].switches == 2);
    CHECK(s.oversubscription[0].min_ratio == Approx(1.0));
    CHECK(s.oversubscription[0].max_ratio == Approx(1.0));
    // Hosts 0-1 (rack 0) against 2-3 (rack 1): each sender is limited by its GPU's PCIe 4 x16 link.
    CHECK(s.bisection.gbps() == Approx(2 * (link_defaults(LinkKind::Pcie4).per_lane * 16.0).gbps()));
    CHECK(s.diameter_hops == 6);
    CHECK(s.diameter_hops == diameter_pairwise(ls.c.t, router));
    CHECK(s.spread_pairs == 3);
    CHECK(s.paths_min == 1);     // the other host in rack 0
    CHECK(s.paths_median == 2);  // racks differ: one path per spine
    CHECK(s.paths_max == 2);
    CHECK(s.balance_pairs == 2);
    REQUIRE(s.balance_worst.has_value());
    CHECK(*s.balance_worst >= 1.0);
    CHECK(*s.balance_worst < 2.0);
    CHECK_THAT(text_of(ls.c.t, s), Catch::Contains("leaf->spine 1.00:1 (min) .. 1.00:1 (max) over 2 switches"));
  }
  SECTION("4 hosts per leaf, 2 uplinks: 2.00:1, and the leaf's uplinks bound the bisection") {
    LeafSpine ls(4);
    const TopologySummary s = summarize(ls.c.t, Router(ls.c.t));
    REQUIRE(s.oversubscription.size() == 1);
    CHECK(s.oversubscription[0].max_ratio == Approx(2.0));
    CHECK(s.bisection == 800_Gbps);
  }
  SECTION("First puts every flow on one path: the balance is the path count") {
    LeafSpine ls(1);
    const TopologySummary s = summarize(ls.c.t, Router(ls.c.t, EcmpPolicy::First));
    CHECK(s.balance_worst == Approx(2.0));
    CHECK_THAT(text_of(ls.c.t, s), Catch::Contains("ECMP balance (first policy, 16 flows per path, 1 pair)"));
  }
}

TEST_CASE("diameter equals the largest Router hop count over all GPU pairs", "[metrics]") {
  SECTION("rail-optimised, two leaf groups") {
    RailCluster rc(4, 4, 2, 2);
    const Router router(rc.c.t);
    const TopologySummary s = summarize(rc.c.t, router);
    CHECK(s.diameter_hops == diameter_pairwise(rc.c.t, router));
    CHECK(s.diameter_hops == 8);
    CHECK(s.nic_bandwidth_per_gpu_min == 400_Gbps);
    CHECK(s.nic_bandwidth_per_gpu_max == 400_Gbps);
  }
  SECTION("rail-only (no spines): crossing rails goes through the destination host") {
    RailCluster rc(2, 4, 2, 0);
    const Router router(rc.c.t);
    const TopologySummary s = summarize(rc.c.t, router);
    CHECK(s.diameter_hops == diameter_pairwise(rc.c.t, router));
  }
  SECTION("direct host-to-host cables take the pairwise path") {
    Cluster c;
    auto [a, a_nic] = c.simple_host("node0");
    auto [b, b_nic] = c.simple_host("node1");
    c.link(a_nic, b_nic, LinkKind::IbNdr);
    const Router router(c.t);
    const TopologySummary s = summarize(c.t, router);
    CHECK(s.diameter_hops == 3);
    CHECK(s.bisection.gbps() == Approx((link_defaults(LinkKind::Pcie4).per_lane * 16.0).gbps()));
  }
  SECTION("unreachable pairs: disconnected") {
    Cluster c;
    c.simple_host("node0");
    c.simple_host("node1");
    const Router router(c.t);
    const TopologySummary s = summarize(c.t, router);
    CHECK_FALSE(s.diameter_hops.has_value());
    CHECK_FALSE(s.connected);
    CHECK(s.bisection == Bandwidth{});
    CHECK_THAT(text_of(c.t, s), Catch::Contains("diameter: disconnected"));
  }
}

TEST_CASE("generated clusters: the signature diameter equals the pairwise one", "[metrics]") {
  const auto [node, fabric, nodes_per_leaf] =
      GENERATE(std::tuple{NodeTemplate::DgxH100, FabricKind::RailOptimized, 0},
               std::tuple{NodeTemplate::DgxA100, FabricKind::LeafSpine, 2},
               std::tuple{NodeTemplate::Pcie8, FabricKind::FatTree3, 2},
               std::tuple{NodeTemplate::V100x4, FabricKind::Racks, 2});
  ClusterSpec spec;
  spec.nodes = 8;
  spec.node = node_template(node);
  spec.fabric.kind = fabric;
  spec.fabric.nodes_per_leaf = nodes_per_leaf;
  const Topology t = make_cluster(spec);
  const Router router(t);
  const TopologySummary s = summarize(t, router);
  REQUIRE(s.diameter_hops.has_value());
  CHECK(s.diameter_hops == diameter_pairwise(t, router));
}

TEST_CASE("the built-in scenario: 4 V100 servers on one EDR switch", "[metrics]") {
  const Scenario sc = default_scenario();
  const TopologySummary s = summarize(sc.cluster, Router(sc.cluster));
  CHECK(s.gpus == 16);
  CHECK(s.bisection == 200_Gbps);
  CHECK(s.nic_bandwidth_per_gpu_max == 25_Gbps);
  CHECK(s.diameter_hops == diameter_pairwise(sc.cluster, Router(sc.cluster)));
  CHECK_THAT(text_of(sc.cluster, s), Catch::Contains("devices: gpu 16, cpu 8, pcie_switch 8, nic 4, leaf 1\n"));
}

TEST_CASE("one host: the bisection splits its GPUs in halves", "[metrics]") {
  RailCluster rc(1, 4, 1, 0);
  const Router router(rc.c.t);
  const TopologySummary s = summarize(rc.c.t, router);
  CHECK(s.bisection_split == BisectionSplit::Gpus);
  CHECK(s.bisection_half == 2);
  // GPUs 0-1 sit on cpu0, 2-3 on cpu1: two GPUs' 18 NVLink4 links into the NVSwitch, plus the CPUs'
  // SMP link (2 UPI links by default) for the PCIe side.
  const Bandwidth nvlink = link_defaults(LinkKind::NvLink4).per_lane * 18.0;
  const LinkDefaults& smp = link_defaults(LinkKind::Smp);
  CHECK(s.bisection.gbps() == Approx((nvlink * 2.0).gbps() + (smp.per_lane * double(smp.default_lanes)).gbps()));
  CHECK(s.spread_pairs == 0);
  CHECK_THAT(text_of(rc.c.t, s), Catch::Contains("bisection (GPUs 0-1 | 2-3, split in GPU order)") &&
                                     Catch::Contains("routing spread: n/a (fewer than 2 hosts)"));
}

TEST_CASE("summarize speed: 1024 rail-optimised hosts of 8 GPUs", "[.perf]") {
  RailCluster rc(1024, 8, 32, 64);
  const Router router(rc.c.t);
  const auto t0 = std::chrono::steady_clock::now();
  const TopologySummary s = summarize(rc.c.t, router);
  const auto t1 = std::chrono::steady_clock::now();
  const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  WARN("summarize: " << ms << " ms\n" << text_of(rc.c.t, s));
  CHECK(s.diameter_hops == 8);
}
