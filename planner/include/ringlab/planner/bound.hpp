// Lower bounds on a collective's time on a cluster, so every plan reports its gap to the best
// possible.
//
// Cuts come from the fabric's own hierarchy: single GPUs, hosts, and then groups closed under the
// fabric (hosts that hang off the same switches, together with those switches when everything
// below them is inside; then groups that share the same upper switches, and so on: racks, leaf
// groups, pods, scalable units). A cut's capacity is the bandwidth of the link directions leaving
// (or entering) the group's devices.
//
//   ring bound: any ring schedule, with any number of channels and any rank order, moves
//     f * N bytes out of (and into) every group that holds some but not all ranks, because every
//     channel's ring enters and leaves the group at least once and each ring edge carries f times
//     the channel's share (all-reduce f = 2(p-1)/p; reduce-scatter and all-gather (p-1)/p;
//     broadcast and reduce 1). So T >= f * N / min over groups of the cut capacity.
//   any bound: any algorithm without in-network reduction. For a partition of the ranks into H
//     groups, an all-reduce must carry at least 2(H-1) N bytes across group boundaries (H-1
//     partial sums to reduce each element, H-1 copies of the result to spread it: Patarasuk and
//     Yuan, J. Parallel Distrib. Comput. 69(2), 2009, for the per-node case), so
//     T >= 2(H-1) N / sum of the groups' capacities; and one group against the rest needs N each
//     way. All-gather and reduce-scatter: (H-1)/H of the data per group; broadcast/reduce: N into
//     (out of) every group without the root.
// Both also hold the latency each step must pay: the ring's dependent steps times the cheapest
// hop any rank can take, and, for any algorithm, the latency between the farthest hosts. The
// bound is the larger of the bandwidth and latency terms (valid with or without pipelining).
#pragma once

#include <string>
#include <vector>

#include "ringlab/sim/collectives.hpp"
#include "ringlab/topology/routing.hpp"
#include "ringlab/topology/topology.hpp"
#include "ringlab/topology/units.hpp"

namespace ringlab::planner {

struct LowerBound {
  Duration ring;          ///< no ring schedule on these ranks can be faster
  std::string ring_cut;   ///< the cut that binds it, in words ("rack r1: 40 Gb/s out")
  Duration any;           ///< no algorithm without in-network reduction can be faster
  std::string any_cut;    ///< the cut or partition that binds it
};

/// Bounds for `collective` of `message` bytes (per rank, as nccl-tests counts it) over `ranks`
/// (distinct GPUs). The router gives the latency between hosts. Deterministic; linear in the
/// cluster's size plus one route per host. A single rank gives zero.
LowerBound lower_bound(const Topology& topology, const Router& router, const std::vector<DeviceId>& ranks,
                       sim::Collective collective, Bytes message);

}  // namespace ringlab::planner
