// SimGrid cross-check: the same Schedule on ringlab's engine and on SimGrid 3.32 (SimgridSimulator).
//
// Pure model: SimGrid's CM02 without correction factors is plain max-min sharing, the model ringlab
// implements, so both engines must agree within 1% on cases with contention (oversubscribed uplinks,
// interleaved rank orders, several algorithms). Default model (LV08): the difference follows from
// its factors, derived in closed form for a ring on a star below.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "collective_fixtures.hpp"
#include "ringlab/sim/collectives.hpp"
#include "ringlab/sim/simgrid_engine.hpp"
#include "ringlab/sim/simulator.hpp"
#include "ringlab/topology/generators.hpp"
#include "ringlab/topology/routing.hpp"
#include "ringlab/topology/scenario.hpp"

using namespace ringlab;
using namespace ringlab::sim;
using namespace ringlab::literals;

namespace {

constexpr double kAgreement = 0.01;  ///< the cross-check's acceptance: 1%

SimOptions options_first_path(bool compute = true) {
  SimOptions o;
  o.ecmp = EcmpPolicy::First;
  o.calibration.model_compute = compute;
  return o;
}

struct Pair {
  Result ringlab;
  Result simgrid;
};

Pair both(const Topology& t, const Schedule& s, const SimOptions& o, SimgridModel model = SimgridModel::Pure) {
  return Pair{Simulator(t, o).run(s), SimgridSimulator(t, o, model).run(s)};
}

/// Two racks, each a ToR with 4 single-GPU hosts (GPU - NIC - ToR at 100 Gb/s) and ONE 100 Gb/s
/// uplink to a core (contention_test.cpp), with 1 us hop latency and 2 us per-message overhead.
struct TwoRacks {
  Topology topology;
  std::vector<DeviceId> contiguous;
  std::vector<DeviceId> interleaved;
};

TwoRacks two_racks() {
  TwoRacks t;
  const Bandwidth bw = 100_Gbps;
  const Duration lat = 1_us;
  const Duration ovh = 2_us;
  const DeviceId core = test::add(t.topology, "core0", DeviceKind::Core);
  std::vector<std::vector<DeviceId>> gpus(2);
  for (int r = 0; r < 2; ++r) {
    const RackId rack = t.topology.add_rack("rack" + std::to_string(r));
    const DeviceId tor = test::add(t.topology, "tor" + std::to_string(r), DeviceKind::Leaf, kNoHost, rack);
    t.topology.add_link(test::custom_link(tor, core, bw, lat, ovh));
    for (int h = 0; h < 4; ++h) {
      const std::string name = "r" + std::to_string(r) + "h" + std::to_string(h);
      const HostId host = t.topology.add_host(name, rack);
      const DeviceId gpu = test::add(t.topology, name + "/gpu0", DeviceKind::Gpu, host, rack, 0);
      const DeviceId nic = test::add(t.topology, name + "/nic0", DeviceKind::Nic, host, rack, 0);
      t.topology.add_link(test::custom_link(gpu, nic, bw, lat, ovh));
      t.topology.add_link(test::custom_link(nic, tor, bw, lat, ovh));
      gpus[std::size_t(r)].push_back(gpu);
    }
  }
  for (int r = 0; r < 2; ++r)
    for (int h = 0; h < 4; ++h) t.contiguous.push_back(gpus[std::size_t(r)][std::size_t(h)]);
  for (int h = 0; h < 4; ++h)
    for (int r = 0; r < 2; ++r) t.interleaved.push_back(gpus[std::size_t(r)][std::size_t(h)]);
  return t;
}

/// 4 leaves x 2 nodes of 2 GPUs (PCIe, 1 NIC at 100 GbE), 2 spines, 2:1 oversubscribed leaf uplinks.
Topology leaf_spine() {
  ClusterSpec spec;
  spec.nodes = 8;
  spec.node.gpus = 2;
  spec.node.nics = 1;
  spec.node.pcie_switches = 1;
  spec.fabric.kind = FabricKind::LeafSpine;
  spec.fabric.nodes_per_leaf = 2;
  spec.fabric.spines = 2;
  spec.fabric.oversubscription = 2.0;
  return make_cluster(spec);
}

/// Ranks dealt round-robin over the leaves' hosts, so neighbours sit on different leaves.
std::vector<DeviceId> interleaved_by_leaf(const Topology& t) {
  const std::vector<DeviceId> gpus = t.gpus();  // host-major: node0 gpu0, gpu1, node1 ...
  const std::size_t per_leaf = 4;               // 2 nodes x 2 GPUs
  std::vector<DeviceId> order;
  for (std::size_t i = 0; i < per_leaf; ++i)
    for (std::size_t leaf = 0; leaf * per_leaf < gpus.size(); ++leaf) order.push_back(gpus[leaf * per_leaf + i]);
  return order;
}

}  // namespace

TEST_CASE("simgrid pure model: ring across two racks with one uplink each agrees within 1%, interleaved 4x slower",
          "[simgrid]") {
  const TwoRacks t = two_racks();
  CollectiveSpec spec;
  spec.message = 64_MiB;
  const SimOptions o = options_first_path(false);
  const Pair fast = both(t.topology, build_schedule(t.topology, t.contiguous, spec), o);
  const Pair slow = both(t.topology, build_schedule(t.topology, t.interleaved, spec), o);
  CHECK(fast.simgrid.time.seconds() == Approx(fast.ringlab.time.seconds()).epsilon(kAgreement));
  CHECK(slow.simgrid.time.seconds() == Approx(slow.ringlab.time.seconds()).epsilon(kAgreement));
  // Independent of either engine: 4 flows share each uplink direction when interleaved, so the
  // bandwidth term is 4x; the per-step alpha (2 us overhead + 4 or 6 hops of 1 us) is small.
  CHECK(slow.simgrid.time / fast.simgrid.time == Approx(4.0).epsilon(0.02));
}

TEST_CASE("simgrid pure model: the two-racks-40g scenario in rack-contiguous and interleaved ring orders agrees "
          "within 1%", "[simgrid]") {
  const Scenario scenario = load_scenario(std::string(RINGLAB_SOURCE_DIR) + "/scenarios/two-racks-40g.json");
  const Topology& t = scenario.cluster;
  const std::vector<DeviceId> gpus = t.gpus();  // 8 nodes x 4 GPUs, racks of 4 nodes
  std::vector<DeviceId> interleaved;
  for (std::size_t i = 0; i < 16; ++i) {
    interleaved.push_back(gpus[i]);
    interleaved.push_back(gpus[i + 16]);
  }
  const auto order = GENERATE(as<std::string>{}, "contiguous", "interleaved");
  CollectiveSpec spec;
  spec.message = 64_MiB;
  const Schedule s = build_schedule(t, order == "contiguous" ? gpus : interleaved, spec);
  const Pair r = both(t, s, options_first_path());
  INFO(order << ": ringlab " << r.ringlab.time.microseconds() << " us, SimGrid " << r.simgrid.time.microseconds()
             << " us");
  CHECK(r.simgrid.time.seconds() == Approx(r.ringlab.time.seconds()).epsilon(kAgreement));
}

TEST_CASE("simgrid pure model: every algorithm on an oversubscribed leaf-spine with interleaved ranks agrees "
          "within 1%", "[simgrid]") {
  const Topology t = leaf_spine();
  const std::vector<DeviceId> ranks = interleaved_by_leaf(t);
  const Algorithm algorithm = GENERATE(Algorithm::Ring, Algorithm::Tree, Algorithm::HalvingDoubling,
                                       Algorithm::Direct, Algorithm::ParameterServer, Algorithm::Hierarchical);
  CollectiveSpec spec;
  spec.algorithm = algorithm;
  spec.message = 32_MiB;
  spec.chunk = 1_MiB;  // pipelined pieces: many overlapping flows
  const Schedule s = build_schedule(t, ranks, spec);
  const Pair r = both(t, s, options_first_path());
  INFO(to_string(algorithm) << ": ringlab " << r.ringlab.time.microseconds() << " us, SimGrid "
                            << r.simgrid.time.microseconds() << " us");
  CHECK(r.simgrid.time.seconds() == Approx(r.ringlab.time.seconds()).epsilon(kAgreement));
  CHECK(r.simgrid.flows == r.ringlab.flows);
  // Bytes per channel follow SimGrid's own routes; they match ringlab's exactly.
  REQUIRE(r.simgrid.directions.size() == r.ringlab.directions.size());
  for (std::size_t i = 0; i < r.ringlab.directions.size(); ++i) {
    CHECK(r.simgrid.directions[i].direction == r.ringlab.directions[i].direction);
    CHECK(r.simgrid.directions[i].bytes == r.ringlab.directions[i].bytes);
  }
}

TEST_CASE("simgrid default model (LV08) on a ring over a star: latency x13.01, bandwidth x0.97 and 5% "
          "crosstraffic, as derived", "[simgrid]") {
  // p single-GPU hosts on one switch, links B = 100 Gb/s, latency L = 1 us, no overhead. Ring flow
  // i -> i+1 crosses gpu_i->sw and sw->gpu_{i+1}; each of those channels also carries 5% of the
  // reverse flow's ack traffic (crosstraffic), so max-min gives every flow B/1.05, of which LV08
  // delivers 0.97. Latency 2L per message becomes 13.01 * 2L. Equal routes mean equal weight-S
  // penalties, and the TCP window bound 4 MiB / (2 * 2L) ~ 1 TB/s is far above B.
  const int p = 8;
  const Bandwidth b = 100_Gbps;
  const Duration lat = 1_us;
  test::Cluster c;
  const DeviceId sw = test::add(c.topology, "switch", DeviceKind::Leaf);
  for (int i = 0; i < p; ++i) {
    const HostId host = c.topology.add_host("node" + std::to_string(i));
    c.gpus.push_back(test::add(c.topology, "node" + std::to_string(i) + "/gpu0", DeviceKind::Gpu, host, kNoRack, 0));
    c.topology.add_link(test::custom_link(c.gpus.back(), sw, b, lat));
  }
  CollectiveSpec spec;
  spec.message = 256_MiB;
  const Schedule s = build_schedule(c.topology, c.gpus, spec);
  const SimOptions o = options_first_path(false);
  const Result pure = SimgridSimulator(c.topology, o, SimgridModel::Pure).run(s);
  const Result lv08 = SimgridSimulator(c.topology, o, SimgridModel::Default).run(s);
  const double piece = double(spec.message.count()) / p;  // bytes per ring step
  const double steps = 2.0 * (p - 1);
  const double pure_expected = steps * (piece / b.bytes_per_second() + 2 * lat.seconds());
  const double lv08_expected = steps * (piece / (b.bytes_per_second() / 1.05 * 0.97) + 13.01 * 2 * lat.seconds());
  CHECK(pure.time.seconds() == Approx(pure_expected).epsilon(1e-6));
  CHECK(lv08.time.seconds() == Approx(lv08_expected).epsilon(1e-3));
  CHECK(lv08.time / pure.time == Approx(1.05 / 0.97).epsilon(0.01));  // +8.2%, bandwidth-dominated
}

TEST_CASE("simgrid engine: runs are isolated child processes, so one process runs many, identically",
          "[simgrid]") {
  const TwoRacks t = two_racks();
  CollectiveSpec spec;
  spec.message = 8_MiB;
  spec.algorithm = Algorithm::Tree;
  SimOptions o = options_first_path();
  o.record_timeline = true;
  const Schedule s = build_schedule(t.topology, t.interleaved, spec);
  const SimgridSimulator sim(t.topology, o);
  const Result first = sim.run(s);
  const Result second = sim.run(s);
  CHECK(first.time == second.time);
  CHECK(first.critical_path == second.critical_path);
  REQUIRE(first.timeline.size() == s.ops().size());
  for (std::size_t i = 0; i < first.timeline.size(); ++i) CHECK(first.timeline[i].end == second.timeline[i].end);
  CHECK(first.critical_path.back() < s.ops().size());
  CHECK(first.timeline[first.critical_path.back()].end == first.time);
}

TEST_CASE("simgrid engine: channels of one device pair on different ECMP paths are refused, as SimGrid routes "
          "per host pair", "[simgrid]") {
  const Topology t = leaf_spine();
  const std::vector<DeviceId> ranks = interleaved_by_leaf(t);
  CollectiveSpec spec;
  spec.message = 8_MiB;
  spec.channels = 4;
  const Schedule s = build_schedule(t, ranks, spec);
  SimOptions o;  // ECMP hash
  // Independently: does any ring edge route differently on two of its channels?
  const Router router(t, o.ecmp, o.ecmp_seed);
  bool differs = false;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const DeviceId a = ranks[i];
    const DeviceId b = ranks[(i + 1) % ranks.size()];
    for (std::uint16_t ch = 1; ch < 4; ++ch)
      differs = differs || router.route(a, b, ch).directions != router.route(a, b, 0).directions;
  }
  REQUIRE(differs);  // 2 spines and 4 channels: the hash spreads them
  CHECK_THROWS_AS(SimgridSimulator(t, o).run(s), std::invalid_argument);
  o.ecmp = EcmpPolicy::First;
  CHECK(SimgridSimulator(t, o).run(s).time.seconds() == Approx(Simulator(t, o).run(s).time.seconds()).epsilon(kAgreement));
}

TEST_CASE("simgrid engine: detours that cost links more than their bytes are refused, plain detours agree",
          "[simgrid]") {
  // Two GPUs behind one PCIe switch staged through their CPU (as NCCL's SHM): SimGrid routes through
  // the CPU as ringlab does; with a PCIe cost (NCCL's Intel overhead) it cannot weigh the links.
  ClusterSpec spec;
  spec.nodes = 1;
  spec.node.gpus = 2;
  spec.node.cpus = 1;
  spec.node.pcie_switches = 1;
  spec.node.nics = 0;
  spec.fabric.kind = FabricKind::None;
  const Topology t = make_cluster(spec);
  const std::vector<DeviceId> ranks = t.gpus();
  CollectiveSpec cspec;
  cspec.message = 8_MiB;
  const Schedule s = build_schedule(t, ranks, cspec);
  const DeviceId cpu = t.find_device("node0/cpu0").value();
  SimOptions o = options_first_path(false);
  o.detours = [&](DeviceId, DeviceId, std::uint16_t) { return Detour{{cpu}}; };
  const Pair plain = both(t, s, o);
  CHECK(plain.simgrid.time.seconds() == Approx(plain.ringlab.time.seconds()).epsilon(kAgreement));
  o.detours = [&](DeviceId, DeviceId, std::uint16_t) { return Detour{{cpu}, 1.2, 2}; };
  CHECK_THROWS_WITH(SimgridSimulator(t, o).run(s), Catch::Contains("use the flow engine"));
  // The flow engine takes it: every byte takes 1.2 of each PCIe link, so the staged ring's bandwidth
  // term grows by 1.2 (no latency or compute here).
  const double costed = Simulator(t, o).run(s).time.seconds();
  CHECK(costed == Approx(1.2 * plain.ringlab.time.seconds()).epsilon(0.01));
  // A detour with a rate limit of its own (NCCL's socket transport's streams) is refused too; the
  // flow engine runs each transfer at the limit: a 2-rank ring sends each rank's 8 MiB at 1 GB/s.
  const Bandwidth limit = Bandwidth::from_bytes_per_second(1e9);
  o.detours = [&](DeviceId, DeviceId, std::uint16_t) { return Detour{{cpu}, 1.0, 0, limit}; };
  CHECK_THROWS_WITH(SimgridSimulator(t, o).run(s), Catch::Contains("rate limit of their own"));
  REQUIRE(plain.ringlab.time.seconds() < 0.1 * (8_MiB / limit).seconds());
  CHECK(Simulator(t, o).run(s).time.seconds() == Approx((8_MiB / limit).seconds()).epsilon(0.01));
}
