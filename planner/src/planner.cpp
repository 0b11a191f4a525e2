// make_plan(): order, algorithm, bound, batch and NCCL settings for one scenario (planner.hpp).
#include "ringlab/planner/planner.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <stdexcept>

#include "ringlab/sim/report.hpp"
#include "ringlab/sim/result.hpp"
#include "ringlab/topology/error.hpp"
#include "ringlab/topology/json_reader.hpp"
#include "ringlab/sim/training.hpp"

namespace ringlab::planner {
namespace {

/// Above this many ranks x channels a ring simulation takes seconds: compare with fewer random orders.
constexpr int kLargeRingFlows = 256;
constexpr int kHugeRingFlows = 2048;  ///< above this, none (each costs as much as the plan's own confirmation)
constexpr int kRandomOrdersLarge = 2;
constexpr double kSameTime = 1.005;       ///< within 0.5 %: "as fast as"
/// Every algorithm but the ring gets this many times the planned ring's events, and at least
/// kMinEventBudget, before its simulation is stopped and reported as not timed: max-min sharing
/// over thousands of concurrent flows can take seconds to minutes (measured: direct all-reduce on
/// 512 GPUs, 261,632 flows in flight, 8.7 s; the ring on the same cluster, 0.12 s). Event counts
/// are deterministic, so the cut-off is too.
constexpr std::uint64_t kEventBudgetFactor = 8;
constexpr std::uint64_t kMinEventBudget = std::uint64_t(1) << 21;
/// Algorithms that would keep more flows than this in flight at once are not simulated at all:
/// a single reallocation over them already takes seconds, before any budget check.
constexpr double kMaxConcurrentFlows = 65536;

/// Flows an algorithm keeps in flight at once on p ranks over h hosts (order of magnitude).
double concurrent_flows(sim::Algorithm a, double p, double h) {
  switch (a) {
    case sim::Algorithm::Direct: return p * (p - 1);
    case sim::Algorithm::ParameterServer: return p * h;
    default: return p;
  }
}

std::string percent(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", x * 100);
  return buf;
}
std::string ratio(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", x);
  return buf;
}
std::string ms(Duration d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", d.seconds() * 1e3);
  return buf;
}

/// Host blocks of a host-contiguous order, in order.
std::vector<std::vector<DeviceId>> blocks_of(const Topology& t, const std::vector<DeviceId>& ranks) {
  std::vector<std::vector<DeviceId>> blocks;
  HostId last = kNoHost - 1;
  for (DeviceId g : ranks) {
    const HostId h = t.device(g).host;
    if (blocks.empty() || h != last || h == kNoHost) blocks.emplace_back();
    blocks.back().push_back(g);
    last = h;
  }
  return blocks;
}

sim::RankOrder from_blocks(const std::vector<std::vector<DeviceId>>& blocks, std::string source) {
  sim::RankOrder order;
  for (const auto& b : blocks) order.ranks.insert(order.ranks.end(), b.begin(), b.end());
  order.source = std::move(source);
  return order;
}

/// torchrun's dynamic (c10d) rendezvous ranks nodes by sorted() host name (launchers.md 2).
sim::RankOrder sorted_host_names(const Topology& t, const std::vector<DeviceId>& gpus) {
  std::map<std::string, std::vector<DeviceId>> by_name;
  std::vector<std::vector<DeviceId>> loose;
  for (DeviceId g : gpus) {
    const HostId h = t.device(g).host;
    if (h == kNoHost) loose.push_back({g});
    else by_name[t.host(h).name].push_back(g);
  }
  std::vector<std::vector<DeviceId>> blocks;
  for (auto& [name, members] : by_name) {
    std::sort(members.begin(), members.end(),
              [&](DeviceId a, DeviceId b) { return t.device(a).local_index < t.device(b).local_index; });
    blocks.push_back(members);
  }
  blocks.insert(blocks.end(), loose.begin(), loose.end());
  return from_blocks(blocks, "sorted host names");
}

bool host_contiguous(const Topology& t, const sim::RankOrder& order, int channels) {
  try {
    host_plans(t, order, channels);
    return true;
  } catch (const std::invalid_argument&) {
    return false;
  }
}

/// The training job of a scenario that has one.
std::optional<sim::TrainJob> training_job(const Scenario& scenario) {
  if (scenario.workload.empty()) return std::nullopt;
  return sim::train_job_from_scenario(scenario);
}

/// The order the allocation gives: the request's, else the scenario's simulate "rank_order", else
/// declaration order.
sim::RankOrder scheduler_order(const Scenario& scenario, const PlanRequest& request) {
  if (request.scheduler_order) return *request.scheduler_order;
  const auto section = scenario.simulate.find("rank_order");
  if (section == scenario.simulate.end()) return sim::declaration_order(scenario.cluster, request.ranks);
  ProblemList problems(scenario.file.empty() ? "<built-in scenario>" : scenario.file);
  JsonReader reader(problems);
  std::optional<sim::RankOrder> order =
      sim::read_rank_order(scenario.cluster, reader, JsonNode{&*section, "/simulate/rank_order"}, request.ranks, scenario.file);
  problems.throw_if_any();
  return *order;
}

class Timer {
 public:
  Timer(const Topology& t, const PlanRequest& request, Bytes message, int channels)
      : t_(t), request_(request), message_(message), channels_(channels) {}

  sim::CollectiveRequest base(const sim::RankOrder& order) const {
    sim::CollectiveRequest r;
    r.collective = request_.collective;
    r.message = message_;
    r.order = order;
    r.channels = channels_;
    r.options.ecmp = request_.ecmp;
    r.options.ecmp_seed = request_.ecmp_seed;
    r.nccl_env = request_.nccl_env;
    return r;
  }
  /// The ring's time and event count.
  std::pair<Duration, std::uint64_t> ring(const sim::RankOrder& order) const {
    sim::CollectiveRequest r = base(order);
    r.algorithm = sim::Algorithm::Ring;
    const sim::CollectiveOutcome o = sim::run_collective(t_, r);
    if (!o.applicable()) throw std::invalid_argument("ring does not apply: " + o.not_applicable);
    return {o.result->time, o.result->events};
  }
  /// Times `algorithm` (nccl: NCCL's pick) unless its simulation passes `events`; then the
  /// candidate says so instead of a time.
  sim::Candidate candidate(const sim::RankOrder& order, sim::Algorithm algorithm, std::uint64_t events) const {
    sim::CollectiveRequest r = base(order);
    r.algorithm = algorithm;
    std::atomic<bool> stop{false};
    r.options.cancel = &stop;
    r.options.progress = [&stop, events](const sim::Progress& p) {
      if (p.events > events) stop = true;
    };
    sim::Candidate c{algorithm, std::nullopt, ""};
    try {
      const sim::CollectiveOutcome o = sim::run_collective(t_, r);
      if (o.applicable()) c.time = o.result->time;
      else c.not_applicable = o.not_applicable;
    } catch (const sim::Cancelled&) {
      c.not_applicable = "not timed: more than " + std::to_string(events) + " events (time it with ringlab simulate --algo " +
                         std::string(sim::to_string(algorithm)) + ")";
    }
    return c;
  }
  sim::CollectiveOutcome nccl(const sim::RankOrder& order) const {
    sim::CollectiveRequest r = base(order);
    r.algorithm = sim::Algorithm::Nccl;
    return sim::run_collective(t_, r);
  }

 private:
  const Topology& t_;
  const PlanRequest& request_;
  Bytes message_;
  int channels_;
};

std::string nccl_algorithm_name(sim::Algorithm a) {
  switch (a) {
    case sim::Algorithm::Ring: return "Ring";
    case sim::Algorithm::Tree: return "Tree";
    default: return "";
  }
}

/// The user's NCCL_* settings (the scenario's "nccl" section, then --nccl-env; the last of a name
/// wins) that the plan does not set itself: NCCL's choice was timed under them.
void add_user_settings(std::vector<NcclSetting>& env, const sim::NcclEnv& user) {
  std::vector<NcclSetting> given;
  for (const std::string& s : user.settings) {
    auto [name, value] = sim::split_nccl_setting(s);
    if (!name.starts_with("NCCL_")) continue;  // ringlab's own keys ("version")
    std::erase_if(given, [&key = name](const NcclSetting& g) { return g.name == key; });
    given.push_back({std::move(name), std::move(value), "your setting (the scenario's nccl section or --nccl-env); the plan was timed under it", false});
  }
  for (NcclSetting& g : given)
    if (std::none_of(env.begin(), env.end(), [&](const NcclSetting& e) { return e.name == g.name; }))
      env.push_back(std::move(g));
}

std::vector<NcclSetting> nccl_settings(const Plan& plan, const sim::NcclEnv& user) {
  std::vector<NcclSetting> env;
  bool cross = false;
  for (const HostPlan& h : plan.hosts)
    for (const HostChannel& c : h.channels) cross |= c.nic_in != c.nic_out && c.nic_in >= 0;
  // NCCL_GRAPH_FILE is per node: the bundle's nccl.env sets it (bundle.hpp).
  if (plan.hosts.size() > 1) {
    env.push_back({"NCCL_CROSS_NIC", cross ? "1" : "0",
                   cross ? "the planned channels enter and leave a host by different NICs; with 0 NCCL would ignore the graph file"
                         : "every channel enters and leaves a host by the same NIC (rail-aligned)",
                   false});
  }
  const std::string algo = nccl_algorithm_name(sim::find_algorithm(plan.algorithm).value_or(sim::Algorithm::Nccl));
  if (!algo.empty()) {  // else NCCL's own choice, or an algorithm NCCL does not run: no pins
    env.push_back({"NCCL_ALGO", algo, "the algorithm the plan was timed with; NCCL says not to keep this in production", true});
    env.push_back({"NCCL_MIN_NCHANNELS", std::to_string(plan.channels), "the channel count the plan was timed with", true});
    env.push_back({"NCCL_MAX_NCHANNELS", std::to_string(plan.channels), "the channel count the plan was timed with", true});
  }
  add_user_settings(env, user);
  return env;
}

std::string nccl_label(const sim::CollectiveOutcome& o, const sim::NcclEnv& env) {
  if (!o.applicable()) return "not applicable: " + o.not_applicable;
  std::string label = sim::algorithm_label(o.result->algorithm, std::string(sim::to_string(o.protocol)), o.channels) +
                      ", " + ms(o.result->time);
  std::string settings;
  for (const std::string& s : env.settings) settings += (settings.empty() ? "" : ", ") + s;
  return settings.empty() ? label : label + " (under " + settings + ")";
}

}  // namespace

PlanReport make_plan(const Scenario& scenario, const PlanRequest& request) {
  const Topology& t = scenario.cluster;
  const sim::RankOrder scheduler = scheduler_order(scenario, request);
  const std::vector<DeviceId>& gpus = scheduler.ranks;
  if (gpus.size() < 2) throw std::invalid_argument("a plan needs at least two GPUs");

  std::optional<sim::TrainJob> job = training_job(scenario);
  Bytes message = request.message;
  if (message.value == 0 && job)
    message = Bytes{job->workload.parameters() * sim::element_size(job->strategy.gradient_dtype)};
  if (message.value == 0) message = kDefaultMessage;

  int channels = request.channels;
  if (channels <= 0) {
    int nics = 0;
    const HostId h = t.device(gpus.front()).host;
    if (h != kNoHost)
      for (DeviceId d : t.host_devices(h)) nics += t.device(d).kind == DeviceKind::Nic;
    channels = std::max(1, nics);
  }

  PlanReport report;
  const Router router(t, request.ecmp, request.ecmp_seed);
  OrderSearchOptions search = request.search;
  search.channels = channels;
  report.search = search_ring_order(t, router, gpus, search);
  report.search.order.source = "planned";
  report.search.constructed.source = "constructed";

  const Timer timer(t, request, message, channels);
  struct Option {
    sim::RankOrder order;
    Duration time;
    bool eligible;  // host-contiguous: launchable
  };
  std::vector<Option> options;
  std::map<std::string, std::pair<Duration, std::uint64_t>> timed;  // by digest: equal orders are simulated once
  auto ring_time = [&](const sim::RankOrder& order) {
    const std::string digest = order.digest(t);
    auto it = timed.find(digest);
    if (it == timed.end()) it = timed.emplace(digest, timer.ring(order)).first;
    return it->second.first;
  };
  auto add = [&](sim::RankOrder order, bool eligible) {
    const Duration time = ring_time(order);
    options.push_back({std::move(order), time, eligible});
  };
  add(report.search.order, true);
  add(report.search.constructed, true);
  sim::RankOrder sched = scheduler;
  sched.source = "scheduler order";
  add(sched, host_contiguous(t, sched, channels));
  const Duration sched_time = options.back().time;
  add(sorted_host_names(t, gpus), true);
  const Duration sorted_time = options.back().time;

  // Random host orders (seeded), kept apart: only their best, median and worst are reported.
  const int ring_flows = int(gpus.size()) * channels;
  const int randoms = ring_flows > kHugeRingFlows    ? 0
                      : ring_flows > kLargeRingFlows ? std::min(request.random_orders, kRandomOrdersLarge)
                                                     : request.random_orders;
  std::vector<Duration> random_times;
  {
    std::mt19937_64 rng(request.search.seed ^ 0x5eedULL);
    auto blocks = blocks_of(t, report.search.constructed.ranks);
    for (int k = 0; k < randoms; ++k) {
      for (std::size_t i = blocks.size(); i > 1; --i) std::swap(blocks[i - 1], blocks[rng() % i]);
      random_times.push_back(ring_time(from_blocks(blocks, "random")));
    }
    std::sort(random_times.begin(), random_times.end());
  }

  // The fastest launchable order wins; ties keep the earlier (planned first).
  const Option* best = &options.front();
  for (const Option& o : options)
    if (o.eligible && o.time < best->time) best = &o;

  Plan& plan = report.plan;
  plan.scenario = scenario.name;
  plan.scenario_digest = sim::digest_hex(scenario.document.dump());
  plan.order = best->order;
  plan.order.source = "plan (" + best->order.source + ")";
  plan.collective = request.collective;
  plan.message = message;
  plan.channels = channels;
  plan.ecmp = request.ecmp;
  plan.hosts = host_plans(t, plan.order, channels, request.ecmp);
  plan.master_host = plan.hosts.front().name;
  report.ring_time = best->time;

  for (const Option& o : options)
    report.orders.push_back({o.order.source, o.order.digest(t), o.time});
  if (!random_times.empty()) {
    const auto name = [&](const char* what) { return std::string("random (") + what + " of " + std::to_string(randoms) + ")"; };
    report.orders.push_back({name("best"), "", random_times.front()});
    report.orders.push_back({name("median"), "", random_times[random_times.size() / 2]});
    report.orders.push_back({name("worst"), "", random_times.back()});
  }

  // Every algorithm on the planned order; the ring's time is already known.
  const std::uint64_t ring_events = timed.at(best->order.digest(t)).second;
  const std::uint64_t budget = std::max(kMinEventBudget, kEventBudgetFactor * ring_events);
  report.best_algorithm = sim::Algorithm::Ring;
  report.best_time = best->time;
  for (int a = 0; a < sim::kAlgorithmCount; ++a) {
    const auto algorithm = sim::Algorithm(a);
    const double flows = concurrent_flows(algorithm, plan.ranks(), double(plan.hosts.size()));
    sim::Candidate c = algorithm == sim::Algorithm::Ring ? sim::Candidate{algorithm, best->time, ""}
                       : flows > kMaxConcurrentFlows
                           ? sim::Candidate{algorithm, std::nullopt,
                                            "not timed: about " + std::to_string(std::llround(flows)) +
                                                " flows in flight (time it with ringlab simulate --algo " +
                                                std::string(sim::to_string(algorithm)) + ")"}
                           : timer.candidate(plan.order, algorithm, budget);
    if (c.time && *c.time < report.best_time) report.best_algorithm = algorithm, report.best_time = *c.time;
    report.algorithms.push_back(std::move(c));
  }
  plan.algorithm = std::string(sim::to_string(report.best_algorithm));
  report.nccl_choice = nccl_label(timer.nccl(plan.order), request.nccl_env);
  report.bound = lower_bound(t, router, gpus, request.collective, message);
  plan.nccl_env = nccl_settings(plan, request.nccl_env);

  if (job) {
    job->order = plan.order;
    std::string why;
    report.batch = plan_batch(*job, t, request.batch, why);
    if (report.batch) plan.batch = report.batch->plan;
    else report.reasons.push_back("Batch: " + why + ".");
  }

  // Plain words.
  const auto against = [&](Duration other) {
    return other / best->time < kSameTime ? std::string("as fast as") : ratio(other / best->time) + " faster than";
  };
  std::string first = "The planned order (" + best->order.source + ") runs the " + std::string(sim::to_string(request.collective)) +
                      " of " + to_string(message) + " as a ring in " + ms(best->time) + ": " + against(sched_time) +
                      " the scheduler's order (" + ms(sched_time) + ") and " + against(sorted_time) +
                      " hosts sorted by name, as torchrun's dynamic rendezvous would rank them (" + ms(sorted_time) + ").";
  report.reasons.push_back(first);
  if (report.bound.ring.ps > 0)
    report.reasons.push_back("No ring on these GPUs can beat " + ms(report.bound.ring) + " (" + report.bound.ring_cut +
                             "); the plan is within " + percent(best->time / report.bound.ring - 1) + " of it.");
  if (report.bound.any.ps > 0)
    report.reasons.push_back("No algorithm without in-network reduction can beat " + ms(report.bound.any) + " (" +
                             report.bound.any_cut + ").");
  {
    std::string s = plan.algorithm + " is the fastest algorithm on this order (" + ms(report.best_time) + ")";
    std::vector<std::string> others;
    for (const sim::Candidate& c : report.algorithms)
      if (c.time && c.algorithm != report.best_algorithm)
        others.push_back(std::string(sim::to_string(c.algorithm)) + " " + ms(*c.time) + " (+" +
                         percent(*c.time / report.best_time - 1) + ")");
    if (!others.empty()) {
      s += "; ";
      for (std::size_t i = 0; i < others.size(); ++i) s += (i ? ", " : "") + others[i];
    }
    report.reasons.push_back(s + ".");
    if (report.best_algorithm == sim::Algorithm::Nccl)
      report.reasons.push_back("NCCL's own choice (" + report.nccl_choice +
                               ") is fastest: leave NCCL_ALGO and NCCL_PROTO unset and let its tuner pick.");
    else if (nccl_algorithm_name(report.best_algorithm).empty() && report.nccl_choice.starts_with("not applicable"))
      report.reasons.push_back("NCCL does not run " + plan.algorithm + ", and what NCCL would pick is unknown here (" +
                               report.nccl_choice + "); the graph files pin the planned ring.");
    else if (nccl_algorithm_name(report.best_algorithm).empty())
      report.reasons.push_back("NCCL does not run " + plan.algorithm + "; under NCCL its tuner picks " + report.nccl_choice +
                               ", so the graph files pin the planned ring instead.");
  }
  if (report.batch)
    report.reasons.push_back("Per-GPU micro-batch " + std::to_string(report.batch->plan.micro_batch) + " with " +
                             std::to_string(report.batch->plan.accumulation) + " accumulation step(s) gives a global batch of " +
                             std::to_string(report.batch->plan.global_batch) + " at " +
                             std::to_string(std::lround(report.batch->samples_per_second)) + " samples/s (communication " +
                             percent(report.batch->comm_fraction) + " of the step); " + report.batch->plan.lr_scaling + ".");
  if (report.search.hit_time_limit)
    report.reasons.push_back("The order search stopped at its time limit; another run may find a different order.");
  plan.report = report_json(report);
  return report;
}

}  // namespace ringlab::planner
