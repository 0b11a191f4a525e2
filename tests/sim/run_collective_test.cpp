// run_collective(): reasons instead of exceptions, one NCCL choice, the fastest of "auto", the
// compact and explicit paths agreeing, engines plugged in, progress and cancellation.
#include <catch2/catch.hpp>

#include <atomic>
#include <string>

#include "collective_fixtures.hpp"
#include "result_checks.hpp"
#include "ringlab/sim/nccl_env.hpp"
#include "ringlab/sim/nccl_tuning.hpp"
#include "ringlab/sim/run_collective.hpp"
#include "ringlab/sim/simgrid_engine.hpp"

using namespace ringlab;
using namespace ringlab::sim;
using namespace ringlab::literals;

namespace {

CollectiveRequest request_on(const test::Cluster& c, int ranks, Bytes size) {
  CollectiveRequest r;
  r.message = size;
  r.order.ranks.assign(c.gpus.begin(), c.gpus.begin() + ranks);
  return r;
}

/// Every size of a sweep, in order (keeping the schedule of every third), against run_collective()
/// on that size alone: the same outcome, field for field.
void require_sweep_matches(const Topology& t, const CollectiveRequest& request, std::initializer_list<Bytes> sizes) {
  CollectiveSweep sweep(t, request);
  int i = 0;
  for (const Bytes size : sizes) {
    const bool keep = i++ % 3 == 2;
    INFO("size " << size.count() << (keep ? " (schedule kept)" : ""));
    const CollectiveOutcome swept = sweep.run(size, keep);
    CollectiveRequest alone = request;
    alone.message = size;
    alone.keep_schedule = keep;
    const CollectiveOutcome single = run_collective(t, alone);
    REQUIRE(swept.not_applicable == single.not_applicable);
    REQUIRE(swept.applicable() == single.applicable());
    CHECK(swept.algorithm == single.algorithm);
    CHECK(swept.protocol == single.protocol);
    CHECK(swept.channels == single.channels);
    CHECK(swept.chunk == single.chunk);
    REQUIRE(swept.candidates.size() == single.candidates.size());
    for (std::size_t k = 0; k < swept.candidates.size(); ++k)
      CHECK(swept.candidates[k].time == single.candidates[k].time);
    REQUIRE(bool(swept.schedule) == bool(single.schedule));
    if (swept.schedule) CHECK(swept.schedule->ops().size() == single.schedule->ops().size());
    if (!swept.applicable()) continue;
    CHECK(swept.result->algorithm == single.result->algorithm);
    test::require_same_result(*swept.result, *single.result);
  }
}

}  // namespace

TEST_CASE("an algorithm that does not apply is a returned reason, not an exception", "[run_collective]") {
  const test::Cluster c = test::leaf_cluster(3, 4, 100_Gbps, Duration::from_us(1));
  CollectiveRequest r = request_on(c, 12, 1_MiB);
  r.algorithm = Algorithm::HalvingDoubling;
  CollectiveOutcome out;
  REQUIRE_NOTHROW(out = run_collective(c.topology, r));
  CHECK_FALSE(out.applicable());
  CHECK_THAT(out.not_applicable, Catch::Contains("power"));
  CHECK_FALSE(out.engine_refused);

  r.algorithm = Algorithm::Tree;
  r.collective = Collective::ReduceScatter;
  out = run_collective(c.topology, r);
  CHECK_FALSE(out.applicable());
  CHECK_FALSE(out.not_applicable.empty());
}

TEST_CASE("auto keeps the fastest applicable algorithm and lists every candidate", "[run_collective]") {
  const test::Cluster c = test::leaf_cluster(3, 4, 100_Gbps, Duration::from_us(2), Duration::from_us(1));
  CollectiveRequest r = request_on(c, 12, 4_MiB);
  r.choice = AlgorithmChoice::Auto;
  const CollectiveOutcome best = run_collective(c.topology, r);
  REQUIRE(best.applicable());
  REQUIRE(best.candidates.size() == std::size_t(kAlgorithmCount));
  Duration fastest = Duration::max();
  int applicable = 0;
  for (const Candidate& k : best.candidates) {
    if (!k.time) {
      CHECK_FALSE(k.not_applicable.empty());
      continue;
    }
    ++applicable;
    fastest = std::min(fastest, *k.time);
  }
  CHECK(applicable >= 5);  // at least ring, tree, hierarchical, direct, reduce_broadcast on 12 ranks
  CHECK(best.result->time == fastest);
  // The winner, asked for by name, gives the same time.
  CollectiveRequest fixed = request_on(c, 12, 4_MiB);
  fixed.algorithm = best.algorithm;
  if (best.algorithm != Algorithm::Nccl) CHECK(run_collective(c.topology, fixed).result->time == fastest);
}

TEST_CASE("nccl resolves NCCL's choice once and runs it, compact or explicit alike", "[run_collective]") {
  const test::Cluster c = test::leaf_cluster(4, 2, 100_Gbps, Duration::from_us(1), Duration::from_us(2));
  CollectiveRequest r = request_on(c, 8, 64_MiB);
  r.algorithm = Algorithm::Nccl;
  r.options.calibration = Calibration::nccl();
  const NcclChoice choice = nccl_choose(c.topology, r.order.ranks, Collective::AllReduce, 64_MiB);
  const CollectiveOutcome compact = run_collective(c.topology, r);
  REQUIRE(compact.applicable());
  CHECK(compact.result->algorithm == "nccl:" + choice.name);
  CHECK(compact.protocol == choice.protocol);
  CHECK(compact.channels == choice.channels);
  CHECK(compact.chunk == choice.chunk);
  r.keep_schedule = true;  // forces the explicit schedule
  const CollectiveOutcome expl = run_collective(c.topology, r);
  REQUIRE(expl.schedule);
  CHECK(expl.schedule->algorithm() == "nccl:" + choice.name);
  CHECK(expl.result->time == compact.result->time);
  CHECK(expl.result->events == compact.result->events);
}

TEST_CASE("the rank order is the ring order: reversing it on a symmetric leaf changes nothing", "[run_collective]") {
  const test::Cluster c = test::leaf_cluster(4, 1, 100_Gbps, Duration{});
  CollectiveRequest r = request_on(c, 4, 16_MiB);
  r.options.calibration.model_compute = false;
  const Duration forward = run_collective(c.topology, r).result->time;
  std::reverse(r.order.ranks.begin(), r.order.ranks.end());
  CHECK(run_collective(c.topology, r).result->time == forward);
  // Closed form: 2(p-1) steps of N/p at B, nothing shared.
  CHECK(forward.seconds() == Approx(2.0 * 3 * (16.0 * 1024 * 1024 / 4) * 8 / 100e9).epsilon(1e-9));
}

TEST_CASE("a timing engine plugs in: SimGrid's pure model agrees with the flow engine", "[run_collective][simgrid]") {
  const test::Cluster c = test::leaf_cluster(2, 2, 100_Gbps, Duration::from_us(1), Duration::from_us(2));
  CollectiveRequest r = request_on(c, 4, 8_MiB);
  r.options.ecmp = EcmpPolicy::First;
  const Duration native = run_collective(c.topology, r).result->time;
  const SimgridEngine simgrid(SimgridModel::Pure);
  r.engine = &simgrid;
  const CollectiveOutcome out = run_collective(c.topology, r);
  REQUIRE(out.applicable());
  CHECK(out.result->time.seconds() == Approx(native.seconds()).epsilon(0.01));
}

TEST_CASE("progress is reported and a run can be cancelled", "[run_collective]") {
  const test::Cluster c = test::leaf_cluster(8, 8, 100_Gbps, Duration::from_us(1));
  CollectiveRequest r = request_on(c, 64, 64_MiB);
  r.channels = 2;
  r.chunk = 64_KiB;  // about 2 * 64 * 2 * 63 * 8 transfers: well over kProgressInterval events
  std::uint64_t reports = 0;
  std::uint64_t last_done = 0;
  bool monotone = true;
  r.options.progress = [&](const Progress& p) {
    ++reports;
    monotone = monotone && p.ops_done >= last_done && p.ops_done <= p.ops_total;
    last_done = p.ops_done;
  };
  const CollectiveOutcome done = run_collective(c.topology, r);
  REQUIRE(done.applicable());
  // One report per kProgressInterval events processed (steps skipped as exact repeats are not).
  CHECK(reports == (done.result->events - done.result->events_repeated) / kProgressInterval);
  CHECK(monotone);

  std::atomic<bool> cancel{false};
  r.options.progress = [&](const Progress&) { cancel = true; };  // cancel at the first report
  r.options.cancel = &cancel;
  CHECK_THROWS_AS(run_collective(c.topology, r), Cancelled);
}

TEST_CASE("a sweep shares NCCL's view, transports and routes between sizes and changes no outcome",
          "[run_collective][sweep]") {
  SECTION("NCCL on DGX H100 nodes over a leaf-spine fabric: rings, trees and folded NVLS-Tree") {
    ClusterSpec spec;
    spec.nodes = 4;
    spec.node = node_template(NodeTemplate::DgxH100);
    spec.fabric.kind = FabricKind::LeafSpine;
    spec.fabric.nodes_per_leaf = 2;
    spec.fabric.spines = 4;
    const Topology t = make_cluster(spec);
    CollectiveRequest r;
    r.algorithm = Algorithm::Nccl;
    r.order.ranks = t.gpus();
    r.options.calibration = Calibration::nccl();
    r.options.record_rank_finish = true;
    require_sweep_matches(t, r, {8_B, 64_KiB, 1_MiB, 16_MiB, 64_MiB, 256_MiB, 1_MiB});
  }
  SECTION("NCCL on PCIe GPUs without peer-to-peer: SHM and staged NET routes through host memory") {
    ClusterSpec spec;
    spec.nodes = 2;
    spec.node.gpus = 2;
    spec.node.gpu_model = GpuModel::Rtx2080Ti;
    spec.node.pcie = gpu_spec(GpuModel::Rtx2080Ti).pcie;
    spec.node.pcie_switches = 1;
    spec.node.cpus = 1;
    spec.node.nics = 1;
    spec.node.nic = LinkKind::Eth100;
    spec.fabric.kind = FabricKind::SingleSwitch;
    const Topology t = make_cluster(spec);
    CollectiveRequest r;
    r.algorithm = Algorithm::Nccl;
    r.order.ranks = t.gpus();
    r.options.calibration = Calibration::nccl();
    require_sweep_matches(t, r, {4_KiB, 1_MiB, 32_MiB, 4_KiB});
    // One node, no NIC, neither P2P nor SHM: no transport, the same reason for every size.
    spec.nodes = 1;
    spec.node.nics = 0;
    spec.fabric.kind = FabricKind::None;
    const Topology alone = make_cluster(spec);
    r.order.ranks = alone.gpus();
    REQUIRE(set_nccl_env(r.nccl_env, "NCCL_P2P_DISABLE", "1").empty());
    REQUIRE(set_nccl_env(r.nccl_env, "NCCL_SHM_DISABLE", "1").empty());
    r.message = 1_MiB;
    CHECK_THAT(run_collective(alone, r).not_applicable, Catch::Contains("no transport"));
    require_sweep_matches(alone, r, {1_MiB, 2_MiB});
  }
  SECTION("auto on a leaf fabric with hashed ECMP: every algorithm's routes shared") {
    const test::Cluster c = test::leaf_cluster(3, 4, 100_Gbps, Duration::from_us(2), Duration::from_us(1));
    CollectiveRequest r = request_on(c, 12, 1_MiB);
    r.choice = AlgorithmChoice::Auto;
    r.options.ecmp_seed = 7;
    require_sweep_matches(c.topology, r, {0_B, 4_KiB, 1_MiB, 8_MiB, 64_MiB});
  }
}
