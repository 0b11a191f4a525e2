// Export: DOT is drawn for people (clusters, tiers, short labels, merged links, collapsed hosts),
// GraphML carries every device and link with typed attributes (read back with pugixml), and the
// scenario JSON loads back into the same cluster.
#include <catch2/catch.hpp>

#include <map>
#include <sstream>

#include <pugixml.hpp>

#include "hand_built_clusters.hpp"
#include "ringlab/topology/export.hpp"
#include "ringlab/topology/scenario.hpp"

using namespace ringlab;
using namespace ringlab::literals;
using namespace ringlab::test;

namespace {

/// A rail-optimised pair of hosts in a rack with a ToR switch in that rack, an Ethernet TCP link and a
/// custom link with its own bandwidth, latency and overhead: every field the writers handle.
Cluster varied_cluster() {
  RailCluster rc(2, 2, 2, 1);
  Cluster c = std::move(rc.c);
  const RackId rack = c.t.add_rack("rack0");
  const HostId h = c.t.add_host("node9", rack);
  Device tor;
  tor.name = "tor0";
  tor.kind = DeviceKind::Leaf;
  tor.rack = rack;
  tor.tier = 1;
  tor.in_network_reduction = true;
  const DeviceId tor_id = c.t.add_device(tor);
  Device gpu;
  gpu.name = "node9/gpu0";
  gpu.kind = DeviceKind::Gpu;
  gpu.host = h;
  gpu.gpu_model = GpuModel::H100;
  const DeviceId gpu_id = c.t.add_device(gpu);
  const DeviceId nic = c.add("node9/nic0", DeviceKind::Nic, h);
  Link custom = Topology::default_link(gpu_id, nic, LinkKind::Custom);
  custom.bandwidth = Bandwidth::from_bytes_per_second(12.5e9);
  custom.latency = Duration{1500};
  custom.overhead = 3_us;
  c.t.add_link(custom);
  c.t.add_link(Topology::default_link(nic, tor_id, LinkKind::Eth100, 2, Transport::Tcp));
  c.link(tor_id, c.t.device_by_name("spine0"), LinkKind::Eth400);
  return c;
}

/// The text of one writer's output.
template <typename Writer>
std::string written(Writer writer, const Topology& t) {
  std::ostringstream out;
  writer(out, t);
  return out.str();
}

std::string dot_of(const Topology& t, DotDetail detail = DotDetail::Auto) {
  std::ostringstream out;
  write_dot(out, t, detail);
  return out.str();
}

/// Lines of `text` that contain `needle`.
std::size_t lines_with(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) n += line.find(needle) != std::string::npos;
  return n;
}

}  // namespace

TEST_CASE("link labels read as a datasheet writes them: NVLink4 x18, PCIe5 x16, 400G IB, 100G RoCE", "[export]") {
  CHECK(link_label(Topology::default_link(0, 1, LinkKind::NvLink4, 18)) == "NVLink4 x18");
  CHECK(link_label(Topology::default_link(0, 1, LinkKind::Pcie5, 16)) == "PCIe5 x16");
  CHECK(link_label(Topology::default_link(0, 1, LinkKind::IbNdr)) == "400G IB");
  CHECK(link_label(Topology::default_link(0, 1, LinkKind::IbNdr, 2)) == "2x400G IB");
  CHECK(link_label(Topology::default_link(0, 1, LinkKind::Eth100, 1, Transport::Rdma)) == "100G RoCE");
  CHECK(link_label(Topology::default_link(0, 1, LinkKind::Eth25, 1, Transport::Tcp)) == "25G Ethernet");
  Link slow = Topology::default_link(0, 1, LinkKind::Pcie4, 16);
  slow.bandwidth = Bandwidth::from_bits_per_second(100e9);
  CHECK(link_label(slow) == "PCIe4 x16 (100G)");
}

TEST_CASE("DOT: clusters per rack and host, switches ranked by tier, short coloured labels, a legend", "[export]") {
  const Cluster c = varied_cluster();
  const std::string dot = dot_of(c.t);
  CHECK_THAT(dot, Catch::StartsWith("graph ringlab {"));
  CHECK(lines_with(dot, "subgraph \"cluster_rack_rack0\"") == 1);
  CHECK(lines_with(dot, "subgraph \"cluster_host_node9\"") == 1);
  CHECK(lines_with(dot, "subgraph \"cluster_host_") == c.t.hosts().size());
  // Inside its host box a device is labelled by its short name and GPU model.
  CHECK_THAT(dot, Catch::Contains("\"node9/gpu0\" [label=\"gpu0\\nH100\""));
  // One rank line per tier: the ToR (tier 1) with the rail leaves, the spine alone.
  CHECK(lines_with(dot, "{ rank=same;") == 2);
  CHECK_THAT(dot, Catch::Contains("{ rank=same; // tier 2\n    \"spine0\";\n  }"));
  // Edges: the higher tier first, short labels, coloured by family; TCP dashed.
  CHECK_THAT(dot, Catch::Contains("\"tor0\" -- \"node9/nic0\" [label=\"2x100G Ethernet\", color=\"#ff7f0e\""));
  CHECK(lines_with(dot, "style=dashed") == 1);  // the one TCP link
  CHECK_THAT(dot, Catch::Contains("\"spine0\" -- \"tor0\" [label=\"400G RoCE\""));
  CHECK_THAT(dot, Catch::Contains("\"node9/nic0\" -- \"node9/gpu0\" [label=\"100G custom\""));
  CHECK_THAT(dot, Catch::Contains("\"leaf0_0\" -- \"node0/nic0\" [label=\"400G IB\", color=\"#9467bd\""));
  CHECK_THAT(dot, Catch::Contains("\"node0/nvswitch0\" -- \"node0/gpu0\" [label=\"NVLink4 x18\""));
  CHECK_THAT(dot, Catch::Contains("subgraph cluster_legend") && Catch::Contains(">NVLink</TD>") &&
                      Catch::Contains(">InfiniBand</TD>") && Catch::Contains(">Ethernet (dashed: TCP)</TD>"));
  CHECK_THAT(dot, !Catch::Contains("Gbps"));  // no 12-digit bandwidths
}

TEST_CASE("DOT: identical parallel links are one edge with a count", "[export]") {
  Cluster c;
  const HostId h = c.t.add_host("node0");
  const DeviceId gpu = c.add("node0/gpu0", DeviceKind::Gpu, h);
  const DeviceId sw = c.add("node0/nvswitch0", DeviceKind::NvSwitch, h);
  for (int i = 0; i < 3; ++i) c.t.add_link(Topology::default_link(gpu, sw, LinkKind::NvLink4, 6));
  c.t.add_link(Topology::default_link(gpu, sw, LinkKind::NvLink4, 2));  // different: drawn apart
  const std::string dot = dot_of(c.t);
  CHECK(lines_with(dot, " -- ") == 2);
  CHECK_THAT(dot, Catch::Contains("\"node0/nvswitch0\" -- \"node0/gpu0\" [label=\"3 x NVLink4 x6\""));
  CHECK_THAT(dot, Catch::Contains("[label=\"NVLink4 x2\""));
  CHECK_THAT(dot, Catch::Contains(">NVLink</TD>") && !Catch::Contains(">InfiniBand</TD>"));  // only families present
}

TEST_CASE("DOT: above 64 hosts or 512 GPUs each host is one box, and the file says so", "[export]") {
  const nlohmann::json doc = nlohmann::json::parse(R"({"ringlab": 1, "cluster": {"generate": {
      "nodes": 128, "node": {"template": "dgx_h100"},
      "fabric": {"kind": "leaf_spine", "nodes_per_leaf": 16, "spines": 8}}}})");
  const Scenario s = scenario_from_json(doc, "fat-tree-1024.json");
  REQUIRE(s.cluster.gpus().size() == 1024);
  CHECK(dot_collapses_hosts(s.cluster, DotDetail::Auto));
  CHECK_FALSE(dot_collapses_hosts(s.cluster, DotDetail::Full));
  const std::string dot = dot_of(s.cluster);
  CHECK(lines_with(dot, "// hosts collapsed to one box each") == 1);
  CHECK(lines_with(dot, "subgraph \"cluster_host_") == 0);
  CHECK(lines_with(dot, "[label=\"node7: 8x H100, 8x 400G IB\"") == 1);
  CHECK_THAT(dot, !Catch::Contains("gpu0"));
  // A host's eight NIC links to its leaf are one edge.
  CHECK_THAT(dot, Catch::Contains("\"leaf0\" -- \"node0\" [label=\"8 x 400G IB\""));

  const Cluster small = varied_cluster();
  CHECK_FALSE(dot_collapses_hosts(small.t, DotDetail::Auto));
  CHECK(dot_collapses_hosts(small.t, DotDetail::Hosts));
  CHECK(lines_with(dot_of(small.t, DotDetail::Hosts), "subgraph \"cluster_host_") == 0);
}

TEST_CASE("GraphML: typed keys, every device a node and every link an edge, numbers as numbers", "[export]") {
  const Cluster c = varied_cluster();
  const std::string xml = written([](std::ostream& o, const Topology& t) { write_graphml(o, t); }, c.t);
  pugi::xml_document doc;
  REQUIRE(doc.load_string(xml.c_str()));
  const pugi::xml_node root = doc.child("graphml");
  std::map<std::string, std::pair<std::string, std::string>> keys;  // attr.name -> (id, type), edges and nodes
  for (pugi::xml_node k : root.children("key"))
    keys[std::string(k.attribute("for").value()) + ":" + k.attribute("attr.name").value()] = {
        k.attribute("id").value(), k.attribute("attr.type").value()};
  CHECK(keys["edge:bandwidth_bps"].second == "double");
  CHECK(keys["edge:latency_ps"].second == "long");
  CHECK(keys["edge:overhead_ps"].second == "long");
  CHECK(keys["edge:lanes"].second == "int");
  CHECK(keys["edge:kind"].second == "string");
  CHECK(keys["edge:transport"].second == "string");
  CHECK(keys["node:tier"].second == "int");
  CHECK(keys["node:kind"].second == "string");
  CHECK(keys["node:host"].second == "string");
  CHECK(keys["node:rack"].second == "string");
  CHECK(keys["node:in_network_reduction"].second == "boolean");

  const pugi::xml_node graph = root.child("graph");
  CHECK(std::string(graph.attribute("edgedefault").value()) == "undirected");
  auto value = [&](pugi::xml_node n, const std::string& key) {
    return std::string(n.find_child_by_attribute("data", "key", keys[key].first.c_str()).text().get());
  };
  std::map<std::string, std::string> name_of;  // node id -> device name
  std::size_t nodes = 0;
  for (pugi::xml_node n : graph.children("node")) {
    ++nodes;
    name_of[n.attribute("id").value()] = value(n, "node:name");
  }
  CHECK(nodes == c.t.device_count());
  const DeviceId tor = c.t.device_by_name("tor0");
  const pugi::xml_node tor_node = graph.find_child_by_attribute("node", "id", c.t.device(tor).name.c_str());
  CHECK(value(tor_node, "node:tier") == "1");
  CHECK(value(tor_node, "node:rack") == "rack0");
  CHECK(value(tor_node, "node:in_network_reduction") == "true");

  std::size_t edges = 0;
  for (pugi::xml_node e : graph.children("edge")) {
    const Link& l = c.t.links()[edges++];
    CHECK(name_of[e.attribute("source").value()] == c.t.device(l.a).name);
    CHECK(name_of[e.attribute("target").value()] == c.t.device(l.b).name);
    CHECK(value(e, "edge:kind") == to_string(l.kind));
    CHECK(std::stoi(value(e, "edge:lanes")) == l.lanes);
    CHECK(std::stod(value(e, "edge:bandwidth_bps")) == l.bandwidth.bits_per_second());
    CHECK(std::stoll(value(e, "edge:latency_ps")) == l.latency.picoseconds());
    CHECK(std::stoll(value(e, "edge:overhead_ps")) == l.overhead.picoseconds());
  }
  CHECK(edges == c.t.link_count());
  // The custom link: 12.5 GB/s = 1e11 bit/s, 1500 ps, 3 us.
  LinkId custom_id = 0;
  while (c.t.links()[custom_id].kind != LinkKind::Custom) ++custom_id;
  const pugi::xml_node custom = graph.find_child_by_attribute("edge", "id", ("e" + std::to_string(custom_id)).c_str());
  CHECK(value(custom, "edge:bandwidth_bps") == "100000000000");
  CHECK(value(custom, "edge:latency_ps") == "1500");
  CHECK(value(custom, "edge:overhead_ps") == "3000000");
}

TEST_CASE("writers are deterministic: the same cluster gives the same bytes", "[export]") {
  const Cluster c = varied_cluster();
  CHECK(dot_of(c.t) == dot_of(c.t));
  auto graphml = [](std::ostream& o, const Topology& t) { write_graphml(o, t); };
  auto json = [](std::ostream& o, const Topology& t) { write_json(o, t); };
  CHECK(written(graphml, c.t) == written(graphml, c.t));
  CHECK(written(json, c.t) == written(json, c.t));
}

TEST_CASE("scenario JSON loads back into the same cluster: names, kinds, placement, link units", "[export]") {
  const Cluster c = varied_cluster();
  const Topology& t = c.t;
  std::ostringstream out;
  write_json(out, t);
  const nlohmann::json doc = nlohmann::json::parse(out.str());
  CHECK(doc["ringlab"] == kScenarioFormatVersion);
  CHECK(doc["cluster"]["links"][0].contains("bandwidth"));

  const Scenario back = parse_scenario(out.str(), "exported.json");
  const Topology& u = back.cluster;
  REQUIRE(u.device_count() == t.device_count());
  REQUIRE(u.link_count() == t.link_count());
  REQUIRE(u.host_count() == t.host_count());
  REQUIRE(u.rack_count() == t.rack_count());
  for (DeviceId id = 0; id < t.device_count(); ++id) {
    const Device& a = t.device(id);
    const Device& b = u.device(id);
    CHECK(b.name == a.name);
    CHECK(b.kind == a.kind);
    CHECK(b.host == a.host);
    CHECK(b.rack == a.rack);
    CHECK(b.gpu_model == a.gpu_model);
    CHECK(b.in_network_reduction == a.in_network_reduction);
  }
  for (LinkId id = 0; id < t.link_count(); ++id) {
    const Link& a = t.link(id);
    const Link& b = u.link(id);
    CHECK(b.a == a.a);
    CHECK(b.b == a.b);
    CHECK(b.kind == a.kind);
    CHECK(b.lanes == a.lanes);
    CHECK(b.transport == a.transport);
    CHECK(b.bandwidth.gbps() == Approx(a.bandwidth.gbps()).epsilon(1e-11));
    CHECK(b.latency == a.latency);
    CHECK(b.overhead == a.overhead);
  }
}
