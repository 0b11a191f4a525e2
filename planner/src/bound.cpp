// lower_bound(): cut bounds over the fabric's own hierarchy (bound.hpp has the argument).
#include "ringlab/planner/bound.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ringlab/topology/units.hpp"

namespace ringlab::planner {
namespace {

/// A set of devices closed under the fabric: hosts, then hosts with the switches wholly below them.
struct Group {
  std::vector<DeviceId> devices;
  std::string name;
  int ranks = 0;
  double capacity_bps = 0;  ///< bandwidth of the links with exactly one end inside, per direction
};

/// One partition of the cluster's devices (a level of the hierarchy): only groups with ranks count.
using Level = std::vector<Group>;

class Hierarchy {
 public:
  Hierarchy(const Topology& t, const std::vector<DeviceId>& ranks) : t_(t), is_rank_(t.device_count(), 0) {
    for (DeviceId r : ranks) is_rank_[r] = 1;
  }

  /// Level 0: every rank alone.
  Level gpus(const std::vector<DeviceId>& ranks) {
    Level level;
    for (DeviceId r : ranks) level.push_back(finish({{r}, t_.device(r).name, 0, 0}));
    return level;
  }

  /// Level 1: hosts; then groups merged by shared upper switches until nothing changes.
  std::vector<Level> fabric_levels() {
    std::vector<Level> levels;
    Level units;
    for (std::size_t h = 0; h < t_.host_count(); ++h) {
      Group g{t_.host_devices(HostId(h)), "host " + t_.host(HostId(h)).name, 0, 0};
      if (!g.devices.empty()) units.push_back(std::move(g));
    }
    // GPUs outside any host: their own units.
    for (DeviceId d = 0; d < t_.device_count(); ++d) {
      const Device& dev = t_.device(d);
      if (dev.host == kNoHost && dev.kind == DeviceKind::Gpu) units.push_back({{d}, dev.name, 0, 0});
    }
    for (Group& g : units) g = finish(std::move(g));
    levels.push_back(units);
    while (units.size() > 1) {
      Level next = merge(units);
      if (next.size() == units.size()) break;
      units = std::move(next);
      levels.push_back(units);
    }
    return levels;
  }

 private:
  /// Membership stamp for `g` (devices inside get the current stamp).
  void mark(const Group& g) {
    ++stamp_;
    if (inside_.size() < t_.device_count()) inside_.assign(t_.device_count(), 0);
    for (DeviceId d : g.devices) inside_[d] = stamp_;
  }
  bool in(DeviceId d) const { return inside_[d] == stamp_; }

  Group finish(Group g) {
    mark(g);
    g.ranks = 0;
    g.capacity_bps = 0;
    for (DeviceId d : g.devices) {
      g.ranks += is_rank_[d];
      for (const Adjacency& a : t_.neighbors(d))
        if (!in(a.peer)) g.capacity_bps += t_.link(a.link).bandwidth.bits_per_second();
    }
    return g;
  }

  /// Devices outside `g` adjacent to it, sorted.
  std::vector<DeviceId> upper(const Group& g) {
    mark(g);
    std::set<DeviceId> out;
    for (DeviceId d : g.devices)
      for (const Adjacency& a : t_.neighbors(d))
        if (!in(a.peer)) out.insert(a.peer);
    return {out.begin(), out.end()};
  }

  /// Units with the same upper neighbours merge; an upper switch joins when everything at its
  /// tier or below that it touches is inside.
  Level merge(const Level& units) {
    std::map<std::vector<DeviceId>, std::vector<std::size_t>> by_upper;
    std::vector<std::vector<DeviceId>> uppers;
    for (std::size_t i = 0; i < units.size(); ++i) {
      uppers.push_back(upper(units[i]));
      by_upper[uppers.back()].push_back(i);
    }
    Level next;
    std::vector<char> taken(units.size(), 0);
    for (std::size_t i = 0; i < units.size(); ++i) {  // in unit order, for determinism
      if (taken[i]) continue;
      Group g;
      for (std::size_t j : by_upper[uppers[i]]) {
        taken[j] = 1;
        g.devices.insert(g.devices.end(), units[j].devices.begin(), units[j].devices.end());
      }
      mark(g);
      std::string absorbed;
      for (DeviceId s : uppers[i]) {
        const Device& sw = t_.device(s);
        const bool below_inside = std::all_of(t_.neighbors(s).begin(), t_.neighbors(s).end(), [&](const Adjacency& a) {
          return in(a.peer) || t_.device(a.peer).tier > sw.tier;
        });
        if (!below_inside) continue;
        g.devices.push_back(s);
        if (absorbed.empty()) absorbed = sw.name;
      }
      const std::size_t members = by_upper[uppers[i]].size();
      g.name = absorbed.empty() ? units[i].name + " and " + std::to_string(members - 1) + " more"
                                : "hosts under " + absorbed;
      if (members == 1 && absorbed.empty()) g.name = units[i].name;
      next.push_back(finish(std::move(g)));
    }
    return next;
  }

  const Topology& t_;
  std::vector<char> is_rank_;
  std::vector<std::uint32_t> inside_;
  std::uint32_t stamp_ = 0;
};

/// Bytes every ring edge carries, as a multiple of the message.
double ring_factor(sim::Collective c, int p) {
  switch (c) {
    case sim::Collective::AllReduce: return 2.0 * (p - 1) / p;
    case sim::Collective::ReduceScatter:
    case sim::Collective::AllGather: return double(p - 1) / p;
    case sim::Collective::Broadcast:
    case sim::Collective::Reduce: return 1.0;
  }
  return 1.0;
}

/// Dependent steps of a ring (chain for broadcast and reduce).
int ring_steps(sim::Collective c, int p) { return c == sim::Collective::AllReduce ? 2 * (p - 1) : p - 1; }

/// Bytes that must cross out of the groups of a partition into H groups with ranks, all together.
double partition_bytes(sim::Collective c, int h, double message) {
  switch (c) {
    case sim::Collective::AllReduce: return 2.0 * (h - 1) * message;
    case sim::Collective::ReduceScatter:
    case sim::Collective::AllGather: return (h - 1) * message;
    case sim::Collective::Broadcast:
    case sim::Collective::Reduce: return 0;  // covered by the single-group cut
  }
  return 0;
}

std::string gbps(double bps) { return to_string(Bandwidth::from_bits_per_second(bps)); }

Duration seconds(double s) { return Duration::from_seconds(s); }

}  // namespace

LowerBound lower_bound(const Topology& topology, const Router& router, const std::vector<DeviceId>& ranks,
                       sim::Collective collective, Bytes message) {
  LowerBound bound;
  const int p = int(ranks.size());
  if (p < 2) return bound;
  const double n = double(message.value) * 8.0;  // bits
  Hierarchy hierarchy(topology, ranks);
  std::vector<Level> levels = hierarchy.fabric_levels();
  levels.insert(levels.begin(), hierarchy.gpus(ranks));

  double ring_bw = 0, any_bw = 0;
  for (const Level& level : levels) {
    int groups = 0;
    double capacity = 0;
    for (const Group& g : level) {
      if (g.ranks == 0) continue;
      ++groups;
      capacity += g.capacity_bps;
      if (g.ranks == p || g.capacity_bps <= 0) continue;
      const double ring = ring_factor(collective, p) * n / g.capacity_bps;
      if (ring > ring_bw) {
        ring_bw = ring;
        bound.ring_cut = g.name + ": " + gbps(g.capacity_bps) + " each way";
      }
      const double single = n / g.capacity_bps * (collective == sim::Collective::AllReduce ||
                                                           collective == sim::Collective::Broadcast ||
                                                           collective == sim::Collective::Reduce
                                                       ? 1.0
                                                       : double(p - g.ranks) / p);
      if (single > any_bw) {
        any_bw = single;
        bound.any_cut = g.name + " against the rest: " + gbps(g.capacity_bps) + " each way";
      }
    }
    if (groups < 2 || capacity <= 0) continue;
    const double spread = partition_bytes(collective, groups, n) / capacity;
    if (spread > any_bw) {
      any_bw = spread;
      bound.any_cut = std::to_string(groups) + " groups (" + level.front().name + ", ...): " + gbps(capacity) +
                      " out in all";
    }
  }

  // Latency: the cheapest hop a rank can take, and the farthest host from rank 0.
  Duration hop = Duration::max();
  for (DeviceId r : ranks)
    for (const Adjacency& a : topology.neighbors(r)) {
      const Link& l = topology.link(a.link);
      hop = std::min(hop, l.latency + l.overhead);
    }
  Duration far;
  std::vector<char> seen(topology.host_count() + 1, 0);
  for (DeviceId r : ranks) {
    if (r == ranks.front()) continue;
    const HostId h = topology.device(r).host;
    char& s = seen[h == kNoHost ? topology.host_count() : std::size_t(h)];
    if (s && h != kNoHost) continue;
    s = 1;
    const Route route = router.route(ranks.front(), r);
    far = std::max(far, route.latency + route.overhead);
  }
  const Duration ring_latency = hop * ring_steps(collective, p);
  bound.ring = std::max(seconds(ring_bw), ring_latency);
  bound.any = std::max(seconds(any_bw), far);
  if (bound.ring == ring_latency) bound.ring_cut = std::to_string(ring_steps(collective, p)) + " dependent steps of at least one hop";
  if (bound.any == far) bound.any_cut = "latency to the farthest host";
  return bound;
}

}  // namespace ringlab::planner
