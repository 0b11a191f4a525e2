// Chrome trace-event export of a simulated (or measured) run, for chrome://tracing and Perfetto.
//
// The output is the JSON object format {"traceEvents": [...]}: one process per schedule endpoint
// (named after its device), one thread per parallel channel (Op::channel), and one complete ("X")
// event per op, named like "send 4MiB -> rank 3", "recv 4MiB <- rank 2" or "reduce 4MiB". Times are
// in microseconds, converted exactly from integer picoseconds (at most six decimals). Keys and events
// come in a fixed order, so the same inputs always give byte-identical output.
#pragma once

#include <ostream>

#include "ringlab/sim/result.hpp"
#include "ringlab/sim/schedule.hpp"
#include "ringlab/topology/topology.hpp"

namespace ringlab::sim {

/// Writes the trace of `result`, a run of `schedule` on `topology`. Precondition: the result has a
/// timeline (SimOptions::record_timeline); throws std::invalid_argument when its size does not match
/// the schedule's op count.
void write_chrome_trace(std::ostream& out, const Schedule& schedule, const Result& result, const Topology& topology);

}  // namespace ringlab::sim
