// SimGrid platform export: a hand-built cluster gives the expected hosts, links and routes, with exact
// unit strings and hop directions (read back with pugixml). That SimGrid loads and runs the file is
// shown by tests/sim/simgrid_engine_test.cpp, which runs every schedule through it.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include <pugixml.hpp>

#include "hand_built_clusters.hpp"
#include "ringlab/topology/export.hpp"
#include "ringlab/topology/routing.hpp"

using namespace ringlab;
using namespace ringlab::literals;
using namespace ringlab::test;

namespace {

Link custom(DeviceId a, DeviceId b, Bandwidth bw, Duration lat) {
  Link l;
  l.a = a;
  l.b = b;
  l.bandwidth = bw;
  l.latency = lat;
  return l;
}

/// node0: gpu0, cpu0, nic0 (two parallel links to the leaf); node1: gpu1, nic1; leaf0.
struct Small {
  Cluster c;
  DeviceId gpu0 = 0, cpu0 = 0, nic0 = 0, gpu1 = 0, nic1 = 0, leaf = 0;
  Small() {
    const HostId h0 = c.t.add_host("node0");
    const HostId h1 = c.t.add_host("node1");
    gpu0 = c.add("node0/gpu0", DeviceKind::Gpu, h0);
    cpu0 = c.add("node0/cpu0", DeviceKind::Cpu, h0);
    nic0 = c.add("node0/nic0", DeviceKind::Nic, h0);
    gpu1 = c.add("node1/gpu0", DeviceKind::Gpu, h1);
    nic1 = c.add("node1/nic0", DeviceKind::Nic, h1);
    leaf = c.add("leaf0", DeviceKind::Leaf, kNoHost, 1);
    c.t.add_link(custom(gpu0, nic0, 100_Gbps, 1_us));                                  // link 0
    c.t.add_link(custom(cpu0, nic0, 100_Gbps, 1_us));                                  // link 1
    c.t.add_link(custom(nic0, leaf, 12.5_Gbps, Duration{1500}));                       // link 2
    c.t.add_link(custom(nic0, leaf, 12.5_Gbps, Duration{1500}));                       // link 3, parallel
    c.t.add_link(custom(gpu1, nic1, 100_Gbps, 1_us));                                  // link 4
    c.t.add_link(custom(nic1, leaf, Bandwidth::from_bits_per_second(1e11 / 3), 0_us));  // link 5
  }
};

std::size_t count(const pugi::xml_node& zone, const char* element) {
  std::size_t n = 0;
  for (pugi::xml_node child = zone.child(element); child; child = child.next_sibling(element)) ++n;
  return n;
}

}  // namespace

TEST_CASE("simgrid export: one host per device, one SPLITDUPLEX link per link, a route per endpoint pair",
          "[export][simgrid]") {
  const Small s;
  const Router router(s.c.t, EcmpPolicy::First);
  std::ostringstream out;
  write_simgrid(out, s.c.t, simgrid_endpoint_routes(s.c.t, router));
  pugi::xml_document doc;
  REQUIRE(doc.load_string(out.str().c_str()));
  const pugi::xml_node platform = doc.child("platform");
  CHECK(std::string(platform.attribute("version").value()) == "4.1");
  const pugi::xml_node zone = platform.child("zone");
  CHECK(std::string(zone.attribute("routing").value()) == "Full");
  CHECK(count(zone, "host") == 6);
  CHECK(count(zone, "link") == 6);
  CHECK(count(zone, "route") == 6);  // ordered pairs of {gpu0, cpu0, gpu1}

  const pugi::xml_node gpu = zone.find_child_by_attribute("host", "id", "node0/gpu0");
  REQUIRE(gpu);
  CHECK(std::string(gpu.attribute("speed").value()).back() == 'f');
  const pugi::xml_node uplink = zone.find_child_by_attribute("link", "id", "node0/nic0--leaf0");
  REQUIRE(uplink);
  CHECK(std::string(uplink.attribute("bandwidth").value()) == "12500000000bps");
  CHECK(std::string(uplink.attribute("latency").value()) == "1500ps");
  CHECK(std::string(uplink.attribute("sharing_policy").value()) == "SPLITDUPLEX");
  CHECK(zone.find_child_by_attribute("link", "id", "node0/nic0--leaf0#3"));  // the parallel link
  const pugi::xml_node access = zone.find_child_by_attribute("link", "id", "node0/gpu0--node0/nic0");
  CHECK(std::string(access.attribute("bandwidth").value()) == "100Gbps");
  CHECK(std::string(access.attribute("latency").value()) == "1us");
  const pugi::xml_node third = zone.find_child_by_attribute("link", "id", "node1/nic0--leaf0");
  CHECK(std::string(third.attribute("latency").value()) == "0s");

  // gpu0 -> gpu1 with ECMP first: gpu0->nic0 (UP), nic0->leaf on link 2 (UP), leaf->nic1 (DOWN),
  // nic1->gpu1 (DOWN).
  pugi::xml_node route;
  for (pugi::xml_node r = zone.child("route"); r; r = r.next_sibling("route"))
    if (std::string(r.attribute("src").value()) == "node0/gpu0" && std::string(r.attribute("dst").value()) == "node1/gpu0")
      route = r;
  REQUIRE(route);
  CHECK(std::string(route.attribute("symmetrical").value()) == "NO");
  std::vector<std::string> hops;
  for (pugi::xml_node h = route.child("link_ctn"); h; h = h.next_sibling("link_ctn"))
    hops.push_back(std::string(h.attribute("id").value()) + " " + h.attribute("direction").value());
  CHECK(hops == std::vector<std::string>{"node0/gpu0--node0/nic0 UP", "node0/nic0--leaf0 UP",
                                         "node1/nic0--leaf0 DOWN", "node1/gpu0--node1/nic0 DOWN"});
}

TEST_CASE("simgrid export: is deterministic", "[export][simgrid]") {
  const Small s;
  const Router router(s.c.t);
  std::ostringstream a, b;
  write_simgrid(a, s.c.t, simgrid_endpoint_routes(s.c.t, router));
  write_simgrid(b, s.c.t, simgrid_endpoint_routes(s.c.t, router));
  CHECK(a.str() == b.str());
}
