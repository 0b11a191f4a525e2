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
#include <cassert>
#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/engine_common.hpp"
#include "engine/event_queue.hpp"
#include "engine/explicit_dag.hpp"
#include "engine/flow_network.hpp"

namespace ringlab::sim {
namespace {

using detail::ExplicitDag;

using detail::Event;
using detail::EventId;
using detail::EventQueue;
using detail::FlowId;
using detail::FlowNetwork;
using detail::kNoEvent;
using detail::RouteId;
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
};

struct PathKey {
  DeviceId src = 0;
  DeviceId dst = 0;
  std::uint32_t flow_key = 0;
  bool operator==(const PathKey&) const = default;
};

/// Open-addressing hash map (src, dst, flow key) -> path index; no allocation per lookup.
class PathCache {
 public:
  static constexpr std::uint32_t kMissing = UINT32_MAX;

  std::uint32_t find(const PathKey& key) const {
    if (slots_.empty()) return kMissing;
    for (std::size_t i = hash(key) & mask(); ; i = (i + 1) & mask()) {
      const Slot& slot = slots_[i];
      if (slot.value == kMissing) return kMissing;
      if (slot.key == key) return slot.value;
    }
  }

  void insert(const PathKey& key, std::uint32_t value) {
    if ((size_ + 1) * kLoadDenominator > slots_.size() * kLoadNumerator) grow();
    place(key, value);
    ++size_;
  }

 private:
  struct Slot {
    PathKey key;
    std::uint32_t value = kMissing;
  };
  static constexpr std::size_t kInitialSlots = 1024;
  static constexpr std::size_t kLoadNumerator = 1;  ///< grow beyond a load factor of 1/2
  static constexpr std::size_t kLoadDenominator = 2;

  std::size_t mask() const { return slots_.size() - 1; }
  static std::size_t hash(const PathKey& key) {
    // splitmix64 finaliser over the packed key.
    std::uint64_t x = (std::uint64_t(key.src) << 32 | key.dst) ^ (std::uint64_t(key.flow_key) * 0x9e3779b97f4a7c15ULL);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return std::size_t(x ^ (x >> 31));
  }
  void place(const PathKey& key, std::uint32_t value) {
    std::size_t i = hash(key) & mask();
    while (slots_[i].value != kMissing) i = (i + 1) & mask();
    slots_[i] = Slot{key, value};
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? kInitialSlots : old.size() * 2, Slot{});
    for (const Slot& slot : old)
      if (slot.value != kMissing) place(slot.key, slot.value);
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
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
    const LinkFactors f = options.calibration.factors(link_family(link.kind), options.protocol);
    model.capacity[c] = bytes_per_ps(link.bandwidth) * f.bandwidth;
    model.latency[c] = scaled(link.latency, f.latency);
    model.overhead[c] = scaled(link.overhead, f.latency);
  }
  return model;
}

/// Open-addressing set of op ids (linear probing, backward-shift deletion): the Sends of a compact
/// run that have one of their two predecessors done. Holds only the live window.
class OpSet {
 public:
  OpSet() : slots_(kInitialSlots, kNoOp) {}
  /// Removes `id` when present (true), else inserts it (false).
  bool toggle(OpId id) {
    std::size_t i = home(id);
    for (; slots_[i] != kNoOp; i = (i + 1) & mask()) {
      if (slots_[i] != id) continue;
      erase_at(i);
      return true;
    }
    slots_[i] = id;
    if (2 * ++size_ > slots_.size()) grow();
    return false;
  }

 private:
  static constexpr std::size_t kInitialSlots = 1024;
  std::size_t mask() const { return slots_.size() - 1; }
  /// Identity hash: the waiting Sends are a window of nearby ids (2 or 3 apart), visited roughly in
  /// id order, so consecutive probes stay in the same cache lines; linear probing keeps it correct
  /// for any key set.
  std::size_t home(OpId id) const { return std::size_t(id) & mask(); }
  void erase_at(std::size_t hole) {
    --size_;
    for (std::size_t j = (hole + 1) & mask(); slots_[j] != kNoOp; j = (j + 1) & mask()) {
      const std::size_t want = home(slots_[j]);
      // Move j into the hole unless its home lies cyclically in (hole, j].
      const bool stays = hole <= j ? (hole < want && want <= j) : (hole < want || want <= j);
      if (stays) continue;
      slots_[hole] = slots_[j];
      hole = j;
    }
    slots_[hole] = kNoOp;
  }
  void grow() {
    std::vector<OpId> old(slots_.size() * 2, kNoOp);
    old.swap(slots_);
    for (OpId id : old) {
      if (id == kNoOp) continue;
      std::size_t i = home(id);
      while (slots_[i] != kNoOp) i = (i + 1) & mask();
      slots_[i] = id;
    }
  }
  std::vector<OpId> slots_;
  std::size_t size_ = 0;
};

/// A CompactSchedule's DAG for the engine, in memory linear in ranks: successors and predecessor
/// counts come from the schedule's closed form; the only per-op record is one bit per transfer
/// saying which of a Send's two predecessors finished last (for the critical path).
class CompactDag {
 public:
  explicit CompactDag(const CompactSchedule& schedule)
      : schedule_(schedule), paths_(schedule.endpoints().size() * schedule.channel_count(), UINT32_MAX),
        conn_critical_((schedule.transfer_count() + 63) / 64, 0) {}

  const CompactSchedule& schedule() const { return schedule_; }
  std::uint64_t size() const { return schedule_.op_count(); }
  Op op(OpId id) const { return schedule_.op(id); }
  bool is_recv(OpId id) const { return schedule_.kind(id) == OpKind::Recv; }
  Endpoint endpoint(OpId id) const { return schedule_.endpoint(id); }
  /// As ExplicitDag's. The successors' kinds follow from the completed op's: a Send's are its Recv
  /// and the connection's next Send, a Reduce's is a Send, a Recv's a Reduce or a Send.
  template <class F>
  void for_each_ready_successor(OpId id, F&& ready) {
    const OpKind kind = schedule_.kind(id);
    const OpPair next = schedule_.successors(id);
    for (std::uint32_t i = 0; i < next.count; ++i) {
      const OpId n = next.ids[i];
      const bool is_send = kind == OpKind::Send ? i == 1 : kind == OpKind::Reduce || schedule_.kind(n) == OpKind::Send;
      if (!is_send || send_satisfied(n, kind == OpKind::Send)) ready(n);
    }
  }
  template <class F>
  void for_each_initial(F&& f) const {
    for (OpId id : schedule_.initial_ops()) f(id);
  }
  OpId critical(OpId id) const {
    if (schedule_.kind(id) != OpKind::Send) return id - 1;  // a Recv's Send, a Reduce's Recv
    const OpPair deps = schedule_.deps(id);
    if (deps.count < 2) return deps.count == 0 ? kNoOp : deps.ids[0];
    const std::uint64_t t = schedule_.transfer_index(id);
    const bool conn = (conn_critical_[t / 64] >> (t % 64)) & 1;
    const bool first_is_send = schedule_.kind(deps.ids[0]) == OpKind::Send;
    return conn == first_is_send ? deps.ids[0] : deps.ids[1];
  }
  /// Every Send of a rank on a channel goes to the next rank: one path per (rank, channel).
  std::uint32_t& path_slot(OpId, const Op& op) { return paths_[std::size_t(op.at) * schedule_.channel_count() + op.channel]; }

 private:
  /// One predecessor of Send `id` completed (the connection's previous Send when `by_send`); true
  /// when it is ready now. First-step Sends have one predecessor, every other Send two.
  bool send_satisfied(OpId id, bool by_send) {
    if (schedule_.in_first_step(id)) return true;
    if (!waiting_.toggle(id)) return false;
    if (by_send) {  // the connection's previous Send finished last
      const std::uint64_t t = schedule_.transfer_index(id);
      conn_critical_[t / 64] |= std::uint64_t(1) << (t % 64);
    }
    return true;
  }

  const CompactSchedule& schedule_;
  std::vector<std::uint32_t> paths_;
  OpSet waiting_;
  std::vector<std::uint64_t> conn_critical_;
};

/// One execution of one schedule, over either DAG.
template <class Dag>
class Run {
 public:
  Run(const Topology& topology, const Router& router, const SimOptions& options, const DirectionModel& model,
      Dag& dag)
      : topology_(topology), router_(router), options_(options), model_(model), dag_(dag),
        endpoints_(dag.schedule().endpoints()), network_(model.capacity) {
    if (options.max_flow_rate.bits_per_second() > 0) flow_cap_ = bytes_per_ps(options.max_flow_rate);
    local_rates_.reserve(endpoints_.size());
    for (const EndpointInfo& e : endpoints_)
      local_rates_.push_back(detail::local_rates(options_.calibration, topology_.device(e.device)));
    if (options.record_rank_finish) rank_finish_.assign(std::size_t(dag.schedule().rank_count()), Duration{});
  }

  Result execute();

 private:
  DeviceId device_of(Endpoint e) const { return endpoints_[e].device; }
  void make_ready(OpId op) { ready_.push_back(op); }
  void drain();
  void start(OpId op);
  void start_send(OpId send, const Op& op);
  void start_flow(OpId send, const Op& op);
  void complete(OpId op);
  void dispatch(const Event& event);
  void reallocate();
  void verify_network() const;
  /// SimOptions::record_rank_finish: `op` completed at `now` (completions come in time order).
  void record_finish(OpId op, Duration now) {
    if (const Endpoint e = dag_.endpoint(op); e < rank_finish_.size()) rank_finish_[e] = now;
  }
  /// Progress callback and cancellation check (SimOptions::progress, ::cancel).
  void report_progress() const;
  const Path& path_of(OpId send, const Op& op);
  Duration compute_time(const Op& op) const;
  void set_start(OpId op, Duration t) {
    if (record_) spans_[op].start = t.picoseconds();
  }
  Result collect() const;

  const Topology& topology_;
  const Router& router_;
  const SimOptions& options_;
  const DirectionModel& model_;
  Dag& dag_;
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
  OpId last_completed_ = kNoOp;
  Duration finish_;  ///< time of the last completion
  std::vector<Duration> rank_finish_;  ///< per rank: its last completion (empty unless recorded)

  std::vector<OpId> ready_;
  std::size_t ready_head_ = 0;

  PathCache path_index_;
  std::vector<Path> paths_;
  std::vector<OpId> flow_op_;       ///< per flow slot: the Send it carries
  std::vector<std::uint32_t> flow_path_;
  std::vector<EventId> flow_event_;  ///< per flow slot: its pending completion event
  std::vector<FlowId> changed_;
  std::uint64_t flows_started_ = 0;
};

template <class Dag>
const Path& Run<Dag>::path_of(OpId send, const Op& op) {
  std::uint32_t& slot = dag_.path_slot(send, op);
  if (slot != kNoPath) return paths_[slot];
  const PathKey key{device_of(op.at), device_of(op.peer), op.channel};
  const std::uint32_t found = path_index_.find(key);
  if (found != PathCache::kMissing) {
    slot = found;
    return paths_[found];
  }
  const Route route = router_.route(key.src, key.dst, key.flow_key);
  Path path;
  path.route = network_.add_route(route.directions);
  for (DirectionId c : route.directions) {
    path.overhead = std::max(path.overhead, model_.overhead[c]);
    path.latency += model_.latency[c];
  }
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
void Run<Dag>::complete(OpId op) {
  const Duration now = queue_.now();
  if (record_) spans_[op].end = now.picoseconds();
  finish_ = now;
  if (!rank_finish_.empty()) [[unlikely]]
    record_finish(op, now);
  last_completed_ = op;  // completions come in time order, so this ends as the last to finish
  ++completed_;
  dag_.for_each_ready_successor(op, [&](OpId next) { make_ready(next); });
}

template <class Dag>
void Run<Dag>::drain() {
  while (ready_head_ < ready_.size()) start(ready_[ready_head_++]);
  ready_.clear();
  ready_head_ = 0;
}

template <class Dag>
void Run<Dag>::start(OpId id) {
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
void Run<Dag>::start_send(OpId send, const Op& op) {
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
void Run<Dag>::start_flow(OpId send, const Op& op) {
  const Duration now = queue_.now();
  const Path& path = path_of(send, op);
  const auto path_index = std::uint32_t(&path - paths_.data());
  const FlowId flow = network_.start(path.route, double(op.bytes.count()), now, flow_cap_);
  if (flow >= flow_op_.size()) {
    flow_op_.resize(flow + 1);
    flow_path_.resize(flow + 1);
    flow_event_.resize(flow + 1);
  }
  flow_op_[flow] = send;
  flow_path_[flow] = path_index;
  flow_event_[flow] = kNoEvent;
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
      const OpId send = flow_op_[flow];
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
    queue_.cancel(flow_event_[flow]);
    flow_event_[flow] = queue_.schedule(network_.finish_time(flow, now), flow, kFlowDone);
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
  if (record_) spans_.assign(dag_.size(), Span{});
  dag_.for_each_initial([&](OpId id) { make_ready(id); });
  drain();
  reallocate();
  const bool watched = options_.progress || options_.cancel;
  std::uint64_t until_check = kProgressInterval;
  while (const auto event = queue_.step()) {
    dispatch(*event);
    drain();
    const auto next = queue_.next_time();
    if (!next || *next != event->time) reallocate();  // the instant is complete
    if (watched && --until_check == 0) {
      until_check = kProgressInterval;
      report_progress();
    }
  }
  if (completed_ != dag_.size())
    throw std::logic_error("simulator: schedule did not complete (unsatisfiable dependencies)");
  return collect();
}

template <class Dag>
void Run<Dag>::report_progress() const {
  if (options_.cancel && options_.cancel->load(std::memory_order_relaxed)) throw Cancelled();
  if (options_.progress) options_.progress(Progress{completed_, dag_.size(), queue_.processed()});
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
  for (OpId op = last_completed_; op != kNoOp; op = dag_.critical(op)) result.critical_path.push_back(op);
  std::reverse(result.critical_path.begin(), result.critical_path.end());
  if (record_) {
    result.timeline.reserve(spans_.size());
    for (OpId id = 0; id < spans_.size(); ++id)
      result.timeline.push_back(OpSpan{id, Duration{spans_[id].start}, Duration{spans_[id].end}});
  }
  result.events = queue_.processed();
  result.flows = flows_started_;
  result.rate_updates = network_.reallocations();
  return result;
}

}  // namespace

struct Simulator::Engine {
  Engine(const Topology& t, SimOptions o)
      : topology(t), options(std::move(o)), router(t, options.ecmp, options.ecmp_seed),
        directions(make_direction_model(t, options)) {}
  const Topology& topology;
  SimOptions options;
  Router router;
  DirectionModel directions;
};

Simulator::Simulator(const Topology& topology, SimOptions options)
    : engine_(std::make_unique<Engine>(topology, std::move(options))) {}
Simulator::~Simulator() = default;
Simulator::Simulator(Simulator&&) noexcept = default;
Simulator& Simulator::operator=(Simulator&&) noexcept = default;

Result Simulator::run(const Schedule& schedule) {
  ExplicitDag dag(schedule);
  Run<ExplicitDag> run(engine_->topology, engine_->router, engine_->options, engine_->directions, dag);
  return run.execute();
}

Result Simulator::run(const CompactSchedule& schedule) {
  CompactDag dag(schedule);
  Run<CompactDag> run(engine_->topology, engine_->router, engine_->options, engine_->directions, dag);
  return run.execute();
}

const Topology& Simulator::topology() const { return engine_->topology; }
const SimOptions& Simulator::options() const { return engine_->options; }

}  // namespace ringlab::sim
