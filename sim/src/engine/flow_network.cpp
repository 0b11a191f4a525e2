// FlowNetwork: max-min fair sharing by progressive filling over the touched components
// (see flow_network.hpp for the model and its guarantees).
#include "engine/flow_network.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace ringlab::sim::detail {
namespace {
// A completion time computed as remaining / rate carries a relative rounding error of a few ulps;
// quotients within this relative distance above an integer count as that integer, so that e.g.
// 4 MiB at exactly 12.5 GB/s finishes at 335544320 ps and not one picosecond later.
constexpr double kRelativeTimeTolerance = 1e-12;

struct ShareAfter {
  template <class S>
  bool operator()(const S& a, const S& b) const {
    return a.share > b.share || (a.share == b.share && a.key > b.key);
  }
};
}  // namespace

FlowNetwork::FlowNetwork(std::vector<double> capacity_bytes_per_ps)
    : directions_(capacity_bytes_per_ps.size()),
      direction_hops_(capacity_bytes_per_ps.size()),
      released_(capacity_bytes_per_ps.size(), 0),
      departed_load_(capacity_bytes_per_ps.size(), 0.0),
      twin_class_(capacity_bytes_per_ps.size(), kNoClass),
      twin_pos_(capacity_bytes_per_ps.size(), 0) {
  for (std::size_t c = 0; c < directions_.size(); ++c) {
    assert(capacity_bytes_per_ps[c] > 0 && "direction capacity must be positive");
    directions_[c].capacity = capacity_bytes_per_ps[c];
    directions_[c].twin = DirectionId(c);
  }
}

RouteId FlowNetwork::add_route(std::span<const DirectionId> directions, std::span<const double> costs) {
  assert(!directions.empty());
  assert(costs.empty() || costs.size() == directions.size());
  RouteSpan span{std::uint32_t(route_directions_.size()), 0, kUnlimitedRate};
  // A direction listed m times is one hop of weight m (times its cost): alone on it the flow runs at
  // capacity / m.
  for (std::size_t i = 0; i < directions.size(); ++i) {
    const DirectionId c = directions[i];
    assert(c < directions_.size());
    const double cost = costs.empty() ? 1.0 : costs[i];
    assert(cost >= 1.0 && cost <= kMaxCost);
    const auto units = std::uint32_t(std::lround(cost * kWeightOne));
    const auto listed = route_directions_.begin() + span.begin;
    const auto seen = std::find(listed, route_directions_.end(), c);
    if (seen != route_directions_.end()) {
      const auto at = std::size_t(seen - route_directions_.begin());
      route_weights_[at] += units;
      ++route_times_[at];
      continue;
    }
    route_directions_.push_back(c);
    route_weights_.push_back(units);
    route_times_.push_back(1);
    ++span.length;
  }
  for (std::uint32_t i = span.begin; i < span.begin + span.length; ++i)
    span.min_capacity =
        std::min(span.min_capacity, directions_[route_directions_[i]].capacity / weight_factor(route_weights_[i]));
  routes_.push_back(span);
  vacated_head_.push_back(kNoFlow);
  refine_twins(RouteId(routes_.size() - 1));
  return RouteId(routes_.size() - 1);
}

void FlowNetwork::refine_twins(RouteId id) {
  const RouteSpan span = routes_[id];
  const DirectionId* directions = route_directions_.data() + span.begin;
  const std::uint32_t* weights = route_weights_.data() + span.begin;
  for (std::uint32_t i = 0; i < span.length; ++i) {
    if (std::find(weights, weights + i, weights[i]) != weights + i) continue;  // weight done already
    twin_subset_.clear();
    for (std::uint32_t j = i; j < span.length; ++j)
      if (weights[j] == weights[i]) twin_subset_.push_back(directions[j]);
    refine_twins(twin_subset_);
  }
}

void FlowNetwork::refine_twins(std::span<const DirectionId> subset) {
  ++refine_mark_;
  refined_.clear();
  const auto fresh_begin = std::uint32_t(twin_members_.size());
  for (const DirectionId c : subset) {
    if (twin_class_[c] == kNoClass) {  // first route to cross it: joins the subset's new class
      twin_pos_[c] = std::uint32_t(twin_members_.size());
      twin_members_.push_back(c);
      continue;
    }
    TwinClass& klass = twin_classes_[twin_class_[c]];
    if (klass.mark != refine_mark_) {
      klass.mark = refine_mark_;
      klass.split = klass.begin;
      refined_.push_back(twin_class_[c]);
    }
    // Move c to the front part of its class, which becomes the split-off class.
    const DirectionId other = twin_members_[klass.split];
    std::swap(twin_members_[twin_pos_[c]], twin_members_[klass.split]);
    twin_pos_[other] = twin_pos_[c];
    twin_pos_[c] = klass.split++;
  }
  for (const std::uint32_t k : refined_) {
    if (twin_classes_[k].split == twin_classes_[k].end) continue;  // wholly in the subset
    const auto split_off = std::uint32_t(twin_classes_.size());
    twin_classes_.push_back(TwinClass{twin_classes_[k].begin, twin_classes_[k].split, 0, 0});
    twin_classes_[k].begin = twin_classes_[k].split;
    for (std::uint32_t m = twin_classes_[split_off].begin; m < twin_classes_[split_off].end; ++m)
      twin_class_[twin_members_[m]] = split_off;
    elect_twin(k);
    elect_twin(split_off);
  }
  if (fresh_begin == twin_members_.size()) return;
  const auto fresh = std::uint32_t(twin_classes_.size());
  twin_classes_.push_back(TwinClass{fresh_begin, std::uint32_t(twin_members_.size()), 0, 0});
  for (std::uint32_t m = fresh_begin; m < twin_members_.size(); ++m) twin_class_[twin_members_[m]] = fresh;
  elect_twin(fresh);
}

void FlowNetwork::elect_twin(std::uint32_t k) {
  const TwinClass& klass = twin_classes_[k];
  DirectionId best = twin_members_[klass.begin];
  for (std::uint32_t m = klass.begin + 1; m < klass.end; ++m) {
    const DirectionId c = twin_members_[m];
    const double a = directions_[c].capacity, b = directions_[best].capacity;
    if (a < b || (a == b && c < best)) best = c;
  }
  for (std::uint32_t m = klass.begin; m < klass.end; ++m) directions_[twin_members_[m]].twin = best;
}

std::span<const DirectionId> FlowNetwork::route(RouteId id) const {
  const RouteSpan span = routes_[id];
  return std::span<const DirectionId>(route_directions_).subspan(span.begin, span.length);
}

std::uint32_t FlowNetwork::allocate_hops(std::uint32_t count) {
  if (count < free_hops_.size() && !free_hops_[count].empty()) {
    const std::uint32_t begin = free_hops_[count].back();
    free_hops_[count].pop_back();
    return begin;
  }
  const auto begin = std::uint32_t(hops_.size());
  hops_.resize(hops_.size() + count);
  return begin;
}

void FlowNetwork::touch(DirectionId c) {
  if (directions_[c].touched == touch_epoch_) return;
  directions_[c].touched = touch_epoch_;
  touched_directions_.push_back(c);
}

void FlowNetwork::add_hop(std::uint32_t h) {
  Hop& hop = hops_[h];
  Direction& direction = directions_[hop.direction];
  const Entry entry{hop.flow, h, hop.weight};
  if (direction.count == 0) {  // alone: no list
    direction.lone = entry;
  } else {
    std::vector<Entry>& list = direction_hops_[hop.direction];
    if (direction.count == 1) {  // a second flow: materialise the list, the first flow first
      const Entry lone = direction.lone;
      hops_[lone.hop].slot = 0;
      list.push_back(lone);
      direction.bound_sum = flows_[lone.flow].bound * weight_factor(lone.weight);
    }
    direction.bound_sum += flows_[hop.flow].bound * weight_factor(hop.weight);
    hop.slot = std::uint32_t(list.size());
    list.push_back(entry);
  }
  ++direction.count;
  assert(direction.weight <= UINT32_MAX - hop.weight && "a direction's weights overflow");
  direction.weight += hop.weight;
}

void FlowNetwork::remove_hop(std::uint32_t h) {
  const Hop hop = hops_[h];
  Direction& direction = directions_[hop.direction];
  direction.weight -= hop.weight;
  if (direction.departed != touch_epoch_) departed_load_[hop.direction] = 0;
  departed_load_[hop.direction] += flows_[hop.flow].rate * weight_factor(hop.weight);
  direction.departed = touch_epoch_;
  if (direction.count == 1) {
    direction.count = 0;
    return;
  }
  const bool was_slack = slack(hop.direction);
  --direction.count;
  direction.bound_sum -= flows_[hop.flow].bound * weight_factor(hop.weight);  // rebuilt from scratch when a list is next made
  // Swap-remove from the list, then keep a last remaining flow inline (the list keeps its capacity).
  std::vector<Entry>& list = direction_hops_[hop.direction];
  list[hop.slot] = list.back();
  hops_[list[hop.slot].hop].slot = hop.slot;
  list.pop_back();
  if (direction.count == 1) {
    direction.lone = list.front();
    list.clear();
  }
  if (!was_slack && slack(hop.direction)) released_[hop.direction] = touch_epoch_;
}

FlowId FlowNetwork::take_vacated(RouteId route, double rate_cap) {
  FlowId* link = &vacated_head_[route];
  while (*link != kNoFlow && flows_[*link].rate_cap != rate_cap) link = &flow_links_[*link].next_vacated;
  const FlowId id = *link;
  if (id != kNoFlow) *link = flow_links_[id].next_vacated;
  return id;
}

FlowId FlowNetwork::start(RouteId route_id, double bytes, Duration now, double rate_cap) {
  assert(bytes > 0 && rate_cap > 0);
  if (vacated_head_[route_id] != kNoFlow) {
    assert(now.picoseconds() == vacated_at_);
    if (const FlowId id = take_vacated(route_id, rate_cap); id != kNoFlow) {
      // The finished flow's place: same hops, same rate until something else changes.
      Flow& flow = flows_[id];
      flow.active = true;
      flow.fresh = true;
      flow.remaining = bytes;
      flow.settled = now.picoseconds();
      routes_[route_id].bytes += bytes;
      direction_bytes_stale_ = true;
      reused_.push_back(id);
      ++active_;
      return id;
    }
  }
  FlowId id;
  if (!free_flows_.empty()) {
    id = free_flows_.back();
    free_flows_.pop_back();
  } else {
    id = FlowId(flows_.size());
    flows_.emplace_back();
    flow_links_.emplace_back();
  }
  const std::span<const DirectionId> directions = route(route_id);
  const std::uint32_t* weights = route_weights_.data() + routes_[route_id].begin;
  const auto count = std::uint32_t(directions.size());
  const std::uint32_t begin = allocate_hops(count);
  Flow& flow = flows_[id];
  flow = Flow{};
  flow_links_[id].route = route_id;
  flow.hop_begin = begin;
  assert(count <= UINT16_MAX);
  flow.hop_count = std::uint16_t(count);
  flow.visit = epoch_;
  flow.active = true;
  flow.rate_cap = rate_cap;
  flow.bound = std::min(rate_cap, routes_[route_id].min_capacity);
  flow.remaining = bytes;
  flow.settled = now.picoseconds();
  routes_[route_id].bytes += bytes;
  direction_bytes_stale_ = true;
  for (std::uint32_t i = 0; i < count; ++i) {
    const DirectionId c = directions[i];
    hops_[begin + i] = Hop{c, id, 0, weights[i]};
    add_hop(begin + i);
    Direction& direction = directions_[c];
    if (direction.count == 1) direction.busy_since = now.picoseconds();
    touch(c);
  }
  ++active_;
  return id;
}

void FlowNetwork::finish(FlowId id, Duration now) {
  Flow& flow = flows_[id];
  assert(flow.active);
  assert(vacated_routes_.empty() || now.picoseconds() == vacated_at_);
  flow.active = false;
  flow.fresh = false;
  vacated_at_ = now.picoseconds();
  FlowLink& link = flow_links_[id];
  if (vacated_head_[link.route] == kNoFlow) vacated_routes_.push_back(link.route);
  link.next_vacated = vacated_head_[link.route];
  vacated_head_[link.route] = id;
  --active_;
}

void FlowNetwork::remove_flow(FlowId id, std::int64_t now) {
  Flow& flow = flows_[id];
  for (std::uint32_t h = flow.hop_begin; h < flow.hop_begin + flow.hop_count; ++h) {
    const DirectionId c = hops_[h].direction;
    remove_hop(h);
    Direction& direction = directions_[c];
    if (direction.count == 0) direction.busy_total += now - direction.busy_since;
    touch(c);
  }
  if (flow.hop_count >= free_hops_.size()) free_hops_.resize(flow.hop_count + 1);
  free_hops_[flow.hop_count].push_back(flow.hop_begin);
  flow.rate = 0;
  free_flows_.push_back(id);
}

void FlowNetwork::collect_component(DirectionId seed) {
  directions_[seed].visit = epoch_;
  component_directions_.push_back(seed);
  grow_component(component_directions_.size() - 1);
}

void FlowNetwork::add_to_component(FlowId f) {
  Flow& flow = flows_[f];
  flow.visit = epoch_;
  component_flows_.push_back(f);
  for (std::uint32_t k = flow.hop_begin; k < flow.hop_begin + flow.hop_count; ++k) {
    const DirectionId other = hops_[k].direction;
    if (directions_[other].visit == epoch_ || passive(other)) continue;
    directions_[other].visit = epoch_;
    component_directions_.push_back(other);
  }
}

void FlowNetwork::grow_component(std::size_t next) {
  while (next < component_directions_.size()) {
    const DirectionId c = component_directions_[next++];
    for_each_entry(c, [&](const Entry& e) {
      const FlowId f = e.flow;
      if (flows_[f].visit != epoch_) add_to_component(f);
    });
  }
}

void FlowNetwork::freeze(FlowId f, double rate) {
  Flow& flow = flows_[f];
  flow.frozen = true;
  flow.new_rate = rate;
  for (std::uint32_t k = flow.hop_begin; k < flow.hop_begin + flow.hop_count; ++k) {
    const DirectionId c = hops_[k].direction;
    if (passive(c)) continue;  // slack or a wider twin: outside the filling, it limits nobody
    Direction& direction = directions_[c];
    // Clamp: the last flow leaving a direction may subtract a few ulps more than was left.
    direction.residual = std::max(0.0, direction.residual - rate * weight_factor(hops_[k].weight));
    direction.unfrozen -= hops_[k].weight;
    if (direction.unfrozen == 0 || direction.round == round_) continue;
    direction.round = round_;
    reshare_.push_back(c);
  }
}

void FlowNetwork::fill_component() {
  if (component_flows_.size() == 1) {  // alone on its directions (the common case in rings)
    Flow& flow = flows_[component_flows_.front()];
    flow.new_rate = flow.bound;  // min(rate_cap, the route's narrowest capacity)
    return;
  }
  heap_.clear();
  for (DirectionId c : component_directions_) {
    Direction& direction = directions_[c];
    direction.residual = direction.capacity;
    direction.unfrozen = direction.weight;
    if (direction.unfrozen > 0) heap_.push_back(Share{direction.residual / weight_factor(direction.unfrozen), c});
  }
  for (FlowId f : component_flows_) {
    flows_[f].frozen = false;
    if (std::isfinite(flows_[f].rate_cap)) heap_.push_back(Share{flows_[f].rate_cap, kCapKey | f});
  }
  run_filling(component_flows_.size());
}

void FlowNetwork::run_filling(std::size_t unfrozen_flows) {
  std::make_heap(heap_.begin(), heap_.end(), ShareAfter{});
  while (unfrozen_flows > 0 && !heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), ShareAfter{});
    const Share top = heap_.back();
    heap_.pop_back();
    ++round_;
    reshare_.clear();
    if (top.key & kCapKey) {
      const FlowId f = top.key & ~kCapKey;
      if (flows_[f].frozen) continue;
      freeze(f, top.share);
      --unfrozen_flows;
    } else {
      const DirectionId c = top.key;
      Direction& direction = directions_[c];
      if (direction.unfrozen == 0) continue;
      // Shares only grow as flows freeze, so an entry that no longer matches is stale; the current
      // value was pushed when it changed.
      const double share = direction.residual / weight_factor(direction.unfrozen);
      if (share != top.share) continue;
      direction.round = round_;  // every flow on c freezes now; no need to re-push it
      for_each_entry(c, [&](const Entry& e) {
        const FlowId f = e.flow;
        if (flows_[f].visit != epoch_ || flows_[f].frozen) return;  // outside the component, or done
        freeze(f, share);
        --unfrozen_flows;
      });
    }
    for (DirectionId c : reshare_) {
      const Direction& direction = directions_[c];
      if (direction.unfrozen == 0) continue;  // emptied later in the same round
      heap_.push_back(Share{direction.residual / weight_factor(direction.unfrozen), c});
      std::push_heap(heap_.begin(), heap_.end(), ShareAfter{});
    }
  }
  assert(unfrozen_flows == 0);
}

bool FlowNetwork::is_alone(const Flow& flow) const {
  for (std::uint32_t k = flow.hop_begin; k < flow.hop_begin + flow.hop_count; ++k) {
    const DirectionId c = hops_[k].direction;
    if (directions_[c].count != 1 && !slack(c)) return false;
  }
  return true;
}

void FlowNetwork::settle_alone(FlowId f, Duration now, std::vector<FlowId>& changed) {
  Flow& flow = flows_[f];
  flow.visit = epoch_;
  const double rate = flow.bound;
  if (rate == flow.rate) return;
  flow.remaining = remaining(f, now);
  flow.settled = now.picoseconds();
  flow.rate = rate;
  flow.fresh = false;
  changed.push_back(f);
}

bool FlowNetwork::solve_locally(Duration now, std::vector<FlowId>& changed) {
  ++epoch_;  // marks the flows re-solved here (visit) and the directions they cross
  component_flows_.clear();
  auto take = [&](FlowId f) {
    if (flows_[f].visit == epoch_) return;
    flows_[f].visit = epoch_;
    component_flows_.push_back(f);
  };
  for (DirectionId t : touched_directions_) {
    if (directions_[t].twin != t) continue;  // its flows are its narrowest twin's, touched as well
    // A direction that can limit and was full before a flow left it (it may have limited the flows
    // it keeps), or has just stopped limiting: all its flows. Otherwise only the new ones, unless
    // they can fill it up (see arrivals_fit()).
    if ((!slack(t) && (was_full(t) || !arrivals_fit(t))) || released_[t] == touch_epoch_) {
      for_each_entry(t, [&](const Entry& e) { take(e.flow); });
      continue;
    }
    for_each_entry(t, [&](const Entry& e) {
      if (flows_[e.flow].rate == 0) take(e.flow);  // a flow that just started
    });
  }
  for (int attempt = 0;; ++attempt) {
    if (component_flows_.empty() || !local_size_ok()) {
      local_wasted_ = attempt > 0;
      return false;
    }
    fill_locally();
    if (bottlenecks_hold()) break;
    // Re-solve the flows that lost their bottleneck too, up to kLocalRetries times, before the full
    // search (bounded by local_size_ok() like the first attempt).
    if (attempt == kLocalRetries || failed_.empty()) {
      local_wasted_ = true;
      return false;
    }
    ++epoch_;
    for (FlowId f : component_flows_) flows_[f].visit = epoch_;
    for (FlowId f : failed_) take(f);
  }
  apply_new_rates(now, changed);
  return true;
}

bool FlowNetwork::was_full(DirectionId c) const {
  if (directions_[c].departed != touch_epoch_) return false;
  double load = departed_load_[c];
  for_each_entry(c, [&](const Entry& e) { load += flows_[e.flow].rate * weight_factor(e.weight); });
  return load >= directions_[c].capacity * (1 - kLocalTolerance);
}

bool FlowNetwork::arrivals_fit(DirectionId c) const {
  double load = 0;
  for_each_entry(c, [&](const Entry& e) {
    const Flow& flow = flows_[e.flow];
    load += (flow.rate == 0 ? flow.bound : flow.rate) * weight_factor(e.weight);
  });
  return load <= directions_[c].capacity * kSlackFraction;
}

bool FlowNetwork::try_locally() {
  if (local_always_) return true;
  if (last_component_ < kLocalMinComponent) return false;
  if (local_skips_ == 0) return true;
  --local_skips_;
  return false;
}

bool FlowNetwork::local_size_ok() const {
  // Half the last full component: beyond it, the filling, the check and a likely full search after
  // all cost more than the full search alone.
  return local_always_ || component_flows_.size() <= last_component_ / 2;
}

void FlowNetwork::fill_locally() {
  // Progressive filling of component_flows_ on what the others leave of every direction they cross.
  component_directions_.clear();
  heap_.clear();
  for (FlowId f : component_flows_) {
    Flow& flow = flows_[f];
    flow.frozen = false;
    if (std::isfinite(flow.rate_cap)) heap_.push_back(Share{flow.rate_cap, kCapKey | f});
    for (std::uint32_t k = flow.hop_begin; k < flow.hop_begin + flow.hop_count; ++k) {
      const DirectionId c = hops_[k].direction;
      Direction& direction = directions_[c];
      if (direction.visit == epoch_ || passive(c)) continue;
      direction.visit = epoch_;
      component_directions_.push_back(c);
      direction.residual = direction.capacity;
      direction.unfrozen = 0;
      for_each_entry(c, [&](const Entry& e) {
        const Flow& other = flows_[e.flow];
        if (other.visit == epoch_) {
          direction.unfrozen += e.weight;
          return;
        }
        direction.residual -= other.rate * weight_factor(e.weight);  // keeps its rate: the filling passes it by
      });
      direction.residual = std::max(0.0, direction.residual);
    }
  }
  for (DirectionId c : component_directions_) {
    const Direction& direction = directions_[c];
    heap_.push_back(Share{direction.residual / weight_factor(direction.unfrozen), c});
  }
  run_filling(component_flows_.size());
}

bool FlowNetwork::bottlenecks_hold() {
  // The rates after the local filling: new_rate for the flows it re-solved (visit == epoch_), the
  // current rate for the rest. Max-min fairness holds iff every flow is at its cap or has a
  // saturated direction on which no flow runs faster; only flows on a direction whose flows or
  // rates changed can have lost that, so only they are checked. Collects in failed_ the flows to
  // re-solve as well: those without a bottleneck, and the others on an overloaded direction or on
  // the directions of a re-solved flow without one.
  ++check_epoch_;
  failed_.clear();
  auto effective = [&](FlowId f) { return flows_[f].visit == epoch_ ? flows_[f].new_rate : flows_[f].rate; };
  auto measure = [&](DirectionId c) {  // load and fastest flow, once per check
    Direction& direction = directions_[c];
    if (direction.checked == check_epoch_) return;
    direction.checked = check_epoch_;
    direction.load = 0;
    direction.load_before = 0;
    direction.peak = 0;
    for_each_entry(c, [&](const Entry& e) {
      const double r = effective(e.flow);
      direction.load += r * weight_factor(e.weight);
      direction.load_before += flows_[e.flow].rate * weight_factor(e.weight);
      direction.peak = std::max(direction.peak, r);
    });
    if (direction.departed == touch_epoch_) direction.load_before += departed_load_[c];
  };
  auto fail_others_on = [&](DirectionId c) {
    if (directions_[c].failed == check_epoch_) return;
    directions_[c].failed = check_epoch_;
    for_each_entry(c, [&](const Entry& e) {
      if (flows_[e.flow].visit != epoch_) failed_.push_back(e.flow);
    });
  };
  check_flows_.clear();
  auto changed_direction = [&](DirectionId c) {
    if (passive(c)) return;  // never over capacity, never a bottleneck, unless its narrowest twin is
    Direction& direction = directions_[c];
    if (direction.listed == check_epoch_) return;  // once per check: many changed flows share it
    direction.listed = check_epoch_;
    measure(c);
    if (direction.load > direction.capacity * (1 + kLocalTolerance)) fail_others_on(c);
    // Unsaturated before and after: it was and is nobody's bottleneck, so its flows need checking
    // only for their other directions.
    const double full = direction.capacity * (1 - kLocalTolerance);
    if (direction.load < full && direction.load_before < full) return;
    for_each_entry(c, [&](const Entry& e) {
      Flow& flow = flows_[e.flow];
      if (flow.checked == check_epoch_) return;
      flow.checked = check_epoch_;
      check_flows_.push_back(e.flow);
    });
  };
  for (DirectionId t : touched_directions_) changed_direction(t);
  for (FlowId f : component_flows_) {
    Flow& flow = flows_[f];
    if (flow.checked != check_epoch_) {  // every re-solved flow, changed or not (its bottleneck may be gone)
      flow.checked = check_epoch_;
      check_flows_.push_back(f);
    }
    if (flow.new_rate == flow.rate) continue;
    for (std::uint32_t k = flow.hop_begin; k < flow.hop_begin + flow.hop_count; ++k)
      changed_direction(hops_[k].direction);
  }
  bool ok = failed_.empty();
  for (FlowId g : check_flows_) {
    Flow& flow = flows_[g];
    const double rate = effective(g);
    if (std::isfinite(flow.rate_cap) && rate >= flow.rate_cap * (1 - kLocalTolerance)) continue;
    bool bottleneck = false;
    for (std::uint32_t k = flow.hop_begin; k < flow.hop_begin + flow.hop_count && !bottleneck; ++k) {
      const DirectionId c = hops_[k].direction;
      if (passive(c)) continue;
      measure(c);
      const Direction& direction = directions_[c];
      bottleneck = rate > 0 && direction.load >= direction.capacity * (1 - kLocalTolerance) &&
                   rate >= direction.peak * (1 - kLocalTolerance);
    }
    if (bottleneck) continue;
    ok = false;
    if (flow.visit != epoch_) {
      failed_.push_back(g);
      continue;
    }
    for (std::uint32_t k = flow.hop_begin; k < flow.hop_begin + flow.hop_count; ++k)
      if (!passive(hops_[k].direction)) fail_others_on(hops_[k].direction);
  }
  return ok;
}

void FlowNetwork::solve_component(Duration now, std::vector<FlowId>& changed) {
  assert(!component_flows_.empty());
  last_component_ = component_flows_.size();
  fill_component();
  apply_new_rates(now, changed);
}

void FlowNetwork::apply_new_rates(Duration now, std::vector<FlowId>& changed) {
  for (FlowId f : component_flows_) {
    Flow& flow = flows_[f];
    if (flow.new_rate == flow.rate) continue;
    flow.remaining = remaining(f, now);
    flow.settled = now.picoseconds();
    flow.rate = flow.new_rate;
    flow.fresh = false;
    changed.push_back(f);
  }
}

void FlowNetwork::solve_from_flow(FlowId f, Duration now, std::vector<FlowId>& changed) {
  if (is_alone(flows_[f])) {
    settle_alone(f, now, changed);
    return;
  }
  component_directions_.clear();
  component_flows_.clear();
  add_to_component(f);
  grow_component(0);
  solve_component(now, changed);
}

void FlowNetwork::reallocate(Duration now, std::vector<FlowId>& changed) {
  for (const RouteId r : vacated_routes_) {  // finished flows nobody took over leave now
    for (FlowId f = vacated_head_[r]; f != kNoFlow; f = flow_links_[f].next_vacated) remove_flow(f, vacated_at_);
    vacated_head_[r] = kNoFlow;
  }
  vacated_routes_.clear();
  reallocate_touched(now, changed);
  for (const FlowId f : reused_) {  // report the flows that took a place, unless a solve already did
    if (!flows_[f].fresh) continue;
    flows_[f].fresh = false;
    changed.push_back(f);
  }
  reused_.clear();
}

void FlowNetwork::reallocate_touched(Duration now, std::vector<FlowId>& changed) {
  if (touched_directions_.empty()) return;
  if (try_locally()) {
    if (solve_locally(now, changed)) {
      local_backoff_ = 0;
      touched_directions_.clear();
      ++touch_epoch_;
      ++reallocations_;
      if (observer_) observer_(*this, now);
      return;
    }
    if (local_wasted_) {
      local_wasted_ = false;
      local_backoff_ = std::min(kLocalMaxBackoff, 2 * local_backoff_ + 1);
      local_skips_ = local_backoff_;
    }
  }
  ++epoch_;
  bool recomputed = false;
  // One component at a time: most are a single flow alone on its directions, settled without a search.
  for (DirectionId seed : touched_directions_) {
    const Direction& direction = directions_[seed];
    if (direction.visit == epoch_) continue;
    if (direction.count == 0) continue;  // only departures that left it idle
    if (direction.twin != seed) continue;  // its narrowest twin, touched as well, stands for it
    if (slack(seed)) {
      // It limits nobody, so its flows are reached through their other directions, except for a
      // flow that just started there (it may have no other) and, when the direction has just stopped
      // limiting, every flow it limited.
      const bool released = released_[seed] == touch_epoch_;
      for_each_entry(seed, [&](const Entry& e) {
        const FlowId f = e.flow;
        if (flows_[f].visit == epoch_ || (!released && flows_[f].rate != 0)) return;
        recomputed = true;
        solve_from_flow(f, now, changed);
      });
      continue;
    }
    if (direction.count == 1) {
      const FlowId f = direction.lone.flow;
      if (flows_[f].visit == epoch_) continue;  // reached already, from another direction of its route
      if (is_alone(flows_[f])) {
        // Its component is the flow itself: no search, no filling. Its directions hold no other flow
        // that it could limit, so no search needs them; marking the flow visited is enough.
        recomputed = true;
        settle_alone(f, now, changed);
        continue;
      }
    }
    component_directions_.clear();
    component_flows_.clear();
    collect_component(seed);
    recomputed = true;
    solve_component(now, changed);
  }
  touched_directions_.clear();
  ++touch_epoch_;
  if (!recomputed) return;
  ++reallocations_;
  if (observer_) observer_(*this, now);
}

double FlowNetwork::remaining(FlowId id, Duration now) const {
  const Flow& flow = flows_[id];
  const double left = flow.remaining - flow.rate * double(now.picoseconds() - flow.settled);
  return left > 0 ? left : 0.0;
}

Duration FlowNetwork::finish_time(FlowId id, Duration now) const {
  const double left = remaining(id, now);
  if (left <= kResidueBytes) return now;
  assert(flows_[id].rate > 0);
  const double ticks = left / flows_[id].rate;
  return now + Duration::from_picoseconds(std::ceil(ticks * (1.0 - kRelativeTimeTolerance)));  // checked
}

double FlowNetwork::load(DirectionId c) const {
  double sum = 0;
  for_each_entry(c, [&](const Entry& e) { sum += flows_[e.flow].rate * weight_factor(e.weight); });
  return sum;
}

std::optional<DirectionId> FlowNetwork::find_overloaded(double relative_tolerance) const {
  for (DirectionId c = 0; c < directions_.size(); ++c)
    if (load(c) > directions_[c].capacity * (1.0 + relative_tolerance)) return c;
  return std::nullopt;
}

Duration FlowNetwork::direction_busy(DirectionId c, Duration now) const {
  const Direction& direction = directions_[c];
  std::int64_t busy = direction.busy_total;
  if (direction.count > 0) busy += now.picoseconds() - direction.busy_since;
  return Duration{busy};
}

double FlowNetwork::direction_bytes(DirectionId c) const {
  if (direction_bytes_stale_) sum_direction_bytes();
  return direction_bytes_[c];
}

void FlowNetwork::sum_direction_bytes() const {
  direction_bytes_.resize(directions_.size());
  for (std::size_t c = 0; c < directions_.size(); ++c) direction_bytes_[c] = directions_[c].repeated_bytes;
  for (const RouteSpan& route : routes_) {
    if (route.bytes == 0) continue;
    for (std::uint32_t i = route.begin; i < route.begin + route.length; ++i)
      direction_bytes_[route_directions_[i]] += route.bytes * route_times_[i];
  }
  direction_bytes_stale_ = false;
}

void FlowNetwork::totals(Duration now, Totals& out) const {
  out.bytes.resize(directions_.size());
  out.busy.resize(directions_.size());
  for (std::size_t c = 0; c < directions_.size(); ++c) {
    out.bytes[c] = direction_bytes(DirectionId(c));
    out.busy[c] = direction_busy(DirectionId(c), now).picoseconds();
  }
  out.reallocations = reallocations_;
}

void FlowNetwork::repeat(Duration shift, const Totals& before, const Totals& after, std::uint64_t periods) {
  const std::int64_t dt = shift.picoseconds();
  for (Flow& flow : flows_)
    if (flow.active) flow.settled += dt;
  for (std::size_t c = 0; c < directions_.size(); ++c) {
    Direction& direction = directions_[c];
    direction.repeated_bytes += double(periods) * (after.bytes[c] - before.bytes[c]);
    direction.busy_total += std::int64_t(periods) * (after.busy[c] - before.busy[c]);
    if (direction.count > 0) direction.busy_since += dt;
  }
  reallocations_ += periods * (after.reallocations - before.reallocations);
  direction_bytes_stale_ = true;
}

}  // namespace ringlab::sim::detail
