// search_ring_order(): construction, surrogate and local search (order_search.hpp).
#include "ringlab/planner/order_search.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <tuple>
#include <random>
#include <stdexcept>
#include <unordered_map>

namespace ringlab::planner {
namespace {

constexpr DeviceId kNone = std::numeric_limits<DeviceId>::max();
constexpr long long kMovesPerHost = 400, kMovesBase = 2000;
constexpr long long kStallPerHost = 40, kStallBase = 1000;
constexpr int kMaxReversal = 64;        ///< longest run of hosts one move reverses
constexpr int kPowerOfMax = 8;          ///< exponent of the smooth maximum
constexpr long long kRefreshEvery = 4096;  ///< recompute the objective from scratch after this many kept moves

/// The neighbour of `d` of `kind` with the lowest id, or kNone.
DeviceId first_neighbour(const Topology& t, DeviceId d, DeviceKind kind) {
  DeviceId best = kNone;
  for (const Adjacency& a : t.neighbors(d))
    if (t.device(a.peer).kind == kind) best = std::min(best, a.peer);
  return best;
}

/// The lowest-id neighbour of switch `s` in a higher tier, or kNone.
DeviceId first_upper(const Topology& t, DeviceId s) {
  DeviceId best = kNone;
  for (const Adjacency& a : t.neighbors(s)) {
    const Device& d = t.device(a.peer);
    if (is_fabric_switch(d.kind) && d.tier > t.device(s).tier) best = std::min(best, a.peer);
  }
  return best;
}

/// Where a host hangs in the fabric, top tier first (empty for a host without a NIC).
std::vector<DeviceId> fabric_key(const Topology& t, HostId host) {
  DeviceId nic = kNone;
  int nic_index = std::numeric_limits<int>::max();
  for (DeviceId d : t.host_devices(host)) {
    const Device& dev = t.device(d);
    if (dev.kind == DeviceKind::Nic && dev.local_index < nic_index) nic = d, nic_index = dev.local_index;
  }
  std::vector<DeviceId> key;
  if (nic == kNone) return key;
  DeviceId s = kNone;
  for (const Adjacency& a : t.neighbors(nic))
    if (is_fabric_switch(t.device(a.peer).kind)) s = std::min(s, a.peer);
  for (int guard = 0; s != kNone && guard < 16; ++guard, s = first_upper(t, s)) key.push_back(s);
  std::reverse(key.begin(), key.end());
  return key;
}

/// Sort key of a GPU inside its host: CPU socket, PCIe switch, local index.
std::tuple<DeviceId, DeviceId, int> gpu_key(const Topology& t, DeviceId g) {
  const DeviceId pcie = first_neighbour(t, g, DeviceKind::PcieSwitch);
  DeviceId cpu = first_neighbour(t, pcie == kNone ? g : pcie, DeviceKind::Cpu);
  return {cpu, pcie, t.device(g).local_index};
}

int host_nics(const Topology& t, HostId h) {
  if (h == kNoHost) return 0;
  int n = 0;
  for (DeviceId d : t.host_devices(h)) n += t.device(d).kind == DeviceKind::Nic;
  return n;
}

/// Routes by (src, dst, channel), each a run in one flat array.
class RouteCache {
 public:
  explicit RouteCache(const Router& router) : router_(router) {}
  std::pair<const DirectionId*, const DirectionId*> get(DeviceId a, DeviceId b, int channel) {
    const std::uint64_t key = (std::uint64_t(a) << 40) ^ (std::uint64_t(b) << 16) ^ std::uint64_t(channel);
    auto [it, inserted] = index_.try_emplace(key, std::uint32_t(spans_.size()));
    if (inserted) {
      const Route r = router_.route(a, b, std::uint64_t(channel));
      spans_.push_back({std::uint32_t(flat_.size()), std::uint32_t(r.directions.size())});
      flat_.insert(flat_.end(), r.directions.begin(), r.directions.end());
    }
    const auto [first, count] = spans_[it->second];
    return {flat_.data() + first, flat_.data() + first + count};
  }

 private:
  const Router& router_;
  std::unordered_map<std::uint64_t, std::uint32_t> index_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> spans_;
  std::vector<DirectionId> flat_;
};

/// The ring as blocks (hosts) in sequence, each a chain of GPUs; channel c starts each chain at
/// rotation[c][block].
class RingState {
 public:
  /// How channels walk a host with several NICs (nothing changes with one NIC or one channel):
  /// Spread: channel c enters every host at GPU c*k/C and walks up (each channel its own NIC);
  /// Rail: channel c enters the host at position pos at GPU (c*k/C + pos) mod k and walks down, so
  /// it leaves by GPU entry+1, which is where it enters the next host: each hop stays on one rail.
  enum class Walk { Spread, Rail };

  RingState(const Topology& t, const Router& router, std::vector<std::vector<DeviceId>> chains, int channels, Walk walk)
      : routes_(router), chains_(std::move(chains)), channels_(channels), count_(t.direction_count(), 0),
        inverse_bandwidth_(t.direction_count(), 0.0) {
    for (DirectionId d = 0; d < t.direction_count(); ++d)
      inverse_bandwidth_[d] = 1.0 / t.link(Topology::direction_link(d)).bandwidth.bytes_per_second();
    sequence_.resize(chains_.size());
    std::iota(sequence_.begin(), sequence_.end(), 0);
    multi_nic_.assign(chains_.size(), 0);
    for (std::size_t b = 0; b < chains_.size(); ++b)
      multi_nic_[b] = channels > 1 && host_nics(t, t.device(chains_[b].front()).host) > 1;
    walk_ = walk;
  }

  /// True when moving a block to another position changes its own edges.
  bool position_dependent() const { return walk_ == Walk::Rail; }

  int blocks() const { return int(sequence_.size()); }
  int block_size(int pos) const { return int(chains_[std::size_t(sequence_[std::size_t(pos)])].size()); }

  /// Channel c's i-th GPU of the block at position pos.
  DeviceId gpu(int c, int pos, int i) const {
    const std::size_t b = std::size_t(sequence_[std::size_t(pos)]);
    const auto& chain = chains_[b];
    const int k = int(chain.size());
    if (!multi_nic_[b]) return chain[std::size_t(i)];
    const int entry = int(std::int64_t(c) * k / channels_ % k);
    if (walk_ == Walk::Spread) return chain[std::size_t((entry + i) % k)];
    const int start = (entry + pos) % k;
    return chain[std::size_t(((start - i) % k + k) % k)];
  }

  // ---- edges ----
  template <class F>
  void block_edges(int pos, F&& f) const {
    const int k = block_size(pos);
    const bool cyclic = blocks() == 1;
    for (int c = 0; c < channels_; ++c) {
      for (int i = 0; i + 1 < k; ++i) f(gpu(c, pos, i), gpu(c, pos, i + 1), c);
      if (cyclic && k > 1) f(gpu(c, pos, k - 1), gpu(c, pos, 0), c);
    }
  }
  template <class F>
  void boundary_edges(int b, F&& f) const {
    const int n = blocks();
    if (n < 2) return;
    const int next = (b + 1) % n;
    for (int c = 0; c < channels_; ++c) f(gpu(c, b, block_size(b) - 1), gpu(c, next, 0), c);
  }

  void apply(DeviceId a, DeviceId b, int c, int sign) {
    const auto [first, last] = routes_.get(a, b, c);
    for (const DirectionId* d = first; d != last; ++d) {
      objective_ -= term(*d);
      count_[*d] += sign;
      objective_ += term(*d);
    }
  }

  /// Counts every edge from scratch and sets the objective's scale so the worst link is 1.
  void recount(bool rescale) {
    std::fill(count_.begin(), count_.end(), 0);
    auto add = [&](DeviceId a, DeviceId b, int c) {
      const auto [first, last] = routes_.get(a, b, c);
      for (const DirectionId* d = first; d != last; ++d) ++count_[*d];
    };
    for (int pos = 0; pos < blocks(); ++pos) {
      block_edges(pos, add);
      boundary_edges(pos, add);
    }
    if (rescale) {
      const double worst = max_load();
      scale_ = worst > 0 ? 1.0 / worst : 1.0;
    }
    objective_ = 0;
    for (DirectionId d = 0; d < count_.size(); ++d) objective_ += term(d);
  }

  double max_load() const {
    double worst = 0;
    for (DirectionId d = 0; d < count_.size(); ++d) worst = std::max(worst, count_[d] * inverse_bandwidth_[d]);
    return worst;
  }
  double objective() const { return objective_; }
  int channels() const { return channels_; }

  std::vector<int>& sequence() { return sequence_; }
  std::vector<DeviceId>& chain_at(int pos) { return chains_[std::size_t(sequence_[std::size_t(pos)])]; }

  sim::RankOrder order() const {
    sim::RankOrder order;
    std::unordered_map<DeviceId, int> rank_of;
    for (int pos = 0; pos < blocks(); ++pos)
      for (int i = 0; i < block_size(pos); ++i) {
        rank_of[gpu(0, pos, i)] = order.size();
        order.ranks.push_back(gpu(0, pos, i));
      }
    if (std::none_of(multi_nic_.begin(), multi_nic_.end(), [](char m) { return m != 0; })) return order;
    for (int c = 0; c < channels_; ++c) {
      std::vector<int> ring;
      for (int pos = 0; pos < blocks(); ++pos)
        for (int i = 0; i < block_size(pos); ++i) ring.push_back(rank_of.at(gpu(c, pos, i)));
      order.channel_rings.push_back(std::move(ring));
    }
    return order;
  }

 private:
  double term(DirectionId d) const {
    if (count_[d] == 0) return 0;
    const double u = count_[d] * inverse_bandwidth_[d] * scale_;
    const double u2 = u * u, u4 = u2 * u2;
    static_assert(kPowerOfMax == 8);
    return u4 * u4;
  }

  RouteCache routes_;
  std::vector<std::vector<DeviceId>> chains_;
  std::vector<int> sequence_;
  std::vector<char> multi_nic_;  ///< per block: channels walk it by `walk_`
  Walk walk_ = Walk::Spread;
  int channels_;
  std::vector<int> count_;
  std::vector<double> inverse_bandwidth_;
  double scale_ = 1;
  double objective_ = 0;
};

/// Host chains in construction order.
std::vector<std::vector<DeviceId>> construct(const Topology& t, const std::vector<DeviceId>& gpus) {
  std::vector<HostId> hosts;
  std::unordered_map<HostId, std::vector<DeviceId>> members;
  std::vector<std::vector<DeviceId>> loose;  // GPUs without a host: one block each
  for (DeviceId g : gpus) {
    const HostId h = t.device(g).host;
    if (h == kNoHost) {
      loose.push_back({g});
      continue;
    }
    auto [it, inserted] = members.try_emplace(h);
    if (inserted) hosts.push_back(h);
    it->second.push_back(g);
  }
  std::vector<std::pair<std::vector<DeviceId>, HostId>> keyed;
  for (HostId h : hosts) keyed.emplace_back(fabric_key(t, h), h);
  std::stable_sort(keyed.begin(), keyed.end());
  std::vector<std::vector<DeviceId>> chains;
  for (const auto& [key, h] : keyed) {
    std::vector<DeviceId> chain = members[h];
    std::stable_sort(chain.begin(), chain.end(),
                     [&](DeviceId a, DeviceId b) { return gpu_key(t, a) < gpu_key(t, b); });
    chains.push_back(std::move(chain));
  }
  chains.insert(chains.end(), loose.begin(), loose.end());
  return chains;
}

/// A move on the state; undo() restores it exactly.
struct Move {
  enum Kind { SwapHosts, Reverse, SwapGpus } kind = SwapHosts;
  int i = 0, j = 0, pos = 0;
};

class Search {
 public:
  Search(RingState& state, const OrderSearchOptions& options) : s_(state), rng_(options.seed) {}

  /// Touched edges of a move (boundaries and blocks by position), before or after it.
  template <class F>
  void touched(const Move& m, F&& f) {
    const int n = s_.blocks();
    auto boundary = [&](int b) { s_.boundary_edges(((b % n) + n) % n, f); };
    switch (m.kind) {
      case Move::SwapHosts: {
        if (s_.position_dependent()) {
          s_.block_edges(m.i, f);
          s_.block_edges(m.j, f);
        }
        int bs[4] = {m.i - 1, m.i, m.j - 1, m.j};
        for (int& b : bs) b = ((b % n) + n) % n;
        std::sort(bs, bs + 4);
        for (int k = 0; k < 4; ++k)
          if (k == 0 || bs[k] != bs[k - 1]) s_.boundary_edges(bs[k], f);
        break;
      }
      case Move::Reverse:
        if (s_.position_dependent())
          for (int pos = m.i; pos <= m.j; ++pos) s_.block_edges(pos, f);
        for (int b = m.i - 1; b <= m.j; ++b) boundary(b);
        break;
      case Move::SwapGpus:
        s_.block_edges(m.pos, f);
        if (n > 1) {
          boundary(m.pos - 1);
          if (n > 2 || m.pos == 0) boundary(m.pos);
        }
        break;
    }
  }

  void perform(const Move& m) {
    auto& seq = s_.sequence();
    switch (m.kind) {
      case Move::SwapHosts: std::swap(seq[std::size_t(m.i)], seq[std::size_t(m.j)]); break;
      case Move::Reverse: std::reverse(seq.begin() + m.i, seq.begin() + m.j + 1); break;
      case Move::SwapGpus: {
        auto& chain = s_.chain_at(m.pos);
        std::swap(chain[std::size_t(m.i)], chain[std::size_t(m.j)]);
        break;
      }
    }
  }

  /// Tries one move; keeps it when the objective drops.
  bool attempt(const Move& m) {
    const double before = s_.objective();
    touched(m, [&](DeviceId a, DeviceId b, int c) { s_.apply(a, b, c, -1); });
    perform(m);
    touched(m, [&](DeviceId a, DeviceId b, int c) { s_.apply(a, b, c, +1); });
    if (s_.objective() < before * (1 - 1e-12)) return true;
    touched(m, [&](DeviceId a, DeviceId b, int c) { s_.apply(a, b, c, -1); });
    perform(m);  // every move is its own inverse
    touched(m, [&](DeviceId a, DeviceId b, int c) { s_.apply(a, b, c, +1); });
    return false;
  }

  std::optional<Move> draw() {
    const int n = s_.blocks();
    const int roll = int(next(100));
    if (n >= 3 && roll < 45) {
      int i = 1 + int(next(std::uint64_t(n - 1))), j = 1 + int(next(std::uint64_t(n - 1)));
      if (i == j) return std::nullopt;
      if (i > j) std::swap(i, j);
      return Move{Move::SwapHosts, i, j, 0};
    }
    if (n >= 3 && roll < 90) {
      const int i = 1 + int(next(std::uint64_t(n - 1)));
      const int longest = std::min(kMaxReversal, n - i);
      if (longest < 2) return std::nullopt;
      const int len = 2 + int(next(std::uint64_t(longest - 1)));
      return Move{Move::Reverse, i, i + len - 1, 0};
    }
    const int pos = int(next(std::uint64_t(n)));
    const int k = s_.block_size(pos);
    if (k < 3) return std::nullopt;
    int i = int(next(std::uint64_t(k))), j = int(next(std::uint64_t(k)));
    if (i == j) return std::nullopt;
    return Move{Move::SwapGpus, i, j, pos};
  }

 private:
  std::uint64_t next(std::uint64_t bound) { return rng_() % bound; }  // std distributions differ between libraries
  RingState& s_;
  std::mt19937_64 rng_;
};

}  // namespace

OrderSearchResult search_ring_order(const Topology& topology, const Router& router, const std::vector<DeviceId>& gpus,
                                    const OrderSearchOptions& options) {
  if (gpus.empty()) throw std::invalid_argument("no GPUs to order");
  if (options.channels < 1) throw std::invalid_argument("channels must be at least 1");
  const auto chains = construct(topology, gpus);
  RingState::Walk walk = RingState::Walk::Spread;
  if (options.channels > 1) {  // hosts with several NICs: keep the walk the surrogate prefers
    RingState spread(topology, router, chains, options.channels, RingState::Walk::Spread);
    RingState rail(topology, router, chains, options.channels, RingState::Walk::Rail);
    spread.recount(true);
    rail.recount(true);
    if (rail.max_load() < spread.max_load()) walk = RingState::Walk::Rail;
  }
  RingState state(topology, router, chains, options.channels, walk);
  state.recount(true);
  OrderSearchResult result;
  result.constructed = state.order();
  result.constructed_cost = state.max_load() / options.channels;

  const long long hosts = state.blocks();
  const long long max_moves = options.max_moves >= 0 ? options.max_moves : kMovesPerHost * hosts + kMovesBase;
  const long long stall_limit = options.stall_moves >= 0 ? options.stall_moves : kStallPerHost * hosts + kStallBase;
  const auto start = std::chrono::steady_clock::now();
  Search search(state, options);
  long long stall = 0;
  for (; result.moves < max_moves && stall < stall_limit; ++result.moves) {
    if (options.time_limit_seconds > 0 && (result.moves & 255) == 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > options.time_limit_seconds) {
      result.hit_time_limit = true;
      break;
    }
    const std::optional<Move> move = search.draw();
    if (!move || !search.attempt(*move)) {
      ++stall;
      continue;
    }
    stall = 0;
    if (++result.improvements % kRefreshEvery == 0) state.recount(false);
  }
  state.recount(false);
  result.order = state.order();
  result.cost = state.max_load() / options.channels;
  if (result.cost >= result.constructed_cost) {  // the smooth objective may trade the maximum away
    result.order = result.constructed;
    result.cost = result.constructed_cost;
  }
  return result;
}

}  // namespace ringlab::planner
