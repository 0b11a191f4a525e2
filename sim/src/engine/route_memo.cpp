// RouteMemo (route_memo.hpp): a hash map from (source, destination, channel) to a range of one pool
// of directions (with its costs and rate limit, where a detour has them).
#include "engine/route_memo.hpp"

#include <algorithm>

#include "engine/engine_common.hpp"

namespace ringlab::sim::detail {

RouteMemo::RouteMemo(const Topology& topology, const SimOptions& options)
    : topology_(&topology), detours_(options.detours), ecmp_(options.ecmp), seed_(options.ecmp_seed),
      router_(topology, options.ecmp, options.ecmp_seed) {}

bool RouteMemo::serves(const Topology& topology, const SimOptions& options) const {
  return &topology == topology_ && options.ecmp == ecmp_ && options.ecmp_seed == seed_ &&
         bool(options.detours) == bool(detours_);
}

RouteView RouteMemo::route(DeviceId src, DeviceId dst, std::uint16_t channel) {
  const PathKey key{src, dst, channel};
  if (const std::uint32_t found = index_.find(key); found != PathCache::kMissing) {
    const Entry& e = entries_[found];
    RouteView view{std::span<const DirectionId>(pool_).subspan(e.begin, e.count), {}, {}};
    if (e.detour == kNone) return view;
    const DetourKept& d = detours_kept_[e.detour];
    if (d.costs != kNone) view.costs = std::span<const double>(cost_pool_).subspan(d.costs, e.count);
    view.max_rate = d.max_rate;
    return view;
  }
  TransferRoute route = transfer_route(router_, detours_, src, dst, channel);
  has_costs_ = has_costs_ || !route.costs.empty() || route.max_rate.bits_per_second() > 0;
  if (const auto kept = keep(key, route.directions, route.costs, route.max_rate)) return *kept;
  scratch_ = std::move(route);
  return RouteView{scratch_.directions, scratch_.costs, scratch_.max_rate};
}

void RouteMemo::route_channels(DeviceId src, DeviceId dst, std::span<const std::uint16_t> channels) {
  std::vector<std::uint64_t> direct;  // flow keys: the channels
  for (const std::uint16_t c : channels) {
    if (index_.find(PathKey{src, dst, c}) != PathCache::kMissing ||
        std::find(direct.begin(), direct.end(), c) != direct.end())
      continue;
    if (detours_ && !detours_(src, dst, c).plain()) {
      route(src, dst, c);
      continue;
    }
    direct.push_back(c);
  }
  if (direct.empty()) return;
  const std::vector<Route> routes = router_.routes(src, dst, direct);
  for (std::size_t i = 0; i < routes.size(); ++i)
    keep(PathKey{src, dst, std::uint16_t(direct[i])}, routes[i].directions);
}

std::optional<RouteView> RouteMemo::keep(const PathKey& key, std::span<const DirectionId> directions,
                                         std::span<const double> costs, Bandwidth max_rate) {
  if (pool_.size() + directions.size() > kBudget) return std::nullopt;
  Entry entry{pool_.size(), std::uint32_t(directions.size())};
  pool_.insert(pool_.end(), directions.begin(), directions.end());
  RouteView view{std::span<const DirectionId>(pool_).subspan(entry.begin, entry.count), {}, max_rate};
  if (!costs.empty() || max_rate.bits_per_second() > 0) {
    DetourKept d{kNone, max_rate};
    if (!costs.empty()) {
      d.costs = std::uint32_t(cost_pool_.size());
      cost_pool_.insert(cost_pool_.end(), costs.begin(), costs.end());
      view.costs = std::span<const double>(cost_pool_).subspan(d.costs, entry.count);
    }
    entry.detour = std::uint32_t(detours_kept_.size());
    detours_kept_.push_back(d);
  }
  index_.insert(key, std::uint32_t(entries_.size()));
  entries_.push_back(entry);
  return view;
}

}  // namespace ringlab::sim::detail
