// lower_bound(): hand-computed cuts, and the planned ring on leaf-spine and 3-tier fat trees within
// 1 % of the ring bound.
#include <catch2/catch.hpp>

#include "planner_fixtures.hpp"
#include "ringlab/planner/bound.hpp"

using namespace ringlab;
using namespace ringlab::test;

TEST_CASE("bound: two racks behind 10 and 40 Gb/s uplinks, 25 Gb/s hosts (hand-computed)") {
  const Scenario s = racks_cluster({{{gbps(25), gbps(25)}, gbps(40)}, {{gbps(25), gbps(25)}, gbps(10)}}, 2);
  const Router router(s.cluster);
  const std::vector<DeviceId> gpus = s.cluster.gpus();  // p = 8
  const Bytes n{1LL << 30};
  const double bits = double(n.value) * 8;
  const auto b = planner::lower_bound(s.cluster, router, gpus, sim::Collective::AllReduce, n);
  // Any ring crosses rack 1's 10 Gb/s uplink with 2(p-1)/p N each way.
  CHECK(b.ring.seconds() == Approx(2.0 * 7 / 8 * bits / 10e9).epsilon(1e-9));
  CHECK_THAT(b.ring_cut, Catch::Contains("r1-tor"));
  // Any algorithm: rack 1 against the rest needs N each way over 10 Gb/s.
  CHECK(b.any.seconds() == Approx(bits / 10e9).epsilon(1e-9));
  // All-gather: rack 1 (4 of 8 ranks) must receive half the data: N/2 over 10 Gb/s; a ring: 7/8 N.
  const auto ag = planner::lower_bound(s.cluster, router, gpus, sim::Collective::AllGather, n);
  CHECK(ag.any.seconds() == Approx(0.5 * bits / 10e9).epsilon(1e-9));
  CHECK(ag.ring.seconds() == Approx(7.0 / 8 * bits / 10e9).epsilon(1e-9));
}

TEST_CASE("bound: one host gives no network cut, a single rank gives zero") {
  const Scenario s = racks_cluster({{{gbps(25)}, gbps(40)}}, 4);
  const Router router(s.cluster);
  const auto gpus = s.cluster.gpus();
  const auto b = planner::lower_bound(s.cluster, router, gpus, sim::Collective::AllReduce, Bytes{1LL << 30});
  // Each GPU's own PCIe link (400 Gb/s) is the only cut: 2(p-1)/p N / 400 Gb/s.
  CHECK(b.ring.seconds() == Approx(2.0 * 3 / 4 * (1LL << 30) * 8 / 400e9).epsilon(1e-9));
  CHECK(planner::lower_bound(s.cluster, router, {gpus.front()}, sim::Collective::AllReduce, Bytes{1024}).ring.ps == 0);
}

namespace {
Scenario generated(const std::string& fabric, int nodes) {
  return parse_scenario(R"({"ringlab": 1, "name": "ft", "cluster": {"generate": {"nodes": )" + std::to_string(nodes) +
                            R"(, "node": {"template": "generic"}, "fabric": )" + fabric + "}}}",
                        "ft.json");
}
}  // namespace

TEST_CASE("plan: on non-blocking leaf-spine and 3-tier fat trees the planned ring is within 1 % of the ring bound") {
  // 4 GiB keeps the ring's 2(p-1) hop latencies under 0.5 % of its time at p = 128.
  const std::string fabric = GENERATE(std::string(R"({"kind": "leaf_spine", "nodes_per_leaf": 4, "spines": 4})"),
                                      std::string(R"({"kind": "fat_tree3", "nodes_per_leaf": 2, "spines": 2, "leaves_per_pod": 2, "cores": 2})"));
  CAPTURE(fabric);
  const Scenario s = generated(fabric, 16);
  planner::PlanRequest r;
  r.message = Bytes{4LL << 30};
  r.channels = 1;
  r.random_orders = 1;
  // The scheduler scatters hosts over the leaves.
  r.scheduler_order = host_order(s.cluster, {0, 5, 10, 15, 1, 6, 11, 12, 2, 7, 8, 13, 3, 4, 9, 14});
  const auto report = planner::make_plan(s, r);
  CHECK(report.ring_time / report.bound.ring < 1.01);
  CHECK(report.ring_time / report.bound.ring >= 1.0);
}
