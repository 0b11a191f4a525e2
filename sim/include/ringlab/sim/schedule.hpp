// Schedule: a collective compiled into explicit operations, the contract between the algorithm
// builders (collectives.hpp), the simulator, and later the validation harness on real GPUs.
//
// A schedule has endpoints (the ranks, in rank order, then any extra participants such as switches
// doing in-network reduction or parameter-server hosts) and a list of operations. Each operation
// runs on one endpoint and acts on a chunk [offset, offset+bytes) of that endpoint's buffer:
//   Send/Recv  a matched pair moving `bytes` from `at` to `peer` (the Recv's `at` is the receiver);
//   Reduce     combine a received chunk into the local one (GPU memory-bound);
//   Copy       a local copy of a chunk;
//   Encode/Decode  compression before a send / after a receive.
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

#include "ringlab/topology/topology.hpp"
#include "ringlab/topology/units.hpp"

namespace ringlab::sim {

enum class Collective : std::uint8_t { AllReduce, ReduceScatter, AllGather, Broadcast, Reduce };
enum class OpKind : std::uint8_t { Send, Recv, Reduce, Copy, Encode, Decode };
enum class EndpointRole : std::uint8_t { Rank, Switch, ParameterServer };

using OpId = std::uint32_t;
using Endpoint = std::uint32_t;
inline constexpr OpId kNoOp = UINT32_MAX;

std::string_view to_string(Collective c);
std::string_view to_string(OpKind k);
std::optional<Collective> find_collective(std::string_view name);

struct Op {
  OpKind kind = OpKind::Copy;
  Endpoint at = 0;            ///< endpoint executing the op (receiver for Recv)
  Endpoint peer = 0;          ///< Send: destination, Recv: source, otherwise == at
  Bytes offset;               ///< chunk start in the endpoint's buffer
  Bytes bytes;                ///< chunk size: bytes on the wire (Send/Recv) or bytes processed
  OpId match = kNoOp;         ///< Send <-> Recv counterpart
  std::uint16_t channel = 0;  ///< parallel ring/tree/channel index
  std::uint32_t step = 0;     ///< algorithm step, for printing and traces
  std::uint32_t dep_begin = 0;
  std::uint32_t dep_count = 0;
};

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
  /// Adds a local op (Reduce, Copy, Encode, Decode) after `deps`.
  OpId add_local(OpKind kind, Endpoint at, Bytes offset, Bytes bytes, std::span<const OpId> deps,
                 std::uint16_t channel = 0, std::uint32_t step = 0);
  /// Adds a matched Send (on `from`, after send_deps) and Recv (on `to`, after recv_deps).
  /// Returns the Recv's id; the Send is ops()[recv].match. The transfer completes when the data
  /// has arrived and the recv's deps are done.
  OpId add_transfer(Endpoint from, Endpoint to, Bytes offset, Bytes bytes, std::span<const OpId> send_deps,
                    std::span<const OpId> recv_deps = {}, std::uint16_t channel = 0, std::uint32_t step = 0);

  Collective collective() const { return collective_; }
  const std::string& algorithm() const { return algorithm_; }
  void set_algorithm(std::string name) { algorithm_ = std::move(name); }
  Bytes message() const { return message_; }
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

  Collective collective_;
  std::string algorithm_;
  Bytes message_;
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
