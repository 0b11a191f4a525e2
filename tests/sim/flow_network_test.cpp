// The flow network alone: max-min fair rates and completion times computed by hand, rate caps,
// rounding, statistics, and the incremental reallocation against a from-scratch one.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "../../sim/src/engine/flow_network.hpp"

using namespace ringlab;
using namespace ringlab::literals;
using ringlab::sim::detail::FlowId;
using ringlab::sim::detail::FlowNetwork;
using ringlab::sim::detail::RouteId;

namespace {

/// Runs the network to completion without an event queue: reallocate, then finish every flow whose
/// completion time is the earliest. Returns each flow's completion time by the order it was started.
std::vector<Duration> run_to_completion(FlowNetwork& net, const std::vector<FlowId>& flows) {
  std::map<FlowId, std::size_t> index;
  for (std::size_t i = 0; i < flows.size(); ++i) index[flows[i]] = i;
  std::vector<Duration> done(flows.size());
  Duration now;
  std::vector<FlowId> changed;
  while (net.active_flows() > 0) {
    net.reallocate(now, changed);
    Duration next = Duration::max();
    for (const auto& [flow, i] : index)
      if (net.is_active(flow)) next = std::min(next, net.finish_time(flow, now));
    now = next;
    for (const auto& [flow, i] : index) {
      if (!net.is_active(flow) || net.finish_time(flow, now) != now) continue;
      done[i] = now;
      net.finish(flow, now);
    }
  }
  return done;
}

/// 1 to max_hops distinct directions out of `channels`.
std::vector<DirectionId> random_route(std::mt19937_64& rng, int channels, int max_hops) {
  std::vector<DirectionId> route;
  const int hops = 1 + int(rng() % std::uint64_t(max_hops));
  for (int h = 0; h < hops; ++h) {
    const auto c = DirectionId(rng() % std::uint64_t(channels));
    if (std::find(route.begin(), route.end(), c) == route.end()) route.push_back(c);
  }
  return route;
}

/// Capacities 0.5 .. 2.25 B/ps in steps of 0.25.
std::vector<double> random_capacities(std::mt19937_64& rng, int channels) {
  std::vector<double> capacity(static_cast<std::size_t>(channels));
  for (double& c : capacity) c = 0.5 + double(rng() % 8) * 0.25;
  return capacity;
}

/// A flow of the randomized tests: its id in the network under test, its route and cap.
struct Live {
  FlowId id;
  std::vector<DirectionId> route;
  double cap;
  std::vector<double> costs = {};  ///< capacity a byte takes on each direction of route; empty: 1
};

/// The rates a fresh network assigns to `live`'s flows, in order.
std::vector<double> from_scratch(const std::vector<double>& capacity, const std::vector<Live>& live, Duration now) {
  FlowNetwork fresh(capacity);
  std::vector<FlowId> ids;
  for (const Live& f : live) ids.push_back(fresh.start(fresh.add_route(f.route), 1e6, now, f.cap));
  std::vector<FlowId> changed;
  fresh.reallocate(now, changed);
  std::vector<double> rates;
  for (FlowId id : ids) rates.push_back(fresh.rate(id));
  return rates;
}

}  // namespace

TEST_CASE("flow network: two flows on one channel get half each", "[network]") {
  FlowNetwork net({1.0});
  const std::vector<DirectionId> path{0};
  const RouteId r = net.add_route(path);
  const FlowId a = net.start(r, 1000, Duration{}, sim::detail::kUnlimitedRate);
  const FlowId b = net.start(r, 3000, Duration{}, sim::detail::kUnlimitedRate);
  std::vector<FlowId> changed;
  net.reallocate(Duration{}, changed);
  CHECK(changed.size() == 2);
  CHECK(net.rate(a) == 0.5);
  CHECK(net.rate(b) == 0.5);
  // a: 1000 B at 0.5 B/ps -> 2000 ps; then b has 2000 B left alone at 1 B/ps -> 4000 ps.
  const auto done = run_to_completion(net, {a, b});
  CHECK(done[0] == 2000_ps);
  CHECK(done[1] == 4000_ps);
}

TEST_CASE("flow network: max-min with three links, bottlenecks elsewhere free capacity", "[network]") {
  // Links A (1 B/ps), B (2 B/ps), C (3 B/ps). Flows f1: A,B  f2: B,C  f3: C  f4: A.
  // Progressive filling: A is the bottleneck at 1/2 -> f1 = f4 = 0.5; B has 1.5 left for f2 and C
  // offers f2 3/2 as well -> f2 = 1.5; C has 1.5 left for f3 -> f3 = 1.5.
  FlowNetwork net({1.0, 2.0, 3.0});
  const std::vector<DirectionId> ab{0, 1}, bc{1, 2}, c{2}, a{0};
  const FlowId f1 = net.start(net.add_route(ab), 500, Duration{});
  const FlowId f2 = net.start(net.add_route(bc), 3000, Duration{});
  const FlowId f3 = net.start(net.add_route(c), 1500, Duration{});
  const FlowId f4 = net.start(net.add_route(a), 1000, Duration{});
  std::vector<FlowId> changed;
  net.reallocate(Duration{}, changed);
  CHECK(net.rate(f1) == Approx(0.5));
  CHECK(net.rate(f2) == Approx(1.5));
  CHECK(net.rate(f3) == Approx(1.5));
  CHECK(net.rate(f4) == Approx(0.5));
  CHECK(net.load(0) == Approx(1.0));
  CHECK(net.load(1) == Approx(2.0));
  CHECK(net.load(2) == Approx(3.0));
  // f1 (500 B) and f3 (1500 B) finish at 1000 ps. Then f4 has 500 B alone on A (1 B/ps) -> 1500 ps,
  // and f2 has 1500 B limited by B (2 B/ps) -> 1000 + 750 = 1750 ps.
  const auto done = run_to_completion(net, {f1, f2, f3, f4});
  CHECK(done[0] == 1000_ps);
  CHECK(done[1] == 1750_ps);
  CHECK(done[2] == 1000_ps);
  CHECK(done[3] == 1500_ps);
}

TEST_CASE("flow network: a per-flow rate cap leaves the rest to the others", "[network]") {
  FlowNetwork net({1.0});
  const std::vector<DirectionId> path{0};
  const RouteId r = net.add_route(path);
  const FlowId capped = net.start(r, 100, Duration{}, 0.25);
  const FlowId free = net.start(r, 100, Duration{});
  std::vector<FlowId> changed;
  net.reallocate(Duration{}, changed);
  CHECK(net.rate(capped) == 0.25);
  CHECK(net.rate(free) == 0.75);
  // A cap above the fair share does not bind.
  FlowNetwork loose({1.0});
  const RouteId r2 = loose.add_route(path);
  const FlowId x = loose.start(r2, 100, Duration{}, 0.9);
  const FlowId y = loose.start(r2, 100, Duration{});
  loose.reallocate(Duration{}, changed);
  CHECK(loose.rate(x) == 0.5);
  CHECK(loose.rate(y) == 0.5);
}

TEST_CASE("flow network: full duplex channels are independent", "[network]") {
  FlowNetwork net({1.0, 1.0});
  const std::vector<DirectionId> forward{0}, backward{1};
  const FlowId a = net.start(net.add_route(forward), 100, Duration{});
  const FlowId b = net.start(net.add_route(backward), 100, Duration{});
  std::vector<FlowId> changed;
  net.reallocate(Duration{}, changed);
  CHECK(net.rate(a) == 1.0);
  CHECK(net.rate(b) == 1.0);
}

TEST_CASE("flow network: completion times are exact for rates that divide evenly", "[network]") {
  // 4 MiB at 12.5 GB/s = 4194304 / 0.0125 B/ps = 335544320 ps, although 0.0125 is not a binary fraction.
  const Bandwidth rate = 100_Gbps;
  FlowNetwork net({rate.bytes_per_second() / 1e12});
  const std::vector<DirectionId> path{0};
  const FlowId f = net.start(net.add_route(path), double((4_MiB).count()), Duration{});
  std::vector<FlowId> changed;
  net.reallocate(Duration{}, changed);
  CHECK(net.finish_time(f, Duration{}) == Duration{335544320});
  CHECK(net.finish_time(f, Duration{}) == 4_MiB / rate);
}

TEST_CASE("flow network: progress is settled when a rate changes, residues count as done", "[network]") {
  FlowNetwork net({1.0});
  const std::vector<DirectionId> path{0};
  const RouteId r = net.add_route(path);
  const FlowId a = net.start(r, 1000, Duration{});
  std::vector<FlowId> changed;
  net.reallocate(Duration{}, changed);
  CHECK(net.remaining(a, 400_ps) == Approx(600));
  // A second flow at 400 ps halves a's rate: 600 B left at 0.5 B/ps -> 1600 ps.
  const FlowId b = net.start(r, 10, 400_ps);
  changed.clear();
  net.reallocate(400_ps, changed);
  CHECK(changed == std::vector<FlowId>{a, b});
  CHECK(net.remaining(a, 400_ps) == Approx(600));
  CHECK(net.finish_time(a, 400_ps) == 1600_ps);
  CHECK(net.finish_time(b, 400_ps) == 420_ps);
  // At its completion time the remainder is gone and finish_time() answers "now", not "later".
  CHECK(net.finish_time(b, 420_ps) == 420_ps);
  CHECK(net.remaining(b, 420_ps) <= FlowNetwork::kResidueBytes);
}

TEST_CASE("flow network: only flows whose rate changed are reported", "[network]") {
  FlowNetwork net({1.0, 1.0});
  const std::vector<DirectionId> first{0}, second{1};
  const FlowId a = net.start(net.add_route(first), 100, Duration{});
  std::vector<FlowId> changed;
  net.reallocate(Duration{}, changed);
  changed.clear();
  const FlowId b = net.start(net.add_route(second), 100, 10_ps);
  net.reallocate(10_ps, changed);
  CHECK(changed == std::vector<FlowId>{b});  // a's component was not touched
  CHECK(net.rate(a) == 1.0);
  CHECK(net.reallocations() == 2);
}

TEST_CASE("flow network: channel statistics count bytes and busy time", "[network]") {
  FlowNetwork net({1.0, 1.0});
  const std::vector<DirectionId> both{0, 1};
  const std::vector<DirectionId> first{0};
  const FlowId a = net.start(net.add_route(both), 100, Duration{});
  const FlowId b = net.start(net.add_route(first), 300, Duration{});
  const auto done = run_to_completion(net, {a, b});
  CHECK(done[0] == 200_ps);  // shares channel 0 with b at 0.5 B/ps
  CHECK(done[1] == 400_ps);  // 200 B at 0.5, then 200 B at 1
  CHECK(net.direction_bytes(0) == 400);
  CHECK(net.direction_bytes(1) == 100);
  CHECK(net.direction_busy(0, done[1]) == 400_ps);
  CHECK(net.direction_busy(1, done[1]) == 200_ps);
}

TEST_CASE("flow network: incremental reallocation equals a from-scratch one, never overloads", "[network]") {
  std::mt19937_64 rng(7);
  constexpr int kChannels = 12;
  for (int trial = 0; trial < 40; ++trial) {
    const std::vector<double> capacity = random_capacities(rng, kChannels);
    FlowNetwork net(capacity);
    bool overloaded = false;
    net.set_observer([&](const FlowNetwork& n, Duration) { overloaded |= n.find_overloaded(1e-9).has_value(); });
    std::vector<Live> live;
    std::vector<FlowId> changed;
    Duration now;
    for (int step = 0; step < 60; ++step) {
      now += Duration{std::int64_t(rng() % 3)};
      const int starts = int(rng() % 3);
      for (int s = 0; s < starts; ++s) {
        const std::vector<DirectionId> route = random_route(rng, kChannels, 4);
        const double cap = rng() % 4 == 0 ? 0.1 + double(rng() % 5) * 0.1 : sim::detail::kUnlimitedRate;
        live.push_back(Live{net.start(net.add_route(route), 1e6, now, cap), route, cap});
      }
      if (!live.empty() && rng() % 2 == 0) {
        const std::size_t k = rng() % live.size();
        net.finish(live[k].id, now);
        live.erase(live.begin() + std::ptrdiff_t(k));
      }
      net.reallocate(now, changed);
      const std::vector<double> want = from_scratch(capacity, live, now);
      for (std::size_t i = 0; i < live.size(); ++i) CHECK(net.rate(live[i].id) == Approx(want[i]));
    }
    CHECK_FALSE(overloaded);
  }
}

TEST_CASE("flow network: a flow that takes a finished flow's place in the same instant keeps the allocation exact",
          "[network]") {
  // Chunk after chunk on one connection: finish() then start() on the same route and cap reuses the
  // finished flow's place. Rates must still equal a from-scratch allocation, every started flow must
  // be reported as changed (its completion needs scheduling), and the statistics must count it.
  std::mt19937_64 rng(11);
  constexpr int kChannels = 8;
  for (int trial = 0; trial < 40; ++trial) {
    const std::vector<double> capacity = random_capacities(rng, kChannels);
    FlowNetwork net(capacity);
    std::vector<std::vector<DirectionId>> routes;  // a small pool, so routes repeat
    std::vector<RouteId> route_ids;
    for (int r = 0; r < 5; ++r) {
      routes.push_back(random_route(rng, kChannels, 3));
      route_ids.push_back(net.add_route(routes.back()));
    }
    std::vector<Live> live;
    std::vector<double> bytes_on(kChannels, 0.0);
    std::vector<FlowId> changed;
    Duration now;
    for (int step = 0; step < 80; ++step) {
      now += Duration{std::int64_t(1 + rng() % 3)};
      const int finishes = live.empty() ? 0 : int(rng() % 3);
      for (int k = 0; k < finishes && !live.empty(); ++k) {
        const std::size_t i = rng() % live.size();
        net.finish(live[i].id, now);
        live.erase(live.begin() + std::ptrdiff_t(i));
      }
      std::vector<FlowId> started;
      const int starts = int(rng() % 3);
      for (int k = 0; k < starts; ++k) {
        const int r = int(rng() % routes.size());
        const double cap = rng() % 3 == 0 ? 0.3 : sim::detail::kUnlimitedRate;
        const double bytes = 1000.0 * double(1 + rng() % 5);
        live.push_back(Live{net.start(route_ids[std::size_t(r)], bytes, now, cap), routes[std::size_t(r)], cap});
        started.push_back(live.back().id);
        for (DirectionId c : routes[std::size_t(r)]) bytes_on[c] += bytes;
      }
      changed.clear();
      net.reallocate(now, changed);
      for (FlowId f : started) {
        CHECK(net.is_active(f));
        CHECK(std::count(changed.begin(), changed.end(), f) == 1);
      }
      const std::vector<double> want = from_scratch(capacity, live, now);
      for (std::size_t i = 0; i < live.size(); ++i) CHECK(net.rate(live[i].id) == Approx(want[i]));
      CHECK(net.active_flows() == live.size());
      for (DirectionId c = 0; c < kChannels; ++c) CHECK(net.direction_bytes(c) == bytes_on[c]);
    }
  }
}

TEST_CASE("flow network: local re-solves checked by the bottleneck rule equal a from-scratch allocation",
          "[network]") {
  // The local path (set_always_local(): tried on every reallocation) re-solves only the flows on
  // touched directions and keeps the result when every affected flow still has a bottleneck; else it
  // falls back to the component search. Either way the rates must be max-min fair: equal to a fresh
  // network's, never over a capacity.
  std::mt19937_64 rng(5);
  constexpr int kChannels = 10;
  for (int trial = 0; trial < 60; ++trial) {
    const std::vector<double> capacity = random_capacities(rng, kChannels);
    FlowNetwork net(capacity);
    net.set_always_local();
    bool overloaded = false;
    net.set_observer([&](const FlowNetwork& n, Duration) { overloaded |= n.find_overloaded(1e-8).has_value(); });
    std::vector<Live> live;
    std::vector<FlowId> changed;
    Duration now;
    for (int step = 0; step < 80; ++step) {
      now += Duration{std::int64_t(1 + rng() % 3)};
      if (!live.empty() && rng() % 2 == 0) {
        const std::size_t k = rng() % live.size();
        net.finish(live[k].id, now);
        live.erase(live.begin() + std::ptrdiff_t(k));
      }
      const int starts = int(rng() % 3);
      for (int s = 0; s < starts; ++s) {
        const std::vector<DirectionId> route = random_route(rng, kChannels, 4);
        const double cap = rng() % 4 == 0 ? 0.1 + double(rng() % 5) * 0.1 : sim::detail::kUnlimitedRate;
        live.push_back(Live{net.start(net.add_route(route), 1e6, now, cap), route, cap});
      }
      changed.clear();
      net.reallocate(now, changed);
      const std::vector<double> want = from_scratch(capacity, live, now);
      for (std::size_t i = 0; i < live.size(); ++i) {
        CHECK(net.rate(live[i].id) == Approx(want[i]).epsilon(1e-8));
        CHECK(net.rate(live[i].id) > 0);
      }
    }
    CHECK_FALSE(overloaded);
  }
}

TEST_CASE("flow network: a direction listed m times in a route carries m x the flow's rate (folded flows)",
          "[flow_network]") {
  // d (30 B/ps) carries A twice and B once; e (6 B/ps) carries A once. Progressive filling by hand:
  // e's share is 6, d's 30 / 3 = 10, so A freezes at 6 on e; d has 30 - 2 x 6 = 18 left for B.
  FlowNetwork net({30.0, 6.0});
  const DirectionId d = 0, e = 1;
  const RouteId a_route = net.add_route(std::vector<DirectionId>{d, e, d});
  const RouteId b_route = net.add_route(std::vector<DirectionId>{d});
  CHECK(net.route(a_route).size() == 2);  // listed once each
  const FlowId a = net.start(a_route, 600.0, Duration{});
  const FlowId b = net.start(b_route, 1800.0, Duration{});
  std::vector<FlowId> changed;
  net.reallocate(Duration{}, changed);
  CHECK(net.rate(a) == Approx(6.0));
  CHECK(net.rate(b) == Approx(18.0));
  CHECK(net.load(d) == Approx(30.0));
  CHECK(net.direction_bytes(d) == 2 * 600.0 + 1800.0);
  CHECK(net.direction_bytes(e) == 600.0);
  // Alone on a wide e, A runs at d's capacity over its two crossings: 30 / 2.
  FlowNetwork wide({30.0, 100.0});
  const FlowId alone = wide.start(wide.add_route(std::vector<DirectionId>{d, e, d}), 600.0, Duration{});
  wide.reallocate(Duration{}, changed);
  CHECK(wide.rate(alone) == Approx(15.0));
  CHECK(wide.finish_time(alone, Duration{}) == Duration{40});
}

namespace {
/// Max-min rates by textbook progressive filling, independent of FlowNetwork: raise every unfrozen
/// flow's rate by the largest equal step that no direction or cap refuses, freeze the flows on full
/// directions and at their caps, repeat. A route lists a direction once per crossing; a flow takes
/// its cost there (1 without costs) times its rate of each crossed direction.
std::vector<double> progressive_filling(const std::vector<double>& capacity, const std::vector<Live>& live) {
  std::vector<double> rate(live.size(), 0.0), residual = capacity;
  std::vector<bool> frozen(live.size(), false);
  const auto cost = [&](std::size_t i, std::size_t k) { return live[i].costs.empty() ? 1.0 : live[i].costs[k]; };
  for (std::size_t left = live.size(); left > 0;) {
    std::vector<double> crossings(capacity.size(), 0.0);
    for (std::size_t i = 0; i < live.size(); ++i)
      if (!frozen[i])
        for (std::size_t k = 0; k < live[i].route.size(); ++k) crossings[live[i].route[k]] += cost(i, k);
    double step = sim::detail::kUnlimitedRate;
    for (std::size_t c = 0; c < capacity.size(); ++c)
      if (crossings[c] > 0) step = std::min(step, residual[c] / crossings[c]);
    for (std::size_t i = 0; i < live.size(); ++i)
      if (!frozen[i]) step = std::min(step, live[i].cap - rate[i]);
    for (std::size_t i = 0; i < live.size(); ++i) {
      if (frozen[i]) continue;
      rate[i] += step;
      for (std::size_t k = 0; k < live[i].route.size(); ++k) residual[live[i].route[k]] -= step * cost(i, k);
    }
    for (std::size_t i = 0; i < live.size(); ++i) {
      if (frozen[i]) continue;
      bool full = rate[i] >= live[i].cap * (1 - 1e-12);
      for (DirectionId c : live[i].route) full = full || residual[c] <= capacity[c] * 1e-12;
      if (!full) continue;
      frozen[i] = true;
      --left;
    }
  }
  return rate;
}
}  // namespace

namespace {
using Segments = std::vector<std::vector<DirectionId>>;

/// Random chains (6 segments of 1 to 3 directions of unequal capacity, which routes cross together)
/// and 60 steps of flows finishing and starting, 40 trials, every other one with local re-solves
/// forced: every reallocation must equal textbook filling and overload nothing. make_flow(rng,
/// step, segments) gives each new flow's route, cap and costs.
template <class MakeFlow>
void check_chains_against_textbook(std::uint64_t seed, MakeFlow make_flow) {
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<double> capacity;
    Segments segments;
    for (int s = 0; s < 6; ++s) {
      std::vector<DirectionId> segment;
      const int length = 1 + int(rng() % 3);
      for (int k = 0; k < length; ++k) {
        segment.push_back(DirectionId(capacity.size()));
        capacity.push_back(0.5 + double(rng() % 6) * 0.25);
      }
      segments.push_back(segment);
    }
    FlowNetwork net(capacity);
    if (trial % 2 == 0) net.set_always_local();
    std::vector<Live> live;
    std::vector<FlowId> changed;
    Duration now;
    for (int step = 0; step < 60; ++step) {
      now += Duration{std::int64_t(1 + rng() % 3)};
      if (!live.empty() && rng() % 3 == 0) {
        const std::size_t k = rng() % live.size();
        net.finish(live[k].id, now);
        live.erase(live.begin() + std::ptrdiff_t(k));
      }
      for (int s = int(rng() % 3); s > 0; --s) {
        Live flow = make_flow(rng, step, segments);
        flow.id = net.start(net.add_route(flow.route, flow.costs), 1e6, now, flow.cap);
        live.push_back(flow);
      }
      changed.clear();
      net.reallocate(now, changed);
      const std::vector<double> want = progressive_filling(capacity, live);
      for (std::size_t i = 0; i < live.size(); ++i) CHECK(net.rate(live[i].id) == Approx(want[i]).epsilon(1e-9));
      CHECK_FALSE(net.find_overloaded(1e-9).has_value());
    }
  }
}
}  // namespace

TEST_CASE("flow network: twin directions (crossed by the same routes) leave the rates max-min fair", "[network]") {
  // Routes made of segments, each a chain of 1 to 3 directions of unequal capacity that routes
  // cross together (like a GPU's PCIe uplink and its NIC's port): the chain's directions carry the
  // same flows, and only the narrowest can limit them. Part-way through, routes that cross a single
  // direction of a chain (sometimes the narrowest, sometimes a wider one, sometimes twice) split the
  // twins. Every reallocation, with and without local re-solves, must equal textbook filling.
  check_chains_against_textbook(11, [](std::mt19937_64& rng, int step, const Segments& segments) {
    std::vector<DirectionId> route;
    if (step >= 30 && rng() % 3 == 0) {  // one direction of a chain, once or twice
      const std::vector<DirectionId>& segment = segments[rng() % segments.size()];
      route.assign(1 + rng() % 2, segment[rng() % segment.size()]);
    } else {
      for (int n = 1 + int(rng() % 3); n > 0; --n) {
        const std::vector<DirectionId>& segment = segments[rng() % segments.size()];
        if (std::find(route.begin(), route.end(), segment.front()) == route.end())
          route.insert(route.end(), segment.begin(), segment.end());
      }
    }
    const double cap = rng() % 5 == 0 ? 0.1 + double(rng() % 5) * 0.1 : sim::detail::kUnlimitedRate;
    return Live{0, route, cap};
  });
}

TEST_CASE("flow network: a flow's cost on a direction takes that many bytes of capacity per byte it moves",
          "[network]") {
  // d (12 B/ps) carries A at cost 1.2 and B at 1; e (3 B/ps) carries B. By hand: d's share is
  // 12 / 2.2 = 5.45, e's 3, so B freezes at 3 on e; d has 12 - 3 = 9 left, A's 1.2 per byte: A = 7.5.
  FlowNetwork net({12.0, 3.0});
  const DirectionId d = 0, e = 1;
  const RouteId a_route = net.add_route(std::vector<DirectionId>{d}, std::vector<double>{1.2});
  const RouteId b_route = net.add_route(std::vector<DirectionId>{d, e});
  const FlowId a = net.start(a_route, 750.0, Duration{});
  const FlowId b = net.start(b_route, 300.0, Duration{});
  std::vector<FlowId> changed;
  net.reallocate(Duration{}, changed);
  CHECK(net.rate(a) == Approx(7.5));
  CHECK(net.rate(b) == Approx(3.0));
  CHECK(net.load(d) == Approx(12.0));
  CHECK_FALSE(net.find_overloaded(1e-9).has_value());
  // Statistics count the bytes moved, not the capacity taken.
  CHECK(net.direction_bytes(d) == 750.0 + 300.0);
  // Both finish at 100 ps; alone, A runs at 12 / 1.2 = 10 B/ps exactly.
  const auto done = run_to_completion(net, {a, b});
  CHECK(done[0] == 100_ps);
  CHECK(done[1] == 100_ps);
  FlowNetwork alone({12.0});
  const FlowId f = alone.start(alone.add_route(std::vector<DirectionId>{d}, std::vector<double>{1.2}), 120.0, Duration{});
  alone.reallocate(Duration{}, changed);
  CHECK(alone.rate(f) == 10.0);
  CHECK(alone.finish_time(f, Duration{}) == Duration{12});
  // A cost and a repeat add up: listed twice at 1.2, the flow takes 2.4 of d per byte.
  FlowNetwork twice({12.0});
  const FlowId g = twice.start(twice.add_route(std::vector<DirectionId>{d, d}, std::vector<double>{1.2, 1.2}), 50.0,
                               Duration{});
  twice.reallocate(Duration{}, changed);
  CHECK(twice.rate(g) == Approx(5.0));
  CHECK(twice.direction_bytes(d) == 2 * 50.0);
}

TEST_CASE("flow network: with costs, incremental and local re-solves equal textbook filling", "[network]") {
  // As the twin test: chains that routes cross together, now at costs 1, 1.2 or 1.5 per direction
  // (some routes cost a whole chain alike, some only part of it, which splits its twins).
  check_chains_against_textbook(23, [](std::mt19937_64& rng, int, const Segments& segments) {
    const double kCosts[] = {1.0, 1.2, 1.5};
    Live flow{0, {}, rng() % 5 == 0 ? 0.1 + double(rng() % 5) * 0.1 : sim::detail::kUnlimitedRate};
    const bool per_direction = rng() % 2 == 0;
    for (int n = 1 + int(rng() % 3); n > 0; --n) {
      const std::vector<DirectionId>& segment = segments[rng() % segments.size()];
      if (std::find(flow.route.begin(), flow.route.end(), segment.front()) != flow.route.end()) continue;
      const double chain_cost = kCosts[rng() % 3];
      for (DirectionId c : segment) {
        flow.route.push_back(c);
        flow.costs.push_back(per_direction ? kCosts[rng() % 3] : chain_cost);
      }
    }
    return flow;
  });
}
