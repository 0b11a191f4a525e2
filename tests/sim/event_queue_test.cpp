// The event core: ordering by (time, insertion), lazy cancellation, determinism.
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "../../sim/src/engine/event_queue.hpp"

using namespace ringlab;
using namespace ringlab::literals;
using ringlab::sim::detail::Event;
using ringlab::sim::detail::EventId;
using ringlab::sim::detail::EventQueue;
using ringlab::sim::detail::kNoEvent;

namespace {
std::vector<std::uint32_t> drain_targets(EventQueue& queue) {
  std::vector<std::uint32_t> order;
  while (auto event = queue.step()) order.push_back(event->target);
  return order;
}
}  // namespace

TEST_CASE("event queue: events pop in time order and now() follows them", "[engine]") {
  EventQueue queue;
  queue.schedule(30_ns, 3, 0);
  queue.schedule(10_ns, 1, 0);
  queue.schedule(20_ns, 2, 0);
  CHECK(queue.pending() == 3);
  REQUIRE(queue.next_time() == 10_ns);
  auto first = queue.step();
  REQUIRE(first);
  CHECK(first->target == 1);
  CHECK(first->time == 10_ns);
  CHECK(queue.now() == 10_ns);
  CHECK(drain_targets(queue) == std::vector<std::uint32_t>{2, 3});
  CHECK(queue.now() == 30_ns);
  CHECK(queue.empty());
  CHECK(!queue.step());
  CHECK(queue.processed() == 3);
}

TEST_CASE("event queue: equal times pop in insertion order", "[engine]") {
  EventQueue queue;
  for (std::uint32_t i = 0; i < 100; ++i) queue.schedule(5_ns, i, 7);
  queue.schedule(1_ns, 1000, 0);
  const auto order = drain_targets(queue);
  REQUIRE(order.size() == 101);
  CHECK(order[0] == 1000);
  for (std::uint32_t i = 0; i < 100; ++i) CHECK(order[i + 1] == i);
}

TEST_CASE("event queue: events scheduled at now() during a step still run at now()", "[engine]") {
  EventQueue queue;
  queue.schedule(4_ns, 1, 0);
  queue.schedule(9_ns, 3, 0);
  REQUIRE(queue.step()->target == 1);
  queue.schedule(queue.now(), 2, 0);
  auto next = queue.step();
  CHECK(next->target == 2);
  CHECK(next->time == 4_ns);
  CHECK(queue.step()->target == 3);
}

TEST_CASE("event queue: cancelled events never fire, cancel is idempotent", "[engine]") {
  EventQueue queue;
  const EventId a = queue.schedule(1_ns, 1, 0);
  const EventId b = queue.schedule(2_ns, 2, 0);
  const EventId c = queue.schedule(3_ns, 3, 0);
  CHECK(a != kNoEvent);
  queue.cancel(b);
  queue.cancel(b);
  queue.cancel(kNoEvent);
  CHECK(queue.pending() == 2);
  CHECK(!queue.is_pending(b));
  CHECK(queue.is_pending(c));
  // A new event may reuse b's slot; the old id must stay dead.
  const EventId d = queue.schedule(2_ns, 4, 0);
  CHECK(!queue.is_pending(b));
  CHECK(queue.is_pending(d));
  queue.cancel(b);
  CHECK(queue.is_pending(d));
  CHECK(drain_targets(queue) == std::vector<std::uint32_t>{1, 4, 3});
  // Cancelling an event that already fired changes nothing.
  queue.cancel(a);
  CHECK(queue.empty());
}

TEST_CASE("event queue: cancelling the earliest event exposes the next one", "[engine]") {
  EventQueue queue;
  const EventId a = queue.schedule(1_ns, 1, 0);
  queue.schedule(2_ns, 2, 0);
  queue.cancel(a);
  CHECK(queue.next_time() == 2_ns);
  CHECK(queue.step()->target == 2);
}

TEST_CASE("event queue: random schedules pop sorted by (time, sequence), reproducibly", "[engine]") {
  auto run = [](std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    EventQueue queue;
    std::vector<EventId> ids;
    std::vector<Event> popped;
    for (int round = 0; round < 2000; ++round) {
      const int action = int(rng() % 5);
      if (action == 4) {
        // Looking ahead must not disturb the order of events scheduled afterwards at earlier times.
        queue.next_time();
      } else if (action < 2) {
        const Duration at = queue.now() + Duration{std::int64_t(rng() % 50)};
        ids.push_back(queue.schedule(at, std::uint32_t(round), std::uint32_t(action)));
      } else if (action == 2 && !ids.empty()) {
        queue.cancel(ids[rng() % ids.size()]);
      } else if (auto event = queue.step()) {
        popped.push_back(*event);
      }
    }
    while (auto event = queue.step()) popped.push_back(*event);
    return popped;
  };
  const auto a = run(42);
  const auto b = run(42);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].time == b[i].time);
    CHECK(a[i].target == b[i].target);
    if (i == 0) continue;
    CHECK(a[i - 1].time <= a[i].time);  // time never runs backwards
    // Among equal times, insertion order (the target is the insertion round here).
    if (a[i - 1].time == a[i].time) CHECK(a[i - 1].target < a[i].target);
  }
}

TEST_CASE("event queue: flows rescheduled to instants of their own pop exactly like a reference queue",
          "[engine]") {
  // Each of 3,000 "flows" is rescheduled again and again to a distinct far-off instant, as a re-solve
  // does, so tens of thousands of instants lose their only event and the queue drops them in bulk
  // (more than 1,024 dead instants). A sorted map of the live events is the reference.
  std::mt19937_64 rng(7);
  EventQueue queue;
  std::map<std::pair<std::int64_t, EventId>, std::uint64_t> reference;  // (time ps, id) -> target
  std::vector<EventId> flow_event(3000, kNoEvent);
  std::vector<std::int64_t> flow_time(3000, 0);
  auto reschedule = [&](std::size_t flow) {
    if (flow_event[flow] != kNoEvent && queue.is_pending(flow_event[flow])) {
      queue.cancel(flow_event[flow]);
      reference.erase({flow_time[flow], flow_event[flow]});
    }
    flow_time[flow] = queue.now().picoseconds() + 1 + std::int64_t(rng() % 10'000'000);
    flow_event[flow] = queue.schedule(Duration{flow_time[flow]}, flow, 0);
    reference.emplace(std::pair{flow_time[flow], flow_event[flow]}, flow);
  };
  for (std::size_t flow = 0; flow < flow_event.size(); ++flow) reschedule(flow);
  std::size_t popped = 0;
  for (int round = 0; round < 200'000; ++round) {
    if (rng() % 8 != 0) {
      reschedule(std::size_t(rng() % flow_event.size()));
      continue;
    }
    const auto event = queue.step();
    REQUIRE(event);
    const auto expected = reference.begin();
    REQUIRE(event->time.picoseconds() == expected->first.first);
    REQUIRE(event->id == expected->first.second);
    REQUIRE(event->target == expected->second);
    reference.erase(expected);
    ++popped;
    reschedule(std::size_t(event->target));  // the flow's next transfer
    REQUIRE(queue.pending() == reference.size());
  }
  CHECK(popped > 20'000);
  std::vector<Event> pending;
  queue.pending_events(pending);
  REQUIRE(pending.size() == reference.size());
  auto it = reference.begin();
  for (const Event& event : pending) {
    CHECK(event.time.picoseconds() == it->first.first);
    CHECK(event.id == it->first.second);
    ++it;
  }
}

TEST_CASE("event queue: an event deferred with a reserved sequence pops where an immediate one would",
          "[engine]") {
  // Queue `eager` cancels and reschedules at once; queue `lazy` does what the simulator does for a
  // flow whose completion moves later: keeps the pending event, reserves the sequence, and when the
  // event pops early, schedules it with that sequence. Times come from a few instants so that ties
  // are everywhere; every real pop must match, target and time, and the early ones must be exactly
  // those the lazy queue re-armed.
  std::mt19937_64 rng(11);
  constexpr std::size_t kFlows = 500;
  EventQueue eager, lazy;
  std::vector<EventId> eager_event(kFlows, kNoEvent), lazy_event(kFlows, kNoEvent);
  std::vector<std::int64_t> finish(kFlows, 0), lazy_at(kFlows, 0);
  std::vector<std::uint64_t> rearm(kFlows, 0);
  auto reschedule = [&](std::size_t flow) {
    const std::int64_t now = eager.now().picoseconds();
    REQUIRE(lazy.now().picoseconds() == now);
    finish[flow] = now + 1 + std::int64_t(rng() % 40) * 1000;
    eager.cancel(eager_event[flow]);
    eager_event[flow] = eager.schedule(Duration{finish[flow]}, flow, 0);
    if (lazy.is_pending(lazy_event[flow]) && finish[flow] > lazy_at[flow]) {
      rearm[flow] = lazy.reserve_sequence();
      return;
    }
    rearm[flow] = 0;
    lazy.cancel(lazy_event[flow]);
    lazy_event[flow] = lazy.schedule(Duration{finish[flow]}, flow, 0);
    lazy_at[flow] = finish[flow];
  };
  for (std::size_t flow = 0; flow < kFlows; ++flow) reschedule(flow);
  std::size_t early = 0, real = 0;
  for (int round = 0; round < 100'000; ++round) {
    if (rng() % 3 != 0) {
      reschedule(std::size_t(rng() % kFlows));
      continue;
    }
    auto next = lazy.step();
    REQUIRE(next);
    while (rearm[next->target] != 0) {  // early: on to the recorded finish, with its sequence
      const std::size_t flow = next->target;
      lazy_event[flow] = lazy.schedule_reserved(Duration{finish[flow]}, rearm[flow], flow, 0);
      lazy_at[flow] = finish[flow];
      rearm[flow] = 0;
      ++early;
      next = lazy.step();
      REQUIRE(next);
    }
    const auto expected = eager.step();
    REQUIRE(expected);
    REQUIRE(next->target == expected->target);
    REQUIRE(next->time == expected->time);
    ++real;
    reschedule(std::size_t(next->target));
  }
  CHECK(real > 20'000);
  CHECK(early > 1'000);
  CHECK(lazy.processed() - early == eager.processed());
}

TEST_CASE("event queue: an event scheduled after a look-ahead, before the next one, comes first", "[engine]") {
  EventQueue queue;
  queue.schedule(1_ns, 1, 0);
  queue.schedule(100_ns, 3, 0);
  REQUIRE(queue.step()->target == 1);
  CHECK(queue.next_time() == 100_ns);
  queue.schedule(50_ns, 2, 0);
  queue.schedule(50_ns, 4, 0);
  queue.schedule(100_ns, 5, 0);
  CHECK(queue.next_time() == 50_ns);
  CHECK(drain_targets(queue) == std::vector<std::uint32_t>{2, 4, 3, 5});
}

TEST_CASE("event queue: far-apart and equal times mix correctly", "[engine]") {
  EventQueue queue;
  const std::vector<std::int64_t> times{1LL << 40, 3, 3, (1LL << 40) + 1, 7, 1LL << 20, 3, 0};
  for (std::uint32_t i = 0; i < times.size(); ++i) queue.schedule(Duration{times[i]}, i, 0);
  CHECK(drain_targets(queue) == std::vector<std::uint32_t>{7, 1, 2, 6, 4, 5, 0, 3});
}

TEST_CASE("event queue: reset returns to time zero and kills old ids", "[engine]") {
  EventQueue queue;
  const EventId a = queue.schedule(5_ns, 1, 0);
  queue.reset();
  CHECK(queue.now() == Duration{});
  CHECK(queue.empty());
  CHECK(!queue.is_pending(a));
  queue.schedule(1_ns, 2, 0);
  queue.cancel(a);
  CHECK(queue.pending() == 1);
  CHECK(queue.step()->target == 2);
}
