// CompactSchedule: a ring collective's schedule held as its generator, not as explicit ops.
//
// An explicit Schedule of a flat ring allreduce has 5p(p-1) ops per pipelining unit (about 64 bytes
// each with their dependencies): 20 GiB at 8192 ranks. The ring is regular, so every op, its
// dependencies and its successors are a closed-form function of (phase, step, unit, rank). A
// CompactSchedule stores only the units' block ranges (O(ranks x units)) and computes ops on demand,
// with exactly the op ids, fields and dependency lists that build_schedule() emits for the same spec
// (expand() returns that Schedule; the tests compare them op by op and their simulation Results).
// Simulator::run(const CompactSchedule&) runs it in memory linear in ranks and links.
//
// Covered: algorithm ring for AllReduce, ReduceScatter and AllGather with an uncompressed payload,
// any per-channel ring orders (CollectiveSpec::channel_rings: the closed form works on ring
// positions and maps a position to its rank through the channel's ring), and every block of every
// pipelining unit non-empty (each piece has at least p elements). Anything else (other algorithms,
// compression, tiny messages) is left to the explicit form: build_compact_schedule() returns nullopt.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "ringlab/sim/collectives.hpp"
#include "ringlab/sim/schedule.hpp"
#include "ringlab/topology/topology.hpp"
#include "ringlab/topology/units.hpp"

namespace ringlab::sim {

/// A compact schedule's op id. 64 bits: a ring of 65,536 ranks has 2.1e10 ops, beyond Schedule's
/// 32-bit OpId (explicit schedules never get there: they would need terabytes).
using CompactOpId = std::uint64_t;
inline constexpr CompactOpId kNoCompactOp = UINT64_MAX;

/// At most two op ids (every op of a ring has at most two dependencies and two successors).
struct OpPair {
  std::array<CompactOpId, 2> ids{kNoCompactOp, kNoCompactOp};
  std::uint32_t count = 0;
  std::span<const CompactOpId> view() const { return std::span<const CompactOpId>(ids.data(), count); }
};

class CompactSchedule {
 public:
  Collective collective() const { return collective_; }
  const std::string& algorithm() const { return algorithm_; }
  Bytes message() const { return message_; }
  int rank_count() const { return ranks_; }
  std::span<const EndpointInfo> endpoints() const { return endpoints_; }
  std::size_t channel_count() const { return channels_; }
  /// Number of ops (ids 0..op_count()-1), as in the explicit schedule.
  std::uint64_t op_count() const { return op_count_; }
  /// Number of Send/Recv pairs.
  std::uint64_t transfer_count() const { return transfers_; }

  /// The op with this id, as the explicit schedule holds it (dep_begin is 0: use deps()). Its
  /// `match` is a 32-bit OpId: exact while op_count() < 2^32 (expand() needs that anyway).
  /// Precondition: id < op_count(). O(1).
  Op op(CompactOpId id) const;
  /// op(id).at, cheaper (the engine asks for it on every completion). Precondition: id < op_count().
  Endpoint endpoint(CompactOpId id) const;
  /// op(id).kind, cheaper (the engine asks for it on every op).
  OpKind kind(CompactOpId id) const {
    constexpr OpKind kParts[3] = {OpKind::Send, OpKind::Recv, OpKind::Reduce};
    if (id < rs_ops_) return kParts[id - 3 * by_three_.divide(id)];
    return kParts[(id - rs_ops_) & 1];
  }
  /// Its dependencies, ascending (the explicit schedule's deps(id)). O(1).
  OpPair deps(CompactOpId id) const;
  /// Ops that list `id` among their dependencies, plus a Send's matched Recv, ascending. O(1).
  OpPair successors(CompactOpId id) const;
  /// Ordinal of a Send or Recv among the transfers (0..transfer_count()-1), in id order. O(1).
  std::uint64_t transfer_index(CompactOpId id) const;
  /// True when a Send has a single dependency (the first step of the first phase has no data
  /// producer); every other Send has two: the data producer and the connection's previous Send.
  bool in_first_step(CompactOpId id) const { return id < first_step_ops_; }
  /// Lock-step structure, for the engine's exact repeat shortcut. A ring runs in two phases
  /// (reduce-scatter, then allgather), each of ranks-1 steps, and op ids are step-major within a
  /// phase: id + step_stride(phase) is the same (unit, rank, part) one step later.
  enum class Phase : std::uint8_t { ReduceScatter, AllGather };
  struct StepRef {
    Phase phase;
    std::uint32_t step;
  };
  StepRef step_of(CompactOpId id) const;
  /// Ops per step of a phase.
  std::uint64_t step_stride(Phase phase) const {
    return std::uint64_t(units_) * std::uint64_t(ranks_) * (phase == Phase::ReduceScatter ? 3 : 2);
  }
  /// Steps per phase: ranks - 1.
  std::uint32_t steps_per_phase() const { return std::uint32_t(ranks_ - 1); }
  bool has_phase(Phase phase) const { return phase == Phase::ReduceScatter ? has_rs() : has_ag(); }
  /// True when every unit's blocks have the same size, so every rank moves the same bytes in every
  /// step. Then, for steps 1 <= s and s + 1 <= ranks - 2 of one phase, op id and id + step_stride
  /// are the same op one step apart: same kind, ranks, channel and bytes, with dependencies and
  /// successors shifted by the stride too.
  bool uniform_steps() const { return uniform_steps_; }
  /// The Send of rank 0, first unit, in `step` of `phase`: it completes once per step.
  CompactOpId step_marker(Phase phase, std::uint32_t step) const { return id_of(phase, step, 0, 0); }

  /// Ops without dependencies, ascending (the first sends of every connection): O(ranks x channels).
  std::vector<CompactOpId> initial_ops() const;
  /// Ids of the ops executed by endpoint `e`, ascending: what a per-rank harness runs. O(ops of e).
  std::vector<CompactOpId> rank_ops(Endpoint e) const;

  /// The explicit equivalent: identical to build_schedule() for the same inputs. O(ops) memory.
  /// Throws std::invalid_argument beyond 2^32 - 1 ops (explicit op ids are 32-bit).
  Schedule expand() const;
  /// Same listing as Schedule::print, generated rank by rank without expanding the schedule.
  void print(std::ostream& out, const Topology* topology = nullptr) const;
  /// The part of print() for one endpoint.
  void print_rank(std::ostream& out, Endpoint e, const Topology* topology = nullptr) const;

 private:
  friend std::optional<CompactSchedule> build_compact_schedule(const Topology&, std::span<const DeviceId>,
                                                               const CollectiveSpec&);
  /// Exact division by a constant: (2^64 / d + 1) * x >> 64 (Lemire, Kaser and Kurz, "Faster
  /// remainder by direct computation", 2019), a multiplication instead of a hardware divide. The
  /// magic number of d = 1 wraps to 0, which marks the identity.
  struct FastDivisor {
    std::uint64_t magic = 0;
    FastDivisor() = default;
    std::uint32_t divisor = 1;
    explicit FastDivisor(std::uint32_t d) : magic(UINT64_MAX / d + 1), divisor(d) {}
    /// Exact for x < 2^32; larger x (rings beyond ~29,000 ranks) take the hardware divide.
    std::uint64_t divide(std::uint64_t x) const {
      __extension__ using Wide = unsigned __int128;
      if (x >> 32) [[unlikely]]
        return x / divisor;
      return magic == 0 ? x : std::uint64_t((Wide(magic) * x) >> 64);
    }
  };
  /// One transfer slot of the ring: the rank at ring position `rank` sends to the one at position
  /// rank+1 in step `step` of `phase`, unit `unit`.
  struct Slot {
    Phase phase;
    std::uint32_t step;
    std::uint32_t unit;
    std::uint32_t rank;
    std::uint32_t part;  ///< 0 send, 1 recv, 2 reduce (ReduceScatter only)
  };
  Slot decode(CompactOpId id) const;
  static void set_rings(CompactSchedule& s, const std::vector<std::vector<int>>& rings);
  CompactOpId id_of(Phase phase, std::uint32_t step, std::uint32_t unit, std::uint32_t rank) const;
  /// The block a slot moves (index into block_first_ / block_count_).
  std::uint32_t block_index(const Slot& s) const;
  /// The Send before / after this slot's Send on its connection, or kNoCompactOp.
  CompactOpId connection_prev(const Slot& s) const;
  CompactOpId connection_next(const Slot& s) const;
  /// The op that last wrote the block this slot's sender sends, or kNoCompactOp (initial data).
  CompactOpId dense_producer(const Slot& s) const;
  OpPair send_deps(const Slot& s) const;
  /// The rank at ring position `pos` of `channel` (the identity without channel rings).
  std::uint32_t rank_at(std::uint16_t channel, std::uint32_t pos) const {
    return ring_rank_.empty() ? pos : ring_rank_[std::size_t(channel % ring_count_) * std::size_t(ranks_) + pos];
  }
  /// The ring position of rank `r` in `channel`.
  std::uint32_t position_of(std::uint16_t channel, std::uint32_t r) const {
    return ring_position_.empty() ? r : ring_position_[std::size_t(channel % ring_count_) * std::size_t(ranks_) + r];
  }
  bool has_rs() const { return collective_ != Collective::AllGather; }
  bool has_ag() const { return collective_ != Collective::ReduceScatter; }

  Collective collective_ = Collective::AllReduce;
  std::string algorithm_;
  Bytes message_;
  Payload payload_;
  std::int64_t elem_ = 1;  ///< bytes per element
  int ranks_ = 0;
  std::size_t channels_ = 1;
  std::vector<EndpointInfo> endpoints_;
  std::uint32_t units_ = 0;
  std::vector<std::uint16_t> unit_channel_;
  std::vector<std::uint32_t> unit_prev_;  ///< previous unit on the same channel, or UINT32_MAX
  std::vector<std::uint32_t> unit_next_;  ///< next unit on the same channel, or UINT32_MAX
  std::vector<std::uint32_t> channel_first_;  ///< per channel: its first unit
  std::vector<std::uint32_t> channel_last_;   ///< per channel: its last unit
  /// Channel rings (CollectiveSpec::channel_rings, channel c uses ring c mod ring_count_), ring-major:
  /// the rank at each position, and each rank's position. Empty when every ring is the identity.
  std::vector<std::uint32_t> ring_rank_;
  std::vector<std::uint32_t> ring_position_;
  std::uint32_t ring_count_ = 1;
  std::vector<std::int64_t> block_first_;  ///< in elements; unit-major: unit u, block b at u * ranks + b
  std::vector<std::int64_t> block_count_;  ///< in elements
  std::uint64_t rs_ops_ = 0;  ///< ops of the reduce-scatter phase (3 per slot)
  std::uint64_t op_count_ = 0;
  std::uint64_t transfers_ = 0;
  std::uint64_t first_step_ops_ = 0;
  bool uniform_steps_ = false;
  FastDivisor by_three_;
  FastDivisor by_ranks_;
  FastDivisor by_units_;
};

/// The compact form of build_schedule(topology, ranks, spec), or nullopt when the spec is not one
/// it covers (see above). Validates the spec like build_schedule (same exceptions).
std::optional<CompactSchedule> build_compact_schedule(const Topology& topology, std::span<const DeviceId> ranks,
                                                      const CollectiveSpec& spec);

}  // namespace ringlab::sim
