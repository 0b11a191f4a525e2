// Private toolkit of the collective builders: buffer splitting (channels, pieces, blocks), a
// last-writer tracker that turns data flow into op dependencies, and the reusable phases (ring,
// chain, double binary tree, halving/doubling, all-to-all, star) that the algorithm files compose.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
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

/// How a channel's share is cut into pieces of at most `chunk` bytes. Even: as many equal pieces as
/// needed. Whole: pieces of exactly `chunk` bytes and the remainder last, as NCCL's kernels loop over
/// a channel's share (CollectiveSpec::whole_chunks).
enum class ChunkSplit : std::uint8_t { Even, Whole };

/// Part i of n of `r`, cut at element boundaries (sizes differ by at most one element).
Range part(Range r, int i, int n, std::int64_t elem);
/// Splits `whole` into `channels` ranges and each into pieces of at most `chunk` bytes as `split`
/// says (chunk 0: one piece per channel). Empty pieces are dropped.
std::vector<Piece> split_pieces(Range whole, int channels, Bytes chunk, std::int64_t elem,
                                ChunkSplit split = ChunkSplit::Even);
/// Units for a block algorithm over `groups` owners; every block piece is at most `chunk` bytes. With
/// ChunkSplit::Whole a PieceMajor unit holds `groups` x `chunk` bytes (the last one the remainder,
/// spread evenly over its blocks, as NCCL's last loop is), an OwnerMajor block piece `chunk` bytes.
std::vector<Unit> split_units(Range whole, int groups, int channels, Bytes chunk, Layout layout, std::int64_t elem,
                              ChunkSplit split = ChunkSplit::Even);

/// Builds only some channels' share of a schedule (the channel fold's quotient, built directly; see
/// engine/channel_fold.hpp): pieces and units of channels whose `keep` entry is false are dropped at
/// the split. `uniform` turns false when a split gives some channel pieces of other sizes than
/// channel 0's, since the quotient then stands for nothing.
struct ChannelFilter {
  std::vector<bool> keep;  ///< per piece channel
  bool uniform = true;
  /// Pieces and units kept so far, over every split of the build.
  std::size_t kept = 0;
  /// Ops and dependency entries per kept piece or unit, measured on a build of the same spec at
  /// another size (0: unknown). Each split then reserves that much schedule for what it kept, which
  /// saves the copies and the double footprint of a growing op vector; nothing else depends on it.
  double ops_per_kept = 0;
  double deps_per_kept = 0;
};

/// Non-overlapping byte intervals [start, end) of one endpoint's buffer, each mapped to the op that
/// wrote it, in start order. Stored as a short list of sorted blocks (each at most kMaxBlock entries)
/// so lookups are two binary searches over contiguous memory and an insertion moves at most one
/// block's tail, whatever order the builders write in.
class IntervalMap {
 public:
  bool empty() const { return blocks_.empty(); }
  /// Appends the op of every interval overlapping [start, end) (in start order, repeats kept).
  void overlapping(std::int64_t start, std::int64_t end, std::vector<OpId>& out) const;
  /// True when [start, end) is covered without gaps.
  bool covers(std::int64_t start, std::int64_t end) const;
  /// [start, end) now maps to `op` (intervals it overlaps are trimmed). Empty ranges are ignored.
  void assign(std::int64_t start, std::int64_t end, OpId op) { replace(start, end, true, op); }
  /// Forgets [start, end) (intervals it overlaps are trimmed). Empty ranges are ignored.
  void erase(std::int64_t start, std::int64_t end) { replace(start, end, false, kNoOp); }

 private:
  struct Entry {
    std::int64_t start;
    std::int64_t end;
    OpId op;
  };
  using Block = std::vector<Entry>;
  static constexpr std::size_t kMaxBlock = 128;

  /// The block whose entries could be the first to overlap a range starting at `start`.
  std::size_t block_of(std::int64_t start) const;
  /// Index in `block` of the first entry ending after `start`.
  static std::size_t first_ending_after(const Block& block, std::int64_t start);
  void replace(std::int64_t start, std::int64_t end, bool insert, OpId op);
  /// Joins blocks (b, last] into b.
  void merge_blocks(std::size_t b, std::size_t last);
  /// Updates firsts_[b] and splits an oversized block or drops an empty one.
  void rebalance(std::size_t b);

  std::vector<Block> blocks_;
  std::vector<std::int64_t> firsts_;  ///< blocks_[i].front().start
};

/// Where a builder's ops go. ScheduleSink appends them to a Schedule; TimingOps
/// (collectives/timing_ops.hpp) keeps only what a run times, for the channel fold's quotient.
/// add_transfer adds the Send and then its Recv: the Send's id is always the Recv's minus one.
class OpSink {
 public:
  virtual ~OpSink() = default;
  /// Capacity hint: `ops` operations and `deps` dependency entries in all.
  virtual void reserve(std::size_t ops, std::size_t deps) = 0;
  virtual std::span<const EndpointInfo> endpoints() const = 0;
  virtual Endpoint add_endpoint(DeviceId device, EndpointRole role) = 0;
  /// As Schedule::add_local and Schedule::add_transfer (which returns the Recv's id).
  virtual OpId add_local(OpKind kind, Endpoint at, Endpoint slot, Buffer src, Buffer dst, Chunk chunk, Bytes bytes,
                         std::span<const OpId> deps, std::uint16_t channel, std::uint32_t step) = 0;
  virtual OpId add_transfer(Endpoint from, Endpoint to, Buffer src, Buffer dst, RecvMode mode, Chunk chunk, Bytes wire,
                            std::span<const OpId> send_deps, std::span<const OpId> recv_deps, std::uint16_t channel,
                            std::uint32_t step) = 0;
  /// Called by the Builder after each add_transfer: the Send's connection (from, to, channel) as a
  /// dense index, numbered in order of first use. A run looks a connection's route up once.
  virtual void note_connection(OpId /*send*/, std::uint32_t /*connection*/) {}
};

/// The full form: every op into `schedule`.
class ScheduleSink final : public OpSink {
 public:
  explicit ScheduleSink(Schedule& schedule) : schedule_(schedule) {}
  void reserve(std::size_t ops, std::size_t deps) override { schedule_.reserve(ops, deps); }
  std::span<const EndpointInfo> endpoints() const override { return schedule_.endpoints(); }
  Endpoint add_endpoint(DeviceId device, EndpointRole role) override { return schedule_.add_endpoint(device, role); }
  OpId add_local(OpKind kind, Endpoint at, Endpoint slot, Buffer src, Buffer dst, Chunk chunk, Bytes bytes,
                 std::span<const OpId> deps, std::uint16_t channel, std::uint32_t step) override {
    return schedule_.add_local(kind, at, slot, src, dst, chunk, bytes, deps, channel, step);
  }
  OpId add_transfer(Endpoint from, Endpoint to, Buffer src, Buffer dst, RecvMode mode, Chunk chunk, Bytes wire,
                    std::span<const OpId> send_deps, std::span<const OpId> recv_deps, std::uint16_t channel,
                    std::uint32_t step) override {
    return schedule_.add_transfer(from, to, src, dst, mode, chunk, wire, send_deps, recv_deps, channel, step);
  }

 private:
  Schedule& schedule_;
};

/// Writes into an OpSink; tracks, per endpoint and byte range, the op that last produced the dense data
/// and (for quantised payloads) the op that produced its current encoded form. Every transfer also
/// waits for the previous transfer on its connection (same sender, receiver and channel): a
/// connection carries one piece at a time, in issue order, like an NCCL channel's FIFO to a peer.
/// That is what makes chunked steps pipeline rather than all start at once.
class Builder {
 public:
  /// `filter` (optional, outlives the builder): build only its kept channels.
  Builder(OpSink& sink, const Payload& payload, ChannelFilter* filter = nullptr);

  OpSink& sink() { return sink_; }
  const Payload& payload() const { return payload_; }
  /// How pieces() and units() cut a channel's share (Even unless the spec asks for whole chunks).
  void set_chunk_split(ChunkSplit split) { split_ = split; }
  std::int64_t elem() const { return payload_.element_bytes(); }

  /// split_pieces / split_units at this payload's element size, less the channels the filter drops.
  std::vector<Piece> pieces(Range whole, int channels, Bytes chunk);
  std::vector<Unit> units(Range whole, int groups, int channels, Bytes chunk, Layout layout);

  /// Ops that produced the dense bytes of `r` at `e` (none where the data is the initial input),
  /// sorted and unique.
  std::vector<OpId> dense_deps(Endpoint e, Range r) const;
  void wrote_dense(Endpoint e, Range r, OpId op);

  /// `a`'s `r` replaces `b`'s `r`. Quantised payloads are encoded at `a` unless `a` already holds
  /// them encoded (forwarding), and decoded at `b`. Returns the op that made the data usable at b.
  OpId copy(Endpoint a, Endpoint b, Range r, std::uint16_t channel, std::uint32_t step);
  /// `a`'s `r` is combined into `b`'s `r`: transfer, then a Reduce at `b` (decode first when
  /// quantised). Returns the Reduce.
  OpId reduce(Endpoint a, Endpoint b, Range r, std::uint16_t channel, std::uint32_t step);
  /// A bare transfer of `r` (dense bytes) from `a`'s own buffer after `a`'s producers of `r` and
  /// `extra` deps, landing in `b`'s `dst` as `mode` says; records nothing. Returns the Recv.
  OpId send(Endpoint a, Endpoint b, Range r, std::span<const OpId> extra, std::uint16_t channel, std::uint32_t step,
            Buffer dst, RecvMode mode);
  /// The buffer holding an endpoint's values: Data for ranks, Scratch for switches and servers.
  Buffer home(Endpoint e) const;
  /// `r` (dense bytes) as an element range.
  Chunk chunk(Range r) const { return Chunk{r.offset.count() / elem(), r.bytes.count() / elem()}; }
  /// A top-k slot range (bytes of (value, index) pairs) as a range of pairs.
  Chunk sparse_chunk(Range r) const;

  /// Top-k: the sparse-part slot of endpoint-independent index `slot` (offset slot * part size).
  Range sparse_slot(int slot) const { return Range{sparse_part_ * slot, sparse_part_}; }
  void set_sparse_part(Bytes part) { sparse_part_ = part; }
  /// Top-k: forwards a sparse part (no re-encoding) and schedules its Decode (scatter-add) at b.
  void copy_sparse(Endpoint a, Endpoint b, Range slot, std::uint16_t channel, std::uint32_t step);
  void wrote_wire(Endpoint e, Range r, OpId op);

 private:
  /// Connections (sender, receiver, channel), numbered densely in order of first use (an
  /// open-addressing table, as it is probed once per transfer), and each one's latest Send.
  class Connections {
   public:
    /// The connection's index, created on first use.
    std::uint32_t index(Endpoint a, Endpoint b, std::uint16_t channel);
    /// Its latest Send (kNoOp before its first).
    OpId& last_send(std::uint32_t connection) { return last_send_[connection]; }

   private:
    struct Slot {
      Endpoint a = 0;
      Endpoint b = 0;
      std::uint16_t channel = 0;
      bool used = false;
      std::uint32_t connection = 0;
    };
    std::size_t probe(Endpoint a, Endpoint b, std::uint16_t channel) const;
    std::vector<Slot> slots_;
    std::vector<OpId> last_send_;  ///< per connection
  };

  /// Appends the ops of `w` overlapping `r`.
  static void collect(const IntervalMap& w, Range r, std::vector<OpId>& out) {
    w.overlapping(r.offset.count(), r.end().count(), out);
  }
  /// Appends the ops the sender must wait for before its bytes of r are on the wire (encoding if needed).
  void wire_ready(Endpoint a, Range r, std::uint16_t channel, std::uint32_t step, std::vector<OpId>& out);
  /// add_transfer after `deps` (appended to, then sorted and made unique) and the connection's
  /// previous transfer.
  OpId transfer(Endpoint a, Endpoint b, Buffer src, Buffer dst, RecvMode mode, Chunk c, Bytes wire,
                std::vector<OpId>& deps, std::uint16_t channel, std::uint32_t step);
  void grow(Endpoint e);

  OpSink& sink_;
  Payload payload_;
  ChannelFilter* filter_;
  ChunkSplit split_ = ChunkSplit::Even;
  /// Counts `n` more kept items in the filter and reserves schedule for them (ChannelFilter).
  void note_kept(std::size_t n);
  Bytes sparse_part_;
  std::vector<IntervalMap> dense_;
  std::vector<IntervalMap> wire_;
  Connections connections_;
  std::vector<OpId> send_deps_;   ///< scratch: deps of the Send being built
  std::vector<OpId> local_deps_;  ///< scratch: deps of the local op being built
};

using Group = std::vector<Endpoint>;

/// Ring order per channel: a unit or piece on channel c uses orders[c % orders.size()], where ring
/// position k holds group member orders[..][k] (position k sends to k+1). Empty: identity. Each
/// order is a permutation of 0..g.size()-1 (validate_spec checks CollectiveSpec::channel_rings).
using RingOrders = std::span<const std::vector<int>>;

// Phases. Each takes the first step number to use and returns how many steps it used.
/// Ring reduce-scatter/allgather: group member m ends with / starts from block m of every unit,
/// whatever the ring order.
std::uint32_t ring_reduce_scatter(Builder& b, const Group& g, std::span<const Unit> units, std::uint32_t step,
                                  RingOrders orders = {});
std::uint32_t ring_allgather(Builder& b, const Group& g, std::span<const Unit> units, std::uint32_t step,
                             RingOrders orders = {});
/// Pipelined chain root -> next -> ... (Broadcast) and root's successor -> ... -> root (Reduce) along
/// the ring order of each piece's channel.
std::uint32_t chain_broadcast(Builder& b, const Group& g, int root, std::span<const Piece> pieces, std::uint32_t step,
                              RingOrders orders = {});
std::uint32_t chain_reduce(Builder& b, const Group& g, int root, std::span<const Piece> pieces, std::uint32_t step,
                           RingOrders orders = {});
/// Double binary tree; each piece is halved between the two trees (op.channel = 2*channel + tree).
/// AllReduce keeps NCCL's natural roots; Reduce/Broadcast rotate both trees onto `root`.
std::uint32_t tree_allreduce(Builder& b, const Group& g, std::span<const Piece> pieces, std::uint32_t step);
/// NCCL's tree allreduce (CollectiveSpec::host_chains): per channel, chains inside hosts in the
/// channel ring's order below each host's head, and the double binary tree across the heads.
std::uint32_t host_chain_tree_allreduce(Builder& b, const Group& g, std::span<const Piece> pieces, std::uint32_t step,
                                        RingOrders orders, std::span<const HostId> hosts);
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

/// build_schedule's checks of a spec against the ranks and topology; throws std::invalid_argument.
void validate_spec(const Topology& topology, std::span<const DeviceId> ranks, const CollectiveSpec& spec);

// Algorithm entry points (one file per family). Preconditions checked by build_schedule: the
// collective is supported, p >= 2.
void build_ring(Builder& b, const Group& ranks, const CollectiveSpec& spec);
/// `hosts`: the host of each rank, used by CollectiveSpec::host_chains (may be empty otherwise).
void build_tree(Builder& b, const Topology& topology, const Group& ranks, const CollectiveSpec& spec,
                std::span<const HostId> hosts);
void build_halving_doubling(Builder& b, const Group& ranks, const CollectiveSpec& spec);
void build_direct(Builder& b, const Group& ranks, const CollectiveSpec& spec);
void build_reduce_broadcast(Builder& b, const Group& ranks, const CollectiveSpec& spec);
void build_hierarchical(Builder& b, const Topology& topology, const Group& ranks, const CollectiveSpec& spec,
                        Hierarchy hierarchy, InterAlgorithm inter);
void build_parameter_server(Builder& b, const Topology& topology, const Group& ranks, const CollectiveSpec& spec);
void build_in_network(Builder& b, const Topology& topology, const Group& ranks, const CollectiveSpec& spec);

/// In-network reduction over `ranks` on SHARP's aggregation tree (or one NVLS NVSwitch): each rank
/// reports to the first reducing switch on its shortest path to the root switch (find_reducing_switch),
/// each such switch sums its children (at line rate, recv-reduce into its scratch) and forwards one
/// copy to its parent; the root sends the sum back down the tree. The switches become endpoints of the
/// schedule once, at construction. Throws std::invalid_argument when no reducing switch is reachable
/// from every rank.
class SwitchAggregation {
 public:
  SwitchAggregation(Builder& b, const Topology& topology, const Group& ranks);
  /// `senders` (members of `ranks`) combine `r`; `receivers` get the sum. Ops up the tree take `step`,
  /// ops down `step + 1`.
  void aggregate(Range r, std::uint16_t channel, std::span<const Endpoint> senders,
                 std::span<const Endpoint> receivers, std::uint32_t step);

 private:
  int first_switch(Endpoint e) const;
  void mark(std::vector<char>& on, std::span<const Endpoint> members) const;
  std::span<const OpId> holds_sum(std::size_t s) const;

  Builder& b_;
  std::vector<Endpoint> switches_;  ///< index 0 is the root
  std::vector<int> parent_;         ///< per switch: its parent's index, -1 for the root
  std::vector<std::size_t> bottom_up_;
  std::unordered_map<Endpoint, int> first_switch_;
  std::vector<std::vector<OpId>> arrived_;
  std::vector<OpId> came_down_;
  std::vector<char> up_, down_;
};
/// NCCL's CollNet Chain allreduce (CollectiveSpec::host_chains with inter InNetwork): per channel,
/// each host's ranks in the channel ring's order chain their sums up to the host's first (its head),
/// the heads' sums meet in the network's reduction, and the result runs back down the chain.
void collnet_chain_allreduce(Builder& b, const Topology& topology, const Group& g, std::span<const Piece> pieces,
                             RingOrders orders, std::span<const HostId> hosts);
/// Top-k sparse AllReduce: encode, allgather of sparse parts with `algorithm`, decode each part.
void build_sparse_allreduce(Builder& b, const Group& ranks, const CollectiveSpec& spec, Algorithm algorithm);

/// build_schedule for a concrete algorithm (not nccl), already validated, with only the channels
/// `filter` keeps (the filter's `uniform` says whether every split was even across channels).
Schedule build_channels(const Topology& topology, std::span<const DeviceId> ranks, const CollectiveSpec& spec,
                        ChannelFilter& filter);

}  // namespace ringlab::sim::detail
