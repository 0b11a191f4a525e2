// FlowNetwork: flows on link directions sharing bandwidth max-min fairly (private to ringlab_sim).
//
// Directions are link directions with a capacity in bytes per picosecond. A flow moves a number of
// bytes along a route (a list of directions) at a rate that the network assigns by progressive
// filling: repeatedly find the direction (or per-flow rate cap) with the smallest fair share, freeze
// its unfrozen flows at that share, and subtract it from every direction they cross. The allocation is
// exact and unique. A flow may take more of a direction than its rate: its weight there (the times a
// folded flow crosses it, times a per-byte cost such as NCCL's PCIe overhead through an Intel CPU), so
// a direction holds sum(weight x rate) <= capacity and its share is residual / sum(unfrozen weights).
//
// Changes are batched: start()/finish() only record which directions were touched; reallocate() then
// recomputes, in one pass, the connected components (flows linked by shared directions) that contain a
// touched direction. Max-min allocations decompose over those components, so the incremental update
// is exact, and in a ring each flow's component is a handful of directions.
//
// Slack directions do not link components: a direction whose flows could all run at their upper
// bounds at once (each flow's cap or its route's narrowest capacity, summed, within the capacity)
// never limits any rate, so the max-min allocation without it is feasible with it and therefore the
// same allocation. A non-blocking fabric's spine links are typically slack, which keeps components
// to a node and its NICs instead of the whole cluster. (A flow's narrowest direction is never slack,
// so every flow keeps a direction that bounds it.) Nor do twins: directions that exactly the
// same routes cross, each as often (a GPU's PCIe uplink, its switch's port to the NIC, the NIC's
// port), carry the same flows at every instant, so the narrowest of them (least capacity, then least
// id) is at least as tight as the others at every step of the filling, which leaves them out. Twins
// are kept by partition refinement as routes are added; a route that crosses only some of them splits
// the class, so nothing about future routes is assumed. Flows whose rate did not
// change keep their rate and their progress bookkeeping untouched; the caller only reschedules the
// completions of the flows reallocate() reports as changed.
//
// Large components are first re-solved locally: only the flows on the touched directions, the
// others' rates fixed (on a direction that has room for its new flows at their bounds and was below
// capacity before any flow left it, only the new ones: it limited none of its old flows). The result
// stands only if every flow on a direction whose flows or rates changed still has a bottleneck (it is
// at its cap, or crosses a saturated direction on which no flow runs faster; relative tolerance
// 1e-9): an allocation where every flow has one is the max-min fair allocation (Bertsekas and
// Gallager, Data Networks, 6.5.2), and flows elsewhere keep theirs because nothing on their
// directions changed (a direction below capacity before, counting the flows that left it, and after
// is nobody's bottleneck, so its flows are checked only for their other directions).
// A check that fails adds the flows that failed it and tries again, up to 8 times; then the
// component is searched and filled as above. The local path is tried only while it pays: after full
// components of 512 flows or more, for at most half as many flows, and less often after attempts
// that failed (see local_skips_).
//
// A flow that finishes and a flow that starts on the same route with the same cap in the same instant
// (chunk after chunk on one pipelined connection) share a slot: the new flow takes the old one's
// place in every direction's list, so nothing the allocation depends on (the routes and caps on each
// direction, and their order) changes, and reallocate() keeps its rate without a search. A finished
// flow that nobody takes over is removed at the next reallocate(), which ends the instant.
//
// Storage is contiguous and recycled (flow slots, hop ranges, per-direction hop lists), so a run
// allocates only while it grows to its peak number of concurrent flows. Deterministic: the same
// sequence of calls yields bit-identical rates.
//
// Cache footprint (it decides the speed of 8192-rank runs, whose tables do not fit in cache): a
// direction's state is one cache-aligned record of two lines, the first holding all that filling
// and slack() read, and a flow alone on a direction (the common case in a ring) is held inline in
// it. A flow's state is one line. A direction's list of flows is materialised only while two or
// more flows share it, in the same order as a plain list, so results do not depend on the
// representation; each entry carries the flow and its weight, so walking it touches no hop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "ringlab/topology/topology.hpp"
#include "ringlab/topology/units.hpp"

namespace ringlab::sim::detail {

using FlowId = std::uint32_t;
using RouteId = std::uint32_t;
inline constexpr double kUnlimitedRate = std::numeric_limits<double>::infinity();

class FlowNetwork {
 public:
  /// One capacity per direction, in bytes per picosecond; each must be > 0.
  explicit FlowNetwork(std::vector<double> capacity_bytes_per_ps);

  std::size_t direction_count() const { return directions_.size(); }
  double capacity(DirectionId c) const { return directions_[c].capacity; }

  /// Stores a route (non-empty list of directions); flows refer to it by id. Routes live as long as
  /// the network. A direction listed m times carries m x the flow's rate (a flow that stands for m
  /// flows of a folded orbit, channel_fold.hpp); route() lists it once. `costs`, when given (one per
  /// listed direction, each in [1, kMaxCost]), is the capacity a byte of the flow takes on that
  /// direction (NCCL's INTEL_P2P_OVERHEAD: 1.2 on the PCIe links of a path through an Intel CPU);
  /// it is kept in thousandths (kWeightOne). Byte statistics
  /// (direction_bytes) count bytes moved, not capacity taken.
  RouteId add_route(std::span<const DirectionId> directions, std::span<const double> costs = {});
  static constexpr double kMaxCost = 16.0;
  std::span<const DirectionId> route(RouteId id) const;

  /// Starts a flow of `bytes` (> 0) on `route` at time `now`, optionally capped at `rate_cap` bytes
  /// per picosecond. Its rate is 0 until the next reallocate().
  FlowId start(RouteId route, double bytes, Duration now, double rate_cap = kUnlimitedRate);
  /// Removes a flow at time `now` (normally when it completes). Its id may be reused, by a flow that
  /// start() begins on the same route with the same cap before the next reallocate() in its place.
  /// Precondition: `now` is the time of every other finish() since the last reallocate().
  void finish(FlowId flow, Duration now);

  /// True when flows started or finished since the last reallocate().
  bool dirty() const { return !touched_directions_.empty() || !vacated_routes_.empty() || !reused_.empty(); }
  /// Recomputes the max-min rates of every component that contains a direction touched since the last
  /// call, at time `now`. Appends to `changed`, in a deterministic order, each flow whose rate
  /// changed (every newly started flow among them); the progress of those flows is settled at `now`.
  /// Counts one reallocation when a touched component still has flows.
  void reallocate(Duration now, std::vector<FlowId>& changed);

  bool is_active(FlowId flow) const { return flow < flows_.size() && flows_[flow].active; }
  /// Current rate in bytes per picosecond.
  double rate(FlowId flow) const { return flows_[flow].rate; }
  /// Bytes still to move at time `now` (>= 0).
  double remaining(FlowId flow, Duration now) const;
  /// Completion time at the current rate: now + ceil(remaining / rate), where a residue below
  /// kResidueBytes counts as done (returns now). Precondition: rate > 0.
  Duration finish_time(FlowId flow, Duration now) const;
  RouteId flow_route(FlowId flow) const { return flow_links_[flow].route; }
  std::size_t active_flows() const { return active_; }

  /// Capacity the flows on a direction take, the sum of their rates times their weights there (bytes
  /// per picosecond). O(flows on the direction).
  double load(DirectionId c) const;
  /// Flows on a direction, in no particular order.
  std::size_t flow_count(DirectionId c) const { return directions_[c].count; }
  /// A direction whose load exceeds its capacity by more than `relative_tolerance`, if any.
  std::optional<DirectionId> find_overloaded(double relative_tolerance) const;

  /// Statistics: bytes of every flow started on the direction, and time it carried at least one flow
  /// (up to `now` for directions still busy).
  double direction_bytes(DirectionId c) const;
  Duration direction_busy(DirectionId c, Duration now) const;
  std::uint64_t reallocations() const { return reallocations_; }

  // Exact repeats (the simulator's lock-step shortcut, simulator.cpp). Everything that decides the
  // network's future is the flows' (remaining, settled, rate) and each shared direction's list order.
  struct FlowState {
    double remaining;       ///< bytes left at `settled`
    std::int64_t settled;   ///< picoseconds
    double rate;            ///< bytes per picosecond
  };
  FlowState flow_state(FlowId flow) const {
    const Flow& f = flows_[flow];
    return FlowState{f.remaining, f.settled, f.rate};
  }
  /// Calls f(flow) for every flow on direction c in list order (the order filling visits them).
  template <class F>
  void for_each_flow_on(DirectionId c, F&& f) const {
    for_each_entry(c, [&](const Entry& e) { f(e.flow); });
  }
  /// Statistics up to a time, per direction: bytes started on it and picoseconds it was busy.
  struct Totals {
    std::vector<double> bytes;
    std::vector<std::int64_t> busy;
    std::uint64_t reallocations = 0;
  };
  void totals(Duration now, Totals& out) const;
  /// Skips `periods` repeats of a period that took the network from totals `before` to `after`
  /// (its state at both ends equal up to a shift of time): moves every active flow's and busy
  /// direction's clock `shift` later and adds periods x (after - before) to the statistics. Bytes
  /// are whole numbers below 2^53, so the sums stay exact.
  void repeat(Duration shift, const Totals& before, const Totals& after, std::uint64_t periods);

  /// Test hook: try a local re-solve on every reallocation, whatever the sizes and past failures.
  void set_always_local() { local_always_ = true; }

  /// Test hook, called at the end of every reallocate() that recomputed rates. Not for per-event use.
  void set_observer(std::function<void(const FlowNetwork&, Duration)> observer) { observer_ = std::move(observer); }

  /// Residual bytes treated as "done" when computing completion times.
  static constexpr double kResidueBytes = 1e-3;

 private:
  /// A flow's state in one cache line: all that filling and the bottleneck check read. Its route
  /// and its place in the chain of flows finished this instant are in flow_links_.
  struct alignas(64) Flow {
    std::uint32_t hop_begin = 0;   ///< first of this flow's entries in hops_
    std::uint32_t visit = 0;       ///< epoch of the last reallocate() that reached it
    std::uint32_t checked = 0;     ///< check_epoch_ of the last bottleneck check
    std::uint16_t hop_count = 0;
    bool active : 1 = false;
    bool frozen : 1 = false;       ///< progressive filling: rate fixed in this pass (read only while visit == epoch_)
    bool fresh : 1 = false;        ///< took a finished flow's place; reallocate() reports it
    double rate = 0;               ///< bytes per picosecond
    double new_rate = 0;           ///< scratch for reallocate()
    double rate_cap = kUnlimitedRate;
    double bound = 0;              ///< upper bound on its rate: min(rate_cap, route's narrowest capacity)
    double remaining = 0;          ///< bytes left at time `settled`
    std::int64_t settled = 0;      ///< picoseconds
  };
  static_assert(sizeof(Flow) == 64);
  struct FlowLink {
    RouteId route = 0;
    FlowId next_vacated = 0;  ///< finished this instant: the next such flow on its route
  };
  /// Weights are fixed point, kWeightOne to the unit: sums and differences of them are exact (the
  /// filling tests them against 0), and weight_factor() divides, so that an integer weight, or a
  /// cost in thousandths such as 1.2, is exactly the double it stands for (the runs without costs
  /// are bit for bit those of plain integer weights).
  static constexpr std::uint32_t kWeightOne = 1000;
  static double weight_factor(std::uint32_t units) {
    // Whole weights (every weight of a run without costs) by integer division, which the compiler
    // turns into a multiplication by the constant's inverse.
    const std::uint32_t whole = units / kWeightOne;
    return whole * kWeightOne == units ? double(whole) : double(units) / kWeightOne;
  }
  /// One hop of one active flow; `slot` is its Entry's position in its direction's list.
  struct Hop {
    DirectionId direction = 0;
    FlowId flow = 0;
    std::uint32_t slot = 0;
    /// Capacity taken per byte, in 1/kWeightOne: the times the flow crosses the direction (a folded
    /// flow's orbit) times its cost there.
    std::uint32_t weight = kWeightOne;
  };
  /// A flow on a direction, as the direction's list holds it: the flow and its hop's weight, so that
  /// walking a direction's flows needs no trip through hops_ (`hop` is kept for the swap-remove).
  struct Entry {
    FlowId flow = 0;
    std::uint32_t hop = 0;
    std::uint32_t weight = kWeightOne;
  };
  struct RouteSpan {
    std::uint32_t begin = 0;
    std::uint32_t length = 0;
    double min_capacity = 0;  ///< of its directions: the rate of a flow alone on them (without cap)
    /// Statistics: bytes of every flow started on it. A direction's bytes are summed from its routes
    /// when asked for (direction_bytes()), so starting a flow writes no direction.
    double bytes = 0;
  };
  /// A direction's state, cache-aligned (128 bytes). Its flows are `lone` while it has at most one,
  /// else the list direction_hops_[c].
  struct alignas(64) Direction {
    // First line: what the filling and slack() read.
    double capacity = 0;          ///< bytes per picosecond
    double residual = 0;          ///< progressive filling scratch
    double bound_sum = 0;         ///< sum of Flow::bound x weight over its flows (kept while count >= 2)
    std::uint32_t count = 0;      ///< flows on it
    std::uint32_t weight = 0;     ///< sum of their hops' weights (1/kWeightOne): the flows a folded run stands for
    std::uint32_t visit = 0;      ///< epoch marks for component search
    std::uint32_t unfrozen = 0;   ///< progressive filling scratch
    std::uint32_t round = 0;      ///< round marks: share already re-pushed this round
    DirectionId twin = 0;         ///< the narrowest of its twins (itself when it is that one)
    Entry lone;                   ///< its only flow when count == 1
    std::uint32_t touched = 0;    ///< touch_epoch_ marks for the touched set
    // Second line: statistics and the bottleneck check.
    double repeated_bytes = 0;    ///< statistics: bytes of the periods repeat() skipped
    std::int64_t busy_since = 0;  ///< picoseconds
    std::int64_t busy_total = 0;
    double load = 0;              ///< bottleneck check scratch: sum of the flows' rates
    double load_before = 0;       ///< and of their rates before this instant (new flows at 0)
    double peak = 0;              ///< and the fastest of them
    std::uint32_t checked = 0;    ///< check_epoch_ when load and peak were measured
    std::uint32_t listed = 0;     ///< check_epoch_ when its flows were queued for the check
    std::uint32_t failed = 0;     ///< check_epoch_ when its other flows were queued for re-solving
    std::uint32_t departed = 0;   ///< touch_epoch_ in which a flow left it
  };
  static_assert(sizeof(Direction) == 128 && offsetof(Direction, repeated_bytes) == 64);
  struct Share {
    double share;
    std::uint32_t key;  ///< direction id, or kCapKey | flow id for a per-flow cap
  };
  static constexpr std::uint32_t kCapKey = 0x80000000U;

  std::uint32_t allocate_hops(std::uint32_t count);
  /// reallocate() for the components of the touched directions.
  void reallocate_touched(Duration now, std::vector<FlowId>& changed);
  /// True when the flow is the only one on every direction of its route: its component is itself.
  bool is_alone(const Flow& flow) const;
  /// Sets an alone flow's rate (its cap or its route's narrowest direction) and marks it visited.
  void settle_alone(FlowId flow, Duration now, std::vector<FlowId>& changed);
  /// Whether direction c can never limit a rate (see the file comment). Margin: sums of bounds are
  /// kept incrementally, so a direction within a relative 1e-9 of full counts as able to fill.
  bool slack(DirectionId c) const {
    const Direction& d = directions_[c];
    if (d.count == 0) return true;
    const double sum = d.count == 1 ? flows_[d.lone.flow].bound * d.lone.weight : d.bound_sum;
    return sum <= d.capacity * kSlackFraction;
  }
  static constexpr double kSlackFraction = 1.0 - 1e-9;
  /// Whether direction c never decides a rate on its own: it is slack, or a twin of a narrower one.
  bool passive(DirectionId c) const { return directions_[c].twin != c || slack(c); }
  void collect_component(DirectionId seed);
  /// Adds flow f and its unvisited directions that can limit it (not passive()) to the component being collected.
  void add_to_component(FlowId f);
  /// Breadth-first search from component_directions_[next] on: every flow on them and the
  /// non-slack directions of those flows.
  void grow_component(std::size_t next);
  /// Recomputes the component of flow f (f alone when it is alone on its non-slack directions).
  void solve_from_flow(FlowId f, Duration now, std::vector<FlowId>& changed);
  /// Fills the collected component and records the flows whose rate changed.
  void solve_component(Duration now, std::vector<FlowId>& changed);
  void fill_component();
  /// Settles and reports the component's flows whose new_rate differs from their rate.
  void apply_new_rates(Duration now, std::vector<FlowId>& changed);
  /// Progressive filling of component_flows_ from the shares in heap_ (not yet a heap).
  void run_filling(std::size_t unfrozen_flows);
  /// Re-solves only the flows on the touched directions, the others' rates fixed, and keeps the
  /// result when bottlenecks_hold(); false (nothing applied) sends reallocate() to the full search.
  bool solve_locally(Duration now, std::vector<FlowId>& changed);
  void fill_locally();
  bool bottlenecks_hold();
  /// For a direction that only gained flows this instant: whether it stays below capacity with the
  /// others at their rates and the new ones at their bounds, so that it limits none of them and its
  /// old flows need no re-solving for its sake (bottlenecks_hold() checks the outcome).
  bool arrivals_fit(DirectionId c) const;
  /// For a direction that lost flows this instant: whether it was saturated before (the flows that
  /// left counted at their rates), so that it may have limited the flows it keeps. One that was not
  /// limited nobody, and its flows need no re-solving for its sake.
  bool was_full(DirectionId c) const;
  static constexpr int kLocalRetries = 8;  ///< enlargements by the flows that failed the check
  std::vector<FlowId> failed_;
  static constexpr double kLocalTolerance = 1e-9;
  static constexpr std::size_t kLocalMinComponent = 512;  ///< components this large make local re-solves worth trying
  bool local_always_ = false;
  std::size_t last_component_ = 0;  ///< flows in the last component a full search solved
  /// After a local re-solve that filled and then failed (local_wasted_), the next local_skips_
  /// reallocations go straight to the full search; local_backoff_ doubles with every such failure in
  /// a row (up to kLocalMaxBackoff) and returns to 0 on a success. Failures found before any filling
  /// (too many flows to re-solve) cost little and do not count.
  std::uint32_t local_skips_ = 0;
  std::uint32_t local_backoff_ = 0;
  static constexpr std::uint32_t kLocalMaxBackoff = 64;
  bool local_wasted_ = false;
  /// Whether a local re-solve is worth trying now; counts the skips down.
  bool try_locally();
  /// Whether a local re-solve of component_flows_ still costs clearly less than the full search.
  bool local_size_ok() const;
  std::uint32_t check_epoch_ = 0;
  std::vector<FlowId> check_flows_;
  void freeze(FlowId flow, double rate);
  void touch(DirectionId c);
  void add_hop(std::uint32_t hop);
  void remove_hop(std::uint32_t hop);
  /// Calls f(const Entry&) for every flow on direction c, in list order.
  template <class F>
  void for_each_entry(DirectionId c, F&& f) const {
    if (directions_[c].count == 1) {
      f(directions_[c].lone);
      return;
    }
    if (directions_[c].count == 0) return;
    for (const Entry& e : direction_hops_[c]) f(e);
  }

  /// Sums every direction's bytes from its routes (and repeat()'s) into direction_bytes_. Bytes are
  /// whole numbers below 2^53, so the sums do not depend on their order.
  void sum_direction_bytes() const;
  mutable std::vector<double> direction_bytes_;
  mutable bool direction_bytes_stale_ = true;

  // Directions.
  std::vector<Direction> directions_;
  std::vector<std::vector<Entry>> direction_hops_;  ///< its flows, while count >= 2
  std::vector<std::uint32_t> released_;    ///< per direction: touch_epoch_ in which it turned slack
  std::vector<double> departed_load_;      ///< per direction: rates x weights of the flows that left it in epoch `departed`

  // Twins: directions crossed by exactly the same routes, each as often, carry the same flows at
  // every instant, so only the narrowest of them (least capacity, then least id) can limit a rate.
  // Kept by partition refinement as routes arrive: a class per set of twins, its members contiguous.
  struct TwinClass {
    std::uint32_t begin = 0, end = 0;  ///< its members: twin_members_[begin, end)
    std::uint32_t split = 0;           ///< refinement scratch: members crossed by the route so far
    std::uint32_t mark = 0;            ///< refinement scratch: refine_mark_ when last split
  };
  static constexpr std::uint32_t kNoClass = UINT32_MAX;
  std::vector<std::uint32_t> twin_class_;   ///< per direction, kNoClass until a route crosses it
  std::vector<std::uint32_t> twin_pos_;     ///< per direction, its index in twin_members_
  std::vector<DirectionId> twin_members_;
  std::vector<TwinClass> twin_classes_;
  std::vector<DirectionId> twin_subset_;    ///< scratch: a route's directions of one weight
  std::vector<std::uint32_t> refined_;      ///< scratch: classes split by the current subset
  std::uint32_t refine_mark_ = 0;
  /// Splits every class by the directions route `id` crosses, one subset per distinct weight.
  void refine_twins(RouteId id);
  void refine_twins(std::span<const DirectionId> subset);
  /// Sets every member's twin to the class's narrowest member.
  void elect_twin(std::uint32_t klass);

  // Routes, flows, hops.
  std::vector<DirectionId> route_directions_;  ///< each route's distinct directions, first occurrence order
  std::vector<std::uint32_t> route_weights_;   ///< and the capacity a byte takes on each (1/kWeightOne)
  std::vector<std::uint32_t> route_times_;     ///< and how often the route lists each
  std::vector<RouteSpan> routes_;
  std::vector<Flow> flows_;
  std::vector<FlowLink> flow_links_;  ///< per flow slot
  std::vector<FlowId> free_flows_;
  std::vector<Hop> hops_;
  std::vector<std::vector<std::uint32_t>> free_hops_;  ///< free hop ranges by length
  std::size_t active_ = 0;
  // Flows finished in the current instant, still in their directions' lists until reallocate():
  // per route the most recent (chained through FlowLink::next_vacated), the routes that have one, the
  // instant, and the flows that took a finished one's place.
  static constexpr FlowId kNoFlow = UINT32_MAX;
  std::vector<FlowId> vacated_head_;
  std::vector<RouteId> vacated_routes_;
  std::int64_t vacated_at_ = 0;
  std::vector<FlowId> reused_;
  /// Removes a finished flow nobody took over from its directions (the old finish()).
  void remove_flow(FlowId flow, std::int64_t now);
  /// A flow finished this instant on `route` with cap `rate_cap`, unlinked from its chain; kNoFlow if none.
  FlowId take_vacated(RouteId route, double rate_cap);

  // Reallocation scratch, reused across calls.
  std::uint32_t epoch_ = 0;
  std::uint32_t touch_epoch_ = 1;
  std::uint32_t round_ = 0;
  std::vector<DirectionId> touched_directions_;
  std::vector<DirectionId> component_directions_;
  std::vector<FlowId> component_flows_;
  std::vector<DirectionId> reshare_;
  std::vector<Share> heap_;
  std::uint64_t reallocations_ = 0;
  std::function<void(const FlowNetwork&, Duration)> observer_;
};

}  // namespace ringlab::sim::detail
