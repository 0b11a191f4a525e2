// Versioned JSON form of a Schedule ("ringlab.schedule" version 1, docs/schedule-format.md): the
// file a GPU harness executes and a simulation can be re-run from. Writing then reading gives the
// same schedule (op for op, so the same simulated time), and writing it again the same bytes.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "ringlab/sim/schedule.hpp"
#include "ringlab/topology/topology.hpp"

namespace ringlab::sim {

inline constexpr std::string_view kScheduleSchema = "ringlab.schedule";
inline constexpr int kScheduleVersion = 1;

/// Writes `schedule` as JSON (one op per line). Endpoints are named by device name when `topology`
/// is given (it must be the one the schedule was built on), by device id otherwise.
void write_schedule_json(std::ostream& out, const Schedule& schedule, const Topology* topology);

/// Reads a schedule written by write_schedule_json against `topology` (devices by name or id).
/// `source` names the file in error messages. Throws ringlab::InputError listing every problem
/// (with its JSON pointer): wrong schema or version, unknown names, values out of range, a Send not
/// followed by its Recv or disagreeing with it, dependencies on later ops, a channel count that does
/// not match the ops, or anything Schedule::check() reports.
Schedule read_schedule_json(const nlohmann::json& document, const Topology& topology, const std::string& source);

}  // namespace ringlab::sim
