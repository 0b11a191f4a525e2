// Router: shortest-path routing with ECMP over a Topology.
//
// Paths are shortest in hop count. GPUs never forward traffic, and a path only passes through the
// internals (CPU, PCIe switch, NVSwitch, NIC) of its source's and destination's hosts, so traffic
// between two hosts never transits a third. Among equal-cost paths the policy chooses one
// deterministically: Hash picks each next hop by a hash of (src, dst, flow_key, seed), spreading
// flows like switch ECMP; First always takes the lowest link id.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "ringlab/topology/topology.hpp"
#include "ringlab/topology/units.hpp"

namespace ringlab {

/// Which of several equal-cost next hops a flow takes: Hash (by source, destination, flow key and
/// seed), First (the lowest link id), or Channel (the flow key modulo the choices at every branch:
/// NCCL pins each channel to its own NIC rail, so channel c of a host with several equally near NICs
/// uses the c-th of them, and the fabric spreads channels the same way).
enum class EcmpPolicy : std::uint8_t { Hash, First, Channel };

struct Route {
  std::vector<DirectionId> directions;  ///< directed link hops from source to destination
  Duration latency;                 ///< sum of the links' hop latencies
  Duration overhead;                ///< per-message software overhead: max over the links
  Bandwidth bottleneck;             ///< min link bandwidth along the path
};

/// Const methods are safe to call from several threads at once (the lazy caches are filled under
/// a lock), so one Router may serve a whole parallel sweep.
class Router {
 public:
  /// The topology must outlive the router. Construction is O(devices + links).
  explicit Router(const Topology& topology, EcmpPolicy policy = EcmpPolicy::Hash, std::uint64_t seed = 0);
  ~Router();
  Router(Router&&) noexcept;
  Router& operator=(Router&&) noexcept;

  /// One shortest path from src to dst chosen by the policy; the same arguments always give the same
  /// path. Throws std::invalid_argument when dst is unreachable from src or src == dst.
  Route route(DeviceId src, DeviceId dst, std::uint64_t flow_key = 0) const;
  /// route(src, dst, k) for every k of `flow_keys`, in order: the same routes, the pair's costs
  /// found once and the next hops inside the source's zone shared by the walks (a collective's
  /// channels between two devices). Throws as route() does.
  std::vector<Route> routes(DeviceId src, DeviceId dst, std::span<const std::uint64_t> flow_keys) const;
  /// The route from src to dst through `via` in order (for example a CPU whose memory stages the
  /// data): route(src, via[0]) + route(via[0], via[1]) + ... + route(via.back(), dst), each leg with the
  /// same flow key; a waypoint equal to the previous point is skipped. Latency adds up, overhead and
  /// bottleneck are over all legs. Throws as route() does for an unreachable leg.
  Route route_via(DeviceId src, std::span<const DeviceId> via, DeviceId dst, std::uint64_t flow_key = 0) const;
  /// Hop count of the shortest path, or nullopt when unreachable.
  std::optional<int> hops(DeviceId src, DeviceId dst) const;
  /// Number of distinct equal-cost shortest paths (saturates at UINT64_MAX); 0 when unreachable.
  std::uint64_t path_count(DeviceId src, DeviceId dst) const;
  /// Up to `limit` equal-cost shortest paths, in a deterministic order.
  std::vector<Route> all_routes(DeviceId src, DeviceId dst, std::size_t limit = 64) const;

  const Topology& topology() const;
  EcmpPolicy policy() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ringlab
