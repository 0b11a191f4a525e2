// RouteMemo: every connection's route (transfer_route(): the router's path, or the legs through the
// devices that stage it in host memory, with their PCIe costs) computed once and kept, so that the simulators of one
// sweep over message sizes, and the fold proof and the run of one size, route each connection once.
// Routes depend on the topology and the routing options only (ECMP policy and seed, detours), never
// on the message, so a kept route is the route a fresh router would give.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "engine/engine_common.hpp"
#include "engine/path_cache.hpp"
#include "ringlab/sim/simulator.hpp"
#include "ringlab/topology/routing.hpp"
#include "ringlab/topology/topology.hpp"

namespace ringlab::sim::detail {

/// A kept route: its directions and, for a costed detour, the capacity a byte takes on each; for a
/// detour with a rate limit, that limit.
struct RouteView {
  std::span<const DirectionId> directions;
  std::span<const double> costs;  ///< empty: 1 on every direction
  Bandwidth max_rate;             ///< zero: no limit of its own
};

class RouteMemo {
 public:
  /// Routes on `topology` (which must outlive the memo) as `options` route: its ecmp, ecmp_seed and
  /// detours. Every simulator sharing the memo must route the same way (see serves()).
  RouteMemo(const Topology& topology, const SimOptions& options);

  /// Whether simulators on `topology` with `options` may share this memo: the same topology object,
  /// ECMP policy and seed, and detours given or not as at construction. (Two detour functions
  /// cannot be compared: whoever shares a memo passes the same one.)
  bool serves(const Topology& topology, const SimOptions& options) const;

  /// transfer_route() from src to dst on `channel`, with the options given at construction. The
  /// spans stay valid until the next call. Precondition: src != dst.
  RouteView route(DeviceId src, DeviceId dst, std::uint16_t channel);
  std::span<const DirectionId> directions(DeviceId src, DeviceId dst, std::uint16_t channel) {
    return route(src, dst, channel).directions;
  }
  /// Whether any route computed so far has costs or a rate limit (a fold carries neither:
  /// simulator.cpp).
  bool has_costs() const { return has_costs_; }
  /// Computes and keeps, within the budget, the routes of `channels` from src to dst that are not
  /// kept yet, the direct ones with one Router::routes() call (the pair planned once). For a caller
  /// about to ask directions() for several channels of one pair. Precondition: src != dst.
  void route_channels(DeviceId src, DeviceId dst, std::span<const std::uint16_t> channels);

  /// Directions kept at most (64 MiB of DirectionId): beyond it routes are computed every time.
  static constexpr std::size_t kBudget = std::size_t{16} << 20;

 private:
  /// Keeps `route` as the route of `key` unless that would pass the budget; the kept copy, or
  /// nullopt when not kept.
  std::optional<RouteView> keep(const PathKey& key, std::span<const DirectionId> directions,
                                std::span<const double> costs = {}, Bandwidth max_rate = {});

  static constexpr std::uint32_t kNone = UINT32_MAX;
  struct Entry {  // 16 bytes: most routes have neither costs nor a rate limit
    std::size_t begin;
    std::uint32_t count;
    std::uint32_t detour = kNone;  ///< its index in detours_kept_, if it has costs or a rate limit
  };
  struct DetourKept {
    std::uint32_t costs = kNone;  ///< its first cost in cost_pool_, if it has costs
    Bandwidth max_rate;           ///< zero: none
  };

  const Topology* topology_;
  Detours detours_;
  EcmpPolicy ecmp_;
  std::uint64_t seed_;
  Router router_;
  PathCache index_;  ///< (src, dst, channel) -> entries_ index
  std::vector<Entry> entries_;
  std::vector<DirectionId> pool_;     ///< every kept route's directions, one after another
  std::vector<double> cost_pool_;     ///< the costs of the kept routes that have them
  std::vector<DetourKept> detours_kept_;
  TransferRoute scratch_;             ///< a route computed past the budget
  bool has_costs_ = false;
};

}  // namespace ringlab::sim::detail
