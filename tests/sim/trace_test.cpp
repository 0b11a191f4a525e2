// Chrome trace export: valid JSON, one complete event per op, durations equal to the timeline.
#include <catch2/catch.hpp>

#include <sstream>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

#include "hand_topologies.hpp"
#include "ringlab/sim/simulator.hpp"
#include "ringlab/sim/trace.hpp"

using namespace ringlab;
using namespace ringlab::sim;
using namespace ringlab::literals;

namespace {
struct Traced {
  test::StarCluster cluster = test::star_cluster(2, 2);
  Schedule schedule{Collective::AllGather, "hand", 8_MiB,
                    std::vector<DeviceId>{cluster.gpus[0][0], cluster.gpus[0][1], cluster.gpus[1][0], cluster.gpus[1][1]}};
  Result result;
};

Traced traced_run() {
  Traced t;
  const OpId recv = t.schedule.add_transfer(0, 2, 0_B, 4_MiB, {}, {}, 0, 0);
  t.schedule.add_local(OpKind::Reduce, 2, 0_B, 4_MiB, std::vector<OpId>{recv}, 0, 0);
  t.schedule.add_transfer(1, 3, 0_B, 2_MiB, {}, {}, 1, 0);
  SimOptions options;
  options.record_timeline = true;
  t.result = Simulator(t.cluster.topology, options).run(t.schedule);
  return t;
}
}  // namespace

TEST_CASE("trace: one complete event per op with the timeline's times in microseconds", "[trace]") {
  const Traced t = traced_run();
  std::ostringstream out;
  write_chrome_trace(out, t.schedule, t.result, t.cluster.topology);
  const auto json = nlohmann::json::parse(out.str());
  REQUIRE(json.contains("traceEvents"));
  std::vector<nlohmann::json> complete;
  int process_names = 0;
  for (const auto& event : json["traceEvents"]) {
    if (event["ph"] == "X") complete.push_back(event);
    if (event["ph"] == "M" && event["name"] == "process_name") ++process_names;
  }
  CHECK(process_names == int(t.schedule.endpoints().size()));
  REQUIRE(complete.size() == t.schedule.ops().size());
  for (const auto& event : complete) {
    const OpId id = event["args"]["op"];
    const OpSpan& span = t.result.timeline[id];
    CHECK(event["pid"] == t.schedule.op(id).at);
    CHECK(event["tid"] == t.schedule.op(id).channel);
    CHECK(event["ts"].get<double>() == Approx(span.start.microseconds()));
    CHECK(event["dur"].get<double>() == Approx((span.end - span.start).microseconds()));
  }
  CHECK(complete[0]["name"] == "send 4MiB -> rank 2");
  CHECK(complete[1]["name"] == "recv 4MiB <- rank 0");
  CHECK(complete[2]["name"] == "reduce 4MiB");
}

TEST_CASE("trace: output is deterministic and needs a timeline", "[trace]") {
  const Traced a = traced_run();
  const Traced b = traced_run();
  std::ostringstream first, second;
  write_chrome_trace(first, a.schedule, a.result, a.cluster.topology);
  write_chrome_trace(second, b.schedule, b.result, b.cluster.topology);
  CHECK(first.str() == second.str());
  Result no_timeline = a.result;
  no_timeline.timeline.clear();
  std::ostringstream out;
  CHECK_THROWS_AS(write_chrome_trace(out, a.schedule, no_timeline, a.cluster.topology), std::invalid_argument);
}
