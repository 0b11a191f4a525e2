// host_plans(): host blocks, local ranks per channel and the NICs each channel uses.
#include <catch2/catch.hpp>

#include "ringlab/planner/plan.hpp"
#include "ringlab/topology/scenario.hpp"

using namespace ringlab;

namespace {
// 2 DGX H100 (8 GPUs, GPU i next to NIC i) on one leaf.
Topology two_dgx() {
  return parse_scenario(R"({"ringlab": 1, "cluster": {"generate": {"nodes": 2, "node": {"template": "dgx_h100"},
                            "fabric": {"kind": "leaf_spine", "nodes_per_leaf": 2, "spines": 1}}}})",
                        "two-dgx.json")
      .cluster;
}
}  // namespace

TEST_CASE("host_plans: declaration order gives two blocks of 8 with identity local ranks") {
  const Topology t = two_dgx();
  const sim::RankOrder order = sim::declaration_order(t);
  const auto hosts = planner::host_plans(t, order, 1);
  REQUIRE(hosts.size() == 2);
  CHECK(hosts[0].first_rank == 0);
  CHECK(hosts[1].first_rank == 8);
  CHECK(hosts[1].gpus == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  REQUIRE(hosts[0].channels.size() == 1);
  CHECK(hosts[0].channels[0].local_ranks == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  // The ring leaves host 0 from GPU 7 (next to NIC 7) and enters host 1 at GPU 0 (next to NIC 0).
  CHECK(hosts[0].channels[0].nic_out == 7);
  CHECK(hosts[1].channels[0].nic_in == 0);
}

TEST_CASE("host_plans: a per-channel ring that starts inside host 0 wraps into one block") {
  const Topology t = two_dgx();
  sim::RankOrder order = sim::declaration_order(t);
  // Channel 1: 2 1 0 | 8..15 | 7 6 5 4 3 -> host 0 is entered (from rank 15) at rank 7 and runs 7..0.
  std::vector<int> ring = {2, 1, 0};
  for (int r = 8; r < 16; ++r) ring.push_back(r);
  for (int r = 7; r >= 3; --r) ring.push_back(r);
  std::vector<int> identity(16);
  for (int r = 0; r < 16; ++r) identity[std::size_t(r)] = r;
  order.channel_rings = {identity, ring};
  const auto hosts = planner::host_plans(t, order, 2);
  CHECK(hosts[0].channels[0].local_ranks == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(hosts[0].channels[1].local_ranks == std::vector<int>{7, 6, 5, 4, 3, 2, 1, 0});
  CHECK(hosts[1].channels[1].local_ranks == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  // Channel 1 leaves host 0 from GPU 0 and enters it at GPU 7: NICs 0 and 7.
  CHECK(hosts[0].channels[1].nic_out == 0);
  CHECK(hosts[0].channels[1].nic_in == 7);
}

TEST_CASE("host_plans: an order that leaves a host and comes back is refused") {
  const Topology t = two_dgx();
  sim::RankOrder order = sim::declaration_order(t);
  std::swap(order.ranks[3], order.ranks[12]);
  CHECK_THROWS_WITH(planner::host_plans(t, order, 1), Catch::Contains("one block"));
}

TEST_CASE("host_plans: no NICs on a single host") {
  const Topology t = two_dgx();
  const sim::RankOrder order = sim::declaration_order(t, 8);
  const auto hosts = planner::host_plans(t, order, 1);
  REQUIRE(hosts.size() == 1);
  CHECK(hosts[0].channels[0].nic_in == -1);
  CHECK(hosts[0].channels[0].nic_out == -1);
}
