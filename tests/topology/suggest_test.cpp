// "Did you mean": edit distance, the nearest-name rule, and the messages the loaders give.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ringlab/topology/error.hpp"
#include "ringlab/topology/scenario.hpp"
#include "ringlab/topology/suggest.hpp"

using namespace ringlab;

TEST_CASE("edit distance counts insertions, deletions, substitutions and neighbour swaps as one edit",
          "[suggest]") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("ring", "ring") == 0);
  CHECK(edit_distance("rnig", "ring") == 1);   // swap
  CHECK(edit_distance("rin", "ring") == 1);    // insertion
  CHECK(edit_distance("rinng", "ring") == 1);  // deletion
  CHECK(edit_distance("rung", "ring") == 1);   // substitution
  CHECK(edit_distance("RING", "ring") == 0);   // letters compare case-insensitively
  CHECK(edit_distance("tree", "ring") == 4);
  CHECK(edit_distance("", "abc") == 3);
}

TEST_CASE("the nearest name is suggested only when it is close and unambiguous", "[suggest]") {
  const std::vector<std::string> fabrics{"none", "single_switch", "leaf_spine", "fat_tree3", "rail_optimized", "racks"};
  CHECK(nearest_name("leaf_spin", fabrics) == "leaf_spine");
  CHECK(nearest_name("fattree3", fabrics) == "fat_tree3");
  CHECK(nearest_name("rail", fabrics) == "rail_optimized");  // a prefix of three or more letters
  CHECK_FALSE(nearest_name("torus", fabrics));               // nothing close
  CHECK_FALSE(nearest_name("racks", fabrics));               // valid: nothing to suggest
  CHECK_FALSE(nearest_name("", fabrics));
  const std::vector<std::string> templates{"dgx_a100", "dgx_h100"};
  CHECK_FALSE(nearest_name("dgx_b200", templates));  // equally near both
}

TEST_CASE("names are read out of the lists error messages give", "[suggest]") {
  CHECK(names_in_list("a, b, c or d") == std::vector<std::string>{"a", "b", "c", "d"});
  CHECK(names_in_list("rdma, roce (= rdma), tcp") == std::vector<std::string>{"rdma", "roce", "tcp"});
  CHECK(names_in_list("pure or nccl") == std::vector<std::string>{"pure", "nccl"});
  CHECK(did_you_mean("nccll", "pure or nccl") == " (did you mean 'nccl'?)");
  CHECK(did_you_mean("xyz", "pure or nccl").empty());
  CHECK(unknown_name_message("algorithm", "rnig", "ring, tree, nccl") ==
        "unknown algorithm 'rnig' (did you mean 'ring'?); expected one of ring, tree, nccl");
}

TEST_CASE("scenario names with a typo get a suggestion and keep their JSON path", "[suggest]") {
  const nlohmann::json doc = nlohmann::json::parse(R"({"ringlab": 1, "cluster": {"generate": {"nodes": 2,
      "node": {"template": "dgx_h10", "gpu_model": "h1000"}, "fabric": {"kind": "leaf_spin", "nodes_per_leaf": 2}}}})");
  try {
    scenario_from_json(doc, "typo.json");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    std::vector<std::string> messages;
    for (const Problem& p : e.problems()) messages.push_back(p.file + ": " + p.location + ": " + p.message);
    CHECK_THAT(messages.at(0) + messages.at(1) + messages.at(2),
               Catch::Contains("typo.json: /cluster/generate/node/template: unknown node template \"dgx_h10\" "
                               "(did you mean 'dgx_h100'?): expected one of") &&
                   Catch::Contains("/cluster/generate/fabric/kind: unknown fabric kind \"leaf_spin\" (did you mean "
                                   "'leaf_spine'?)") &&
                   Catch::Contains("/cluster/generate/node/gpu_model: unknown GPU model \"h1000\" (did you mean 'h100'?)"));
  }
}
