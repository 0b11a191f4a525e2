// CompactSchedule: the ring collectives' ops, dependencies and successors in closed form.
//
// Op ids follow the explicit ring builder (collectives_builder.cpp: ring_reduce_scatter, then
// ring_allgather, each step-major: for step k, for unit u, for ring position i, position i sends to
// i+1). Everything below works on ring positions ("rank" in a Slot); op() and endpoint() map a
// position to its rank through the unit's channel ring (the identity without channel rings). With every
// block non-empty each (phase, step, unit, rank) slot emits a fixed number of ops: send, recv, reduce
// in the reduce-scatter, send, recv in the allgather. So
//   id = ((step * units + unit) * ranks + rank) * 3 + part            (reduce-scatter)
//   id = rs_ops + ((step * units + unit) * ranks + rank) * 2 + part   (allgather)
// and the builder's data-flow dependencies become index arithmetic:
//   send   after the op that last wrote its block at the sender (the reduce of the previous step, the
//          last reduce-scatter reduce, or the previous allgather recv) and after the previous send on
//          its connection (sender, receiver, channel);
//   recv   after nothing (it completes when its data arrives);
//   reduce after its recv (the reduce-scatter never writes a block twice at one rank).
#include "ringlab/sim/compact_schedule.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "collectives/collectives_builder.hpp"
#include "collectives/schedule_print.hpp"

namespace ringlab::sim {
namespace {
constexpr std::uint32_t kNone = UINT32_MAX;
std::uint32_t before(std::uint32_t rank, std::uint32_t n) { return rank == 0 ? n - 1 : rank - 1; }
std::uint32_t after(std::uint32_t rank, std::uint32_t n) { return rank + 1 == n ? 0 : rank + 1; }
}  // namespace

CompactSchedule::Slot CompactSchedule::decode(CompactOpId id) const {
  Slot s{};
  std::uint64_t x;  // the slot: (step * units + unit) * ranks + rank
  if (id < rs_ops_) {
    s.phase = Phase::ReduceScatter;
    x = by_three_.divide(id);
    s.part = std::uint32_t(id - 3 * x);
  } else {
    s.phase = Phase::AllGather;
    x = (id - rs_ops_) >> 1;
    s.part = std::uint32_t((id - rs_ops_) & 1);
  }
  const std::uint64_t y = by_ranks_.divide(x);  // step * units + unit: below 2^32
  s.rank = std::uint32_t(x - y * std::uint64_t(ranks_));
  s.step = std::uint32_t(by_units_.divide(y));
  s.unit = std::uint32_t(y - std::uint64_t(s.step) * units_);
  return s;
}

CompactSchedule::StepRef CompactSchedule::step_of(CompactOpId id) const {
  if (id < rs_ops_) return StepRef{Phase::ReduceScatter, std::uint32_t(id / step_stride(Phase::ReduceScatter))};
  return StepRef{Phase::AllGather, std::uint32_t((id - rs_ops_) / step_stride(Phase::AllGather))};
}

CompactOpId CompactSchedule::id_of(Phase phase, std::uint32_t step, std::uint32_t unit, std::uint32_t rank) const {
  const std::uint64_t slot = (std::uint64_t(step) * units_ + unit) * std::uint64_t(ranks_) + rank;
  return phase == Phase::ReduceScatter ? CompactOpId(slot * 3) : CompactOpId(rs_ops_ + slot * 2);
}

std::uint32_t CompactSchedule::block_index(const Slot& s) const {
  const std::uint32_t shift = s.phase == Phase::ReduceScatter ? 1 : 0;
  const std::uint32_t b = s.rank + std::uint32_t(ranks_) - s.step - shift;  // in [1, 2 ranks)
  return b >= std::uint32_t(ranks_) ? b - std::uint32_t(ranks_) : b;
}

CompactOpId CompactSchedule::connection_prev(const Slot& s) const {
  const std::uint16_t ch = unit_channel_[s.unit];
  if (unit_prev_[s.unit] != kNone) return id_of(s.phase, s.step, unit_prev_[s.unit], s.rank);
  if (s.step > 0) return id_of(s.phase, s.step - 1, channel_last_[ch], s.rank);
  if (s.phase == Phase::AllGather && has_rs())
    return id_of(Phase::ReduceScatter, std::uint32_t(ranks_ - 2), channel_last_[ch], s.rank);
  return kNoCompactOp;
}

CompactOpId CompactSchedule::connection_next(const Slot& s) const {
  const std::uint16_t ch = unit_channel_[s.unit];
  if (unit_next_[s.unit] != kNone) return id_of(s.phase, s.step, unit_next_[s.unit], s.rank);
  if (s.step + 2 < std::uint32_t(ranks_)) return id_of(s.phase, s.step + 1, channel_first_[ch], s.rank);
  if (s.phase == Phase::ReduceScatter && has_ag()) return id_of(Phase::AllGather, 0, channel_first_[ch], s.rank);
  return kNoCompactOp;
}

CompactOpId CompactSchedule::dense_producer(const Slot& s) const {
  const std::uint32_t from = before(s.rank, std::uint32_t(ranks_));
  if (s.phase == Phase::ReduceScatter)
    return s.step == 0 ? kNoCompactOp : id_of(Phase::ReduceScatter, s.step - 1, s.unit, from) + 2;
  if (s.step > 0) return id_of(Phase::AllGather, s.step - 1, s.unit, from) + 1;
  return has_rs() ? id_of(Phase::ReduceScatter, std::uint32_t(ranks_ - 2), s.unit, from) + 2 : kNoCompactOp;
}

Endpoint CompactSchedule::endpoint(CompactOpId id) const {
  std::uint64_t x;
  std::uint64_t part;
  if (id < rs_ops_) {
    x = by_three_.divide(id);
    part = id - 3 * x;
  } else {
    x = (id - rs_ops_) >> 1;
    part = (id - rs_ops_) & 1;
  }
  const std::uint64_t y = by_ranks_.divide(x);
  const auto pos = std::uint32_t(x - y * std::uint64_t(ranks_));
  const std::uint32_t at = part == 0 ? pos : after(pos, std::uint32_t(ranks_));  // a Send runs at its rank, the rest at the next
  if (ring_rank_.empty()) return at;
  const auto unit = std::uint32_t(y - by_units_.divide(y) * units_);
  return rank_at(unit_channel_[unit], at);
}

Op CompactSchedule::op(CompactOpId id) const {
  const Slot s = decode(id);
  const std::uint16_t channel = unit_channel_[s.unit];
  const std::uint32_t from = rank_at(channel, s.rank);
  const std::uint32_t next = rank_at(channel, after(s.rank, std::uint32_t(ranks_)));
  const std::size_t block = std::size_t(s.unit) * std::size_t(ranks_) + rank_at(channel, block_index(s));
  Op op;
  op.first = block_first_[block];
  op.count = block_count_[block];
  op.bytes = Bytes{block_count_[block] * elem_};
  // Reduce-scatter transfers land in the receiver's inbox slot of the sender and are reduced from
  // there into its data; allgather transfers overwrite the receiver's data.
  const bool reducing = s.phase == Phase::ReduceScatter;
  op.src = reducing && s.part == 2 ? Buffer::Inbox : Buffer::Data;
  op.dst = reducing && s.part != 2 ? Buffer::Inbox : Buffer::Data;
  op.channel = channel;
  op.step = s.phase == Phase::AllGather && has_rs() ? std::uint32_t(ranks_ - 1) + s.step : s.step;
  switch (s.part) {
    case 0:
      op.kind = OpKind::Send;
      op.at = from;
      op.peer = next;
      op.match = OpId(id + 1);
      // Two deps (data producer, previous send on the connection), except in the first step, which
      // has no producer, and whose first unit per channel has no previous send either.
      op.dep_count = !in_first_step(id) ? 2 : unit_prev_[s.unit] == kNone ? 0 : 1;
      break;
    case 1:
      op.kind = OpKind::Recv;
      op.at = next;
      op.peer = from;
      op.match = OpId(id - 1);
      break;
    default:
      op.kind = OpKind::Reduce;
      op.at = next;
      op.peer = from;  // the inbox slot it reduces from
      op.dep_count = 1;
      break;
  }
  return op;
}

OpPair CompactSchedule::deps(CompactOpId id) const {
  const Slot s = decode(id);
  if (s.part == 0) return send_deps(s);
  OpPair out;
  if (s.part == 2) out.ids[out.count++] = id - 1;
  return out;
}

OpPair CompactSchedule::send_deps(const Slot& s) const {
  OpPair out;
  const CompactOpId dense = dense_producer(s);
  const CompactOpId conn = connection_prev(s);
  if (dense != kNoCompactOp) out.ids[out.count++] = dense;
  if (conn != kNoCompactOp) out.ids[out.count++] = conn;
  if (out.count == 2 && out.ids[0] > out.ids[1]) std::swap(out.ids[0], out.ids[1]);
  return out;
}

OpPair CompactSchedule::successors(CompactOpId id) const {
  OpPair out;
  const Slot s = decode(id);
  const std::uint32_t next = after(s.rank, std::uint32_t(ranks_));
  const bool last_step = s.step + 2 >= std::uint32_t(ranks_);
  switch (s.part) {
    case 0: {
      out.ids[out.count++] = id + 1;
      const CompactOpId conn = connection_next(s);
      if (conn != kNoCompactOp) out.ids[out.count++] = conn;
      break;
    }
    case 1:
      if (s.phase == Phase::ReduceScatter)
        out.ids[out.count++] = id + 1;
      else if (!last_step)
        out.ids[out.count++] = id_of(Phase::AllGather, s.step + 1, s.unit, next);
      break;
    default:
      if (!last_step)
        out.ids[out.count++] = id_of(Phase::ReduceScatter, s.step + 1, s.unit, next);
      else if (has_ag())
        out.ids[out.count++] = id_of(Phase::AllGather, 0, s.unit, next);
      break;
  }
  return out;
}

std::uint64_t CompactSchedule::transfer_index(CompactOpId id) const {
  if (id < rs_ops_) return by_three_.divide(id);
  return rs_ops_ / 3 + (id - rs_ops_) / 2;
}


std::vector<CompactOpId> CompactSchedule::initial_ops() const {
  std::vector<CompactOpId> out;
  const Phase first = has_rs() ? Phase::ReduceScatter : Phase::AllGather;
  for (std::uint32_t u = 0; u < units_; ++u) {
    if (unit_prev_[u] != kNone) continue;
    for (std::uint32_t r = 0; r < std::uint32_t(ranks_); ++r) out.push_back(id_of(first, 0, u, r));
  }
  return out;
}

std::vector<CompactOpId> CompactSchedule::rank_ops(Endpoint e) const {
  std::vector<CompactOpId> out;
  if (e >= endpoints_.size()) return out;
  const auto steps = std::uint32_t(ranks_ - 1);
  for (Phase phase : {Phase::ReduceScatter, Phase::AllGather}) {
    if (phase == Phase::ReduceScatter ? !has_rs() : !has_ag()) continue;
    const std::uint32_t parts = phase == Phase::ReduceScatter ? 3 : 2;
    for (std::uint32_t k = 0; k < steps; ++k)
      for (std::uint32_t u = 0; u < units_; ++u) {
        const std::uint32_t pos = position_of(unit_channel_[u], e);
        const std::uint32_t from = before(pos, std::uint32_t(ranks_));
        const std::size_t first = out.size();
        out.push_back(id_of(phase, k, u, pos));  // its send
        for (std::uint32_t part = 1; part < parts; ++part) out.push_back(id_of(phase, k, u, from) + part);
        std::sort(out.begin() + std::ptrdiff_t(first), out.end());
      }
  }
  return out;
}

Schedule CompactSchedule::expand() const {
  if (op_count_ >= kNoOp)
    throw std::invalid_argument("a schedule of " + std::to_string(op_count_) +
                                " ops has no explicit form: explicit schedules hold fewer than 2^32 ops");
  std::vector<DeviceId> devices;
  for (const EndpointInfo& info : endpoints_) devices.push_back(info.device);
  Schedule schedule(collective_, algorithm_, message_, devices);
  schedule.set_payload(payload_);
  schedule.reserve(op_count_, op_count_);
  for (CompactOpId id = 0; id < op_count_; ++id) {
    const Op o = op(id);
    const OpPair d = deps(id);
    const std::array<OpId, 2> ids{OpId(d.ids[0]), OpId(d.ids[1])};  // below 2^32, checked above
    const std::span<const OpId> dep_ids(ids.data(), d.count);
    if (o.kind == OpKind::Send) {
      schedule.add_transfer(o.at, o.peer, o.src, o.dst, o.mode, o.chunk(), o.bytes, dep_ids, {}, o.channel, o.step);
      ++id;  // the recv it added
    } else {
      schedule.add_local(o.kind, o.at, o.peer, o.src, o.dst, o.chunk(), o.bytes, dep_ids, o.channel, o.step);
    }
  }
  return schedule;
}

void CompactSchedule::print(std::ostream& out, const Topology* topology) const {
  out << "schedule " << to_string(collective_) << " algorithm=" << algorithm_ << " message=" << to_string(message_)
      << " ranks=" << ranks_ << " endpoints=" << endpoints_.size() << " ops=" << op_count_
      << " channels=" << channels_ << '\n';
  for (Endpoint e = 0; e < endpoints_.size(); ++e) print_rank(out, e, topology);
}

void CompactSchedule::print_rank(std::ostream& out, Endpoint e, const Topology* topology) const {
  out << detail::endpoint_label(endpoints_, e, topology) << ":\n";
  for (CompactOpId id : rank_ops(e)) {
    const Op o = op(id);
    detail::print_op_line(out, endpoints_, topology, id, o, Bytes{o.first * elem_}, deps(id).view());
  }
}

/// Keeps the channel rings (validated permutations) unless all are the identity.
void CompactSchedule::set_rings(CompactSchedule& s, const std::vector<std::vector<int>>& rings) {
  const bool identity = std::all_of(rings.begin(), rings.end(), [](const std::vector<int>& ring) {
    for (std::size_t k = 0; k < ring.size(); ++k)
      if (ring[k] != int(k)) return false;
    return true;
  });
  if (identity) return;
  s.ring_count_ = std::uint32_t(rings.size());
  const auto p = std::size_t(s.ranks_);
  s.ring_rank_.resize(rings.size() * p);
  s.ring_position_.resize(rings.size() * p);
  for (std::size_t c = 0; c < rings.size(); ++c)
    for (std::size_t k = 0; k < p; ++k) {
      s.ring_rank_[c * p + k] = std::uint32_t(rings[c][k]);
      s.ring_position_[c * p + std::size_t(rings[c][k])] = std::uint32_t(k);
    }
}

std::optional<CompactSchedule> build_compact_schedule(const Topology& topology, std::span<const DeviceId> ranks,
                                                      const CollectiveSpec& spec) {
  detail::validate_spec(topology, ranks, spec);
  const bool ring_collective = spec.collective == Collective::AllReduce ||
                               spec.collective == Collective::ReduceScatter ||
                               spec.collective == Collective::AllGather;
  if (spec.algorithm != Algorithm::Ring || !ring_collective || ranks.size() < 2) return std::nullopt;
  if (spec.payload.compression.kind != CompressionKind::None) return std::nullopt;
  const detail::Layout layout =
      spec.collective == Collective::AllReduce ? detail::Layout::PieceMajor : detail::Layout::OwnerMajor;
  const int p = int(ranks.size());
  const std::vector<detail::Unit> units = detail::split_units(detail::Range{Bytes{}, spec.message}, p, spec.channels,
                                                              spec.chunk, layout, spec.payload.element_bytes());
  if (units.empty()) return std::nullopt;
  for (const detail::Unit& u : units)
    for (const detail::Range& r : u.blocks)
      if (r.empty()) return std::nullopt;  // the builder skips empty blocks: ids would shift

  CompactSchedule s;
  s.collective_ = spec.collective;
  s.algorithm_ = std::string(to_string(spec.algorithm));
  s.message_ = spec.message;
  s.payload_ = spec.payload;
  s.elem_ = spec.payload.element_bytes();
  s.ranks_ = p;
  for (DeviceId d : ranks) s.endpoints_.push_back(EndpointInfo{d, EndpointRole::Rank});
  s.units_ = std::uint32_t(units.size());
  std::uint16_t top_channel = 0;
  for (const detail::Unit& u : units) top_channel = std::max(top_channel, u.channel);
  s.channels_ = std::size_t(top_channel) + 1;
  s.channel_first_.assign(s.channels_, kNone);
  s.channel_last_.assign(s.channels_, kNone);
  s.unit_prev_.assign(units.size(), kNone);
  s.unit_next_.assign(units.size(), kNone);
  for (std::uint32_t u = 0; u < s.units_; ++u) {
    const std::uint16_t ch = units[u].channel;
    s.unit_channel_.push_back(ch);
    if (s.channel_first_[ch] == kNone) s.channel_first_[ch] = u;
    if (s.channel_last_[ch] != kNone) {
      s.unit_prev_[u] = s.channel_last_[ch];
      s.unit_next_[s.channel_last_[ch]] = u;
    }
    s.channel_last_[ch] = u;
    for (const detail::Range& r : units[u].blocks) {
      s.block_first_.push_back(r.offset.count() / s.elem_);
      s.block_count_.push_back(r.bytes.count() / s.elem_);
    }
  }
  CompactSchedule::set_rings(s, spec.channel_rings);
  s.uniform_steps_ = true;
  for (std::size_t b = 0; b < s.block_count_.size(); ++b)
    if (b % std::size_t(p) != 0 && s.block_count_[b] != s.block_count_[b - 1]) s.uniform_steps_ = false;
  const std::uint64_t slots = std::uint64_t(p - 1) * s.units_ * std::uint64_t(p);
  s.rs_ops_ = s.has_rs() ? slots * 3 : 0;
  s.op_count_ = s.rs_ops_ + (s.has_ag() ? slots * 2 : 0);
  s.transfers_ = (s.has_rs() ? slots : 0) + (s.has_ag() ? slots : 0);
  if (std::uint64_t(p - 1) * s.units_ >= (std::uint64_t(1) << 32)) return std::nullopt;  // decode's 32-bit steps
  s.first_step_ops_ = std::uint64_t(s.units_) * std::uint64_t(p) * (s.has_rs() ? 3 : 2);
  s.by_three_ = CompactSchedule::FastDivisor(3);
  s.by_ranks_ = CompactSchedule::FastDivisor(std::uint32_t(p));
  s.by_units_ = CompactSchedule::FastDivisor(s.units_);
  return s;
}

}  // namespace ringlab::sim
