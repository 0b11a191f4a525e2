// Router: shortest-path routing with ECMP over a Topology (contract in routing.hpp).
//
// Model. Devices fall into three classes. *Fabric* devices (leaf/spine/core switches and any other
// device outside a host that is not a GPU) forward freely. A *zone* is a host (or a lone GPU outside
// any host); its internals (CPU, PCIe switch, NVSwitch, NIC) may carry only paths that start or end
// in that zone. GPUs never forward. A path is therefore a source-zone segment, a fabric segment and a
// destination-zone segment, each entered once (a path within one host stays inside it, or leaves
// through the fabric and comes back when that is shorter). Entering each segment once only rules out
// paths in pathological clusters whose host internals bridge otherwise separate fabric parts.
//
// Cost. Paths are shortest in hop count. Among equally short paths those with fewer host-internal
// hops (links with both ends in one host) win, so a GPU keeps to its nearest NIC when the fabric
// offers an equally short way: a DGX GPU sending to another rail leaves on its own rail's NIC and
// crosses rails in the fabric, instead of crossing the host's CPU, as NCCL does without PXN. The cost
// of a path is the triple (hops, host-internal hops, slow host-internal hops) compared
// lexicographically; "equal-cost paths" are paths with equal triples. A slow hop is a host-internal
// link that is not NVLink (PCIe, SMP): where a GPU reaches a peer GPU in equally many hops through
// the NVSwitch and through a shared PCIe switch (DGX A100: two GPUs per PCIe switch), the NVLink path
// wins, as NCCL's path search ranks NVL before PIX (src/graph/paths.cc, topo.h PATH_NVL < PATH_PIX).
//
// Algorithm. Fabric-only hop distances are Boost.Graph BFS rows over a CSR graph of the fabric,
// computed lazily from each switch a host attaches to and cached (memory: rows x fabric size).
// Per destination we cache the BFS costs inside its zone and its *entries*: (fabric switch, cost from
// that switch into the zone to the destination). The cost from a fabric switch s to the destination
// is min over entries e of fabric_distance(s, e.switch) + e.cost. The source's zone needs a small
// Dijkstra seeded from its exits; since GPUs never forward, its result depends on the source only
// when the source GPU itself links out of the zone, and on the destination only through the costs
// from the zone's exits on (and the destination's place when it is inside the zone), so tables are
// kept under that key and shared by every pair with an equal one (a 253-device zone of a GB200
// NVL72 rack as NCCL sees it would otherwise rerun it on every call). Then we walk from the source,
// at each step choosing among the neighbours whose cost is exactly one link less. A route costs a few
// microseconds after the caches are warm; construction is O(devices + links).
//
// Thread safety: const methods may be called from several threads at once. The lazy caches are
// write-once slots (LazySlots): a reader that finds a slot empty computes its value outside any lock
// and publishes it under a mutex unless another thread was first; a filled slot is read with one
// acquire load. The shared source-zone tables are looked up and added under one mutex and never
// change once added (callers hold them by shared_ptr).
#include "ringlab/topology/routing.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <memory>
#include <mutex>
#include <cassert>
#include <compare>
#include <limits>
#include <optional>
#include <queue>
#include <stdexcept>
#include <unordered_map>

#include "graph.hpp"

namespace ringlab {
namespace {

using detail::kFabricZone;

/// Path cost: hop count, then host-internal hop count, then slow (non-NVLink) host-internal hop
/// count; compared lexicographically.
struct Cost {
  std::int32_t hops = detail::kNoDistance;
  std::int32_t internal = 0;
  std::int32_t slow = 0;
  auto operator<=>(const Cost&) const = default;
  bool reachable() const { return hops < detail::kNoDistance; }
};
constexpr Cost kZeroCost{0, 0, 0};
constexpr Cost kUnreachable{};
constexpr Cost kNvLinkHop{1, 1, 0};  ///< an NVLink with both ends in one host
constexpr Cost kSlowHop{1, 1, 1};    ///< any other link with both ends in one host (PCIe, SMP)
constexpr Cost kNetworkHop{1, 0, 0};  ///< any other link
/// dijkstra_source_costs without a source GPU (a table shared by every source of the zone).
constexpr DeviceId kNoSource = std::numeric_limits<DeviceId>::max();

Cost operator+(Cost a, Cost b) {
  if (!a.reachable() || !b.reachable()) return kUnreachable;
  return Cost{a.hops + b.hops, a.internal + b.internal, a.slow + b.slow};
}

/// splitmix64 finaliser (Steele, Lea, Flood 2014): a cheap, well-mixed deterministic hash.
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > std::numeric_limits<std::uint64_t>::max() - b ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

/// Where the destination can be entered from the fabric: a switch and the cost from it to the destination.
struct Entry {
  std::uint32_t fabric;  ///< fabric index of the switch
  Cost cost;
};

/// Per-destination cache: costs inside the destination's zone and its entries from the fabric.
struct DestinationInfo {
  std::vector<Cost> zone_cost;  ///< by index within the zone; empty when the destination is a switch
  std::vector<Entry> entries;   ///< sorted by fabric index, one per switch
};

/// Write-once slots filled on first use, safe to read and fill from several threads. A filled
/// slot never changes, so references to its value stay valid for the container's lifetime.
template <typename T>
class LazySlots {
 public:
  explicit LazySlots(std::size_t n) : ready_(n), owned_(n) {}
  template <typename Make>
  const T& get(std::size_t i, Make make) const {
    if (const T* value = ready_[i].load(std::memory_order_acquire)) return *value;
    auto fresh = std::make_unique<T>(make());  // computed unlocked; a racing thread may compute it too
    const std::lock_guard lock(mutex_);
    if (const T* value = ready_[i].load(std::memory_order_relaxed)) return *value;
    owned_[i] = std::move(fresh);
    ready_[i].store(owned_[i].get(), std::memory_order_release);
    return *owned_[i];
  }

 private:
  mutable std::vector<std::atomic<const T*>> ready_;
  mutable std::vector<std::unique_ptr<T>> owned_;
  mutable std::mutex mutex_;
};

enum class Phase : std::uint8_t { Source, Fabric, Destination };

/// One candidate next hop of a walk.
struct Step {
  LinkId link;
  DeviceId peer;
  Phase phase;
};

}  // namespace

struct Router::Impl {
  const Topology* topology;
  EcmpPolicy policy;
  std::uint64_t seed;
  detail::Zones zones;
  // Short names for the parts of `zones` used everywhere below (Impl lives on the heap and never moves).
  const std::vector<std::int32_t>& zone_of = zones.zone_of;
  const std::vector<std::int32_t>& index_in_zone = zones.index_in_zone;
  const std::vector<std::vector<DeviceId>>& zone_members = zones.members;
  const std::vector<std::int32_t>& fabric_index = zones.fabric_index;
  detail::CsrGraph fabric_graph;
  LazySlots<std::vector<std::int32_t>> fabric_rows;  ///< lazily, by fabric index
  LazySlots<DestinationInfo> destinations;           ///< lazily, by device

  /// The devices outside a zone that its members other than GPUs link to: where paths leave it.
  LazySlots<std::vector<DeviceId>> zone_exits;  ///< lazily, by zone; sorted, distinct
  /// Source-zone cost tables already computed (source_costs_for), found by a hash of their key:
  /// the zone, the destination when it is inside the zone, and the cost from every exit on.
  struct SourceCosts {
    std::int32_t zone;
    DeviceId inside;  ///< the destination when it is in the zone, else kNoSource
    std::vector<Cost> exit_cost;
    std::shared_ptr<const std::vector<Cost>> cost;
  };
  /// Memory bound on the tables kept, in costs (12 bytes each): 48 MiB.
  static constexpr std::size_t kSourceCostBudget = std::size_t(1) << 22;
  mutable std::unordered_map<std::uint64_t, std::vector<SourceCosts>> source_costs;
  mutable std::size_t source_costs_kept = 0;
  mutable std::mutex source_costs_mutex;
  /// next_hops from fabric devices and, after the source's zone, in the destination's, per
  /// (destination << 32 | device), in one pool of steps (at most kKeptStepBudget, 12 bytes each:
  /// 48 MiB) behind an open-addressing table.
  static constexpr std::size_t kKeptStepBudget = std::size_t(1) << 22;
  struct KeptSteps {
    struct Entry {
      std::uint64_t key = UINT64_MAX;  ///< UINT64_MAX: empty slot
      std::uint32_t begin = 0, count = 0;
    };
    std::vector<Entry> slots = std::vector<Entry>(1024);
    std::size_t used = 0;
    std::vector<Step> pool;
    /// Fibonacci hashing: the product's top bits depend on every bit of the key (its middle bits
    /// ignored the destination in the high word, so one device's entries all shared a home).
    std::size_t home(std::uint64_t key) const {
      return std::size_t((key * 0x9e3779b97f4a7c15ULL) >> (64 - std::countr_zero(slots.size())));
    }
    const Entry* find(std::uint64_t key) const {
      for (std::size_t i = home(key);; i = (i + 1) & (slots.size() - 1)) {
        if (slots[i].key == key) return &slots[i];
        if (slots[i].key == UINT64_MAX) return nullptr;
      }
    }
    void insert(std::uint64_t key, const std::vector<Step>& steps) {
      if (find(key)) return;  // another thread was first
      if (2 * (used + 1) > slots.size()) grow();
      std::size_t i = home(key);
      while (slots[i].key != UINT64_MAX) i = (i + 1) & (slots.size() - 1);
      slots[i] = Entry{key, std::uint32_t(pool.size()), std::uint32_t(steps.size())};
      pool.insert(pool.end(), steps.begin(), steps.end());
      ++used;
    }
    void grow() {
      std::vector<Entry> old(2 * slots.size());
      old.swap(slots);
      for (const Entry& e : old) {
        if (e.key == UINT64_MAX) continue;
        std::size_t i = home(e.key);
        while (slots[i].key != UINT64_MAX) i = (i + 1) & (slots.size() - 1);
        slots[i] = e;
      }
    }
  };
  mutable KeptSteps kept_steps;
  mutable std::mutex kept_steps_mutex;

  /// Everything one (src, dst) query needs; built per call.
  struct Pair {
    DeviceId src;
    DeviceId dst;
    std::int32_t src_zone;
    std::int32_t dst_zone;
    const DestinationInfo* destination;
    /// Costs to the destination by index within the source zone: a table shared through
    /// SourceCosts, or one computed for this source alone (source_costs_for).
    std::shared_ptr<const std::vector<Cost>> source_cost;
    Cost total;
  };

  Impl(const Topology& t, EcmpPolicy p, std::uint64_t s)
      : topology(&t), policy(p), seed(s), zones(t), fabric_graph(detail::induced_graph(t, fabric_index, zones.fabric_count)),
        fabric_rows(std::size_t(zones.fabric_count)), destinations(t.device_count()),
        zone_exits(zones.members.size()) {}

  bool is_gpu(DeviceId d) const { return topology->device(d).kind == DeviceKind::Gpu; }
  /// May `d` appear on a path ending at `dst`, other than as its source? GPUs only as the destination.
  bool may_enter(DeviceId d, DeviceId dst) const { return d == dst || !is_gpu(d); }
  Cost internal_hop(LinkId link) const {
    return link_family(topology->link(link).kind) == LinkFamily::NvLink ? kNvLinkHop : kSlowHop;
  }
  Cost hop_cost(DeviceId a, DeviceId b, LinkId link) const {
    return zone_of[a] != kFabricZone && zone_of[a] == zone_of[b] ? internal_hop(link) : kNetworkHop;
  }
  std::size_t local(DeviceId d) const { return std::size_t(index_in_zone[d]); }

  const std::vector<std::int32_t>& fabric_row(std::uint32_t f) const {
    return fabric_rows.get(f, [&] { return detail::bfs_distances(fabric_graph, f); });
  }

  /// Cost from fabric device `f` (fabric index) to the destination described by `info`.
  Cost fabric_cost(const DestinationInfo& info, std::uint32_t f) const {
    Cost best = kUnreachable;
    for (const Entry& e : info.entries) {
      const std::int32_t d = fabric_row(e.fabric)[f];
      if (d >= detail::kNoDistance) continue;
      best = std::min(best, Cost{d, 0} + e.cost);
    }
    return best;
  }

  const DestinationInfo& destination_info(DeviceId dst) const {
    return destinations.get(dst, [&] { return build_destination(dst); });
  }

  /// Dijkstra from dst inside its zone (GPUs other than dst are never entered), then its entries.
  DestinationInfo build_destination(DeviceId dst) const {
    DestinationInfo info;
    const std::int32_t zone = zone_of[dst];
    if (zone == kFabricZone) {
      info.entries.push_back(Entry{std::uint32_t(fabric_index[dst]), kZeroCost});
      return info;
    }
    const auto& members = zone_members[std::size_t(zone)];
    info.zone_cost.assign(members.size(), kUnreachable);
    info.zone_cost[local(dst)] = kZeroCost;
    std::vector<DeviceId> queue;  // settled devices, in settling order
    using Item = std::pair<Cost, DeviceId>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
    heap.emplace(kZeroCost, dst);
    while (!heap.empty()) {
      const auto [c, x] = heap.top();
      heap.pop();
      if (c != info.zone_cost[local(x)]) continue;
      queue.push_back(x);
      for (const Adjacency& adj : topology->neighbors(x)) {
        const DeviceId y = adj.peer;
        if (zone_of[y] != zone || is_gpu(y)) continue;
        const Cost via = c + internal_hop(adj.link);
        if (via < info.zone_cost[local(y)]) {
          info.zone_cost[local(y)] = via;
          heap.emplace(via, y);
        }
      }
    }
    std::unordered_map<std::uint32_t, Cost> best;
    for (const DeviceId x : queue) {
      for (const Adjacency& adj : topology->neighbors(x)) {
        if (zone_of[adj.peer] != kFabricZone) continue;
        const auto f = std::uint32_t(fabric_index[adj.peer]);
        const Cost c = info.zone_cost[local(x)] + kNetworkHop;
        auto [it, inserted] = best.emplace(f, c);
        if (!inserted) it->second = std::min(it->second, c);
      }
    }
    for (const auto& [f, c] : best) info.entries.push_back(Entry{f, c});
    std::sort(info.entries.begin(), info.entries.end(),
              [](const Entry& a, const Entry& b) { return a.fabric < b.fabric; });
    return info;
  }

  /// Cost from `d` (in the destination zone, src zone != dst zone or after leaving it) to the destination.
  Cost destination_cost(const Pair& pair, DeviceId d) const {
    if (!may_enter(d, pair.dst)) return kUnreachable;
    return pair.destination->zone_cost[local(d)];
  }

  Pair plan(DeviceId src, DeviceId dst) const {
    assert(src < topology->device_count() && dst < topology->device_count());
    Pair pair{src, dst, zone_of[src], zone_of[dst], &destination_info(dst), {}, kUnreachable};
    if (pair.src_zone == kFabricZone) {
      pair.total = fabric_cost(*pair.destination, std::uint32_t(fabric_index[src]));
      return pair;
    }
    pair.source_cost = source_costs_for(pair);
    pair.total = (*pair.source_cost)[local(src)];
    return pair;
  }

  /// Cost of leaving the source zone over the link to `peer` and going on to the destination.
  Cost exit_cost(const Pair& pair, DeviceId peer) const {
    const std::int32_t peer_zone = zone_of[peer];
    if (peer_zone == kFabricZone) return kNetworkHop + fabric_cost(*pair.destination, std::uint32_t(fabric_index[peer]));
    if (peer_zone == pair.dst_zone) return kNetworkHop + destination_cost(pair, peer);
    return kUnreachable;
  }

  const std::vector<DeviceId>& exits_of(std::int32_t zone) const {
    return zone_exits.get(std::size_t(zone), [&] {
      std::vector<DeviceId> exits;
      for (const DeviceId x : zone_members[std::size_t(zone)]) {
        if (is_gpu(x)) continue;
        for (const Adjacency& adj : topology->neighbors(x))
          if (zone_of[adj.peer] != zone) exits.push_back(adj.peer);
      }
      std::sort(exits.begin(), exits.end());
      exits.erase(std::unique(exits.begin(), exits.end()), exits.end());
      return exits;
    });
  }

  /// The source zone's costs to the destination. Unless the source GPU itself has a link out of the
  /// zone, they depend on the source not at all (GPUs never forward) and on the destination only
  /// through the costs from the zone's exits on and, when it is inside the zone, its place there.
  /// So a table computed for an equal key (another source or destination) is reused instead of
  /// running the Dijkstra again: the same costs, hence the same routes.
  std::shared_ptr<const std::vector<Cost>> source_costs_for(const Pair& pair) const {
    for (const Adjacency& adj : topology->neighbors(pair.src))
      if (zone_of[adj.peer] != pair.src_zone)
        return std::make_shared<const std::vector<Cost>>(dijkstra_source_costs(pair, pair.src));
    const DeviceId inside = pair.dst_zone == pair.src_zone ? pair.dst : kNoSource;
    const std::vector<DeviceId>& exits = exits_of(pair.src_zone);
    std::vector<Cost> costs(exits.size());
    std::uint64_t hash = splitmix64((std::uint64_t(std::uint32_t(pair.src_zone)) << 32) ^ inside);
    for (std::size_t i = 0; i < exits.size(); ++i) {
      costs[i] = exit_cost(pair, exits[i]);
      hash = splitmix64(hash ^ (std::uint64_t(std::uint32_t(costs[i].hops)) << 40) ^
                        (std::uint64_t(std::uint32_t(costs[i].internal)) << 20) ^ std::uint64_t(std::uint32_t(costs[i].slow)));
    }
    const auto same = [&](const SourceCosts& t) {
      return t.zone == pair.src_zone && t.inside == inside && t.exit_cost == costs;
    };
    {
      const std::lock_guard lock(source_costs_mutex);
      if (const auto it = source_costs.find(hash); it != source_costs.end())
        for (const SourceCosts& t : it->second)
          if (same(t)) return t.cost;
    }
    auto table = std::make_shared<const std::vector<Cost>>(dijkstra_source_costs(pair, kNoSource));
    const std::lock_guard lock(source_costs_mutex);
    if (source_costs_kept + table->size() > kSourceCostBudget) return table;
    std::vector<SourceCosts>& bucket = source_costs[hash];
    for (const SourceCosts& t : bucket)
      if (same(t)) return t.cost;  // another thread was first
    source_costs_kept += table->size();
    bucket.push_back(SourceCosts{pair.src_zone, inside, std::move(costs), table});
    return table;
  }

  /// Dijkstra over the source zone, backwards from its exits (and from dst when it is in the zone).
  /// GPUs never forward: a GPU gets a cost (its cost as a source) but is never expanded; with
  /// `source` a GPU, only that one may also leave the zone over its own links.
  std::vector<Cost> dijkstra_source_costs(const Pair& pair, DeviceId source) const {
    const auto& members = zone_members[std::size_t(pair.src_zone)];
    std::vector<Cost> cost(members.size(), kUnreachable);
    if (pair.dst_zone == pair.src_zone) cost[local(pair.dst)] = kZeroCost;
    for (const DeviceId x : members) {
      if (x != source && is_gpu(x)) continue;
      for (const Adjacency& adj : topology->neighbors(x)) {
        if (zone_of[adj.peer] == pair.src_zone) continue;
        cost[local(x)] = std::min(cost[local(x)], exit_cost(pair, adj.peer));
      }
    }
    using Item = std::pair<Cost, DeviceId>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
    for (const DeviceId x : members)
      if (cost[local(x)].reachable()) heap.emplace(cost[local(x)], x);
    while (!heap.empty()) {
      const auto [c, x] = heap.top();
      heap.pop();
      if (c != cost[local(x)] || !may_enter(x, pair.dst)) continue;
      for (const Adjacency& adj : topology->neighbors(x)) {
        const DeviceId y = adj.peer;
        if (zone_of[y] != pair.src_zone) continue;
        const Cost via = c + internal_hop(adj.link);
        if (via < cost[local(y)]) {
          cost[local(y)] = via;
          heap.emplace(via, y);
        }
      }
    }
    return cost;
  }

  /// Cost from `node` in `phase` to the destination.
  Cost cost_at(const Pair& pair, DeviceId node, Phase phase) const {
    switch (phase) {
      case Phase::Source: return (*pair.source_cost)[local(node)];
      case Phase::Fabric: return fabric_cost(*pair.destination, std::uint32_t(fabric_index[node]));
      case Phase::Destination: return destination_cost(pair, node);
    }
    return kUnreachable;
  }

  /// Phase a walk in `phase` would be in after stepping onto `peer`, or nullopt when not allowed.
  std::optional<Phase> next_phase(const Pair& pair, Phase phase, DeviceId peer) const {
    const std::int32_t zone = zone_of[peer];
    if (zone == kFabricZone) {
      if (phase == Phase::Destination) return std::nullopt;
      return Phase::Fabric;
    }
    if (phase == Phase::Source && zone == pair.src_zone) {
      if (peer != pair.dst && is_gpu(peer)) return std::nullopt;
      return Phase::Source;
    }
    if (zone == pair.dst_zone) return Phase::Destination;
    return std::nullopt;
  }

  /// The next hops on equal-cost shortest paths from `node`, in ascending link id.
  std::vector<Step> next_hops(const Pair& pair, DeviceId node, Phase phase) const {
    std::vector<Step> steps;
    next_hops(pair, node, phase, steps);
    return steps;
  }
  /// The same into `steps` (replaced).
  void next_hops(const Pair& pair, DeviceId node, Phase phase, std::vector<Step>& steps) const {
    if (phase == Phase::Source) {
      steps = compute_next_hops(pair, node, phase);
      return;
    }
    // From a fabric device they depend on the destination and the device alone (the device's cost,
    // the destination's entries and zone): kept per (destination, device) for every source and
    // ECMP key. A big switch has hundreds or thousands of neighbours to price, once per route before.
    // So do they from a device of the destination's zone once the walk has left the source's (its
    // costs there, and the zone, are the destination's). The device's zone tells the two phases apart.
    const std::uint64_t key = std::uint64_t(pair.dst) << 32 | node;
    {
      const std::lock_guard lock(kept_steps_mutex);
      if (const KeptSteps::Entry* e = kept_steps.find(key)) {
        const auto first = kept_steps.pool.begin() + e->begin;
        steps.assign(first, first + e->count);
        return;
      }
    }
    steps = compute_next_hops(pair, node, phase);
    const std::lock_guard lock(kept_steps_mutex);
    if (kept_steps.pool.size() + steps.size() <= kKeptStepBudget) kept_steps.insert(key, steps);
  }

  std::vector<Step> compute_next_hops(const Pair& pair, DeviceId node, Phase phase) const {
    const Cost here = cost_at(pair, node, phase);
    // From a fabric device, a fabric neighbour y is a next hop iff an entry that gives `here` at
    // node (its BFS distance there plus its cost) is one hop nearer from y: distances obey the
    // triangle inequality, so no entry gives y less than here - 1 hop. One distance per such entry
    // and neighbour, instead of every entry's (a spine has hundreds of neighbours).
    struct Nearer {
      const std::vector<std::int32_t>* row;
      std::int32_t distance;  ///< the distance a next hop has from the entry
    };
    std::vector<Nearer> nearer;
    if (phase == Phase::Fabric) {
      const auto f = std::size_t(fabric_index[node]);
      for (const Entry& e : pair.destination->entries) {
        const std::vector<std::int32_t>& row = fabric_row(e.fabric);
        if (row[f] > 0 && row[f] < detail::kNoDistance && Cost{row[f], 0} + e.cost == here)
          nearer.push_back(Nearer{&row, row[f] - 1});
      }
    }
    std::vector<Step> steps;
    for (const Adjacency& adj : topology->neighbors(node)) {
      const auto next = next_phase(pair, phase, adj.peer);
      if (!next) continue;
      if (phase == Phase::Fabric && *next == Phase::Fabric) {
        const auto g = std::size_t(fabric_index[adj.peer]);
        if (std::any_of(nearer.begin(), nearer.end(), [&](const Nearer& n) { return (*n.row)[g] == n.distance; }))
          steps.push_back(Step{adj.link, adj.peer, Phase::Fabric});
        continue;
      }
      const Cost there = cost_at(pair, adj.peer, *next);
      if (there.reachable() && hop_cost(node, adj.peer, adj.link) + there == here)
        steps.push_back(Step{adj.link, adj.peer, *next});
    }
    std::sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.link < b.link; });
    return steps;
  }

  Phase start_phase(const Pair& pair) const {
    return pair.src_zone == kFabricZone ? Phase::Fabric : Phase::Source;
  }

  Route make_route(std::vector<DirectionId> directions) const {
    Route route;
    route.directions = std::move(directions);
    bool first = true;
    for (const DirectionId c : route.directions) {
      const Link& link = topology->link(Topology::direction_link(c));
      route.latency += link.latency;
      route.overhead = std::max(route.overhead, link.overhead);
      route.bottleneck = first ? link.bandwidth : std::min(route.bottleneck, link.bandwidth);
      first = false;
    }
    return route;
  }

  /// Next hops inside the source's zone, kept by the walks of one pair (routes()): they depend on
  /// the pair and the device only. A handful of devices, so a list.
  using SourceSteps = std::vector<std::pair<DeviceId, std::vector<Step>>>;

  const std::vector<Step>& source_steps(const Pair& pair, DeviceId node, SourceSteps& kept) const {
    for (const auto& [at, steps] : kept)
      if (at == node) return steps;
    kept.emplace_back(node, compute_next_hops(pair, node, Phase::Source));
    return kept.back().second;
  }

  /// `kept`, when given, keeps the source zone's next hops for the next walk of the same pair.
  Route walk(const Pair& pair, std::uint64_t flow_key, SourceSteps* kept = nullptr) const {
    const std::uint64_t flow_hash =
        splitmix64(seed ^ splitmix64(pair.src ^ splitmix64(std::uint64_t(pair.dst) ^ splitmix64(flow_key))));
    std::vector<DirectionId> directions;
    directions.reserve(std::size_t(pair.total.hops));
    DeviceId node = pair.src;
    Phase phase = start_phase(pair);
    std::vector<Step> found;
    while (node != pair.dst) {
      const bool keep = kept && phase == Phase::Source;
      if (!keep) next_hops(pair, node, phase, found);
      const std::vector<Step>& steps = keep ? source_steps(pair, node, *kept) : found;
      assert(!steps.empty());
      std::size_t pick = 0;
      if (policy == EcmpPolicy::Hash && steps.size() > 1) pick = splitmix64(flow_hash ^ node) % steps.size();
      if (policy == EcmpPolicy::Channel) pick = std::size_t(flow_key % steps.size());
      directions.push_back(topology->direction_from(steps[pick].link, node));
      node = steps[pick].peer;
      phase = steps[pick].phase;
    }
    return make_route(std::move(directions));
  }

  std::uint64_t count_paths(const Pair& pair, DeviceId node, Phase phase,
                            std::unordered_map<std::uint64_t, std::uint64_t>& memo) const {
    if (node == pair.dst) return 1;
    const std::uint64_t key = std::uint64_t(node) * 4 + std::uint64_t(phase);
    if (auto it = memo.find(key); it != memo.end()) return it->second;
    std::uint64_t total = 0;
    for (const Step& s : next_hops(pair, node, phase)) total = saturating_add(total, count_paths(pair, s.peer, s.phase, memo));
    memo.emplace(key, total);
    return total;
  }

  void enumerate(const Pair& pair, DeviceId node, Phase phase, std::vector<DirectionId>& prefix,
                 std::vector<Route>& out, std::size_t limit) const {
    if (out.size() >= limit) return;
    if (node == pair.dst) {
      out.push_back(make_route(prefix));
      return;
    }
    for (const Step& s : next_hops(pair, node, phase)) {
      prefix.push_back(topology->direction_from(s.link, node));
      enumerate(pair, s.peer, s.phase, prefix, out, limit);
      prefix.pop_back();
      if (out.size() >= limit) return;
    }
  }
};

Router::Router(const Topology& topology, EcmpPolicy policy, std::uint64_t seed)
    : impl_(std::make_unique<Impl>(topology, policy, seed)) {}
Router::~Router() = default;
Router::Router(Router&&) noexcept = default;
Router& Router::operator=(Router&&) noexcept = default;

Route Router::route(DeviceId src, DeviceId dst, std::uint64_t flow_key) const {
  const Topology& t = *impl_->topology;
  if (src == dst) throw std::invalid_argument("no route from " + t.device(src).name + " to itself");
  const Impl::Pair pair = impl_->plan(src, dst);
  if (!pair.total.reachable())
    throw std::invalid_argument("no route from " + t.device(src).name + " to " + t.device(dst).name);
  return impl_->walk(pair, flow_key);
}

std::vector<Route> Router::routes(DeviceId src, DeviceId dst, std::span<const std::uint64_t> flow_keys) const {
  const Topology& t = *impl_->topology;
  if (src == dst) throw std::invalid_argument("no route from " + t.device(src).name + " to itself");
  const Impl::Pair pair = impl_->plan(src, dst);
  if (!pair.total.reachable())
    throw std::invalid_argument("no route from " + t.device(src).name + " to " + t.device(dst).name);
  Impl::SourceSteps kept;
  std::vector<Route> out;
  out.reserve(flow_keys.size());
  for (const std::uint64_t key : flow_keys) out.push_back(impl_->walk(pair, key, &kept));
  return out;
}

Route Router::route_via(DeviceId src, std::span<const DeviceId> via, DeviceId dst, std::uint64_t flow_key) const {
  Route out;
  bool first = true;
  DeviceId at = src;
  auto leg = [&](DeviceId to) {
    if (to == at) return;
    const Route r = route(at, to, flow_key);
    out.directions.insert(out.directions.end(), r.directions.begin(), r.directions.end());
    out.latency += r.latency;
    out.overhead = std::max(out.overhead, r.overhead);
    out.bottleneck = first ? r.bottleneck : std::min(out.bottleneck, r.bottleneck);
    first = false;
    at = to;
  };
  for (DeviceId w : via) leg(w);
  leg(dst);
  return out;
}

std::optional<int> Router::hops(DeviceId src, DeviceId dst) const {
  if (src == dst) return 0;
  const Impl::Pair pair = impl_->plan(src, dst);
  if (!pair.total.reachable()) return std::nullopt;
  return pair.total.hops;
}

std::uint64_t Router::path_count(DeviceId src, DeviceId dst) const {
  if (src == dst) return 1;
  const Impl::Pair pair = impl_->plan(src, dst);
  if (!pair.total.reachable()) return 0;
  std::unordered_map<std::uint64_t, std::uint64_t> memo;
  return impl_->count_paths(pair, src, impl_->start_phase(pair), memo);
}

std::vector<Route> Router::all_routes(DeviceId src, DeviceId dst, std::size_t limit) const {
  std::vector<Route> out;
  if (limit == 0) return out;
  if (src == dst) {
    out.push_back(Route{});
    return out;
  }
  const Impl::Pair pair = impl_->plan(src, dst);
  if (!pair.total.reachable()) return out;
  std::vector<DirectionId> prefix;
  impl_->enumerate(pair, src, impl_->start_phase(pair), prefix, out, limit);
  return out;
}

const Topology& Router::topology() const { return *impl_->topology; }
EcmpPolicy Router::policy() const { return impl_->policy; }

}  // namespace ringlab
