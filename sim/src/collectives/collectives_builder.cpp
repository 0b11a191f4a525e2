// Collective toolkit: buffer splitting, the last-writer tracker and the reusable phases.
#include "collectives/collectives_builder.hpp"

#include <algorithm>
#include <cassert>

namespace ringlab::sim::detail {
namespace {

int wrap(int i, int n) { return ((i % n) + n) % n; }

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// Pieces per region of `count` elements so that no piece exceeds chunk (0 = one piece).
std::int64_t piece_count(std::int64_t count, Bytes chunk, std::int64_t elem) {
  if (chunk.count() <= 0 || count <= 0) return 1;
  const std::int64_t chunk_elems = std::max<std::int64_t>(1, chunk.count() / elem);
  return ceil_div(count, chunk_elems);
}

/// Piece j of the n = piece_count(...) pieces of `r` (n counted on a region at least as large).
Range piece_of(Range r, std::int64_t j, std::int64_t n, Bytes chunk, std::int64_t elem, ChunkSplit split) {
  if (split == ChunkSplit::Even || chunk.count() <= 0) return part(r, int(j), int(n), elem);
  const std::int64_t count = r.bytes.count() / elem;
  const std::int64_t chunk_elems = std::max<std::int64_t>(1, chunk.count() / elem);
  const std::int64_t lo = std::min(count, j * chunk_elems);
  const std::int64_t hi = std::min(count, lo + chunk_elems);
  return Range{r.offset + Bytes{lo * elem}, Bytes{(hi - lo) * elem}};
}

/// Adjacent non-empty ranges of blocks[lo, hi) merged where they touch.
std::vector<Range> coalesce(std::span<const Range> blocks, int lo, int hi) {
  std::vector<Range> out;
  for (int i = lo; i < hi; ++i) {
    const Range& r = blocks[std::size_t(i)];
    if (r.empty()) continue;
    if (!out.empty() && out.back().end() == r.offset)
      out.back().bytes += r.bytes;
    else
      out.push_back(r);
  }
  return out;
}

/// Sorts `ops` and drops repeats; most dependency lists have one to three entries.
void sort_unique(std::vector<OpId>& ops) {
  if (ops.size() < 2) return;
  if (ops.size() == 2) {
    if (ops[0] > ops[1]) std::swap(ops[0], ops[1]);
    if (ops[0] == ops[1]) ops.pop_back();
    return;
  }
  std::sort(ops.begin(), ops.end());
  ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
}

[[maybe_unused]] bool is_power_of_two(std::size_t n) { return n != 0 && (n & (n - 1)) == 0; }

int log2_exact(std::size_t n) {
  int l = 0;
  while ((std::size_t(1) << l) < n) ++l;
  return l;
}

/// ncclGetBtree's parent of `rank` (NCCL src/graph/trees.cc).
int btree_parent(int n, int rank) {
  if (rank == 0) return -1;
  int bit = 1;
  while (bit < n && !(bit & rank)) bit <<= 1;
  int up = (rank ^ bit) | (bit << 1);
  if (up >= n) up = rank ^ bit;
  return up;
}

struct Tree {
  std::vector<int> parent;  ///< by group index; -1 at the root
  std::vector<int> depth;
  int root = 0;
  int height = 0;
};

/// Tree `t` of the double binary tree over n group members, rotated so that its root is `root`
/// (root < 0: keep the natural root).
Tree make_tree(int n, int t, int root) {
  const std::vector<int> natural = btree_parents(n, t);
  const int natural_root = int(std::find(natural.begin(), natural.end(), -1) - natural.begin());
  const int shift = root < 0 ? 0 : root - natural_root;
  Tree tree;
  tree.parent.assign(std::size_t(n), -1);
  for (int pos = 0; pos < n; ++pos) {
    const int p = natural[std::size_t(pos)];
    tree.parent[std::size_t(wrap(pos + shift, n))] = p < 0 ? -1 : wrap(p + shift, n);
  }
  tree.root = wrap(natural_root + shift, n);
  tree.depth.assign(std::size_t(n), 0);
  for (int v = 0; v < n; ++v) {
    int d = 0;
    for (int u = v; tree.parent[std::size_t(u)] >= 0; u = tree.parent[std::size_t(u)]) ++d;
    tree.depth[std::size_t(v)] = d;
    tree.height = std::max(tree.height, d);
  }
  return tree;
}

/// Fills depth, height and root from parent.
void finish_tree(Tree& tree) {
  const auto n = tree.parent.size();
  tree.depth.assign(n, 0);
  tree.height = 0;
  for (std::size_t v = 0; v < n; ++v) {
    int d = 0;
    for (int u = int(v); tree.parent[std::size_t(u)] >= 0; u = tree.parent[std::size_t(u)]) ++d;
    tree.depth[v] = d;
    tree.height = std::max(tree.height, d);
    if (tree.parent[v] < 0) tree.root = int(v);
  }
}

/// Tree `t` of NCCL's tree over `ring` (a permutation of group indices): each maximal run of one
/// host is a chain hanging below its first member (the head), and head i's parent is the head of
/// btree_parents(hosts, t)[i].
Tree host_chain_tree(const std::vector<int>& ring, std::span<const HostId> hosts, int t) {
  std::vector<std::pair<std::size_t, std::size_t>> runs;  // [begin, end) in ring
  for (std::size_t k = 0; k < ring.size(); ++k)
    if (k == 0 || hosts[std::size_t(ring[k])] != hosts[std::size_t(ring[k - 1])]) runs.emplace_back(k, k + 1);
    else runs.back().second = k + 1;
  const std::vector<int> heads = btree_parents(int(runs.size()), t);
  Tree tree;
  tree.parent.assign(ring.size(), -1);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto [begin, end] = runs[i];
    const int up = heads[i];
    tree.parent[std::size_t(ring[begin])] = up < 0 ? -1 : ring[runs[std::size_t(up)].first];
    for (std::size_t k = begin + 1; k < end; ++k) tree.parent[std::size_t(ring[k])] = ring[k - 1];
  }
  finish_tree(tree);
  return tree;
}

/// Members ordered deepest first (ties by index): children before their parents.
std::vector<int> bottom_up(const Tree& tree) {
  std::vector<int> order(tree.parent.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = int(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return tree.depth[std::size_t(a)] > tree.depth[std::size_t(b)]; });
  return order;
}

void tree_up(Builder& b, const Group& g, const Tree& tree, Range r, std::uint16_t ch, std::uint32_t step) {
  if (r.empty()) return;
  for (int v : bottom_up(tree)) {
    const int p = tree.parent[std::size_t(v)];
    if (p < 0) continue;
    const auto level = std::uint32_t(tree.height - tree.depth[std::size_t(v)]);
    b.reduce(g[std::size_t(v)], g[std::size_t(p)], r, ch, step + level);
  }
}

void tree_down(Builder& b, const Group& g, const Tree& tree, Range r, std::uint16_t ch, std::uint32_t step) {
  if (r.empty()) return;
  std::vector<int> order = bottom_up(tree);
  std::reverse(order.begin(), order.end());
  for (int v : order) {
    const int p = tree.parent[std::size_t(v)];
    if (p < 0) continue;
    b.copy(g[std::size_t(p)], g[std::size_t(v)], r, ch, step + std::uint32_t(tree.depth[std::size_t(v)] - 1));
  }
}

std::uint16_t tree_channel(std::uint16_t channel, int t) { return std::uint16_t(channel * 2 + t); }

}  // namespace

// ---- splitting -------------------------------------------------------------------------------

Range part(Range r, int i, int n, std::int64_t elem) {
  const std::int64_t count = r.bytes.count() / elem;
  const std::int64_t lo = count * i / n;
  const std::int64_t hi = count * (i + 1) / n;
  return Range{r.offset + Bytes{lo * elem}, Bytes{(hi - lo) * elem}};
}

std::vector<Piece> split_pieces(Range whole, int channels, Bytes chunk, std::int64_t elem, ChunkSplit split) {
  std::vector<Piece> out;
  for (int c = 0; c < channels; ++c) {
    const Range region = part(whole, c, channels, elem);
    const std::int64_t n = piece_count(region.bytes.count() / elem, chunk, elem);
    for (std::int64_t j = 0; j < n; ++j) {
      const Range piece = piece_of(region, j, n, chunk, elem, split);
      if (!piece.empty()) out.push_back(Piece{piece, std::uint16_t(c)});
    }
  }
  return out;
}

std::vector<Unit> split_units(Range whole, int groups, int channels, Bytes chunk, Layout layout, std::int64_t elem,
                              ChunkSplit split) {
  std::vector<Unit> out;
  auto keep = [&](Unit u) {
    if (std::any_of(u.blocks.begin(), u.blocks.end(), [](const Range& r) { return !r.empty(); }))
      out.push_back(std::move(u));
  };
  if (layout == Layout::PieceMajor) {
    for (int c = 0; c < channels; ++c) {
      const Range region = part(whole, c, channels, elem);
      const Bytes unit_chunk = chunk.count() > 0 ? chunk * groups : Bytes{};
      const std::int64_t n = piece_count(region.bytes.count() / elem, unit_chunk, elem);
      for (std::int64_t j = 0; j < n; ++j) {
        const Range piece = piece_of(region, j, n, unit_chunk, elem, split);
        Unit u{std::uint16_t(c), {}};
        for (int blk = 0; blk < groups; ++blk) u.blocks.push_back(part(piece, blk, groups, elem));
        keep(std::move(u));
      }
    }
    return out;
  }
  for (int c = 0; c < channels; ++c) {
    std::vector<Range> sub;
    std::int64_t largest = 0;
    for (int blk = 0; blk < groups; ++blk) {
      sub.push_back(part(part(whole, blk, groups, elem), c, channels, elem));
      largest = std::max(largest, sub.back().bytes.count() / elem);
    }
    const std::int64_t n = piece_count(largest, chunk, elem);
    for (std::int64_t j = 0; j < n; ++j) {
      Unit u{std::uint16_t(c), {}};
      for (const Range& s : sub) u.blocks.push_back(piece_of(s, j, n, chunk, elem, split));
      keep(std::move(u));
    }
  }
  return out;
}

// ---- interval map ----------------------------------------------------------------------------

std::size_t IntervalMap::block_of(std::int64_t start) const {
  const auto it = std::upper_bound(firsts_.begin(), firsts_.end(), start);
  return it == firsts_.begin() ? 0 : std::size_t(it - firsts_.begin()) - 1;
}

std::size_t IntervalMap::first_ending_after(const Block& block, std::int64_t start) {
  // Intervals do not overlap, so ends are sorted like starts.
  const auto it =
      std::upper_bound(block.begin(), block.end(), start, [](std::int64_t s, const Entry& e) { return s < e.end; });
  return std::size_t(it - block.begin());
}

void IntervalMap::overlapping(std::int64_t start, std::int64_t end, std::vector<OpId>& out) const {
  if (blocks_.empty()) return;
  std::size_t b = block_of(start);
  std::size_t i = first_ending_after(blocks_[b], start);
  for (; b < blocks_.size(); ++b, i = 0)
    for (; i < blocks_[b].size(); ++i) {
      const Entry& e = blocks_[b][i];
      if (e.start >= end) return;
      out.push_back(e.op);
    }
}

bool IntervalMap::covers(std::int64_t start, std::int64_t end) const {
  std::int64_t at = start;
  if (at >= end) return true;
  if (blocks_.empty()) return false;
  std::size_t b = block_of(start);
  std::size_t i = first_ending_after(blocks_[b], start);
  for (; b < blocks_.size(); ++b, i = 0)
    for (; i < blocks_[b].size(); ++i) {
      const Entry& e = blocks_[b][i];
      if (e.start > at) return false;
      at = e.end;
      if (at >= end) return true;
    }
  return false;
}

void IntervalMap::merge_blocks(std::size_t b, std::size_t last) {
  for (std::size_t k = b + 1; k <= last; ++k) blocks_[b].insert(blocks_[b].end(), blocks_[k].begin(), blocks_[k].end());
  blocks_.erase(blocks_.begin() + std::ptrdiff_t(b + 1), blocks_.begin() + std::ptrdiff_t(last + 1));
  firsts_.erase(firsts_.begin() + std::ptrdiff_t(b + 1), firsts_.begin() + std::ptrdiff_t(last + 1));
}

void IntervalMap::rebalance(std::size_t b) {
  Block& block = blocks_[b];
  if (block.empty()) {
    blocks_.erase(blocks_.begin() + std::ptrdiff_t(b));
    firsts_.erase(firsts_.begin() + std::ptrdiff_t(b));
    return;
  }
  firsts_[b] = block.front().start;
  while (blocks_[b].size() > kMaxBlock) {  // split off the upper half (repeatedly after a large merge)
    Block& full = blocks_[b];
    const std::size_t keep = full.size() - std::min(full.size() / 2, kMaxBlock);
    Block upper(full.begin() + std::ptrdiff_t(keep), full.end());
    full.resize(keep);
    const std::int64_t first = upper.front().start;
    blocks_.insert(blocks_.begin() + std::ptrdiff_t(b + 1), std::move(upper));
    firsts_.insert(firsts_.begin() + std::ptrdiff_t(b + 1), first);
  }
}

void IntervalMap::replace(std::int64_t start, std::int64_t end, bool insert, OpId op) {
  if (start >= end) return;
  if (blocks_.empty()) {
    if (!insert) return;
    blocks_.push_back(Block{Entry{start, end, op}});
    firsts_.push_back(start);
    return;
  }
  const std::size_t b = block_of(start);
  // Entries of earlier blocks end at or before firsts_[b] <= start; entries the range reaches in
  // later blocks are joined into b first (rare: only a write spanning a block boundary).
  std::size_t last = b;
  while (last + 1 < blocks_.size() && firsts_[last + 1] < end) ++last;
  if (last != b) merge_blocks(b, last);
  Block& block = blocks_[b];
  const std::size_t lo = first_ending_after(block, start);
  std::size_t hi = lo;
  while (hi < block.size() && block[hi].start < end) ++hi;
  if (insert && hi == lo + 1 && block[lo].start == start && block[lo].end == end) {  // rewrites one interval
    block[lo].op = op;
    return;
  }
  Entry replacement[3];
  std::size_t count = 0;
  if (lo < hi && block[lo].start < start) replacement[count++] = Entry{block[lo].start, start, block[lo].op};
  if (insert) replacement[count++] = Entry{start, end, op};
  if (lo < hi && block[hi - 1].end > end) replacement[count++] = Entry{end, block[hi - 1].end, block[hi - 1].op};
  const std::size_t removed = hi - lo;
  const std::size_t common = std::min(removed, count);
  std::copy(replacement, replacement + common, block.begin() + std::ptrdiff_t(lo));
  if (removed > count)
    block.erase(block.begin() + std::ptrdiff_t(lo + count), block.begin() + std::ptrdiff_t(hi));
  else
    block.insert(block.begin() + std::ptrdiff_t(hi), replacement + common, replacement + count);
  rebalance(b);
}

// ---- tracker ---------------------------------------------------------------------------------

std::uint32_t Builder::Connections::index(Endpoint a, Endpoint b, std::uint16_t channel) {
  if (2 * (last_send_.size() + 1) > slots_.size()) {  // keep the load at most one half
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(std::max<std::size_t>(64, 2 * old.size()), Slot{});
    for (const Slot& s : old)
      if (s.used) slots_[probe(s.a, s.b, s.channel)] = s;
  }
  Slot& s = slots_[probe(a, b, channel)];
  if (!s.used) {
    s = Slot{a, b, channel, true, std::uint32_t(last_send_.size())};
    last_send_.push_back(kNoOp);
  }
  return s.connection;
}

std::size_t Builder::Connections::probe(Endpoint a, Endpoint b, std::uint16_t channel) const {
  std::uint64_t h = (std::uint64_t(a) << 32 | b) * 0x9E3779B97F4A7C15ull;
  h ^= (h >> 29) + std::uint64_t(channel) * 0xC2B2AE3D27D4EB4Full;
  h *= 0xBF58476D1CE4E5B9ull;
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = std::size_t(h >> 20) & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (!s.used || (s.a == a && s.b == b && s.channel == channel)) return i;
  }
}

Builder::Builder(OpSink& sink, const Payload& payload, ChannelFilter* filter)
    : sink_(sink), payload_(payload), filter_(filter) {}

namespace {

/// Every channel's items have the sizes channel 0's have, in the same order (items in channel order).
template <class T, class Sizes>
bool even_over_channels(const std::vector<T>& items, int channels, Sizes&& sizes) {
  std::vector<std::vector<std::int64_t>> per(std::size_t(std::max(channels, 1)));
  for (const T& item : items) {
    if (item.channel >= per.size()) return false;
    sizes(item, per[item.channel]);
  }
  return std::all_of(per.begin(), per.end(), [&](const auto& p) { return p == per.front(); });
}

template <class T>
std::vector<T> kept_only(std::vector<T> items, const ChannelFilter& filter) {
  std::erase_if(items, [&](const T& item) { return item.channel >= filter.keep.size() || !filter.keep[item.channel]; });
  return items;
}

}  // namespace

std::vector<Piece> Builder::pieces(Range whole, int channels, Bytes chunk) {
  std::vector<Piece> all = split_pieces(whole, channels, chunk, elem(), split_);
  if (!filter_) return all;
  if (!even_over_channels(all, channels, [](const Piece& p, auto& out) { out.push_back(p.range.bytes.count()); }))
    filter_->uniform = false;
  std::vector<Piece> kept = kept_only(std::move(all), *filter_);
  note_kept(kept.size());
  return kept;
}

std::vector<Unit> Builder::units(Range whole, int groups, int channels, Bytes chunk, Layout layout) {
  std::vector<Unit> all = split_units(whole, groups, channels, chunk, layout, elem(), split_);
  if (!filter_) return all;
  const auto sizes = [](const Unit& u, auto& out) {
    for (const Range& r : u.blocks) out.push_back(r.bytes.count());
  };
  if (!even_over_channels(all, channels, sizes)) filter_->uniform = false;
  std::vector<Unit> kept = kept_only(std::move(all), *filter_);
  note_kept(kept.size());
  return kept;
}

void Builder::note_kept(std::size_t n) {
  filter_->kept += n;
  if (filter_->ops_per_kept <= 0) return;
  const auto items = double(filter_->kept);
  sink_.reserve(std::size_t(filter_->ops_per_kept * items), std::size_t(filter_->deps_per_kept * items));
}

void Builder::grow(Endpoint e) {
  if (dense_.size() <= e) dense_.resize(e + 1);
  if (wire_.size() <= e) wire_.resize(e + 1);
}

std::vector<OpId> Builder::dense_deps(Endpoint e, Range r) const {
  std::vector<OpId> ops;
  if (e < dense_.size()) collect(dense_[e], r, ops);
  sort_unique(ops);
  return ops;
}

void Builder::wrote_dense(Endpoint e, Range r, OpId op) {
  grow(e);
  dense_[e].assign(r.offset.count(), r.end().count(), op);
  wire_[e].erase(r.offset.count(), r.end().count());
}

void Builder::wrote_wire(Endpoint e, Range r, OpId op) {
  grow(e);
  wire_[e].assign(r.offset.count(), r.end().count(), op);
}

Buffer Builder::home(Endpoint e) const {
  return sink_.endpoints()[e].role == EndpointRole::Rank ? Buffer::Data : Buffer::Scratch;
}

Chunk Builder::sparse_chunk(Range r) const {
  const std::int64_t pair = payload_.element_bytes() + kTopKIndexBytes;  // as Schedule::element_bytes(Sparse)
  return Chunk{r.offset.count() / pair, r.bytes.count() / pair};
}

void Builder::wire_ready(Endpoint a, Range r, std::uint16_t channel, std::uint32_t step, std::vector<OpId>& out) {
  if (!payload_.quantized()) {
    if (a < dense_.size()) collect(dense_[a], r, out);
    return;
  }
  if (a < wire_.size() && wire_[a].covers(r.offset.count(), r.end().count())) {
    collect(wire_[a], r, out);
    return;
  }
  local_deps_.clear();
  if (a < dense_.size()) collect(dense_[a], r, local_deps_);
  sort_unique(local_deps_);
  const OpId encode =
      sink_.add_local(OpKind::Encode, a, a, home(a), Buffer::Wire, chunk(r), r.bytes, local_deps_, channel, step);
  wrote_wire(a, r, encode);
  out.push_back(encode);
}

OpId Builder::transfer(Endpoint a, Endpoint b, Buffer src, Buffer dst, RecvMode mode, Chunk c, Bytes wire,
                       std::vector<OpId>& deps, std::uint16_t channel, std::uint32_t step) {
  const std::uint32_t connection = connections_.index(a, b, channel);
  OpId& last = connections_.last_send(connection);
  if (last != kNoOp) deps.push_back(last);
  sort_unique(deps);
  const OpId recv = sink_.add_transfer(a, b, src, dst, mode, c, wire, deps, {}, channel, step);
  last = recv - 1;  // the Send (OpSink::add_transfer)
  sink_.note_connection(last, connection);
  return recv;
}

OpId Builder::send(Endpoint a, Endpoint b, Range r, std::span<const OpId> extra, std::uint16_t channel,
                   std::uint32_t step, Buffer dst, RecvMode mode) {
  std::vector<OpId>& deps = send_deps_;
  deps.clear();
  wire_ready(a, r, channel, step, deps);
  deps.insert(deps.end(), extra.begin(), extra.end());
  const Buffer src = payload_.quantized() ? Buffer::Wire : home(a);
  return transfer(a, b, src, dst, mode, chunk(r), payload_.wire_bytes(r.bytes), deps, channel, step);
}

OpId Builder::copy(Endpoint a, Endpoint b, Range r, std::uint16_t channel, std::uint32_t step) {
  if (payload_.sparse()) {
    copy_sparse(a, b, r, channel, step);
    return kNoOp;
  }
  if (!payload_.quantized()) {
    const OpId recv = send(a, b, r, {}, channel, step, home(b), RecvMode::Overwrite);
    wrote_dense(b, r, recv);
    return recv;
  }
  // Encoded bytes land in b's wire buffer (b may forward them from there); the Decode writes b's own.
  const OpId recv = send(a, b, r, {}, channel, step, Buffer::Wire, RecvMode::Overwrite);
  const OpId decode = sink_.add_local(OpKind::Decode, b, b, Buffer::Wire, home(b), chunk(r), r.bytes,
                                          std::span<const OpId>(&recv, 1), channel, step);
  wrote_dense(b, r, decode);
  wrote_wire(b, r, recv);  // b may forward the encoded bytes as they arrived
  return decode;
}

OpId Builder::reduce(Endpoint a, Endpoint b, Range r, std::uint16_t channel, std::uint32_t step) {
  OpId incoming = send(a, b, r, {}, channel, step, Buffer::Inbox, RecvMode::Overwrite);
  if (payload_.quantized())
    incoming = sink_.add_local(OpKind::Decode, b, a, Buffer::Inbox, Buffer::Inbox, chunk(r), r.bytes,
                                   std::span<const OpId>(&incoming, 1), channel, step);
  std::vector<OpId>& deps = local_deps_;
  deps.clear();
  if (b < dense_.size()) collect(dense_[b], r, deps);
  deps.push_back(incoming);
  sort_unique(deps);
  const OpId reduce =
      sink_.add_local(OpKind::Reduce, b, a, Buffer::Inbox, home(b), chunk(r), r.bytes, deps, channel, step);
  wrote_dense(b, r, reduce);
  return reduce;
}

void Builder::copy_sparse(Endpoint a, Endpoint b, Range slot, std::uint16_t channel, std::uint32_t step) {
  std::vector<OpId>& deps = send_deps_;
  deps.clear();
  if (a < wire_.size()) collect(wire_[a], slot, deps);
  const Chunk c = sparse_chunk(slot);
  const OpId recv =
      transfer(a, b, Buffer::Sparse, Buffer::Sparse, RecvMode::Overwrite, c, slot.bytes, deps, channel, step);
  wrote_wire(b, slot, recv);
  sink_.add_local(OpKind::Decode, b, b, Buffer::Sparse, home(b), c, slot.bytes, std::span<const OpId>(&recv, 1),
                      channel, step);
}

// ---- phases ----------------------------------------------------------------------------------

namespace {
/// Position -> group member for a channel's ring order (identity when there are no orders).
struct RingOrder {
  const std::vector<int>* order = nullptr;
  RingOrder(RingOrders orders, std::uint16_t channel)
      : order(orders.empty() ? nullptr : &orders[std::size_t(channel) % orders.size()]) {}
  int operator()(int position) const { return order ? (*order)[std::size_t(position)] : position; }
  int position_of(int member) const {
    if (!order) return member;
    return int(std::find(order->begin(), order->end(), member) - order->begin());
  }
};
}  // namespace

std::uint32_t ring_reduce_scatter(Builder& b, const Group& g, std::span<const Unit> units, std::uint32_t step,
                                  RingOrders orders) {
  const int n = int(g.size());
  for (int k = 0; k + 1 < n; ++k)  // step-major: a connection sends step k of every unit, then step k+1
    for (const Unit& u : units) {
      const RingOrder at(orders, u.channel);
      for (int i = 0; i < n; ++i) {
        const Range& r = u.blocks[std::size_t(at(wrap(i - k - 1, n)))];
        if (!r.empty())
          b.reduce(g[std::size_t(at(i))], g[std::size_t(at(wrap(i + 1, n)))], r, u.channel, step + std::uint32_t(k));
      }
    }
  return std::uint32_t(n - 1);
}

std::uint32_t ring_allgather(Builder& b, const Group& g, std::span<const Unit> units, std::uint32_t step,
                             RingOrders orders) {
  const int n = int(g.size());
  for (int k = 0; k + 1 < n; ++k)
    for (const Unit& u : units) {
      const RingOrder at(orders, u.channel);
      for (int i = 0; i < n; ++i) {
        const Range& r = u.blocks[std::size_t(at(wrap(i - k, n)))];
        if (!r.empty())
          b.copy(g[std::size_t(at(i))], g[std::size_t(at(wrap(i + 1, n)))], r, u.channel, step + std::uint32_t(k));
      }
    }
  return std::uint32_t(n - 1);
}

std::uint32_t chain_broadcast(Builder& b, const Group& g, int root, std::span<const Piece> pieces, std::uint32_t step,
                              RingOrders orders) {
  const int n = int(g.size());
  for (const Piece& p : pieces) {
    const RingOrder at(orders, p.channel);
    const int start = at.position_of(root);
    for (int k = 0; k + 1 < n; ++k)
      b.copy(g[std::size_t(at(wrap(start + k, n)))], g[std::size_t(at(wrap(start + k + 1, n)))], p.range, p.channel,
             step + std::uint32_t(k));
  }
  return std::uint32_t(n - 1);
}

std::uint32_t chain_reduce(Builder& b, const Group& g, int root, std::span<const Piece> pieces, std::uint32_t step,
                           RingOrders orders) {
  const int n = int(g.size());
  for (const Piece& p : pieces) {
    const RingOrder at(orders, p.channel);
    const int start = at.position_of(root);
    for (int k = 0; k + 1 < n; ++k)
      b.reduce(g[std::size_t(at(wrap(start + 1 + k, n)))], g[std::size_t(at(wrap(start + 2 + k, n)))], p.range,
               p.channel, step + std::uint32_t(k));
  }
  return std::uint32_t(n - 1);
}

std::vector<int> btree_parents(int n, int tree) {
  std::vector<int> parent(std::size_t(n), -1);
  for (int r = 0; r < n; ++r) {
    if (tree == 0) {
      parent[std::size_t(r)] = btree_parent(n, r);
    } else if (n % 2 == 0) {  // mirror
      const int u = btree_parent(n, n - 1 - r);
      parent[std::size_t(r)] = u < 0 ? -1 : n - 1 - u;
    } else {  // shift by one
      const int u = btree_parent(n, wrap(r - 1, n));
      parent[std::size_t(r)] = u < 0 ? -1 : wrap(u + 1, n);
    }
  }
  return parent;
}

std::uint32_t tree_allreduce(Builder& b, const Group& g, std::span<const Piece> pieces, std::uint32_t step) {
  const int n = int(g.size());
  const Tree trees[2] = {make_tree(n, 0, -1), make_tree(n, 1, -1)};
  const auto height = std::uint32_t(std::max(trees[0].height, trees[1].height));
  for (const Piece& p : pieces) {
    for (int t = 0; t < 2; ++t)
      tree_up(b, g, trees[t], part(p.range, t, 2, b.elem()), tree_channel(p.channel, t), step);
    for (int t = 0; t < 2; ++t)
      tree_down(b, g, trees[t], part(p.range, t, 2, b.elem()), tree_channel(p.channel, t), step + height);
  }
  return 2 * height;
}

std::uint32_t host_chain_tree_allreduce(Builder& b, const Group& g, std::span<const Piece> pieces, std::uint32_t step,
                                        RingOrders orders, std::span<const HostId> hosts) {
  assert(!orders.empty() && hosts.size() == g.size());
  std::vector<std::array<Tree, 2>> trees;  // per ring
  int height = 0;
  for (const std::vector<int>& ring : orders) {
    trees.push_back({host_chain_tree(ring, hosts, 0), host_chain_tree(ring, hosts, 1)});
    height = std::max({height, trees.back()[0].height, trees.back()[1].height});
  }
  for (const Piece& p : pieces) {
    const auto& pair = trees[std::size_t(p.channel) % trees.size()];
    for (int t = 0; t < 2; ++t)
      tree_up(b, g, pair[std::size_t(t)], part(p.range, t, 2, b.elem()), tree_channel(p.channel, t), step);
    for (int t = 0; t < 2; ++t)
      tree_down(b, g, pair[std::size_t(t)], part(p.range, t, 2, b.elem()), tree_channel(p.channel, t),
                step + std::uint32_t(height));
  }
  return 2 * std::uint32_t(height);
}

std::uint32_t tree_reduce(Builder& b, const Group& g, int root, std::span<const Piece> pieces, std::uint32_t step) {
  const int n = int(g.size());
  const Tree trees[2] = {make_tree(n, 0, root), make_tree(n, 1, root)};
  for (const Piece& p : pieces)
    for (int t = 0; t < 2; ++t)
      tree_up(b, g, trees[t], part(p.range, t, 2, b.elem()), tree_channel(p.channel, t), step);
  return std::uint32_t(std::max(trees[0].height, trees[1].height));
}

std::uint32_t tree_broadcast(Builder& b, const Group& g, int root, std::span<const Piece> pieces, std::uint32_t step) {
  const int n = int(g.size());
  const Tree trees[2] = {make_tree(n, 0, root), make_tree(n, 1, root)};
  for (const Piece& p : pieces)
    for (int t = 0; t < 2; ++t)
      tree_down(b, g, trees[t], part(p.range, t, 2, b.elem()), tree_channel(p.channel, t), step);
  return std::uint32_t(std::max(trees[0].height, trees[1].height));
}

std::uint32_t hd_reduce_scatter(Builder& b, const Group& g, std::span<const Unit> units, std::uint32_t step) {
  assert(is_power_of_two(g.size()));
  const int n = int(g.size());
  const int levels = log2_exact(g.size());
  for (const Unit& u : units)
    for (int s = 0; s < levels; ++s) {
      const int d = n >> (s + 1);
      for (int i = 0; i < n; ++i) {
        const int partner = i ^ d;
        const int lo = partner & ~(d - 1);  // the half the partner keeps: aligned run of d blocks
        for (const Range& r : coalesce(u.blocks, lo, lo + d))
          b.reduce(g[std::size_t(i)], g[std::size_t(partner)], r, u.channel, step + std::uint32_t(s));
      }
    }
  return std::uint32_t(levels);
}

std::uint32_t hd_allgather(Builder& b, const Group& g, std::span<const Unit> units, std::uint32_t step) {
  assert(is_power_of_two(g.size()));
  const int n = int(g.size());
  const int levels = log2_exact(g.size());
  for (const Unit& u : units)
    for (int s = 0; s < levels; ++s) {
      const int d = 1 << s;
      for (int i = 0; i < n; ++i) {
        const int lo = i & ~(d - 1);  // what i holds: aligned run of d blocks
        for (const Range& r : coalesce(u.blocks, lo, lo + d))
          b.copy(g[std::size_t(i)], g[std::size_t(i ^ d)], r, u.channel, step + std::uint32_t(s));
      }
    }
  return std::uint32_t(levels);
}

std::uint32_t direct_reduce_scatter(Builder& b, const Group& g, std::span<const Unit> units, std::uint32_t step) {
  const int n = int(g.size());
  for (const Unit& u : units)
    for (int owner = 0; owner < n; ++owner) {
      const Range& r = u.blocks[std::size_t(owner)];
      if (r.empty()) continue;
      for (int k = 1; k < n; ++k)
        b.reduce(g[std::size_t(wrap(owner + k, n))], g[std::size_t(owner)], r, u.channel, step);
    }
  return 1;
}

std::uint32_t direct_allgather(Builder& b, const Group& g, std::span<const Unit> units, std::uint32_t step) {
  const int n = int(g.size());
  for (const Unit& u : units)
    for (int owner = 0; owner < n; ++owner) {
      const Range& r = u.blocks[std::size_t(owner)];
      if (r.empty()) continue;
      for (int k = 1; k < n; ++k) b.copy(g[std::size_t(owner)], g[std::size_t(wrap(owner + k, n))], r, u.channel, step);
    }
  return 1;
}

std::uint32_t star_reduce(Builder& b, const Group& g, int root, std::span<const Piece> pieces, std::uint32_t step) {
  const int n = int(g.size());
  for (const Piece& p : pieces)
    for (int k = 1; k < n; ++k)
      b.reduce(g[std::size_t(wrap(root + k, n))], g[std::size_t(root)], p.range, p.channel, step);
  return 1;
}

std::uint32_t star_broadcast(Builder& b, const Group& g, int root, std::span<const Piece> pieces, std::uint32_t step) {
  const int n = int(g.size());
  for (const Piece& p : pieces)
    for (int k = 1; k < n; ++k)
      b.copy(g[std::size_t(root)], g[std::size_t(wrap(root + k, n))], p.range, p.channel, step);
  return 1;
}

}  // namespace ringlab::sim::detail
