// Private: the line formats of a schedule listing, shared by Schedule::print and
// CompactSchedule::print so that both forms of one schedule print byte-identically.
#pragma once

#include <cstdint>
#include <ostream>
#include <span>
#include <string>

#include "ringlab/sim/schedule.hpp"
#include "ringlab/topology/topology.hpp"

namespace ringlab::sim::detail {

/// "rank 3", "switch 9" or "ps 10", with the device name in parentheses when a topology is given.
std::string endpoint_label(std::span<const EndpointInfo> endpoints, Endpoint e, const Topology* topology);
/// "  #12 send 4MiB @8MiB -> rank 4 [ch 0 step 2]" (no newline).
void print_op_head(std::ostream& out, std::span<const EndpointInfo> endpoints, const Topology* topology,
                   std::uint64_t id, const Op& op, Bytes offset);
/// "  #12 send 4MiB @8MiB -> rank 4 [ch 0 step 2] after #7 #9\n"; Id is OpId or CompactOpId.
template <class Id>
void print_op_line(std::ostream& out, std::span<const EndpointInfo> endpoints, const Topology* topology, Id id,
                   const Op& op, Bytes offset, std::span<const Id> deps) {
  print_op_head(out, endpoints, topology, id, op, offset);
  if (!deps.empty()) {
    out << " after";
    for (Id d : deps) out << " #" << d;
  }
  out << '\n';
}

}  // namespace ringlab::sim::detail
