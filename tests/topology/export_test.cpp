// Export: DOT and GraphML carry every device and link with their attributes (read back with Boost's own
// readers), and the scenario JSON loads back into the same cluster.
#include <catch2/catch.hpp>

#include <sstream>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/graphml.hpp>
#include <boost/graph/graphviz.hpp>

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

/// Graph with string properties for Boost's readers.
struct ReadVertex {
  std::string name, kind, host, rack, tier, label;
};
struct ReadEdge {
  std::string kind, lanes, transport, bandwidth, latency, overhead, label;
};
using ReadGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, ReadVertex, ReadEdge>;

boost::dynamic_properties read_properties(ReadGraph& g) {
  boost::dynamic_properties dp(boost::ignore_other_properties);
  dp.property("kind", boost::get(&ReadVertex::kind, g));
  dp.property("host", boost::get(&ReadVertex::host, g));
  dp.property("rack", boost::get(&ReadVertex::rack, g));
  dp.property("tier", boost::get(&ReadVertex::tier, g));
  dp.property("kind", boost::get(&ReadEdge::kind, g));
  dp.property("lanes", boost::get(&ReadEdge::lanes, g));
  dp.property("transport", boost::get(&ReadEdge::transport, g));
  dp.property("bandwidth", boost::get(&ReadEdge::bandwidth, g));
  dp.property("latency", boost::get(&ReadEdge::latency, g));
  dp.property("overhead", boost::get(&ReadEdge::overhead, g));
  return dp;
}

/// Every device and link of `t` appears in `g` with the same attributes (parsed back to units).
void check_same_graph(const Topology& t, const ReadGraph& g) {
  REQUIRE(boost::num_vertices(g) == t.device_count());
  REQUIRE(boost::num_edges(g) == t.link_count());
  std::map<std::string, std::size_t> vertex_of;
  for (std::size_t v = 0; v < boost::num_vertices(g); ++v) vertex_of[g[v].name] = v;
  for (const Device& d : t.devices()) {
    REQUIRE(vertex_of.count(d.name) == 1);
    const ReadVertex& v = g[vertex_of[d.name]];
    CHECK(v.kind == to_string(d.kind));
    CHECK(v.host == (d.host == kNoHost ? "" : t.host(d.host).name));
    CHECK(v.rack == (d.rack == kNoRack ? "" : t.rack(d.rack).name));
    CHECK(v.tier == std::to_string(d.tier));
  }
  std::multimap<std::pair<std::string, std::string>, const ReadEdge*> edges;
  for (auto [e, end] = boost::edges(g); e != end; ++e) {
    const auto& a = g[boost::source(*e, g)].name;
    const auto& b = g[boost::target(*e, g)].name;
    edges.emplace(std::minmax(a, b), &g[*e]);
  }
  for (const Link& l : t.links()) {
    const auto key = std::minmax(t.device(l.a).name, t.device(l.b).name);
    REQUIRE(edges.count(key) >= 1);
    const ReadEdge& e = *edges.find(key)->second;
    CHECK(e.kind == to_string(l.kind));
    CHECK(e.lanes == std::to_string(l.lanes));
    CHECK(e.transport == to_string(l.transport));
    CHECK(parse_bandwidth(e.bandwidth).gbps() == Approx(l.bandwidth.gbps()).epsilon(1e-11));
    CHECK(parse_duration(e.latency) == l.latency);
    CHECK(parse_duration(e.overhead) == l.overhead);
  }
}

}  // namespace

TEST_CASE("DOT: every device is a node and every link an edge, with kind, units and placement", "[export]") {
  const Cluster c = varied_cluster();
  std::ostringstream out;
  write_dot(out, c.t);
  const std::string dot = out.str();
  CHECK_THAT(dot, Catch::StartsWith("graph G {"));
  CHECK_THAT(dot, Catch::Contains("bandwidth=\"400Gbps\"") && Catch::Contains("latency=\"1500ps\"") &&
                      Catch::Contains("overhead=\"3us\"") && Catch::Contains("transport=tcp"));

  ReadGraph g;
  boost::dynamic_properties dp = read_properties(g);
  dp.property("node_id", boost::get(&ReadVertex::name, g));
  dp.property("label", boost::get(&ReadVertex::label, g));
  dp.property("label", boost::get(&ReadEdge::label, g));
  std::istringstream in(dot);
  REQUIRE(boost::read_graphviz(in, g, dp, "node_id"));
  check_same_graph(c.t, g);
  for (std::size_t v = 0; v < boost::num_vertices(g); ++v) CHECK(g[v].label == g[v].name);
}

TEST_CASE("GraphML: every device is a node and every link an edge, with kind, units and placement",
          "[export]") {
  const Cluster c = varied_cluster();
  std::ostringstream out;
  write_graphml(out, c.t);
  const std::string xml = out.str();
  CHECK_THAT(xml, Catch::Contains("<graphml") && Catch::Contains("edgedefault=\"undirected\""));

  ReadGraph g;
  boost::dynamic_properties dp = read_properties(g);
  dp.property("name", boost::get(&ReadVertex::name, g));
  std::istringstream in(xml);
  boost::read_graphml(in, g, dp);
  check_same_graph(c.t, g);
}

TEST_CASE("writers are deterministic: the same cluster gives the same bytes", "[export]") {
  const Cluster c = varied_cluster();
  auto text = [&](auto writer) {
    std::ostringstream out;
    writer(out, c.t);
    return out.str();
  };
  CHECK(text(write_dot) == text(write_dot));
  CHECK(text(write_graphml) == text(write_graphml));
  CHECK(text(write_json) == text(write_json));
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
