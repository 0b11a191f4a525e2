// A plan for the bundle and plan.json tests: 2 DGX H100 on one leaf, the hosts in reversed order
// (node1 holds ranks 0-7), both hosts' GPUs permuted, and 2 channels with different rings.
#pragma once

#include <string>
#include <vector>

#include "ringlab/planner/plan.hpp"
#include "ringlab/topology/scenario.hpp"

namespace ringlab::test {

inline Topology two_dgx_cluster() {
  return parse_scenario(R"({"ringlab": 1, "cluster": {"generate": {"nodes": 2, "node": {"template": "dgx_h100"},
                            "fabric": {"kind": "leaf_spine", "nodes_per_leaf": 2, "spines": 1}}}})",
                        "bundle-test.json")
      .cluster;
}

/// node1 runs ranks 0-7 on GPUs 3 1 0 2 4 5 6 7; node0 runs ranks 8-15 on GPUs 7 6 5 4 3 2 1 0.
/// Channel 0 is the rank order; channel 1 swaps neighbours: 1 0 3 2 5 4 7 6 | 9 8 11 10 13 12 15 14.
inline planner::Plan reversed_plan(const Topology& t) {
  sim::RankOrder order;
  for (int g : {3, 1, 0, 2, 4, 5, 6, 7}) order.ranks.push_back(t.device_by_name("node1/gpu" + std::to_string(g)));
  for (int g : {7, 6, 5, 4, 3, 2, 1, 0}) order.ranks.push_back(t.device_by_name("node0/gpu" + std::to_string(g)));
  std::vector<int> identity, swapped;
  for (int r = 0; r < 16; ++r) identity.push_back(r);
  for (int r = 0; r < 16; r += 2) swapped.insert(swapped.end(), {r + 1, r});
  order.channel_rings = {identity, swapped};
  order.source = "test";
  planner::Plan p;
  p.scenario = "bundle-test";
  p.scenario_digest = "0123456789abcdef";
  p.order = order;
  p.channels = 2;
  p.hosts = planner::host_plans(t, order, 2);
  using namespace ringlab::literals;
  p.message = 256_MiB;
  p.algorithm = "ring";
  p.nccl_env = {{"NCCL_CROSS_NIC", "2", "rings may leave a node by another NIC than they enter by", false},
                {"NCCL_ALGO", "Ring", "the algorithm the plan predicts for", true}};
  p.batch = planner::BatchPlan{32, {}, 4, 2048, "linear (SGD): lr x 4.0 with a 5-epoch warm-up"};
  p.master_host = "node1";
  p.report = {{"predicted_us", 1234.5}, {"why", "racks contiguous"}};
  return p;
}

}  // namespace ringlab::test
