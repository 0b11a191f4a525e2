// Private: the line formats of a schedule listing, shared by Schedule::print and
// CompactSchedule::print so that both forms of one schedule print byte-identically.
#pragma once

#include <ostream>
#include <span>
#include <string>

#include "ringlab/sim/schedule.hpp"
#include "ringlab/topology/topology.hpp"

namespace ringlab::sim::detail {

/// "rank 3", "switch 9" or "ps 10", with the device name in parentheses when a topology is given.
std::string endpoint_label(std::span<const EndpointInfo> endpoints, Endpoint e, const Topology* topology);
/// "  #12 send 4MiB @8MiB -> rank 4 [ch 0 step 2] after #7 #9\n"
void print_op_line(std::ostream& out, std::span<const EndpointInfo> endpoints, const Topology* topology, OpId id,
                   const Op& op, Bytes offset, std::span<const OpId> deps);

}  // namespace ringlab::sim::detail
