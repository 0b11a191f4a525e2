// make_plan(): the planned order against closed forms on clusters where the obvious order fails.
#include <algorithm>

#include <catch2/catch.hpp>

#include "planner_fixtures.hpp"
#include "ringlab/planner/planner.hpp"

using namespace ringlab;
using namespace ringlab::test;

namespace {

constexpr Bytes kMessage{1LL << 30};
constexpr int kGpus = 2;  // per host

/// Two racks of four hosts; the scheduler alternates the racks (n0 n4 n1 n5 ...), so a ring in its
/// order crosses each uplink four times per direction.
std::vector<int> interleaved() { return {0, 4, 1, 5, 2, 6, 3, 7}; }

planner::PlanReport plan(const Scenario& s, const sim::RankOrder& scheduler) {
  planner::PlanRequest r;
  r.message = kMessage;
  r.channels = 1;
  r.random_orders = 2;
  r.scheduler_order = scheduler;
  return planner::make_plan(s, r);
}

Duration time_of(const planner::PlanReport& r, const std::string& name) {
  for (const auto& o : r.orders)
    if (o.name == name) return o.time;
  FAIL("no order named " << name);
  return {};
}

}  // namespace

TEST_CASE("plan: scattered hosts across two racks reach the rack-contiguous time (closed form)") {
  const Scenario s = racks_cluster({{{gbps(25), gbps(25), gbps(25), gbps(25)}, gbps(40)},
                                    {{gbps(25), gbps(25), gbps(25), gbps(25)}, gbps(40)}},
                                   kGpus);
  const auto report = plan(s, host_order(s.cluster, interleaved()));
  const int p = 16;
  // Planned: the ring leaves each rack once per direction, so the 25 Gb/s NICs bind.
  CHECK(report.ring_time.seconds() == Approx(ring_seconds(p, kMessage, gbps(25))).epsilon(0.005));
  // Scheduler's order: four ring edges share each 40 Gb/s uplink direction, 10 Gb/s each.
  CHECK(time_of(report, "scheduler order").seconds() == Approx(ring_seconds(p, kMessage, gbps(10))).epsilon(0.005));
  // The plan is rack-contiguous: hosts 0-3 together and 4-7 together.
  std::vector<std::string> racks;
  for (const auto& h : report.plan.hosts) racks.push_back(h.name < "n4" ? "r0" : "r1");
  int changes = 0;
  for (std::size_t i = 0; i < racks.size(); ++i) changes += racks[i] != racks[(i + 1) % racks.size()];
  CHECK(changes == 2);
}

TEST_CASE("plan: a degraded uplink is crossed once per direction, 4x faster than the scattered order") {
  const Scenario s = racks_cluster({{{gbps(25), gbps(25), gbps(25), gbps(25)}, gbps(40)},
                                    {{gbps(25), gbps(25), gbps(25), gbps(25)}, gbps(10)}},
                                   kGpus);
  const auto report = plan(s, host_order(s.cluster, interleaved()));
  // Planned: one edge per direction on the 10 Gb/s uplink. Scattered: four, 2.5 Gb/s each.
  CHECK(report.ring_time.seconds() == Approx(ring_seconds(16, kMessage, gbps(10))).epsilon(0.005));
  CHECK(time_of(report, "scheduler order") / report.ring_time == Approx(4.0).epsilon(0.01));
  // The ring bound names the degraded rack and the plan sits on it.
  CHECK_THAT(report.bound.ring_cut, Catch::Contains("r1-tor"));
  CHECK(report.ring_time / report.bound.ring < 1.01);
}

TEST_CASE("plan: a slow NIC binds every order and the plan meets the bound") {
  const Scenario s = racks_cluster({{{gbps(25), gbps(10), gbps(25), gbps(25)}, gbps(100)},
                                    {{gbps(25), gbps(25), gbps(25), gbps(25)}, gbps(100)}},
                                   kGpus);
  const auto report = plan(s, host_order(s.cluster, interleaved()));
  CHECK(report.ring_time.seconds() == Approx(ring_seconds(16, kMessage, gbps(10))).epsilon(0.005));
  CHECK_THAT(report.bound.ring_cut, Catch::Contains("host n1"));
  CHECK(report.ring_time / report.bound.ring < 1.01);
}

TEST_CASE("plan: mixed host speeds behind a shared uplink: 25 Gb/s hosts bind, not the uplink") {
  // Rack 0: 100 Gb/s hosts, rack 1: 25 Gb/s hosts, 40 Gb/s uplinks. Scattered: four edges on each
  // uplink direction (10 Gb/s each); planned: one (40 Gb/s), so the 25 Gb/s hosts bind: 2.5x.
  const Scenario s = racks_cluster({{{gbps(100), gbps(100), gbps(100), gbps(100)}, gbps(40)},
                                    {{gbps(25), gbps(25), gbps(25), gbps(25)}, gbps(40)}},
                                   kGpus);
  const auto report = plan(s, host_order(s.cluster, interleaved()));
  CHECK(report.ring_time.seconds() == Approx(ring_seconds(16, kMessage, gbps(25))).epsilon(0.005));
  CHECK(time_of(report, "scheduler order") / report.ring_time == Approx(2.5).epsilon(0.01));
}

TEST_CASE("plan: the same request gives the same plan and report") {
  const Scenario s = racks_cluster({{{gbps(25), gbps(25), gbps(25)}, gbps(40)},
                                    {{gbps(25), gbps(25), gbps(25)}, gbps(40)},
                                    {{gbps(25), gbps(25), gbps(25)}, gbps(40)}},
                                   kGpus);
  const sim::RankOrder scattered = host_order(s.cluster, {0, 3, 6, 1, 4, 7, 2, 5, 8});
  const auto a = plan(s, scattered);
  const auto b = plan(s, scattered);
  CHECK(a.plan.order.digest(s.cluster) == b.plan.order.digest(s.cluster));
  CHECK(a.plan.report.dump() == b.plan.report.dump());
  CHECK(a.plan.hosts == b.plan.hosts);
}

TEST_CASE("plan: NCCL's choice is timed under the request's NCCL settings (CollNet on a SHARP switch)") {
  // Four servers x 4 V100 (no NVSwitch), one 100 Gb/s EDR NIC each, one switch that reduces. NCCL
  // leaves CollNet off by default; with NCCL_COLLNET_ENABLE=1 its tuner picks CollNet Chain at 256 MiB,
  // where each server sends and receives the buffer once (16 GB/s, on a 12.5 GB/s NIC) instead of
  // the ring's 2 x 15/16.
  const Scenario s = parse_scenario(
      R"({"ringlab": 1, "name": "sharp", "cluster": {"generate": {"nodes": 4, "node": {"template": "v100x4", "nic": "ib_edr"},
          "fabric": {"kind": "single_switch", "in_network_reduction": true}}}})",
      "sharp.json");
  planner::PlanRequest r;
  r.message = Bytes{256LL << 20};
  r.random_orders = 1;
  const planner::PlanReport off = planner::make_plan(s, r);
  CHECK_THAT(off.nccl_choice, !Catch::Contains("CollNet"));
  sim::set_nccl_env(r.nccl_env, "NCCL_COLLNET_ENABLE", "1");
  const planner::PlanReport on = planner::make_plan(s, r);
  CHECK_THAT(on.nccl_choice, Catch::StartsWith("CollNetChain/Simple") && Catch::EndsWith("(under NCCL_COLLNET_ENABLE=1)"));
  // The whole buffer once each way through a 100 Gb/s NIC bounds it from below.
  const auto nccl = std::find_if(on.algorithms.begin(), on.algorithms.end(),
                                 [](const sim::Candidate& c) { return c.algorithm == sim::Algorithm::Nccl; });
  REQUIRE(nccl != on.algorithms.end());
  REQUIRE(nccl->time);
  CHECK(nccl->time->seconds() >= double(256LL << 20) * 8 / 100e9);
  CHECK(*nccl->time < on.bound.any);  // faster than any algorithm without in-network reduction can be
  // The launch files carry the setting the choice was timed under (nccl.env), and only then.
  auto sets_collnet = [](const planner::Plan& p) {
    return std::any_of(p.nccl_env.begin(), p.nccl_env.end(), [](const planner::NcclSetting& e) {
      return e.name == "NCCL_COLLNET_ENABLE" && e.value == "1" && !e.debug_only;
    });
  };
  CHECK(sets_collnet(on.plan));
  CHECK_FALSE(sets_collnet(off.plan));
}
