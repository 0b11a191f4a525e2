// run_collective: resolve the algorithm once, build the schedule (compact where one covers the spec),
// run it on the requested engine, and return a reason instead of throwing when nothing applies.
#include "ringlab/sim/run_collective.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>

#include "ringlab/sim/compact_schedule.hpp"
#include "ringlab/sim/nccl_transport.hpp"
#include "ringlab/sim/nccl_tuning.hpp"
#include "engine/route_memo.hpp"

namespace ringlab::sim {
namespace {

CollectiveSpec base_spec(const CollectiveRequest& request, Bytes message) {
  CollectiveSpec spec;
  spec.collective = request.collective;
  spec.algorithm = request.algorithm;
  spec.message = message;
  spec.payload = request.payload;
  spec.nccl_env = request.nccl_env;
  // A calibration's factors on NCCL's latency table reach NCCL's model with the settings.
  spec.nccl_env.latency_factors = request.options.calibration.nccl_latency;
  spec.channels = request.channels;
  spec.chunk = request.chunk;
  spec.root = request.root;
  spec.hierarchy = request.hierarchy;
  spec.inter = request.inter;
  spec.servers = request.servers;
  spec.channel_rings = request.order.channel_rings;
  return spec;
}

}  // namespace

/// What a sweep shares between its sizes. Routes are kept per routing setup: the request's own, and
/// NCCL's (its view of the cluster, channels pinned to rails, transports' detours).
struct CollectiveSweep::State {
  State(const Topology& t, CollectiveRequest r) : cluster(t), request(std::move(r)) {}
  const Topology& cluster;
  CollectiveRequest request;
  std::shared_ptr<detail::RouteMemo> routes;  ///< for request.options on the cluster (made on first use)

  /// Algorithm::Nccl's size-independent part, made on first use.
  bool nccl_ready = false;
  std::string view_unavailable;        ///< why NCCL's view cannot be made
  std::string transports_unavailable;  ///< why its transports cannot be made
  std::optional<Topology> view;
  Detours detours;
  std::shared_ptr<detail::RouteMemo> nccl_routes;
  std::optional<NcclComm> comm;  ///< NCCL's model and searched rings on the view (made on first use)
};

namespace {

using State = CollectiveSweep::State;

/// The memo `slot` holds, made for (topology, options) on first use.
std::shared_ptr<detail::RouteMemo> routes_for(std::shared_ptr<detail::RouteMemo>& slot, const Topology& topology,
                                              const SimOptions& options) {
  if (!slot) slot = std::make_shared<detail::RouteMemo>(topology, options);
  return slot;
}

/// Builds and times a spec whose algorithm is concrete (not nccl), on the requested engine; `routes`
/// serves (topology, options).
CollectiveOutcome run_spec(const Topology& topology, const CollectiveRequest& request, const CollectiveSpec& spec,
                           const SimOptions& options, const std::shared_ptr<detail::RouteMemo>& routes) {
  CollectiveOutcome out;
  out.algorithm = spec.algorithm;
  out.protocol = options.protocol;
  out.channels = spec.channels;
  out.chunk = spec.chunk;
  out.message = spec.message;
  const std::vector<DeviceId>& ranks = request.order.ranks;
  const bool explicit_needed = request.keep_schedule || request.engine != nullptr;
  std::optional<Schedule> schedule;
  try {
    if (!explicit_needed) {
      Simulator simulator(topology, options, routes);
      if (auto compact = build_compact_schedule(topology, ranks, spec)) {
        out.result = simulator.run(*compact);
        return out;
      }
      out.result = simulator.run(ranks, spec);
      return out;
    }
    schedule.emplace(build_schedule(topology, ranks, spec));
  } catch (const std::invalid_argument& e) {
    out.not_applicable = e.what();
    return out;
  }
  try {
    if (request.engine) {
      out.result = request.engine->run(topology, options, *schedule);
    } else {
      SimOptions recorded = options;
      recorded.record_timeline = true;
      out.result = Simulator(topology, recorded, routes).run(*schedule);
    }
  } catch (const std::invalid_argument& e) {
    out.not_applicable = e.what();
    out.engine_refused = true;
    return out;
  }
  if (request.keep_schedule) out.schedule = std::move(schedule);
  return out;
}

/// The run key of an outcome: what ran (the scenario digest is the caller's to set).
void fill_key(const Topology& topology, const CollectiveRequest& request, CollectiveOutcome& out) {
  if (!out.result) return;
  RunKey& key = out.result->key;
  key.dtype = std::string(nccl_name(request.payload.dtype));
  key.protocol = std::string(to_string(out.protocol));
  key.channels = out.channels;
  key.order = request.order.digest(topology);
}

/// NVLS, NVLS-Tree and trees run slower than their links allow, and NCCL's model says by how much: the
/// NVSwitch's multicast and reduction at nvlsEfficiency of the NVLS channel bandwidth, the tree's
/// kernels at 0.92 of its channels' bandwidth with every byte counted up and down (ratio 0.5; see
/// nccl_tuning.cpp). The flows carry every byte at line rate, so NCCL's rate is a floor on the time:
/// a run the links alone would finish sooner is stretched to latency + bytes / NCCL's algorithm
/// bandwidth (rank finish times move by the same amount). So is a ring under LL, whose lines NCCL's
/// model runs below their wire efficiency; other rings keep the flows' time: their channels are the
/// links' own.
void apply_model_rate(Result& result, const NcclChoice& choice, Bytes message) {
  if (choice.floor.bits_per_second() <= 0) return;
  const Duration floor = choice.latency + message / choice.floor;
  if (result.time >= floor) return;
  const Duration delta = floor - result.time;
  result.time = floor;
  for (Duration& d : result.rank_finish) d = d + delta;
}

/// Algorithm::Nccl's size-independent part: NCCL's view of the cluster (the flows see only the NICs
/// NCCL_IB_HCA leaves, and an NVLink clique is one node) and its transports (SHM pairs and NET sides
/// without GPUDirect RDMA go through host memory, nccl_transport.hpp).
void prepare_nccl(State& state) {
  if (state.nccl_ready) return;
  state.nccl_ready = true;
  const CollectiveRequest& request = state.request;
  try {
    state.view = nccl_view(state.cluster, request.order.ranks, request.nccl_env);
  } catch (const std::invalid_argument& e) {
    state.view_unavailable = e.what();
    return;
  }
  try {
    const Topology& topology = state.view ? *state.view : state.cluster;
    auto transports = std::make_shared<const NcclTransports>(topology, request.nccl_env, EcmpPolicy::Channel);
    if (transports->detours(request.order.ranks))
      state.detours = [transports](DeviceId src, DeviceId dst, std::uint16_t channel) {
        const NcclConnection c = transports->connect(src, dst, channel);
        return Detour{c.waypoints, c.pcie_cost, c.costed_legs, c.max_rate};
      };
  } catch (const std::invalid_argument& e) {
    state.transports_unavailable = e.what();
  }
}

CollectiveOutcome unavailable(std::string why) {
  CollectiveOutcome out;
  out.not_applicable = std::move(why);
  return out;
}

/// Algorithm::Nccl: NCCL's model picks (algorithm, protocol, channels, chunk) once; the run then
/// uses NCCL's rings (nccl_channel_rings) and NCCL's modelled latency (SimOptions::start_latency).
CollectiveOutcome run_nccl(State& state, const CollectiveRequest& request, CollectiveSpec spec) {
  prepare_nccl(state);
  if (!state.view_unavailable.empty()) return unavailable(state.view_unavailable);
  const Topology& topology = state.view ? *state.view : state.cluster;
  // NCCL's rings and tree chains, one per channel, spread over every NIC (its own search; a rank
  // order's channel rings do not reach NCCL).
  if (!state.comm) state.comm.emplace(topology, request.order.ranks, spec.nccl_env);
  const NcclResolved nccl = state.comm->resolve(spec);
  const NcclChoice& choice = nccl.choice;
  if (!choice.unavailable.empty()) return unavailable(choice.unavailable);
  if (!state.transports_unavailable.empty()) return unavailable(state.transports_unavailable);
  spec = nccl.spec;
  SimOptions options = request.options;
  options.protocol = choice.protocol;
  // NCCL's latency model replaces the links' latencies; the flows supply the bandwidth term.
  options.start_latency = choice.latency;
  options.link_latencies = false;
  options.ecmp = EcmpPolicy::Channel;  // NCCL pins each channel to its NIC rail
  options.detours = state.detours;
  CollectiveOutcome out = run_spec(topology, request, spec, options, routes_for(state.nccl_routes, topology, options));
  out.channels = choice.logged_channels;  // as NCCL's log counts them (NVLS: its CTAs, not the heads)
  const std::string label = "nccl:" + choice.name;
  if (out.result) {
    apply_model_rate(*out.result, choice, spec.message);
    out.result->nccl_model = choice.predicted;
    out.result->algorithm = label;
  }
  if (out.schedule) {
    out.schedule->set_algorithm(label);
    out.schedule->set_protocol(choice.protocol);
    out.schedule->set_nccl_latency(choice.latency);
  }
  return out;
}

/// A concrete algorithm with the request's own options and routes.
CollectiveOutcome run_plain(State& state, const CollectiveRequest& request, const CollectiveSpec& spec) {
  return run_spec(state.cluster, request, spec, request.options,
                  routes_for(state.routes, state.cluster, request.options));
}

/// AlgorithmChoice::Auto: every algorithm that applies, the fastest kept (ties: enum order).
CollectiveOutcome run_auto(State& state, const CollectiveRequest& request, const CollectiveSpec& spec) {
  CollectiveOutcome best;
  std::vector<Candidate> candidates;
  std::string reasons;
  for (int a = 0; a < kAlgorithmCount; ++a) {
    CollectiveSpec candidate = spec;
    candidate.algorithm = Algorithm(a);
    CollectiveOutcome out = candidate.algorithm == Algorithm::Nccl ? run_nccl(state, request, candidate)
                                                                   : run_plain(state, request, candidate);
    candidates.push_back(Candidate{candidate.algorithm, out.result ? std::optional(out.result->time) : std::nullopt,
                                   out.not_applicable});
    if (!out.result) {
      reasons += (reasons.empty() ? "" : "; ") + std::string(to_string(candidate.algorithm)) + ": " + out.not_applicable;
      continue;
    }
    if (!best.result || out.result->time < best.result->time) best = std::move(out);
  }
  if (!best.result) best.not_applicable = "no algorithm applies (" + reasons + ")";
  best.candidates = std::move(candidates);
  return best;
}

/// A 0-byte collective (nccl-tests' size-0 row): nothing moves, it takes no time, and there is no
/// schedule to keep.
CollectiveOutcome empty_outcome(const CollectiveRequest& request, const CollectiveSpec& spec) {
  CollectiveOutcome out;
  out.algorithm = spec.algorithm;
  out.protocol = request.options.protocol;
  out.channels = spec.channels;
  out.chunk = spec.chunk;
  Result result;
  result.source.engine = "ringlab-flow " RINGLAB_VERSION;
  result.collective = spec.collective;
  result.algorithm = request.choice == AlgorithmChoice::Auto ? "auto" : std::string(to_string(spec.algorithm));
  result.ranks = int(request.order.ranks.size());
  if (request.options.record_rank_finish) result.rank_finish.assign(request.order.ranks.size(), Duration{});
  out.result = std::move(result);
  return out;
}

}  // namespace

Bytes whole_elements(Bytes size, const Payload& payload) {
  const std::int64_t e = payload.element_bytes();
  if (size.count() <= 0) return Bytes{};
  return Bytes{std::max<std::int64_t>(1, size.count() / e) * e};
}

CollectiveSweep::CollectiveSweep(const Topology& topology, CollectiveRequest request)
    : state_(std::make_unique<State>(topology, std::move(request))) {}
CollectiveSweep::~CollectiveSweep() = default;
CollectiveSweep::CollectiveSweep(CollectiveSweep&&) noexcept = default;
CollectiveSweep& CollectiveSweep::operator=(CollectiveSweep&&) noexcept = default;

const CollectiveRequest& CollectiveSweep::request() const { return state_->request; }

CollectiveOutcome CollectiveSweep::run(Bytes message, bool keep_schedule) {
  State& state = *state_;
  CollectiveRequest& request = state.request;
  request.message = message;
  request.keep_schedule = keep_schedule;
  const CollectiveSpec spec = base_spec(request, whole_elements(message, request.payload));
  if (spec.message == Bytes{}) {
    CollectiveOutcome out = empty_outcome(request, spec);
    fill_key(state.cluster, request, out);
    return out;
  }
  CollectiveOutcome out = request.choice == AlgorithmChoice::Auto ? run_auto(state, request, spec)
                          : spec.algorithm == Algorithm::Nccl     ? run_nccl(state, request, spec)
                                                                  : run_plain(state, request, spec);
  fill_key(state.cluster, request, out);
  return out;
}

CollectiveOutcome run_collective(const Topology& topology, const CollectiveRequest& request) {
  return CollectiveSweep(topology, request).run(request.message, request.keep_schedule);
}

}  // namespace ringlab::sim
