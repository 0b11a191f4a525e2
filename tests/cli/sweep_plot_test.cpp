// `sweep --plot` (cli/sweep_plot.hpp): which axis is x and on what scale, which metric is y, one line per
// combination of the other axes, failed points left out, a sweep without a numeric axis refused, and
// the SVG the same bytes for the same rows.
#include <catch2/catch.hpp>
#include <sstream>

#include "ringlab/topology/error.hpp"
#include "sweep_plot.hpp"

namespace {

using ringlab::InputError;
using ringlab::cli::parse_sweep;
using ringlab::cli::sweep_plot;
using ringlab::cli::sweep_plot_layout;
using ringlab::cli::SweepCommands;
using ringlab::cli::SweepRow;
using ringlab::cli::SweepSpec;
using ringlab::sim::PlotScale;
using Json = nlohmann::json;

const SweepCommands kCommands{
    {"simulate", {"/results/0/size_B", "/results/0/time_us", "/results/0/algbw_GBps", "/results/0/busbw_GBps"}}};

Json base_scenario() {
  return Json::parse(R"({
    "ringlab": 1,
    "cluster": { "generate": { "nodes": 2, "node": { "template": "v100x4", "nic": "ib_edr" } },
                 "links": [ { "a": "x", "b": "y", "kind": "custom", "bandwidth": "10Gbps", "latency": "1us" } ] },
    "simulate": { "algorithm": "ring", "sizes": "1MiB", "ranks": 8 }
  })");
}

Json axis(const std::string& pointer, Json values) { return {{"pointer", pointer}, {"values", std::move(values)}}; }

SweepSpec parse(Json axes, Json extra = Json::object()) {
  Json doc = {{"ringlab", 1}, {"base", base_scenario()}, {"command", "simulate"}, {"axes", std::move(axes)}};
  doc.update(extra);
  return parse_sweep(doc, "dir/s.json", kCommands);
}

// Rows of the default metrics: size_B, time_us, algbw, busbw = 10 * (point index + 1).
std::vector<SweepRow> rows_for(const SweepSpec& spec) {
  std::vector<SweepRow> rows;
  for (std::int64_t i = 0; i < spec.point_count; ++i) {
    std::vector<Json> metrics;
    for (std::size_t m = 0; m < spec.metrics.size(); ++m) metrics.emplace_back(double(i + 1) * (m == 0 ? 1 : 10));
    rows.push_back({metrics, ""});
  }
  return rows;
}

}  // namespace

TEST_CASE("sweep plot: x is the first numeric axis, y busbw, one line per combination of the others", "[sweep][plot]") {
  const SweepSpec spec = parse({axis("/simulate/algorithm", {"ring", "tree"}),
                                axis("/cluster/generate/nodes", {{"from", 1}, {"to", 16}, {"times", 2}}),
                                axis("/cluster/generate/node/nic", {"ib_edr", "eth100", "eth10"})});
  const auto plot = sweep_plot(spec, rows_for(spec));
  CHECK(plot.layout.x_axis == 1);
  CHECK(plot.layout.x.scale == PlotScale::Log2);  // 1..16: a factor of 16, all powers of two
  CHECK(plot.layout.x.label == "/cluster/generate/nodes (log scale)");
  CHECK(plot.layout.y_metric == 3);
  CHECK(plot.layout.y.scale == PlotScale::Linear);
  CHECK(plot.layout.y.label == "bus bandwidth (GB/s)");
  REQUIRE(plot.series.size() == 6);
  CHECK(plot.series[0].name == "algorithm=ring, nic=ib_edr");
  CHECK(plot.series[1].name == "algorithm=ring, nic=eth100");
  CHECK(plot.series[5].name == "algorithm=tree, nic=eth10");
  for (const auto& s : plot.series) CHECK(s.points.size() == 5);
  // Point 0 (ring, 1 node, ib_edr) and point 3 (ring, 2 nodes, ib_edr) start the first line.
  CHECK(plot.series[0].points[0].bytes == 1);
  CHECK(plot.series[0].points[0].value == 10);
  CHECK(plot.series[0].points[1].bytes == 2);
  CHECK(plot.series[0].points[1].value == 40);
  CHECK(plot.title == "dir/s.json: busbw_GBps against nodes");
  CHECK(plot.footnote == "30 points");
}

TEST_CASE("sweep plot: x scales and units follow the axis' values", "[sweep][plot]") {
  SECTION("sizes as unit strings: the log2 size axis of simulate --plot, in bytes") {
    const auto layout = sweep_plot_layout(parse({axis("/simulate/sizes", {"64KiB", "1MiB", "16MiB"})}));
    CHECK(layout.x.scale == PlotScale::Bytes);
    CHECK(layout.x.label == "/simulate/sizes (message size in bytes, log scale)");
    CHECK(layout.x_values == std::vector<double>{65536, 1048576, 16777216});
  }
  SECTION("rates: Gb/s, log10 over a factor of 10") {
    const auto layout = sweep_plot_layout(parse({axis("/cluster/links/0/bandwidth", {"10Gbps", "25Gbps", "100Gbps"})}));
    CHECK(layout.x.scale == PlotScale::Log10);
    CHECK(layout.x.label == "/cluster/links/0/bandwidth (Gb/s, log scale)");
    CHECK(layout.x_values == std::vector<double>{10, 25, 100});
  }
  SECTION("durations: microseconds, linear under a factor of 8") {
    const auto layout = sweep_plot_layout(parse({axis("/cluster/links/0/latency", {"1us", "2us", "5us"})}));
    CHECK(layout.x.scale == PlotScale::Linear);
    CHECK(layout.x.label == "/cluster/links/0/latency (us)");
  }
  SECTION("numbers spanning less than a factor of 8: linear; a named axis shows its name and pointer") {
    const auto layout = sweep_plot_layout(
        parse({{{"pointer", "/cluster/generate/nodes"}, {"name", "servers"}, {"values", {2, 3, 4, 5}}}}));
    CHECK(layout.x.scale == PlotScale::Linear);
    CHECK(layout.x.label == "servers = /cluster/generate/nodes");
  }
  SECTION("an axis with one value gives way to a later one that varies") {
    const auto layout = sweep_plot_layout(
        parse({axis("/cluster/generate/nodes", {4}), axis("/simulate/sizes", {"1MiB", "4MiB"})}));
    CHECK(layout.x_axis == 1);
  }
  SECTION("y is time (log) without busbw, else the first metric with its unit") {
    const auto time = sweep_plot_layout(parse({axis("/cluster/generate/nodes", {1, 2})},
                                              {{"metrics", {"/results/0/algbw_GBps", "/results/0/time_us"}}}));
    CHECK(time.y_metric == 1);
    CHECK(time.y.scale == PlotScale::TimeUs);
    const auto first = sweep_plot_layout(parse({axis("/cluster/generate/nodes", {1, 2})},
                                               {{"metrics", {"/results/0/algbw_GBps", "/results/0/size_B"}}}));
    CHECK(first.y_metric == 0);
    CHECK(first.y.label == "algbw_GBps (GB/s)");
  }
}

TEST_CASE("sweep plot: axes zipped with x move with it and do not split the lines", "[sweep][plot]") {
  const SweepSpec spec = parse({axis("/cluster/generate/nodes", {1, 2, 4}), axis("/simulate/ranks", {4, 8, 16}),
                                axis("/simulate/algorithm", {"ring", "tree"})},
                               {{"zip", Json::array({Json::array({"/cluster/generate/nodes", "/simulate/ranks"})})}});
  const auto plot = sweep_plot(spec, rows_for(spec));
  REQUIRE(plot.series.size() == 2);
  CHECK(plot.series[0].name == "algorithm=ring");
  CHECK(plot.series[0].points.size() == 3);
}

TEST_CASE("sweep plot: failed points are left out, a line with none says so", "[sweep][plot]") {
  const SweepSpec spec = parse({axis("/simulate/algorithm", {"ring", "halving_doubling"}),
                                axis("/cluster/generate/nodes", {1, 2, 3})});
  std::vector<SweepRow> rows = rows_for(spec);
  for (std::size_t i = 3; i < 6; ++i) rows[i] = SweepRow{{}, "needs a power-of-two rank count"};
  rows[1] = SweepRow{{}, "some problem"};
  const auto plot = sweep_plot(spec, rows);
  REQUIRE(plot.series.size() == 2);
  CHECK(plot.series[0].points.size() == 2);
  CHECK(plot.series[1].points.empty());
  CHECK(plot.series[1].name == "algorithm=halving_doubling (no points)");
  CHECK(plot.footnote == "6 points, 4 failed (left out)");
  std::ostringstream svg;
  ringlab::cli::write_sweep_plot(svg, spec, rows);
  CHECK(svg.str().find("<circle") != std::string::npos);
}

TEST_CASE("sweep plot: a sweep without a numeric axis is refused naming --plot", "[sweep][plot]") {
  const SweepSpec spec = parse({axis("/simulate/algorithm", {"ring", "tree"}),
                                axis("/cluster/generate/node/nic", {"ib_edr", "eth10"})});
  try {
    (void)sweep_plot_layout(spec);
    FAIL("no error");
  } catch (const InputError& e) {
    REQUIRE(e.problems().size() == 1);
    const std::string text = e.problems()[0].to_string();
    CHECK(text.rfind("dir/s.json: --plot: no axis has numeric values", 0) == 0);
    CHECK(text.find("(axes: algorithm, nic)") != std::string::npos);
  }
}

TEST_CASE("sweep plot: the same rows give the same SVG bytes, more than 10 lines are dashed", "[sweep][plot]") {
  const SweepSpec spec = parse({axis("/simulate/sizes", {"1MiB", "4MiB"}),
                                axis("/simulate/ranks", {{"from", 1}, {"to", 12}, {"step", 1}})});
  std::ostringstream a, b;
  ringlab::cli::write_sweep_plot(a, spec, rows_for(spec));
  ringlab::cli::write_sweep_plot(b, spec, rows_for(spec));
  CHECK(a.str() == b.str());
  const auto plot = sweep_plot(spec, rows_for(spec));
  REQUIRE(plot.series.size() == 12);
  CHECK(!plot.series[9].dashed);
  CHECK(plot.series[10].dashed);
  // 12 legend lines and the footnote fit the default 520-pixel height.
  CHECK(a.str().find("height=\"520\"") != std::string::npos);
}
