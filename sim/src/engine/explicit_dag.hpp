// ExplicitDag: the dependency walk (DagWalk) over an explicit Schedule, shared by every engine that
// executes one (the flow simulator, the SimGrid engine, the reference executor), plus each Send's
// cached path for the flow simulator.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/dag_walk.hpp"
#include "ringlab/sim/schedule.hpp"

namespace ringlab::sim::detail {

class ExplicitDag : public DagWalk {
 public:
  using Id = OpId;
  static constexpr Id kNone = kNoOp;
  /// The flow simulator's exact repeat shortcut covers compact schedules only (CompactDag).
  static constexpr bool kRepeats = false;
  explicit ExplicitDag(const Schedule& schedule);

  const Schedule& schedule() const { return schedule_; }
  const Op& op(OpId id) const { return ops_[id]; }
  Endpoint endpoint(OpId id) const { return ops_[id].at; }
  /// The path index cache of a Send (UINT32_MAX until resolved).
  std::uint32_t& path_slot(OpId send, const Op&) { return path_[send]; }

 private:
  const Schedule& schedule_;
  std::span<const Op> ops_;
  std::vector<std::uint32_t> path_;  ///< per op
};

}  // namespace ringlab::sim::detail
