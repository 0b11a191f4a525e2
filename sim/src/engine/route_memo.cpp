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

std::size_t RouteMemo::KeyHash::operator()(const Key& k) const noexcept {
  std::uint64_t h = (std::uint64_t(k.src) << 32 | k.dst) * 0x9E3779B97F4A7C15ull;
  h ^= (h >> 29) + std::uint64_t(k.channel) * 0xBF58476D1CE4E5B9ull;
  return std::size_t(h ^ (h >> 32));
}

std::span<const DirectionId> RouteMemo::directions(DeviceId src, DeviceId dst, std::uint16_t channel) {
  const Key key{src, dst, channel};
  if (const auto it = entries_.find(key); it != entries_.end())
    return std::span<const DirectionId>(pool_).subspan(it->second.begin, it->second.count);
  Route route = transfer_route(router_, waypoints_, src, dst, channel);
  if (pool_.size() + route.directions.size() > kBudget) {
    scratch_ = std::move(route.directions);
    return scratch_;
  }
  const Entry entry{pool_.size(), std::uint32_t(route.directions.size())};
  pool_.insert(pool_.end(), route.directions.begin(), route.directions.end());
  entries_.emplace(key, entry);
  return std::span<const DirectionId>(pool_).subspan(entry.begin, entry.count);
}

}  // namespace ringlab::sim::detail
