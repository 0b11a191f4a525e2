// Scenario files that are valid: the built-in default, the fixtures in tests/data/scenarios, the
// complete example in docs/scenario-format.md, generator overrides, explicit devices joined to
// generated ones, link overrides and the raw sections kept for later layers.
#include "ringlab/topology/scenario.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

#include "ringlab/topology/error.hpp"
#include "ringlab/topology/export.hpp"

using namespace ringlab;
using namespace ringlab::literals;

namespace {

std::string source_path(const std::string& relative) { return std::string(RINGLAB_SOURCE_DIR) + "/" + relative; }

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

/// The first ```json block of a Markdown file.
std::string first_json_block(const std::string& markdown) {
  const std::string open = "```json\n";
  const std::size_t start = markdown.find(open);
  if (start == std::string::npos) return {};
  const std::size_t end = markdown.find("```", start + open.size());
  return markdown.substr(start + open.size(), end - start - open.size());
}

const Link& link_between(const Topology& t, const std::string& a, const std::string& b) {
  const DeviceId da = t.device_by_name(a), db = t.device_by_name(b);
  for (const Adjacency& adj : t.neighbors(da))
    if (adj.peer == db) return t.link(adj.link);
  throw std::out_of_range("no link " + a + " -- " + b);
}

/// A minimal valid document around a cluster section.
std::string with_cluster(const std::string& cluster) { return R"({"ringlab": 1, "cluster": )" + cluster + "}"; }

}  // namespace

TEST_CASE("default scenario: 4 servers x 4 V100 on 100 Gb/s InfiniBand, one switch", "[scenario]") {
  const Scenario s = default_scenario();
  CHECK(s.name == "default");
  CHECK(s.file.empty());
  CHECK(s.cluster.host_count() == 4);
  CHECK(s.cluster.gpus().size() == 16);
  CHECK(s.cluster.device(s.cluster.gpus()[5]).name == "node1/gpu1");
  CHECK(s.cluster.device(s.cluster.gpus()[5]).gpu_model == GpuModel::V100);
  const Link& nic = link_between(s.cluster, "node2/nic0", "switch");
  CHECK(nic.kind == LinkKind::IbEdr);
  CHECK(nic.bandwidth == 100_Gbps);
  // Per node: 6 NVLink pairs + 7 PCIe + 1 SMP = 14; plus 4 NIC-switch links.
  CHECK(s.cluster.link_count() == 60);
  CHECK(s.workload == nlohmann::json::object());
  CHECK(parse_scenario(default_scenario_json(), "x.json").cluster.device_count() == s.cluster.device_count());
}

TEST_CASE("the complete example in docs/scenario-format.md loads", "[scenario]") {
  const std::string example = first_json_block(read_text(source_path("docs/scenario-format.md")));
  REQUIRE_FALSE(example.empty());
  const Scenario s = parse_scenario(example, "scenario-format.md");
  CHECK(s.cluster.gpus().size() == 32);
  CHECK(s.cluster.find_device("ps0/nic0"));
  CHECK_FALSE(s.workload.empty());
}

TEST_CASE("fixture: two racks of 10GbE TCP servers, 40 Gbps ToR uplinks, a parameter server on the core",
          "[scenario]") {
  const std::string path = source_path("tests/data/scenarios/two_racks_parameter_server.json");
  const Scenario s = load_scenario(path);
  CHECK(s.file == path);
  CHECK(s.name == "two-racks-ps");
  const Topology& t = s.cluster;
  CHECK(t.host_count() == 9);
  CHECK(t.rack_count() == 2);
  CHECK(t.gpus().size() == 32);
  CHECK(link_between(t, "tor0", "core").bandwidth == 40_Gbps);
  CHECK(link_between(t, "node7/nic0", "tor1").transport == Transport::Tcp);
  const Link& ps = link_between(t, "ps0/nic0", "core");
  CHECK(ps.bandwidth == 40_Gbps);
  CHECK(ps.transport == Transport::Tcp);
  CHECK(ps.overhead == link_defaults(LinkKind::Eth40).tcp_overhead);
  const Link& pcie = link_between(t, "ps0/nic0", "ps0/cpu0");
  CHECK(pcie.lanes == 8);  // "width"
  CHECK(pcie.bandwidth == link_defaults(LinkKind::Pcie3).per_lane * 8.0);
  const Device& ps_nic = t.device(t.device_by_name("ps0/nic0"));
  CHECK(ps_nic.host == *t.find_host("ps0"));
  CHECK(ps_nic.local_index == 0);
  CHECK(s.strategy["algorithm"] == "parameter_server");
  CHECK(s.document["cluster"]["hosts"][0]["name"] == "ps0");
}

TEST_CASE("fixture: a SuperPOD scalable unit, 32 DGX H100 on 8 NDR rails with SHARP (comments allowed)", "[scenario]") {
  const Scenario s = load_scenario(source_path("tests/data/scenarios/superpod_32x_dgx_h100.json"));
  const Topology& t = s.cluster;
  CHECK(t.gpus().size() == 256);
  CHECK(t.host(31).name == "dgx31");
  CHECK(t.host(31).template_name == "dgx_h100");
  CHECK(link_between(t, "dgx31/nic5", "leaf5").bandwidth == 400_Gbps);
  const Device& spine = t.device(t.device_by_name("spine3"));
  CHECK(spine.in_network_reduction);
  // 32 x 400 Gb/s per rail leaf, non-blocking, over 4 spines: 8 ports each.
  CHECK(link_between(t, "leaf0", "spine3").lanes == 8);
}

TEST_CASE("fixture: a fully explicit cluster with link overrides, the name defaults to the file's stem", "[scenario]") {
  const Scenario s = load_scenario(source_path("tests/data/scenarios/explicit_two_hosts.json"));
  CHECK(s.name == "explicit_two_hosts");
  const Topology& t = s.cluster;
  CHECK(t.device(t.device_by_name("a/gpu1")).local_index == 1);
  CHECK(t.device(t.device_by_name("a/gpu1")).gpu_model == GpuModel::A100);
  CHECK(t.device(t.device_by_name("b/gpu0")).gpu_model == GpuModel::Generic);
  CHECK(t.device(t.device_by_name("b/nic0")).rack == *t.find_rack("r1"));
  CHECK(link_between(t, "a/gpu0", "a/gpu1").bandwidth == 100_GBps);  // 4 x 25 GB/s
  CHECK(link_between(t, "a/gpu0", "a/nic0").lanes == 16);            // PCIe default width
  CHECK(link_between(t, "a/gpu1", "a/nic0").lanes == 8);             // "count"
  const Link& bridge = link_between(t, "b/gpu0", "b/gpu1");
  CHECK(bridge.lanes == 4);
  CHECK(bridge.bandwidth == 90_GBps);
  CHECK(bridge.latency == 500_ns);
  const Link& custom = link_between(t, "a/nic0", "b/nic0");
  CHECK(custom.kind == LinkKind::Custom);
  CHECK(custom.bandwidth == 25_Gbps);
  CHECK(custom.latency == 2_us);
  CHECK(custom.overhead == 5_us);
}

TEST_CASE("a gpu_model override brings its NVLink generation, explicit nvlink keys override that", "[scenario]") {
  const Scenario s = parse_scenario(with_cluster(R"({"generate": {"nodes": 1,
      "node": {"template": "dgx_a100", "gpu_model": "h100"}, "fabric": {"kind": "none"}}})"),
                                    "x.json");
  const Link& l = link_between(s.cluster, "node0/gpu0", "node0/nvswitch");
  CHECK(l.kind == LinkKind::NvLink4);
  CHECK(l.lanes == 18);
  const Scenario t = parse_scenario(with_cluster(R"({"generate": {"nodes": 1,
      "node": {"template": "dgx_a100", "gpu_model": "h100", "nvlinks": 6}, "fabric": {"kind": "none"}}})"),
                                    "x.json");
  CHECK(link_between(t.cluster, "node0/gpu0", "node0/nvswitch").lanes == 6);
}

TEST_CASE("generate takes an array of blocks with distinct prefixes", "[scenario]") {
  const Scenario s = parse_scenario(with_cluster(R"({
      "generate": [
        {"nodes": 2, "prefix": "new", "node": {"template": "dgx_h100"},
         "fabric": {"kind": "single_switch", "prefix": "new-"}},
        {"nodes": 2, "prefix": "old", "node": {"template": "v100x4"},
         "fabric": {"kind": "single_switch", "prefix": "old-"}}],
      "links": [{"a": "new-switch", "b": "old-switch", "kind": "ib_edr", "lanes": 2}]})"),
                                    "x.json");
  CHECK(s.cluster.gpus().size() == 24);
  CHECK(link_between(s.cluster, "new-switch", "old-switch").bandwidth == 200_Gbps);
}

TEST_CASE("explicit switches with racks and SHARP, and an extra NIC added to a generated host", "[scenario]") {
  const Scenario s = parse_scenario(with_cluster(R"({
      "generate": {"nodes": 2, "node": {"template": "generic", "gpus": 2}, "fabric": {"kind": "none"}},
      "racks": [{"name": "east"}],
      "devices": [
        {"name": "tor", "kind": "tor", "rack": "east", "in_network_reduction": true},
        {"name": "node0/nic1", "kind": "nic", "host": "node0"}],
      "links": [
        {"a": "node0/nic0", "b": "tor", "kind": "eth100"},
        {"a": "node1/nic0", "b": "tor", "kind": "eth100", "transport": "roce"},
        {"a": "node0/nic1", "b": "node0/cpu1", "kind": "pcie4"}]})"),
                                    "x.json");
  const Topology& t = s.cluster;
  const Device& tor = t.device(t.device_by_name("tor"));
  CHECK(tor.kind == DeviceKind::Leaf);
  CHECK(tor.tier == 1);
  CHECK(tor.in_network_reduction);
  CHECK(tor.rack == *t.find_rack("east"));
  CHECK(t.device(t.device_by_name("node0/nic1")).local_index == 1);
  CHECK(link_between(t, "node1/nic0", "tor").transport == Transport::Rdma);
}

TEST_CASE("a dragonfly generate block: 3 groups x 2 routers x 2 nodes, eth400 local and global links", "[scenario]") {
  const Scenario s = parse_scenario(with_cluster(R"({"generate": {
      "nodes": 12, "node": {"template": "generic", "nic": "eth200"},
      "fabric": {"kind": "dragonfly", "nodes_per_leaf": 2, "routers_per_group": 2, "global_links": 2,
                 "uplink": "eth400", "prefix": "sx-"}}})"),
                                    "dragonfly.json");
  const Topology& t = s.cluster;
  CHECK(t.host_count() == 12);
  CHECK(t.gpus().size() == 96);
  CHECK(t.rack_count() == 3);
  CHECK(t.find_rack("sx-rack2"));
  CHECK(link_between(t, "node11/nic0", "sx-g2r1").bandwidth == 200_Gbps);
  const Link& local = link_between(t, "sx-g1r0", "sx-g1r1");
  CHECK(local.kind == LinkKind::Eth400);
  CHECK(local.bandwidth == 400_Gbps);
  int router_links = 0;
  for (const Link& l : t.links())
    router_links += t.device(l.a).kind == DeviceKind::Leaf && t.device(l.b).kind == DeviceKind::Leaf;
  CHECK(router_links == 3 + 2 * 3);  // 3 groups x 1 local link, 2 global links x 3 pairs of groups
}

TEST_CASE("AWS EFA: transport \"srd\" (or \"efa\") on Ethernet ports, with RDMA's overhead", "[scenario]") {
  const Scenario s = parse_scenario(with_cluster(R"({
      "generate": {"nodes": 2, "node": {"template": "generic", "nic": "eth100", "transport": "efa"},
                   "fabric": {"kind": "single_switch"}}})"),
                                    "x.json");
  int network = 0;
  for (const Link& l : s.cluster.links()) {
    if (link_family(l.kind) != LinkFamily::Ethernet) continue;
    ++network;
    CHECK(l.transport == Transport::Srd);
    CHECK(l.overhead == link_defaults(LinkKind::Eth100).rdma_overhead);
  }
  CHECK(network == 2);
  CHECK(to_string(Transport::Srd) == "srd");
  CHECK(find_transport("srd") == Transport::Srd);
}

TEST_CASE("zero durations need no unit, workload, strategy and simulate are kept as written", "[scenario]") {
  const Scenario s = parse_scenario(R"({"ringlab": 1, "name": "n", "description": "d",
      "cluster": {"hosts": [{"name": "h"}],
                  "devices": [{"name": "h/gpu0", "kind": "gpu", "host": "h"}, {"name": "h/gpu1", "kind": "gpu", "host": "h"}],
                  "links": [{"a": "h/gpu0", "b": "h/gpu1", "kind": "custom", "bandwidth": "1GB/s", "latency": 0}]},
      "workload": {"sizes": ["8B", "1GiB"]}, "strategy": {"x": 1}, "simulate": {"seed": 7}})",
                                    "x.json");
  CHECK(s.name == "n");
  CHECK(s.description == "d");
  CHECK(s.cluster.link(0).latency == Duration{});
  CHECK(s.workload["sizes"][1] == "1GiB");
  CHECK(s.simulate["seed"] == 7);
}

TEST_CASE("a host's CPU vendor: from the template, the node's cpu_vendor or cpu_link, or an explicit host's key",
          "[scenario]") {
  auto vendor_of = [](const std::string& node) {
    const Scenario s = parse_scenario(
        with_cluster(R"({"generate": {"nodes": 1, "node": )" + node + R"(, "fabric": {"kind": "none"}}})"), "x.json");
    return s.cluster.host(0).cpu_vendor;
  };
  CHECK(vendor_of(R"({"template": "dgx_h100"})") == CpuVendor::Intel);       // 2x Xeon 8480C
  CHECK(vendor_of(R"({"template": "dgx_a100"})") == CpuVendor::Amd);         // 2x EPYC 7742
  CHECK(vendor_of(R"({"template": "gb200_nvl72"})") == CpuVendor::Other);    // Grace
  CHECK(vendor_of(R"({"template": "dgx_a100", "cpu_link": "upi_spr"})") == CpuVendor::Intel);
  CHECK(vendor_of(R"({"gpus": 2, "cpus": 1, "cpu_link": "xgmi"})") == CpuVendor::Amd);
  CHECK(vendor_of(R"({"gpus": 2, "cpus": 1, "cpu_vendor": "amd"})") == CpuVendor::Amd);
  CHECK(vendor_of(R"({"template": "gb200_nvl72", "cpu_link": "smp"})") == CpuVendor::Other);
  // A vendor alone brings its socket link: two AMD sockets are joined by xGMI.
  const Scenario amd = parse_scenario(with_cluster(R"({"generate": {"nodes": 1,
      "node": {"gpus": 2, "cpus": 2, "cpu_vendor": "amd"}, "fabric": {"kind": "none"}}})"),
                                      "x.json");
  CHECK(link_between(amd.cluster, "node0/cpu0", "node0/cpu1").kind == LinkKind::Xgmi);
  // Both given and at odds: an error that names the key.
  try {
    parse_scenario(with_cluster(R"({"generate": {"nodes": 1,
        "node": {"gpus": 2, "cpu_vendor": "intel", "cpu_link": "xgmi"}, "fabric": {"kind": "none"}}})"),
                   "x.json");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("cpu_vendor") && Catch::Contains("intel CPUs with cpu_link xgmi"));
  }
  // Explicit hosts: the key, else the vendor of their CPUs' socket link, else Intel; written back as given.
  const Scenario explicit_hosts = parse_scenario(with_cluster(R"({
      "hosts": [{"name": "a", "cpu_vendor": "other"}, {"name": "b"}, {"name": "c"}],
      "devices": [{"name": "a/gpu0", "kind": "gpu", "host": "a"}, {"name": "a/cpu0", "kind": "cpu", "host": "a"},
                  {"name": "b/gpu0", "kind": "gpu", "host": "b"}, {"name": "b/cpu0", "kind": "cpu", "host": "b"},
                  {"name": "b/cpu1", "kind": "cpu", "host": "b"},
                  {"name": "c/gpu0", "kind": "gpu", "host": "c"}, {"name": "c/cpu0", "kind": "cpu", "host": "c"},
                  {"name": "sw", "kind": "leaf"}],
      "links": [{"a": "a/gpu0", "b": "a/cpu0", "kind": "pcie4"}, {"a": "b/gpu0", "b": "b/cpu0", "kind": "pcie4"},
                {"a": "b/cpu0", "b": "b/cpu1", "kind": "xgmi"}, {"a": "c/gpu0", "b": "c/cpu0", "kind": "pcie4"},
                {"a": "a/gpu0", "b": "sw", "kind": "eth100"}, {"a": "b/gpu0", "b": "sw", "kind": "eth100"},
                {"a": "c/gpu0", "b": "sw", "kind": "eth100"}]})"),
                                                  "x.json");
  CHECK(explicit_hosts.cluster.host(0).cpu_vendor == CpuVendor::Other);
  CHECK(explicit_hosts.cluster.host(1).cpu_vendor == CpuVendor::Amd);
  CHECK(explicit_hosts.cluster.host(2).cpu_vendor == CpuVendor::Intel);
  const nlohmann::json doc{{"ringlab", 1}, {"cluster", cluster_json(explicit_hosts.cluster)}};
  const Scenario again = parse_scenario(doc.dump(), "again.json");
  for (HostId h = 0; h < 3; ++h) CHECK(again.cluster.host(h).cpu_vendor == explicit_hosts.cluster.host(h).cpu_vendor);
  CHECK(doc["cluster"]["hosts"][0]["cpu_vendor"] == "other");
  CHECK_FALSE(doc["cluster"]["hosts"][2].contains("cpu_vendor"));
}
