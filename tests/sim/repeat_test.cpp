// The exact repeat shortcut (SimOptions::exact_shortcuts): a compact ring run that skips steps which
// repeat the previous one must give the full simulation's Result to the picosecond and the byte:
// time, per-direction bytes, busy time and utilisation, bottlenecks, critical path, per-rank finish,
// event/flow/reallocation counts. Checked on random clusters (generated DGX-style fabrics with
// random oversubscription and ECMP, and hand-built leaf clusters with random, sometimes unequal,
// link speeds, latencies and overheads: stragglers), random rank orders, collectives, sizes (block
// sizes equal and unequal), channels and pipeline chunks. The shortcut must also fire: most
// symmetric cases skip steps, or the test proves nothing.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "collective_fixtures.hpp"
#include "result_checks.hpp"
#include "ringlab/sim/collectives.hpp"
#include "ringlab/sim/compact_schedule.hpp"
#include "ringlab/sim/simulator.hpp"
#include "ringlab/topology/generators.hpp"

using namespace ringlab;
using namespace ringlab::sim;
using namespace ringlab::literals;

namespace {

struct Case {
  std::string name;
  Topology topology;
  std::vector<DeviceId> ranks;
  CollectiveSpec spec;
  SimOptions options;
};

/// Hosts on leaves under one spine; each host has `gpus` GPUs on an NVSwitch, one NIC per GPU.
/// Link speeds: NVSwitch 400 Gb/s, NIC and uplinks `nic` unless `straggler` picks one NIC link at
/// a quarter of it. Latency and overhead per link as given.
Topology leaf_fabric(int leaves, int hosts_per_leaf, int gpus, Bandwidth nic, Duration lat, Duration ovh,
                     int straggler) {
  using test::add;
  using test::custom_link;
  Topology t;
  const RackId rack = t.add_rack("rack0");
  const DeviceId spine = add(t, "spine", DeviceKind::Spine, kNoHost, rack);
  int nic_index = 0;
  for (int l = 0; l < leaves; ++l) {
    const DeviceId leaf = add(t, "leaf" + std::to_string(l), DeviceKind::Leaf, kNoHost, rack);
    t.add_link(custom_link(leaf, spine, Bandwidth::from_bits_per_second(nic.bits_per_second() * hosts_per_leaf), lat,
                           ovh));
    for (int h = 0; h < hosts_per_leaf; ++h) {
      const std::string node = "l" + std::to_string(l) + "h" + std::to_string(h);
      const HostId host = t.add_host(node, rack);
      const DeviceId nvswitch = add(t, node + "/nvswitch", DeviceKind::NvSwitch, host, rack, 0);
      for (int g = 0; g < gpus; ++g) {
        const DeviceId gpu = add(t, node + "/gpu" + std::to_string(g), DeviceKind::Gpu, host, rack, g);
        const DeviceId n = add(t, node + "/nic" + std::to_string(g), DeviceKind::Nic, host, rack, g);
        const Bandwidth speed =
            nic_index++ == straggler ? Bandwidth::from_bits_per_second(nic.bits_per_second() / 4) : nic;
        t.add_link(custom_link(gpu, nvswitch, 400_Gbps, lat, ovh));
        t.add_link(custom_link(gpu, n, speed, lat, ovh));
        t.add_link(custom_link(n, leaf, speed, lat, ovh));
      }
    }
  }
  return t;
}

Topology generated_fabric(std::mt19937_64& rng) {
  const NodeTemplate templates[] = {NodeTemplate::DgxH100, NodeTemplate::DgxA100, NodeTemplate::V100x4,
                                    NodeTemplate::Pcie8};
  ClusterSpec spec;
  spec.node = node_template(templates[rng() % 4]);
  spec.fabric.kind = FabricKind::LeafSpine;
  spec.fabric.nodes_per_leaf = 1 + int(rng() % 3);
  spec.nodes = spec.fabric.nodes_per_leaf * (1 + int(rng() % 3));
  spec.fabric.spines = 1 + int(rng() % 3);
  spec.fabric.oversubscription = rng() % 2 ? 1.0 : 3.0;
  return make_cluster(spec);
}

Case random_case(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Case c;
  const bool generated = rng() % 2;
  const int straggler = rng() % 4 == 0 ? int(rng() % 8) : -1;
  c.topology = generated ? generated_fabric(rng)
                         : leaf_fabric(1 + int(rng() % 3), 1 + int(rng() % 3), 2 + int(rng() % 3),
                                       rng() % 2 ? 100_Gbps : 200_Gbps, Duration::from_ns(double(rng() % 3000)),
                                       Duration::from_ns(double(rng() % 2) * 1500.0), straggler);
  c.ranks = c.topology.gpus();
  switch (rng() % 3) {
    case 0: break;  // host by host
    case 1: std::shuffle(c.ranks.begin(), c.ranks.end(), rng); break;
    default: std::reverse(c.ranks.begin(), c.ranks.end()); break;
  }
  if (c.ranks.size() > 48) c.ranks.resize(48);
  const auto p = std::int64_t(c.ranks.size());
  const Collective collectives[] = {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather};
  c.spec.collective = collectives[rng() % 3];
  c.spec.algorithm = Algorithm::Ring;
  c.spec.channels = 1 + int(rng() % 3);
  // Equal blocks (a multiple of p elements per channel) or not, with or without pipeline chunks.
  const std::int64_t elements = p * c.spec.channels * (64 + std::int64_t(rng() % 4096)) + (rng() % 2 ? 0 : std::int64_t(rng() % 97));
  c.spec.message = Bytes{elements * 4};
  if (rng() % 3 == 0) c.spec.chunk = Bytes{std::int64_t(4096) << (rng() % 4)};
  c.options.ecmp = rng() % 2 ? EcmpPolicy::Hash : EcmpPolicy::First;
  c.options.ecmp_seed = rng();
  c.options.record_rank_finish = true;
  if (rng() % 4 == 0) c.options.max_flow_rate = 50_Gbps;
  c.name = "seed " + std::to_string(seed) + ": " + std::to_string(p) + " ranks, " + std::string(to_string(c.spec.collective)) +
           ", " + std::to_string(c.spec.channels) + " channel(s), " + to_string(c.spec.message) +
           (generated ? ", generated fabric" : ", leaf fabric") + (straggler >= 0 ? " with a straggler link" : "");
  return c;
}

}  // namespace

TEST_CASE("repeat shortcut: random clusters, orders and sizes give the full simulation's result exactly", "[repeat]") {
  constexpr std::uint64_t kCases = 200;
  int skipped = 0;
  for (std::uint64_t seed = 1; seed <= kCases; ++seed) {
    Case c = random_case(seed);
    INFO(c.name);
    const std::optional<CompactSchedule> schedule = build_compact_schedule(c.topology, c.ranks, c.spec);
    REQUIRE(schedule);
    SimOptions full_options = c.options;
    full_options.exact_shortcuts = false;
    const Result full = Simulator(c.topology, full_options).run(*schedule);
    const Result fast = Simulator(c.topology, c.options).run(*schedule);
    REQUIRE(full.events_repeated == 0);
    test::require_same_result(full, fast);
    if (fast.events_repeated > 0) ++skipped;
  }
  WARN(skipped << " of " << kCases << " cases skipped repeated steps");
  // Not every case can repeat (unequal blocks, shuffled orders that never settle), but many must.
  CHECK(skipped >= int(kCases) / 8);
}

TEST_CASE("repeat shortcut: a symmetric ring skips most of its steps and stays exact", "[repeat]") {
  // 8 hosts x 4 GPUs on one leaf, 100 Gb/s NICs, 1 us latency, 1.5 us overhead, 64 MiB allreduce:
  // every ring edge between hosts has the same route length, so the ring settles within a few steps.
  const Topology t = leaf_fabric(1, 8, 4, 100_Gbps, 1_us, Duration::from_ns(1500), -1);
  CollectiveSpec spec;
  spec.message = 64_MiB;
  const std::optional<CompactSchedule> schedule = build_compact_schedule(t, t.gpus(), spec);
  REQUIRE(schedule);
  REQUIRE(schedule->uniform_steps());
  SimOptions off;
  off.exact_shortcuts = false;
  off.record_rank_finish = true;
  SimOptions on = off;
  on.exact_shortcuts = true;
  const Result full = Simulator(t, off).run(*schedule);
  const Result fast = Simulator(t, on).run(*schedule);
  test::require_same_result(full, fast);
  CHECK(fast.events_repeated > fast.events / 2);

  SECTION("a timeline needs every op, so it turns the shortcut off") {
    on.record_timeline = true;
    CHECK(Simulator(t, on).run(*schedule).events_repeated == 0);
  }
}

TEST_CASE("repeat shortcut: a straggler link is simulated exactly", "[repeat]") {
  // One NIC link at a quarter of the speed: the others wait for it every step.
  const Topology t = leaf_fabric(2, 2, 4, 100_Gbps, 1_us, 1_us, 5);
  for (const Collective collective : {Collective::AllReduce, Collective::AllGather}) {
    CollectiveSpec spec;
    spec.collective = collective;
    spec.message = 16_MiB;
    spec.channels = 2;
    const std::optional<CompactSchedule> schedule = build_compact_schedule(t, t.gpus(), spec);
    REQUIRE(schedule);
    SimOptions off;
    off.exact_shortcuts = false;
    off.record_rank_finish = true;
    SimOptions on = off;
    on.exact_shortcuts = true;
    test::require_same_result(Simulator(t, off).run(*schedule), Simulator(t, on).run(*schedule));
  }
}

