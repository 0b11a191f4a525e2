// `ringlab simulate`: sweep a collective over message sizes on a scenario's cluster and report
// nccl-tests style (table), JSON or CSV, optionally with a Chrome trace of the largest size.
//
// Settings come from the scenario's "simulate" section with command-line options merged over it (an
// option writes the section key of the same name); problems in either are reported together as one
// InputError naming the file and the /simulate/<key> path.
#include <algorithm>
#include <charconv>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "ringlab/sim/calibration_file.hpp"
#include "ringlab/sim/plot.hpp"
#include "names.hpp"
#include "nccl_env_options.hpp"
#include "output.hpp"
#include "validators.hpp"
#include "ringlab/sim/collectives.hpp"
#include "ringlab/sim/nccl_transport.hpp"
#include "ringlab/sim/nccl_tuning.hpp"
#include "ringlab/sim/rank_order.hpp"
#include "ringlab/sim/run_collective.hpp"
#include "ringlab/sim/report.hpp"
#include "ringlab/sim/result_json.hpp"
#include "ringlab/sim/schedule_json.hpp"
#include "ringlab/sim/simgrid_engine.hpp"
#include "ringlab/sim/simulator.hpp"
#include "ringlab/sim/trace.hpp"
#include "ringlab/topology/error.hpp"
#include "ringlab/topology/json_reader.hpp"
#include "ringlab/topology/suggest.hpp"

namespace ringlab::cli {
namespace {

using namespace ringlab::sim;

/// Raw settings as strings/numbers, read from the merged "simulate" section.
struct SimulateSettings {
  std::string collective = "allreduce";
  std::string algorithm = "ring";
  std::string sizes = "1MiB:1GiB:x4";
  std::string dtype = "float";
  std::string compression = "none";
  std::string protocol = "simple";
  std::string calibration;  // "" = nccl for the nccl algorithm, pure otherwise
  std::string hierarchy = "leader";
  std::string inter = "ring";
  std::string ecmp = "hash";
  std::string chunk = "0";
  std::string engine = "ringlab";
  std::string simgrid_model = "pure";
  int channels = 1;
  int ranks = 0;  // 0: "ranks" absent, every GPU
  int root = 0;
  std::uint64_t seed = 0;
  bool no_compute = false;
  bool shortcuts = true;
  std::optional<JsonNode> rank_order;  // "rank_order" as written, read against the cluster in validate()
  std::string rank_order_file;         // --rank-order FILE, which replaces it
};

struct CommandLine {
  std::string scenario;
  std::string format = "table";
  std::string output;
  std::string trace;
  std::string plot;             ///< --plot: an SVG of busbw against size, one line per algorithm
  bool print_schedule = false;
  std::string rank_order_file;  ///< --rank-order (relative to the working directory); wins over the section's
  std::string schedule_file;    ///< simulate --schedule: run this schedule file instead of building one
  std::vector<std::string> nccl_env;  ///< --nccl-env NAME=VALUE, over the scenario's "nccl" section
  /// Settings given on the command line, keyed as in the "simulate" section; merged over it.
  nlohmann::json overrides = nlohmann::json::object();
};

/// A validated run configuration.
struct RunPlan {
  Collective collective = Collective::AllReduce;
  Algorithm algorithm = Algorithm::Ring;
  bool auto_choice = false;  ///< "auto": the fastest applicable algorithm per size
  std::vector<Bytes> sizes;
  Payload payload;
  Protocol protocol = Protocol::Simple;
  Calibration calibration = Calibration::pure();  ///< pure, nccl, or a calibration file's
  std::string calibration_name = "pure";          ///< for the report header
  Hierarchy hierarchy = Hierarchy::Leader;
  InterAlgorithm inter = InterAlgorithm::Ring;
  EcmpPolicy ecmp = EcmpPolicy::Hash;
  bool simgrid = false;  ///< run on the SimGrid reference engine instead of ringlab's
  SimgridModel simgrid_model = SimgridModel::Pure;
  Bytes chunk;
  int channels = 1;
  sim::NcclEnv nccl_env;  ///< the nccl algorithm's NCCL settings
  int root = 0;
  std::uint64_t seed = 0;
  bool model_compute = true;
  bool shortcuts = true;     ///< SimOptions::exact_shortcuts
  bool rank_finish = false;  ///< fill Result::rank_finish (the results format writes it)
  RankOrder order;
};

constexpr std::int64_t kMaxSweepSizes = 64;

// Parses "8:8G:x2" (min:max:xFactor), "1M:64M:+1M" (additive step), "1GiB" or "1MiB,4MiB".
std::vector<Bytes> parse_sizes(const std::string& text) {
  std::vector<Bytes> out;
  if (text.find(',') != std::string::npos) {
    std::size_t start = 0;
    while (start <= text.size()) {
      const std::size_t comma = std::min(text.find(',', start), text.size());
      out.push_back(parse_bytes(text.substr(start, comma - start), true));
      start = comma + 1;
    }
    return out;
  }
  const std::size_t c1 = text.find(':');
  if (c1 == std::string::npos) return {parse_bytes(text, true)};
  const std::size_t c2 = text.find(':', c1 + 1);
  const Bytes lo = parse_bytes(text.substr(0, c1), true);
  const Bytes hi = parse_bytes(text.substr(c1 + 1, c2 == std::string::npos ? std::string::npos : c2 - c1 - 1), true);
  const std::string step = c2 == std::string::npos ? "x2" : text.substr(c2 + 1);
  if (hi < lo) throw UnitError("the largest size is smaller than the smallest");
  if (lo.count() <= 0) throw UnitError("sizes must be positive");
  if (step.empty() || (step[0] != 'x' && step[0] != '+'))
    throw UnitError("expected a step 'xFACTOR' or '+BYTES' after the second ':', e.g. 8:8G:x2");
  if (step[0] == 'x') {
    std::int64_t factor = 0;
    const std::string digits = step.substr(1);
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), factor);
    if (ec != std::errc{} || end != digits.data() + digits.size() || factor < 2)
      throw UnitError("expected an integer factor of at least 2 after 'x', e.g. x2");
    for (Bytes s = lo; s <= hi; s = s * factor) {
      out.push_back(s);
      if (s.count() > hi.count() / factor) break;  // the next size would pass hi (or overflow)
    }
  } else {
    const Bytes inc = parse_bytes(step.substr(1), true);
    if (inc.count() <= 0) throw UnitError("the step after '+' must be positive");
    for (Bytes s = lo; s <= hi && std::int64_t(out.size()) <= kMaxSweepSizes; s += inc) out.push_back(s);
  }
  if (std::int64_t(out.size()) > kMaxSweepSizes)
    throw UnitError("the sweep has more than " + std::to_string(kMaxSweepSizes) + " sizes");
  return out;
}

// Reads the scenario's "simulate" section into `s`, reporting wrong types and unknown keys.
void read_section(JsonReader& r, const JsonNode& section, SimulateSettings& s) {
  r.check_keys(section, {"collective", "algorithm", "sizes", "dtype", "compression", "protocol", "calibration",
                         "hierarchy", "inter", "ecmp", "chunk", "channels", "ranks", "root", "seed", "compute", "shortcuts",
                         "engine", "simgrid_model", "rank_order"});
  for (auto [key, into] : {std::pair{"collective", &s.collective}, {"algorithm", &s.algorithm}, {"sizes", &s.sizes},
                           {"dtype", &s.dtype}, {"compression", &s.compression}, {"protocol", &s.protocol},
                           {"calibration", &s.calibration}, {"hierarchy", &s.hierarchy}, {"inter", &s.inter},
                           {"ecmp", &s.ecmp}, {"chunk", &s.chunk}, {"engine", &s.engine},
                           {"simgrid_model", &s.simgrid_model}})
    r.field(section, key, *into);
  constexpr int kIntMax = std::numeric_limits<int>::max();
  r.field(section, "channels", s.channels, 0, kIntMax);
  r.field(section, "ranks", s.ranks, 1, kIntMax);  // absent: every GPU
  r.field(section, "root", s.root, 0, kIntMax);
  r.field(section, "seed", s.seed);
  bool compute = !s.no_compute;
  r.field(section, "compute", compute);
  s.no_compute = !compute;
  r.field(section, "shortcuts", s.shortcuts);
  s.rank_order = r.member(section, "rank_order");
}

template <typename T, typename F>
T lookup(const std::string& value, F find, const char* where, const std::string& expected, ProblemList& problems) {
  if (auto v = find(value)) return *v;
  problems.add(where, "unknown value '" + value + "'" + did_you_mean(value, expected) + "; expected " + expected);
  return T{};
}

RunPlan validate(const SimulateSettings& s, const Scenario& scenario, JsonReader& reader, ProblemList& problems) {
  const Topology& topology = scenario.cluster;
  RunPlan plan;
  plan.collective = lookup<Collective>(s.collective, find_collective, "/simulate/collective",
                                       "allreduce, reducescatter, allgather, broadcast or reduce", problems);
  plan.auto_choice = s.algorithm == "auto";
  if (!plan.auto_choice)
    plan.algorithm = lookup<Algorithm>(s.algorithm, find_algorithm, "/simulate/algorithm", algorithm_names() + ", auto", problems);
  plan.payload.dtype = lookup<DataType>(s.dtype, find_data_type, "/simulate/dtype",
                                        "float, bf16, half, fp8 or int8", problems);
  plan.protocol = lookup<Protocol>(s.protocol, find_protocol, "/simulate/protocol", "simple, ll128 or ll", problems);
  plan.hierarchy = lookup<Hierarchy>(s.hierarchy, find_hierarchy, "/simulate/hierarchy", "leader or rail", problems);
  plan.inter = lookup<InterAlgorithm>(s.inter, find_inter_algorithm, "/simulate/inter", "ring, tree or in_network", problems);
  if (auto c = parse_compression(s.compression)) plan.payload.compression = *c;
  else problems.add("/simulate/compression", "unknown value '" + s.compression + "'; expected none, fp8, int8 or topk:RATIO with 0 < RATIO <= 1");
  if (s.ecmp == "hash") plan.ecmp = EcmpPolicy::Hash;
  else if (s.ecmp == "first") plan.ecmp = EcmpPolicy::First;
  else problems.add("/simulate/ecmp", "unknown value '" + s.ecmp + "'" + did_you_mean(s.ecmp, "hash or first") + "; expected hash or first");
  if (s.engine != "ringlab" && s.engine != "simgrid")
    problems.add("/simulate/engine", "unknown value '" + s.engine + "'" + did_you_mean(s.engine, "ringlab or simgrid") +
                                         "; expected ringlab or simgrid");
  plan.simgrid = s.engine == "simgrid";
  plan.simgrid_model = lookup<SimgridModel>(s.simgrid_model, find_simgrid_model, "/simulate/simgrid_model",
                                            "pure or default", problems);
  const std::string calibration = s.calibration.empty() ? (s.algorithm == "nccl" ? "nccl" : "pure") : s.calibration;
  plan.calibration_name = calibration;
  if (calibration == "pure" || calibration == "nccl") {
    plan.calibration = calibration == "nccl" ? Calibration::nccl() : Calibration::pure();
  } else if (std::filesystem::exists(calibration)) {
    plan.calibration = load_calibration_file(calibration).calibration();  // throws InputError naming the file
  } else {
    problems.add("/simulate/calibration", "unknown value '" + calibration + "'" + did_you_mean(calibration, "pure or nccl") +
                                              "; expected pure, nccl or a calibration file (ringlab calibrate -o)");
  }
  try {
    plan.sizes = parse_sizes(s.sizes);
  } catch (const std::exception& e) {
    problems.add("/simulate/sizes", std::string(e.what()) + " (format: MIN:MAX:xFACTOR, MIN:MAX:+STEP, SIZE or SIZE,SIZE,...)");
  }
  try {
    plan.chunk = parse_bytes(s.chunk, true);
  } catch (const std::exception& e) {
    problems.add("/simulate/chunk", e.what());
  }
  if (s.channels < 1 || s.channels > 64) problems.add("/simulate/channels", "expected 1 to 64 channels");
  plan.channels = s.channels;
  plan.root = s.root;
  plan.seed = s.seed;
  plan.model_compute = !s.no_compute;
  plan.shortcuts = s.shortcuts;
  const std::vector<DeviceId> gpus = topology.gpus();
  const int want = s.ranks == 0 ? int(gpus.size()) : s.ranks;
  if (want < 1 || want > int(gpus.size()))
    problems.add("/simulate/ranks", "expected 1 to " + std::to_string(gpus.size()) + " ranks (the cluster's GPUs)");
  else plan.order = declaration_order(topology, want);
  if (!s.rank_order_file.empty() && want >= 1 && want <= int(gpus.size())) {
    plan.order = load_rank_order(topology, s.rank_order_file, s.ranks);
  } else if (s.rank_order && want >= 1 && want <= int(gpus.size())) {
    if (auto order = read_rank_order(topology, reader, *s.rank_order, s.ranks, scenario.file)) plan.order = std::move(*order);
  }
  if (plan.root < 0 || plan.root >= std::max(want, 1)) problems.add("/simulate/root", "expected a rank index below the rank count");
  return plan;
}

/// The scenario's "simulate" section with the command line merged over it, read and validated;
/// problems go to `problems`.
RunPlan read_plan(const Scenario& scenario, const CommandLine& c, ProblemList& problems) {
  nlohmann::json section = scenario.simulate;
  section.update(c.overrides);
  JsonReader reader(problems);
  SimulateSettings settings;
  read_section(reader, JsonNode{&section, "/simulate"}, settings);
  settings.rank_order_file = c.rank_order_file;
  RunPlan plan = validate(settings, scenario, reader, problems);
  plan.nccl_env = read_nccl_env(scenario, c.nccl_env);
  plan.nccl_env.latency_factors = plan.calibration.nccl_latency;  // what the model line and tuning log show
  // Under algorithm nccl, NCCL's tuning model picks channels, chunk and protocol per size; the
  // options mean what NCCL's own settings mean: --protocol is NCCL_PROTO, --channels fixes
  // NCCL_MIN_NCHANNELS and NCCL_MAX_NCHANNELS. A chunk is NCCL_BUFFSIZE / 8, so --chunk is refused.
  if (!plan.auto_choice && plan.algorithm == Algorithm::Nccl) {
    if (section.contains("chunk"))
      problems.add("/simulate/chunk", "not used with algorithm nccl: NCCL's chunk is NCCL_BUFFSIZE / 8 (Simple); "
                                      "set --nccl-env NCCL_BUFFSIZE=BYTES instead");
    if (section.contains("protocol")) sim::set_nccl_env(plan.nccl_env, "NCCL_PROTO", std::string(to_string(plan.protocol)));
    if (section.contains("channels")) {
      sim::set_nccl_env(plan.nccl_env, "NCCL_MIN_NCHANNELS", std::to_string(std::min(plan.channels, 32)));
      sim::set_nccl_env(plan.nccl_env, "NCCL_MAX_NCHANNELS", std::to_string(std::min(plan.channels, 32)));
    }
  }
  plan.rank_finish = c.format == "results";
  return plan;
}

/// Engine options of a plan (the protocol is the caller's: the plan's, NCCL's pick or a schedule's).
SimOptions sim_options(const RunPlan& plan) {
  SimOptions options;
  options.ecmp = plan.ecmp;
  options.ecmp_seed = plan.seed;
  options.calibration = plan.calibration;
  options.calibration.model_compute = plan.model_compute;
  options.record_rank_finish = plan.rank_finish;
  options.exact_shortcuts = plan.shortcuts;
  options.fold_channels = plan.shortcuts;
  return options;
}

/// The report row fields every run shares: element type, reduction and root as nccl-tests prints them.
void describe_row(ReportRow& row, Collective collective, const Payload& payload, int root) {
  row.type = std::string(nccl_name(payload.dtype));
  row.element_size = int(payload.element_bytes());
  const bool reduces = collective != Collective::AllGather && collective != Collective::Broadcast;
  row.redop = reduces ? "sum" : "none";
  row.root = collective == Collective::Broadcast || collective == Collective::Reduce ? root : -1;
}

struct SizeRun {
  ReportRow row;
  std::optional<Schedule> schedule;  ///< kept only when asked for (a trace, --print-schedule)
};

/// The request behind every size of a plan (the size and keep_schedule are CollectiveSweep::run's).
/// `simgrid` holds the SimGrid engine when the plan asks for it; it must outlive the request.
CollectiveRequest plan_request(const RunPlan& plan, std::unique_ptr<TimingEngine>& simgrid) {
  CollectiveRequest request;
  request.collective = plan.collective;
  request.algorithm = plan.algorithm;
  request.choice = plan.auto_choice ? AlgorithmChoice::Auto : AlgorithmChoice::Fixed;
  request.payload = plan.payload;
  request.order = plan.order;
  request.channels = plan.channels;
  request.chunk = plan.chunk;
  request.root = plan.root;
  request.hierarchy = plan.hierarchy;
  request.inter = plan.inter;
  request.nccl_env = plan.nccl_env;
  request.options = sim_options(plan);
  request.options.protocol = plan.protocol;
  if (plan.simgrid) {
    simgrid = load_simgrid_engine(plan.simgrid_model);
    request.engine = simgrid.get();
  }
  return request;
}

/// One message size of a sweep. `keep_schedule` keeps the explicit schedule (and records the
/// timeline) for a trace or a listing; otherwise flat rings run from a compact schedule.
SizeRun run_size(CollectiveSweep& sweep, const RunPlan& plan, Bytes size, bool keep_schedule, const std::string& where) {
  CollectiveOutcome outcome;
  try {
    outcome = sweep.run(size, keep_schedule);
  } catch (const RangeError& e) {
    throw InputError(where, "/simulate/sizes",
                     "size " + to_string(size) + ": " + e.what() + ": expected a smaller size or faster links");
  } catch (const std::bad_alloc&) {
    throw InputError(where, "/simulate/algorithm",
                     "size " + to_string(size) + ": out of memory: " + std::to_string(plan.order.size()) +
                         " ranks need more memory than this process can allocate for this algorithm's schedule "
                         "(explicit schedules hold every op); expected fewer ranks or channels, or a ring (its "
                         "schedule is compact)");
  }
  if (!outcome.applicable())
    throw InputError(where, outcome.engine_refused ? "/simulate/engine" : "/simulate/algorithm", outcome.not_applicable);
  ReportRow row;
  row.result = std::move(*outcome.result);
  describe_row(row, plan.collective, plan.payload, plan.root);
  row.protocol = std::string(to_string(outcome.protocol));
  row.channels = outcome.channels;
  return SizeRun{std::move(row), std::move(outcome.schedule)};
}

/// A finished run: the report header and one row per size, plus the last size's schedule for a trace.
struct SimulateRun {
  ReportHeader header;
  std::vector<ReportRow> rows;
  std::optional<Schedule> last_schedule;
};

/// Settings a schedule file fixes; giving one of them with --schedule is an error, not ignored.
constexpr const char* kFixedBySchedule[] = {"collective", "algorithm", "sizes",     "dtype", "compression", "protocol",
                                            "channels",   "chunk",     "hierarchy", "inter", "ranks",       "root"};

/// simulate --schedule FILE: runs a schedule written by `ringlab schedule` (or by hand) as it is,
/// with the section's engine, calibration and ECMP settings and the schedule's own protocol.
SimulateRun replay_schedule(const Scenario& scenario, const RunPlan& plan, const CommandLine& c) {
  for (const char* key : kFixedBySchedule)
    if (c.overrides.contains(key))
      throw InputError("", "--schedule", std::string("the schedule file fixes the ") + key + "; drop that option");
  if (!c.rank_order_file.empty()) throw InputError("", "--schedule", "the schedule file fixes the rank order; drop --rank-order");
  const Schedule schedule = read_schedule_json(read_json_file(c.schedule_file, "schedule"), scenario.cluster, c.schedule_file);
  SimOptions options = sim_options(plan);
  options.protocol = schedule.protocol();
  if (schedule.nccl_latency()) {  // as run_collective runs the nccl algorithm
    options.start_latency = *schedule.nccl_latency();
    options.link_latencies = false;
  }
  ReportRow row;
  try {
    row.result = plan.simgrid ? load_simgrid_engine(plan.simgrid_model)->run(scenario.cluster, options, schedule)
                              : Simulator(scenario.cluster, options).run(schedule);
  } catch (const std::invalid_argument& e) {
    throw InputError(c.schedule_file, "", std::string("the engine cannot run this schedule: ") + e.what());
  }
  describe_row(row, schedule.collective(), schedule.payload(), schedule.root());
  row.result.key = RunKey{digest_hex(scenario.document.dump()), std::string(nccl_name(schedule.payload().dtype)),
                          std::string(to_string(schedule.protocol())), int(schedule.channel_count()), ""};
  row.protocol = std::string(to_string(schedule.protocol()));
  row.channels = int(schedule.channel_count());
  RankOrder order;
  for (const EndpointInfo& e : schedule.endpoints())
    if (e.role == EndpointRole::Rank) order.ranks.push_back(e.device);
  order.source = "schedule " + c.schedule_file;
  ReportHeader header;
  header.scenario = scenario.name.empty() ? scenario.file : scenario.name;
  header.collective = std::string(to_string(schedule.collective()));
  header.algorithm = schedule.algorithm() + " (from " + c.schedule_file + ")";
  header.ranks = schedule.rank_count();
  header.calibration = plan.calibration_name;
  header.order_source = order.source;
  header.order_digest = order.digest(scenario.cluster);
  header.order = order.to_json(scenario.cluster);
  row.result.key.order = header.order_digest;
  std::vector<ReportRow> rows;
  rows.push_back(std::move(row));
  return SimulateRun{std::move(header), std::move(rows), std::nullopt};
}

// The one code path behind `simulate` and run_simulate_json(): settings, validation, one run per size.
SimulateRun simulate_scenario(const Scenario& scenario, const CommandLine& c) {
  const std::string where = scenario.file.empty() ? "<built-in scenario>" : scenario.file;
  ProblemList problems(where);
  const RunPlan plan = read_plan(scenario, c, problems);
  problems.throw_if_any();

  if (!c.schedule_file.empty()) return replay_schedule(scenario, plan, c);

  if (!plan.auto_choice && plan.algorithm == Algorithm::Nccl)
    print_nccl_tuning_log(std::cerr, scenario.cluster, plan.order.ranks, plan.nccl_env, plan.collective, plan.sizes,
                          plan.payload);
  else
    warn_no_tuning_log(plan.nccl_env, "an algorithm other than nccl");
  std::vector<ReportRow> rows;
  std::optional<Schedule> last_schedule;
  std::unique_ptr<TimingEngine> simgrid;
  CollectiveSweep sweep(scenario.cluster, plan_request(plan, simgrid));
  for (std::size_t i = 0; i < plan.sizes.size(); ++i) {
    const bool last = i + 1 == plan.sizes.size();
    const bool listed = c.print_schedule && i == 0;
    SizeRun run = run_size(sweep, plan, plan.sizes[i], listed || (last && !c.trace.empty()), where);
    if (listed && run.schedule) run.schedule->print(std::cout, &scenario.cluster);
    run.row.result.key.scenario = digest_hex(scenario.document.dump());
    rows.push_back(std::move(run.row));
    if (last) last_schedule = std::move(run.schedule);
  }

  ReportHeader header;
  header.scenario = scenario.name.empty() ? where : scenario.name;
  header.collective = std::string(to_string(plan.collective));
  header.algorithm = plan.auto_choice ? "auto (the fastest that applies, per size)" : std::string(to_string(plan.algorithm));
  header.ranks = plan.order.size();
  header.order_source = plan.order.source;
  header.order_digest = plan.order.digest(scenario.cluster);
  header.order = plan.order.to_json(scenario.cluster);
  header.calibration = plan.calibration_name;
  if (plan.simgrid) header.notes = "engine simgrid (" + std::string(to_string(plan.simgrid_model)) + " model)";
  for (const std::string& setting : plan.nccl_env.settings)
    header.notes += (header.notes.empty() ? "" : ", ") + setting;
  if (!plan.auto_choice && plan.algorithm == Algorithm::Nccl) {
    std::optional<Topology> view;
    bool view_made = true;
    try {
      view = nccl_view(scenario.cluster, plan.order.ranks, plan.nccl_env);
    } catch (const std::invalid_argument&) {
      view_made = false;  // reported per size by the run itself
    }
    const Topology& nccl_topology = view ? *view : scenario.cluster;
    if (nccl_node_topology(scenario.cluster, plan.order.ranks, plan.nccl_env)) {  // hosts share NVLink
      const std::size_t nodes = nccl_topology.hosts().size(), hosts = scenario.cluster.hosts().size();
      header.notes += (header.notes.empty() ? "" : ", ") +
                      (nodes < hosts ? "nccl MNNVL: " + std::to_string(nodes) + (nodes == 1 ? " node" : " nodes") +
                                           " (NVLink cliques) of " + std::to_string(hosts) + " hosts"
                                     : std::string("nccl without MNNVL: NVLink inside hosts only, the network between them"));
    }
    const std::string staging = NcclTransports(nccl_topology, plan.nccl_env).summary(plan.order.ranks);
    if (!staging.empty()) header.notes += (header.notes.empty() ? "" : ", ") + staging;
    // Not sim::nccl_model_summary(cluster, ...): that builds NCCL's view again (0.3 s on 8,192 GPUs).
    if (view_made)
      header.nccl_model = nccl_model_summary(nccl_model(nccl_topology, plan.order.ranks, plan.nccl_env));
  }
  if (plan.payload.compression.kind != CompressionKind::None)
    header.notes += (header.notes.empty() ? "" : ", ") + ("compression " + to_string(plan.payload.compression));
  return SimulateRun{std::move(header), std::move(rows), std::move(last_schedule)};
}

void write_report(std::ostream& out, const std::string& format, const SimulateRun& run, const Topology& cluster) {
  if (format == "results") {
    std::vector<Result> results;
    for (const ReportRow& row : run.rows) results.push_back(row.result);
    write_results_json(out, results, &cluster);
  } else if (format == "json") write_json(out, run.header, run.rows, cluster);
  else if (format == "csv") write_csv(out, run.rows);
  else write_table(out, run.header, run.rows);
}

/// busbw against size, one series per algorithm that ran (NCCL's choice can change with the size).
void write_busbw_plot(std::ostream& out, const Scenario& scenario, const SimulateRun& run) {
  std::vector<PlotSeries> series;
  for (const ReportRow& row : run.rows) {
    const std::string name = row.result.algorithm;
    auto it = std::find_if(series.begin(), series.end(), [&](const PlotSeries& s) { return s.name == name; });
    if (it == series.end()) it = series.insert(series.end(), PlotSeries{name, {}, false, "algorithm"});
    it->points.push_back({double(row.result.message.count()), row.result.busbw().bytes_per_second() / 1e9});
  }
  write_svg_plot(out, scenario.name + ": " + run.header.collective + ", " + std::to_string(run.header.ranks) + " ranks",
                 PlotQuantity::BusBandwidth, series, "calibration " + run.header.calibration);
}

void run_simulate(const CommandLine& c) {
  const Scenario scenario = load_scenario_or_default(c.scenario);
  const SimulateRun run = simulate_scenario(scenario, c);
  write_output(c.output, [&](std::ostream& out) { write_report(out, c.format, run, scenario.cluster); });
  if (!c.plot.empty()) write_output(c.plot, [&](std::ostream& out) { write_busbw_plot(out, scenario, run); });
  if (!c.trace.empty() && run.last_schedule)
    write_output(c.trace, [&](std::ostream& out) {
      write_chrome_trace(out, *run.last_schedule, run.rows.back().result, scenario.cluster);
    });
}

}  // namespace

nlohmann::json run_simulate_json(const nlohmann::json& scenario, const std::string& source) {
  const Scenario loaded = scenario_from_json(scenario, source);
  CommandLine c;
  c.format = "json";
  std::ostringstream out;
  write_report(out, c.format, simulate_scenario(loaded, c), loaded.cluster);
  return nlohmann::json::parse(out.str());
}

namespace {

/// The collective's settings, shared by `simulate` and `schedule`; each writes the "simulate"
/// section key of the same name. Text settings are stored as given; counts are checked as numbers
/// here and stored as integers.
void add_collective_options(CLI::App* cmd, const std::shared_ptr<CommandLine>& c) {
  const SimulateSettings d;  // the defaults --help shows: what runs when neither the option nor the scenario sets it
  cmd->add_option("scenario", c->scenario, "Scenario JSON file (default: the built-in scenario)");
  auto text = [&](const char* flags, const char* key, const char* help, const std::string& fallback) {
    cmd->add_option_function<std::string>(flags, [c, key](const std::string& v) { c->overrides[key] = v; }, help)
        ->default_str(fallback);
  };
  // `check` runs on the text before it is converted, so "-3" is refused instead of wrapping to 2^64-3.
  auto count = [&](const char* flags, const char* key, const char* help, const CLI::Validator& check,
                   const std::string& fallback) {
    cmd->add_option_function<std::uint64_t>(flags, [c, key](std::uint64_t v) { c->overrides[key] = v; }, help)
        ->check(check)
        ->default_str(fallback);
  };
  text("-c,--collective", "collective", "allreduce, reducescatter, allgather, broadcast, reduce", d.collective);
  text("-a,--algo", "algorithm", "ring, tree, hierarchical, ring2d, halving_doubling, direct, reduce_broadcast, "
                                 "parameter_server, in_network, nccl, auto (the fastest that applies)", d.algorithm);
  text("-s,--sizes,--size", "sizes",
       "message sizes: a number of bytes, or with a unit (B, KiB, MiB, GiB, TiB, PiB; K, M, G, T = KiB..TiB; "
       "KB, MB, GB, TB = powers of 1000): MIN:MAX:xFACTOR (8:8G:x2), MIN:MAX:+STEP, or SIZE[,SIZE...]",
       d.sizes);
  text("-d,--dtype", "dtype", "float, bf16, half, fp8, int8", d.dtype);
  text("--compression", "compression", "none, fp8, int8, topk:RATIO (0 < RATIO <= 1)", d.compression);
  text("-p,--protocol", "protocol", "NCCL protocol for calibration: simple, ll128, ll", d.protocol);
  text("--calibration", "calibration", "pure (alpha-beta, factors 1), nccl (protocol efficiencies), or a calibration file from `ringlab calibrate`",
       "nccl with --algo nccl, else pure");
  count("--channels", "channels", "parallel rings/trees, 1 to 64", integer_between(1, 64), std::to_string(d.channels));
  text("--chunk", "chunk", "pipeline chunk size in bytes or with a unit, e.g. 512KiB (0 = no pipelining)", d.chunk);
  count("--ranks", "ranks", "use the first N GPUs (N >= 1), or the N GPUs of --rank-order", integer_between(1), "all");
  cmd->add_option_function<std::string>(
      "--rank-order", [c](const std::string& v) { c->rank_order_file = v; },
      "rank order file: one GPU or host name per line (a hostfile works), or a plan JSON")
      ->default_str("declaration order");
  count("--root", "root", "root rank for broadcast/reduce", integer_between(0), std::to_string(d.root));
  text("--hierarchy", "hierarchy", "hierarchical: leader or rail", d.hierarchy);
  text("--inter", "inter", "hierarchical: ring, tree or in_network (SHARP per rail) between nodes", d.inter);
  text("--ecmp", "ecmp", "ECMP policy: hash or first", d.ecmp);
  count("--seed", "seed", "ECMP hash seed", integer_between(0), std::to_string(d.seed));
  text("--engine", "engine", "ringlab or simgrid (SimGrid 3.32 reference engine, see docs/simgrid.md)", d.engine);
  text("--simgrid-model", "simgrid_model", "with --engine simgrid: pure (max-min, no correction factors) or default (LV08)",
       d.simgrid_model);
  cmd->add_flag_callback("--no-compute", [c] { c->overrides["compute"] = false; },
                         "make reductions and codecs free (pure network timing)");
  cmd->add_flag_callback("--no-shortcuts", [c] { c->overrides["shortcuts"] = false; },
                         "simulate every event: no exact repeat shortcut (same results, slower; for checking)");
  cmd->footer("Values after \"=\" are defaults; a scenario's \"simulate\" section overrides them, and options "
              "override the section.");
}

/// `ringlab schedule`: compiles one size into its executable schedule and writes it as JSON.
void run_schedule(const CommandLine& c) {
  const Scenario scenario = load_scenario_or_default(c.scenario);
  const std::string where = scenario.file.empty() ? "<built-in scenario>" : scenario.file;
  ProblemList problems(where);
  const RunPlan plan = read_plan(scenario, c, problems);
  if (problems.empty() && plan.sizes.size() != 1)
    problems.add("/simulate/sizes", "a schedule is for one size; give one with --size");
  if (problems.empty() && plan.sizes.front() == Bytes{})
    problems.add("/simulate/sizes", "a 0-byte collective has no schedule: expected a size above 0");
  problems.throw_if_any();
  warn_no_tuning_log(plan.nccl_env, "schedule");
  std::unique_ptr<TimingEngine> simgrid;
  CollectiveSweep sweep(scenario.cluster, plan_request(plan, simgrid));
  SizeRun run = run_size(sweep, plan, plan.sizes.front(), true, where);
  write_output(c.output, [&](std::ostream& out) { write_schedule_json(out, *run.schedule, &scenario.cluster); });
}

}  // namespace

void add_simulate_command(CLI::App& app) {
  auto c = std::make_shared<CommandLine>();
  CLI::App* sim = app.add_subcommand(
      "simulate", "Simulate a collective over a sweep of message sizes and report time, algbw and busbw");
  add_collective_options(sim, c);
  sim->add_option("--schedule", c->schedule_file,
                  "run this schedule file (written by `ringlab schedule`) instead of building one");
  sim->add_option("-f,--format", c->format,
                  "table (nccl-tests style), json, csv, or results (ringlab.results, for `ringlab compare`)")
      ->check(one_of("format", {"table", "json", "csv", "results"}))
      ->capture_default_str();
  sim->add_option("-o,--output", c->output, "write the report to this file instead of standard output");
  sim->add_option("--trace", c->trace, "write a Chrome trace-event JSON of the largest size (opens in Perfetto)");
  sim->add_option("--plot", c->plot, "write an SVG plot of busbw (GB/s) against message size, one line per algorithm");
  add_nccl_env_option(*sim, c->nccl_env);
  sim->add_flag("--print-schedule", c->print_schedule, "print the compiled schedule of the smallest size first");
  sim->callback([c] { run_simulate(*c); });

  auto s = std::make_shared<CommandLine>();
  CLI::App* sched = app.add_subcommand(
      "schedule", "Compile one collective into its executable schedule (versioned JSON, docs/schedule-format.md)");
  add_collective_options(sched, s);
  add_nccl_env_option(*sched, s->nccl_env);
  sched->add_option("-o,--output", s->output, "write the schedule to this file instead of standard output");
  sched->callback([s] { run_schedule(*s); });
}

}  // namespace ringlab::cli
