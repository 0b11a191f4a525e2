// Per-channel ring orders (CollectiveSpec::channel_rings): validation, exact results under the
// reference executor for random orders, the compact form stepping aside, and a timing case where
// the orders decide whether two channels share links.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "collective_fixtures.hpp"
#include "ringlab/sim/collectives.hpp"
#include "ringlab/sim/compact_schedule.hpp"
#include "ringlab/sim/reference_executor.hpp"
#include "ringlab/sim/simulator.hpp"

using namespace ringlab;
using namespace ringlab::sim;
using namespace ringlab::literals;
using ringlab::test::Cluster;

namespace {

constexpr std::int64_t kFp32 = 4;
constexpr int kMaxRanks = 17;
constexpr double kRankScale = 1000.0;

std::vector<int> identity(int p) {
  std::vector<int> v(static_cast<std::size_t>(p));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

CollectiveSpec ring_spec(Collective c, std::int64_t elements, int channels, std::int64_t chunk_elements = 0) {
  CollectiveSpec s;
  s.collective = c;
  s.algorithm = Algorithm::Ring;
  s.message = Bytes{elements * kFp32};
  s.channels = channels;
  s.chunk = Bytes{chunk_elements * kFp32};
  return s;
}

}  // namespace

TEST_CASE("channel rings: each must be a permutation of the ranks", "[channel_rings]") {
  const Cluster c = test::leaf_cluster(4, 1, 100_Gbps, 1_us);
  CollectiveSpec spec = ring_spec(Collective::AllReduce, 64, 2);
  spec.channel_rings = {{0, 1, 2, 3}, {0, 1, 1, 3}};
  CHECK_THROWS_WITH(build_schedule(c.topology, c.gpus, spec), Catch::Contains("channel_rings[1] is not a permutation"));
  spec.channel_rings = {{0, 1, 2}};
  CHECK_THROWS_AS(build_schedule(c.topology, c.gpus, spec), std::invalid_argument);
  spec.channel_rings = {{3, 2, 1, 0}, {0, 2, 1, 3}};
  CHECK_NOTHROW(build_schedule(c.topology, c.gpus, spec));
}

TEST_CASE("channel rings: identity orders change nothing, others stay compact too", "[channel_rings]") {
  const Cluster c = test::leaf_cluster(5, 1, 100_Gbps, 1_us);
  CollectiveSpec spec = ring_spec(Collective::AllReduce, 1000, 2);
  const Schedule plain = build_schedule(c.topology, c.gpus, spec);
  spec.channel_rings = {identity(5)};
  const Schedule same = build_schedule(c.topology, c.gpus, spec);
  REQUIRE(same.ops().size() == plain.ops().size());
  for (OpId id = 0; id < plain.ops().size(); ++id) {
    CHECK(same.op(id).at == plain.op(id).at);
    CHECK(same.op(id).peer == plain.op(id).peer);
    CHECK(same.op(id).first == plain.op(id).first);
  }
  CHECK(build_compact_schedule(c.topology, c.gpus, spec).has_value());
  spec.channel_rings = {identity(5), {0, 2, 4, 1, 3}};
  const auto compact = build_compact_schedule(c.topology, c.gpus, spec);  // op for op: compact_schedule_test
  REQUIRE(compact.has_value());
  CHECK(compact->op(0).peer == 1);
  CHECK(compact->op(compact->step_stride(CompactSchedule::Phase::ReduceScatter) / 2).peer == 2);  // unit 1: ring 1
}

TEST_CASE("channel rings: random orders still compute every ring collective exactly", "[channel_rings][executor]") {
  std::mt19937_64 rng(2024);
  int executed = 0;
  for (int p = 1; p <= kMaxRanks; ++p) {
    const Cluster c = test::leaf_cluster(p, 1, 100_Gbps, 1_us);
    for (Collective coll : {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather,
                            Collective::Broadcast, Collective::Reduce})
      for (std::int64_t n : {std::int64_t(1), std::int64_t(7 * p + 3)}) {
        CollectiveSpec spec = ring_spec(coll, n, 3, 2);
        spec.root = p / 2;
        for (int r = 0; r < 2; ++r) {  // two orders for three channels: channel 2 reuses order 0
          std::vector<int> ring = identity(p);
          std::shuffle(ring.begin(), ring.end(), rng);
          spec.channel_rings.push_back(ring);
        }
        const Schedule s = build_schedule(c.topology, c.gpus, spec);
        REQUIRE(s.check().empty());
        std::vector<std::vector<double>> in(static_cast<std::size_t>(p), std::vector<double>(static_cast<std::size_t>(n)));
        for (int r = 0; r < p; ++r)
          for (std::int64_t i = 0; i < n; ++i) in[std::size_t(r)][std::size_t(i)] = (r + 1) * kRankScale + double(i);
        for (ExecOrder order : {ExecOrder::LowestFirst, ExecOrder::HighestFirst, ExecOrder::Random}) {
          const auto out = execute_schedule(s, in, ExecOptions{order, 11});
          for (int r = 0; r < p; ++r)
            for (std::int64_t i = 0; i < n; ++i) {
              double sum = 0;
              for (int q = 0; q < p; ++q) sum += in[std::size_t(q)][std::size_t(i)];
              int owner = 0;
              while (owner + 1 < p && n * (owner + 1) / p <= i) ++owner;
              const double got = out[std::size_t(r)][std::size_t(i)];
              INFO(to_string(coll) << " p=" << p << " n=" << n << " rank " << r << " element " << i << " order "
                                   << int(order));
              switch (coll) {
                case Collective::AllReduce: REQUIRE(got == sum); break;
                case Collective::ReduceScatter:
                  if (owner == r) REQUIRE(got == sum);
                  break;
                case Collective::AllGather: REQUIRE(got == in[std::size_t(owner)][std::size_t(i)]); break;
                case Collective::Broadcast: REQUIRE(got == in[std::size_t(spec.root)][std::size_t(i)]); break;
                case Collective::Reduce:
                  if (r == spec.root) REQUIRE(got == sum);
                  break;
              }
            }
        }
        ++executed;
      }
  }
  CHECK(executed == kMaxRanks * 5 * 2);
}

// Three GPUs, a direct full-duplex link between every pair. Ring 0->1->2->0 uses the directions
// 0->1, 1->2, 2->0; its reverse 0->2->1->0 uses the other three. Two channels on the same order put
// two flows on every used direction, each at half the bandwidth; on opposite orders no direction is
// shared. Everything else (latency, overhead, reductions, the lockstep of the 2(p-1) steps) is the
// same, so the difference is exactly 2(p-1) steps x one block at full bandwidth.
TEST_CASE("channel rings: opposite orders on a mesh avoid sharing links", "[channel_rings]") {
  constexpr int kRanks = 3;
  constexpr int kChannels = 2;
  constexpr std::int64_t kBlockElements = 1000;
  const Bandwidth bw = 100_Gbps;
  const Cluster c = test::full_mesh(kRanks, bw, 1_us, 1_us);
  CollectiveSpec spec = ring_spec(Collective::AllReduce, kBlockElements * kRanks * kChannels, kChannels);
  spec.channel_rings = {{0, 1, 2}, {0, 1, 2}};
  Simulator same_sim(c.topology);
  const Result same = same_sim.run(build_schedule(c.topology, c.gpus, spec));
  spec.channel_rings = {{0, 1, 2}, {0, 2, 1}};
  Simulator opposite_sim(c.topology);
  const Result opposite = opposite_sim.run(build_schedule(c.topology, c.gpus, spec));
  const Duration block = Bytes{kBlockElements * kFp32} / bw;
  const std::int64_t steps = 2 * (kRanks - 1);
  CHECK(same.time.picoseconds() - opposite.time.picoseconds() == steps * block.picoseconds());
  // The identity rings are what the default (empty) gives.
  spec.channel_rings.clear();
  Simulator plain_sim(c.topology);
  CHECK(plain_sim.run(build_schedule(c.topology, c.gpus, spec)).time == same.time);
}
