// plan_batch(): the chosen micro-batch fits, reaches the target and is the fastest option.
#include <catch2/catch.hpp>

#include "ringlab/planner/batch.hpp"
#include "ringlab/topology/scenario.hpp"

using namespace ringlab;

namespace {
sim::TrainJob job_for(const std::string& model, const std::string& optimizer, Scenario& s) {
  s = parse_scenario(R"({"ringlab": 1, "name": "b", "cluster": {"generate": {"nodes": 2, "node": {"template": "v100x4"},
                          "fabric": {"kind": "leaf_spine", "nodes_per_leaf": 2, "spines": 1}}},
                          "workload": {"model": ")" + model + R"(", "optimizer": ")" + optimizer + R"("},
                          "strategy": {"name": "ddp"}, "train": {"batch": 32}})",
                     "b.json");
  return sim::train_job_from_scenario(s);
}
}  // namespace

TEST_CASE("batch: global batch target 2048 on 8 GPUs: accumulation makes up the rest, the best option wins") {
  Scenario s;
  const sim::TrainJob job = job_for("resnet50", "sgd", s);
  std::string why;
  const auto report = planner::plan_batch(job, s.cluster, {2048, 2048}, why);
  REQUIRE(report);
  const auto& plan = report->plan;
  CHECK(plan.global_batch == 2048);
  CHECK(plan.micro_batch * plan.accumulation * 8 == 2048);
  for (const auto& o : report->options) {
    if (o.samples_per_second > 0) CHECK(o.samples_per_second <= report->samples_per_second);
    CHECK(o.memory <= report->capacity);  // only fitting batches are tried
  }
  // SGD: linear scaling against the job's own 32 x 1 x 8 = 256.
  CHECK_THAT(plan.lr_scaling, Catch::Contains("linear") && Catch::Contains("x 8.00"));
}

TEST_CASE("batch: Adam-like optimizers scale the learning rate by the square root") {
  Scenario s;
  const sim::TrainJob job = job_for("resnet50", "adam", s);
  std::string why;
  const auto report = planner::plan_batch(job, s.cluster, {1024, 1024}, why);
  REQUIRE(report);
  CHECK_THAT(report->plan.lr_scaling, Catch::Contains("square-root") && Catch::Contains("x 2.00"));
}

TEST_CASE("batch: an unreachable target is a reason, not a plan") {
  Scenario s;
  const sim::TrainJob job = job_for("resnet50", "sgd", s);
  std::string why;
  // 8 GPUs cannot make a global batch between 3 and 5 samples.
  CHECK_FALSE(planner::plan_batch(job, s.cluster, {3, 5}, why));
  CHECK_THAT(why, Catch::Contains("reaches a global batch"));
}
