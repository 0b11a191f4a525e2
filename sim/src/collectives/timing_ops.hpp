// TimingOps: a compiled collective reduced to what a flow run times. Each op keeps its endpoints,
// bytes, kind and channel, 24 bytes against a Schedule's 56-byte Op; buffers, element ranges and
// steps are dropped. Simulator::run builds the channel fold's quotient in this form
// (build_channels_timing), so for a long NCCL pipeline no 56-byte op record of it ever exists, and
// TimingDag (engine/timing_dag.hpp) runs it. Op ids, dependency lists and their order are exactly
// those build_channels gives the same spec and filter (tests/sim/timing_ops_test.cpp).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "collectives/collectives_builder.hpp"

namespace ringlab::sim::detail {

/// One op as a run sees it. A Send's Recv is the next op, a Recv's Send the previous one
/// (OpSink::add_transfer), so neither stores its match.
struct TimedOp {
  Bytes bytes;  ///< bytes on the wire (Send/Recv) or dense bytes processed (local ops)
  Endpoint at = 0;
  Endpoint peer = 0;
  /// A Send's or local op's dependency count while the ops are built (TimingDag then gives a Send
  /// its Recv's value); a Recv's connection: a dense index per (sender, receiver, channel), noted
  /// by the Builder (OpSink::note_connection). A Recv has no dependencies of its own here, as the
  /// Builder never gives any. A run keeps one path slot per connection.
  std::uint32_t aux = 0;
  std::uint16_t channel = 0;
  OpKind kind = OpKind::Copy;
};
static_assert(sizeof(TimedOp) == 24, "TimedOp is meant to stay three words");

class TimingOps final : public OpSink {
 public:
  /// As Schedule's constructor.
  TimingOps(Collective collective, std::string algorithm, Bytes message, std::span<const DeviceId> ranks);

  void reserve(std::size_t ops, std::size_t deps) override;
  std::span<const EndpointInfo> endpoints() const override { return endpoints_; }
  Endpoint add_endpoint(DeviceId device, EndpointRole role) override;
  OpId add_local(OpKind kind, Endpoint at, Endpoint slot, Buffer src, Buffer dst, Chunk chunk, Bytes bytes,
                 std::span<const OpId> deps, std::uint16_t channel, std::uint32_t step) override;
  OpId add_transfer(Endpoint from, Endpoint to, Buffer src, Buffer dst, RecvMode mode, Chunk chunk, Bytes wire,
                    std::span<const OpId> send_deps, std::span<const OpId> recv_deps, std::uint16_t channel,
                    std::uint32_t step) override;
  void note_connection(OpId send, std::uint32_t connection) override;

  // What a run's result reads, as Schedule names it.
  Collective collective() const { return collective_; }
  const std::string& algorithm() const { return algorithm_; }
  Bytes message() const { return message_; }
  int rank_count() const { return rank_count_; }

  std::span<const TimedOp> ops() const { return ops_; }
  std::span<TimedOp> ops() { return ops_; }
  /// Every op's dependencies in op order: op i's are the next dep_count(i) entries.
  std::span<const OpId> deps() const { return deps_; }
  /// How many of deps() are op `id`'s (a Recv has none).
  std::uint32_t dep_count(OpId id) const { return ops_[id].kind == OpKind::Recv ? 0 : ops_[id].aux; }
  /// Frees the dependency lists (once TimingDag has turned them into successor lists).
  void release_deps() { std::vector<OpId>().swap(deps_); }

 private:
  OpId push(OpKind kind, Endpoint at, Endpoint peer, Bytes bytes, std::uint16_t channel, std::span<const OpId> deps);

  Collective collective_;
  std::string algorithm_;
  Bytes message_;
  int rank_count_;
  std::vector<EndpointInfo> endpoints_;
  std::vector<TimedOp> ops_;
  std::vector<OpId> deps_;
};

/// build_channels (collectives_builder.hpp) into TimingOps: the same ops, ids and dependencies,
/// without what the run does not read.
TimingOps build_channels_timing(const Topology& topology, std::span<const DeviceId> ranks, const CollectiveSpec& spec,
                                ChannelFilter& filter);

}  // namespace ringlab::sim::detail
