// Bad scenario input: every kind of problem is reported as one InputError whose problems name the
// file, the JSON pointer (or line and column) and what was expected; problems are collected, never
// thrown one at a time, and no input crashes the loader.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "ringlab/topology/error.hpp"
#include "ringlab/topology/generators.hpp"
#include "ringlab/topology/scenario.hpp"

using namespace ringlab;

namespace {

constexpr const char* kFile = "bad.json";

/// The problems parse_scenario reports for `text` (empty when it loads).
std::vector<Problem> problems_in(const std::string& text) {
  try {
    parse_scenario(text, kFile);
  } catch (const InputError& e) {
    for (const Problem& p : e.problems()) CHECK(p.file == kFile);
    return e.problems();
  }
  return {};
}

/// The single problem of `text`; fails the test when there is not exactly one.
Problem only_problem(const std::string& text) {
  const auto problems = problems_in(text);
  INFO("problems: " << [&] {
    std::string all;
    for (const Problem& p : problems) all += "\n  " + p.to_string();
    return all;
  }());
  REQUIRE(problems.size() == 1);
  return problems.front();
}

std::string doc(const std::string& cluster) { return R"({"ringlab": 1, "cluster": )" + cluster + "}"; }

/// A valid two-host explicit cluster whose links are `links` plus what the two hosts need internally.
std::string explicit_cluster(const std::string& extra_devices, const std::string& links) {
  return doc(R"({"hosts": [{"name": "a"}, {"name": "b"}],
    "devices": [{"name": "a/gpu0", "kind": "gpu", "host": "a"}, {"name": "a/nic0", "kind": "nic", "host": "a"},
                {"name": "b/gpu0", "kind": "gpu", "host": "b"}, {"name": "b/nic0", "kind": "nic", "host": "b"},
                {"name": "sw", "kind": "leaf"})" +
             extra_devices + R"(],
    "links": [{"a": "a/gpu0", "b": "a/nic0", "kind": "pcie4"}, {"a": "b/gpu0", "b": "b/nic0", "kind": "pcie4"},
              {"a": "a/nic0", "b": "sw", "kind": "ib_hdr"}, {"a": "b/nic0", "b": "sw", "kind": "ib_hdr"})" +
             links + "]}");
}

std::string generate(const std::string& block) { return doc(R"({"generate": )" + block + "}"); }

}  // namespace

TEST_CASE("the explicit-cluster helper itself is valid", "[scenario][bad-input]") {
  CHECK(problems_in(explicit_cluster("", "")).empty());
}

TEST_CASE("malformed JSON is reported with line and column", "[scenario][bad-input]") {
  const Problem p = only_problem("{\n  \"ringlab\": 1,\n  \"cluster\": {\"generate\": {\"nodes\": 2,}}\n}\n");
  CHECK(p.location == "line 3, column 39");
  CHECK_THAT(p.message, Catch::StartsWith("malformed JSON: syntax error while parsing object"));
  CHECK_THAT(p.to_string(), Catch::StartsWith("bad.json: line 3, column 39: malformed JSON"));

  // A number beyond double range is nlohmann's out_of_range, not a parse_error: still bad input.
  const Problem huge = only_problem("{\n  \"ringlab\": 1,\n  \"cluster\": {\"generate\": {\"nodes\": 21e308}}\n}\n");
  CHECK(huge.location == "line 3, column 37");
  CHECK_THAT(huge.message, Catch::Contains("out of range"));

  const Problem empty = only_problem("");
  CHECK(empty.location == "line 1, column 1");
  CHECK_THAT(empty.message, Catch::Contains("unexpected end of input"));
}

TEST_CASE("fixture with a trailing comma: line 4, column 31", "[scenario][bad-input]") {
  const std::string path = std::string(RINGLAB_SOURCE_DIR) + "/tests/data/bad/malformed.json";
  try {
    load_scenario(path);
    FAIL("no InputError");
  } catch (const InputError& e) {
    REQUIRE(e.problems().size() == 1);
    CHECK(e.problems()[0].file == path);
    CHECK(e.problems()[0].location == "line 4, column 31");
  }
}

TEST_CASE("a missing file is one problem naming the file", "[scenario][bad-input]") {
  try {
    load_scenario("/nonexistent/x.json");
    FAIL("no InputError");
  } catch (const InputError& e) {
    REQUIRE(e.problems().size() == 1);
    CHECK(std::string(e.what()) == "/nonexistent/x.json: cannot read the scenario: expected an existing JSON file");
  }
}

TEST_CASE("format version: required, and only 1 is read", "[scenario][bad-input]") {
  Problem p = only_problem(R"({"ringlab": 2, "cluster": {"generate": {"nodes": 1}}})");
  CHECK(p.location == "/ringlab");
  CHECK(p.message == "unsupported format version 2: expected 1");
  p = only_problem(
      R"({"ringlab": "1", "cluster": {"hosts": [{"name": "h"}], "devices": [{"name": "h/gpu0", "kind": "gpu", "host": "h"}]}})");
  CHECK(p.message == "unsupported format version \"1\": expected 1");
  const auto missing = problems_in(R"({"cluster": {}})");
  REQUIRE_FALSE(missing.empty());
  CHECK(missing[0].location == "/ringlab");
  CHECK(missing[0].message == "missing required field: expected \"ringlab\": 1 (the format version)");
}

TEST_CASE("top level: an object with known keys, a cluster, and object sections", "[scenario][bad-input]") {
  Problem p = only_problem("[1, 2]");
  CHECK(p.location.empty());
  CHECK(p.message == "expected an object, got array");

  const auto typo = problems_in(R"({"ringlab": 1, "clustr": {}})");
  REQUIRE(typo.size() == 2);
  CHECK(typo[0].location == "/clustr");
  CHECK(typo[0].message ==
        "unknown key \"clustr\" (did you mean 'cluster'?): expected one of ringlab, name, description, cluster, workload, strategy, train, simulate, nccl, layout");
  CHECK(typo[1].location == "/cluster");
  CHECK_THAT(typo[1].message, Catch::StartsWith("missing required field: expected an object describing the cluster"));

  p = only_problem(R"({"ringlab": 1, "cluster": {"generate": {"nodes": 1}}, "simulate": [1]})");
  CHECK(p.location == "/simulate");
  CHECK(p.message == "expected an object, got array");
  p = only_problem(R"({"ringlab": 1, "name": 5, "cluster": {"generate": {"nodes": 1}}})");
  CHECK(p.location == "/name");
  CHECK(p.message == "expected a string, got number 5");
  // "layout" (ringlab-gui's positions) must be an object; its content is not read.
  p = only_problem(R"({"ringlab": 1, "cluster": {"generate": {"nodes": 1}}, "layout": 3})");
  CHECK(p.location == "/layout");
  CHECK(p.message == "expected an object, got number 3");
  CHECK(problems_in(R"({"ringlab": 1, "cluster": {"generate": {"nodes": 1}}, "layout": {"positions": {"x": [1, 2]}}})")
            .empty());
}

TEST_CASE("unknown kinds list the accepted names", "[scenario][bad-input]") {
  Problem p = only_problem(explicit_cluster(R"(, {"name": "x", "kind": "swtich"})", ""));
  CHECK(p.location == "/cluster/devices/5/kind");
  CHECK(p.message == "unknown device kind \"swtich\": expected one of " + device_kind_names());

  p = only_problem(explicit_cluster("", R"(, {"a": "a/nic0", "b": "b/nic0", "kind": "infiniband"})"));
  CHECK(p.location == "/cluster/links/4/kind");
  CHECK(p.message == "unknown link kind \"infiniband\": expected one of " + link_kind_names());
  CHECK_THAT(p.message, Catch::Contains("nvlink4") && Catch::Contains("ib_ndr") && Catch::Contains("eth100"));

  p = only_problem(explicit_cluster(R"(, {"name": "a/gpu1", "kind": "gpu", "host": "a", "gpu_model": "k80"})", ""));
  CHECK(p.location == "/cluster/devices/5/gpu_model");
  CHECK(p.message == "unknown GPU model \"k80\": expected one of " + gpu_model_names());
  CHECK_THAT(p.message, Catch::StartsWith("unknown GPU model \"k80\": expected one of generic, v100, a100, h100, h200, b200, "));

  p = only_problem(generate(R"({"nodes": 2, "node": {"template": "mainframe"}})"));
  CHECK(p.location == "/cluster/generate/node/template");
  CHECK(p.message == "unknown node template \"mainframe\": expected one of " + node_template_names());
  CHECK_THAT(p.message, Catch::Contains("expected one of dgx_a100, hgx_a100, dgx_h100, hgx_h100, pcie8, v100x4, generic, "));

  p = only_problem(generate(R"({"nodes": 2, "fabric": {"kind": "torus"}})"));
  CHECK(p.location == "/cluster/generate/fabric/kind");
  CHECK(p.message ==
        "unknown fabric kind \"torus\": expected one of none, single_switch, leaf_spine, fat_tree3, rail_optimized, "
        "racks, dragonfly");

  p = only_problem(explicit_cluster("", R"(, {"a": "a/nic0", "b": "b/nic0", "kind": "eth10", "transport": "udp"})"));
  CHECK(p.location == "/cluster/links/4/transport");
  CHECK(p.message == "unknown transport \"udp\": expected one of rdma, roce (= rdma), tcp, srd, efa (= srd), tcpx, tcpxo (= tcpx)");
}

TEST_CASE("unit fields: a missing unit, an unknown unit, zero or negative values", "[scenario][bad-input]") {
  const std::string link = R"(, {"a": "a/nic0", "b": "b/nic0", "kind": "eth100", )";
  Problem p = only_problem(explicit_cluster("", link + R"("bandwidth": 100})"));
  CHECK(p.location == "/cluster/links/4/bandwidth");
  CHECK(p.message ==
        "missing unit: expected a bandwidth string with a unit such as \"400Gbps\" or \"50GB/s\", got number 100");

  p = only_problem(explicit_cluster("", link + R"("bandwidth": "100"})"));
  CHECK(p.location == "/cluster/links/4/bandwidth");
  CHECK_THAT(p.message, Catch::StartsWith("missing unit in '100': expected a bandwidth with a unit"));

  p = only_problem(explicit_cluster("", link + R"("bandwidth": "100 Gbits"})"));
  CHECK_THAT(p.message, Catch::StartsWith("unknown bandwidth unit 'Gbits'"));

  p = only_problem(explicit_cluster("", link + R"("bandwidth": "0Gbps"})"));
  CHECK(p.message == "bandwidth \"0Gbps\" is not positive: expected a bandwidth > 0");
  p = only_problem(explicit_cluster("", link + R"("bandwidth": "-5Gbps"})"));
  CHECK(p.message == "bandwidth \"-5Gbps\" is not positive: expected a bandwidth > 0");

  p = only_problem(explicit_cluster("", link + R"("latency": 2})"));
  CHECK(p.location == "/cluster/links/4/latency");
  CHECK(p.message ==
        "missing unit: expected a duration string with a unit such as \"1.5us\" or \"700ns\", got number 2");
  p = only_problem(explicit_cluster("", link + R"("overhead": "-1us"})"));
  CHECK(p.location == "/cluster/links/4/overhead");
  CHECK(p.message == "duration \"-1us\" is negative: expected a duration >= 0");
  p = only_problem(explicit_cluster("", link + R"("latency": "3 fortnights"})"));
  CHECK(p.message == "unknown time unit 'fortnights': expected ps, ns, us, ms or s");
}

TEST_CASE("dangling link ends name the missing device", "[scenario][bad-input]") {
  const Problem p = only_problem(explicit_cluster("", R"(, {"a": "a/nic0", "b": "c/nic0", "kind": "ib_hdr"})"));
  CHECK(p.location == "/cluster/links/4/b");
  CHECK(p.message == "no device named \"c/nic0\": expected a device from /cluster/devices or a generated one");
  const Problem self = only_problem(explicit_cluster("", R"(, {"a": "sw", "b": "sw", "kind": "ib_hdr"})"));
  CHECK(self.location == "/cluster/links/4/b");
  CHECK(self.message == "both ends are \"sw\": expected two different devices");
}

TEST_CASE("disconnected GPUs are named, grouped by what they can reach", "[scenario][bad-input]") {
  const std::string text = doc(R"({"hosts": [{"name": "a"}, {"name": "b"}],
    "devices": [{"name": "a/gpu0", "kind": "gpu", "host": "a"}, {"name": "a/gpu1", "kind": "gpu", "host": "a"},
                {"name": "b/gpu0", "kind": "gpu", "host": "b"}, {"name": "b/gpu1", "kind": "gpu", "host": "b"},
                {"name": "c/gpu0", "kind": "gpu", "host": "b"}],
    "links": [{"a": "a/gpu0", "b": "a/gpu1", "kind": "nvlink3"}, {"a": "b/gpu0", "b": "b/gpu1", "kind": "nvlink3"}]})");
  const auto problems = problems_in(text);
  REQUIRE(problems.size() == 2);
  CHECK(problems[0].location == "/cluster");
  CHECK(problems[0].message ==
        "disconnected GPUs: b/gpu0, b/gpu1 cannot reach a/gpu0, a/gpu1: expected every GPU to reach every other over "
        "links");
  CHECK(problems[1].message ==
        "disconnected GPUs: c/gpu0 cannot reach a/gpu0, a/gpu1: expected every GPU to reach "
        "every other over links");

  const Problem none =
      only_problem(doc(R"({"hosts": [{"name": "h"}], "devices": [{"name": "h/cpu0", "kind": "cpu", "host": "h"}]})"));
  CHECK(none.location == "/cluster");
  CHECK(none.message == "the cluster has no GPUs: expected at least one device of kind \"gpu\"");

  const auto islands =
      problems_in(generate(R"({"nodes": 3, "node": {"template": "dgx_h100"}, "fabric": {"kind": "none"}})"));
  REQUIRE(islands.size() == 2);  // node1 and node2 each cut off from node0
  CHECK_THAT(islands[0].message,
             Catch::StartsWith("disconnected GPUs: node1/gpu0, node1/gpu1, node1/gpu2, node1/gpu3, "
                               "node1/gpu4, node1/gpu5, node1/gpu6, node1/gpu7 cannot reach node0/gpu0"));
}

TEST_CASE("duplicate names point at the first definition", "[scenario][bad-input]") {
  Problem p = only_problem(explicit_cluster(R"(, {"name": "sw", "kind": "spine"})", ""));
  CHECK(p.location == "/cluster/devices/5/name");
  CHECK(p.message == "duplicate device name \"sw\" (already defined at /cluster/devices/4): expected a unique name");

  p = only_problem(doc(R"({"generate": {"nodes": 2, "node": {"template": "v100x4"}},
                           "devices": [{"name": "node1/gpu2", "kind": "gpu", "host": "node1"}]})"));
  CHECK(p.location == "/cluster/devices/0/name");
  CHECK(p.message ==
        "duplicate device name \"node1/gpu2\" (already defined at /cluster/generate): expected a unique name");

  p = only_problem(doc(R"({"generate": {"nodes": 1}, "hosts": [{"name": "node0"}]})"));
  CHECK(p.location == "/cluster/hosts/0/name");
  CHECK(p.message == "duplicate host name \"node0\" (already defined at /cluster/generate): expected a unique name");

  p = only_problem(doc(R"({"generate": {"nodes": 1}, "racks": [{"name": "r"}, {"name": "r"}]})"));
  CHECK(p.location == "/cluster/racks/1/name");

  p = only_problem(doc(R"({"generate": [{"nodes": 1}, {"nodes": 1, "node": {"template": "v100x4"}}]})"));
  CHECK(p.location == "/cluster/generate/1");
  CHECK(p.message ==
        "generated names clash with names already defined: rack \"rack0\" (defined at "
        "/cluster/generate/0), host \"node0\" (defined at /cluster/generate/0), device \"node0/gpu0\" "
        "(defined at /cluster/generate/0), device \"node0/gpu1\" (defined at /cluster/generate/0), "
        "device \"node0/gpu2\" (defined at /cluster/generate/0), device \"node0/gpu3\" (defined at "
        "/cluster/generate/0), device \"node0/cpu0\" (defined at /cluster/generate/0), device "
        "\"node0/cpu1\" (defined at /cluster/generate/0) and 4 more: expected a different \"prefix\" "
        "for the nodes or the fabric");
}

TEST_CASE("wrong JSON types say what was expected and what was found", "[scenario][bad-input]") {
  Problem p = only_problem(generate(R"({"nodes": "4"})"));
  CHECK(p.location == "/cluster/generate/nodes");
  CHECK(p.message == "expected an integer, got string \"4\"");
  p = only_problem(generate(R"({"nodes": 2.5})"));
  CHECK(p.message == "expected an integer, got number 2.5");
  p = only_problem(generate(R"({"nodes": 18446744073709551615})"));
  CHECK(p.message == "expected an integer from -2147483648 to 2147483647, got number 18446744073709551615");
  p = only_problem(generate(R"({"nodes": 1e300})"));
  CHECK(p.location == "/cluster/generate/nodes");
  p = only_problem(generate(R"({"nodes": 2, "fabric": {"kind": "single_switch", "in_network_reduction": "yes"}})"));
  CHECK(p.location == "/cluster/generate/fabric/in_network_reduction");
  CHECK(p.message == "expected true or false, got string \"yes\"");
  p = only_problem(generate(R"({"nodes": 2, "fabric": "leaf_spine"})"));
  CHECK(p.location == "/cluster/generate/fabric");
  CHECK(p.message == "expected an object, got string \"leaf_spine\"");
  p = only_problem(doc(R"({"generate": {"nodes": 1}, "links": {"a": "x"}})"));
  CHECK(p.location == "/cluster/links");
  CHECK(p.message == "expected an array, got object");
  p = only_problem(explicit_cluster("", R"(, {"a": "a/nic0", "b": "sw", "kind": "ib_hdr", "lanes": 2.5})"));
  CHECK(p.location == "/cluster/links/4/lanes");
  CHECK(p.message == "expected an integer, got number 2.5");
  p = only_problem(explicit_cluster("", R"(, {"a": 3, "b": "sw", "kind": "ib_hdr"})"));
  CHECK(p.location == "/cluster/links/4/a");
  CHECK(p.message == "expected the name of a device, got number 3");
  p = only_problem(doc(R"({"generate": {"nodes": 1}, "hosts": ["h1"]})"));
  CHECK(p.location == "/cluster/hosts/0");
  CHECK(p.message == "expected an object, got string \"h1\"");
}

TEST_CASE("missing required fields are reported at the path they belong", "[scenario][bad-input]") {
  Problem p = only_problem(explicit_cluster("", R"(, {"a": "a/nic0", "b": "sw"})"));
  CHECK(p.location == "/cluster/links/4/kind");
  CHECK(p.message == "missing required field: expected a link kind (one of " + link_kind_names() + ")");
  p = only_problem(explicit_cluster(R"(, {"kind": "spine"})", ""));
  CHECK(p.location == "/cluster/devices/5/name");
  CHECK(p.message == "missing required field: expected a device name");
  p = only_problem(generate(R"({"node": {"template": "dgx_h100"}})"));
  CHECK(p.location == "/cluster/generate/nodes");
  CHECK(p.message == "missing required field: expected the number of nodes, an integer >= 1");
  p = only_problem(generate(R"({"nodes": 4, "fabric": {"kind": "leaf_spine"}})"));
  CHECK(p.location == "/cluster/generate/fabric/nodes_per_leaf");
  CHECK(p.message == "missing required field: expected the number of nodes under each leaf (ToR) switch");
  p = only_problem(generate(R"({"nodes": 4, "fabric": {"spines": 2}})"));
  CHECK(p.location == "/cluster/generate/fabric/kind");
  p = only_problem(explicit_cluster("", R"(, {"a": "a/nic0", "b": "b/nic0", "kind": "custom", "latency": "1us"})"));
  CHECK(p.location == "/cluster/links/4/bandwidth");
  CHECK(p.message ==
        "missing required field: expected a bandwidth such as \"100Gbps\" (a custom link has no defaults)");
}

TEST_CASE("device placement: internal devices need a host, switches have none", "[scenario][bad-input]") {
  Problem p = only_problem(explicit_cluster(R"(, {"name": "x/gpu0", "kind": "gpu"})", ""));
  CHECK(p.location == "/cluster/devices/5/host");
  CHECK(p.message ==
        "missing required field: expected the host of this \"gpu\" device (gpu, cpu, pcie_switch and "
        "nic sit inside a host)");
  p = only_problem(explicit_cluster(R"(, {"name": "s2", "kind": "spine", "host": "a"})", ""));
  CHECK(p.location == "/cluster/devices/5/host");
  CHECK(p.message == "a \"spine\" switch is not inside a host: expected no \"host\" (use \"rack\" for a ToR)");
  p = only_problem(explicit_cluster(R"(, {"name": "a/cpu0", "kind": "cpu", "host": "a", "gpu_model": "a100"})", ""));
  CHECK(p.location == "/cluster/devices/5/gpu_model");
  CHECK(p.message == "gpu_model applies to gpu devices only, not to \"cpu\"");
  p = only_problem(
      explicit_cluster(R"(, {"name": "a/gpu1", "kind": "gpu", "host": "a", "in_network_reduction": true})", ""));
  CHECK(p.location == "/cluster/devices/5/in_network_reduction");
  p = only_problem(explicit_cluster(R"(, {"name": "a/gpu1", "kind": "gpu", "host": "zz"})", ""));
  CHECK(p.location == "/cluster/devices/5/host");
  CHECK(p.message == "no host named \"zz\": expected a host from /cluster/hosts or a generated one");
  p = only_problem(doc(R"({"generate": {"nodes": 1}, "hosts": [{"name": "h", "rack": "r9"}]})"));
  CHECK(p.location == "/cluster/hosts/0/rack");
  CHECK(p.message == "no rack named \"r9\": expected a rack from /cluster/racks or a generated one");
}

TEST_CASE("link options: transport only on network links, tcp never on InfiniBand, one lane key",
          "[scenario][bad-input]") {
  Problem p =
      only_problem(explicit_cluster("", R"(, {"a": "a/gpu0", "b": "a/nic0", "kind": "pcie4", "transport": "tcp"})"));
  CHECK(p.location == "/cluster/links/4/transport");
  CHECK(p.message ==
        "transport applies to InfiniBand and Ethernet links only: expected no \"transport\" on a "
        "\"pcie4\" link");
  p = only_problem(explicit_cluster("", R"(, {"a": "a/nic0", "b": "sw", "kind": "ib_hdr", "transport": "tcp"})"));
  CHECK(p.message == "tcp over InfiniBand (\"ib_hdr\"): expected rdma");
  p = only_problem(explicit_cluster("", R"(, {"a": "a/nic0", "b": "sw", "kind": "ib_hdr", "transport": "efa"})"));
  CHECK(p.message == "srd over InfiniBand (\"ib_hdr\"): expected rdma");
  p = only_problem(explicit_cluster("", R"(, {"a": "a/nic0", "b": "sw", "kind": "ib_hdr", "lanes": 2, "width": 2})"));
  CHECK(p.location == "/cluster/links/4/width");
  CHECK(p.message == "give only one of \"lanes\", \"count\", \"width\" (all mean the lane count)");
  p = only_problem(explicit_cluster("", R"(, {"a": "a/nic0", "b": "sw", "kind": "ib_hdr", "lanes": 0})"));
  CHECK(p.message == "expected an integer from 1 to 1024, got number 0");
  p = only_problem(explicit_cluster("", R"(, {"a": "a/nic0", "b": "sw", "kind": "ib_hdr", "speed": "1Gbps"})"));
  CHECK(p.location == "/cluster/links/4/speed");
  CHECK_THAT(p.message, Catch::StartsWith("unknown key \"speed\": expected one of a, b, kind, lanes, count, width"));
}

TEST_CASE("bad generator parameters point into the generate block", "[scenario][bad-input]") {
  Problem p = only_problem(generate(R"({"nodes": 0})"));
  CHECK(p.location == "/cluster/generate/nodes");
  CHECK(p.message == "expected an integer from 1 to 65536, got 0");
  p = only_problem(generate(R"({"nodes": 8, "fabric": {"kind": "leaf_spine", "nodes_per_leaf": 3}})"));
  CHECK(p.location == "/cluster/generate/fabric/nodes_per_leaf");
  CHECK(p.message == "3 does not divide the number of nodes (8): expected a divisor of 8");
  p = only_problem(
      generate(R"({"nodes": 8, "fabric": {"kind": "leaf_spine", "nodes_per_leaf": 4, "oversubscription": 0.5}})"));
  CHECK(p.location == "/cluster/generate/fabric/oversubscription");
  CHECK(p.message == "expected a ratio from 1 (non-blocking) to 1024 (downlink / uplink bandwidth), got 0.5");
  p = only_problem(generate(R"({"nodes": 8, "fabric": {"kind": "leaf_spine", "nodes_per_leaf": 4, "cores": 2}})"));
  CHECK(p.location == "/cluster/generate/fabric/cores");
  CHECK(p.message ==
        "unknown key \"cores\" for fabric kind leaf_spine: expected one of kind, prefix, "
        "in_network_reduction, nodes_per_leaf, spines, oversubscription, uplink");
  p = only_problem(generate(R"({"nodes": 2, "node": {"template": "dgx_h100", "transport": "tcp"}})"));
  CHECK(p.location == "/cluster/generate/node/transport");
  CHECK(p.message == "tcp over InfiniBand (ib_ndr): expected rdma, or an Ethernet NIC kind for tcp");
  p = only_problem(generate(R"({"nodes": 2, "node": {"nic": "pcie4"}})"));
  CHECK(p.location == "/cluster/generate/node/nic");
  CHECK(p.message == "link kind \"pcie4\" is not an InfiniBand or Ethernet port kind");
  p = only_problem(generate(R"({"nodes": 2, "node": {"gpus": 0}})"));
  CHECK(p.location == "/cluster/generate/node/gpus");
  p = only_problem(generate(R"({"nodes": 2, "prefix": "a/b"})"));
  CHECK(p.location == "/cluster/generate/prefix");
  CHECK(p.message == "bad prefix \"a/b\": expected a non-empty host name prefix without '/'");
  p = only_problem(generate(R"({"nodes": 2, "node": {"template": "generic", "gpu_interconnect": "nvswitch"}})"));
  CHECK(p.location == "/cluster/generate/node/nvlinks");
  CHECK(p.message == "expected 1 to 64 NVLink links per GPU for gpu_interconnect nvswitch, got 0");
  p = only_problem(generate(R"({"nodes": 100000})"));
  CHECK(p.message == "expected an integer from 1 to 65536, got 100000");
}

TEST_CASE("bad dragonfly parameters point into the fabric object", "[scenario][bad-input]") {
  Problem p = only_problem(
      generate(R"({"nodes": 12, "fabric": {"kind": "dragonfly", "nodes_per_leaf": 2, "routers_per_group": 4}})"));
  CHECK(p.location == "/cluster/generate/fabric/routers_per_group");
  CHECK(p.message == "4 does not divide the number of routers (6): expected a divisor of 6");
  p = only_problem(
      generate(R"({"nodes": 12, "fabric": {"kind": "dragonfly", "nodes_per_leaf": 2, "routers_per_group": 6}})"));
  CHECK(p.location == "/cluster/generate/fabric/routers_per_group");
  CHECK(p.message ==
        "6 puts all 6 routers in one group: expected at least 2 groups (at most 3 routers per group)");
  p = only_problem(generate(R"({"nodes": 12, "fabric": {"kind": "dragonfly", "nodes_per_leaf": 2,
                                                        "routers_per_group": 2, "global_links": 0}})"));
  CHECK(p.location == "/cluster/generate/fabric/global_links");
  CHECK(p.message == "expected an integer from 1 to 4096, got 0");
  p = only_problem(generate(R"({"nodes": 12, "fabric": {"kind": "dragonfly", "nodes_per_leaf": 2}})"));
  CHECK(p.location == "/cluster/generate/fabric/routers_per_group");
  CHECK(p.message == "missing required field: expected the number of routers in each dragonfly group");
  p = only_problem(generate(R"({"nodes": 12, "fabric": {"kind": "dragonfly", "routers_per_group": 2}})"));
  CHECK(p.location == "/cluster/generate/fabric/nodes_per_leaf");
  CHECK(p.message == "missing required field: expected the number of nodes on each dragonfly router");
  p = only_problem(generate(
      R"({"nodes": 12, "fabric": {"kind": "dragonfly", "nodes_per_leaf": 2, "routers_per_group": 2, "spines": 2}})"));
  CHECK(p.location == "/cluster/generate/fabric/spines");
  CHECK(p.message ==
        "unknown key \"spines\" for fabric kind dragonfly: expected one of kind, prefix, in_network_reduction, "
        "nodes_per_leaf, routers_per_group, global_links, uplink, uplinks");
}

TEST_CASE("several problems are reported together, in document order", "[scenario][bad-input]") {
  const std::string path = std::string(RINGLAB_SOURCE_DIR) + "/tests/data/bad/many_problems.json";
  try {
    load_scenario(path);
    FAIL("no InputError");
  } catch (const InputError& e) {
    std::vector<std::string> locations;
    for (const Problem& p : e.problems()) locations.push_back(p.location);
    CHECK(locations == std::vector<std::string>{"/nmae", "/cluster/generate/fabric/nodes_per_leaf",
                                                "/cluster/generate/fabric/oversubscription", "/cluster/devices/0/host",
                                                "/cluster/devices/1/kind", "/cluster/links/0/bandwidth", "/workload"});
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains(path + ": /nmae: unknown key \"nmae\""));
    CHECK_THAT(what, Catch::Contains(path + ": /workload: expected an object, got array"));
    CHECK(std::count(what.begin(), what.end(), '\n') == 6);
  }
}

TEST_CASE("a broken device is reported once: links to it are not also called dangling", "[scenario][bad-input]") {
  const Problem p = only_problem(
      explicit_cluster(R"(, {"name": "x", "kind": "router"})", R"(, {"a": "x", "b": "sw", "kind": "ib_hdr"})"));
  CHECK(p.location == "/cluster/devices/5/kind");
}

TEST_CASE("a bad generate block does not make links to its names dangle", "[scenario][bad-input]") {
  const Problem p = only_problem(doc(R"({"generate": {"nodes": 0, "fabric": {"kind": "single_switch"}},
      "hosts": [{"name": "ps"}], "devices": [{"name": "ps/nic0", "kind": "nic", "host": "ps"}],
      "links": [{"a": "ps/nic0", "b": "switch", "kind": "ib_hdr"}]})"));
  CHECK(p.location == "/cluster/generate/nodes");
}

TEST_CASE("hostile input does not crash the loader", "[scenario][bad-input]") {
  const std::string deep(100000, '[');
  const auto deep_problems = problems_in(deep);
  REQUIRE(deep_problems.size() == 1);
  CHECK_THAT(deep_problems[0].message, Catch::StartsWith("malformed JSON"));
  CHECK(problems_in(R"({"ringlab": 1, "cluster": null})").size() == 1);
  CHECK(problems_in(R"({"ringlab": 1, "cluster": {"generate": [1, null, "x"]}})").size() == 3);
  CHECK(problems_in(R"({"ringlab": 1, "cluster": {"links": [{}]}})").size() == 3);  // a, b and kind missing
}

TEST_CASE("a key given twice in one object names the JSON pointer and both places", "[scenario][bad-input]") {
  const std::string text = "{\"ringlab\": 1,\n"
                           " \"cluster\": {\"generate\": {\"nodes\": 2, \"node\": {\"template\": \"v100x4\"},\n"
                           "   \"fabric\": {\"kind\": \"single_switch\"}, \"nodes\": 4}},\n"
                           " \"simulate\": {\"sizes\": \"1MiB\",\n"
                           "   // a comment with \"sizes\": is not a key\n"
                           "   \"sizes\": \"2MiB\"}}\n";
  const auto problems = problems_in(text);
  REQUIRE(problems.size() == 2);
  CHECK(problems[0].location == "/cluster/generate/nodes");
  CHECK(problems[0].message ==
        "duplicate key \"nodes\" at line 3, column 41 (first at line 2, column 27): expected each key once per object");
  CHECK(problems[1].location == "/simulate/sizes");
  CHECK(problems[1].message ==
        "duplicate key \"sizes\" at line 6, column 4 (first at line 4, column 15): expected each key once per object");
}

TEST_CASE("duplicate keys: escapes spell the same key, equal keys in different objects are fine",
          "[scenario][bad-input]") {
  Problem p = only_problem(R"({"ringlab": 1, "r\u0069nglab": 1, "cluster": {}})");
  CHECK(p.location == "/ringlab");
  CHECK_THAT(p.message, Catch::StartsWith("duplicate key \"ringlab\" at line 1, column 16 (first at line 1, column 2)"));
  // Arrays count in the pointer; "name" in two list elements is not a duplicate.
  p = only_problem(R"({"ringlab": 1, "cluster": {"hosts": [{"name": "a"}, {"name": "b", "name": "c"}]}})");
  CHECK(p.location == "/cluster/hosts/1/name");
  // Keys with '/' and '~' are escaped in the pointer (RFC 6901).
  p = only_problem(R"({"ringlab": 1, "cluster": {}, "simulate": {"a/b~": 1, "a/b~": 2}})");
  CHECK(p.location == "/simulate/a~1b~0");
}

TEST_CASE("every JSON file read through parse_json_text rejects duplicate keys", "[scenario][bad-input]") {
  try {
    parse_json_text("{\"schema\": \"ringlab.results\",\n \"schema\": \"x\"}", "r.json");
    FAIL("no error");
  } catch (const InputError& e) {
    REQUIRE(e.problems().size() == 1);
    CHECK(e.problems()[0].to_string() ==
          "r.json: /schema: duplicate key \"schema\" at line 2, column 2 (first at line 1, column 2): "
          "expected each key once per object");
  }
  // Many keys in one object (the hash-map path) and a large file stay correct.
  std::string big = "{";
  for (int i = 0; i < 5000; ++i) big += "\"k" + std::to_string(i) + "\": [1, {\"x\": 2}],";
  big += "\"k17\": 0}";
  try {
    parse_json_text(big, "big.json");
    FAIL("no error");
  } catch (const InputError& e) {
    REQUIRE(e.problems().size() == 1);
    CHECK(e.problems()[0].location == "/k17");
  }
}
