// CompactSchedule: the closed-form ring schedule must be the explicit one, op for op, and simulate
// to the identical Result (time, per-link bytes and busy time, events, critical path, timeline), on
// an uncontended cluster with latency and overhead and on an oversubscribed fat tree where ranks are
// interleaved across nodes so that flows share NICs and uplinks.
#include <catch2/catch.hpp>

#include <sstream>
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

struct Fabric {
  std::string name;
  Topology topology;
  std::vector<DeviceId> ranks;
};

/// 3 hosts x 3 GPUs on one leaf, every link 100 Gb/s, 1 us latency, 2 us per-message overhead.
Fabric uncontended() {
  test::Cluster c = test::leaf_cluster(3, 3, 100_Gbps, 1_us, 2_us);
  return Fabric{"leaf, 9 GPUs", std::move(c.topology), c.gpus};
}

/// 4 V100x4 nodes (one NIC each) on a 2:1 oversubscribed leaf-spine, ranks round-robin over the
/// nodes: every ring edge leaves its node, four flows share each NIC and the uplinks carry several.
Fabric contended() {
  ClusterSpec spec;
  spec.nodes = 4;
  spec.node = node_template(NodeTemplate::V100x4);
  spec.fabric.kind = FabricKind::LeafSpine;
  spec.fabric.nodes_per_leaf = 2;
  spec.fabric.spines = 1;
  spec.fabric.oversubscription = 2.0;
  Fabric f{"contended leaf-spine, 16 GPUs", make_cluster(spec), {}};
  const std::vector<DeviceId> gpus = f.topology.gpus();
  for (std::size_t g = 0; g < 4; ++g)
    for (std::size_t node = 0; node < 4; ++node) f.ranks.push_back(gpus[node * 4 + g]);
  return f;
}

void require_same_ops(const Schedule& expected, const CompactSchedule& compact) {
  REQUIRE(compact.op_count() == expected.ops().size());
  REQUIRE(compact.channel_count() == expected.channel_count());
  REQUIRE(compact.rank_count() == expected.rank_count());
  for (OpId id = 0; id < expected.ops().size(); ++id) {
    const Op& e = expected.op(id);
    const Op c = compact.op(id);
    INFO("op #" << id);
    REQUIRE(c.kind == e.kind);
    REQUIRE(compact.kind(id) == e.kind);
    REQUIRE(c.at == e.at);
    REQUIRE(c.peer == e.peer);
    REQUIRE(c.first == e.first);
    REQUIRE(c.count == e.count);
    REQUIRE(c.src == e.src);
    REQUIRE(c.dst == e.dst);
    REQUIRE(c.mode == e.mode);
    REQUIRE(c.bytes == e.bytes);
    REQUIRE(c.match == e.match);
    REQUIRE(c.channel == e.channel);
    REQUIRE(c.step == e.step);
    REQUIRE(c.dep_count == e.dep_count);
    const std::span<const OpId> deps = expected.deps(id);
    const OpPair got = compact.deps(id);
    REQUIRE(std::vector<OpId>(deps.begin(), deps.end()) == std::vector<OpId>(got.view().begin(), got.view().end()));
  }
}

/// Successors as the simulator derives them from the explicit schedule: deps reversed, plus a
/// Send's matched Recv, ascending.
void require_same_successors(const Schedule& expected, const CompactSchedule& compact) {
  std::vector<std::vector<OpId>> succ(expected.ops().size());
  for (OpId id = 0; id < expected.ops().size(); ++id) {
    for (OpId d : expected.deps(id)) succ[d].push_back(id);
    if (expected.op(id).kind == OpKind::Recv) succ[expected.op(id).match].push_back(id);
  }
  for (OpId id = 0; id < expected.ops().size(); ++id) {
    INFO("op #" << id);
    const OpPair got = compact.successors(id);
    REQUIRE(std::vector<OpId>(got.view().begin(), got.view().end()) == succ[id]);
  }
}

}  // namespace

TEST_CASE("compact ring schedules are the explicit ones, op for op, and simulate identically", "[compact]") {
  const Collective collective = GENERATE(Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather);
  const int channels = GENERATE(1, 2, 3);
  const Bytes chunk = GENERATE(0_B, 4_KiB);
  const bool busy_fabric = GENERATE(false, true);
  const Fabric f = busy_fabric ? contended() : uncontended();
  const std::size_t p = GENERATE(2, 3, 5, 8);
  const std::vector<DeviceId> ranks(f.ranks.begin(), f.ranks.begin() + std::ptrdiff_t(p));
  CollectiveSpec spec;
  spec.collective = collective;
  spec.message = Bytes{std::int64_t(p) * 3 * 4000};  // whole fp32 elements, uneven blocks for some p
  spec.channels = channels;
  spec.chunk = chunk;
  // Channel rings: none, one reversed ring for every channel, or a reversed and an interleaved one
  // (channel c takes ring c mod 2).
  const int rings = GENERATE(0, 1, 2);
  std::vector<int> reversed, interleaved;
  for (int k = 0; k < int(p); ++k) reversed.push_back(int(p) - 1 - k);
  for (int k = 0; k < int(p); k += 2) interleaved.push_back(k);
  for (int k = 1; k < int(p); k += 2) interleaved.push_back(k);
  if (rings >= 1) spec.channel_rings.push_back(reversed);
  if (rings >= 2) spec.channel_rings.push_back(interleaved);
  INFO(f.name << ", " << to_string(collective) << ", p=" << p << ", channels=" << channels
               << ", chunk=" << to_string(chunk) << ", channel rings=" << rings);

  const auto compact = build_compact_schedule(f.topology, ranks, spec);
  REQUIRE(compact.has_value());
  const Schedule expected = build_schedule(f.topology, ranks, spec);
  require_same_ops(expected, *compact);
  require_same_successors(expected, *compact);

  std::ostringstream printed_expected, printed_compact;
  expected.print(printed_expected, &f.topology);
  compact->print(printed_compact, &f.topology);
  REQUIRE(printed_compact.str() == printed_expected.str());

  for (Endpoint e = 0; e < p; ++e) {
    std::vector<CompactOpId> at_e;
    for (OpId id = 0; id < expected.ops().size(); ++id)
      if (expected.op(id).at == e) at_e.push_back(id);
    REQUIRE(compact->rank_ops(e) == at_e);
  }

  SimOptions options;
  options.record_timeline = GENERATE(false, true);
  options.check_invariants = true;
  Simulator sim(f.topology, options);
  SimOptions unfolded = options;  // the explicit schedule op by op (its channels would fold)
  unfolded.fold_channels = false;
  const Result explicit_result = Simulator(f.topology, unfolded).run(expected);
  const Result compact_result = sim.run(*compact);
  REQUIRE(explicit_result.time > Duration{});
  test::require_same_result(explicit_result, compact_result);
  test::require_same_result(explicit_result, Simulator(f.topology, unfolded).run(compact->expand()));
}

TEST_CASE("compact ring schedule, closed form: 2(p-1) steps of N/p at B plus alpha per step", "[compact]") {
  // Full mesh, no contention, compute off: t = 2(p-1) * (N/(pB) + latency + overhead).
  const int p = 8;
  test::Cluster c = test::full_mesh(p, 100_Gbps, 1_us, 2_us);
  CollectiveSpec spec;
  spec.message = 64_MiB;
  const auto compact = build_compact_schedule(c.topology, c.gpus, spec);
  REQUIRE(compact.has_value());
  REQUIRE(compact->op_count() == 5u * p * (p - 1));
  SimOptions options;
  options.calibration.model_compute = false;
  const Result r = Simulator(c.topology, options).run(*compact);
  const double step = double(spec.message.count()) / p * 8.0 / (100_Gbps).bits_per_second() + 3e-6;
  REQUIRE(r.time.seconds() == Approx(2.0 * (p - 1) * step).epsilon(1e-9));
}

TEST_CASE("compact schedules cover uncompressed ring allreduce/reduce-scatter/allgather only", "[compact]") {
  test::Cluster c = test::leaf_cluster(2, 4, 100_Gbps, 1_us);
  CollectiveSpec spec;
  spec.message = 1_MiB;
  CHECK(build_compact_schedule(c.topology, c.gpus, spec).has_value());
  SECTION("other algorithms") {
    spec.algorithm = Algorithm::Tree;
    CHECK_FALSE(build_compact_schedule(c.topology, c.gpus, spec).has_value());
  }
  SECTION("broadcast is a chain, not a ring") {
    spec.collective = Collective::Broadcast;
    CHECK_FALSE(build_compact_schedule(c.topology, c.gpus, spec).has_value());
  }
  SECTION("compressed payloads") {
    spec.payload.compression = Compression::quantize(DataType::Fp8);
    CHECK_FALSE(build_compact_schedule(c.topology, c.gpus, spec).has_value());
  }
  SECTION("empty blocks (fewer elements than ranks): the builder skips them") {
    spec.message = Bytes{4 * 5};
    CHECK_FALSE(build_compact_schedule(c.topology, c.gpus, spec).has_value());
  }
  SECTION("a single rank") {
    CHECK_FALSE(build_compact_schedule(c.topology, std::span<const DeviceId>(c.gpus).first(1), spec).has_value());
  }
  SECTION("invalid specs throw like build_schedule") {
    spec.channels = 0;
    CHECK_THROWS_AS(build_compact_schedule(c.topology, c.gpus, spec), std::invalid_argument);
  }
}
