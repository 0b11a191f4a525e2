// Collectives that reduce outside the ranks: parameter servers (CPU hosts holding gradient shards)
// and in-network reduction (a SHARP switch or an NVLS NVSwitch), plus how their extra participants
// are found in the topology.
#include <algorithm>
#include <cassert>
#include <deque>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "collectives/collectives_builder.hpp"

namespace ringlab::sim {
namespace {

constexpr int kUnreached = std::numeric_limits<int>::max();

/// SHARP's aggregation tree over the reducing switches: each rank reports to the first switch with
/// in_network_reduction on its shortest path to the root, each such switch to the next one on the
/// way, the root to none. Paths follow decreasing hop count from the root (the first such neighbour
/// in adjacency order), never through a GPU. Index 0 is the root.
struct AggregationTree {
  std::vector<DeviceId> switches;
  std::vector<int> parent;       ///< per switch: its parent's index, -1 for the root
  std::vector<int> depth;        ///< per switch: hops from the root
  std::vector<int> rank_switch;  ///< per rank position: the index of the switch it reports to
};

AggregationTree aggregation_tree(const Topology& topology, std::span<const DeviceId> ranks, DeviceId root) {
  // Hop counts from the root, kept only for the devices reached (an NVSwitch reaches its node's
  // GPUs only): a table over every device would cost more than the search on a large cluster.
  std::unordered_map<DeviceId, int> dist{{root, 0}};
  auto hops = [&](DeviceId d) {
    const auto it = dist.find(d);
    return it == dist.end() ? kUnreached : it->second;
  };
  std::deque<DeviceId> queue{root};
  while (!queue.empty()) {
    const DeviceId at = queue.front();
    queue.pop_front();
    if (at != root && topology.device(at).kind == DeviceKind::Gpu) continue;
    const int next_hops = dist.at(at) + 1;
    for (const Adjacency& adj : topology.neighbors(at))
      if (dist.emplace(adj.peer, next_hops).second) queue.push_back(adj.peer);
  }
  AggregationTree tree;
  std::unordered_map<DeviceId, int> index;
  auto switch_index = [&](DeviceId d) {
    const auto [it, added] = index.emplace(d, int(tree.switches.size()));
    if (added) {
      tree.switches.push_back(d);
      tree.parent.push_back(-1);
      tree.depth.push_back(hops(d));
    }
    return it->second;
  };
  switch_index(root);
  for (DeviceId r : ranks) {
    int below = -1;  // the last reducing switch passed on the way up
    for (DeviceId at = r; at != root;) {
      DeviceId next = at;
      const int here = hops(at);
      for (const Adjacency& adj : topology.neighbors(at))
        if (hops(adj.peer) == here - 1 && (adj.peer == root || topology.device(adj.peer).kind != DeviceKind::Gpu)) {
          next = adj.peer;
          break;
        }
      if (next == at) throw std::logic_error("in_network: no path from a rank to the reducing switch");
      at = next;
      if (!topology.device(at).in_network_reduction) continue;
      const int s = switch_index(at);
      if (below < 0) {
        tree.rank_switch.push_back(s);
      } else if (tree.parent[std::size_t(below)] < 0) {
        tree.parent[std::size_t(below)] = s;
      } else {
        break;  // joined a branch already known: the rest of the way is the same
      }
      below = s;
    }
  }
  return tree;
}

/// Whether `d` is inside a host other than `home`: the search to a reducing switch reaches such a
/// device only if it is a NIC, and crosses none (devices outside every host, such as a multi-node
/// NVLink switch, are fabric).
bool foreign(const Device& d, HostId home) { return is_host_internal(d.kind) && d.host != kNoHost && d.host != home; }

/// Whether some switch with in-network reduction could serve all of `ranks`: one inside a host is
/// reached only from that host (the search crosses no other host's internals), so ranks on several
/// hosts need one outside every host (SHARP, a multi-node NVLink switch).
bool any_reducing_switch_candidate(const Topology& topology, std::span<const DeviceId> ranks) {
  const HostId home = topology.device(ranks.front()).host;
  const bool one_host =
      std::all_of(ranks.begin(), ranks.end(), [&](DeviceId r) { return topology.device(r).host == home; });
  for (DeviceId d = 0; d < topology.device_count(); ++d) {
    const Device& dev = topology.device(d);
    if (dev.in_network_reduction && (dev.host == kNoHost || (one_host && dev.host == home))) return true;
  }
  return false;
}

}  // namespace

// Level by level from every rank at once, forwarding through no GPU but the rank itself and through
// no other host's internals (whose NIC is reached, not crossed): the first level L at which some
// reducing switch is within L hops of every rank is the least worst case, and those switches'
// totals are complete then (every distance is at most L), so the choice is the one a search of the
// whole topology from every rank would make. The searches stop there: a node's NVSwitch costs one
// hop from each of its GPUs, not a search of the whole cluster per GPU. Only the reducing switches
// reached are counted, and whether any switch could serve is asked (a pass over every device) only
// when a search is about to leave the ranks' hosts, so a node's NVLS search (thousands of them on a
// large cluster) stays inside the node.
std::optional<DeviceId> find_reducing_switch(const Topology& topology, std::span<const DeviceId> ranks) {
  if (ranks.empty()) return std::nullopt;
  struct Search {
    DeviceId src;
    HostId home;
    std::vector<DeviceId> frontier;
    std::unordered_set<DeviceId> seen;
  };
  std::vector<Search> searches;
  for (DeviceId r : ranks) searches.push_back(Search{r, topology.device(r).host, {r}, {r}});
  struct Tally {
    std::uint32_t reached = 0;
    long total = 0;
  };
  std::unordered_map<DeviceId, Tally> tallies;  ///< per reducing switch reached so far
  bool candidate_checked = false;
  std::vector<DeviceId> next;
  for (long level = 0;; ++level) {
    std::optional<DeviceId> best;
    long best_total = 0;
    for (const Search& search : searches)
      for (DeviceId d : search.frontier) {
        if (!topology.device(d).in_network_reduction) continue;
        Tally& tally = tallies[d];
        tally.total += level;
        if (++tally.reached == searches.size() && (!best || std::pair{tally.total, d} < std::pair{best_total, *best})) {
          best = d;
          best_total = tally.total;
        }
      }
    if (best) return best;
    bool more = false;
    for (Search& search : searches) {
      next.clear();
      for (DeviceId at : search.frontier) {
        const Device& here = topology.device(at);
        if ((at != search.src && here.kind == DeviceKind::Gpu) || foreign(here, search.home)) continue;
        for (const Adjacency& adj : topology.neighbors(at)) {
          const Device& peer = topology.device(adj.peer);
          if ((foreign(peer, search.home) && peer.kind != DeviceKind::Nic) || !search.seen.insert(adj.peer).second)
            continue;
          // Levels stop only at a switch every rank reaches: where none can (NVSwitches, ranks on
          // several hosts), say so before searching the fabric from every rank.
          if (!candidate_checked && (peer.host == kNoHost || peer.host != search.home)) {
            candidate_checked = true;
            if (!any_reducing_switch_candidate(topology, ranks)) return std::nullopt;
          }
          next.push_back(adj.peer);
        }
      }
      search.frontier.swap(next);
      more = more || !search.frontier.empty();
    }
    if (!more) return std::nullopt;
  }
}

std::vector<DeviceId> default_parameter_servers(const Topology& topology, std::span<const DeviceId> ranks) {
  std::vector<DeviceId> servers;
  std::vector<HostId> seen;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const HostId host = topology.device(ranks[r]).host;
    if (host == kNoHost)
      throw std::invalid_argument("parameter_server: rank " + std::to_string(r) +
                                  " is on no host, so there is no default server; list the servers explicitly");
    if (std::find(seen.begin(), seen.end(), host) != seen.end()) continue;
    seen.push_back(host);
    std::optional<DeviceId> cpu;
    for (DeviceId d : topology.host_devices(host)) {
      const Device& dev = topology.device(d);
      if (dev.kind != DeviceKind::Cpu) continue;
      if (!cpu || dev.local_index < topology.device(*cpu).local_index) cpu = d;
    }
    if (!cpu)
      throw std::invalid_argument("parameter_server: host '" + topology.host(host).name +
                                  "' has no CPU device to act as the default server; list the servers explicitly");
    servers.push_back(*cpu);
  }
  return servers;
}

namespace detail {

void build_parameter_server(Builder& b, const Topology& topology, const Group& ranks, const CollectiveSpec& spec) {
  std::vector<DeviceId> devices = spec.servers;
  if (devices.empty()) {
    std::vector<DeviceId> rank_devices;
    for (Endpoint r : ranks) rank_devices.push_back(b.sink().endpoints()[r].device);
    devices = default_parameter_servers(topology, rank_devices);
  }
  Group servers;
  for (DeviceId d : devices) {
    if (d >= topology.device_count())
      throw std::invalid_argument("parameter_server: server device id " + std::to_string(d) +
                                  " is not in the topology");
    servers.push_back(b.sink().add_endpoint(d, EndpointRole::ParameterServer));
  }
  const int s_count = int(servers.size());
  const auto units =
      b.units(Range{Bytes{}, spec.message}, s_count, spec.channels, spec.chunk, Layout::OwnerMajor);
  for (const Unit& u : units)
    for (int s = 0; s < s_count; ++s) {
      const Range& shard = u.blocks[std::size_t(s)];
      if (shard.empty()) continue;
      // Push: the first gradient lands as is, the others are reduced into it (p-1 Reduce ops).
      b.copy(ranks.front(), servers[std::size_t(s)], shard, u.channel, 0);
      for (std::size_t w = 1; w < ranks.size(); ++w) b.reduce(ranks[w], servers[std::size_t(s)], shard, u.channel, 0);
      // Pull.
      for (Endpoint w : ranks) b.copy(servers[std::size_t(s)], w, shard, u.channel, 1);
    }
}

SwitchAggregation::SwitchAggregation(Builder& b, const Topology& topology, const Group& ranks) : b_(b) {
  std::vector<DeviceId> rank_devices;
  for (Endpoint r : ranks) rank_devices.push_back(b.sink().endpoints()[r].device);
  const std::optional<DeviceId> device = find_reducing_switch(topology, rank_devices);
  if (!device)
    throw std::invalid_argument(
        "in_network: no switch with in_network_reduction (SHARP/NVLS) is reachable from every rank");
  AggregationTree tree = aggregation_tree(topology, rank_devices, *device);
  parent_ = std::move(tree.parent);
  for (DeviceId d : tree.switches) switches_.push_back(b.sink().add_endpoint(d, EndpointRole::Switch));
  const std::size_t n = switches_.size();
  // Deepest switches first, so that a switch's children have sent before it forwards.
  bottom_up_.resize(n);
  for (std::size_t s = 0; s < n; ++s) bottom_up_[s] = s;
  std::stable_sort(bottom_up_.begin(), bottom_up_.end(),
                   [&](std::size_t x, std::size_t y) { return tree.depth[x] > tree.depth[y]; });
  for (std::size_t i = 0; i < ranks.size(); ++i) first_switch_.emplace(ranks[i], tree.rank_switch[i]);
  arrived_.resize(n);
  came_down_.resize(n);
  up_.resize(n);
  down_.resize(n);
}

int SwitchAggregation::first_switch(Endpoint e) const { return first_switch_.at(e); }

void SwitchAggregation::mark(std::vector<char>& on, std::span<const Endpoint> members) const {
  std::fill(on.begin(), on.end(), 0);
  for (Endpoint e : members)
    for (int s = first_switch(e); s >= 0 && !on[std::size_t(s)]; s = parent_[std::size_t(s)]) on[std::size_t(s)] = 1;
}

std::span<const OpId> SwitchAggregation::holds_sum(std::size_t s) const {
  return parent_[s] < 0 ? std::span<const OpId>(arrived_[s]) : std::span<const OpId>(&came_down_[s], 1);
}

void SwitchAggregation::aggregate(Range r, std::uint16_t channel, std::span<const Endpoint> senders,
                                  std::span<const Endpoint> receivers, std::uint32_t step) {
  if (r.empty()) return;
  mark(up_, senders);
  mark(down_, receivers);
  for (auto& a : arrived_) a.clear();
  for (Endpoint e : senders) {
    const auto s = std::size_t(first_switch(e));
    arrived_[s].push_back(b_.send(e, switches_[s], r, {}, channel, step, Buffer::Scratch, RecvMode::Reduce));
  }
  for (std::size_t s : bottom_up_) {
    const int parent = parent_[s];
    if (parent < 0 || !up_[s]) continue;
    arrived_[std::size_t(parent)].push_back(b_.send(switches_[s], switches_[std::size_t(parent)], r, arrived_[s],
                                                    channel, step, Buffer::Scratch, RecvMode::Reduce));
  }
  // Down: the root once every arrival is in, each other switch once the sum came down to it.
  for (auto it = bottom_up_.rbegin(); it != bottom_up_.rend(); ++it) {
    const std::size_t s = *it;
    const int parent = parent_[s];
    if (!down_[s] || parent < 0) continue;
    came_down_[s] = b_.send(switches_[std::size_t(parent)], switches_[s], r, holds_sum(std::size_t(parent)), channel,
                            step + 1, Buffer::Scratch, RecvMode::Overwrite);
  }
  for (Endpoint e : receivers) {
    const auto s = std::size_t(first_switch(e));
    b_.wrote_dense(e, r, b_.send(switches_[s], e, r, holds_sum(s), channel, step + 1, Buffer::Data, RecvMode::Overwrite));
  }
}

void collnet_chain_allreduce(Builder& b, const Topology& topology, const Group& g, std::span<const Piece> pieces,
                             RingOrders orders, std::span<const HostId> hosts) {
  assert(!orders.empty() && hosts.size() == g.size());
  // Per ring: each host's run of ranks in ring order (its chain, head first) and the heads' aggregation.
  struct Chains {
    std::vector<Group> chains;
    std::optional<SwitchAggregation> network;
    Group heads;
  };
  std::vector<Chains> per_ring(orders.size());
  std::uint32_t longest = 1;
  for (std::size_t o = 0; o < orders.size(); ++o) {
    Chains& c = per_ring[o];
    const std::vector<int>& ring = orders[o];
    for (std::size_t k = 0; k < ring.size(); ++k) {
      const auto member = std::size_t(ring[k]);
      if (k == 0 || hosts[member] != hosts[std::size_t(ring[k - 1])]) c.chains.emplace_back();
      c.chains.back().push_back(g[member]);
    }
    for (const Group& chain : c.chains) {
      c.heads.push_back(chain.front());
      longest = std::max(longest, std::uint32_t(chain.size()));
    }
    c.network.emplace(b, topology, c.heads);
  }
  for (const Piece& p : pieces) {
    Chains& c = per_ring[std::size_t(p.channel) % per_ring.size()];
    for (const Group& chain : c.chains)  // up: the tail's sum towards the head
      for (std::size_t k = chain.size() - 1; k > 0; --k)
        b.reduce(chain[k], chain[k - 1], p.range, p.channel, std::uint32_t(chain.size() - 1 - k));
    c.network->aggregate(p.range, p.channel, c.heads, c.heads, longest - 1);
    for (const Group& chain : c.chains)  // down: the head's result to the tail
      for (std::size_t k = 0; k + 1 < chain.size(); ++k)
        b.copy(chain[k], chain[k + 1], p.range, p.channel, longest + 1 + std::uint32_t(k));
  }
}

void build_in_network(Builder& b, const Topology& topology, const Group& ranks, const CollectiveSpec& spec) {
  SwitchAggregation tree(b, topology, ranks);
  const int p = int(ranks.size());
  auto aggregate = [&](Range r, std::uint16_t ch, std::span<const Endpoint> senders,
                       std::span<const Endpoint> receivers) { tree.aggregate(r, ch, senders, receivers, 0); };
  auto others = [&](int skip) {
    Group g;
    for (int i = 0; i < p; ++i)
      if (i != skip) g.push_back(ranks[std::size_t(i)]);
    return g;
  };
  const Range whole{Bytes{}, spec.message};
  const Group root_only{ranks[std::size_t(spec.root)]};
  switch (spec.collective) {
    case Collective::AllReduce:
      for (const Piece& piece : b.pieces(whole, spec.channels, spec.chunk))
        aggregate(piece.range, piece.channel, ranks, ranks);
      return;
    case Collective::Reduce:
      for (const Piece& piece : b.pieces(whole, spec.channels, spec.chunk))
        aggregate(piece.range, piece.channel, ranks, root_only);
      return;
    case Collective::Broadcast:
      for (const Piece& piece : b.pieces(whole, spec.channels, spec.chunk))
        aggregate(piece.range, piece.channel, root_only, others(spec.root));
      return;
    case Collective::ReduceScatter:
      for (const Unit& u : b.units(whole, p, spec.channels, spec.chunk, Layout::OwnerMajor))
        for (int o = 0; o < p; ++o) aggregate(u.blocks[std::size_t(o)], u.channel, ranks, Group{ranks[std::size_t(o)]});
      return;
    case Collective::AllGather:
      for (const Unit& u : b.units(whole, p, spec.channels, spec.chunk, Layout::OwnerMajor))
        for (int o = 0; o < p; ++o)
          aggregate(u.blocks[std::size_t(o)], u.channel, Group{ranks[std::size_t(o)]}, others(o));
      return;
  }
}

}  // namespace detail
}  // namespace ringlab::sim
