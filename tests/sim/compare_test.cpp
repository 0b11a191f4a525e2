// compare(): hand-made predicted and measured results with hand-computed errors.
#include <catch2/catch.hpp>

#include <sstream>

#include "ringlab/sim/compare.hpp"

using namespace ringlab;
using namespace ringlab::sim;
using namespace ringlab::literals;

namespace {

Result row(Bytes size, double us, ResultKind kind = ResultKind::Simulated) {
  Result r;
  r.source.kind = kind;
  r.collective = Collective::AllReduce;
  r.algorithm = "ring";
  r.message = size;
  r.ranks = 8;
  r.time = Duration::from_us(us);
  r.key.dtype = "float";
  r.key.protocol = "simple";
  r.key.channels = 2;
  return r;
}

}  // namespace

TEST_CASE("compare: per-size signed error, median and worst of |error|", "[compare]") {
  // +10 %, -20 %, +5 %: median |error| 10 %, worst 20 % at 4 MiB.
  const std::vector<Result> predicted{row(1_MiB, 1100), row(4_MiB, 800), row(16_MiB, 2100)};
  const std::vector<Result> measured{row(16_MiB, 2000, ResultKind::Measured), row(1_MiB, 1000, ResultKind::Measured),
                                     row(4_MiB, 1000, ResultKind::Measured)};
  const Comparison c = compare(predicted, measured);
  REQUIRE(c.rows.size() == 3);
  CHECK(c.rows[0].error == Approx(0.10));
  CHECK(c.rows[1].error == Approx(-0.20));
  CHECK(c.rows[2].error == Approx(0.05));
  CHECK(c.median_abs_error == Approx(0.10));
  CHECK(c.worst_abs_error == Approx(0.20));
  REQUIRE(c.worst);
  CHECK(c.rows[*c.worst].message == 4_MiB);
  CHECK(c.unmatched_predicted.empty());
  CHECK(c.unmatched_measured.empty());
  // busbw of the measured 1 MiB row: 1 MiB / 1 ms x 2(8-1)/8.
  CHECK(c.rows[0].measured_busbw.gigabytes_per_second() == Approx(1048576.0 / 1e-3 * 1.75 / 1e9));
  for (const ComparedRow& r : c.rows) CHECK(r.notes.empty());
}

TEST_CASE("compare: the median iteration is the measured time, even counts average the middle two", "[compare]") {
  Result m = row(1_MiB, 5000, ResultKind::Measured);  // time is not used when iterations are given
  m.iterations = IterationStats{10, 2, Duration::from_us(900), Duration::from_us(1000), Duration::from_us(1010),
                                Duration::from_us(1200)};
  const std::vector<Result> predicted{row(1_MiB, 1200), row(2_MiB, 1800)};
  const std::vector<Result> measured{m, row(2_MiB, 2000, ResultKind::Measured)};
  const Comparison c = compare(predicted, measured);
  REQUIRE(c.rows.size() == 2);
  CHECK(c.rows[0].measured == Duration::from_us(1000));
  CHECK(c.rows[0].error == Approx(0.20));
  CHECK(c.rows[1].error == Approx(-0.10));
  CHECK(c.median_abs_error == Approx(0.15));
}

TEST_CASE("compare: unmatched rows, configuration differences and wrong results are reported", "[compare]") {
  Result p_half = row(1_MiB, 100);
  p_half.key.dtype = "half";  // no measured half row
  Result m = row(4_MiB, 100, ResultKind::Measured);
  m.algorithm = "tree";
  m.key.protocol = "ll128";
  m.key.channels = 4;
  m.wrong = 3;
  m.key.order = "aaaaaaaaaaaaaaaa";
  Result p = row(4_MiB, 100);
  p.key.order = "bbbbbbbbbbbbbbbb";
  const std::vector<Result> predicted{p_half, p};
  const std::vector<Result> measured{m, row(64_MiB, 1, ResultKind::Measured)};
  const Comparison c = compare(predicted, measured);
  REQUIRE(c.rows.size() == 1);
  CHECK(c.rows[0].error == Approx(0.0));
  const std::vector<std::string> expected{"algorithm ring vs tree", "protocol simple vs ll128", "channels 2 vs 4",
                                          "rank order bbbbbbbbbbbbbbbb vs aaaaaaaaaaaaaaaa", "3 wrong elements"};
  CHECK(c.rows[0].notes == expected);
  REQUIRE(c.unmatched_predicted.size() == 1);
  CHECK(c.unmatched_predicted[0].key.dtype == "half");
  REQUIRE(c.unmatched_measured.size() == 1);
  CHECK(c.unmatched_measured[0].message == 64_MiB);

  std::ostringstream table;
  write_comparison_table(table, c);
  CHECK_THAT(table.str(), Catch::Contains("median |error|: 0.0 %") && Catch::Contains("measured rows without a prediction: 1"));
  const auto j = to_json(c);
  CHECK(j["rows"][0]["notes"].size() == 5);
  CHECK(j["unmatched_predicted"][0]["dtype"] == "half");
}

TEST_CASE("compare: nothing to compare gives an empty summary", "[compare]") {
  const Comparison c = compare({}, {});
  CHECK(c.rows.empty());
  CHECK(c.median_abs_error == 0);
  CHECK_FALSE(c.worst);
}

TEST_CASE("compare: NCCL's own model time beside the simulated one, with its own error and median", "[compare]") {
  // Simulated 1100 and 900 us, NCCL's model 1300 and 600 us, measured 1000 us each: the model's
  // errors +30 % and -40 %, median |error| 35 %; a prediction without a model time adds none.
  std::vector<Result> predicted{row(1_MiB, 1100), row(4_MiB, 900), row(16_MiB, 1000)};
  predicted[0].nccl_model = Duration::from_us(1300);
  predicted[1].nccl_model = Duration::from_us(600);
  const std::vector<Result> measured{row(1_MiB, 1000, ResultKind::Measured), row(4_MiB, 1000, ResultKind::Measured),
                                     row(16_MiB, 1000, ResultKind::Measured)};
  const Comparison c = compare(predicted, measured);
  REQUIRE(c.rows.size() == 3);
  REQUIRE(c.rows[0].nccl_model_error);
  CHECK(*c.rows[0].nccl_model_error == Approx(0.30));
  CHECK(*c.rows[1].nccl_model_error == Approx(-0.40));
  CHECK_FALSE(c.rows[2].nccl_model);
  CHECK(c.nccl_model_rows == 2);
  CHECK(c.nccl_model_median_abs_error == Approx(0.35));
  CHECK(c.median_abs_error == Approx(0.10));  // the simulated times' own: 10 %, 10 %, 0 %
  std::ostringstream table;
  write_comparison_table(table, c);
  CHECK_THAT(table.str(), Catch::Contains("NCCL's own tuning model") && Catch::Contains("median |error| 35.0 % over 2 rows"));
  const auto j = to_json(c);
  CHECK(j["rows"][0]["nccl_model_ps"] == Duration::from_us(1300).picoseconds());
  CHECK(j["nccl_model"]["rows"] == 2);
  CHECK_FALSE(j["rows"][2].contains("nccl_model_ps"));
}

TEST_CASE("compare: a measurement that drove several GPUs from one host thread says so; one GPU each does not", "[compare]") {
  const std::vector<Result> predicted{row(1_MiB, 1000), row(4_MiB, 1000)};
  std::vector<Result> measured{row(1_MiB, 1000, ResultKind::Measured), row(4_MiB, 1000, ResultKind::Measured)};
  for (Result& m : measured) m.source.gpus_per_thread = 1;
  Comparison c = compare(predicted, measured);
  CHECK(c.measured_gpus_per_thread == 1);
  std::ostringstream one;
  write_comparison_table(one, c);
  CHECK_THAT(one.str(), !Catch::Contains("GPUs per host thread"));
  measured[1].source.gpus_per_thread = 8;
  c = compare(predicted, measured);
  CHECK(c.measured_gpus_per_thread == 8);
  std::ostringstream eight;
  write_comparison_table(eight, c);
  CHECK_THAT(eight.str(), Catch::Contains("# measured with 8 GPUs per host thread (nccl-tests -g)"));
  CHECK(to_json(c)["measured_gpus_per_thread"] == 8);
  CHECK_FALSE(to_json(compare(predicted, std::vector<Result>{})).contains("measured_gpus_per_thread"));
}
