// Exact channel symmetry (sim/src/engine/channel_fold.hpp) of explicit schedules (NCCL's rings are
// compact schedules, which skip repeated steps instead): a run that simulates one channel of every
// orbit must give the full run's time, per-rank finish times and per-direction statistics (to
// rounding: the max-min sums run in another order) and a critical path of real dependencies; a link
// that breaks part of the symmetry leaves only the moves that keep it, and unequal channels none.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "ringlab/sim/collectives.hpp"
#include "ringlab/sim/nccl_tuning.hpp"
#include "ringlab/sim/run_collective.hpp"
#include "ringlab/sim/simulator.hpp"
#include "ringlab/topology/generators.hpp"

using namespace ringlab;
using namespace ringlab::sim;
using namespace ringlab::literals;

namespace {

constexpr double kRelative = 1e-9;

/// DGX H100 nodes on a leaf-spine fabric: 2 nodes per leaf, `spines` spines.
Topology dgx_h100_leaf_spine(int nodes, int spines, double oversubscription) {
  ClusterSpec spec;
  spec.nodes = nodes;
  spec.node = node_template(NodeTemplate::DgxH100);
  spec.fabric.kind = FabricKind::LeafSpine;
  spec.fabric.nodes_per_leaf = 2;
  spec.fabric.spines = spines;
  spec.fabric.oversubscription = oversubscription;
  return make_cluster(spec);
}

/// A copy of `t` whose link `slow` has half its bandwidth.
Topology with_slow_link(const Topology& t, LinkId slow) {
  Topology out;
  for (const Rack& r : t.racks()) out.add_rack(r.name);
  for (const Host& h : t.hosts()) out.add_host(h.name, h.rack, h.template_name, h.cpu_vendor);
  for (const Device& d : t.devices()) out.add_device(d);
  for (LinkId l = 0; l < t.link_count(); ++l) {
    Link link = t.link(l);
    if (l == slow) link.bandwidth = Bandwidth::from_bits_per_second(link.bandwidth.bits_per_second() / 2);
    out.add_link(link);
  }
  return out;
}

/// The `index`-th link between the first leaf and a spine.
LinkId leaf_uplink(const Topology& t, int index) {
  int seen = 0;
  for (LinkId l = 0; l < t.link_count(); ++l) {
    const DeviceKind a = t.device(t.link(l).a).kind, b = t.device(t.link(l).b).kind;
    const bool uplink = (a == DeviceKind::Leaf && b == DeviceKind::Spine) || (a == DeviceKind::Spine && b == DeviceKind::Leaf);
    if (uplink && seen++ == index) return l;
  }
  FAIL("no such uplink");
  return 0;
}

Result run(const Topology& t, Bytes message, const char* algo, bool fold) {
  CollectiveRequest request;
  request.algorithm = Algorithm::Nccl;
  request.message = message;
  request.order.ranks = t.gpus();
  request.options.calibration = Calibration::nccl();
  request.options.record_rank_finish = true;
  request.options.fold_channels = fold;
  if (algo) set_nccl_env(request.nccl_env, "NCCL_ALGO", algo);
  const CollectiveOutcome out = run_collective(t, request);
  REQUIRE(out.result);
  return *out.result;
}

void require_equal(const Result& folded, const Result& full) {
  CHECK(double(folded.time.picoseconds()) == Approx(double(full.time.picoseconds())).epsilon(kRelative));
  REQUIRE(folded.rank_finish.size() == full.rank_finish.size());
  for (std::size_t r = 0; r < full.rank_finish.size(); ++r)
    CHECK(double(folded.rank_finish[r].picoseconds()) ==
          Approx(double(full.rank_finish[r].picoseconds())).epsilon(kRelative));
  REQUIRE(folded.directions.size() == full.directions.size());
  for (std::size_t i = 0; i < full.directions.size(); ++i) {
    const DirectionStats& a = folded.directions[i];
    const DirectionStats& b = full.directions[i];
    REQUIRE(a.direction == b.direction);
    CHECK(a.bytes == b.bytes);  // whole bytes, below 2^53: exact in any order
    CHECK(double(a.busy.picoseconds()) == Approx(double(b.busy.picoseconds())).epsilon(kRelative));
    CHECK(a.utilisation == Approx(b.utilisation).epsilon(kRelative));
  }
  // Equal utilisations may rank in another order; the top one's value is the same.
  REQUIRE_FALSE(folded.bottlenecks.empty());
  const auto utilisation = [](const Result& r, DirectionId d) {
    for (const DirectionStats& s : r.directions)
      if (s.direction == d) return s.utilisation;
    return -1.0;
  };
  CHECK(utilisation(folded, folded.bottlenecks.front()) ==
        Approx(utilisation(full, full.bottlenecks.front())).epsilon(kRelative));
}

}  // namespace

TEST_CASE("channel fold: NCCL's channels folded onto one per orbit give the full run's times and link statistics",
          "[fold]") {
  struct Case {
    int nodes, spines;
    double oversubscription;
    Bytes message;
    const char* algo;
  };
  const Case c = GENERATE(Case{4, 8, 1.0, 256_MiB, nullptr},   // NVLS-Tree
                          Case{4, 8, 2.0, 64_MiB, nullptr},    // oversubscribed uplinks
                          Case{6, 4, 1.0, 96_MiB, "Tree"},     // rail trees, 4 spines
                          Case{4, 4, 2.0, 16_MiB, "Tree"},
                          Case{2, 2, 1.0, 32_MiB, "NVLSTree"});
  CAPTURE(c.nodes, c.spines, c.oversubscription, c.message.count(), c.algo ? c.algo : "auto");
  const Topology t = dgx_h100_leaf_spine(c.nodes, c.spines, c.oversubscription);
  const Result folded = run(t, c.message, c.algo, true);
  const Result full = run(t, c.message, c.algo, false);
  CAPTURE(folded.algorithm);
  CHECK(folded.channel_fold >= 2);
  CHECK(full.channel_fold == 1);
  CHECK(folded.flows * folded.channel_fold == full.flows);
  require_equal(folded, full);
}

TEST_CASE("channel fold: the folded critical path is a chain of real dependencies ending at the last op", "[fold]") {
  const Topology t = dgx_h100_leaf_spine(4, 8, 1.0);
  CollectiveSpec spec;
  spec.algorithm = Algorithm::Nccl;
  spec.message = 64_MiB;
  const std::vector<DeviceId> ranks = t.gpus();
  const Schedule s = build_schedule(t, ranks, spec);
  SimOptions options;
  options.calibration = Calibration::nccl();
  options.protocol = s.protocol();
  options.link_latencies = false;
  options.ecmp = EcmpPolicy::Channel;
  const Result folded = Simulator(t, options).run(s);
  REQUIRE(folded.channel_fold >= 2);
  options.fold_channels = false;
  const Result full = Simulator(t, options).run(s);
  CHECK(double(folded.time.picoseconds()) == Approx(double(full.time.picoseconds())).epsilon(kRelative));
  const std::vector<std::uint64_t>& path = folded.critical_path;
  REQUIRE(path.size() == full.critical_path.size());
  for (std::size_t i = 1; i < path.size(); ++i) {
    const auto at = OpId(path[i]), before = OpId(path[i - 1]);
    const auto deps = s.deps(at);
    const bool linked = std::find(deps.begin(), deps.end(), before) != deps.end() ||
                        (s.op(at).kind == OpKind::Recv && s.op(at).match == before);
    CHECK(linked);
  }
  CHECK(s.deps(OpId(path.front())).empty());
}

TEST_CASE("channel fold: a slower spine link leaves only the channel moves that keep it, and the run still "
          "equals the full one", "[fold]") {
  // Channel c crosses spine c mod 8 (tree channels 2u + t for unit u): halving one leaf-spine link rules
  // out moving units by 1 or 2 (spines move by 2 or 4); moving them by 4 (tree channels by 8) keeps
  // every spine, so 2 channels still fold onto 1.
  const Topology base = dgx_h100_leaf_spine(4, 8, 1.0);
  const Topology t = with_slow_link(base, leaf_uplink(base, 3));
  const Result folded = run(t, 256_MiB, nullptr, true);
  const Result full = run(t, 256_MiB, nullptr, false);
  REQUIRE(folded.algorithm == "nccl:nvls_tree/simple");
  CHECK(folded.channel_fold == 2);
  CHECK(run(base, 256_MiB, nullptr, true).channel_fold == 8);
  require_equal(folded, full);
}

TEST_CASE("channel fold: channels of unequal sizes do not fold, and the run is the full one to the bit", "[fold]") {
  // 256 MiB and one more float: one channel's pieces are an element longer than the others'.
  const Topology t = dgx_h100_leaf_spine(4, 8, 1.0);
  const Bytes odd = 256_MiB + Bytes{4};
  const Result folded = run(t, odd, nullptr, true);
  const Result full = run(t, odd, nullptr, false);
  REQUIRE(folded.algorithm == "nccl:nvls_tree/simple");
  CHECK(folded.channel_fold == 1);
  CHECK(folded.time == full.time);
  CHECK(folded.events == full.events);
  CHECK(folded.critical_path == full.critical_path);
}

TEST_CASE("channel fold: the quotient built without the full schedule runs exactly as the fold of the full one",
          "[fold]") {
  // Simulator::run(ranks, spec) builds only the kept channels of a long pipeline; the fold of the
  // full schedule (Simulator::run(schedule)) must be the same schedule op for op, so the two runs agree
  // to the bit, and both with the unfolded run to rounding.
  struct Case {
    int nodes, spines;
    Bytes message;
    const char* algo;
  };
  const Case c = GENERATE(Case{4, 8, 256_MiB, nullptr},  // NVLS-Tree: 8 channels onto 1
                          Case{6, 4, 96_MiB, "Tree"},     // rail trees: channels 2u + t
                          Case{2, 2, 64_MiB, "NVLSTree"});
  CAPTURE(c.nodes, c.spines, c.message.count(), c.algo ? c.algo : "auto");
  const Topology t = dgx_h100_leaf_spine(c.nodes, c.spines, 1.0);
  const std::vector<DeviceId> ranks = t.gpus();
  CollectiveSpec spec;
  spec.algorithm = Algorithm::Nccl;
  spec.message = c.message;
  if (c.algo) set_nccl_env(spec.nccl_env, "NCCL_ALGO", c.algo);
  REQUIRE_FALSE(nccl_view(t, ranks, spec.nccl_env));
  const NcclResolved nccl = nccl_resolve(t, ranks, spec);
  REQUIRE(nccl.choice.unavailable.empty());
  const CollectiveSpec& concrete = nccl.spec;
  REQUIRE(concrete.chunk.count() > 0);
  CHECK(concrete.message.count() / concrete.channels / concrete.chunk.count() >= 8);  // long enough to build directly
  SimOptions options;
  options.calibration = Calibration::nccl();
  options.protocol = nccl.choice.protocol;
  options.link_latencies = false;
  options.ecmp = EcmpPolicy::Channel;
  options.record_rank_finish = true;
  const Result direct = Simulator(t, options).run(ranks, concrete);
  const Schedule full_schedule = build_schedule(t, ranks, concrete);
  const Result via_full = Simulator(t, options).run(full_schedule);
  REQUIRE(direct.channel_fold >= 2);
  CHECK(direct.channel_fold == via_full.channel_fold);
  CHECK(direct.time == via_full.time);
  CHECK(direct.rank_finish == via_full.rank_finish);
  CHECK(direct.events == via_full.events);
  CHECK(direct.flows == via_full.flows);
  CHECK(direct.rate_updates == via_full.rate_updates);
  CHECK(direct.critical_path.size() == via_full.critical_path.size());
  REQUIRE(direct.directions.size() == via_full.directions.size());
  for (std::size_t i = 0; i < direct.directions.size(); ++i) {
    CHECK(direct.directions[i].direction == via_full.directions[i].direction);
    CHECK(direct.directions[i].bytes == via_full.directions[i].bytes);
    CHECK(direct.directions[i].busy == via_full.directions[i].busy);
  }
  CHECK(direct.bottlenecks == via_full.bottlenecks);
  options.fold_channels = false;
  require_equal(direct, Simulator(t, options).run(full_schedule));
}
