// ChannelFold: an exact channel symmetry of an explicit schedule, folded out of the simulation.
//
// NCCL splits a collective over C channels that often do the same work: channel c + k runs the ops
// of channel c between the same endpoints, and its routes are channel c's moved by a permutation of
// the link directions that keeps every capacity, latency and overhead (EcmpPolicy::Channel sends
// channel c over the (c mod n)-th of n equal next hops, so on 8 spines channel c + 2 crosses spine
// s + 2 where channel c crosses spine s). The run is then symmetric under that move: every op
// finishes when its image does, and flows that are images of each other share every direction at
// equal rates, since the max-min allocation is unique and the problem is invariant. So one channel
// in every orbit is enough: the quotient schedule keeps the ops of channels c with c mod P < k (the
// channel map is c -> (c / P) P + (c mod P + k) mod P, which also maps an NVLS multicast channel
// c + C onto c + k + C), their dependencies mapped onto the kept ops, and each kept flow carries its
// whole orbit: on a direction orbit D its route lists D's first direction G c / |D| times, where G is
// the orbit size (P / k) and c the number of its directions in D (flow_network.hpp: a direction
// listed m times takes m x the rate).
//
// Nothing is assumed: find() builds the op map (same kind, endpoints, bytes, elements, buffers, and
// the same place among the ops of its kind and endpoints on its channel) and accepts it only if it
// maps every op's dependencies and matched op onto the image's, every send's route direction for
// direction onto its image's (a bijection that keeps capacity, latency and overhead), and every
// multiplicity is a whole number. Anything else (a straggler, an unequal split, a NIC missing on one
// rail) leaves the schedule unfolded. tests/sim/channel_fold_test.cpp compares folded runs with
// full ones. Exact in real arithmetic; the sums run in another order, so times agree to rounding.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "ringlab/sim/result.hpp"
#include "ringlab/sim/schedule.hpp"

namespace ringlab::sim::detail {

struct ChannelMoves;
class ConnectionRoutes;

/// Per link direction, the simulator's costs (every span indexed by DirectionId).
struct DirectionCosts {
  std::span<const double> capacity;  ///< bytes per picosecond
  std::span<const Duration> latency;
  std::span<const Duration> overhead;
};

/// The directions a Send's flow crosses (empty when both ends are on one device), valid until the
/// next call.
using SendRoute = std::function<std::span<const DirectionId>(const Op& send)>;
/// A hint, before the first SendRoute call between a send's endpoints: every channel that has
/// sends between them (each once), whose routes may be computed together.
using RoutePrefetch = std::function<void(const Op& send, std::span<const std::uint16_t> channels)>;

class ChannelFold {
 public:
  /// The largest channel symmetry of `schedule` that holds exactly, or nullopt (none, or fewer than
  /// two channels). Per candidate move: O(connections x route length) for the routes (each computed
  /// once), then O(ops) for the op map only where the routes map.
  /// `prefetch`, when given, hears of each endpoint pair's channels before its first route.
  static std::optional<ChannelFold> find(const Schedule& schedule, const SendRoute& route, const DirectionCosts& costs,
                                         const RoutePrefetch& prefetch = {});

  /// The schedule to simulate: one op of every orbit, in the full schedule's order.
  const Schedule& quotient() const { return quotient_; }
  /// Channels folded onto each simulated one (the orbit size, >= 2).
  std::uint32_t order() const { return order_; }
  /// The network route of a quotient Send whose real route is `route`: each direction orbit's
  /// representative, as many times as the flow's orbit loads one of its directions.
  void fold_route(std::span<const DirectionId> route, std::vector<DirectionId>& out) const;
  /// Turns the quotient run's result into the full schedule's: statistics of every direction of an
  /// orbit (its representative's), bottlenecks ranked again, the critical path through real ops.
  void unfold(Result& result, std::size_t bottleneck_count) const;
  /// unfold() less the critical path, which stays in quotient op ids: for a quotient built directly
  /// (build_channels), whose ops are not this fold's quotient's.
  void unfold_links(Result& result, std::size_t bottleneck_count) const;
  /// Drops the full schedule's reference and the quotient with its op maps, keeping what
  /// fold_route() and unfold_links() need. unfold() and quotient() may not be called afterwards.
  void forget_schedules();

 private:
  ChannelFold(const Schedule& full, Schedule quotient) : full_(&full), quotient_(std::move(quotient)) {}
  /// The fold of the channel moves whose op map is `image` (orbits of `order` ops) and whose direction
  /// map is `delta` (per direction its image, or none where unused), if multiplicities are whole.
  static std::optional<ChannelFold> build(const Schedule& s, const std::vector<OpId>& image, const ChannelMoves& moves,
                                          std::uint32_t order, ConnectionRoutes& routes,
                                          const std::vector<DirectionId>& delta);
  /// Fills quotient_, full_of_ and rep_of_; false when a kept op depends on a later orbit.
  bool build_quotient(std::vector<OpId> rep_of);

  const Schedule* full_;
  Schedule quotient_;
  std::uint32_t order_ = 1;
  std::vector<OpId> rep_of_;   ///< per full op: the full id of its orbit's kept op
  std::vector<OpId> full_of_;  ///< per quotient op: its full id
  /// Per direction: its orbit's representative (itself where unused) and the orbit's size.
  std::vector<DirectionId> direction_rep_;
  std::vector<std::uint32_t> orbit_size_;
  std::vector<std::vector<DirectionId>> orbit_members_;  ///< per representative with orbit > 1
};

/// The same ops in the same order: every field, matched op and dependency set equal.
bool same_ops(const Schedule& a, const Schedule& b);

}  // namespace ringlab::sim::detail
