// Schedule: a collective compiled into explicit operations, the contract between the algorithm
// builders (collectives.hpp), the simulator, and later the validation harness on real GPUs.
//
// A schedule has endpoints (the ranks, in rank order, then any extra participants such as switches
// doing in-network reduction or parameter-server hosts) and a list of operations. It is an
// executable program (reference_executor.hpp runs it on real values): every op runs on one endpoint
// and names the buffers it reads and writes and an element range [first, first+count) in dense
// elements of the schedule's datatype (top-k sparse ops: in (value, index) pairs of Buffer::Sparse).
// Buffers of an endpoint, all laid out like the user buffer (same element offsets):
//   Data     the in-place user buffer of a rank: input on entry, output on exit (NCCL in-place
//            semantics; ReduceScatter/AllGather: the whole array, rank r owning block r);
//   Scratch  the working buffer of a switch or parameter server (ranks do not use it), zero on entry;
//   Inbox    per (receiver, sender) staging: where a Recv lands before a Reduce or Decode at the
//            receiver consumes it. The slot is the sender: the Recv's `peer`, the consumer's `peer`;
//   Wire     quantised payloads only: the encoded form of the endpoint's values, what its Encode
//            writes, its Sends read and copying Recvs land in (forwarded without re-encoding);
//   Sparse   top-k only: the sparse parts, addressed in (value, index) pairs.
// Ops:
//   Send/Recv  a matched pair moving src[range] at `at` (the Send) to dst[range] at the receiver
//              (the Recv's `at`); `bytes` is what crosses the network (after compression). The Recv
//              overwrites its destination or adds into it (RecvMode::Reduce: switch aggregation);
//   Reduce     dst[range] (op) = src[range] with src the Inbox slot of `peer` (GPU memory-bound);
//   Copy       dst[range] = src[range];
//   Encode/Decode  compression before a send / after a receive (src -> dst; identity on values for
//              quantisation in the reference executor, a lossy transform on real hardware).
// For local ops `bytes` is the dense bytes processed. Datatype, reduction operator, payload
// compression and protocol are schedule-wide (ops stay small: ring8192 has 336M of them).
// Dependencies may only name earlier operations, so insertion order is a topological order and
// the DAG is acyclic by construction. Per-rank views (what a harness executes) are the ops of that
// endpoint in insertion order.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringlab/sim/calibration.hpp"
#include "ringlab/sim/payload.hpp"
#include "ringlab/topology/topology.hpp"
#include "ringlab/topology/units.hpp"

namespace ringlab::sim {

enum class Collective : std::uint8_t { AllReduce, ReduceScatter, AllGather, Broadcast, Reduce };
enum class OpKind : std::uint8_t { Send, Recv, Reduce, Copy, Encode, Decode };
enum class EndpointRole : std::uint8_t { Rank, Switch, ParameterServer };
/// Which buffer of an endpoint an op reads or writes (see the file comment).
enum class Buffer : std::uint8_t { Data, Scratch, Inbox, Wire, Sparse };
/// How a Recv combines the arriving data with its destination.
enum class RecvMode : std::uint8_t { Overwrite, Reduce };
/// Reduction operator of Reduce ops and reducing Recvs.
enum class ReduceOp : std::uint8_t { Sum };

using OpId = std::uint32_t;
using Endpoint = std::uint32_t;
inline constexpr OpId kNoOp = UINT32_MAX;

std::string_view to_string(Collective c);
std::string_view to_string(OpKind k);
std::string_view to_string(Buffer b);
std::string_view to_string(RecvMode m);
std::string_view to_string(ReduceOp r);
std::string_view to_string(EndpointRole r);
std::optional<OpKind> find_op_kind(std::string_view name);
std::optional<Buffer> find_buffer(std::string_view name);
std::optional<RecvMode> find_recv_mode(std::string_view name);
std::optional<ReduceOp> find_reduce_op(std::string_view name);
std::optional<EndpointRole> find_endpoint_role(std::string_view name);
std::optional<Collective> find_collective(std::string_view name);

/// An element range [first, first + count) of a buffer.
struct Chunk {
  std::int64_t first = 0;
  std::int64_t count = 0;
  bool operator==(const Chunk&) const = default;
};

/// 56 bytes (as before the buffer fields: they fill what was padding).
struct Op {
  std::int64_t first = 0;     ///< range start, in elements of the buffers named below
  std::int64_t count = 0;     ///< range length in elements
  Bytes bytes;                ///< bytes on the wire (Send/Recv) or dense bytes processed (local ops)
  Endpoint at = 0;            ///< endpoint executing the op (receiver for Recv)
  Endpoint peer = 0;          ///< Send: destination, Recv: source; a local op reading an Inbox: its
                              ///< slot (the sender); otherwise == at
  OpId match = kNoOp;         ///< Send <-> Recv counterpart
  std::uint32_t step = 0;     ///< algorithm step, for printing and traces
  std::uint32_t dep_begin = 0;
  std::uint32_t dep_count = 0;
  std::uint16_t channel = 0;  ///< parallel ring/tree/channel index
  OpKind kind = OpKind::Copy;
  Buffer src = Buffer::Data;  ///< buffer read (Recv: the sender's, as on its Send)
  Buffer dst = Buffer::Data;  ///< buffer written (Send: the receiver's, as on its Recv)
  RecvMode mode = RecvMode::Overwrite;  ///< Send/Recv only
  Chunk chunk() const { return Chunk{first, count}; }
};
/// The simulator's hot loop streams ops (ring8192 has 336M via the compact form): keep them small.
inline constexpr std::size_t kOpBytes = 56;
static_assert(sizeof(Op) == kOpBytes, "Op grew: the buffer fields are meant to fill padding");

struct EndpointInfo {
  DeviceId device = 0;
  EndpointRole role = EndpointRole::Rank;
};

class Schedule {
 public:
  /// `message` is the per-rank buffer size as nccl-tests counts it for this collective (bytes on
  /// the wire before compression); `ranks` maps rank r to a GPU device.
  Schedule(Collective collective, std::string algorithm, Bytes message, std::span<const DeviceId> ranks);

  /// Reserves room for `ops` operations and `deps` dependency entries in all (a capacity hint for
  /// builders that know their size; never required).
  void reserve(std::size_t ops, std::size_t deps);
  /// Adds a non-rank participant (switch, parameter server); returns its endpoint id.
  Endpoint add_endpoint(DeviceId device, EndpointRole role);
  /// Adds a local op (Reduce, Copy, Encode, Decode) at `at` after `deps`: src[chunk] -> dst[chunk],
  /// processing `bytes` (dense bytes); `slot` names the Inbox slot (the sender) when src or dst is
  /// Buffer::Inbox, otherwise pass `at`.
  OpId add_local(OpKind kind, Endpoint at, Endpoint slot, Buffer src, Buffer dst, Chunk chunk, Bytes bytes,
                 std::span<const OpId> deps, std::uint16_t channel = 0, std::uint32_t step = 0);
  /// Adds a matched Send (on `from`, after send_deps, reading src[chunk]) and Recv (on `to`, after
  /// recv_deps, writing dst[chunk] as `mode` says); `wire` bytes cross the network.
  /// Returns the Recv's id; the Send is ops()[recv].match, always the op just before it (recv - 1).
  /// The transfer completes when the data has arrived and the recv's deps are done.
  OpId add_transfer(Endpoint from, Endpoint to, Buffer src, Buffer dst, RecvMode mode, Chunk chunk, Bytes wire,
                    std::span<const OpId> send_deps, std::span<const OpId> recv_deps = {},
                    std::uint16_t channel = 0, std::uint32_t step = 0);

  /// Byte-addressed shorthands for hand-built timing schedules (tests): the range is `offset` and
  /// `bytes` in whole dtype elements (both multiples of the element size), every buffer is the
  /// endpoint's own (Data at ranks, Scratch elsewhere), Recvs overwrite, the wire carries `bytes`.
  OpId add_local(OpKind kind, Endpoint at, Bytes offset, Bytes bytes, std::span<const OpId> deps,
                 std::uint16_t channel = 0, std::uint32_t step = 0);
  OpId add_transfer(Endpoint from, Endpoint to, Bytes offset, Bytes bytes, std::span<const OpId> send_deps,
                    std::span<const OpId> recv_deps = {}, std::uint16_t channel = 0, std::uint32_t step = 0);

  Collective collective() const { return collective_; }
  const std::string& algorithm() const { return algorithm_; }
  void set_algorithm(std::string name) { algorithm_ = std::move(name); }
  Bytes message() const { return message_; }
  /// Element type and compression (ops' ranges are in elements of payload().dtype).
  const Payload& payload() const { return payload_; }
  void set_payload(const Payload& payload) { payload_ = payload; }
  ReduceOp redop() const { return redop_; }
  /// NCCL protocol the schedule was built for (Simple unless the nccl algorithm chose another).
  Protocol protocol() const { return protocol_; }
  void set_protocol(Protocol protocol) { protocol_ = protocol; }
  /// NCCL's modelled latency of the (algorithm, protocol) the nccl algorithm chose; a run charges it
  /// once before the first op, in place of the links' latencies (SimOptions::start_latency and
  /// link_latencies). Empty for every other algorithm.
  std::optional<Duration> nccl_latency() const { return nccl_latency_; }
  void set_nccl_latency(Duration latency) { nccl_latency_ = latency; }
  /// Broadcast/Reduce root, a rank index (0 for the other collectives).
  int root() const { return root_; }
  void set_root(int root) { root_ = root; }
  /// Bytes per element of `buffer`: the dtype's size, or a (value, index) pair for Buffer::Sparse.
  std::int64_t element_bytes(Buffer buffer) const;
  /// Byte offset of op's range start in its buffer (first * element_bytes), as printed and traced.
  Bytes byte_offset(const Op& op) const;
  int rank_count() const { return rank_count_; }
  std::span<const EndpointInfo> endpoints() const { return endpoints_; }
  std::span<const Op> ops() const { return ops_; }
  const Op& op(OpId id) const { return ops_[id]; }
  std::span<const OpId> deps(OpId id) const {
    return std::span<const OpId>(deps_).subspan(ops_[id].dep_begin, ops_[id].dep_count);
  }
  std::size_t channel_count() const { return channels_; }

  /// Human-readable listing, one line per op grouped by endpoint:
  /// "rank 3: #12 send 4MiB @8MiB -> rank 4 [ch 0 step 2] after #7 #9".
  void print(std::ostream& out, const Topology* topology = nullptr) const;
  /// Structural problems (unmatched sends, deps naming later ops, chunks out of range); empty when
  /// the schedule is well formed.
  std::vector<std::string> check() const;

 private:
  OpId push(Op op, std::span<const OpId> deps);
  Buffer home(Endpoint e) const {
    return endpoints_[e].role == EndpointRole::Rank ? Buffer::Data : Buffer::Scratch;
  }
  Chunk chunk_of(Bytes offset, Bytes bytes) const {
    const std::int64_t elem = payload_.element_bytes();
    return Chunk{offset.count() / elem, bytes.count() / elem};
  }

  Collective collective_;
  std::string algorithm_;
  Bytes message_;
  Payload payload_;
  ReduceOp redop_ = ReduceOp::Sum;
  Protocol protocol_ = Protocol::Simple;
  std::optional<Duration> nccl_latency_;
  int root_ = 0;
  int rank_count_;
  std::size_t channels_ = 1;
  std::vector<EndpointInfo> endpoints_;
  std::vector<Op> ops_;
  std::vector<OpId> deps_;
};

/// nccl-tests' bus-bandwidth factor: AllReduce 2(n-1)/n, ReduceScatter/AllGather (n-1)/n,
/// Broadcast/Reduce 1 (doc/PERFORMANCE.md).
double busbw_factor(Collective c, int ranks);

}  // namespace ringlab::sim
