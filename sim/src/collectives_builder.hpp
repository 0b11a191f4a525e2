// Private toolkit of the collective builders: buffer splitting (channels, pieces, blocks), a
// last-writer tracker that turns data flow into op dependencies, and the reusable phases (ring,
// chain, double binary tree, halving/doubling, all-to-all, star) that the algorithm files compose.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <tuple>
#include <vector>

#include "ringlab/sim/collectives.hpp"
#include "ringlab/sim/schedule.hpp"

namespace ringlab::sim::detail {

/// A byte range of an endpoint's buffer.
struct Range {
  Bytes offset;
  Bytes bytes;
  Bytes end() const { return offset + bytes; }
  bool empty() const { return bytes.count() <= 0; }
};

/// A contiguous piece moved as one message, on one channel.
struct Piece {
  Range range;
  std::uint16_t channel = 0;
};

/// One pipelining unit of a block algorithm: block b of the unit is the part owned by group member b.
struct Unit {
  std::uint16_t channel = 0;
  std::vector<Range> blocks;
};

/// OwnerMajor: buffer -> g blocks -> channels -> pieces (block b stays contiguous per owner, the
/// layout ReduceScatter/AllGather need). PieceMajor: buffer -> channels -> pieces -> g blocks
/// (NCCL's AllReduce layout; a unit's blocks are adjacent).
enum class Layout : std::uint8_t { OwnerMajor, PieceMajor };

/// Part i of n of `r`, cut at element boundaries (sizes differ by at most one element).
Range part(Range r, int i, int n, std::int64_t elem);
/// Splits `whole` into `channels` ranges and each into equal pieces of at most `chunk` bytes
/// (chunk 0: one piece per channel). Empty pieces are dropped.
std::vector<Piece> split_pieces(Range whole, int channels, Bytes chunk, std::int64_t elem);
/// Units for a block algorithm over `groups` owners; every block piece is at most `chunk` bytes.
std::vector<Unit> split_units(Range whole, int groups, int channels, Bytes chunk, Layout layout, std::int64_t elem);

/// Wraps a Schedule; tracks, per endpoint and byte range, the op that last produced the dense data
/// and (for quantised payloads) the op that produced its current encoded form. Every transfer also
/// waits for the previous transfer on its connection (same sender, receiver and channel): a
/// connection carries one piece at a time, in issue order, like an NCCL channel's FIFO to a peer.
/// That is what makes chunked steps pipeline rather than all start at once.
class Builder {
 public:
  Builder(Schedule& schedule, const Payload& payload);

  Schedule& schedule() { return schedule_; }
  const Payload& payload() const { return payload_; }
  std::int64_t elem() const { return payload_.element_bytes(); }

  /// Ops that produced the dense bytes of `r` at `e` (none where the data is the initial input).
  std::vector<OpId> dense_deps(Endpoint e, Range r) const;
  void wrote_dense(Endpoint e, Range r, OpId op);

  /// `a`'s `r` replaces `b`'s `r`. Quantised payloads are encoded at `a` unless `a` already holds
  /// them encoded (forwarding), and decoded at `b`. Returns the op that made the data usable at b.
  OpId copy(Endpoint a, Endpoint b, Range r, std::uint16_t channel, std::uint32_t step);
  /// `a`'s `r` is combined into `b`'s `r`: transfer, then a Reduce at `b` (decode first when
  /// quantised). Returns the Reduce.
  OpId reduce(Endpoint a, Endpoint b, Range r, std::uint16_t channel, std::uint32_t step);
  /// A bare transfer of `r` (dense bytes) after `a`'s producers of `r` and `extra` deps; records
  /// nothing. Returns the Recv.
  OpId send(Endpoint a, Endpoint b, Range r, std::span<const OpId> extra, std::uint16_t channel, std::uint32_t step);

  /// Top-k: the sparse-part slot of endpoint-independent index `slot` (offset slot * part size).
  Range sparse_slot(int slot) const { return Range{sparse_part_ * slot, sparse_part_}; }
  void set_sparse_part(Bytes part) { sparse_part_ = part; }
  /// Top-k: forwards a sparse part (no re-encoding) and schedules its Decode (scatter-add) at b.
  void copy_sparse(Endpoint a, Endpoint b, Range slot, std::uint16_t channel, std::uint32_t step);
  void wrote_wire(Endpoint e, Range r, OpId op);

 private:
  struct Entry {
    std::int64_t end;
    OpId op;
  };
  using Writers = std::map<std::int64_t, Entry>;
  static std::vector<OpId> overlapping(const Writers& w, Range r);
  static bool covers(const Writers& w, Range r);
  static void assign(Writers& w, Range r, OpId op);
  static void erase(Writers& w, Range r);
  /// Ops the sender must wait for before its bytes of r are on the wire (encoding if needed).
  std::vector<OpId> wire_ready(Endpoint a, Range r, std::uint16_t channel, std::uint32_t step);
  /// add_transfer after `deps` and the connection's previous transfer.
  OpId transfer(Endpoint a, Endpoint b, Range r, Bytes wire, std::vector<OpId> deps, std::uint16_t channel,
                std::uint32_t step);

  Schedule& schedule_;
  Payload payload_;
  Bytes sparse_part_;
  std::vector<Writers> dense_;
  std::vector<Writers> wire_;
  std::map<std::tuple<Endpoint, Endpoint, std::uint16_t>, OpId> last_send_;  ///< per connection
};

using Group = std::vector<Endpoint>;

// Phases. Each takes the first step number to use and returns how many steps it used.
std::uint32_t ring_reduce_scatter(Builder& b, const Group& g, std::span<const Unit> units, std::uint32_t step);
std::uint32_t ring_allgather(Builder& b, const Group& g, std::span<const Unit> units, std::uint32_t step);
/// Pipelined chain root -> root+1 -> ... (Broadcast) and root+1 -> ... -> root (Reduce).
std::uint32_t chain_broadcast(Builder& b, const Group& g, int root, std::span<const Piece> pieces, std::uint32_t step);
std::uint32_t chain_reduce(Builder& b, const Group& g, int root, std::span<const Piece> pieces, std::uint32_t step);
/// Double binary tree; each piece is halved between the two trees (op.channel = 2*channel + tree).
/// AllReduce keeps NCCL's natural roots; Reduce/Broadcast rotate both trees onto `root`.
std::uint32_t tree_allreduce(Builder& b, const Group& g, std::span<const Piece> pieces, std::uint32_t step);
std::uint32_t tree_reduce(Builder& b, const Group& g, int root, std::span<const Piece> pieces, std::uint32_t step);
std::uint32_t tree_broadcast(Builder& b, const Group& g, int root, std::span<const Piece> pieces, std::uint32_t step);
/// Recursive halving / doubling. Precondition: g.size() is a power of two.
std::uint32_t hd_reduce_scatter(Builder& b, const Group& g, std::span<const Unit> units, std::uint32_t step);
std::uint32_t hd_allgather(Builder& b, const Group& g, std::span<const Unit> units, std::uint32_t step);
/// All-to-all: every block goes straight to (RS) or from (AG) its owner.
std::uint32_t direct_reduce_scatter(Builder& b, const Group& g, std::span<const Unit> units, std::uint32_t step);
std::uint32_t direct_allgather(Builder& b, const Group& g, std::span<const Unit> units, std::uint32_t step);
/// Star: everyone sends to the root which reduces / the root sends to everyone.
std::uint32_t star_reduce(Builder& b, const Group& g, int root, std::span<const Piece> pieces, std::uint32_t step);
std::uint32_t star_broadcast(Builder& b, const Group& g, int root, std::span<const Piece> pieces, std::uint32_t step);

/// Binary-tree parents of NCCL's double binary tree over positions 0..n-1: tree 0 is ncclGetBtree,
/// tree 1 its mirror (even n) or shift by one (odd n). parent[root] == -1.
std::vector<int> btree_parents(int n, int tree);

// Algorithm entry points (one file per family). Preconditions checked by build_schedule: the
// collective is supported, p >= 2.
void build_ring(Builder& b, const Group& ranks, const CollectiveSpec& spec);
void build_tree(Builder& b, const Group& ranks, const CollectiveSpec& spec);
void build_halving_doubling(Builder& b, const Group& ranks, const CollectiveSpec& spec);
void build_direct(Builder& b, const Group& ranks, const CollectiveSpec& spec);
void build_reduce_broadcast(Builder& b, const Group& ranks, const CollectiveSpec& spec);
void build_hierarchical(Builder& b, const Topology& topology, const Group& ranks, const CollectiveSpec& spec,
                        Hierarchy hierarchy, InterAlgorithm inter);
void build_parameter_server(Builder& b, const Topology& topology, const Group& ranks, const CollectiveSpec& spec);
void build_in_network(Builder& b, const Topology& topology, const Group& ranks, const CollectiveSpec& spec);
/// Top-k sparse AllReduce: encode, allgather of sparse parts with `algorithm`, decode each part.
void build_sparse_allreduce(Builder& b, const Group& ranks, const CollectiveSpec& spec, Algorithm algorithm);

}  // namespace ringlab::sim::detail
