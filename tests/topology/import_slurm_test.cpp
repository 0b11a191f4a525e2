// Slurm import: hostlist expansion, topology.conf and topology.yaml into a fabric, the fabric combined
// with a node layout, and the line numbers of bad input. Expected values are counted by hand from
// tests/data/import/two_level_fat_tree.conf (4 leaves of 10 nodes under one spine).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "import_helpers.hpp"
#include "ringlab/topology/import.hpp"

using namespace ringlab;
using namespace ringlab::test;
using namespace ringlab::literals;
using Names = std::vector<std::string>;

TEST_CASE("hostlist: ranges keep zero padding, lists and products expand in order", "[import][slurm]") {
  CHECK(expand_hostlist("node") == Names{"node"});
  CHECK(expand_hostlist("gpu[001-003]") == Names{"gpu001", "gpu002", "gpu003"});
  CHECK(expand_hostlist("a[1,3,5-7]") == Names{"a1", "a3", "a5", "a6", "a7"});
  CHECK(expand_hostlist("tux[2,1-2]") == Names{"tux2", "tux1", "tux2"});
  CHECK(expand_hostlist("lx[8-11]") == Names{"lx8", "lx9", "lx10", "lx11"});
  CHECK(expand_hostlist("rack[0-1]-n[00-01]") == Names{"rack0-n00", "rack0-n01", "rack1-n00", "rack1-n01"});
  CHECK(expand_hostlist("alpha,beta,x[1-2]") == Names{"alpha", "beta", "x1", "x2"});
  CHECK(expand_hostlist("rack[00-01,03]_blade[0-1],tux[1-2]") ==
        Names{"rack00_blade0", "rack00_blade1", "rack01_blade0", "rack01_blade1", "rack03_blade0", "rack03_blade1",
              "tux1", "tux2"});
  CHECK(expand_hostlist("node-[0-1]") == Names{"node-0", "node-1"});
  CHECK(expand_hostlist("gpu[001-128]").size() == 128);
  CHECK(expand_hostlist("gpu[001-128]").back() == "gpu128");
  CHECK(expand_hostlist("linux[0000-1023]")[7] == "linux0007");
  CHECK(expand_hostlist("rack[0-3]-n[00-15]").size() == 64);
}

TEST_CASE("hostlist: malformed expressions say what was expected", "[import][slurm]") {
  for (const char* bad : {"n[1-", "n]1[", "n[]", "n[3-1]", "n[a-b]", "a,,b", "", "n[1-2[3]]"}) {
    INFO(bad);
    CHECK_THROWS_WITH(expand_hostlist(bad), Catch::Contains("expected"));
  }
}

TEST_CASE("topology.conf: a two-level fat tree of 40 nodes", "[import][slurm]") {
  const Fabric f = parse_slurm_topology_conf(import_fixture("two_level_fat_tree.conf"), "tree.conf");
  REQUIRE(f.hosts.size() == 40);
  CHECK(f.hosts.front() == "dgx001");
  CHECK(f.hosts[29] == "dgx030");
  CHECK(f.hosts.back() == "dgx040");
  REQUIRE(f.switches.size() == 5);
  for (int i = 0; i < 4; ++i) {
    CHECK(f.switches[std::size_t(i)].name == "leaf" + std::to_string(i));
    CHECK(f.switches[std::size_t(i)].kind == DeviceKind::Leaf);
  }
  CHECK(f.switches[4].name == "spine");
  CHECK(f.switches[4].kind == DeviceKind::Spine);
  CHECK(f.links.size() == 40 + 4);  // one per node, one per leaf-spine pair; no speeds in the file
  for (const FabricLink& l : f.links) CHECK_FALSE(l.kind);
  REQUIRE(f.report.assumptions.size() == 1);  // LinkSpeed= ignored, on 4 switches (one via continuation lines)
  CHECK_THAT(f.report.assumptions[0], Catch::Contains("LinkSpeed") && Catch::Contains("4 switch"));
}

TEST_CASE("topology.conf + nvidia-smi: every host is a DGX H100, uplinks non-blocking", "[import][slurm]") {
  const Fabric f = parse_slurm_topology_conf(import_fixture("two_level_fat_tree.conf"), "tree.conf");
  const NodeLayout node = parse_nvidia_smi_topo(import_fixture("dgx_h100_topo_m.txt"), "topo.txt");
  const ImportedCluster c = combine(&f, &node);
  const Topology& t = c.cluster;
  CHECK(t.host_count() == 40);
  CHECK(t.gpus().size() == 320);
  // Per host 8 GPUs + NVSwitch + 2 CPUs + 10 PCIe switches + 12 NICs = 33 devices; plus 5 switches.
  CHECK(t.device_count() == 40 * 33 + 5);
  // The 8 NICs that share a PCIe switch with a GPU go to the leaf: 10 hosts x 8 x 400 Gbps = 32 Tbps
  // down per leaf, so 80 NDR ports up to the single spine.
  CHECK(count_links(t, LinkKind::IbNdr) == 40 * 8 + 4);
  const Link& up = link_between(t, "leaf2", "spine");
  CHECK(up.lanes == 80);
  CHECK(up.bandwidth == 32000_Gbps);
  CHECK(up.transport == Transport::Rdma);
  CHECK(link_between(t, "dgx017/nic0", "leaf1").bandwidth == 400_Gbps);  // nic0 = mlx5_0, GPU0's rail NIC
  CHECK(t.neighbors(t.device_by_name("dgx017/nic1")).size() == 1);     // mlx5_1: storage, PCIe only
  CHECK(t.device(t.device_by_name("spine")).tier == 2);
}

TEST_CASE("topology.conf alone: the generic template, uplinks sized from its one 100GbE NIC", "[import][slurm]") {
  const Fabric f = parse_slurm_topology_conf(import_fixture("two_level_fat_tree.conf"), "tree.conf");
  const ImportedCluster c = combine(&f, nullptr, NodeTemplate::Generic);
  CHECK(c.cluster.gpus().size() == 40 * 8);
  const Link& up = link_between(c.cluster, "leaf0", "spine");
  CHECK(up.kind == LinkKind::Eth100);
  CHECK(up.lanes == 10);  // 10 nodes x 100 Gbps
  CHECK(link_between(c.cluster, "dgx001/nic0", "leaf0").kind == LinkKind::Eth100);
}

TEST_CASE("topology.conf: a node under several switches spreads its NICs over them (rails)", "[import][slurm]") {
  const Fabric f = parse_slurm_topology_conf(
      "SwitchName=rail0 Nodes=n[1-2]\nSwitchName=rail1 Nodes=n[1-2]\nSwitchName=top Switches=rail[0-1]\n", "r");
  const NodeLayout node = template_layout(NodeTemplate::DgxH100);
  const ImportedCluster c = combine(&f, &node);
  CHECK(link_between(c.cluster, "n1/nic0", "rail0").kind == LinkKind::IbNdr);
  CHECK(link_between(c.cluster, "n1/nic1", "rail1").kind == LinkKind::IbNdr);
  CHECK(link_between(c.cluster, "n1/nic6", "rail0").kind == LinkKind::IbNdr);
  CHECK(link_between(c.cluster, "n2/nic7", "rail1").kind == LinkKind::IbNdr);
  CHECK(link_between(c.cluster, "rail0", "top").lanes == 8);  // 2 nodes x 4 NICs x 400 Gbps / 400 Gbps
}

TEST_CASE("topology.conf: bad lines are reported with their line number", "[import][slurm]") {
  const auto problem = [](const std::string& text) {
    return first_problem([&] { parse_slurm_topology_conf(text, "bad.conf"); }, "bad.conf");
  };
  Problem p = problem("# a comment\nSwitchName=s0 Nodes=n[1-\n");
  CHECK(p.location == "line 2");
  CHECK_THAT(p.message, Catch::Contains("closing ]"));
  p = problem("SwitchName=s0 Nodes=a\n\nSwitchName=s1 Switches=s9\n");
  CHECK(p.location == "line 3");
  CHECK_THAT(p.message, Catch::Contains("\"s9\", which is not defined"));
  p = problem("SwitchName=s0 Nodes=a\nNodes=b\n");
  CHECK(p.location == "line 2");
  CHECK_THAT(p.message, Catch::Contains("SwitchName"));
  p = problem("SwitchName=s0 \\\n  Nodes=a \\\n  Speed=3\n");
  CHECK(p.location == "line 1");  // a continued line is reported at its first line
  CHECK_THAT(p.message, Catch::Contains("unknown key \"Speed\""));
  p = problem("SwitchName=s0 Nodes=a\nBlockName=b1 Nodes=n[1-4]\n");
  CHECK(p.location == "line 2");
  CHECK_THAT(p.message, Catch::Contains("topology/tree"));
  p = problem("SwitchName=s0 Switches=s1\nSwitchName=s1 Switches=s0\nSwitchName=s2 Nodes=a\n");
  CHECK_THAT(p.message, Catch::Contains("own ancestor"));
  p = problem("SwitchName=s0 Nodes=a\nSwitchName=s0 Nodes=b\n");
  CHECK(p.location == "line 2");
  CHECK_THAT(p.message, Catch::Contains("duplicate switch") && Catch::Contains("line 1"));
}

TEST_CASE("topology.yaml: the cluster_default tree topology", "[import][slurm]") {
  const std::string yaml = R"(- topology: blocks
  cluster_default: false
  block:
    block_sizes: [4]
    blocks:
    - block: b1
      nodes: node[01-04]
- topology: fat
  cluster_default: true
  tree:
    switches:
    - switch: s0
      nodes: node[01-04]
    - switch: s1
      nodes: node[05-08]
    - switch: root
      children: s[0-1]
)";
  const Fabric f = parse_slurm_topology_yaml(yaml, "topo.yaml");
  CHECK(f.hosts == Names{"node01", "node02", "node03", "node04", "node05", "node06", "node07", "node08"});
  REQUIRE(f.switches.size() == 3);
  CHECK(f.switches[0].kind == DeviceKind::Leaf);
  CHECK(f.switches[2].name == "root");
  CHECK(f.switches[2].kind == DeviceKind::Spine);
  CHECK(f.links.size() == 8 + 2);
  REQUIRE(f.report.assumptions.size() == 1);
  CHECK_THAT(f.report.assumptions[0], Catch::Contains("\"fat\" (cluster_default)"));
}

TEST_CASE("topology.yaml: bad documents are reported with their YAML line", "[import][slurm]") {
  const auto problem = [](const std::string& text) {
    return first_problem([&] { parse_slurm_topology_yaml(text, "bad.yaml"); }, "bad.yaml");
  };
  Problem p = problem("- topology: t\n  tree:\n    switches:\n    - switch: s0\n      nodes: [n1\n");
  CHECK_THAT(p.message, Catch::Contains("malformed YAML"));
  CHECK(p.location == "line 6");
  p = problem("- topology: t\n  flat: true\n");
  CHECK(p.location == "line 2");
  CHECK_THAT(p.message, Catch::Contains("flat topology"));
  p = problem("- topology: t\n  tree:\n    switches:\n    - switch: s0\n      nodes: n[2-1]\n");
  CHECK(p.location == "line 5");
  CHECK_THAT(p.message, Catch::Contains("runs backwards"));
  p = problem("- topology: t\n  tree:\n    switches:\n    - switch: s0\n      node: n1\n");
  CHECK(p.location == "line 5");
  CHECK_THAT(p.message, Catch::Contains("unknown key \"node\""));
  p = problem("topology: t\n");
  CHECK_THAT(p.message, Catch::Contains("list of topologies"));
}

TEST_CASE("topology.yaml: a topology whose name is a list is an input error naming its line", "[import][slurm]") {
  // Found by fuzzing (tests/fuzz/regressions/slurm_yaml): yaml-cpp's conversion exception escaped.
  const std::string yaml = "- topology: a\n  tree:\n    switches:\n    - switch: s0\n      nodes: n1\n"
                           "- topology:\n    - switch: s1\n";
  const Problem p = first_problem([&] { parse_slurm_topology_yaml(yaml, "list-name.yaml"); }, "list-name.yaml");
  CHECK(p.location == "line 6");
  CHECK_THAT(p.message, Catch::Contains("expected a map starting with \"topology: NAME\""));
}

TEST_CASE("topology.conf: hostlists may expand to at most a million names in all, not per line", "[import][slurm]") {
  // Found by fuzzing (tests/fuzz/regressions/slurm_conf): each line under the per-hostlist bound, the
  // file as a whole unbounded in memory.
  const std::string conf = "SwitchName=s0 Nodes=a[0-599999]\nSwitchName=s1 Nodes=b[0-599999]\n";
  const Problem p = first_problem([&] { parse_slurm_topology_conf(conf, "huge.conf"); }, "huge.conf");
  CHECK(p.location == "line 2");
  CHECK_THAT(p.message, Catch::Contains("more than 1000000 names in all"));
}

TEST_CASE("an import file that is not UTF-8 names the line of the first bad byte", "[import]") {
  const std::string path = std::filesystem::temp_directory_path() / "ringlab-not-utf8.conf";
  std::ofstream(path, std::ios::binary) << "# caf\xc3\xa9 is fine\nSwitchName=s0 Nodes=a\nSwitchName=s1 Nodes=b\x88x\n";
  const Problem p = first_problem([&] { read_import_file(path); }, path);
  CHECK(p.location == "line 3");
  CHECK_THAT(p.message, Catch::Contains("invalid UTF-8 byte 0x88"));
  // Overlong and surrogate forms are not UTF-8 either.
  std::ofstream(path, std::ios::binary) << "SwitchName=s0 Nodes=\xc0\xaf\n";
  CHECK(first_problem([&] { read_import_file(path); }, path).message.find("0xc0") != std::string::npos);
  std::ofstream(path, std::ios::binary) << "SwitchName=s0\nNodes=\xed\xa0\x80\n";
  CHECK(first_problem([&] { read_import_file(path); }, path).location == "line 2");
  std::filesystem::remove(path);
}

TEST_CASE("combine: a fabric of separate networks is an error at the line of each extra part", "[import][slurm][bad-input]") {
  const std::string conf = "SwitchName=a Nodes=n[1-2]\nSwitchName=b Nodes=n[3-4]\nSwitchName=c Nodes=n5\n";
  const Fabric f = parse_slurm_topology_conf(conf, "split.conf");
  const auto problems = import_problems([&] { combine(&f, nullptr); }, "split.conf");
  REQUIRE(problems.size() == 2);
  CHECK(problems[0].location == "line 2");
  CHECK_THAT(problems[0].message,
             Catch::StartsWith("switch b (hosts n3, n4) is not connected to switch a (hosts n1, n2) (line 1): "
                               "the fabric is 3 separate networks"));
  CHECK(problems[1].location == "line 3");
  CHECK_THAT(problems[1].message, Catch::StartsWith("switch c (host n5) is not connected"));
  // Joined by a switch above them, the same leaves import.
  const Fabric joined = parse_slurm_topology_conf(conf + "SwitchName=top Switches=a,b,c\n", "joined.conf");
  CHECK(combine(&joined, nullptr).cluster.gpus().size() == 5 * 8);
}
