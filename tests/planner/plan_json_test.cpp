// plan.json: the written document, the round trip, and every consistency check of the reader.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "plan_fixture.hpp"
#include "ringlab/planner/plan_json.hpp"
#include "ringlab/sim/rank_order.hpp"
#include "ringlab/topology/error.hpp"

using namespace ringlab;
using nlohmann::json;

namespace {

/// The problems of plan_from_json() on `doc`, as "location: message" lines (empty when it loads).
std::string problems_of(const Topology& t, const json& doc) {
  try {
    planner::plan_from_json(t, doc, "plan.json");
  } catch (const InputError& e) {
    std::string out;
    for (const Problem& p : e.problems()) out += p.location + ": " + p.message + "\n";
    return out;
  }
  return "";
}

}  // namespace

TEST_CASE("plan.json: schema, version, units and host blocks as written") {
  const Topology t = test::two_dgx_cluster();
  const planner::Plan plan = test::reversed_plan(t);
  const json doc = planner::plan_to_json(t, plan);
  CHECK(doc["schema"] == "ringlab.plan");
  CHECK(doc["version"] == 1);
  CHECK(doc["scenario"] == json{{"name", "bundle-test"}, {"digest", "0123456789abcdef"}});
  CHECK(doc["message"] == "256MiB");
  CHECK(doc["collective"] == "allreduce");
  CHECK(doc["channels"] == 2);
  CHECK(doc["rank_order"]["ranks"][0] == "node1/gpu3");
  CHECK(doc["rank_order"]["ranks"][8] == "node0/gpu7");
  CHECK(doc["rank_order"]["channel_rings"][1][0] == 1);
  CHECK(doc["hosts"][0]["name"] == "node1");
  CHECK(doc["hosts"][1]["first_rank"] == 8);
  CHECK(doc["hosts"][0]["gpus"] == json{3, 1, 0, 2, 4, 5, 6, 7});
  CHECK(doc["hosts"][0]["channels"][1]["local_ranks"] == json{1, 0, 3, 2, 5, 4, 7, 6});
  CHECK(doc["nccl_env"]["system"][0]["name"] == "NCCL_CROSS_NIC");
  CHECK(doc["nccl_env"]["debug"][0]["name"] == "NCCL_ALGO");
  CHECK(doc["batch"]["accumulation"] == 4);
  CHECK(doc["master"] == json{{"host", "node1"}, {"port", 29500}});
  CHECK(doc["report"]["predicted_us"] == 1234.5);
}

TEST_CASE("plan.json: plan_to_json then plan_from_json gives the plan back") {
  const Topology t = test::two_dgx_cluster();
  const planner::Plan plan = test::reversed_plan(t);
  const planner::Plan back = planner::plan_from_json(t, planner::plan_to_json(t, plan), "plan.json");
  CHECK(back.scenario == plan.scenario);
  CHECK(back.scenario_digest == plan.scenario_digest);
  CHECK(back.order.ranks == plan.order.ranks);
  CHECK(back.order.channel_rings == plan.order.channel_rings);
  CHECK(back.order.source == "plan.json");
  CHECK(back.hosts == plan.hosts);
  CHECK(back.collective == plan.collective);
  CHECK(back.message == plan.message);
  CHECK(back.algorithm == plan.algorithm);
  CHECK(back.channels == plan.channels);
  CHECK(back.nccl_env == plan.nccl_env);
  CHECK(back.batch == plan.batch);
  CHECK(back.master_host == plan.master_host);
  CHECK(back.master_port == plan.master_port);
  CHECK(back.report == plan.report);
}

TEST_CASE("plan.json: ringlab simulate's --rank-order reader takes the plan's order") {
  const Topology t = test::two_dgx_cluster();
  const planner::Plan plan = test::reversed_plan(t);
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("ringlab-plan-json-" + std::to_string(::getpid()) + ".json")).string();
  std::ofstream(path) << planner::plan_to_json(t, plan).dump(2);
  const sim::RankOrder order = sim::load_rank_order(t, path, 16);
  CHECK(order.ranks == plan.order.ranks);
  CHECK(order.channel_rings == plan.order.channel_rings);
  const planner::Plan loaded = planner::load_plan(t, path);
  CHECK(loaded.hosts == plan.hosts);
  std::filesystem::remove(path);
}

TEST_CASE("plan.json: inconsistent plans are refused with the JSON pointer of each problem") {
  const Topology t = test::two_dgx_cluster();
  const json good = planner::plan_to_json(t, test::reversed_plan(t));
  REQUIRE(problems_of(t, good).empty());

  SECTION("another version") {
    json doc = good;
    doc["version"] = 2;
    CHECK(problems_of(t, doc) == "/version: unsupported version 2: this build reads version 1\n");
  }
  SECTION("a host the topology does not have") {
    json doc = good;
    doc["hosts"][1]["name"] = "node9";
    CHECK_THAT(problems_of(t, doc), Catch::StartsWith("/hosts/1/name: unknown host 'node9'"));
  }
  SECTION("a gap between the hosts' rank blocks") {
    json doc = good;
    doc["hosts"][1]["first_rank"] = 9;
    CHECK_THAT(problems_of(t, doc), Catch::StartsWith("/hosts/1/first_rank: first_rank 9 leaves a gap or overlap: expected 8"));
  }
  SECTION("GPUs that are not the order's") {
    json doc = good;
    doc["hosts"][0]["gpus"] = json{1, 3, 0, 2, 4, 5, 6, 7};
    CHECK_THAT(problems_of(t, doc),
               Catch::StartsWith("/hosts/0/gpus/0: rank 0 runs on node1/gpu3 in rank_order: expected host node1 GPU 3, "
                                 "found node1 GPU 1"));
  }
  SECTION("a channel's local ranks that are not a permutation") {
    json doc = good;
    doc["hosts"][0]["channels"][1]["local_ranks"] = json{1, 1, 3, 2, 5, 4, 7, 6};
    CHECK_THAT(problems_of(t, doc),
               Catch::StartsWith("/hosts/0/channels/1/local_ranks: expected a permutation of the local ranks 0..7"));
  }
  SECTION("a channel that disagrees with the order's ring") {
    json doc = good;
    doc["hosts"][1]["channels"][1]["local_ranks"] = json{0, 1, 2, 3, 4, 5, 6, 7};
    CHECK(problems_of(t, doc) ==
          "/hosts/1/channels/1/local_ranks: disagrees with rank_order's ring for channel 1: expected [1,0,3,2,5,4,7,6]\n");
  }
  SECTION("unequal channel counts") {
    json doc = good;
    doc["hosts"][1]["channels"].erase(1);
    CHECK_THAT(problems_of(t, doc),
               Catch::StartsWith("/hosts/1/channels: expected 2 channels (the plan's \"channels\"), found 1"));
  }
  SECTION("a NIC the host does not have") {
    json doc = good;
    doc["hosts"][0]["channels"][0]["nic_in"] = 8;
    CHECK_THAT(problems_of(t, doc), Catch::StartsWith("/hosts/0/channels/0/nic_in: the host has no NIC with local index 8"));
  }
  SECTION("fewer ranks in the hosts than in the order") {
    json doc = good;
    doc["hosts"].erase(1);
    CHECK(problems_of(t, doc) == "/hosts: the hosts hold 8 ranks; rank_order has 16\n");
  }
  SECTION("a master that is not the host of rank 0") {
    json doc = good;
    doc["master"]["host"] = "node0";
    CHECK(problems_of(t, doc) == "/master/host: expected node1 (the host of rank 0), found 'node0'\n");
  }
  SECTION("problems in several fields are reported together") {
    json doc = good;
    doc["message"] = "lots";
    doc["hosts"][0]["name"] = "node7";
    doc["master"]["port"] = 0;
    const std::string found = problems_of(t, doc);
    CHECK_THAT(found, Catch::Contains("/message: "));
    CHECK_THAT(found, Catch::Contains("/master/port: "));
    CHECK_THAT(found, Catch::Contains("/hosts/0/name: unknown host 'node7'"));
  }
  SECTION("an environment value the env files cannot quote") {
    json doc = good;
    doc["nccl_env"]["system"][0]["value"] = "a'b";
    CHECK_THAT(problems_of(t, doc), Catch::StartsWith("/nccl_env/system/0/value: a value may hold no quote"));
  }
}
