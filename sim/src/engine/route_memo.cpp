// RouteMemo (route_memo.hpp): a hash map from (source, destination, channel) to a range of one pool
// of directions.
#include "engine/route_memo.hpp"

#include "engine/engine_common.hpp"

namespace ringlab::sim::detail {

RouteMemo::RouteMemo(const Topology& topology, const SimOptions& options)
    : topology_(&topology), waypoints_(options.waypoints), ecmp_(options.ecmp), seed_(options.ecmp_seed),
      router_(topology, options.ecmp, options.ecmp_seed) {}

bool RouteMemo::serves(const Topology& topology, const SimOptions& options) const {
  return &topology == topology_ && options.ecmp == ecmp_ && options.ecmp_seed == seed_ &&
         bool(options.waypoints) == bool(waypoints_);
}

std::span<const DirectionId> RouteMemo::directions(DeviceId src, DeviceId dst, std::uint16_t channel) {
  const PathKey key{src, dst, channel};
  if (const std::uint32_t found = index_.find(key); found != PathCache::kMissing)
    return std::span<const DirectionId>(pool_).subspan(entries_[found].begin, entries_[found].count);
  Route route = transfer_route(router_, waypoints_, src, dst, channel);
  if (pool_.size() + route.directions.size() > kBudget) {
    scratch_ = std::move(route.directions);
    return scratch_;
  }
  const Entry entry{pool_.size(), std::uint32_t(route.directions.size())};
  pool_.insert(pool_.end(), route.directions.begin(), route.directions.end());
  index_.insert(key, std::uint32_t(entries_.size()));
  entries_.push_back(entry);
  return std::span<const DirectionId>(pool_).subspan(entry.begin, entry.count);
}

}  // namespace ringlab::sim::detail
