// CollectiveSteps: which links a collective's transfers use, step by step, for the window's step
// view ("watch flows move"): the explicit schedule's Send ops grouped by Op::step, each routed as
// the simulator routes it (Router, ECMP keyed on the channel), counted per link.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ringlab/topology/topology.hpp"
#include "ringlab/topology/units.hpp"

namespace ringlab::gui {

struct CollectiveSteps {
  std::string algorithm;
  /// Per step: (link, transfers crossing it in that step), link ids ascending.
  std::vector<std::vector<std::pair<LinkId, int>>> links;
  std::vector<int> transfers;  ///< per step: Send/Recv pairs
  std::string error;           ///< why there are no steps (algorithm does not apply, too large)
};

/// Allreduce of `message` with `algorithm` (a --algo name other than nccl/auto) over the cluster's
/// GPUs in order. Refuses schedules above `max_ops` ops (the explicit schedule is built in memory).
CollectiveSteps collective_steps(const Topology& topology, const std::string& algorithm, Bytes message,
                                 std::size_t max_ops = 2'000'000);

}  // namespace ringlab::gui
