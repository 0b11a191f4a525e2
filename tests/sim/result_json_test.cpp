// Results files: byte-identical round trips, errors that name the JSON pointer, and per-rank finish
// times checked against hand-computed cases.
#include <catch2/catch.hpp>

#include <sstream>

#include "collective_fixtures.hpp"
#include "ringlab/sim/result_json.hpp"
#include "ringlab/sim/run_collective.hpp"
#include "ringlab/topology/error.hpp"

using namespace ringlab;
using namespace ringlab::sim;
using namespace ringlab::literals;

namespace {

std::string write(std::span<const Result> results, const Topology* t = nullptr) {
  std::ostringstream out;
  write_results_json(out, results, t);
  return out.str();
}

std::vector<std::string> problems_of(const std::string& text) {
  try {
    read_results_json(nlohmann::json::parse(text), "r.json");
  } catch (const InputError& e) {
    std::vector<std::string> out;
    for (const Problem& p : e.problems()) out.push_back(p.to_string());
    return out;
  }
  return {};
}

Result measured_row() {
  Result m;
  m.source = {ResultKind::Measured, "nccl 2.21.5", {"node0", "node1"}};
  m.key = {"", "float", "ll128", 16, "00ff00ff00ff00ff"};
  m.collective = Collective::AllReduce;
  m.algorithm = "ring";
  m.message = 64_MiB;
  m.ranks = 16;
  m.time = Duration::from_us(1000);
  m.rank_finish = {Duration::from_us(990), Duration::from_us(1000)};
  m.iterations = IterationStats{20, 5, Duration::from_us(980), Duration::from_us(1000), Duration::from_us(1003),
                                Duration::from_us(1040)};
  m.wrong = 0;
  return m;
}

}  // namespace

TEST_CASE("results files round-trip byte for byte: simulated and measured", "[result_json]") {
  const test::Cluster c = test::leaf_cluster(2, 2, 100_Gbps, Duration::from_us(1), Duration::from_us(2));
  CollectiveRequest r;
  r.message = 8_MiB;
  r.order.ranks = c.gpus;
  r.options.record_rank_finish = true;
  const CollectiveOutcome simulated = run_collective(c.topology, r);
  REQUIRE(simulated.applicable());
  const std::vector<Result> results{*simulated.result, measured_row()};
  for (const Topology* t : {static_cast<const Topology*>(nullptr), &c.topology}) {
    const std::string first = write(results, t);
    const std::vector<Result> read = read_results_json(nlohmann::json::parse(first), "r.json");
    REQUIRE(read.size() == 2);
    CHECK(write(read, t) == first);
    CHECK(read[0].time == simulated.result->time);
    CHECK(read[0].rank_finish == simulated.result->rank_finish);
    CHECK(read[0].key == simulated.result->key);
    CHECK(read[0].source.engine == "ringlab-flow " + std::string("0.1.0"));
    CHECK(read[1].iterations == measured_row().iterations);
    CHECK(read[1].source.hosts == measured_row().source.hosts);
    CHECK(read[1].source.kind == ResultKind::Measured);
    REQUIRE(read[1].wrong);
    CHECK(*read[1].wrong == 0);
  }
}

TEST_CASE("bad results files name the JSON pointer and what was expected", "[result_json]") {
  const std::string good = write(std::vector<Result>{measured_row()});
  CHECK(problems_of(good).empty());
  auto with = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
  };
  CHECK_THAT(problems_of(with("\"version\":1", "\"version\":2")).front(),
             Catch::Contains("r.json: /version: unsupported version 2"));
  CHECK_THAT(problems_of(with("\"ringlab.results\"", "\"ringlab.schedule\"")).front(),
             Catch::Contains("/schema: expected schema \"ringlab.results\""));
  CHECK_THAT(problems_of(with("\"time_ps\":1000000000", "\"time_ps\":\"1ms\"")).front(),
             Catch::Contains("r.json: /results/0/time_ps"));
  CHECK_THAT(problems_of(with("\"kind\":\"measured\"", "\"kind\":\"guessed\"")).front(),
             Catch::Contains("/results/0/source/kind: unknown value 'guessed'"));
  CHECK_THAT(problems_of(with("\"min_ps\":980000000", "\"min_ps\":1100000000")).front(),
             Catch::Contains("/results/0/iterations: expected min <= median, mean <= max"));
  CHECK_THAT(problems_of(with("\"collective\":\"allreduce\",", "")).front(),
             Catch::Contains("/results/0/collective: missing required field"));
  CHECK_THAT(problems_of(with("\"wrong\":0", "\"wrong\":-1")).front(), Catch::Contains("/results/0/wrong"));
  // A folded run says so; a fold below 1 is no fold.
  Result folded = measured_row();
  folded.channel_fold = 8;
  const std::string with_fold = write(std::vector<Result>{folded});
  CHECK(read_results_json(nlohmann::json::parse(with_fold), "r.json").front().channel_fold == 8);
  std::string zero = with_fold;
  zero.replace(zero.find("\"channel_fold\":8"), 16, "\"channel_fold\":0");
  CHECK_THAT(problems_of(zero).front(), Catch::Contains("/results/0/channel_fold"));
}

TEST_CASE("per-rank finish times: the last rank finishes at the run's time, a chain's root first", "[result_json]") {
  // Broadcast along a chain 0 -> 1 -> 2 on a full mesh (no sharing), one piece, B = 100 Gb/s, no
  // latency: rank 0's send completes at N/B, rank 1 forwards after it arrives and finishes at
  // 2N/B, when rank 2 receives.
  const test::Cluster c = test::full_mesh(3, 100_Gbps, Duration{});
  CollectiveRequest r;
  r.collective = Collective::Broadcast;
  r.message = 16_MiB;
  r.order.ranks = c.gpus;
  r.options.calibration.model_compute = false;
  r.options.record_rank_finish = true;
  const CollectiveOutcome out = run_collective(c.topology, r);
  REQUIRE(out.applicable());
  const double hop = 16.0 * 1024 * 1024 * 8 / 100e9;
  REQUIRE(out.result->rank_finish.size() == 3);
  CHECK(out.result->rank_finish[0].seconds() == Approx(hop).epsilon(1e-9));
  CHECK(out.result->rank_finish[1].seconds() == Approx(2 * hop).epsilon(1e-9));
  CHECK(out.result->rank_finish[2] == out.result->time);

  // A flat ring allreduce (compact schedule): the latest rank finish is the run's time.
  const test::Cluster l = test::leaf_cluster(4, 2, 100_Gbps, Duration::from_us(1));
  CollectiveRequest ring;
  ring.message = 4_MiB;
  ring.order.ranks = l.gpus;
  CHECK(run_collective(l.topology, ring).result->rank_finish.empty());  // off unless asked for
  ring.options.record_rank_finish = true;
  const Result res = *run_collective(l.topology, ring).result;
  REQUIRE(res.rank_finish.size() == l.gpus.size());
  CHECK(*std::max_element(res.rank_finish.begin(), res.rank_finish.end()) == res.time);
}
