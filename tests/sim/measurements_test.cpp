// Measurements in: nccl-tests text and JSON (real files from one H100, tests/data/nccl_tests/h100-1gpu,
// values read off the files by hand), calibration files, the calibration fit (recovering factors that
// generated the "measurements"), and the comparison plot.
#include <catch2/catch.hpp>

#include <fstream>
#include <pugixml.hpp>
#include <sstream>

#include "ringlab/sim/calibrate.hpp"
#include "ringlab/sim/calibration_file.hpp"
#include "ringlab/sim/compare.hpp"
#include "ringlab/sim/nccl_tests.hpp"
#include "ringlab/sim/result_json.hpp"
#include "ringlab/sim/run_collective.hpp"
#include "ringlab/topology/error.hpp"
#include "ringlab/topology/scenario.hpp"

using namespace ringlab;
using namespace ringlab::sim;

namespace {

std::string data(const std::string& name) { return std::string(RINGLAB_SOURCE_DIR) + "/tests/data/" + name; }

}  // namespace

TEST_CASE("nccl-tests text: the rows, times, #wrong and hosts of a real all_reduce_perf run") {
  const std::vector<Result> runs = load_measurements(data("nccl_tests/h100-1gpu/all_reduce_perf.txt"));
  REQUIRE(runs.size() == 14);
  const Result& last = runs.back();  // 536870912 134217728 float sum -1 359.98 ... 0 | 0.97 ...
  CHECK(last.collective == Collective::AllReduce);
  CHECK(last.message.count() == 536870912);
  CHECK(last.time == Duration::from_us(359.98));
  CHECK(last.key.dtype == "float");
  CHECK(last.ranks == 1);
  CHECK(last.wrong == 0);
  CHECK(last.source.kind == ResultKind::Measured);
  CHECK(last.source.hosts == std::vector<std::string>{"vm"});
  CHECK(last.source.engine == "nccl-tests 2.19.6, nccl 2.28.3");
  CHECK_FALSE(last.iterations);  // text carries only the mean
  const std::vector<Result> in_place =
      load_measurements(data("nccl_tests/h100-1gpu/all_reduce_perf.txt"), Placement::InPlace);
  CHECK(in_place.back().time == Duration::from_us(0.97));
}

TEST_CASE("nccl-tests text: reduce-scatter under mpirun, and #wrong N/A with -c 0") {
  const std::vector<Result> rs = load_measurements(data("nccl_tests/h100-1gpu/reduce_scatter_mpi.txt"));
  REQUIRE_FALSE(rs.empty());
  CHECK(rs.front().collective == Collective::ReduceScatter);
  CHECK(rs.front().message.count() == 1024);
  CHECK(rs.front().time == Duration::from_us(5.50));
  const std::vector<Result> ag = load_measurements(data("nccl_tests/h100-1gpu/all_gather_half_nocheck.txt"));
  REQUIRE_FALSE(ag.empty());
  CHECK(ag.front().collective == Collective::AllGather);
  CHECK(ag.front().key.dtype == "half");
  CHECK_FALSE(ag.front().wrong);
}

TEST_CASE("nccl-tests -J JSON with per-iteration statistics") {
  const std::vector<Result> runs = load_measurements(data("nccl_tests/h100-1gpu/all_reduce_periter.json"));
  REQUIRE(runs.size() == 7);  // -b 1M -e 64M -f 2
  const Result& first = runs.front();
  CHECK(first.message.count() == 1048576);
  CHECK(first.time == Duration::from_us(9.30425));
  REQUIRE(first.iterations);
  CHECK(first.iterations->count == 20);
  CHECK(first.iterations->min == Duration::from_us(6.656));
  CHECK(first.iterations->median == Duration::from_us(8.512));
  CHECK(first.iterations->p99 == Duration::from_us(13.6));
  CHECK(first.iterations->max == Duration::from_us(13.6));
  CHECK(measured_time(first) == Duration::from_us(8.512));
  CHECK(first.source.hosts == std::vector<std::string>{"vm"});
}

TEST_CASE("ringlab-validate's results and table read back as measurements") {
  const std::vector<Result> results = load_measurements(data("validate/h100-1gpu/nccl-library.json"));
  REQUIRE(results.size() == 6);  // -b 1M -e 1G -f 4
  CHECK(results.front().key.dtype == "bfloat16");
  CHECK(results.front().time == Duration::from_us(11.12));  // the table's out-of-place time for 1048576 B
}

TEST_CASE("nccl-tests text without a collective or rows names the file and says what is missing") {
  try {
    read_nccl_tests_text("# nothing here\n", "empty.txt");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("empty.txt"));
    CHECK_THAT(what, Catch::Contains("Collective test starting"));
  }
  CHECK_THROWS_AS(read_nccl_tests_text("# Collective test starting: all_reduce_perf\n1024 256 float sum -1 5.0\n", "short.txt"),
                  InputError);
}

TEST_CASE("calibration files: factors multiply the base table, GPU rates replace HBM / 3, bad files name the pointer") {
  const nlohmann::json doc = nlohmann::json::parse(R"({"schema": "ringlab.calibration", "version": 1, "base": "nccl",
    "links": [{"family": "infiniband", "bandwidth_factor": 0.5, "latency_factor": 2}],
    "gpus": [{"model": "h100", "reduce_bytes_per_second": 9e11}]})");
  const CalibrationFile file = calibration_from_json(doc, "c.json");
  const Calibration c = file.calibration();
  // NCCL's LL128 efficiency is 120/128; times 0.5.
  CHECK(c.factors(LinkFamily::InfiniBand, Protocol::LL128).bandwidth == Approx(0.5 * 120.0 / 128.0));
  CHECK(c.factors(LinkFamily::InfiniBand, Protocol::Simple).latency == Approx(2.0));
  CHECK(c.factors(LinkFamily::NvLink, Protocol::Simple).bandwidth == Approx(1.0));
  CHECK(c.reduce_rate(GpuModel::H100).bytes_per_second() == Approx(9e11));
  CHECK(calibration_from_json(nlohmann::json::parse(to_json(file).dump()), "again.json").calibration().reduce_rate(GpuModel::H100) ==
        c.reduce_rate(GpuModel::H100));
  try {
    calibration_from_json(nlohmann::json::parse(R"({"schema": "ringlab.calibration", "version": 1,
      "links": [{"family": "infiniband", "bandwidth_factor": -1}]})"), "bad.json");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("/links/0/bandwidth_factor"));
  }
  // NCCL's latency factors: absent ones are 1, a bad or unknown one names its pointer.
  const CalibrationFile nccl = calibration_from_json(nlohmann::json::parse(R"({"schema": "ringlab.calibration",
    "version": 1, "base": "nccl", "nccl_latency": {"net_factor": 2.5}})"), "n.json");
  CHECK(nccl.calibration().nccl_latency == NcclLatencyFactors{1.0, 1.0, 2.5});
  CHECK_FALSE(to_json(file).contains("nccl_latency"));  // all 1: not written
  try {
    calibration_from_json(nlohmann::json::parse(R"({"schema": "ringlab.calibration", "version": 1,
      "nccl_latency": {"base_factor": 0, "hops": 2}})"), "bad.json");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("/nccl_latency/base_factor") && Catch::Contains("/nccl_latency/hops"));
  }
}

TEST_CASE("the GPU calibration of a real H100 goes into a calibration file") {
  CalibrationFile file;
  std::ifstream in(data("validate/h100-1gpu/gpu-calibration.json"));
  add_gpu_calibration(file, nlohmann::json::parse(in), "gpu-calibration.json");
  REQUIRE(file.gpus.count(GpuModel::H100) == 1);
  CHECK(*file.gpus[GpuModel::H100].reduce_bytes_per_second == Approx(916687568730.6837));
  CHECK(file.gpus[GpuModel::H100].gemm_flops_per_second.at("bf16") == Approx(781329331841679.0));
}

TEST_CASE("fit_calibration recovers the factors that generated the measurements, and held-out runs agree") {
  const Scenario scenario = load_scenario(std::string(RINGLAB_SOURCE_DIR) + "/scenarios/two-racks-40g.json");
  // "Measurements": the ring on this cluster with Ethernet 0.8x as fast and 1.5x the latency of its spec.
  CalibrationFile truth;
  truth.links[LinkFamily::Ethernet] = LinkFactors{0.8, 1.5};
  std::vector<Result> measured;
  for (std::int64_t size = 4096; size <= (std::int64_t(1) << 28); size *= 4) {
    CollectiveRequest request;
    request.algorithm = Algorithm::Ring;
    request.message = Bytes{size};
    request.order = declaration_order(scenario.cluster);
    request.options.calibration = truth.calibration();
    Result r = *run_collective(scenario.cluster, request).result;
    r.source.kind = ResultKind::Measured;
    r.key.dtype = "float";
    measured.push_back(r);
  }
  std::vector<bool> fit;
  for (std::size_t i = 0; i < measured.size(); ++i) fit.push_back(i % 2 == 0);
  PredictOptions options;
  options.algorithm = Algorithm::Ring;
  const CalibrationFit result = fit_calibration(scenario.cluster, measured, fit, "pure", options, "synthetic");
  REQUIRE(result.families == std::vector<LinkFamily>{LinkFamily::Ethernet});  // the NICs are the ring's bottleneck
  CHECK(result.file.links.at(LinkFamily::Ethernet).bandwidth == Approx(0.8).epsilon(0.01));
  CHECK(result.file.links.at(LinkFamily::Ethernet).latency == Approx(1.5).epsilon(0.02));
  CHECK(result.fit_before.median_abs_error > 0.2);
  CHECK(result.held_out_after.runs == int(measured.size() / 2));
  CHECK(result.held_out_after.worst_abs_error < 0.01);
}

TEST_CASE("the comparison plot is well-formed SVG with one point per row per series, in size order") {
  Comparison c;
  for (int i = 0; i < 5; ++i) {
    ComparedRow r;
    r.message = Bytes{std::int64_t(1024) << (2 * i)};
    r.dtype = "float";
    r.predicted = Duration::from_us(10.0 * (i + 1));
    r.measured = Duration::from_us(12.0 * (i + 1));
    c.rows.push_back(r);
  }
  std::ostringstream svg;
  write_comparison_svg(svg, c, "test <plot>");
  pugi::xml_document doc;
  REQUIRE(doc.load_string(svg.str().c_str()));
  const auto root = doc.child("svg");
  REQUIRE(root);
  int circles = 0;
  for (auto n = root.child("circle"); n; n = n.next_sibling("circle")) ++circles;
  CHECK(circles == 10);
  for (const char* cls : {"predicted", "measured"}) {
    const auto line = root.find_child_by_attribute("polyline", "class", cls);
    REQUIRE(line);
    std::istringstream points(line.attribute("points").value());
    double last_x = -1;
    int count = 0;
    for (std::string p; points >> p; ++count) {
      const double x = std::stod(p.substr(0, p.find(',')));
      CHECK(x > last_x);
      last_x = x;
    }
    CHECK(count == 5);
  }
  CHECK_THAT(svg.str(), Catch::Contains("test &lt;plot&gt;"));
}

TEST_CASE("nccl-tests text: columns are found by the header's names, so vendor columns do not shift them") {
  // An RCCL-style table with a cpu_time column in each half (shared/reference/formats.md 8).
  const std::string text =
      "# Collective test starting: all_reduce_perf\n"
      "#  Rank  0 Group  0 Pid 1 on node1 device  0 [0000:01:00] GPU\n"
      "#  Rank  1 Group  0 Pid 2 on node2 device  0 [0000:01:00] GPU\n"
      "#       size  count  type  redop  root  time  cpu_time  algbw  busbw  #wrong  time  cpu_time  algbw  busbw  #wrong\n"
      "     1048576 262144 float    sum    -1  50.0     48.0  20.97  20.97       0  40.0     39.0  26.21  26.21       3\n";
  const std::vector<Result> out = read_nccl_tests_text(text, "rccl.txt");
  REQUIRE(out.size() == 1);
  CHECK(out[0].time == Duration::from_us(50.0));
  CHECK(out[0].wrong == 0);
  CHECK(out[0].ranks == 2);
  CHECK(out[0].source.hosts == std::vector<std::string>{"node1", "node2"});
  const std::vector<Result> in_place = read_nccl_tests_text(text, "rccl.txt", Placement::InPlace);
  CHECK(in_place[0].time == Duration::from_us(40.0));
  CHECK(in_place[0].wrong == 3);
}

TEST_CASE("nccl-tests text: launcher prefixes are dropped, output without a collective line takes the one given") {
  // srun -l prefixes "0: ", mpirun --tag-output "[1,0]<stdout>:"; neither output names its collective
  // nor lists devices (as published by AWS, tests/data/fidelity/aws-*).
  const std::string srun =
      "0: #       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "0:            8             2     float     sum      -1    164.3    0.00    0.00      0    163.3    0.00    0.00      0\n"
      "0:      1048576        262144     float     sum      -1    309.4    3.39    6.35      0    310.0    3.38    6.34      0\n";
  CHECK_THROWS_WITH(read_nccl_tests_text(srun, "srun.txt"), Catch::Contains("--collective"));
  const std::vector<Result> rows = read_nccl_tests_text(srun, "srun.txt", Placement::InPlace, Collective::AllReduce);
  REQUIRE(rows.size() == 2);
  CHECK(rows[1].message == Bytes{1048576});
  CHECK(rows[1].time == Duration::from_us(310.0));
  CHECK(rows[1].ranks == 0);  // unknown: no device list
  std::vector<Result> filled = rows;
  CHECK(fill_unknown_ranks(filled, 16) == 2);
  CHECK(filled[0].ranks == 16);
  const std::string tagged =
      "[1,0]<stdout>:# Collective test starting: all_gather_perf\n"
      "[1,0]<stdout>:#  Rank  0 Group  0 Pid  1 on host-a device  0 [0x0f] NVIDIA H100 80GB HBM3\n"
      "[1,0]<stdout>:#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw  #wrong\n"
      "[1,0]<stdout>:        4096          1024     float    none      -1    16.76    0.24    0.43      0    16.70    0.25    0.43      0\n";
  const std::vector<Result> ag = read_nccl_tests_text(tagged, "tagged.txt", Placement::OutOfPlace, Collective::AllReduce);
  REQUIRE(ag.size() == 1);
  CHECK(ag[0].collective == Collective::AllGather);  // the output's own line wins over the fallback
  CHECK(ag[0].ranks == 1);
  CHECK(ag[0].time == Duration::from_us(16.76));
}

TEST_CASE("nccl-tests text before 2.13: no root column, a relative error where #wrong is now") {
  // The layout nccl-tests printed until v2.13.0 (2022-08; e.g. commit 0b30de5 of 2021-02): "# Using devices", device lines
  // without "Group", no "Collective test starting" line, "error" columns holding a float.
  const std::string text =
      "# nThread 1 nGpus 1 minBytes 4 maxBytes 1048576 step: 2(factor) warmup iters: 5 iters: 100 validation: 1 \n"
      "#\n"
      "# Using devices\n"
      "#   Rank  0 Pid  101 on      n0001 device  0 [0x07] A100-SXM4-40GB\n"
      "#   Rank  1 Pid  102 on      n0002 device  0 [0x07] A100-SXM4-40GB\n"
      "#\n"
      "#                                                     out-of-place                       in-place          \n"
      "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "#        (B)    (elements)                     (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       \n"
      "           4             1   float     sum    30.50    0.00    0.00  0e+00    29.75    0.00    0.00  2e-07\n"
      "     1048576        262144   float     sum    101.2   10.36   10.36  5e-07    99.80   10.51   10.51  5e-07\n"
      "# Out of bounds values : 0 OK\n";
  CHECK_THROWS_WITH(read_nccl_tests_text(text, "old.txt"), Catch::Contains("--collective"));
  const std::vector<Result> rows = read_nccl_tests_text(text, "old.txt", Placement::OutOfPlace, Collective::AllReduce);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].message == Bytes{4});
  CHECK(rows[0].time == Duration::from_us(30.5));
  CHECK(rows[1].time == Duration::from_us(101.2));
  CHECK(rows[1].key.dtype == "float");
  CHECK_FALSE(rows[1].wrong);  // a relative error is not a count of wrong elements
  CHECK(rows[1].ranks == 2);
  CHECK(rows[1].source.hosts == std::vector<std::string>{"n0001", "n0002"});
  const std::vector<Result> in_place = read_nccl_tests_text(text, "old.txt", Placement::InPlace, Collective::AllReduce);
  REQUIRE(in_place.size() == 2);
  CHECK(in_place[1].time == Duration::from_us(99.8));
  // A header with neither #wrong nor error columns is still refused.
  std::string no_check = text;
  for (std::size_t at; (at = no_check.find("  error")) != std::string::npos;) no_check.replace(at, 7, "  other");
  CHECK_THROWS_WITH(read_nccl_tests_text(no_check, "old.txt", Placement::OutOfPlace, Collective::AllReduce),
                    Catch::Contains("\"error\""));
}

TEST_CASE("nccl-tests: rows of 0 bytes (-b 0) move nothing and are left out, text and JSON alike") {
  // As AWS published a p5 run (tests/data/fidelity/aws-p5-2node-efa-eks-2023): two 0-byte rows first.
  const std::string text =
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "           0             0     float     sum      -1    15.51    0.00    0.00      0    15.52    0.00    0.00      0\n"
      "           0             0     float     sum      -1    15.51    0.00    0.00      0    15.50    0.00    0.00      0\n"
      "           4             1     float     sum      -1    202.2    0.00    0.00      0    179.4    0.00    0.00      0\n";
  const std::vector<Result> rows = read_nccl_tests_text(text, "zero.txt", Placement::OutOfPlace, Collective::AllReduce);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].message == Bytes{4});
  CHECK(rows[0].time == Duration::from_us(202.2));
  // A negative time is still an error, naming its line.
  CHECK_THROWS_WITH(read_nccl_tests_text(text + "           8             2     float     sum      -1    -1.0    0.00    0.00      0    1.0    0.00    0.00      0\n",
                                         "zero.txt", Placement::OutOfPlace, Collective::AllReduce),
                    Catch::Contains("line 5") && Catch::Contains("a time >= 0"));
  const nlohmann::json doc = nlohmann::json::parse(R"({"args": ["all_reduce_perf"], "results": [
      {"size": 0, "out_of_place": {"time": 15.5}},
      {"size": 8, "out_of_place": {"time": 20.25}}]})");
  const std::vector<Result> json_rows = read_nccl_tests_json(doc, "zero.json");
  REQUIRE(json_rows.size() == 1);
  CHECK(json_rows[0].message == Bytes{8});
  CHECK(json_rows[0].time == Duration::from_us(20.25));
}

TEST_CASE("nccl-tests text: a device list that is not ranks 0..n-1 is an excerpt and gives no rank count") {
  // Published tables often keep only the last device line (tests/data/fidelity/gb200-*: "Rank 71").
  const std::string excerpt =
      "#  Rank 71 Group  0 Pid  14840 on tray17 device  3 [0x01] NVIDIA Graphics Device\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "   536870912     134217728     float     sum      -1   1806.7  297.16  586.06      0   1835.9  292.43  576.74      0\n";
  const std::vector<Result> rows = read_nccl_tests_text(excerpt, "excerpt.txt", Placement::OutOfPlace, Collective::AllReduce);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].ranks == 0);
  CHECK(rows[0].source.hosts.empty());
  // Ranks 0 and 2 without 1: an excerpt too.
  const std::string gap =
      "#  Rank  0 Group  0 Pid 1 on node1 device  0 [0x01] GPU\n"
      "#  Rank  2 Group  0 Pid 3 on node2 device  0 [0x01] GPU\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "        1024           256     float     sum      -1    20.0    0.05    0.05      0    20.0    0.05    0.05      0\n";
  CHECK(read_nccl_tests_text(gap, "gap.txt", Placement::OutOfPlace, Collective::AllReduce)[0].ranks == 0);
}

TEST_CASE("nccl-tests text: NCCL's tuning log names each row's algorithm, in either of NCCL's formats") {
  // NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING logs to stdout, among the table's rows: 2.19 and later
  // (src/enqueue.cc) name the collective, the algorithm and protocol; 2.12-2.18 print their indices.
  const std::string newer =
      "# Collective test starting: all_reduce_perf\n"
      "#  Rank  0 Group  0 Pid  1 on node-1 device  0 [0x18] NVIDIA H200\n"
      "#  Rank  1 Group  0 Pid  2 on node-2 device  0 [0x18] NVIDIA H200\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "node-1:1:1 [0] NCCL INFO AllReduce: 16777216 Bytes -> Algo TREE proto LL128 channel{Lo..Hi}={0..15}\n"
      "node-1:1:1 [0] NCCL INFO AllReduce: 16777216 Bytes -> Algo TREE proto LL128 channel{Lo..Hi}={0..15}\n"
      "    16777216       4194304     float     sum      -1    300.0   55.92   55.92      0    300.0   55.92   55.92      0\n"
      "[1,0]<stdout>:node-1:1:1 [0] NCCL INFO AllReduce: 33554432 Bytes -> Algo NVLS_TREE proto SIMPLE channel{Lo..Hi}={0..15}\n"
      "    33554432       8388608     float     sum      -1    400.0   83.89   83.89      0    400.0   83.89   83.89      0\n"
      "    67108864      16777216     float     sum      -1    700.0   95.87   95.87      0    700.0   95.87   95.87      0\n";
  const std::vector<Result> rows = read_nccl_tests_text(newer, "newer.txt");
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].algorithm == "nccl:tree/ll128");
  CHECK(rows[1].algorithm == "nccl:nvls_tree/simple");
  CHECK(rows[2].algorithm == "nccl");  // no line logged for this size
  // The channel range {0..15}: 16 channels; none where nothing was logged.
  CHECK(rows[0].key.channels == 16);
  CHECK(rows[1].key.channels == 16);
  CHECK(rows[2].key.channels == 0);
  // The old format: "N Bytes -> Algo a proto p time t" (1 = Ring, 2 = Simple; 0 = Tree, 1 = LL128).
  const std::string older =
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "[0] host-1:497888:497888 [0] NCCL INFO 262144 Bytes -> Algo 0 proto 1 time 54.707825\n"
      "      262144         65536     float     sum      -1    281.5    0.93    1.79      0    280.0    0.94    1.80      0\n"
      "[0] host-1:497888:497888 [0] NCCL INFO 8589934592 Bytes -> Algo 1 proto 2 time 86069.968750\n"
      "  8589934592    2147483648     float     sum      -1    90000   95.44  182.92      0    90000   95.44  182.92      0\n";
  const std::vector<Result> old_rows = read_nccl_tests_text(older, "older.txt", Placement::OutOfPlace, Collective::AllReduce);
  REQUIRE(old_rows.size() == 2);
  CHECK(old_rows[0].algorithm == "nccl:tree/ll128");
  CHECK(old_rows[1].algorithm == "nccl:ring/simple");
  CHECK(old_rows[0].key.channels == 0);  // the old format names no channels
  // AllGather: 2.19+ count the bytes per rank (sendcount); nccl-tests' size is all ranks' together.
  const std::string gather =
      "# Collective test starting: all_gather_perf\n"
      "#  Rank  0 Group  0 Pid  1 on a device  0 [0x18] GPU\n"
      "#  Rank  1 Group  0 Pid  2 on b device  0 [0x18] GPU\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "a:1:1 [0] NCCL INFO AllGather: 524288 Bytes -> Algo PAT proto SIMPLE channel{Lo..Hi}={0..1}\n"
      "a:1:1 [0] NCCL INFO AllReduce: 1048576 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..1}\n"
      "     1048576        131072     float    none      -1    50.00   20.97   10.49      0    50.00   20.97   10.49      0\n";
  const std::vector<Result> ag = read_nccl_tests_text(gather, "gather.txt");
  REQUIRE(ag.size() == 1);
  CHECK(ag[0].algorithm == "nccl:pat/simple");  // the AllReduce line of the same byte count is another call
  CHECK(ag[0].key.channels == 2);
  // compare() counts the rows whose logged algorithm the prediction names alike.
  std::vector<Result> predicted = rows;
  predicted[0].algorithm = "nccl:tree/ll128";
  predicted[1].algorithm = "nccl:tree/ll128";
  predicted[2].algorithm = "nccl:nvls_tree/simple";
  predicted[0].key.channels = 8;  // a prediction on other channels than NCCL logged
  const Comparison c = compare(predicted, rows);
  CHECK(c.choices_logged == 2);
  CHECK(c.choices_as_predicted == 1);
  std::ostringstream table;
  write_comparison_table(table, c);
  CHECK_THAT(table.str(), Catch::Contains("# NCCL's logged algorithm: 1 of 2 sizes as predicted"));
  CHECK_THAT(table.str(), Catch::Contains("algorithm nccl:tree/ll128 vs nccl:nvls_tree/simple"));
  CHECK_THAT(table.str(), Catch::Contains("channels 8 vs 16"));
  CHECK(to_json(c)["nccl_choices"]["as_predicted"] == 1);
}

TEST_CASE("nccl-tests text: NCCL's release from its version line, bare or as an INFO line, noted once") {
  const std::string table =
      "# Collective test starting: all_reduce_perf\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "     1048576        262144     float     sum      -1    20.00   52.43   98.30      0    20.00   52.43   98.30      0\n";
  // NCCL_DEBUG=VERSION prints the line bare (init.cc showVersion).
  CHECK(read_nccl_tests_text("NCCL version 2.19.3+cuda12.2\n" + table, "t.txt").front().source.engine ==
        "nccl-tests, nccl 2.19.3+cuda12.2");
  // NCCL_DEBUG=INFO: after NCCL's host:pid:tid [device] prefix.
  CHECK(read_nccl_tests_text("node1:1:1 [0] NCCL INFO NCCL version 2.18.1+cuda12.1\n" + table, "t.txt")
            .front()
            .source.engine == "nccl-tests, nccl 2.18.1+cuda12.1");
  // nccl-tests' own header names the library first; the version line does not repeat it.
  CHECK(read_nccl_tests_text("# nccl-tests version 2.13.9 nccl-headers=21805 nccl-library=21805\n"
                             "NCCL version 2.18.5+cuda12.2\n" + table, "t.txt")
            .front()
            .source.engine == "nccl-tests 2.13.9, nccl 2.18.5");
}

TEST_CASE("nccl-tests: GPUs per host thread (-g) from the header, none when -G captured the calls in CUDA graphs") {
  // Sheffield's 4-GPU run (-g 4, "graph" not printed by nccl-tests 2.13.6) and the H100's -g 1 runs.
  const std::vector<Result> four = load_measurements(data("fidelity/a100-4gpu-xe8545-stanage/measured.txt"), Placement::OutOfPlace,
                                                         Collective::AllReduce);
  REQUIRE_FALSE(four.empty());
  CHECK(four.front().source.gpus_per_thread == 4);
  CHECK(load_measurements(data("nccl_tests/h100-1gpu/all_reduce_perf.txt")).front().source.gpus_per_thread == 1);
  CHECK(load_measurements(data("nccl_tests/h100-1gpu/all_reduce_periter.json")).front().source.gpus_per_thread == 1);
  const std::string graphed =
      "# nThread 1 nGpus 8 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 10\n"
      "# Collective test starting: all_reduce_perf\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "           8             2     float     sum      -1    20.10    0.00    0.00      0    20.00    0.00    0.00      0\n";
  const std::vector<Result> g = read_nccl_tests_text(graphed, "graphed.txt");
  REQUIRE(g.size() == 1);
  CHECK(g[0].source.gpus_per_thread == 0);
  // The count survives a results file.
  std::ostringstream file;
  write_results_json(file, four);
  CHECK(read_results_json(nlohmann::json::parse(file.str()), "four.json").front().source.gpus_per_thread == 4);
}

TEST_CASE("fit_calibration under --algo nccl recovers the NCCL latency that generated the measurements") {
  // "Measurements": NCCL's choice on the default scenario (4 V100 servers, EDR) with NCCL's base
  // latency and intra-node hops at x1.5 and its network hops at x3.75, 8 B to 16 MiB on one server's
  // 4 GPUs (no network hop) and on all 16; fitted from NCCL's own table.
  const Scenario scenario = load_scenario(std::string(RINGLAB_SOURCE_DIR) + "/scenarios/v100x4-ib100.json");
  CalibrationFile truth;
  truth.base = "nccl";
  truth.nccl_latency = NcclLatencyFactors{1.5, 1.5, 3.75};
  std::vector<Result> measured;
  for (const int ranks : {4, 16})
    for (std::int64_t size = 8; size <= (std::int64_t(1) << 26); size *= 8) {
      CollectiveRequest request;
      request.algorithm = Algorithm::Nccl;
      request.message = Bytes{size};
      request.order = declaration_order(scenario.cluster, ranks);
      request.options.calibration = truth.calibration();
      Result r = *run_collective(scenario.cluster, request).result;
      r.source.kind = ResultKind::Measured;
      r.key.dtype = "float";
      r.algorithm = "nccl";
      measured.push_back(r);
    }
  std::vector<bool> fit;
  for (std::size_t i = 0; i < measured.size(); ++i) fit.push_back(i % 2 == 0);
  const CalibrationFit result = fit_calibration(scenario.cluster, measured, fit, "nccl", PredictOptions{}, "synthetic");
  REQUIRE(result.nccl_latency_fitted);
  CHECK(result.fit_before.median_abs_error > 0.2);  // small sizes: the latency is most of the time
  CHECK(result.fit_after.worst_abs_error < 0.01);
  CHECK(result.held_out_after.worst_abs_error < 0.01);
  // One server's runs pin the table's own factor, the 16-GPU runs the network's.
  CHECK(result.file.nccl_latency.base == Approx(1.5).epsilon(0.02));
  CHECK(result.file.nccl_latency.intra == result.file.nccl_latency.base);
  CHECK(result.file.nccl_latency.net == Approx(3.75).epsilon(0.02));
  // The file carries the factors and reads back.
  const CalibrationFile back = calibration_from_json(nlohmann::json::parse(to_json(result.file).dump()), "back.json");
  CHECK(back.nccl_latency == result.file.nccl_latency);
  CHECK(back.calibration().nccl_latency == result.file.nccl_latency);
}
