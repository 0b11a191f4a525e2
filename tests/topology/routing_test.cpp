// Router: shortest paths with ECMP on small hand-built clusters, the forwarding rules (GPUs and third
// hosts never forward), determinism, and a hidden timing check on a 1024-host rail-optimised cluster.
#include <catch2/catch.hpp>

#include <chrono>
#include <set>
#include <string>
#include <thread>

#include "hand_built_clusters.hpp"
#include "ringlab/topology/generators.hpp"
#include "ringlab/topology/routing.hpp"

using namespace ringlab;
using namespace ringlab::literals;
using namespace ringlab::test;

namespace {

std::vector<DeviceId> devices_on(const Topology& t, const Route& r) {
  std::vector<DeviceId> out;
  for (DirectionId c : r.directions) out.push_back(t.direction_target(c));
  return out;
}

ClusterSpec generated(int nodes, NodeTemplate node, FabricKind fabric, int nodes_per_leaf = 0) {
  ClusterSpec spec;
  spec.nodes = nodes;
  spec.node = node_template(node);
  spec.fabric.kind = fabric;
  spec.fabric.nodes_per_leaf = nodes_per_leaf;
  return spec;
}

/// `groups` x `per_group` dragonfly routers with one generic node (one NIC) each, one global link per pair.
ClusterSpec dragonfly(int groups, int per_group) {
  ClusterSpec spec = generated(groups * per_group, NodeTemplate::Generic, FabricKind::Dragonfly, 1);
  spec.fabric.routers_per_group = per_group;
  return spec;
}

/// Five small clusters whose zones and fabrics differ in shape: DGX H100 on a leaf-spine, DGX A100
/// rail-optimised, PCIe servers on a three-tier fat tree, a dragonfly, GB200 trays in NVLink domains.
std::vector<ClusterSpec> varied_clusters() {
  ClusterSpec gb200 = generated(4, NodeTemplate::Gb200Nvl72, FabricKind::SingleSwitch);
  gb200.node.nvlink_domain = 2;
  return {generated(4, NodeTemplate::DgxH100, FabricKind::LeafSpine, 2),
          generated(2, NodeTemplate::DgxA100, FabricKind::RailOptimized),
          generated(4, NodeTemplate::Pcie8, FabricKind::FatTree3, 2), dragonfly(3, 2), gb200};
}

/// Hops of a route from one router to another (dragonfly local or global links).
int router_to_router_hops(const Topology& t, const Route& r) {
  const auto is_router = [&](DeviceId d) { return t.device(d).kind == DeviceKind::Leaf; };
  int n = 0;
  for (DirectionId c : r.directions) n += is_router(t.direction_source(c)) && is_router(t.direction_target(c));
  return n;
}

/// The rules every route must follow: it is a connected walk from src to dst of hops(src, dst) links,
/// no GPU inside it, and only the two end hosts' internals on it.
void check_route_rules(const Topology& t, const Router& router, DeviceId src, DeviceId dst, const Route& r) {
  REQUIRE(r.directions.size() == std::size_t(*router.hops(src, dst)));
  DeviceId at = src;
  for (std::size_t i = 0; i < r.directions.size(); ++i) {
    REQUIRE(t.direction_source(r.directions[i]) == at);
    at = t.direction_target(r.directions[i]);
    if (i + 1 == r.directions.size()) break;
    const Device& d = t.device(at);
    CHECK(d.kind != DeviceKind::Gpu);
    CHECK((d.host == kNoHost || d.host == t.device(src).host || d.host == t.device(dst).host));
  }
  CHECK(at == dst);
}

}  // namespace

TEST_CASE("generated clusters: every route follows the rules, path_count matches all_routes",
          "[routing]") {
  const ClusterSpec spec = GENERATE(generated(2, NodeTemplate::V100x4, FabricKind::SingleSwitch),
                                    generated(4, NodeTemplate::DgxH100, FabricKind::LeafSpine, 2),
                                    generated(4, NodeTemplate::DgxA100, FabricKind::RailOptimized),
                                    generated(8, NodeTemplate::Pcie8, FabricKind::FatTree3, 2),
                                    generated(4, NodeTemplate::Generic, FabricKind::Racks, 2), dragonfly(3, 2));
  const Topology t = make_cluster(spec);
  const Router router(t);
  const std::vector<DeviceId> gpus = t.gpus();
  constexpr std::size_t kRouteLimit = 256;
  for (std::size_t i = 0; i < gpus.size(); ++i)
    for (const DeviceId dst : {gpus[(i + 1) % gpus.size()], gpus[gpus.size() - 1 - i], gpus[0]}) {
      const DeviceId src = gpus[i];
      if (src == dst) continue;
      for (std::uint64_t key = 0; key < 4; ++key) check_route_rules(t, router, src, dst, router.route(src, dst, key));
      const std::uint64_t count = router.path_count(src, dst);
      const std::vector<Route> all = router.all_routes(src, dst, kRouteLimit);
      CHECK(all.size() == std::min<std::uint64_t>(count, kRouteLimit));
      std::set<std::vector<DirectionId>> distinct;
      for (const Route& r : all) {
        check_route_rules(t, router, src, dst, r);
        distinct.insert(r.directions);
      }
      CHECK(distinct.size() == all.size());
    }
}

TEST_CASE("dragonfly, 4 groups x 3 routers: every shortest route crosses at most local-global-local (3 router "
          "links) between groups, exactly 1 local link within a group",
          "[routing]") {
  const Topology t = make_cluster(dragonfly(4, 3));
  const Router router(t);
  const auto group = [&](DeviceId nic) { return t.host(t.device(nic).host).rack; };
  std::vector<DeviceId> nics;
  for (DeviceId id = 0; id < t.device_count(); ++id)
    if (t.device(id).kind == DeviceKind::Nic) nics.push_back(id);
  REQUIRE(nics.size() == 12);
  for (DeviceId src : nics)
    for (DeviceId dst : nics) {
      if (src == dst) continue;
      CAPTURE(t.device(src).name, t.device(dst).name);
      const std::vector<Route> routes = router.all_routes(src, dst);
      REQUIRE_FALSE(routes.empty());
      for (const Route& r : routes) {
        const int between = router_to_router_hops(t, r);
        CHECK(int(r.directions.size()) == between + 2);  // nic -> router ... router -> nic
        if (group(src) == group(dst)) {
          CHECK(between == 1);
        } else {
          CHECK(between >= 1);
          CHECK(between <= 3);
        }
      }
    }
}

TEST_CASE("dragonfly routing counts hops, not link classes: an equally short path through a third group is an ECMP "
          "choice too",
          "[routing]") {
  // 3 groups x 2 routers, globals taken round-robin per group in pair order (0,1), (0,2), (1,2):
  // g0r0-g1r0, g0r1-g2r0, g1r1-g2r1. From g0r0 to g2r1: local-global-local over g0r1, g2r0, or
  // global-local-global over g1r0, g1r1; both 3 router links.
  const Topology t = make_cluster(dragonfly(3, 2));
  const Router router(t);
  const DeviceId src = t.device_by_name("node0/nic0"), dst = t.device_by_name("node5/nic0");
  CHECK(router.hops(src, dst) == 5);
  CHECK(router.path_count(src, dst) == 2);
  std::set<std::string> via;
  for (const Route& r : router.all_routes(src, dst))
    for (DeviceId d : devices_on(t, r)) via.insert(t.device(d).name);
  CHECK(via == std::set<std::string>{"g0r0", "g0r1", "g2r0", "g1r0", "g1r1", "g2r1", "node5/nic0"});
}

TEST_CASE("two hosts through one switch: gpu, nic, switch, nic, gpu, latency summed, bottleneck the "
          "slowest link, overhead the largest",
          "[routing]") {
  Cluster c;
  auto [gpu0, nic0] = c.simple_host("node0");
  auto [gpu1, nic1] = c.simple_host("node1");
  const DeviceId leaf = c.add("leaf0", DeviceKind::Leaf, kNoHost, 1);
  c.link(nic0, leaf, LinkKind::IbNdr);
  c.link(nic1, leaf, LinkKind::IbNdr);
  const Router router(c.t);

  const Route r = router.route(gpu0, gpu1);
  CHECK(devices_on(c.t, r) == std::vector<DeviceId>{nic0, leaf, nic1, gpu1});
  CHECK(c.t.direction_source(r.directions.front()) == gpu0);
  const LinkDefaults& pcie = link_defaults(LinkKind::Pcie4);
  const LinkDefaults& ib = link_defaults(LinkKind::IbNdr);
  CHECK(r.latency == pcie.hop_latency * 2 + ib.hop_latency * 2);
  CHECK(r.bottleneck == pcie.per_lane * double(pcie.default_lanes));
  CHECK(r.overhead == ib.rdma_overhead);
  CHECK(router.hops(gpu0, gpu1) == 4);
  CHECK(router.path_count(gpu0, gpu1) == 1);
  CHECK(router.hops(gpu0, gpu0) == 0);
  CHECK_THROWS_AS(router.route(gpu0, gpu0), std::invalid_argument);
}

TEST_CASE("leaf-spine with two spines: two equal-cost paths between racks, Hash spreads flow keys over "
          "both spines, First always takes the lowest link",
          "[routing]") {
  LeafSpine ls;
  const DeviceId a = ls.gpus[0], b = ls.gpus[1];
  const Router hashed(ls.c.t, EcmpPolicy::Hash, 7);
  const Router first(ls.c.t, EcmpPolicy::First);
  CHECK(hashed.hops(a, b) == 6);
  CHECK(hashed.path_count(a, b) == 2);

  auto spine_of = [&](const Route& r) {
    for (DeviceId d : devices_on(ls.c.t, r))
      if (ls.c.t.device(d).kind == DeviceKind::Spine) return d;
    FAIL("route has no spine");
    return DeviceId{};
  };
  constexpr int kFlows = 64;
  std::set<DeviceId> hashed_spines, first_spines;
  for (std::uint64_t key = 0; key < kFlows; ++key) {
    hashed_spines.insert(spine_of(hashed.route(a, b, key)));
    first_spines.insert(spine_of(first.route(a, b, key)));
  }
  CHECK(hashed_spines == std::set<DeviceId>{ls.spine0, ls.spine1});
  CHECK(first_spines == std::set<DeviceId>{ls.spine0});

  const auto all = hashed.all_routes(a, b);
  REQUIRE(all.size() == 2);
  CHECK(spine_of(all[0]) == ls.spine0);
  CHECK(spine_of(all[1]) == ls.spine1);
  CHECK(hashed.all_routes(a, b, 1).size() == 1);
}

TEST_CASE("within a rack the route turns at the leaf and never climbs to a spine", "[routing]") {
  LeafSpine ls(2);
  const Router router(ls.c.t);
  CHECK(router.hops(ls.gpus[0], ls.gpus[1]) == 4);
  CHECK(router.path_count(ls.gpus[0], ls.gpus[1]) == 1);
}

TEST_CASE("the same arguments always give the same route, across routers too", "[routing]") {
  LeafSpine ls;
  const Router r1(ls.c.t, EcmpPolicy::Hash, 3);
  const Router r2(ls.c.t, EcmpPolicy::Hash, 3);
  for (std::uint64_t key = 0; key < 16; ++key) {
    const Route x = r1.route(ls.gpus[0], ls.gpus[1], key);
    CHECK(x.directions == r1.route(ls.gpus[0], ls.gpus[1], key).directions);
    CHECK(x.directions == r2.route(ls.gpus[0], ls.gpus[1], key).directions);
  }
}

TEST_CASE("GPUs never forward: a GPU reachable only through another GPU is unreachable", "[routing]") {
  Cluster c;
  const HostId h0 = c.t.add_host("node0");
  const DeviceId gpu0 = c.add("node0/gpu0", DeviceKind::Gpu, h0);
  const DeviceId gpu1 = c.add("node0/gpu1", DeviceKind::Gpu, h0);
  const DeviceId nic = c.add("node0/nic0", DeviceKind::Nic, h0);
  c.link(gpu0, gpu1, LinkKind::NvLink4, 4);
  c.link(gpu1, nic, LinkKind::Pcie5);
  auto [remote, remote_nic] = c.simple_host("node1");
  c.link(nic, remote_nic, LinkKind::IbNdr);
  const Router router(c.t);

  CHECK(router.hops(gpu1, remote) == 3);
  CHECK_FALSE(router.hops(gpu0, remote).has_value());
  CHECK(router.path_count(gpu0, remote) == 0);
  CHECK(router.all_routes(gpu0, remote).empty());
  CHECK_THROWS_AS(router.route(gpu0, remote), std::invalid_argument);
  CHECK_THROWS_WITH(router.route(remote, gpu0), Catch::Contains("no route from node1/gpu0 to node0/gpu0"));

  SECTION("with a longer path through the CPU, the route takes it instead of crossing gpu1") {
    const DeviceId cpu = c.add("node0/cpu0", DeviceKind::Cpu, h0);
    c.link(gpu0, cpu, LinkKind::Pcie5);
    c.link(cpu, nic, LinkKind::Pcie5);
    const Router detour(c.t);
    const Route r = detour.route(gpu0, remote);
    CHECK(devices_on(c.t, r) == std::vector<DeviceId>{cpu, nic, remote_nic, remote});
  }
}

TEST_CASE("paths never transit a third host's internals", "[routing]") {
  // node0 -- node2 -- node1 by direct NIC cables (short), and node0 -- sw0 -- sw1 -- sw2 -- node1 (long).
  Cluster c;
  auto [a, a_nic] = c.simple_host("node0");
  auto [b, b_nic] = c.simple_host("node1");
  const HostId h2 = c.t.add_host("node2");
  const DeviceId m_nic0 = c.add("node2/nic0", DeviceKind::Nic, h2);
  const DeviceId m_nic1 = c.add("node2/nic1", DeviceKind::Nic, h2);
  const DeviceId m_cpu = c.add("node2/cpu0", DeviceKind::Cpu, h2);
  c.link(m_nic0, m_cpu, LinkKind::Pcie5);
  c.link(m_cpu, m_nic1, LinkKind::Pcie5);
  c.link(a_nic, m_nic0, LinkKind::IbNdr);
  c.link(m_nic1, b_nic, LinkKind::IbNdr);
  {
    const Router router(c.t);
    CHECK_FALSE(router.hops(a, b).has_value());
    CHECK(router.hops(a, m_cpu) == 3);  // node2's internals serve routes that end there
  }
  const DeviceId sw0 = c.add("sw0", DeviceKind::Leaf, kNoHost, 1);
  const DeviceId sw1 = c.add("sw1", DeviceKind::Spine, kNoHost, 2);
  const DeviceId sw2 = c.add("sw2", DeviceKind::Leaf, kNoHost, 1);
  c.link(a_nic, sw0, LinkKind::IbNdr);
  c.link(sw0, sw1, LinkKind::IbNdr);
  c.link(sw1, sw2, LinkKind::IbNdr);
  c.link(sw2, b_nic, LinkKind::IbNdr);
  const Router router(c.t);
  const Route r = router.route(a, b);
  CHECK(devices_on(c.t, r) == std::vector<DeviceId>{a_nic, sw0, sw1, sw2, b_nic, b});
  CHECK(router.hops(a, b) == 6);
}

TEST_CASE("within a host the route stays inside: GPU, NVSwitch, GPU", "[routing]") {
  RailCluster rc(2, 4, 1, 1);
  const Router router(rc.c.t);
  const Route r = router.route(rc.hosts[0].gpus[0], rc.hosts[0].gpus[3]);
  REQUIRE(r.directions.size() == 2);
  CHECK(rc.c.t.device(rc.c.t.direction_target(r.directions[0])).kind == DeviceKind::NvSwitch);
  CHECK(router.path_count(rc.hosts[0].gpus[0], rc.hosts[0].gpus[3]) == 1);
}

TEST_CASE("DGX A100: two GPUs on one PCIe switch talk over the NVSwitch, not PCIe (equal hop count)",
          "[routing]") {
  // GPU 0 and GPU 1 share PCIe switch 0: GPU-PCIe-GPU and GPU-NVSwitch-GPU are both 2 hops. NCCL
  // ranks NVLink paths first (PATH_NVL < PATH_PIX), and so must the router, whatever the flow key.
  const Topology t = make_cluster(generated(1, NodeTemplate::DgxA100, FabricKind::SingleSwitch));
  const std::vector<DeviceId> gpus = t.gpus();
  for (EcmpPolicy policy : {EcmpPolicy::Hash, EcmpPolicy::First}) {
    const Router router(t, policy);
    CHECK(router.path_count(gpus[0], gpus[1]) == 1);
    for (std::uint64_t key = 0; key < 16; ++key) {
      const Route r = router.route(gpus[0], gpus[1], key);
      REQUIRE(r.directions.size() == 2);
      CHECK(t.device(t.direction_target(r.directions[0])).kind == DeviceKind::NvSwitch);
      CHECK(r.bottleneck == t.link(Topology::direction_link(r.directions[0])).bandwidth);
    }
  }
}

TEST_CASE("rail-optimised hosts: each GPU sends and receives on the NIC of its own PCIe switch",
          "[routing]") {
  RailCluster rc(2, 4, 2, 2);
  const Topology& t = rc.c.t;
  const Router router(t);
  auto uses = [&](const Route& r, DeviceId d) {
    const auto on = devices_on(t, r);
    return std::find(on.begin(), on.end(), d) != on.end();
  };
  SECTION("same rail: gpu, pcie switch, nic, leaf, nic, pcie switch, gpu") {
    for (std::size_t g = 0; g < 4; ++g) {
      const Route r = router.route(rc.hosts[0].gpus[g], rc.hosts[1].gpus[g], g);
      CHECK(r.directions.size() == 6);
      CHECK(uses(r, rc.hosts[0].nics[g]));
      CHECK(uses(r, rc.hosts[1].nics[g]));
    }
  }
  SECTION("different rails: leave on the own rail, cross rails at a spine, enter on the receiver's rail") {
    for (std::uint64_t key = 0; key < 8; ++key) {
      const Route r = router.route(rc.hosts[0].gpus[0], rc.hosts[1].gpus[3], key);
      CHECK(r.directions.size() == 8);
      CHECK(uses(r, rc.hosts[0].nics[0]));
      CHECK(uses(r, rc.hosts[1].nics[3]));
    }
    CHECK(router.path_count(rc.hosts[0].gpus[0], rc.hosts[1].gpus[3]) == 2);  // one per spine
  }
}

TEST_CASE("a switch is a valid source or destination", "[routing]") {
  LeafSpine ls;
  const Router router(ls.c.t);
  CHECK(router.hops(ls.spine0, ls.gpus[0]) == 3);
  CHECK(router.hops(ls.gpus[0], ls.spine1) == 3);
  CHECK(router.hops(ls.spine0, ls.spine1) == 2);
  CHECK(router.path_count(ls.spine0, ls.spine1) == 2);
}

TEST_CASE("routing speed: an 8192-rank ring on 1024 rail-optimised hosts", "[.perf]") {
  constexpr int kHosts = 1024, kGpus = 8, kHostsPerLeaf = 32, kSpines = 64;
  const auto t0 = std::chrono::steady_clock::now();
  RailCluster rc(kHosts, kGpus, kHostsPerLeaf, kSpines);
  const auto t1 = std::chrono::steady_clock::now();
  const Router router(rc.c.t);
  std::vector<DeviceId> ring = rc.c.t.gpus();
  const auto t2 = std::chrono::steady_clock::now();
  std::size_t hops = 0;
  for (std::size_t i = 0; i < ring.size(); ++i) hops += router.route(ring[i], ring[(i + 1) % ring.size()]).directions.size();
  const auto t3 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < ring.size(); ++i) hops += router.route(ring[i], ring[(i + 1) % ring.size()], 1).directions.size();
  const auto t4 = std::chrono::steady_clock::now();
  using us = std::chrono::duration<double, std::micro>;
  WARN("devices " << rc.c.t.device_count() << ", links " << rc.c.t.link_count() << "; build "
                  << us(t1 - t0).count() / 1e3 << " ms, router " << us(t2 - t1).count() / 1e3 << " ms, "
                  << ring.size() << " routes cold " << us(t3 - t2).count() / 1e3 << " ms ("
                  << us(t3 - t2).count() / double(ring.size()) << " us each), warm "
                  << us(t4 - t3).count() / double(ring.size()) << " us each; hops " << hops);
  CHECK(hops > 0);
}

TEST_CASE("one Router shared by several threads gives the routes a private one gives", "[routing][threads]") {
  const Topology t = make_cluster(generated(16, NodeTemplate::DgxH100, FabricKind::LeafSpine, 4));
  const std::vector<DeviceId> gpus = t.gpus();
  auto all_routes = [&](const Router& router, std::size_t first, std::size_t stride) {
    std::vector<std::vector<DirectionId>> out;
    for (std::size_t i = first; i < gpus.size(); i += stride)
      for (std::size_t j = 0; j < gpus.size(); j += 7)
        if (i != j) out.push_back(router.route(gpus[i], gpus[j], i * 31 + j).directions);
    return out;
  };
  constexpr std::size_t kThreads = 4;
  const Router shared(t);  // cold caches: the threads race to fill them
  std::vector<std::vector<std::vector<DirectionId>>> got(kThreads);
  std::vector<std::thread> threads;
  for (std::size_t k = 0; k < kThreads; ++k)
    threads.emplace_back([&, k] { got[k] = all_routes(shared, k, kThreads); });
  for (std::thread& th : threads) th.join();
  for (std::size_t k = 0; k < kThreads; ++k) {
    const Router own(t);
    CHECK(got[k] == all_routes(own, k, kThreads));
  }
}

TEST_CASE("a warm router's shared source-zone tables and kept next hops give every pair the routes a fresh "
          "router gives it",
          "[routing]") {
  // Source-zone cost tables are reused across sources and destinations whose key (zone, exit costs,
  // destination inside the zone) is equal, and the next hops of a fabric device, or of a device in
  // the destination's zone past the source's, across sources and keys with the same destination. A
  // fresh router computes each pair's table from nothing; a warm one has served every other pair
  // first, in another order, so any dependency the keys missed would show up as a different route,
  // count or hop number (keying either kind of next hops by device alone does).
  const ClusterSpec spec = GENERATE(from_range(varied_clusters()));
  const Topology t = make_cluster(spec);
  std::vector<DeviceId> ends = t.gpus();
  for (DeviceId d = 0; d < t.device_count(); ++d)  // host 0's internals and every switch outside hosts
    if (t.device(d).kind != DeviceKind::Gpu && (t.device(d).host == 0 || t.device(d).host == kNoHost)) ends.push_back(d);
  const Router warm(t);
  for (std::size_t i = ends.size(); i-- > 0;)  // warm it up in the reverse order
    for (const DeviceId dst : ends)
      if (ends[i] != dst && warm.hops(ends[i], dst)) (void)warm.route(ends[i], dst, i);
  for (std::size_t i = 0; i < ends.size(); i += 3)
    for (std::size_t j = 0; j < ends.size(); j += 2) {
      const DeviceId src = ends[i], dst = ends[j];
      if (src == dst) continue;
      const Router fresh(t);
      REQUIRE(warm.hops(src, dst) == fresh.hops(src, dst));
      if (!fresh.hops(src, dst)) continue;
      CHECK(warm.path_count(src, dst) == fresh.path_count(src, dst));
      for (std::uint64_t key = 0; key < 3; ++key)
        CHECK(warm.route(src, dst, key).directions == fresh.route(src, dst, key).directions);
    }
}

TEST_CASE("routes() gives, key for key, the routes route() gives, under every ECMP policy", "[routing]") {
  // routes() plans a pair once and shares the source zone's next hops between its walks; any state
  // one walk left for the next (a hop kept under the wrong phase or device) would change a route.
  const ClusterSpec spec = GENERATE(from_range(varied_clusters()));
  const EcmpPolicy policy = GENERATE(EcmpPolicy::Channel, EcmpPolicy::Hash, EcmpPolicy::First);
  const Topology t = make_cluster(spec);
  const std::vector<DeviceId> gpus = t.gpus();
  const std::vector<std::uint64_t> keys = {0, 1, 2, 3, 4, 5, 6, 7, 13, 3, 0};
  const Router batch(t, policy, 11), single(t, policy, 11);
  std::size_t differing = 0;  // routes unlike their pair's first: the keys matter
  bool several = false;       // some pair has more than one shortest path
  for (std::size_t i = 0; i < gpus.size(); i += 3)
    for (std::size_t j = 1; j < gpus.size(); j += 2) {
      if (i == j) continue;
      several = several || single.path_count(gpus[i], gpus[j]) > 1;
      const std::vector<Route> got = batch.routes(gpus[i], gpus[j], keys);
      REQUIRE(got.size() == keys.size());
      for (std::size_t k = 0; k < keys.size(); ++k) {
        const Route want = single.route(gpus[i], gpus[j], keys[k]);
        CHECK(got[k].directions == want.directions);
        CHECK(got[k].latency == want.latency);
        CHECK(got[k].bottleneck == want.bottleneck);
        differing += k > 0 && got[k].directions != got[0].directions;
      }
    }
  if (policy != EcmpPolicy::First && several) CHECK(differing > 0);
  CHECK_THROWS_AS(batch.routes(gpus[0], gpus[0], keys), std::invalid_argument);
}
