// Catch2 check shared by the tests that run one collective two ways (explicit vs compact schedule,
// repeat shortcut on vs off) and require the very same Result.
#pragma once

#include <catch2/catch.hpp>

#include <cstddef>

#include "ringlab/sim/result.hpp"

namespace ringlab::test {

/// Every simulated field equal: time, counts, per-direction statistics, bottlenecks, critical path,
/// timeline and per-rank finish (the last two when recorded).
inline void require_same_result(const sim::Result& a, const sim::Result& b) {
  REQUIRE(a.time == b.time);
  REQUIRE(a.events == b.events);
  REQUIRE(a.flows == b.flows);
  REQUIRE(a.rate_updates == b.rate_updates);
  REQUIRE(a.directions.size() == b.directions.size());
  for (std::size_t i = 0; i < a.directions.size(); ++i) {
    INFO("direction " << a.directions[i].direction);
    REQUIRE(a.directions[i].direction == b.directions[i].direction);
    REQUIRE(a.directions[i].bytes == b.directions[i].bytes);
    REQUIRE(a.directions[i].busy == b.directions[i].busy);
    REQUIRE(a.directions[i].utilisation == b.directions[i].utilisation);
  }
  REQUIRE(a.bottlenecks == b.bottlenecks);
  REQUIRE(a.critical_path == b.critical_path);
  REQUIRE(a.rank_finish == b.rank_finish);
  REQUIRE(a.timeline.size() == b.timeline.size());
  for (std::size_t i = 0; i < a.timeline.size(); ++i) {
    REQUIRE(a.timeline[i].start == b.timeline[i].start);
    REQUIRE(a.timeline[i].end == b.timeline[i].end);
  }
}

}  // namespace ringlab::test
