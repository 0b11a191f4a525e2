// plan.json: a Plan as a versioned JSON document ("ringlab.plan", version 1), and back.
//
// The file is what `ringlab plan -o DIR` writes first and what `ringlab plan --check DIR` and
// `ringlab simulate --rank-order DIR/plan.json` read: the order sits under "rank_order" in the shape
// sim::RankOrder::to_json writes (load_rank_order reads any object with that member). The fields
// are described in docs/plan-format.md.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "ringlab/planner/plan.hpp"
#include "ringlab/topology/topology.hpp"

namespace ringlab::planner {

/// The plan as plan.json holds it. Deterministic: members in a fixed order, sizes in IEC units
/// ("256MiB"). Precondition: the plan's GPUs and hosts belong to `topology`.
nlohmann::json plan_to_json(const Topology& topology, const Plan& plan);

/// Reads and validates plan.json's document against `topology`: schema and version, every field's
/// type, host names of the topology, host GPUs that are those of the order in the same sequence,
/// first_rank blocks that follow each other from 0, a permutation of the local ranks per channel that
/// agrees with the order's channel rings, the same channel count on every host, NICs of the host.
/// Throws InputError naming `file` and the JSON pointer of every problem.
Plan plan_from_json(const Topology& topology, const nlohmann::json& document, const std::string& file);

/// Reads the plan.json at `path` (plan_from_json). Throws InputError (also when it cannot be read).
Plan load_plan(const Topology& topology, const std::string& path);

}  // namespace ringlab::planner
