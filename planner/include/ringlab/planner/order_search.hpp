// Ring order search: a topology-aware construction improved by local search on a fast surrogate.
//
// Construction. GPUs are grouped by host, as NCCL and every launcher need (plan.hpp). Inside a
// host they follow the PCIe tree (CPU socket, then PCIe switch, then local index), so consecutive
// GPUs share a switch when NVLink does not join them. Hosts are sorted by where they hang in the
// fabric: the switch their first NIC attaches to, that switch's first upper switch, and so on up,
// top tier first; so hosts of one leaf (rack) sit together, leaves of one pod sit together, and
// a ring leaves each group once. With several channels on hosts with several NICs, channel c
// enters each host at GPU (c * gpus / channels) so the channels spread over the NICs (NCCL gives
// each channel its own NIC: launchers.md 3).
//
// Surrogate. Every ring edge (channel c, GPU a -> GPU b) is routed exactly as the simulator routes
// it (Router::route(a, b, c), with the simulation's ECMP policy and seed). In a lockstep ring all
// edges move the same bytes at once, so a step lasts about max over link directions of
// edges(d) / bandwidth(d); the search minimises a smooth stand-in for that maximum
// (sum of (edges(d) / bandwidth(d))^8), so that it also lowers the second-worst links, and
// reports the maximum itself.
//
// Search. First-improvement moves on the host sequence (swap two hosts, reverse a run of hosts)
// and inside hosts (swap two GPUs), drawn from a seeded generator; only the edges a move touches
// are re-routed and re-counted. It stops after `max_moves` moves, after `stall_moves` moves
// without improvement, or at the wall-clock limit (the only source of non-determinism; it is
// reported). The planner confirms the result on the full simulator.
#pragma once

#include <cstdint>
#include <vector>

#include "ringlab/sim/rank_order.hpp"
#include "ringlab/topology/routing.hpp"
#include "ringlab/topology/topology.hpp"

namespace ringlab::planner {

struct OrderSearchOptions {
  int channels = 1;                 ///< parallel rings (>= 1); they share the host order
  std::uint64_t seed = 1;           ///< the move generator's seed
  long long max_moves = -1;         ///< -1: 400 per host + 2,000; 0: construction only
  long long stall_moves = -1;       ///< -1: 40 per host + 1,000
  double time_limit_seconds = 0;    ///< 0: none; else stop at this wall time (non-deterministic)
};

struct OrderSearchResult {
  sim::RankOrder constructed;       ///< the topology-aware construction
  sim::RankOrder order;             ///< after local search (equal to constructed when nothing helped)
  double constructed_cost = 0;      ///< surrogate: seconds per byte each ring edge carries
  double cost = 0;                  ///< the same for `order`
  long long moves = 0;              ///< moves tried
  long long improvements = 0;       ///< moves kept
  bool hit_time_limit = false;
};

/// Orders `gpus` (distinct GPUs of `topology`, at least one) into a ring, host by host. The router
/// must route over `topology` with the policy and seed the simulation will use. Deterministic for a
/// seed unless the time limit stops it.
OrderSearchResult search_ring_order(const Topology& topology, const Router& router, const std::vector<DeviceId>& gpus,
                                    const OrderSearchOptions& options);

}  // namespace ringlab::planner
