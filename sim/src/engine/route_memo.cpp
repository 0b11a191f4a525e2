// RouteMemo (route_memo.hpp): a hash map from (source, destination, channel) to a range of one pool
// of directions.
#include "engine/route_memo.hpp"

#include <algorithm>

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
  if (const auto kept = keep(key, route.directions)) return *kept;
  scratch_ = std::move(route.directions);
  return scratch_;
}

void RouteMemo::route_channels(DeviceId src, DeviceId dst, std::span<const std::uint16_t> channels) {
  std::vector<std::uint64_t> direct;  // flow keys: the channels
  for (const std::uint16_t c : channels) {
    if (index_.find(PathKey{src, dst, c}) != PathCache::kMissing ||
        std::find(direct.begin(), direct.end(), c) != direct.end())
      continue;
    if (waypoints_ && !waypoints_(src, dst, c).empty()) {
      directions(src, dst, c);
      continue;
    }
    direct.push_back(c);
  }
  if (direct.empty()) return;
  const std::vector<Route> routes = router_.routes(src, dst, direct);
  for (std::size_t i = 0; i < routes.size(); ++i)
    keep(PathKey{src, dst, std::uint16_t(direct[i])}, routes[i].directions);
}

std::optional<std::span<const DirectionId>> RouteMemo::keep(const PathKey& key,
                                                            std::span<const DirectionId> directions) {
  if (pool_.size() + directions.size() > kBudget) return std::nullopt;
  const Entry entry{pool_.size(), std::uint32_t(directions.size())};
  pool_.insert(pool_.end(), directions.begin(), directions.end());
  index_.insert(key, std::uint32_t(entries_.size()));
  entries_.push_back(entry);
  return std::span<const DirectionId>(pool_).subspan(entry.begin, entry.count);
}

}  // namespace ringlab::sim::detail
