// Collective toolkit: buffer splitting, the last-writer tracker and the reusable phases.
#include "collectives_builder.hpp"

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

std::vector<OpId> merge(std::vector<OpId> a, std::span<const OpId> b) {
  a.insert(a.end(), b.begin(), b.end());
  std::sort(a.begin(), a.end());
  a.erase(std::unique(a.begin(), a.end()), a.end());
  return a;
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

std::vector<Piece> split_pieces(Range whole, int channels, Bytes chunk, std::int64_t elem) {
  std::vector<Piece> out;
  for (int c = 0; c < channels; ++c) {
    const Range region = part(whole, c, channels, elem);
    const std::int64_t n = piece_count(region.bytes.count() / elem, chunk, elem);
    for (std::int64_t j = 0; j < n; ++j) {
      const Range piece = part(region, int(j), int(n), elem);
      if (!piece.empty()) out.push_back(Piece{piece, std::uint16_t(c)});
    }
  }
  return out;
}

std::vector<Unit> split_units(Range whole, int groups, int channels, Bytes chunk, Layout layout, std::int64_t elem) {
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
        const Range piece = part(region, int(j), int(n), elem);
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
      for (const Range& s : sub) u.blocks.push_back(part(s, int(j), int(n), elem));
      keep(std::move(u));
    }
  }
  return out;
}

// ---- tracker ---------------------------------------------------------------------------------

Builder::Builder(Schedule& schedule, const Payload& payload) : schedule_(schedule), payload_(payload) {}

std::vector<OpId> Builder::overlapping(const Writers& w, Range r) {
  std::vector<OpId> ops;
  auto it = w.upper_bound(r.offset.count());
  if (it != w.begin()) --it;
  for (; it != w.end() && it->first < r.end().count(); ++it)
    if (it->second.end > r.offset.count()) ops.push_back(it->second.op);
  std::sort(ops.begin(), ops.end());
  ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
  return ops;
}

bool Builder::covers(const Writers& w, Range r) {
  std::int64_t at = r.offset.count();
  auto it = w.upper_bound(at);
  if (it != w.begin()) --it;
  for (; it != w.end() && at < r.end().count(); ++it) {
    if (it->second.end <= at) continue;
    if (it->first > at) return false;
    at = it->second.end;
  }
  return at >= r.end().count();
}

void Builder::erase(Writers& w, Range r) {
  const std::int64_t a = r.offset.count();
  const std::int64_t e = r.end().count();
  auto it = w.upper_bound(a);
  if (it != w.begin()) --it;
  std::vector<std::pair<std::int64_t, Entry>> keep;
  while (it != w.end() && it->first < e) {
    if (it->second.end <= a) {
      ++it;
      continue;
    }
    if (it->first < a) keep.push_back({it->first, Entry{a, it->second.op}});
    if (it->second.end > e) keep.push_back({e, Entry{it->second.end, it->second.op}});
    it = w.erase(it);
  }
  for (const auto& [start, entry] : keep) w[start] = entry;
}

void Builder::assign(Writers& w, Range r, OpId op) {
  erase(w, r);
  w[r.offset.count()] = Entry{r.end().count(), op};
}

std::vector<OpId> Builder::dense_deps(Endpoint e, Range r) const {
  if (e >= dense_.size()) return {};
  return overlapping(dense_[e], r);
}

void Builder::wrote_dense(Endpoint e, Range r, OpId op) {
  if (dense_.size() <= e) dense_.resize(e + 1);
  if (wire_.size() <= e) wire_.resize(e + 1);
  assign(dense_[e], r, op);
  erase(wire_[e], r);
}

void Builder::wrote_wire(Endpoint e, Range r, OpId op) {
  if (wire_.size() <= e) wire_.resize(e + 1);
  assign(wire_[e], r, op);
}

std::vector<OpId> Builder::wire_ready(Endpoint a, Range r, std::uint16_t channel, std::uint32_t step) {
  if (!payload_.quantized()) return dense_deps(a, r);
  if (a < wire_.size() && covers(wire_[a], r)) return overlapping(wire_[a], r);
  const OpId encode = schedule_.add_local(OpKind::Encode, a, r.offset, r.bytes, dense_deps(a, r), channel, step);
  wrote_wire(a, r, encode);
  return {encode};
}

OpId Builder::transfer(Endpoint a, Endpoint b, Range r, Bytes wire, std::vector<OpId> deps, std::uint16_t channel,
                       std::uint32_t step) {
  const auto connection = std::make_tuple(a, b, channel);
  if (const auto it = last_send_.find(connection); it != last_send_.end())
    deps = merge(std::move(deps), std::span<const OpId>(&it->second, 1));
  const OpId recv = schedule_.add_transfer(a, b, r.offset, wire, deps, {}, channel, step);
  last_send_[connection] = schedule_.op(recv).match;
  return recv;
}

OpId Builder::send(Endpoint a, Endpoint b, Range r, std::span<const OpId> extra, std::uint16_t channel,
                   std::uint32_t step) {
  return transfer(a, b, r, payload_.wire_bytes(r.bytes), merge(wire_ready(a, r, channel, step), extra), channel, step);
}

OpId Builder::copy(Endpoint a, Endpoint b, Range r, std::uint16_t channel, std::uint32_t step) {
  if (payload_.sparse()) {
    copy_sparse(a, b, r, channel, step);
    return kNoOp;
  }
  const OpId recv = send(a, b, r, {}, channel, step);
  if (!payload_.quantized()) {
    wrote_dense(b, r, recv);
    return recv;
  }
  const std::vector<OpId> deps{recv};
  const OpId decode = schedule_.add_local(OpKind::Decode, b, r.offset, r.bytes, deps, channel, step);
  wrote_dense(b, r, decode);
  wrote_wire(b, r, recv);  // b may forward the encoded bytes as they arrived
  return decode;
}

OpId Builder::reduce(Endpoint a, Endpoint b, Range r, std::uint16_t channel, std::uint32_t step) {
  OpId incoming = send(a, b, r, {}, channel, step);
  if (payload_.quantized()) {
    const std::vector<OpId> deps{incoming};
    incoming = schedule_.add_local(OpKind::Decode, b, r.offset, r.bytes, deps, channel, step);
  }
  const std::vector<OpId> deps = merge(dense_deps(b, r), std::span<const OpId>(&incoming, 1));
  const OpId reduce = schedule_.add_local(OpKind::Reduce, b, r.offset, r.bytes, deps, channel, step);
  wrote_dense(b, r, reduce);
  return reduce;
}

void Builder::copy_sparse(Endpoint a, Endpoint b, Range slot, std::uint16_t channel, std::uint32_t step) {
  std::vector<OpId> deps = a < wire_.size() ? overlapping(wire_[a], slot) : std::vector<OpId>{};
  const OpId recv = transfer(a, b, slot, slot.bytes, std::move(deps), channel, step);
  wrote_wire(b, slot, recv);
  const std::vector<OpId> decode_deps{recv};
  schedule_.add_local(OpKind::Decode, b, slot.offset, slot.bytes, decode_deps, channel, step);
}

// ---- phases ----------------------------------------------------------------------------------

std::uint32_t ring_reduce_scatter(Builder& b, const Group& g, std::span<const Unit> units, std::uint32_t step) {
  const int n = int(g.size());
  for (int k = 0; k + 1 < n; ++k)  // step-major: a connection sends step k of every unit, then step k+1
    for (const Unit& u : units)
      for (int i = 0; i < n; ++i) {
        const Range& r = u.blocks[std::size_t(wrap(i - k - 1, n))];
        if (!r.empty())
          b.reduce(g[std::size_t(i)], g[std::size_t(wrap(i + 1, n))], r, u.channel, step + std::uint32_t(k));
      }
  return std::uint32_t(n - 1);
}

std::uint32_t ring_allgather(Builder& b, const Group& g, std::span<const Unit> units, std::uint32_t step) {
  const int n = int(g.size());
  for (int k = 0; k + 1 < n; ++k)
    for (const Unit& u : units)
      for (int i = 0; i < n; ++i) {
        const Range& r = u.blocks[std::size_t(wrap(i - k, n))];
        if (!r.empty())
          b.copy(g[std::size_t(i)], g[std::size_t(wrap(i + 1, n))], r, u.channel, step + std::uint32_t(k));
      }
  return std::uint32_t(n - 1);
}

std::uint32_t chain_broadcast(Builder& b, const Group& g, int root, std::span<const Piece> pieces, std::uint32_t step) {
  const int n = int(g.size());
  for (const Piece& p : pieces)
    for (int k = 0; k + 1 < n; ++k)
      b.copy(g[std::size_t(wrap(root + k, n))], g[std::size_t(wrap(root + k + 1, n))], p.range, p.channel,
             step + std::uint32_t(k));
  return std::uint32_t(n - 1);
}

std::uint32_t chain_reduce(Builder& b, const Group& g, int root, std::span<const Piece> pieces, std::uint32_t step) {
  const int n = int(g.size());
  for (const Piece& p : pieces)
    for (int k = 0; k + 1 < n; ++k)
      b.reduce(g[std::size_t(wrap(root + 1 + k, n))], g[std::size_t(wrap(root + 2 + k, n))], p.range, p.channel,
               step + std::uint32_t(k));
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
