// Topology metrics (metrics.hpp): counts, bisection max flow, oversubscription, diameter, NIC share per
// GPU, equal-cost path spread and ECMP balance, and their text layout.
//
// Diameter, exactly and fast. Router hop counts follow the zone model of routing.cpp: a path between
// GPUs of different zones is a source-zone segment, a fabric segment and a destination-zone segment.
// For a GPU g, its *signature* is the set of (fabric switch t, hops from g to t leaving its zone over
// a link into t). Two GPUs with equal signatures are at the same distance from every other GPU of
// another zone, and the distance between GPUs a, b of different zones is
//   min over (t, p) in sig(a), (t', p') in sig(b) of p + fabric_distance(t, t') + p'.
// So we run one multi-source BFS over the fabric per distinct signature (GPUs under the same leaves
// at the same positions share one: a 1024-host rail-optimised cluster has (leaf groups x rails)
// signatures) and combine signature pairs; GPU pairs inside one host add their internal distance.
// Clusters with direct host-to-host cables (no switch between) fall back to Router::hops per pair.
#include "ringlab/topology/metrics.hpp"

#include <algorithm>
#include <iomanip>
#include <limits>
#include <map>
#include <sstream>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>

#include "graph.hpp"

namespace ringlab {
namespace {

using detail::kFabricZone;
using detail::kNoDistance;
using detail::Zones;

constexpr int kGbpsDecimals = 1;
constexpr int kRatioDecimals = 2;
constexpr int kLinkNameWidth = 8;   ///< longest link kind name ("nvlink5")
constexpr int kLinkCountWidth = 6;

bool is_gpu(const Topology& t, DeviceId d) { return t.device(d).kind == DeviceKind::Gpu; }

// ---- counts --------------------------------------------------------------------------------------

void count_devices_and_links(const Topology& t, TopologySummary& s) {
  s.hosts = t.host_count();
  s.racks = t.rack_count();
  s.devices = t.device_count();
  s.links = t.link_count();
  for (const Device& d : t.devices()) {
    ++s.devices_per_kind[std::size_t(d.kind)];
    if (d.kind == DeviceKind::Gpu) ++s.gpus_per_model[std::size_t(d.gpu_model)];
  }
  for (const Host& h : t.hosts()) ++s.hosts_per_cpu_vendor[std::size_t(h.cpu_vendor)];
  s.gpus = s.devices_per_kind[std::size_t(DeviceKind::Gpu)];
  std::map<LinkKind, LinkKindSummary> per_kind;
  for (const Link& l : t.links()) {
    auto [it, inserted] = per_kind.try_emplace(l.kind, LinkKindSummary{l.kind, 0, l.bandwidth, l.bandwidth, {}});
    LinkKindSummary& k = it->second;
    ++k.count;
    k.min_bandwidth = std::min(k.min_bandwidth, l.bandwidth);
    k.max_bandwidth = std::max(k.max_bandwidth, l.bandwidth);
    k.total = k.total + l.bandwidth;
  }
  for (const auto& [kind, k] : per_kind) s.links_per_kind.push_back(k);
}

// ---- bisection -----------------------------------------------------------------------------------

using FlowTraits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
using FlowGraph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS, boost::no_property,
    boost::property<boost::edge_capacity_t, std::int64_t,
                    boost::property<boost::edge_residual_capacity_t, std::int64_t,
                                    boost::property<boost::edge_reverse_t, FlowTraits::edge_descriptor>>>>;

/// Which way traffic may cross a zone's boundary in the bisection flow.
enum ZoneRole : std::uint8_t { kNone = 0, kSends = 1, kReceives = 2 };

class FlowBuilder {
 public:
  explicit FlowBuilder(std::size_t vertices) : graph_(vertices) {}
  void add(std::size_t from, std::size_t to, std::int64_t capacity) {
    auto forward = boost::add_edge(from, to, graph_).first;
    auto backward = boost::add_edge(to, from, graph_).first;
    boost::put(boost::edge_capacity, graph_, forward, capacity);
    boost::put(boost::edge_capacity, graph_, backward, 0);
    boost::put(boost::edge_reverse, graph_, forward, backward);
    boost::put(boost::edge_reverse, graph_, backward, forward);
  }
  std::int64_t max_flow(std::size_t source, std::size_t sink) {
    return boost::push_relabel_max_flow(graph_, source, sink);
  }

 private:
  FlowGraph graph_;
};

/// Max flow (bits/s) from `senders` to `receivers`; `role` says per zone which way it may be crossed.
Bandwidth max_flow(const Topology& t, const Zones& zones, const std::vector<std::uint8_t>& role,
                   const std::vector<DeviceId>& senders, const std::vector<DeviceId>& receivers) {
  const std::size_t source = t.device_count(), sink = source + 1;
  FlowBuilder flow(t.device_count() + 2);
  std::int64_t total = 1;
  auto allowed = [&](DeviceId a, DeviceId b) {
    const std::int32_t za = zones.zone_of[a], zb = zones.zone_of[b];
    if (za == zb) return true;  // inside one zone, or fabric to fabric
    const bool a_sends = za == kFabricZone || (role[std::size_t(za)] & kSends);
    const bool b_receives = zb == kFabricZone || (role[std::size_t(zb)] & kReceives);
    return a_sends && b_receives;
  };
  for (const Link& l : t.links()) {
    const auto capacity = std::int64_t(std::llround(l.bandwidth.bits_per_second()));
    total += 2 * capacity;
    if (allowed(l.a, l.b)) flow.add(l.a, l.b, capacity);
    if (allowed(l.b, l.a)) flow.add(l.b, l.a, capacity);
  }
  for (DeviceId d : senders) flow.add(source, d, total);
  for (DeviceId d : receivers) flow.add(d, sink, total);
  return Bandwidth::from_bits_per_second(double(flow.max_flow(source, sink)));
}

void compute_bisection(const Topology& t, const Zones& zones, TopologySummary& s) {
  const std::vector<DeviceId> gpus = t.gpus();
  if (gpus.size() < 2) return;
  std::vector<std::uint8_t> role(zones.members.size(), kNone);
  std::vector<DeviceId> senders, receivers;
  if (t.host_count() >= 2) {
    s.bisection_split = BisectionSplit::Hosts;
    s.bisection_half = t.host_count() / 2;
    for (std::size_t h = 0; h < t.host_count(); ++h) role[h] = h < s.bisection_half ? kSends : kReceives;
    for (DeviceId g : gpus) {
      const HostId h = t.device(g).host;
      if (h == kNoHost) continue;
      (std::size_t(h) < s.bisection_half ? senders : receivers).push_back(g);
    }
  } else {
    s.bisection_split = BisectionSplit::Gpus;
    s.bisection_half = gpus.size() / 2;
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      const bool first = i < s.bisection_half;
      (first ? senders : receivers).push_back(gpus[i]);
      role[std::size_t(zones.zone_of[gpus[i]])] |= first ? kSends : kReceives;
    }
  }
  if (senders.empty() || receivers.empty()) return;
  s.bisection = max_flow(t, zones, role, senders, receivers);
}

// ---- oversubscription ----------------------------------------------------------------------------

/// Tier of a device for oversubscription: 0 inside hosts (and GPUs), else the switch tier (from the
/// device, or from its kind when the device gives none).
int tier_of(const Topology& t, const Zones& zones, DeviceId d) {
  if (!zones.is_fabric(d)) return 0;
  const Device& device = t.device(d);
  if (device.tier > 0) return device.tier;
  switch (device.kind) {
    case DeviceKind::Spine: return 2;
    case DeviceKind::Core: return 3;
    default: return 1;
  }
}

void compute_oversubscription(const Topology& t, const Zones& zones, TopologySummary& s) {
  std::map<int, TierOversubscription> tiers;
  for (DeviceId d = 0; d < t.device_count(); ++d) {
    if (!zones.is_fabric(d)) continue;
    const int tier = tier_of(t, zones, d);
    Bandwidth down, up;
    int upper = std::numeric_limits<int>::max();
    for (const Adjacency& adj : t.neighbors(d)) {
      const int peer = tier_of(t, zones, adj.peer);
      if (peer < tier) down = down + t.link(adj.link).bandwidth;
      if (peer > tier) {
        up = up + t.link(adj.link).bandwidth;
        upper = std::min(upper, peer);
      }
    }
    if (up.bits_per_second() <= 0 || down.bits_per_second() <= 0) continue;
    const double ratio = down / up;
    auto [it, inserted] = tiers.try_emplace(tier, TierOversubscription{tier, upper, 0, ratio, ratio});
    TierOversubscription& o = it->second;
    o.upper_tier = std::min(o.upper_tier, upper);
    ++o.switches;
    o.min_ratio = std::min(o.min_ratio, ratio);
    o.max_ratio = std::max(o.max_ratio, ratio);
  }
  for (const auto& [tier, o] : tiers) s.oversubscription.push_back(o);
}

// ---- per-GPU view of its own zone ----------------------------------------------------------------

/// BFS from a GPU inside its zone: GPUs other than the start get a distance but are never crossed.
std::vector<std::int32_t> zone_distances(const Topology& t, const Zones& zones, DeviceId gpu) {
  const auto zone = zones.zone_of[gpu];
  std::vector<std::int32_t> dist(zones.members[std::size_t(zone)].size(), kNoDistance);
  dist[zones.local(gpu)] = 0;
  std::vector<DeviceId> queue{gpu};
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const DeviceId x = queue[head];
    if (x != gpu && is_gpu(t, x)) continue;
    for (const Adjacency& adj : t.neighbors(x)) {
      if (zones.zone_of[adj.peer] != zone || dist[zones.local(adj.peer)] != kNoDistance) continue;
      dist[zones.local(adj.peer)] = dist[zones.local(x)] + 1;
      queue.push_back(adj.peer);
    }
  }
  return dist;
}

using Signature = std::vector<std::pair<std::uint32_t, std::int32_t>>;  ///< (fabric index, hops), sorted

/// Where a GPU can reach the fabric: per adjacent switch, hops from the GPU onto it.
Signature signature_of(const Topology& t, const Zones& zones, DeviceId gpu, const std::vector<std::int32_t>& dist) {
  std::map<std::uint32_t, std::int32_t> best;
  for (const DeviceId x : zones.members[std::size_t(zones.zone_of[gpu])]) {
    const std::int32_t d = dist[zones.local(x)];
    if (d == kNoDistance || (x != gpu && is_gpu(t, x))) continue;
    for (const Adjacency& adj : t.neighbors(x)) {
      if (!zones.is_fabric(adj.peer)) continue;
      auto [it, inserted] = best.try_emplace(std::uint32_t(zones.fabric_index[adj.peer]), d + 1);
      if (!inserted) it->second = std::min(it->second, d + 1);
    }
  }
  return Signature(best.begin(), best.end());
}

/// Hop distances over the fabric from several switches that start at different offsets (Dial's
/// bucket queue, since every link costs one hop).
std::vector<std::int32_t> offset_bfs(const detail::CsrGraph& g, const Signature& seeds) {
  std::vector<std::int32_t> dist(boost::num_vertices(g), kNoDistance);
  std::vector<std::vector<std::uint32_t>> buckets;
  auto push = [&](std::uint32_t v, std::int32_t d) {
    if (d >= dist[v]) return;
    dist[v] = d;
    if (buckets.size() <= std::size_t(d)) buckets.resize(std::size_t(d) + 1);
    buckets[std::size_t(d)].push_back(v);
  };
  for (const auto& [v, d] : seeds) push(v, d);
  for (std::size_t d = 0; d < buckets.size(); ++d)
    for (std::size_t i = 0; i < buckets[d].size(); ++i) {
      const std::uint32_t v = buckets[d][i];
      if (std::size_t(dist[v]) != d) continue;
      for (auto [e, end] = boost::out_edges(v, g); e != end; ++e)
        push(std::uint32_t(boost::target(*e, g)), std::int32_t(d) + 1);
    }
  return dist;
}

bool has_direct_zone_links(const Topology& t, const Zones& zones) {
  for (const Link& l : t.links()) {
    const auto za = zones.zone_of[l.a], zb = zones.zone_of[l.b];
    if (za != kFabricZone && zb != kFabricZone && za != zb) return true;
  }
  return false;
}

/// Largest hop count, or nullopt when some pair is unreachable; pairwise through the Router.
std::optional<int> diameter_by_router(const Router& router, const std::vector<DeviceId>& gpus) {
  int worst = 0;
  for (std::size_t i = 0; i < gpus.size(); ++i)
    for (std::size_t j = 0; j < gpus.size(); ++j) {
      if (i == j) continue;
      const auto h = router.hops(gpus[i], gpus[j]);
      if (!h) return std::nullopt;
      worst = std::max(worst, *h);
    }
  return worst;
}

struct SignatureGroup {
  Signature signature;
  std::int32_t first_zone = kFabricZone;
  bool many_zones = false;  ///< GPUs of more than one zone share it
};

/// Exact diameter by signatures (see the file comment); nullopt when some pair is unreachable.
std::optional<int> diameter_by_signature(const Topology& t, const Zones& zones, const std::vector<DeviceId>& gpus) {
  const detail::CsrGraph fabric = detail::induced_graph(t, zones.fabric_index, zones.fabric_count);
  std::map<Signature, std::size_t> group_of_signature;
  std::vector<SignatureGroup> groups;
  std::vector<std::size_t> group_of_gpu(gpus.size());
  std::vector<std::vector<std::int32_t>> internal(gpus.size());
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    internal[i] = zone_distances(t, zones, gpus[i]);
    Signature sig = signature_of(t, zones, gpus[i], internal[i]);
    const std::int32_t zone = zones.zone_of[gpus[i]];
    auto [it, inserted] = group_of_signature.try_emplace(std::move(sig), groups.size());
    if (inserted) groups.push_back(SignatureGroup{it->first, zone, false});
    SignatureGroup& g = groups[it->second];
    g.many_zones = g.many_zones || g.first_zone != zone;
    group_of_gpu[i] = it->second;
  }
  // via[a][b]: hops from a GPU of group a to one of group b through the fabric.
  std::vector<std::vector<std::int32_t>> via(groups.size(), std::vector<std::int32_t>(groups.size(), kNoDistance));
  for (std::size_t a = 0; a < groups.size(); ++a) {
    const std::vector<std::int32_t> dist = offset_bfs(fabric, groups[a].signature);
    for (std::size_t b = 0; b < groups.size(); ++b)
      for (const auto& [v, p] : groups[b].signature)
        if (dist[v] != kNoDistance) via[a][b] = std::min(via[a][b], dist[v] + p);
  }
  int worst = 0;
  for (std::size_t a = 0; a < groups.size(); ++a)
    for (std::size_t b = 0; b < groups.size(); ++b) {
      const bool cross_zone = groups[a].many_zones || groups[b].many_zones || groups[a].first_zone != groups[b].first_zone;
      if (!cross_zone) continue;
      if (via[a][b] == kNoDistance) return std::nullopt;
      worst = std::max(worst, via[a][b]);
    }
  // GPU pairs inside one zone: inside the host, or out through the fabric and back.
  for (std::size_t i = 0; i < gpus.size(); ++i)
    for (const DeviceId other : zones.members[std::size_t(zones.zone_of[gpus[i]])]) {
      if (other == gpus[i] || !is_gpu(t, other)) continue;
      const auto j = std::size_t(std::lower_bound(gpus.begin(), gpus.end(), other) - gpus.begin());
      const std::int32_t d = std::min(internal[i][zones.local(other)], via[group_of_gpu[i]][group_of_gpu[j]]);
      if (d == kNoDistance) return std::nullopt;
      worst = std::max(worst, d);
    }
  return worst;
}

void compute_diameter(const Topology& t, const Zones& zones, const Router& router, TopologySummary& s) {
  const std::vector<DeviceId> gpus = t.gpus();  // ascending ids
  if (gpus.size() < 2) return;
  s.diameter_hops = has_direct_zone_links(t, zones) ? diameter_by_router(router, gpus)
                                                    : diameter_by_signature(t, zones, gpus);
  s.connected = s.diameter_hops.has_value();
}

// ---- NIC bandwidth per GPU -----------------------------------------------------------------------

/// Bandwidth of a NIC's links that leave its zone, per direction.
Bandwidth network_bandwidth(const Topology& t, const Zones& zones, DeviceId nic) {
  Bandwidth total;
  for (const Adjacency& adj : t.neighbors(nic))
    if (zones.zone_of[adj.peer] != zones.zone_of[nic]) total = total + t.link(adj.link).bandwidth;
  return total;
}

void compute_nic_share(const Topology& t, const Zones& zones, TopologySummary& s) {
  const std::vector<DeviceId> gpus = t.gpus();
  std::vector<std::vector<DeviceId>> nearest(gpus.size());
  std::map<DeviceId, std::size_t> sharers;
  bool any_nic = false;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const auto& members = zones.members[std::size_t(zones.zone_of[gpus[i]])];
    const std::vector<std::int32_t> dist = zone_distances(t, zones, gpus[i]);
    std::int32_t best = kNoDistance;
    for (const DeviceId x : members) {
      if (t.device(x).kind != DeviceKind::Nic) continue;
      any_nic = true;
      const std::int32_t d = dist[zones.local(x)];
      if (d == kNoDistance || d > best) continue;
      if (d < best) nearest[i].clear();
      best = d;
      nearest[i].push_back(x);
    }
    for (const DeviceId n : nearest[i]) ++sharers[n];
  }
  if (!any_nic) return;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    Bandwidth share;
    for (const DeviceId n : nearest[i]) share = share + network_bandwidth(t, zones, n) / double(sharers[n]);
    s.nic_bandwidth_per_gpu_min = s.nic_bandwidth_per_gpu_min ? std::min(*s.nic_bandwidth_per_gpu_min, share) : share;
    s.nic_bandwidth_per_gpu_max = s.nic_bandwidth_per_gpu_max ? std::max(*s.nic_bandwidth_per_gpu_max, share) : share;
  }
}

// ---- routing spread and ECMP balance -------------------------------------------------------------

/// Max / mean flows per path when kBalanceFlowsPerPath flows per path are routed from a to b.
double ecmp_balance(const Router& router, DeviceId a, DeviceId b, std::uint64_t paths) {
  const std::vector<Route> routes = router.all_routes(a, b, std::size_t(paths));
  std::map<std::vector<DirectionId>, std::size_t> index;
  for (std::size_t i = 0; i < routes.size(); ++i) index.emplace(routes[i].directions, i);
  std::vector<std::uint64_t> load(routes.size(), 0);
  const std::uint64_t flows = kBalanceFlowsPerPath * paths;
  for (std::uint64_t key = 0; key < flows; ++key) ++load[index.at(router.route(a, b, key).directions)];
  return double(*std::max_element(load.begin(), load.end())) / double(kBalanceFlowsPerPath);
}

void compute_spread(const Topology& t, const Router& router, TopologySummary& s) {
  s.balance_policy = router.policy();
  const std::vector<DeviceId> gpus = t.gpus();
  if (gpus.empty()) return;
  const DeviceId origin = gpus.front();
  std::vector<DeviceId> firsts;  // first GPU of every other host, in host order
  std::vector<bool> seen(t.host_count(), false);
  for (DeviceId g : gpus) {
    const HostId h = t.device(g).host;
    if (h == kNoHost || h == t.device(origin).host || seen[std::size_t(h)]) continue;
    seen[std::size_t(h)] = true;
    firsts.push_back(g);
  }
  std::sort(firsts.begin(), firsts.end(), [&](DeviceId a, DeviceId b) { return t.device(a).host < t.device(b).host; });
  s.spread_candidates = firsts.size();
  std::vector<DeviceId> sample;
  const std::size_t n = std::min(firsts.size(), kSpreadSampleHosts);
  for (std::size_t i = 0; i < n; ++i) sample.push_back(firsts[i * firsts.size() / n]);
  std::vector<std::uint64_t> counts;
  double balance_sum = 0.0;
  for (DeviceId target : sample) {
    const std::uint64_t paths = router.path_count(origin, target);
    counts.push_back(paths);
    if (paths < 2 || paths > kBalanceMaxPaths || s.balance_pairs >= kBalancePairs) continue;
    const double ratio = ecmp_balance(router, origin, target, paths);
    ++s.balance_pairs;
    balance_sum += ratio;
    s.balance_worst = std::max(s.balance_worst.value_or(0.0), ratio);
  }
  if (s.balance_pairs > 0) s.balance_mean = balance_sum / double(s.balance_pairs);
  s.spread_pairs = counts.size();
  if (counts.empty()) return;
  std::sort(counts.begin(), counts.end());
  s.paths_min = counts.front();
  s.paths_median = counts[(counts.size() - 1) / 2];
  s.paths_max = counts.back();
}

// ---- text ----------------------------------------------------------------------------------------

std::string gbps(Bandwidth b) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(kGbpsDecimals) << b.gbps() << " Gbps";
  return out.str();
}

std::string ratio(double r) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(kRatioDecimals) << r << ":1";
  return out.str();
}

std::string fixed(double v) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(kRatioDecimals) << v;
  return out.str();
}

std::string range(std::size_t first, std::size_t last) {
  return first == last ? std::to_string(first) : std::to_string(first) + "-" + std::to_string(last);
}

std::string plural(std::size_t n, const std::string& word, const std::string& words = {}) {
  return std::to_string(n) + " " + (n == 1 ? word : words.empty() ? word + "s" : words);
}

std::string tier_name(int tier) {
  switch (tier) {
    case 1: return "leaf";
    case 2: return "spine";
    case 3: return "core";
    default: return "tier" + std::to_string(tier);
  }
}

void print_links(std::ostream& out, const TopologySummary& s) {
  out << "links:\n";
  for (const LinkKindSummary& k : s.links_per_kind) {
    out << "  " << std::left << std::setw(kLinkNameWidth) << to_string(k.kind) << std::right
        << std::setw(kLinkCountWidth) << k.count << (k.count == 1 ? " link, " : " links, ") << gbps(k.min_bandwidth);
    if (k.max_bandwidth != k.min_bandwidth) out << " .. " << gbps(k.max_bandwidth);
    out << " each, " << gbps(k.total) << " total (per direction)\n";
  }
}

void print_bisection(std::ostream& out, const Topology& t, const TopologySummary& s) {
  switch (s.bisection_split) {
    case BisectionSplit::None: out << "bisection: n/a (fewer than 2 GPUs)\n"; return;
    case BisectionSplit::Hosts:
      out << "bisection (hosts " << range(0, s.bisection_half - 1) << " | " << range(s.bisection_half, t.host_count() - 1)
          << ", split in host order): ";
      break;
    case BisectionSplit::Gpus:
      out << "bisection (GPUs " << range(0, s.bisection_half - 1) << " | " << range(s.bisection_half, s.gpus - 1)
          << ", split in GPU order): ";
      break;
  }
  out << gbps(s.bisection) << " one direction\n";
}

void print_oversubscription(std::ostream& out, const TopologySummary& s) {
  out << "oversubscription (downlink/uplink bandwidth per switch):";
  if (s.oversubscription.empty()) out << " n/a (no switch has uplinks)";
  for (std::size_t i = 0; i < s.oversubscription.size(); ++i) {
    const TierOversubscription& o = s.oversubscription[i];
    out << (i ? "," : "") << ' ' << tier_name(o.tier) << "->" << tier_name(o.upper_tier) << ' ' << ratio(o.min_ratio)
        << " (min) .. " << ratio(o.max_ratio) << " (max) over " << plural(o.switches, "switch", "switches");
  }
  out << '\n';
}

void print_routing(std::ostream& out, const TopologySummary& s) {
  if (s.spread_pairs == 0) {
    out << "routing spread: n/a (fewer than 2 hosts)\n";
  } else {
    out << "routing spread (first GPU to the first GPU of ";
    if (s.spread_pairs == s.spread_candidates) out << plural(s.spread_pairs, "other host");
    else out << s.spread_pairs << " of " << s.spread_candidates << " other hosts, evenly spaced";
    out << "): " << s.paths_min << " .. " << s.paths_median << " .. " << s.paths_max
        << " equal-cost paths (min .. median .. max)\n";
  }
  if (!s.balance_worst) {
    out << "ECMP balance: n/a (no sampled pair has 2-" << kBalanceMaxPaths << " equal-cost paths)\n";
    return;
  }
  out << "ECMP balance (" << (s.balance_policy == EcmpPolicy::Hash ? "hash" : s.balance_policy == EcmpPolicy::First ? "first" : "channel") << " policy, "
      << kBalanceFlowsPerPath << " flows per path, " << plural(s.balance_pairs, "pair")
      << "): max/mean flows per path " << fixed(*s.balance_worst) << " (worst), " << fixed(*s.balance_mean)
      << " (mean); 1.00 is even\n";
}

/// "label: name count, name count" over the non-zero counts, indexed by the enum E.
template <class E, std::size_t N>
void print_counts(std::ostream& out, std::string_view label, const std::array<std::size_t, N>& counts) {
  out << label << ':';
  bool first = true;
  for (std::size_t i = 0; i < N; ++i) {
    if (counts[i] == 0) continue;
    out << (first ? " " : ", ") << to_string(E(i)) << ' ' << counts[i];
    first = false;
  }
  out << '\n';
}

/// {"name": count} over the non-zero counts, in enum order.
template <class E, std::size_t N>
nlohmann::ordered_json counts_json(const std::array<std::size_t, N>& counts) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < N; ++i)
    if (counts[i] > 0) out[std::string(to_string(E(i)))] = counts[i];
  return out;
}

}  // namespace

TopologySummary summarize(const Topology& topology, const Router& router) {
  TopologySummary s;
  const Zones zones(topology);
  count_devices_and_links(topology, s);
  compute_bisection(topology, zones, s);
  compute_oversubscription(topology, zones, s);
  compute_diameter(topology, zones, router, s);
  compute_nic_share(topology, zones, s);
  compute_spread(topology, router, s);
  return s;
}

void print_summary(std::ostream& out, const Topology& topology, const TopologySummary& s) {
  out << "cluster: " << plural(s.hosts, "host") << ", " << plural(s.racks, "rack") << ", " << plural(s.gpus, "GPU")
      << " (" << plural(s.devices, "device") << ", " << plural(s.links, "link") << ")\n";
  print_counts<DeviceKind>(out, "devices", s.devices_per_kind);
  if (s.gpus > 0) print_counts<GpuModel>(out, "GPUs by model", s.gpus_per_model);
  if (s.hosts > 0) print_counts<CpuVendor>(out, "hosts by CPU vendor", s.hosts_per_cpu_vendor);
  print_links(out, s);
  print_bisection(out, topology, s);
  print_oversubscription(out, s);
  if (s.gpus < 2) out << "diameter: n/a (fewer than 2 GPUs)\n";
  else if (!s.diameter_hops) out << "diameter: disconnected (some GPU pair has no route)\n";
  else out << "diameter: " << plural(std::size_t(*s.diameter_hops), "hop") << " (GPU to GPU)\n";
  if (!s.nic_bandwidth_per_gpu_min) out << "per-GPU NIC bandwidth: n/a (no NICs)\n";
  else out << "per-GPU NIC bandwidth: " << gbps(*s.nic_bandwidth_per_gpu_min) << " (min) .. "
           << gbps(*s.nic_bandwidth_per_gpu_max) << " (max)\n";
  print_routing(out, s);
}

nlohmann::ordered_json summary_json(const TopologySummary& s, const std::string& scenario) {
  using Json = nlohmann::ordered_json;
  Json doc{{"schema", kTopologySummarySchema}, {"version", kTopologySummaryVersion}, {"scenario", scenario}};
  doc["cluster"] = {{"hosts", s.hosts}, {"racks", s.racks}, {"gpus", s.gpus}, {"devices", s.devices}, {"links", s.links}};
  doc["devices_per_kind"] = counts_json<DeviceKind>(s.devices_per_kind);
  doc["gpus_per_model"] = counts_json<GpuModel>(s.gpus_per_model);
  doc["hosts_per_cpu_vendor"] = counts_json<CpuVendor>(s.hosts_per_cpu_vendor);
  Json links = Json::array();
  for (const LinkKindSummary& l : s.links_per_kind)
    links.push_back({{"kind", to_string(l.kind)},
                     {"count", l.count},
                     {"min_bandwidth_bps", l.min_bandwidth.bits_per_second()},
                     {"max_bandwidth_bps", l.max_bandwidth.bits_per_second()},
                     {"total_bandwidth_bps", l.total.bits_per_second()}});
  doc["links_per_kind"] = std::move(links);
  const char* split = s.bisection_split == BisectionSplit::Hosts  ? "hosts"
                      : s.bisection_split == BisectionSplit::Gpus ? "gpus"
                                                                  : "none";
  doc["bisection"] = {{"split", split}, {"first_half", s.bisection_half}, {"bandwidth_bps", s.bisection.bits_per_second()}};
  Json tiers = Json::array();
  for (const TierOversubscription& t : s.oversubscription)
    tiers.push_back({{"tier", t.tier},
                     {"upper_tier", t.upper_tier},
                     {"switches", t.switches},
                     {"min_ratio", t.min_ratio},
                     {"max_ratio", t.max_ratio}});
  doc["oversubscription"] = std::move(tiers);
  doc["diameter_hops"] = s.diameter_hops ? Json(*s.diameter_hops) : Json(nullptr);
  doc["connected"] = s.connected;
  doc["nic_bandwidth_per_gpu_bps"] =
      s.nic_bandwidth_per_gpu_min ? Json{{"min", s.nic_bandwidth_per_gpu_min->bits_per_second()},
                                         {"max", s.nic_bandwidth_per_gpu_max->bits_per_second()}}
                                  : Json(nullptr);
  doc["routing_spread"] = {{"pairs", s.spread_pairs},
                           {"candidates", s.spread_candidates},
                           {"paths_min", s.paths_min},
                           {"paths_median", s.paths_median},
                           {"paths_max", s.paths_max}};
  doc["ecmp_balance"] = {{"policy", s.balance_policy == EcmpPolicy::Hash ? "hash" : s.balance_policy == EcmpPolicy::First ? "first" : "channel"},
                         {"flows_per_path", kBalanceFlowsPerPath},
                         {"pairs", s.balance_pairs},
                         {"worst", s.balance_worst ? Json(*s.balance_worst) : Json(nullptr)},
                         {"mean", s.balance_mean ? Json(*s.balance_mean) : Json(nullptr)}};
  return doc;
}

}  // namespace ringlab
