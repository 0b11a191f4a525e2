// The harness's arithmetic: nccl-tests' size sweep (checked against the sizes a real all_reduce_perf run
// printed), iteration statistics (hand-computed) and the measured Result.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "ringlab/validate/measure.hpp"

using namespace ringlab;
using namespace ringlab::validate;

TEST_CASE("size_sweep: -b 8 -e 1G -f 4 gives the sizes nccl-tests printed") {
  // tests/data/nccl_tests/h100-1gpu/all_reduce_perf.txt: the first column of every row.
  std::ifstream in(std::string(RINGLAB_SOURCE_DIR) + "/tests/data/nccl_tests/h100-1gpu/all_reduce_perf.txt");
  REQUIRE(in);
  std::vector<std::int64_t> printed;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::int64_t size = 0;
    if (fields >> size) printed.push_back(size);
  }
  REQUIRE(printed.size() == 14);
  const std::vector<Bytes> sizes = size_sweep(Bytes{8}, Bytes{1} * 1073741824, 4, Bytes{0}, 4, 1);
  std::vector<std::int64_t> ours;
  for (Bytes b : sizes) ours.push_back(b.count());
  // nccl-tests stops at 512 MiB: the next step, 2 GiB, is above -e 1G.
  ours.resize(std::min(ours.size(), printed.size()));
  CHECK(ours == printed);
  CHECK(sizes.size() == 14);
}

TEST_CASE("size_sweep: increments, and rounding to whole blocks of every rank") {
  const std::vector<Bytes> added = size_sweep(Bytes{1000}, Bytes{4000}, 1, Bytes{1000}, 4, 1);
  REQUIRE(added.size() == 4);
  CHECK(added[3].count() == 4000);
  // 3 ranks of float: multiples of 12 bytes, at least 12.
  const std::vector<Bytes> blocked = size_sweep(Bytes{1}, Bytes{1000}, 1000, Bytes{0}, 4, 3);
  REQUIRE(blocked.size() == 2);
  CHECK(blocked[0].count() == 12);
  CHECK(blocked[1].count() == 996);
}

TEST_CASE("iteration_stats: min, median, mean, max and p99 by hand") {
  const std::vector<Duration> odd = {Duration{5}, Duration{1}, Duration{3}, Duration{2}, Duration{4}};
  const sim::IterationStats a = iteration_stats(odd, 2);
  CHECK(a.count == 5);
  CHECK(a.warmup == 2);
  CHECK(a.min == Duration{1});
  CHECK(a.median == Duration{3});
  CHECK(a.mean == Duration{3});
  CHECK(a.max == Duration{5});
  CHECK(a.p99 == Duration{5});
  const std::vector<Duration> even = {Duration{1000}, Duration{4000}, Duration{2000}, Duration{3000}};
  CHECK(iteration_stats(even, 0).median == Duration{2500});
  std::vector<Duration> hundreds;
  for (int i = 200; i >= 1; --i) hundreds.push_back(Duration{i});
  CHECK(iteration_stats(hundreds, 0).p99 == Duration{198});  // ceil(0.99 * 200) = 198th smallest
}

TEST_CASE("measured_result: the median iteration is the time, per-rank medians the rank times") {
  Measurement m;
  m.collective = sim::Collective::AllGather;
  m.algorithm = "nccl";
  m.message = Bytes{1} * 1048576;
  m.ranks = 2;
  m.iterations = {Duration::from_us(30), Duration::from_us(10), Duration::from_us(20)};
  m.rank_median = {Duration::from_us(19), Duration::from_us(20)};
  m.warmup = 1;
  m.wrong = 0;
  const sim::Result r = measured_result(m, sim::ResultSource{sim::ResultKind::Measured, "nccl 2.28.3", {"a", "b"}},
                                        sim::RunKey{"", "float", "", 0, ""});
  CHECK(r.time == Duration::from_us(20));
  CHECK(r.source.kind == sim::ResultKind::Measured);
  CHECK(r.rank_finish.size() == 2);
  REQUIRE(r.iterations);
  CHECK(r.iterations->max == Duration::from_us(30));
  CHECK(r.wrong == 0);
  // algbw = 1 MiB / 20 us; busbw for an all-gather on 2 ranks is (n-1)/n of it.
  CHECK(r.algbw().bytes_per_second() == Approx(1048576 / 20e-6));
  CHECK(r.busbw().bytes_per_second() == Approx(1048576 / 20e-6 / 2));
}
