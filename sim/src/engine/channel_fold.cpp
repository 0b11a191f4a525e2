// ChannelFold: finding an exact channel symmetry, building the quotient schedule, unfolding results
// (channel_fold.hpp says what and why).
#include "engine/channel_fold.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>

#include "engine/engine_common.hpp"
#include "engine/path_cache.hpp"

namespace ringlab::sim::detail {

/// The channel move of one class of ops: c -> (c / period) period + (c mod period + step) mod
/// period; the ops kept are those on channels c with c mod period < step.
struct ChannelMove {
  std::uint16_t period = 1;
  std::uint16_t step = 0;
  std::uint16_t apply(std::uint16_t c) const { return std::uint16_t(c / period * period + (c % period + step) % period); }
  bool kept(std::uint16_t c) const { return c % period < step; }
};

/// Builders number channels per stage: a rail tree's channel 2c + t and an NVLS stage's channel c
/// (and c + C for its multicast) both belong to unit c. So ops between two ranks and ops at a
/// switch or server each get a move of their own.
struct ChannelMoves {
  ChannelMove between_ranks, other;
  int ranks = 0;
  const ChannelMove& of(Endpoint at, Endpoint peer) const {
    return int(at) < ranks && int(peer) < ranks ? between_ranks : other;
  }
  const ChannelMove& of(const Op& op) const { return of(op.at, op.peer); }
};

namespace {

constexpr DirectionId kNoDirection = UINT32_MAX;
constexpr std::uint32_t kEndpointBits = 21;

/// Ops in runs of one (kind, endpoint, peer, channel), each run in id order, the runs found through
/// an open-addressing table: an op's image on another channel is the op at the same place in the run
/// of that channel. Two passes over the ops, no sort.
class OpIndex {
 public:
  explicit OpIndex(std::span<const Op> ops) : run_of_(ops.size()), place_(ops.size()), sorted_(ops.size()) {
    slots_.assign(1024, kEmpty);
    for (OpId id = 0; id < ops.size(); ++id) {
      const std::uint32_t r = find_or_add(key(ops[id]));
      run_of_[id] = r;
      place_[id] = runs_[r].length++;
    }
    std::uint32_t begin = 0;
    for (Run& run : runs_) {
      run.begin = begin;
      begin += run.length;
    }
    for (OpId id = 0; id < ops.size(); ++id) sorted_[runs_[run_of_[id]].begin + place_[id]] = id;
  }
  static bool fits(std::size_t endpoints) { return endpoints < (std::size_t(1) << kEndpointBits); }

  /// The op at `id`'s place on `channel`, or kNoOp when that channel has no such run or a run of
  /// another length.
  OpId image(OpId id, std::uint16_t channel) const {
    const Run& own = runs_[run_of_[id]];
    const std::uint32_t r = find((own.key & ~std::uint64_t(0xffff)) | channel);
    if (r == kEmpty || runs_[r].length != own.length) return kNoOp;
    return sorted_[runs_[r].begin + place_[id]];
  }

 private:
  struct Run {
    std::uint64_t key = 0;
    std::uint32_t begin = 0;  ///< in sorted_
    std::uint32_t length = 0;
  };
  static constexpr std::uint32_t kEmpty = UINT32_MAX;
  static std::uint64_t key(const Op& op) {
    return (std::uint64_t(op.kind) << (2 * kEndpointBits + 16)) | (std::uint64_t(op.at) << (kEndpointBits + 16)) |
           (std::uint64_t(op.peer) << 16) | op.channel;
  }
  /// Fibonacci hashing on the product's top bits, which depend on every bit of the key (its middle
  /// bits ignored `at`, so the runs of one kind, peer and channel shared a home).
  std::size_t home(std::uint64_t k) const {
    return std::size_t((k * 0x9e3779b97f4a7c15ULL) >> (64 - std::countr_zero(slots_.size())));
  }
  std::uint32_t find(std::uint64_t k) const {
    for (std::size_t i = home(k);; i = (i + 1) & (slots_.size() - 1)) {
      if (slots_[i] == kEmpty || runs_[slots_[i]].key == k) return slots_[i];
    }
  }
  std::uint32_t find_or_add(std::uint64_t k) {
    std::size_t i = home(k);
    for (; slots_[i] != kEmpty; i = (i + 1) & (slots_.size() - 1))
      if (runs_[slots_[i]].key == k) return slots_[i];
    runs_.push_back(Run{k, 0, 0});
    slots_[i] = std::uint32_t(runs_.size() - 1);
    if (2 * runs_.size() > slots_.size()) grow();
    return std::uint32_t(runs_.size() - 1);
  }
  void grow() {
    slots_.assign(2 * slots_.size(), kEmpty);
    for (std::uint32_t r = 0; r < runs_.size(); ++r) {
      std::size_t i = home(runs_[r].key);
      while (slots_[i] != kEmpty) i = (i + 1) & (slots_.size() - 1);
      slots_[i] = r;
    }
  }

  std::vector<Run> runs_;
  std::vector<std::uint32_t> slots_;
  std::vector<std::uint32_t> run_of_;
  std::vector<std::uint32_t> place_;
  std::vector<OpId> sorted_;
};

/// `a`'s dependencies mapped by `image` equal `b`'s, as multisets.
template <class Image>
bool deps_map(std::span<const OpId> a, std::span<const OpId> b, Image&& image, std::vector<OpId>& x,
              std::vector<OpId>& y) {
  if (a.size() != b.size()) return false;
  x.clear();
  for (OpId d : a) {
    x.push_back(image(d));
    if (x.back() == kNoOp) return false;
  }
  y.assign(b.begin(), b.end());
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  return x == y;
}

/// The op map of `moves`, if it maps every op's fields, matched op and dependencies onto its image's.
/// Images are looked up as needed, so a move that fails usually fails within the first ops.
std::optional<std::vector<OpId>> op_map(const Schedule& s, const OpIndex& index, const ChannelMoves& moves) {
  const auto ops = s.ops();
  std::vector<OpId> image(ops.size(), kNoOp);
  const auto image_of = [&](OpId id) {
    if (image[id] == kNoOp) image[id] = index.image(id, moves.of(ops[id]).apply(ops[id].channel));
    return image[id];
  };
  std::vector<OpId> x, y;
  const auto maps = [&](OpId id) {
    const OpId to = image_of(id);
    if (to == kNoOp) return false;
    const Op& a = ops[id];
    const Op& b = ops[to];
    if (a.bytes != b.bytes || a.count != b.count || a.src != b.src || a.dst != b.dst || a.mode != b.mode) return false;
    if ((a.match == kNoOp) != (b.match == kNoOp) || (a.match != kNoOp && image_of(a.match) != b.match)) return false;
    return deps_map(s.deps(id), s.deps(to), image_of, x, y);
  };
  // A sample across the whole schedule first: a wrong move usually shows in every stage.
  constexpr OpId kSampleStride = 997;
  for (OpId id = 0; id < ops.size(); id += kSampleStride)
    if (!maps(id)) return std::nullopt;
  for (OpId id = 0; id < ops.size(); ++id)
    if (!maps(id)) return std::nullopt;
  return image;
}

}  // namespace

/// Every connection's route, computed once and only when asked for: a move's route map needs only
/// the connections (a send's image has the same endpoints on the image channel), so it is checked
/// before the op map, and a move whose routes do not map usually fails within the first connections.
/// The first route asked for between two endpoints announces all their channels (`prefetch`), as a
/// move's images are asked for next. Routes are kept in blocks that never move, so a route stays
/// valid while others are added (no allocation per connection: the probe may have millions).
class ConnectionRoutes {
 public:
  struct Connection {
    Endpoint at, peer;
    std::uint16_t channel;
    OpId send;  ///< its first Send
  };

  ConnectionRoutes(const Schedule& s, const SendRoute& route, const RoutePrefetch& prefetch)
      : schedule_(s), route_(route), prefetch_(prefetch) {
    PairTable last;  // per endpoint pair, its latest connection
    for (OpId id = 0; id < s.ops().size(); ++id) {
      const Op& op = s.op(id);
      if (op.kind != OpKind::Send) continue;
      const PathKey key{op.at, op.peer, op.channel};
      if (index_.find(key) != PathCache::kMissing) continue;
      const auto i = std::uint32_t(connections_.size());
      index_.insert(key, i);
      connections_.push_back(Connection{op.at, op.peer, op.channel, id});
      // Insert i into its pair's ring, after the pair's latest connection.
      std::uint32_t& latest = last.slot(op.at, op.peer, connections_);
      if (latest == kNone) {
        same_pair_.push_back(i);
      } else {
        same_pair_.push_back(same_pair_[latest]);
        same_pair_[latest] = i;
      }
      latest = i;
    }
    route_of_.assign(connections_.size(), Placed{});
    state_.assign(connections_.size(), State::Unknown);
  }
  std::size_t size() const { return connections_.size(); }
  const Connection& connection(std::uint32_t i) const { return connections_[i]; }
  /// The connection's index, or kNone.
  std::uint32_t find(Endpoint at, Endpoint peer, std::uint16_t channel) const {
    return index_.find(PathKey{at, peer, channel});  // PathCache::kMissing is kNone
  }
  /// Valid as long as this object.
  std::span<const DirectionId> route(std::uint32_t i) {
    if (state_[i] != State::Routed) {
      const Op& send = schedule_.op(connections_[i].send);
      if (prefetch_ && state_[i] == State::Unknown) announce(i, send);
      route_of_[i] = place(route_(send));
      state_[i] = State::Routed;
    }
    return std::span<const DirectionId>(blocks_[route_of_[i].block]).subspan(route_of_[i].begin, route_of_[i].count);
  }
  static constexpr std::uint32_t kNone = PathCache::kMissing;

 private:
  enum class State : std::uint8_t { Unknown, Announced, Routed };
  struct Placed {
    std::uint32_t block = 0, begin = 0, count = 0;
  };
  /// Directions a block holds (a longer route gets a block of its own): 64 KiB, below glibc's
  /// mmap threshold (larger blocks, mapped and unmapped, raised the 20-rack GB200 run's peak).
  static constexpr std::size_t kBlock = std::size_t{1} << 14;

  /// Open addressing from an endpoint pair to a connection index (4 bytes a slot; the keys are read
  /// from the connections themselves).
  class PairTable {
   public:
    std::uint32_t& slot(Endpoint at, Endpoint peer, const std::vector<Connection>& connections) {
      if (2 * (used_ + 1) > slots_.size()) grow(connections);
      for (std::size_t i = home(at, peer);; i = (i + 1) & (slots_.size() - 1)) {
        if (slots_[i] == kNone) {
          ++used_;
          return slots_[i];
        }
        const Connection& c = connections[slots_[i]];
        if (c.at == at && c.peer == peer) return slots_[i];
      }
    }

   private:
    std::size_t home(Endpoint at, Endpoint peer) const {
      const std::uint64_t k = (std::uint64_t(at) << 32 | peer) * 0x9e3779b97f4a7c15ULL;
      return std::size_t(k >> (64 - std::countr_zero(slots_.size())));
    }
    void grow(const std::vector<Connection>& connections) {
      std::vector<std::uint32_t> old(std::max<std::size_t>(1024, 2 * slots_.size()), kNone);
      old.swap(slots_);
      for (const std::uint32_t c : old) {
        if (c == kNone) continue;
        std::size_t i = home(connections[c].at, connections[c].peer);
        while (slots_[i] != kNone) i = (i + 1) & (slots_.size() - 1);
        slots_[i] = c;
      }
    }
    std::vector<std::uint32_t> slots_;
    std::size_t used_ = 0;
  };

  /// Tells prefetch_ the channels of i's pair and marks its connections announced.
  void announce(std::uint32_t i, const Op& send) {
    channels_.clear();
    std::uint32_t j = i;
    do {
      channels_.push_back(connections_[j].channel);
      if (state_[j] == State::Unknown) state_[j] = State::Announced;
      j = same_pair_[j];
    } while (j != i);
    prefetch_(send, channels_);
  }
  Placed place(std::span<const DirectionId> route) {
    if (blocks_.empty() || blocks_.back().size() + route.size() > blocks_.back().capacity()) {
      blocks_.emplace_back();
      blocks_.back().reserve(std::max(kBlock, route.size()));
    }
    std::vector<DirectionId>& block = blocks_.back();
    const Placed placed{std::uint32_t(blocks_.size() - 1), std::uint32_t(block.size()), std::uint32_t(route.size())};
    block.insert(block.end(), route.begin(), route.end());  // within capacity: nothing moves
    return placed;
  }

  const Schedule& schedule_;
  const SendRoute& route_;
  const RoutePrefetch& prefetch_;
  std::vector<Connection> connections_;  ///< in first-send order
  PathCache index_;  ///< (at, peer, channel) -> connections_ index
  std::vector<std::uint32_t> same_pair_;  ///< the next connection between the same endpoints (a ring)
  std::vector<State> state_;
  std::vector<Placed> route_of_;
  std::vector<std::vector<DirectionId>> blocks_;
  std::vector<std::uint16_t> channels_;  ///< announce()'s scratch
};

namespace {

/// The map of the used directions that sends every connection's route, direction for direction, onto
/// its image's, keeping capacity, latency and overhead; nullopt when there is none.
std::optional<std::vector<DirectionId>> direction_map(ConnectionRoutes& routes, const ChannelMoves& moves,
                                                      const DirectionCosts& costs) {
  const std::size_t directions = costs.capacity.size();
  std::vector<DirectionId> delta(directions, kNoDirection), inverse(directions, kNoDirection);
  for (std::uint32_t i = 0; i < routes.size(); ++i) {
    const ConnectionRoutes::Connection& c = routes.connection(i);
    const std::uint32_t j = routes.find(c.at, c.peer, moves.of(c.at, c.peer).apply(c.channel));
    if (j == ConnectionRoutes::kNone) return std::nullopt;
    const std::span<const DirectionId> from = routes.route(i);
    const std::span<const DirectionId> to = routes.route(j);
    if (from.size() != to.size()) return std::nullopt;
    for (std::size_t k = 0; k < from.size(); ++k) {
      const DirectionId d = from[k], e = to[k];
      if (delta[d] == kNoDirection && inverse[e] == kNoDirection) {
        if (costs.capacity[d] != costs.capacity[e] || costs.latency[d] != costs.latency[e] ||
            costs.overhead[d] != costs.overhead[e])
          return std::nullopt;
        delta[d] = e;
        inverse[e] = d;
      } else if (delta[d] != e || inverse[e] != d) {
        return std::nullopt;
      }
    }
  }
  return delta;
}

}  // namespace

std::optional<ChannelFold> ChannelFold::find(const Schedule& schedule, const SendRoute& route,
                                             const DirectionCosts& costs, const RoutePrefetch& prefetch) {
  const std::size_t channels = schedule.channel_count();
  if (channels < 2 || channels > UINT16_MAX || !OpIndex::fits(schedule.endpoints().size())) return std::nullopt;
  // The index (12 bytes per op) goes before the quotient is built and comes back only if that move
  // fails after all (a fractional multiplicity).
  std::optional<OpIndex> index;
  std::optional<ConnectionRoutes> routes;
  // Per class, the channels it uses; periods are all of them or two halves (NVLS: reduction
  // channels, then multicast channels). The largest orbit first.
  ChannelMoves moves;
  moves.ranks = schedule.rank_count();
  std::size_t used[2] = {0, 0};
  for (const Op& op : schedule.ops()) {
    std::size_t& u = used[&moves.of(op) == &moves.between_ranks ? 0 : 1];
    u = std::max(u, std::size_t(op.channel) + 1);
  }
  // A class without ops takes any move of the order (one candidate, not two equal ones).
  const auto periods = [](std::size_t n, std::size_t order) {
    if (n == 0) return std::array<std::size_t, 2>{order, 0};
    return std::array<std::size_t, 2>{n, n % 2 == 0 ? n / 2 : 0};
  };
  for (std::size_t order = std::max(used[0], used[1]); order >= 2; --order)
    for (std::size_t pa : periods(used[0], order))
      for (std::size_t pb : periods(used[1], order)) {
        if (pa < order || pb < order || pa % order != 0 || pb % order != 0) continue;
        moves.between_ranks = ChannelMove{std::uint16_t(pa), std::uint16_t(pa / order)};
        moves.other = ChannelMove{std::uint16_t(pb), std::uint16_t(pb / order)};
        if (!routes) routes.emplace(schedule, route, prefetch);
        const auto delta = direction_map(*routes, moves, costs);
        if (!delta) continue;
        if (!index) index.emplace(schedule.ops());
        const auto image = op_map(schedule, *index, moves);
        if (!image) continue;
        index.reset();
        if (auto fold = build(schedule, *image, moves, std::uint32_t(order), *routes, *delta)) return fold;
      }
  return std::nullopt;
}

std::optional<ChannelFold> ChannelFold::build(const Schedule& s, const std::vector<OpId>& image, const ChannelMoves& moves,
                                              std::uint32_t order, ConnectionRoutes& routes,
                                              const std::vector<DirectionId>& delta) {
  const auto ops = s.ops();
  const auto kept = [&](const Op& op) { return moves.of(op).kept(op.channel); };
  // Op orbits: each kept op's images, `order` of them, back to itself.
  std::vector<OpId> rep_of(ops.size(), kNoOp);
  for (OpId id = 0; id < ops.size(); ++id) {
    if (!kept(ops[id])) continue;
    OpId x = id;
    for (std::uint32_t j = 0; j < order; ++j, x = image[x]) {
      if (rep_of[x] != kNoOp) return std::nullopt;
      rep_of[x] = id;
    }
    if (x != id) return std::nullopt;
  }
  for (OpId id = 0; id < ops.size(); ++id)
    if (rep_of[id] == kNoOp) return std::nullopt;
  const std::size_t directions = delta.size();
  ChannelFold fold(s, Schedule(s.collective(), s.algorithm(), s.message(), {}));
  fold.order_ = order;
  // Direction orbits: the cycles of delta (a bijection of the used directions onto themselves).
  fold.direction_rep_.resize(directions);
  fold.orbit_size_.assign(directions, 1);
  fold.orbit_members_.resize(directions);
  for (DirectionId d = 0; d < directions; ++d) fold.direction_rep_[d] = d;
  std::vector<char> done(directions, 0);
  for (DirectionId d = 0; d < directions; ++d) {
    if (delta[d] == kNoDirection || done[d]) continue;
    std::vector<DirectionId> cycle;
    for (DirectionId x = d; !done[x]; x = delta[x]) {
      if (delta[x] == kNoDirection) return std::nullopt;  // an image that is no route's direction
      done[x] = 1;
      cycle.push_back(x);
    }
    for (DirectionId x : cycle) {
      fold.direction_rep_[x] = d;  // the least id: cycles are found in id order
      fold.orbit_size_[x] = std::uint32_t(cycle.size());
    }
    if (cycle.size() > 1) {
      std::sort(cycle.begin(), cycle.end());
      fold.orbit_members_[d] = std::move(cycle);
    }
  }
  // Every kept flow's load on a direction orbit must be a whole number of flows per direction.
  for (std::uint32_t i = 0; i < routes.size(); ++i) {
    const ConnectionRoutes::Connection& c = routes.connection(i);
    if (!moves.of(c.at, c.peer).kept(c.channel)) continue;
    const std::span<const DirectionId> r = routes.route(i);
    for (DirectionId d : r) {
      const auto times = std::uint64_t(std::count_if(
          r.begin(), r.end(), [&](DirectionId e) { return fold.direction_rep_[e] == fold.direction_rep_[d]; }));
      if ((order * times) % fold.orbit_size_[d] != 0) return std::nullopt;
    }
  }
  if (!fold.build_quotient(std::move(rep_of))) return std::nullopt;
  return fold;
}

bool ChannelFold::build_quotient(std::vector<OpId> rep_of) {
  const Schedule& s = *full_;
  const auto endpoints = s.endpoints();
  std::vector<DeviceId> rank_devices;
  for (int r = 0; r < s.rank_count(); ++r) rank_devices.push_back(endpoints[std::size_t(r)].device);
  Schedule q(s.collective(), s.algorithm(), s.message(), rank_devices);
  q.set_payload(s.payload());
  q.set_protocol(s.protocol());
  q.set_root(s.root());
  if (const auto latency = s.nccl_latency()) q.set_nccl_latency(*latency);
  for (std::size_t e = std::size_t(s.rank_count()); e < endpoints.size(); ++e)
    q.add_endpoint(endpoints[e].device, endpoints[e].role);
  const auto ops = s.ops();
  q.reserve(ops.size() / order_ + 1, s.ops().size() / order_ * 2);
  std::vector<OpId> qid(ops.size(), kNoOp);
  std::vector<OpId> deps, recv_deps;
  // A kept op's dependencies, mapped onto kept ops that come before `before` (else no fold).
  const auto mapped = [&](OpId id, OpId before, std::vector<OpId>& out) {
    out.clear();
    for (OpId d : s.deps(id)) {
      const OpId r = rep_of[d];
      if (r >= before || qid[r] == kNoOp) return false;
      out.push_back(qid[r]);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return true;
  };
  for (OpId id = 0; id < ops.size(); ++id) {
    if (rep_of[id] != id || ops[id].kind == OpKind::Recv) continue;  // a Recv comes with its Send
    const Op& a = ops[id];
    if (!mapped(id, id, deps)) return false;
    if (a.kind == OpKind::Send) {
      if (!mapped(a.match, id, recv_deps)) return false;
      const OpId recv = q.add_transfer(a.at, a.peer, a.src, a.dst, a.mode, a.chunk(), a.bytes, deps, recv_deps,
                                       a.channel, a.step);
      qid[a.match] = recv;
      qid[id] = q.op(recv).match;
    } else {
      qid[id] = q.add_local(a.kind, a.at, a.peer, a.src, a.dst, a.chunk(), a.bytes, deps, a.channel, a.step);
    }
  }
  rep_of_ = std::move(rep_of);
  full_of_.assign(q.ops().size(), kNoOp);
  for (OpId id = 0; id < ops.size(); ++id)
    if (qid[id] != kNoOp) full_of_[qid[id]] = id;
  quotient_ = std::move(q);
  return true;
}

void ChannelFold::fold_route(std::span<const DirectionId> route, std::vector<DirectionId>& out) const {
  out.clear();
  for (std::size_t i = 0; i < route.size(); ++i) {
    const DirectionId rep = direction_rep_[route[i]];
    const auto first = std::find_if(route.begin(), route.begin() + std::ptrdiff_t(i),
                                    [&](DirectionId d) { return direction_rep_[d] == rep; });
    if (first != route.begin() + std::ptrdiff_t(i)) continue;  // this orbit is already listed
    const auto times = std::uint32_t(std::count_if(route.begin() + std::ptrdiff_t(i), route.end(),
                                                   [&](DirectionId d) { return direction_rep_[d] == rep; }));
    out.insert(out.end(), order_ * times / orbit_size_[route[i]], rep);
  }
}

void ChannelFold::unfold(Result& result, std::size_t bottleneck_count) const {
  unfold_links(result, bottleneck_count);
  // The critical path, last op first: each step back takes the real predecessor whose orbit the
  // quotient's step names (it exists: the full schedule maps onto itself).
  std::vector<std::uint64_t>& path = result.critical_path;
  if (path.empty()) return;
  const Schedule& s = *full_;
  OpId at = full_of_[path.back()];
  path.back() = at;
  for (std::size_t i = path.size() - 1; i-- > 0;) {
    const OpId want = full_of_[path[i]];
    OpId found = kNoOp;
    for (OpId d : s.deps(at))
      if (rep_of_[d] == want) found = d;
    const Op& op = s.op(at);
    if (op.kind == OpKind::Recv && rep_of_[op.match] == want) found = op.match;
    assert(found != kNoOp && "a quotient step names no predecessor's orbit");
    at = found == kNoOp ? want : found;
    path[i] = at;
  }
}

void ChannelFold::unfold_links(Result& result, std::size_t bottleneck_count) const {
  std::vector<DirectionStats> all;
  for (const DirectionStats& stats : result.directions) {
    const std::vector<DirectionId>& members = orbit_members_[stats.direction];
    if (members.empty()) {
      all.push_back(stats);
      continue;
    }
    for (DirectionId d : members) {
      DirectionStats copy = stats;
      copy.direction = d;
      all.push_back(copy);
    }
  }
  std::sort(all.begin(), all.end(), [](const DirectionStats& a, const DirectionStats& b) { return a.direction < b.direction; });
  result.directions = std::move(all);
  result.bottlenecks = rank_bottlenecks(result.directions, bottleneck_count);
  result.channel_fold = order_;
}

void ChannelFold::forget_schedules() {
  full_ = nullptr;
  quotient_ = Schedule(quotient_.collective(), quotient_.algorithm(), quotient_.message(), {});
  rep_of_ = {};
  full_of_ = {};
}

bool same_ops(const Schedule& a, const Schedule& b) {
  const auto x = a.ops(), y = b.ops();
  if (x.size() != y.size() || a.endpoints().size() != b.endpoints().size()) return false;
  for (std::size_t e = 0; e < a.endpoints().size(); ++e)
    if (a.endpoints()[e].device != b.endpoints()[e].device || a.endpoints()[e].role != b.endpoints()[e].role)
      return false;
  std::vector<OpId> da, db;
  for (OpId id = 0; id < x.size(); ++id) {
    const Op& p = x[id];
    const Op& q = y[id];
    if (p.first != q.first || p.count != q.count || p.bytes != q.bytes || p.at != q.at || p.peer != q.peer ||
        p.match != q.match || p.step != q.step || p.channel != q.channel || p.kind != q.kind || p.src != q.src ||
        p.dst != q.dst || p.mode != q.mode)
      return false;
    da.assign(a.deps(id).begin(), a.deps(id).end());
    db.assign(b.deps(id).begin(), b.deps(id).end());
    std::sort(da.begin(), da.end());
    std::sort(db.begin(), db.end());
    da.erase(std::unique(da.begin(), da.end()), da.end());
    db.erase(std::unique(db.begin(), db.end()), db.end());
    if (da != db) return false;
  }
  return true;
}

}  // namespace ringlab::sim::detail
