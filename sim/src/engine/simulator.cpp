// Simulator: executes a Schedule's dependency DAG with the event queue and the flow network.
//
// Per transfer the run goes: Send ready -> (per-message overhead) -> flow starts on the route ->
// flow drains at its max-min rate -> (summed hop latency) -> data arrives: the Send completes and the
// matched Recv completes as soon as its own dependencies are done as well. Local ops take
// bytes / rate on GPUs and CPUs and nothing on switches (line-rate in-network reduction).
//
// Events per transfer: at most one "flow start" (only when the overhead is non-zero), one "flow
// done" (plus one per rate change of that flow), one "arrival" (only when the latency is non-zero);
// local ops with a non-zero duration add one event. Ops that become ready or complete at the current
// instant are handled on a worklist without events. Rates are reallocated once per instant, after
// every event of that instant has been handled.
#include "ringlab/sim/simulator.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <stdexcept>
#include <string>

#include "collectives/collectives_builder.hpp"
#include "engine/channel_fold.hpp"
#include "engine/engine_common.hpp"
#include "engine/event_queue.hpp"
#include "engine/explicit_dag.hpp"
#include "engine/flow_network.hpp"
#include "engine/path_cache.hpp"
#include "engine/route_memo.hpp"
#include "engine/timing_dag.hpp"

namespace ringlab::sim {
namespace {

using detail::ChannelFold;
using detail::DirectionCosts;
using detail::ExplicitDag;
using detail::TimingDag;

using detail::Event;
using detail::EventId;
using detail::EventQueue;
using detail::FlowId;
using detail::FlowNetwork;
using detail::kNoEvent;
using detail::RouteId;
using detail::PathCache;
using detail::PathKey;
using detail::RouteMemo;
using detail::scaled;

constexpr double kPicosecondsPerSecond = 1e12;
/// Relative slack allowed by check_invariants when comparing a link direction's load with its capacity.
constexpr double kCapacityTolerance = 1e-9;

enum EventTag : std::uint32_t {
  kLocalDone,  ///< target: op; a local op finished
  kFlowStart,  ///< target: send op; the per-message overhead has elapsed
  kFlowDone,   ///< target: flow; its last byte left the source
  kArrival,    ///< target: send op; its data has arrived at the receiver
};

double bytes_per_ps(Bandwidth b) { return b.bytes_per_second() / kPicosecondsPerSecond; }

/// A route resolved for the simulator: the network's route id and its calibrated time costs.
struct Path {
  RouteId route = 0;
  Duration overhead;  ///< max over the links of the per-message overhead, calibrated
  Duration latency;   ///< sum of the hop latencies, calibrated
  double rate_cap = detail::kUnlimitedRate;  ///< bytes per picosecond: the detour's limit and SimOptions'
};

/// Calibrated per-direction numbers, computed once per simulator.
struct DirectionModel {
  std::vector<double> capacity;  ///< bytes per picosecond
  std::vector<Duration> latency;
  std::vector<Duration> overhead;
};

DirectionModel make_direction_model(const Topology& topology, const SimOptions& options) {
  DirectionModel model;
  const std::size_t n = topology.direction_count();
  model.capacity.resize(n);
  model.latency.resize(n);
  model.overhead.resize(n);
  for (DirectionId c = 0; c < n; ++c) {
    const Link& link = topology.link(Topology::direction_link(c));
    const LinkFactors f = options.calibration.factors(link.kind, options.protocol);
    model.capacity[c] = bytes_per_ps(link.bandwidth) * f.bandwidth;
    if (!options.link_latencies) continue;
    model.latency[c] = scaled(link.latency, f.latency);
    model.overhead[c] = scaled(link.overhead, f.latency);
  }
  return model;
}

/// Open-addressing set of op ids (linear probing, backward-shift deletion): the Sends of a compact
/// run that have one of their two predecessors done. Holds only the live window.
class OpSet {
 public:
  OpSet() : slots_(kInitialSlots, kNoCompactOp) {}
  /// Removes `id` when present (true), else inserts it (false).
  bool toggle(CompactOpId id) {
    std::size_t i = home(id);
    for (; slots_[i] != kNoCompactOp; i = (i + 1) & mask()) {
      if (slots_[i] != id) continue;
      erase_at(i);
      return true;
    }
    slots_[i] = id;
    if (2 * ++size_ > slots_.size()) grow();
    return false;
  }

  /// The members, in no particular order.
  void members(std::vector<CompactOpId>& out) const {
    out.clear();
    for (CompactOpId id : slots_)
      if (id != kNoCompactOp) out.push_back(id);
  }
  void clear() {
    std::fill(slots_.begin(), slots_.end(), kNoCompactOp);
    size_ = 0;
  }

 private:
  static constexpr std::size_t kInitialSlots = 1024;
  std::size_t mask() const { return slots_.size() - 1; }
  /// Identity hash: the waiting Sends are a window of nearby ids (2 or 3 apart), visited roughly in
  /// id order, so consecutive probes stay in the same cache lines; linear probing keeps it correct
  /// for any key set.
  std::size_t home(CompactOpId id) const { return std::size_t(id) & mask(); }
  void erase_at(std::size_t hole) {
    --size_;
    for (std::size_t j = (hole + 1) & mask(); slots_[j] != kNoCompactOp; j = (j + 1) & mask()) {
      const std::size_t want = home(slots_[j]);
      // Move j into the hole unless its home lies cyclically in (hole, j].
      const bool stays = hole <= j ? (hole < want && want <= j) : (hole < want || want <= j);
      if (stays) continue;
      slots_[hole] = slots_[j];
      hole = j;
    }
    slots_[hole] = kNoCompactOp;
  }
  void grow() {
    std::vector<CompactOpId> old(slots_.size() * 2, kNoCompactOp);
    old.swap(slots_);
    for (CompactOpId id : old) {
      if (id == kNoCompactOp) continue;
      std::size_t i = home(id);
      while (slots_[i] != kNoCompactOp) i = (i + 1) & mask();
      slots_[i] = id;
    }
  }
  std::vector<CompactOpId> slots_;
  std::size_t size_ = 0;
};

/// One bit per index, stored in pages allocated on first write: memory follows the indices written,
/// not the largest one (a run that skips repeated steps writes few).
class PagedBits {
 public:
  explicit PagedBits(std::uint64_t size) : pages_((size + kPageBits - 1) / kPageBits) {}
  void set(std::uint64_t i) {
    auto& page = pages_[i / kPageBits];
    if (!page) page = std::make_unique<std::uint64_t[]>(kPageBits / 64);  // zeroed
    page[i % kPageBits / 64] |= std::uint64_t(1) << (i % 64);
  }
  bool get(std::uint64_t i) const {
    const auto& page = pages_[i / kPageBits];
    return page && ((page[i % kPageBits / 64] >> (i % 64)) & 1);
  }

 private:
  static constexpr std::uint64_t kPageBits = std::uint64_t(1) << 16;
  std::vector<std::unique_ptr<std::uint64_t[]>> pages_;
};

/// A CompactSchedule's DAG for the engine, in memory linear in ranks: successors and predecessor
/// counts come from the schedule's closed form; the only per-op record is one bit per transfer
/// saying which of a Send's two predecessors finished last (for the critical path), kept for the
/// transfers simulated; the bits of steps skipped by a repeat are those of the period it repeated.
class CompactDag {
 public:
  using Id = CompactOpId;
  static constexpr Id kNone = kNoCompactOp;
  static constexpr bool kRepeats = true;
  explicit CompactDag(const CompactSchedule& schedule)
      : schedule_(schedule), paths_(schedule.endpoints().size() * schedule.channel_count(), UINT32_MAX),
        conn_critical_(schedule.transfer_count()) {}

  const CompactSchedule& schedule() const { return schedule_; }
  std::uint64_t size() const { return schedule_.op_count(); }
  Op op(CompactOpId id) const { return schedule_.op(id); }
  bool is_recv(CompactOpId id) const { return schedule_.kind(id) == OpKind::Recv; }
  Endpoint endpoint(CompactOpId id) const { return schedule_.endpoint(id); }
  /// As ExplicitDag's. The successors' kinds follow from the completed op's: a Send's are its Recv
  /// and the connection's next Send, a Reduce's is a Send, a Recv's a Reduce or a Send.
  template <class F>
  void for_each_ready_successor(CompactOpId id, F&& ready) {
    const OpKind kind = schedule_.kind(id);
    const OpPair next = schedule_.successors(id);
    for (std::uint32_t i = 0; i < next.count; ++i) {
      const CompactOpId n = next.ids[i];
      const bool is_send = kind == OpKind::Send ? i == 1 : kind == OpKind::Reduce || schedule_.kind(n) == OpKind::Send;
      if (!is_send || send_satisfied(n, kind == OpKind::Send)) ready(n);
    }
  }
  template <class F>
  void for_each_initial(F&& f) const {
    for (CompactOpId id : schedule_.initial_ops()) f(id);
  }
  CompactOpId critical(CompactOpId id) const {
    if (schedule_.kind(id) != OpKind::Send) return id - 1;  // a Recv's Send, a Reduce's Recv
    const OpPair deps = schedule_.deps(id);
    if (deps.count < 2) return deps.count == 0 ? kNoCompactOp : deps.ids[0];
    bool conn = false;
    if (!repeated_bit(id, conn)) conn = conn_critical_.get(schedule_.transfer_index(id));
    const bool first_is_send = schedule_.kind(deps.ids[0]) == OpKind::Send;
    return conn == first_is_send ? deps.ids[0] : deps.ids[1];
  }
  /// Every Send of a rank on a channel goes to the next rank: one path per (rank, channel).
  std::uint32_t& path_slot(CompactOpId, const Op& op) { return paths_[std::size_t(op.at) * schedule_.channel_count() + op.channel]; }

  // The repeat shortcut's hooks (see Run::on_marker); explicit schedules have none (kRepeats).
  /// The first marker (rank 0's first Send of the first step), or kNone when no step can repeat:
  /// unequal blocks, or a ring under 5 ranks (no step has the structure of its neighbours).
  Id repeat_start() {
    const CompactSchedule& c = schedule_;
    if (!c.uniform_steps() || c.rank_count() < 5) return kNone;
    logging_ = true;
    using Phase = CompactSchedule::Phase;
    return c.step_marker(c.has_phase(Phase::ReduceScatter) ? Phase::ReduceScatter : Phase::AllGather, 0);
  }
  /// The marker one step later, or kNone after the last step.
  Id next_marker(Id marker) const {
    const CompactSchedule& c = schedule_;
    using Phase = CompactSchedule::Phase;
    const auto at = c.step_of(marker);
    if (at.step + 1 < c.steps_per_phase()) return c.step_marker(at.phase, at.step + 1);
    if (at.phase == Phase::ReduceScatter && c.has_phase(Phase::AllGather)) return c.step_marker(Phase::AllGather, 0);
    return kNone;
  }
  std::uint64_t stride(Id marker) const { return schedule_.step_stride(schedule_.step_of(marker).phase); }
  /// Steps `op` can move within the marker's phase with the same structure: ops of steps
  /// 1 .. ranks-3 (their successors reach ranks-2, the phase's last step).
  std::uint64_t limit(Id op, Id marker) const {
    const auto at = schedule_.step_of(op);
    const auto last = std::uint32_t(schedule_.rank_count() - 3);
    if (at.phase != schedule_.step_of(marker).phase || at.step < 1 || at.step > last) return 0;
    return last - at.step;
  }
  /// Calls f(op, pending) for the Sends with one of their two predecessors done, in id order
  /// when `sorted`.
  template <class F>
  void for_each_partial(bool sorted, F&& f) {
    waiting_.members(scratch_);
    if (sorted) std::sort(scratch_.begin(), scratch_.end());
    for (Id op : scratch_) f(op, 1u);
  }
  void clear_ready_log() { ready_log_.clear(); }
  /// The steps after the logged one repeat it `periods` times, each `stride` ops later.
  void repeat(std::uint64_t stride, std::uint64_t periods) {
    waiting_.members(scratch_);
    waiting_.clear();
    for (Id op : scratch_) waiting_.toggle(op + stride * periods);
    std::sort(ready_log_.begin(), ready_log_.end());
    repeats_.push_back(Repeat{std::move(ready_log_), stride, periods});
    ready_log_.clear();
  }

 private:
  /// One predecessor of Send `id` completed (the connection's previous Send when `by_send`); true
  /// when it is ready now. First-step Sends have one predecessor, every other Send two.
  bool send_satisfied(CompactOpId id, bool by_send) {
    if (schedule_.in_first_step(id)) return true;
    if (!waiting_.toggle(id)) return false;
    if (by_send) conn_critical_.set(schedule_.transfer_index(id));  // the connection's previous Send finished last
    if (logging_) ready_log_.push_back({id, by_send});
    return true;
  }
  /// For a Send that became ready in a repeated period: the bit of the logged Send it repeats.
  bool repeated_bit(CompactOpId id, bool& conn) const {
    for (const Repeat& r : repeats_) {
      if (r.ready.empty() || id <= r.ready.front().first) continue;
      const std::uint64_t lo = r.ready.front().first;
      const std::uint64_t hi = r.ready.back().first;
      const std::uint64_t first = id > hi ? (id - hi + r.stride - 1) / r.stride : 1;
      const std::uint64_t last = std::min<std::uint64_t>((id - lo) / r.stride, r.periods);
      for (std::uint64_t j = std::max<std::uint64_t>(first, 1); j <= last; ++j) {
        const CompactOpId logged = CompactOpId(id - j * r.stride);
        const auto it = std::lower_bound(r.ready.begin(), r.ready.end(), std::pair<CompactOpId, bool>{logged, false});
        if (it == r.ready.end() || it->first != logged) continue;
        conn = it->second;
        return true;
      }
    }
    return false;
  }

  struct Repeat {
    std::vector<std::pair<CompactOpId, bool>> ready;  ///< sorted
    std::uint64_t stride = 0;
    std::uint64_t periods = 0;
  };
  const CompactSchedule& schedule_;
  std::vector<std::uint32_t> paths_;
  OpSet waiting_;
  PagedBits conn_critical_;
  bool logging_ = false;
  std::vector<std::pair<CompactOpId, bool>> ready_log_;
  std::vector<Repeat> repeats_;
  std::vector<CompactOpId> scratch_;
};

/// One execution of one schedule, over either DAG.
/// splitmix64's finaliser: a well-mixed 64-bit hash of a word.
std::uint64_t mix64(std::uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// A repeat snapshot (Run::snapshot): the state that decides a run's future, with times relative
/// to the snapshot and op ids relative to its marker.
struct Snapshot {
  bool valid = false;
  Duration time;
  std::uint64_t marker = 0;        ///< the op whose completion triggered it
  std::uint64_t limit = 0;         ///< strides every op of the state can move keeping its structure
  std::uint64_t period_limit = 0;  ///< the same for the ops completed since the previous marker
  std::vector<std::uint64_t> words;
  std::uint64_t fingerprint = 0;
  FlowNetwork::Totals totals;                          ///< exact snapshots only
  std::uint64_t events = 0, completed = 0, flows = 0;  ///< counters at the snapshot (exact only)
};

template <class Dag>
class Run {
  using Id = typename Dag::Id;  ///< op ids: 32-bit OpId, or 64-bit CompactOpId
  static constexpr Id kNone = Dag::kNone;

 public:
  Run(const Topology& topology, RouteMemo& routes, const SimOptions& options, const DirectionModel& model,
      Dag& dag, const ChannelFold* fold = nullptr)
      : topology_(topology), routes_(routes), options_(options), model_(model), dag_(dag), fold_(fold),
        endpoints_(dag.schedule().endpoints()), network_(model.capacity) {
    if (options.max_flow_rate.bits_per_second() > 0) flow_cap_ = bytes_per_ps(options.max_flow_rate);
    local_rates_.reserve(endpoints_.size());
    for (const EndpointInfo& e : endpoints_)
      local_rates_.push_back(detail::local_rates(options_.calibration, topology_.device(e.device)));
    if (options.record_rank_finish) rank_finish_.assign(std::size_t(dag.schedule().rank_count()), Duration{});
    // Timelines keep a span per op, so every op must be simulated.
    if constexpr (Dag::kRepeats) {
      if (options.exact_shortcuts && !options.record_timeline) {
        next_marker_ = dag.repeat_start();
        repeats_ = next_marker_ != kNone;
      }
    }
  }

  Result execute();

 private:
  DeviceId device_of(Endpoint e) const { return endpoints_[e].device; }
  void make_ready(Id op) { ready_.push_back(op); }
  void drain();
  void start(Id op);
  void start_send(Id send, const Op& op);
  void start_flow(Id send, const Op& op);
  void complete(Id op);
  void dispatch(const Event& event);
  void reallocate();
  void verify_network() const;
  /// SimOptions::record_rank_finish: `op` completed at `now` (completions come in time order).
  void record_finish(Id op, Duration now) {
    if (const Endpoint e = dag_.endpoint(op); e < rank_finish_.size()) rank_finish_[e] = now;
  }
  /// Progress callback and cancellation check (SimOptions::progress, ::cancel).
  void report_progress() const;
  const Path& path_of(Id send, const Op& op);
  Duration compute_time(const Op& op) const;
  void set_start(Id op, Duration t) {
    if (record_) spans_[op].start = t.picoseconds();
  }
  Result collect() const;
  // The exact repeat shortcut.
  void on_marker();
  void snapshot(Snapshot& out, bool exact);
  std::uint64_t relative(Id op, Snapshot& s) const;
  bool try_repeat(const Snapshot& a, const Snapshot& b);

  const Topology& topology_;
  RouteMemo& routes_;
  const SimOptions& options_;
  const DirectionModel& model_;
  Dag& dag_;
  const ChannelFold* fold_;  ///< the schedule is this fold's quotient: routes carry their orbits
  std::vector<DirectionId> folded_;  ///< scratch for ChannelFold::fold_route
  std::span<const EndpointInfo> endpoints_;
  std::vector<detail::LocalRates> local_rates_;  ///< per endpoint

  EventQueue queue_;
  FlowNetwork network_;
  double flow_cap_ = detail::kUnlimitedRate;

  struct Span {
    std::int64_t start = 0;  ///< picoseconds; a Recv's start is its flow's start
    std::int64_t end = 0;
  };
  static constexpr std::uint32_t kNoPath = UINT32_MAX;

  bool record_ = false;     ///< keep per-op spans (Result::timeline)
  std::vector<Span> spans_;  ///< per op when record_
  std::uint64_t completed_ = 0;
  Id last_completed_ = kNone;
  Duration finish_;  ///< time of the last completion
  std::vector<Duration> rank_finish_;  ///< per rank: its last completion (empty unless recorded)

  std::vector<Id> ready_;
  std::size_t ready_head_ = 0;

  PathCache path_index_;
  std::vector<Path> paths_;
  std::vector<Id> flow_op_;       ///< per flow slot: the Send it carries
  std::vector<std::uint32_t> flow_path_;
  std::vector<EventId> flow_event_;  ///< per flow slot: its pending completion event
  std::vector<Duration> flow_finish_;  ///< per flow slot: its completion time
  // A completion that moved later keeps its pending event, which re-arms when it fires early
  // (explicit schedules only; see reallocate()).
  std::vector<Duration> flow_event_at_;     ///< per flow slot: the time of its pending event
  std::vector<std::uint64_t> flow_rearm_;  ///< per flow slot: 0, or the sequence of its completion
  std::uint64_t early_events_ = 0;         ///< pending events that fired early and re-armed
  std::vector<FlowId> changed_;
  std::uint64_t flows_started_ = 0;

  // Exact repeat shortcut state (see on_marker).
  bool repeats_ = false;
  Id next_marker_ = kNone;  ///< the op whose completion triggers the next snapshot
  bool marker_hit_ = false;
  std::uint64_t period_limit_ = UINT64_MAX;  ///< least limit of the ops completed since the last snapshot
  static constexpr int kMaxProbeGap = 32;  ///< rounds between fingerprint pairs, at most
  int probe_gap_ = 1;
  int probe_countdown_ = 1;
  Snapshot previous_, current_;  ///< fingerprints: the first of a pair, scratch for the second
  Snapshot candidate_, exact_;    ///< full states: a candidate for a repeat, and the step after it
  std::vector<std::uint32_t> direction_mark_;  ///< per direction: epoch it was last written in a snapshot
  std::uint32_t direction_mark_epoch_ = 0;
  std::vector<Event> events_scratch_;
  std::vector<Id> ops_scratch_;
  std::uint64_t repeated_events_ = 0;
};

template <class Dag>
const Path& Run<Dag>::path_of(Id send, const Op& op) {
  std::uint32_t& slot = dag_.path_slot(send, op);
  if (slot != kNoPath) return paths_[slot];
  const PathKey key{device_of(op.at), device_of(op.peer), op.channel};
  const std::uint32_t found = path_index_.find(key);
  if (found != PathCache::kMissing) {
    slot = found;
    return paths_[found];
  }
  const detail::RouteView view = routes_.route(key.src, key.dst, op.channel);
  const std::span<const DirectionId> route = view.directions;
  Path path;
  if (fold_) {
    assert(view.costs.empty() && "no fold where routes have costs (find_fold)");
    fold_->fold_route(route, folded_);
    path.route = network_.add_route(folded_);
  } else {
    path.route = network_.add_route(route, view.costs);
  }
  for (DirectionId c : route) {
    path.overhead = std::max(path.overhead, model_.overhead[c]);
    path.latency += model_.latency[c];
  }
  path.rate_cap = flow_cap_;
  if (view.max_rate.bits_per_second() > 0) path.rate_cap = std::min(path.rate_cap, bytes_per_ps(view.max_rate));
  paths_.push_back(path);
  slot = std::uint32_t(paths_.size() - 1);
  path_index_.insert(key, slot);
  return paths_.back();
}

template <class Dag>
Duration Run<Dag>::compute_time(const Op& op) const {
  return detail::local_op_time(local_rates_[op.at], options_.calibration, op);
}

template <class Dag>
void Run<Dag>::complete(Id op) {
  const Duration now = queue_.now();
  if (record_) spans_[op].end = now.picoseconds();
  finish_ = now;
  if (!rank_finish_.empty()) [[unlikely]]
    record_finish(op, now);
  last_completed_ = op;  // completions come in time order, so this ends as the last to finish
  ++completed_;
  if constexpr (Dag::kRepeats) {
    if (repeats_) {
      marker_hit_ |= op == next_marker_;
      period_limit_ = std::min(period_limit_, dag_.limit(op, next_marker_));
    }
  }
  dag_.for_each_ready_successor(op, [&](Id next) { make_ready(next); });
}

template <class Dag>
void Run<Dag>::drain() {
  while (ready_head_ < ready_.size()) start(ready_[ready_head_++]);
  ready_.clear();
  ready_head_ = 0;
}

template <class Dag>
void Run<Dag>::start(Id id) {
  if (dag_.is_recv(id)) {  // its deps are done and its data has arrived
    complete(id);
    return;
  }
  const auto& op = dag_.op(id);
  const Duration now = queue_.now();
  set_start(id, now);
  if (op.kind == OpKind::Send) {
    start_send(id, op);
    return;
  }
  const Duration busy = compute_time(op);
  if (busy == Duration{}) {
    complete(id);
    return;
  }
  queue_.schedule(now + busy, id, kLocalDone);
}

template <class Dag>
void Run<Dag>::start_send(Id send, const Op& op) {
  const Duration now = queue_.now();
  if (device_of(op.at) == device_of(op.peer)) {  // same device: nothing crosses a link
    set_start(op.match, now);
    complete(send);
    return;
  }
  const Path& path = path_of(send, op);
  if (op.bytes.count() == 0) {
    set_start(op.match, now + path.overhead);
    const Duration arrival = now + path.overhead + path.latency;
    if (arrival == now)
      complete(send);
    else
      queue_.schedule(arrival, send, kArrival);
    return;
  }
  if (path.overhead == Duration{})
    start_flow(send, op);
  else
    queue_.schedule(now + path.overhead, send, kFlowStart);
}

template <class Dag>
void Run<Dag>::start_flow(Id send, const Op& op) {
  const Duration now = queue_.now();
  const Path& path = path_of(send, op);
  const auto path_index = std::uint32_t(&path - paths_.data());
  const FlowId flow = network_.start(path.route, double(op.bytes.count()), now, path.rate_cap);
  if (flow >= flow_op_.size()) {
    flow_op_.resize(flow + 1);
    flow_path_.resize(flow + 1);
    flow_event_.resize(flow + 1);
    flow_finish_.resize(flow + 1);
    flow_event_at_.resize(flow + 1);
    flow_rearm_.resize(flow + 1);
  }
  flow_op_[flow] = send;
  flow_path_[flow] = path_index;
  flow_event_[flow] = kNoEvent;
  flow_rearm_[flow] = 0;
  set_start(op.match, now);
  ++flows_started_;
}

template <class Dag>
void Run<Dag>::dispatch(const Event& event) {
  switch (EventTag(event.tag)) {
    case kLocalDone:
    case kArrival: complete(event.target); break;
    case kFlowStart: start_flow(event.target, dag_.op(event.target)); break;
    case kFlowDone: {
      const FlowId flow = event.target;
      if constexpr (!Dag::kRepeats) {
        if (flow_rearm_[flow] != 0) {  // earlier than the flow's completion: on to it, not counted
          flow_event_[flow] = queue_.schedule_reserved(flow_finish_[flow], flow_rearm_[flow], flow, kFlowDone);
          flow_event_at_[flow] = flow_finish_[flow];
          flow_rearm_[flow] = 0;
          ++early_events_;
          break;
        }
      }
      const Id send = flow_op_[flow];
      const Duration latency = paths_[flow_path_[flow]].latency;
      flow_event_[flow] = kNoEvent;
      network_.finish(flow, event.time);
      if (latency == Duration{})
        complete(send);
      else
        queue_.schedule(event.time + latency, send, kArrival);
      break;
    }
  }
}

template <class Dag>
void Run<Dag>::reallocate() {
  if (!network_.dirty()) return;
  const Duration now = queue_.now();
  changed_.clear();
  network_.reallocate(now, changed_);
  for (FlowId flow : changed_) {
    // A new rate often leaves the finish on the same picosecond (10 % of the reschedules of a
    // 216-GPU NCCL tree, half of nccl1024's): the pending event stays.
    const Duration finish = network_.finish_time(flow, now);
    if (flow_finish_[flow] == finish && queue_.is_pending(flow_event_[flow])) continue;
    if constexpr (!Dag::kRepeats) {
      // Later than the pending event: that stays, and re-arms at `finish` when it fires (dispatch())
      // with the sequence a schedule() would take now, so the events of every instant keep the
      // order of an immediate reschedule. A flow slowed by every arrival is rescheduled many times
      // before its event comes up (a 216-GPU NCCL tree: 20M reschedules of 826k flows); each was a
      // cancelled key and a new instant in the queue.
      if (queue_.is_pending(flow_event_[flow]) && finish > flow_event_at_[flow]) {
        flow_finish_[flow] = finish;
        flow_rearm_[flow] = queue_.reserve_sequence();
        continue;
      }
      flow_rearm_[flow] = 0;
      flow_event_at_[flow] = finish;
    }
    queue_.cancel(flow_event_[flow]);
    flow_event_[flow] = queue_.schedule(finish, flow, kFlowDone);
    flow_finish_[flow] = finish;
  }
  if (options_.check_invariants) verify_network();
}

template <class Dag>
void Run<Dag>::verify_network() const {
  if (const auto c = network_.find_overloaded(kCapacityTolerance))
    throw std::logic_error("simulator invariant: link direction " + topology_.direction_name(*c) + " carries " +
                           std::to_string(network_.load(*c)) + " B/ps over its capacity " +
                           std::to_string(network_.capacity(*c)) + " B/ps");
  for (FlowId flow = 0; flow < flow_op_.size(); ++flow)
    if (network_.is_active(flow) && !(network_.rate(flow) > 0))
      throw std::logic_error("simulator invariant: flow of op #" + std::to_string(flow_op_[flow]) + " has no rate");
}

template <class Dag>
Result Run<Dag>::execute() {
  record_ = options_.record_timeline;
  if (record_ && dag_.size() >= kNoOp)  // OpSpan holds a 32-bit OpId
    throw std::invalid_argument("a timeline needs fewer than 2^32 ops; this schedule has " + std::to_string(dag_.size()));
  if (record_) spans_.assign(dag_.size(), Span{});
  if (options_.start_latency > Duration{}) queue_.advance(options_.start_latency);
  dag_.for_each_initial([&](Id id) { make_ready(id); });
  drain();
  reallocate();
  const bool watched = options_.progress || options_.cancel;
  std::uint64_t until_check = kProgressInterval;
  while (const auto event = queue_.step()) {
    dispatch(*event);
    drain();
    const auto next = queue_.next_time();
    if (!next || *next != event->time) {  // the instant is complete
      reallocate();
      if constexpr (Dag::kRepeats)
        if (marker_hit_) on_marker();
    }
    if (watched && --until_check == 0) {
      until_check = kProgressInterval;
      report_progress();
    }
  }
  if (completed_ != dag_.size())
    throw std::logic_error("simulator: schedule did not complete (unsatisfiable dependencies)");
  return collect();
}

// The exact repeat shortcut (compact ring schedules: Dag::kRepeats). A ring on a symmetric fabric
// settles into lock step: each round (ring step) has the previous round's events, flows and rates,
// shifted by a fixed time and by CompactSchedule::step_stride op ids. Once per round (when the round's marker op completes, at the end of
// that instant) the run looks at everything that decides its future, relative to that time and
// marker: the pending events in firing order with their targets, every active flow's remaining
// bytes, rate and settle time, the order of the flows on every shared link direction, and the ops
// waiting for more predecessors with their counts. A cheap fingerprint of it is compared round to
// round; when two match, the full state is kept and compared word for word with the next round's.
// If equal, the run from here is the last round's run shifted, for as long as the ops involved keep
// the same structure one stride apart (Dag::limit: same fields, dependencies and successors
// shifted). The run then moves its state forward by that many whole rounds, adds the skipped
// rounds' statistics, and simulates on event by event: times, statistics, critical path and rank
// finishes are identical to the full run's, to the picosecond (tests/sim/repeat_test.cpp). A round
// that differs in anything (a straggler, a heterogeneous link, a phase boundary, a transient still
// settling) is simulated.
template <class Dag>
std::uint64_t Run<Dag>::relative(Id op, Snapshot& s) const {
  s.limit = std::min(s.limit, dag_.limit(op, Id(s.marker)));
  return std::uint64_t(op) - s.marker;
}

template <class Dag>
void Run<Dag>::snapshot(Snapshot& s, bool exact) {
  const std::int64_t now = queue_.now().picoseconds();
  s.valid = true;
  s.time = queue_.now();
  s.marker = next_marker_;
  s.limit = UINT64_MAX;
  s.period_limit = period_limit_;
  s.words.clear();
  auto word = [&](auto x) { s.words.push_back(std::bit_cast<std::uint64_t>(x)); };
  // Events in firing order, with their flows; then each shared direction's flow order, in the order
  // the flows reach it.
  ++direction_mark_epoch_;
  if (direction_mark_.size() != network_.direction_count()) direction_mark_.assign(network_.direction_count(), 0);
  queue_.pending_events(events_scratch_);
  word(events_scratch_.size());
  for (const Event& e : events_scratch_) {
    word(e.time.picoseconds() - now);
    word(std::uint64_t(e.tag));
    if (e.tag != kFlowDone) {
      word(relative(Id(e.target), s));
      continue;
    }
    const FlowNetwork::FlowState f = network_.flow_state(FlowId(e.target));
    word(relative(flow_op_[e.target], s));
    word(f.remaining);
    word(f.rate);
    word(f.settled - now);
    for (DirectionId c : network_.route(network_.flow_route(FlowId(e.target)))) {
      if (network_.flow_count(c) < 2 || direction_mark_[c] == direction_mark_epoch_) continue;
      direction_mark_[c] = direction_mark_epoch_;
      word(std::uint64_t(c));
      network_.for_each_flow_on(c, [&](FlowId other) { word(relative(flow_op_[other], s)); });
    }
  }
  // The ops waiting for more predecessors, a set: listed when exact, else summed into the
  // fingerprint (no sort).
  std::uint64_t count = 0, sum = 0;
  dag_.for_each_partial(exact, [&](Id op, std::uint32_t pending) {
    ++count;
    const std::uint64_t rel = relative(op, s);
    if (exact) {
      word(rel);
      word(std::uint64_t(pending));
    } else {
      sum += mix64(rel ^ (std::uint64_t(pending) << 56));
    }
  });
  word(count);
  word(sum);
  s.fingerprint = 0x9e3779b97f4a7c15ULL;
  for (std::uint64_t w : s.words) s.fingerprint = mix64(s.fingerprint ^ w);
  if (!exact) return;
  network_.totals(queue_.now(), s.totals);
  s.events = queue_.processed();
  s.completed = completed_;
  s.flows = flows_started_;
}

template <class Dag>
void Run<Dag>::on_marker() {
  marker_hit_ = false;
  // A candidate (the exact state of the previous round, whose fingerprint matched its
  // predecessor's): repeat if this round's exact state equals it.
  bool repeated = false;
  if (candidate_.valid) {
    snapshot(exact_, true);
    repeated = try_repeat(candidate_, exact_);
    candidate_.valid = false;
  }
  // Fingerprints come in pairs of consecutive rounds. After a pair that differs, the next pair
  // waits twice as many rounds (up to kMaxProbeGap), so a run that never repeats pays a few
  // per cent; a match resets the wait.
  const bool second_of_pair = previous_.valid;
  if (!repeated && (second_of_pair || --probe_countdown_ <= 0)) {
    snapshot(current_, false);
    if (second_of_pair) {
      const bool match = current_.fingerprint == previous_.fingerprint &&
                         current_.marker == previous_.marker + dag_.stride(Id(previous_.marker));
      if (match) snapshot(candidate_, true);
      probe_gap_ = match ? 1 : std::min(2 * probe_gap_, kMaxProbeGap);
      probe_countdown_ = probe_gap_;
      previous_.valid = false;
    } else {
      std::swap(previous_, current_);
    }
  } else if (repeated) {
    previous_.valid = false;  // the state moved: nothing to compare the next round with
  }
  next_marker_ = dag_.next_marker(next_marker_);
  repeats_ = next_marker_ != kNone;
  period_limit_ = UINT64_MAX;
  dag_.clear_ready_log();
}

template <class Dag>
bool Run<Dag>::try_repeat(const Snapshot& a, const Snapshot& b) {
  const std::uint64_t stride = dag_.stride(Id(a.marker));
  if (a.marker + stride != b.marker || a.words != b.words) return false;
  // Every op involved in the last round must keep its structure for each round skipped: those of
  // the state at its start (a.limit) and end (b's are one round on, so + 1) and those completed.
  const std::uint64_t periods =
      std::min({a.limit, b.limit == UINT64_MAX ? b.limit : b.limit + 1, b.period_limit});
  if (periods < 2) return false;
  const Duration shift = Duration{(b.time - a.time).picoseconds() * std::int64_t(periods)};
  const std::uint64_t op_shift = stride * periods;

  const std::vector<Event> events = queue_.take_pending();
  queue_.advance(b.time + shift);
  for (const Event& e : events) {
    if (e.tag == kFlowDone) {
      flow_event_[e.target] = queue_.schedule(e.time + shift, e.target, e.tag);
      flow_finish_[e.target] = e.time + shift;
      flow_op_[e.target] = Id(flow_op_[e.target] + op_shift);
    } else {
      queue_.schedule(e.time + shift, e.target + op_shift, e.tag);
    }
  }
  network_.repeat(shift, a.totals, b.totals, periods);
  dag_.repeat(stride, periods);

  const std::uint64_t events_per_period = b.events - a.events;
  queue_.count_processed(periods * events_per_period);
  repeated_events_ += periods * events_per_period;
  completed_ += periods * (b.completed - a.completed);
  flows_started_ += periods * (b.flows - a.flows);
  finish_ += shift;
  last_completed_ = Id(last_completed_ + op_shift);
  for (Duration& t : rank_finish_)
    if (t > a.time) t += shift;
  next_marker_ = Id(next_marker_ + op_shift);
  return true;
}

template <class Dag>
void Run<Dag>::report_progress() const {
  if (options_.cancel && options_.cancel->load(std::memory_order_relaxed)) throw Cancelled();
  if (options_.progress) options_.progress(Progress{completed_, dag_.size(), queue_.processed() - early_events_});
}

template <class Dag>
Result Run<Dag>::collect() const {
  const auto& schedule = dag_.schedule();
  Result result;
  result.collective = schedule.collective();
  result.algorithm = schedule.algorithm();
  result.message = schedule.message();
  result.ranks = schedule.rank_count();
  const std::int64_t finish = finish_.picoseconds();
  result.time = finish_;
  result.rank_finish = rank_finish_;
  result.source.engine = "ringlab-flow " RINGLAB_VERSION;

  for (DirectionId c = 0; c < network_.direction_count(); ++c) {
    const double bytes = network_.direction_bytes(c);
    if (bytes <= 0) continue;
    DirectionStats stats;
    stats.direction = c;
    stats.bytes = Bytes::from_double(bytes);
    stats.busy = network_.direction_busy(c, finish_);
    const double capacity_bytes = network_.capacity(c) * double(finish);
    stats.utilisation = capacity_bytes > 0 ? std::min(1.0, bytes / capacity_bytes) : 0.0;
    result.directions.push_back(stats);
  }
  result.bottlenecks = detail::rank_bottlenecks(result.directions, options_.bottleneck_count);

  // From the op that completed last (the latest among equal end times, in processing order) back
  // through the predecessor that made each op ready.
  for (Id op = last_completed_; op != kNone; op = dag_.critical(op)) result.critical_path.push_back(op);
  std::reverse(result.critical_path.begin(), result.critical_path.end());
  if (record_) {
    result.timeline.reserve(spans_.size());
    for (Id id = 0; id < spans_.size(); ++id)
      result.timeline.push_back(OpSpan{OpId(id), Duration{spans_[id].start}, Duration{spans_[id].end}});
  }
  result.events = queue_.processed() - early_events_;
  result.events_repeated = repeated_events_;
  result.flows = flows_started_;
  result.rate_updates = network_.reallocations();
  return result;
}

}  // namespace

struct Simulator::Engine {
  Engine(const Topology& t, SimOptions o, std::shared_ptr<RouteMemo> memo)
      : topology(t), options(std::move(o)),
        routes(memo ? std::move(memo) : std::make_shared<RouteMemo>(t, options)),
        directions(make_direction_model(t, options)) {
    if (!routes->serves(t, options))
      throw std::invalid_argument("Simulator: the shared routes were made for another topology or routing");
  }
  const Topology& topology;
  SimOptions options;
  std::shared_ptr<RouteMemo> routes;
  DirectionModel directions;

  /// ChannelFold::find with this engine's routes and link costs.
  std::optional<ChannelFold> find_fold(const Schedule& schedule) const {
    const auto route = [&](const Op& send) {
      const DeviceId src = schedule.endpoints()[send.at].device, dst = schedule.endpoints()[send.peer].device;
      return src == dst ? std::span<const DirectionId>{} : routes->directions(src, dst, send.channel);
    };
    const auto prefetch = [&](const Op& send, std::span<const std::uint16_t> channels) {
      const DeviceId src = schedule.endpoints()[send.at].device, dst = schedule.endpoints()[send.peer].device;
      if (src != dst) routes->route_channels(src, dst, channels);
    };
    auto fold = ChannelFold::find(schedule, route, DirectionCosts{directions.capacity, directions.latency, directions.overhead},
                                  prefetch);
    // A proved fold has routed every send. Its orbits map directions, not the costs a detour puts on
    // some flows' bytes (nccl_transport.hpp's PCIe overhead) nor its rate limits (the socket
    // transport's), so a run with either is not folded.
    if (fold && routes->has_costs()) return std::nullopt;
    return fold;
  }
};

Simulator::Simulator(const Topology& topology, SimOptions options)
    : engine_(std::make_unique<Engine>(topology, std::move(options), nullptr)) {}
Simulator::Simulator(const Topology& topology, SimOptions options, std::shared_ptr<detail::RouteMemo> routes)
    : engine_(std::make_unique<Engine>(topology, std::move(options), std::move(routes))) {}
Simulator::~Simulator() = default;
Simulator::Simulator(Simulator&&) noexcept = default;
Simulator& Simulator::operator=(Simulator&&) noexcept = default;

Result Simulator::run(const Schedule& schedule) {
  const Engine& e = *engine_;
  if (e.options.fold_channels && !e.options.record_timeline) {
    if (const auto fold = e.find_fold(schedule)) {
      ExplicitDag dag(fold->quotient());
      Run<ExplicitDag> run(e.topology, *e.routes, e.options, e.directions, dag, &*fold);
      Result result = run.execute();
      fold->unfold(result, e.options.bottleneck_count);
      return result;
    }
  }
  ExplicitDag dag(schedule);
  Run<ExplicitDag> run(e.topology, *e.routes, e.options, e.directions, dag);
  return run.execute();
}

namespace {

/// Pieces per channel from which building the quotient directly pays for its probe (below, the
/// full schedule is small and ChannelFold::find proves the fold on it).
constexpr std::int64_t kQuotientMinPieces = 8;

/// Keep masks over `channels` piece channels for a fold of `order`: c mod P < P / order, for P all of
/// them or half (the moves ChannelFold::find tries, read on the pieces rather than the ops).
std::vector<std::vector<bool>> keep_candidates(int channels, std::uint32_t order) {
  std::vector<std::vector<bool>> out;
  for (const int period : {channels, channels % 2 == 0 ? channels / 2 : 0}) {
    if (period == 0 || period % int(order) != 0) continue;
    std::vector<bool> keep(std::size_t(channels), false);
    for (int c = 0; c < channels; ++c) keep[std::size_t(c)] = c % period < period / int(order);
    out.push_back(std::move(keep));
  }
  return out;
}

}  // namespace

// A long pipeline's full schedule is what the channel fold costs (nccl1024: 11.5M ops, most of the
// time and memory), so it is not built. A probe of the same spec with two pieces per channel (same
// ranks, channels, groups and routes) is built in full and ChannelFold::find proves its fold; the
// keep mask whose filtered build (detail::build_channels) is op for op that fold's quotient is
// taken; and the real size is built with that mask alone, provided every split is even over the
// channels (ChannelFilter::uniform), in the run's lean form (TimingOps: 24 bytes an op instead of
// 56, the dependency lists turned into TimingDag's successor lists and freed). The builders treat every channel alike apart from its pieces
// and routes, so equal pieces and the probe's proof make the real quotient exact;
// tests/sim/channel_fold_test.cpp compares it with full runs. Anything else: nullopt.
std::optional<Result> Simulator::run_quotient(std::span<const DeviceId> ranks, const CollectiveSpec& spec) {
  const Engine& e = *engine_;
  if (!e.options.fold_channels || e.options.record_timeline || spec.algorithm == Algorithm::Nccl ||
      spec.payload.sparse() || spec.channels < 2 || spec.chunk.count() <= 0)
    return std::nullopt;
  if (spec.message.count() / spec.channels / spec.chunk.count() < kQuotientMinPieces) return std::nullopt;
  detail::validate_spec(e.topology, ranks, spec);
  const std::int64_t elem = spec.payload.element_bytes();
  CollectiveSpec probe_spec = spec;
  const std::int64_t half = (spec.message.count() / spec.channels + 1) / 2;
  probe_spec.chunk = Bytes{(half + elem - 1) / elem * elem};
  std::optional<ChannelFold> fold;
  detail::ChannelFilter filter;
  {
    const Schedule probe = build_schedule(e.topology, ranks, probe_spec);
    fold = e.find_fold(probe);
    if (!fold) return std::nullopt;
    for (std::vector<bool>& candidate : keep_candidates(spec.channels, fold->order())) {
      detail::ChannelFilter probe_filter{candidate};
      const Schedule kept = detail::build_channels(e.topology, ranks, probe_spec, probe_filter);
      if (!detail::same_ops(kept, fold->quotient())) continue;
      filter.keep = std::move(candidate);
      // Ops and dependencies grow with the pieces kept: the probe's ratios size the real build.
      std::size_t deps = 0;
      for (const Op& op : kept.ops()) deps = std::max<std::size_t>(deps, std::size_t(op.dep_begin) + op.dep_count);
      if (probe_filter.kept > 0) {
        filter.ops_per_kept = double(kept.ops().size()) / double(probe_filter.kept);
        filter.deps_per_kept = double(deps) / double(probe_filter.kept);
      }
      break;
    }
    if (filter.keep.empty()) return std::nullopt;
    fold->forget_schedules();  // the probe goes here; the fold keeps only its direction orbits
  }
  detail::TimingOps quotient = detail::build_channels_timing(e.topology, ranks, spec, filter);
  if (!filter.uniform) return std::nullopt;
  TimingDag dag(std::move(quotient));
  Run<TimingDag> run(e.topology, *e.routes, e.options, e.directions, dag, &*fold);
  Result result = run.execute();
  fold->unfold_links(result, e.options.bottleneck_count);
  return result;
}

Result Simulator::run(std::span<const DeviceId> ranks, const CollectiveSpec& spec) {
  if (auto result = run_quotient(ranks, spec)) return std::move(*result);
  return run(build_schedule(engine_->topology, ranks, spec));
}

Result Simulator::run(const CompactSchedule& schedule) {
  CompactDag dag(schedule);
  Run<CompactDag> run(engine_->topology, *engine_->routes, engine_->options, engine_->directions, dag);
  return run.execute();
}

const Topology& Simulator::topology() const { return engine_->topology; }
const SimOptions& Simulator::options() const { return engine_->options; }

}  // namespace ringlab::sim
