// Sweep files (cli/sweep_grid.hpp): point order, zip groups, range forms, pointer substitution, the
// checks that name the JSON path, metric columns and the CSV/JSON writers. Expected values are written
// out by hand from the definitions in docs/sweep.md.
#include <catch2/catch.hpp>
#include <sstream>

#include "ringlab/topology/error.hpp"
#include "sweep_grid.hpp"

namespace {

using ringlab::InputError;
using ringlab::cli::parse_sweep;
using ringlab::cli::SweepCommands;
using ringlab::cli::SweepRow;
using ringlab::cli::SweepSpec;
using Json = nlohmann::json;

const SweepCommands kCommands{{"simulate", {"/results/0/time_us"}}, {"bare", {}}};

Json base_scenario() {
  return Json::parse(R"({
    "ringlab": 1,
    "cluster": { "generate": { "nodes": 2, "node": { "template": "v100x4", "nic": "ib_edr" } },
                 "links": [ { "a": "x", "b": "y", "kind": "custom", "bandwidth": "10Gbps", "latency": "1us" } ] },
    "simulate": { "algorithm": "ring", "sizes": "1MiB", "channels": 1, "compute": true }
  })");
}

Json sweep_with(Json axes, Json extra = Json::object()) {
  Json doc = {{"ringlab", 1}, {"base", base_scenario()}, {"command", "simulate"}, {"axes", std::move(axes)}};
  doc.update(extra);
  return doc;
}

Json axis(const std::string& pointer, Json values) { return {{"pointer", pointer}, {"values", std::move(values)}}; }

SweepSpec parse(const Json& doc) { return parse_sweep(doc, "dir/s.json", kCommands); }

std::vector<Json> values_of(const Json& range) { return parse(sweep_with({axis("/cluster/generate/nodes", range)})).axes[0].values; }

// Every problem of a bad sweep file as "file: location: message".
std::vector<std::string> problems(const Json& doc) {
  try {
    parse(doc);
  } catch (const InputError& e) {
    std::vector<std::string> out;
    for (const auto& p : e.problems()) out.push_back(p.to_string());
    return out;
  }
  return {};
}

bool has_problem_at(const Json& doc, const std::string& location) {
  for (const std::string& p : problems(doc))
    if (p.rfind("dir/s.json: " + location + ": ", 0) == 0) return true;
  return false;
}

}  // namespace

TEST_CASE("points are numbered row-major over the axes: the last axis varies fastest", "[sweep]") {
  const SweepSpec spec =
      parse(sweep_with({axis("/cluster/generate/nodes", {1, 2}), axis("/simulate/algorithm", {"ring", "tree", "direct"})}));
  REQUIRE(spec.point_count == 6);
  const std::vector<std::vector<Json>> expected{{1, "ring"}, {1, "tree"}, {1, "direct"},
                                                {2, "ring"}, {2, "tree"}, {2, "direct"}};
  for (std::int64_t i = 0; i < 6; ++i) CHECK(ringlab::cli::point_values(spec, i) == expected[std::size_t(i)]);
  CHECK(spec.axes[0].name == "nodes");
  CHECK(spec.axes[1].name == "algorithm");
}

TEST_CASE("a zip group varies together and takes the place of its first axis", "[sweep]") {
  Json doc = sweep_with({axis("/cluster/generate/nodes", {1, 2, 3}), axis("/simulate/algorithm", {"ring", "tree"}),
                         axis("/simulate/channels", {10, 20, 30})},
                        {{"zip", Json::array({Json::array({"/simulate/channels", "/cluster/generate/nodes"})})}});
  const SweepSpec spec = parse(doc);
  REQUIRE(spec.point_count == 6);
  const std::vector<std::vector<Json>> expected{{1, "ring", 10}, {1, "tree", 10}, {2, "ring", 20},
                                                {2, "tree", 20}, {3, "ring", 30}, {3, "tree", 30}};
  for (std::int64_t i = 0; i < 6; ++i) CHECK(ringlab::cli::point_values(spec, i) == expected[std::size_t(i)]);
}

TEST_CASE("range forms: times and step, integers exact, reals to 12 significant digits", "[sweep]") {
  CHECK(values_of({{"from", 1}, {"to", 64}, {"times", 2}}) == std::vector<Json>{1, 2, 4, 8, 16, 32, 64});
  CHECK(values_of({{"from", 3}, {"to", 100}, {"times", 3}}) == std::vector<Json>{3, 9, 27, 81});
  CHECK(values_of({{"from", 0}, {"to", 10}, {"step", 5}}) == std::vector<Json>{0, 5, 10});
  CHECK(values_of({{"from", 1}, {"to", 10}, {"step", 4}}) == std::vector<Json>{1, 5, 9});
  CHECK(values_of({{"from", 7}, {"to", 7}, {"step", 1}}) == std::vector<Json>{7});
  CHECK(values_of({{"from", 0.1}, {"to", 0.5}, {"step", 0.1}}) == std::vector<Json>{0.1, 0.2, 0.3, 0.4, 0.5});
  CHECK(values_of({{"from", 0.5}, {"to", 4.0}, {"times", 2}}) == std::vector<Json>{0.5, 1.0, 2.0, 4.0});
  CHECK(values_of({{"from", 1}, {"to", 2}, {"step", 0.25}}) == std::vector<Json>{1.0, 1.25, 1.5, 1.75, 2.0});
}

TEST_CASE("a point's scenario is the base with each value written at its pointer", "[sweep]") {
  const SweepSpec spec = parse(sweep_with(
      {axis("/cluster/links/0/bandwidth", {"10Gbps", "100Gbps"}), axis("/simulate/compute", {true, false})}));
  const Json point = ringlab::cli::point_scenario(spec, 3);
  Json expected = base_scenario();
  expected["cluster"]["links"][0]["bandwidth"] = "100Gbps";
  expected["simulate"]["compute"] = false;
  CHECK(point == expected);
  CHECK(ringlab::cli::point_scenario(spec, 0) == base_scenario());
  CHECK(spec.base == base_scenario());
}

TEST_CASE("bad sweep files name the JSON path of every problem", "[sweep]") {
  SECTION("a pointer that is not in the base scenario") {
    CHECK(has_problem_at(sweep_with({axis("/cluster/generate/nodez", {1})}), "/axes/0/pointer"));
    CHECK(has_problem_at(sweep_with({axis("/cluster/links/5/bandwidth", {"1Gbps"})}), "/axes/0/pointer"));
    CHECK(has_problem_at(sweep_with({axis("simulate", {"x"})}), "/axes/0/pointer"));
  }
  SECTION("a value of another JSON type than the base's field") {
    CHECK(has_problem_at(sweep_with({axis("/cluster/generate/nodes", {1, "two"})}), "/axes/0/values/1"));
    CHECK(has_problem_at(sweep_with({axis("/simulate/algorithm", {{"from", 1}, {"to", 2}, {"step", 1}})}),
                         "/axes/0/values"));
  }
  SECTION("empty axes and bad ranges") {
    CHECK(has_problem_at(sweep_with({axis("/cluster/generate/nodes", Json::array())}), "/axes/0/values"));
    CHECK(has_problem_at(sweep_with(Json::array()), "/axes"));
    CHECK(has_problem_at(sweep_with({axis("/cluster/generate/nodes", {{"from", 8}, {"to", 2}, {"step", 1}})}),
                         "/axes/0/values/to"));
    CHECK(has_problem_at(sweep_with({axis("/cluster/generate/nodes", {{"from", 1}, {"to", 8}, {"times", 1}})}),
                         "/axes/0/values"));
    CHECK(has_problem_at(sweep_with({axis("/cluster/generate/nodes", {{"from", 1}, {"to", 8}})}), "/axes/0/values"));
    CHECK(has_problem_at(sweep_with({axis("/cluster/generate/nodes", {{"from", "1"}, {"to", 8}, {"step", 1}})}),
                         "/axes/0/values/from"));
  }
  SECTION("zip groups of unknown axes or of unequal lengths") {
    const Json axes = {axis("/cluster/generate/nodes", {1, 2}), axis("/simulate/algorithm", {"ring", "tree", "direct"})};
    CHECK(has_problem_at(sweep_with(axes, {{"zip", Json::array({Json::array({"/cluster/generate/nodes", "/simulate/algorithm"})})}}), "/zip/0"));
    CHECK(has_problem_at(sweep_with(axes, {{"zip", Json::array({Json::array({"/cluster/generate/nodes", "/nope"})})}}), "/zip/0/1"));
  }
  SECTION("top-level keys, command, base and metrics") {
    CHECK(has_problem_at(sweep_with({axis("/cluster/generate/nodes", {1})}, {{"axis", 1}}), "/axis"));
    CHECK(has_problem_at(sweep_with({axis("/cluster/generate/nodes", {1})}, {{"command", "simulat"}}), "/command"));
    CHECK(has_problem_at(sweep_with({axis("/cluster/generate/nodes", {1})}, {{"command", "bare"}}), "/metrics"));
    CHECK(has_problem_at(sweep_with({axis("/cluster/generate/nodes", {1})}, {{"base", "missing.json"}}), "/base"));
    CHECK(has_problem_at(sweep_with({axis("/cluster/generate/nodes", {1})}, {{"metrics", {"time_us"}}}),
                         "/metrics/0"));
  }
  SECTION("two columns with one name") {
    const Json axes = {axis("/cluster/generate/nodes", {1}), {{"pointer", "/simulate/channels"},
                                                               {"name", "nodes"}, {"values", {1}}}};
    CHECK(has_problem_at(sweep_with(axes), "/axes/1"));
  }
  SECTION("every problem of the file at once") {
    CHECK(problems(sweep_with({axis("/x", {1}), axis("/simulate/algorithm", Json::array())}, {{"command", 5}}))
              .size() == 3);
  }
}

TEST_CASE("the grid is capped by max_points with a clear error", "[sweep]") {
  const Json axes = {axis("/cluster/generate/nodes", {{"from", 1}, {"to", 100}, {"step", 1}}),
                     axis("/simulate/channels", {{"from", 1}, {"to", 200}, {"step", 1}})};
  const auto too_many = problems(sweep_with(axes));
  REQUIRE(too_many.size() == 1);
  CHECK_THAT(too_many[0], Catch::Contains("/axes: the grid of 100 x 200 values has more than 10000 points"));
  CHECK(parse(sweep_with(axes, {{"max_points", 20000}})).point_count == 20000);
  CHECK(has_problem_at(sweep_with(axes, {{"max_points", 19999}}), "/axes"));
  CHECK(has_problem_at(sweep_with(axes, {{"max_points", 0}}), "/max_points"));
}

TEST_CASE("metric columns come out of the result, and a missing field fails the row", "[sweep]") {
  const SweepSpec spec = parse(sweep_with({axis("/cluster/generate/nodes", {1})},
                                          {{"metrics", {"/results/0/time_us", {{"name", "n"}, {"pointer", "/ranks"}}}}}));
  REQUIRE(spec.metrics.size() == 2);
  CHECK(spec.metrics[0].name == "time_us");
  CHECK(spec.metrics[1].name == "n");
  const SweepRow ok = ringlab::cli::metric_row(spec, Json::parse(R"({"ranks": 8, "results": [{"time_us": 1.5}]})"));
  CHECK_FALSE(ok.failed());
  CHECK(ok.metrics == std::vector<Json>{1.5, 8});
  const SweepRow missing = ringlab::cli::metric_row(spec, Json::parse(R"({"ranks": 8, "results": []})"));
  CHECK(missing.failed());
  CHECK_THAT(missing.error, Catch::Contains("/results/0/time_us"));
}

TEST_CASE("CSV: axis values, metrics, then the error, quoted as in RFC 4180", "[sweep]") {
  const SweepSpec spec = parse(sweep_with({axis("/cluster/links/0/bandwidth", {"10Gbps", "a,b"}),
                                           axis("/simulate/compute", {true})},
                                          {{"metrics", {"/x", "/y"}}}));
  const std::vector<SweepRow> rows{{{1.25, Json::array({1, 2})}, ""}, {{}, "bad \"thing\", really"}};
  std::ostringstream out;
  ringlab::cli::write_sweep_csv(out, spec, rows);
  CHECK(out.str() ==
        "bandwidth,compute,x,y,error\n"
        "10Gbps,true,1.25,\"[1,2]\",\n"
        "\"a,b\",true,,,\"bad \"\"thing\"\", really\"\n");
}

TEST_CASE("JSON: each point with its values and its metrics or error", "[sweep]") {
  const SweepSpec spec = parse(sweep_with({axis("/cluster/generate/nodes", {1, 2})}));
  std::ostringstream out;
  ringlab::cli::write_sweep_json(out, spec, {{{12.5}, ""}, {{}, "no"}});
  const Json doc = Json::parse(out.str());
  CHECK(doc["command"] == "simulate");
  CHECK(doc["failed"] == 1);
  CHECK(doc["points"][0] == Json::parse(R"({"index": 0, "values": {"nodes": 1}, "metrics": {"time_us": 12.5}})"));
  CHECK(doc["points"][1] == Json::parse(R"({"index": 1, "values": {"nodes": 2}, "error": "no"})"));
}
