// The harness's main loop (see runner.hpp).
#include "runner.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include "backend.hpp"
#include "ringlab/sim/collectives.hpp"
#include "ringlab/sim/rank_order.hpp"
#include "ringlab/sim/report.hpp"
#include "ringlab/sim/result_json.hpp"
#include "ringlab/topology/error.hpp"
#include "ringlab/topology/output_file.hpp"
#include "ringlab/topology/scenario.hpp"
#include "ringlab/validate/levels.hpp"
#include "ringlab/validate/measure.hpp"
#include "watchdog.hpp"
#include "world.hpp"

namespace ringlab::validate {
namespace {

/// nccl-tests' size strings: a number with an optional K, M, G or T (powers of 1024), or one of
/// ringlab's unit strings ("256MiB", "1GB").
Bytes parse_size(const std::string& text, const char* option) {
  std::size_t end = 0;
  while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
  if (end > 0 && end + 1 >= text.size()) {
    int shift = 0;
    if (end < text.size()) {
      const char unit = char(std::toupper(static_cast<unsigned char>(text[end])));
      shift = unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : unit == 'T' ? 40 : -1;
      if (shift < 0) throw InputError("", option, "unknown size unit in '" + text + "' (K, M, G, T or a unit string)");
    }
    // At most 1 PiB, the byte counters' limit for inputs (units.hpp, kMaxBytes).
    const std::int64_t value = end <= 16 ? std::stoll(text.substr(0, end)) : kMaxBytes + 1;
    if (value > (kMaxBytes >> shift)) throw InputError("", option, "size '" + text + "' is above 1 PiB");
    return Bytes{value << shift};
  }
  try {
    return parse_bytes(text, true);
  } catch (const std::exception& e) {
    throw InputError("", option, e.what());
  }
}

std::optional<ElementType> find_element_type(const std::string& name) {
  static const std::map<std::string, ElementType> names = {
      {"float", ElementType::Float},    {"float32", ElementType::Float}, {"fp32", ElementType::Float},
      {"half", ElementType::Half},      {"float16", ElementType::Half},  {"fp16", ElementType::Half},
      {"bfloat16", ElementType::Bfloat16}, {"bf16", ElementType::Bfloat16},
      {"double", ElementType::Double},  {"float64", ElementType::Double},
      {"int32", ElementType::Int32},    {"int", ElementType::Int32}};
  const auto it = names.find(name);
  if (it == names.end()) return std::nullopt;
  return it->second;
}

/// The schedule's payload for an element type (schedule mode: same element size and name).
std::optional<sim::DataType> schedule_type(ElementType t) {
  switch (t) {
    case ElementType::Float: return sim::DataType::Fp32;
    case ElementType::Half: return sim::DataType::Fp16;
    case ElementType::Bfloat16: return sim::DataType::Bf16;
    default: return std::nullopt;
  }
}

std::string read_file(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", std::string("cannot read the ") + what);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Rank 0 reads `path`; every rank gets its text (the files need not be on every node).
std::string shared_text(const World& world, const std::string& path, const char* what) {
  std::vector<char> bytes;
  std::string error;
  if (world.rank() == 0) {
    try {
      const std::string text = read_file(path, what);
      bytes.assign(text.begin(), text.end());
      bytes.push_back('\1');  // marks success
    } catch (const InputError& e) {
      const std::string message = e.what();
      bytes.assign(message.begin(), message.end());
      bytes.push_back('\0');
    }
  }
  world.broadcast(bytes);
  const bool ok = !bytes.empty() && bytes.back() == '\1';
  bytes.pop_back();
  if (!ok) throw InputError(path, "", std::string("cannot read the ") + what);
  return std::string(bytes.begin(), bytes.end());
}

std::string fixed(double v, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, v);
  return text;
}
std::string pad(const std::string& s, std::size_t width) {
  return s.size() >= width ? " " + s : std::string(width - s.size(), ' ') + s;
}
std::string bandwidth(double gbps) { return fixed(gbps, gbps < 1e4 ? 2 : 0); }

/// One placement's outcome of one size.
struct Half {
  bool ran = false;
  Measurement m;
};

struct Setup {
  std::optional<Scenario> scenario;
  std::optional<sim::RankOrder> order;
  sim::Collective collective = sim::Collective::AllReduce;
  ElementType type = ElementType::Float;
  bool schedule = false;
  sim::Algorithm algorithm = sim::Algorithm::Ring;
  Bytes chunk;
  std::vector<Bytes> sizes;
};

Setup read_setup(const World& world, const Options& o) {
  Setup s;
  const auto collective = sim::find_collective(o.collective);
  if (!collective) throw InputError("", "--collective", "unknown collective '" + o.collective +
                                                            "' (allreduce, reducescatter, allgather, broadcast, reduce)");
  s.collective = *collective;
  const auto type = find_element_type(o.dtype);
  if (!type) throw InputError("", "-d", "unknown datatype '" + o.dtype + "' (float, half, bfloat16, double, int32)");
  s.type = *type;
  if (o.op != "sum") throw InputError("", "-o", "only the sum reduction is supported, not '" + o.op + "'");
  if (o.mode != "library" && o.mode != "schedule")
    throw InputError("", "--mode", "expected library or schedule, not '" + o.mode + "'");
  s.schedule = o.mode == "schedule";
  if (o.root < 0 || o.root >= world.size())
    throw InputError("", "-r", "root " + std::to_string(o.root) + " is not a rank of this " +
                                   std::to_string(world.size()) + "-rank job");
  if (!o.scenario.empty()) s.scenario = parse_scenario(shared_text(world, o.scenario, "scenario"), o.scenario);
  if (!o.rank_order.empty()) {
    if (!s.scenario) throw InputError("", "--rank-order", "a rank order needs --scenario (the cluster it names)");
    s.order = sim::parse_rank_order(s.scenario->cluster, shared_text(world, o.rank_order, "rank order"), o.rank_order,
                                    world.size());
  } else if (s.scenario) {
    if (int(s.scenario->cluster.gpus().size()) < world.size())
      throw InputError(o.scenario, "", "the scenario has " + std::to_string(s.scenario->cluster.gpus().size()) +
                                           " GPUs, fewer than the job's " + std::to_string(world.size()) + " ranks");
    s.order = sim::declaration_order(s.scenario->cluster, world.size());
  }
  if (s.schedule) {
    if (!s.scenario) throw InputError("", "--mode", "schedule mode needs --scenario (the schedule is built on its cluster)");
    const auto algorithm = sim::find_algorithm(o.algorithm);
    if (!algorithm || *algorithm == sim::Algorithm::Nccl)
      throw InputError("", "--algo", "unknown schedule '" + o.algorithm + "' (" + sim::algorithm_names() + ", not nccl)");
    s.algorithm = *algorithm;
    if (!schedule_type(s.type))
      throw InputError("", "-d", std::string("schedules are built for float, half or bfloat16, not ") + nccl_tests_name(s.type));
    s.chunk = parse_size(o.chunk, "--chunk");
  }
  if (o.channels < 1) throw InputError("", "--channels", "expected at least 1 channel");
  if (o.warmup < 0 || o.iterations < 1) throw InputError("", "-n", "expected -w >= 0 and -n >= 1");
  const Bytes min = parse_size(o.min_bytes, "-b"), max = parse_size(o.max_bytes, "-e");
  const Bytes step = parse_size(o.step_bytes, "-i");
  if (min.count() <= 0 || max < min) throw InputError("", "-b", "expected 0 < minimum size <= maximum size");
  if (!(o.step_factor >= 1) || (o.step_factor == 1 && step.count() <= 0))
    throw InputError("", "-f", "expected a step factor above 1, or -i with a positive step");
  const bool blocked = s.collective == sim::Collective::ReduceScatter || s.collective == sim::Collective::AllGather;
  s.sizes = size_sweep(min, max, o.step_factor, step, element_bytes(s.type), blocked ? world.size() : 1);
  return s;
}

/// The hosts of the job in rank order of their first rank.
std::vector<std::string> job_hosts(const World& world) {
  std::vector<std::string> hosts;
  for (const std::string& h : world.hosts())
    if (std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
  return hosts;
}

/// Compares where the ranks run with where the order puts them. Returns the number of mismatches;
/// rank 0 prints one warning per mismatch.
int check_placement(const World& world, const Setup& s, std::ostream& out) {
  if (!s.order) return 0;
  const Topology& t = s.scenario->cluster;
  int mismatches = 0;
  for (int r = 0; r < world.size(); ++r) {
    const std::string& want = t.host(t.device(s.order->ranks[std::size_t(r)]).host).name;
    const std::string& got = world.hosts()[std::size_t(r)];
    if (want == got) continue;
    ++mismatches;
    if (world.rank() == 0)
      out << "# warning: rank " << r << " runs on host '" << got << "', the rank order puts it on '" << want << "'\n";
  }
  return mismatches;
}

void print_header(const World& world, const Options& o, const Setup& s, const Backend& backend,
                  const std::vector<std::string>& devices, std::ostream& out) {
  out << "# ringlab-validate: " << sim::to_string(s.collective) << ", backend " << backend.engine() << ", mode "
      << o.mode;
  if (s.schedule) out << " (" << sim::to_string(s.algorithm) << ", " << o.channels << " channel" << (o.channels > 1 ? "s" : "") << ")";
  out << ", " << world.size() << " ranks\n";
  out << "# warmup iters: " << o.warmup << " iters: " << o.iterations << " validation: " << o.check
      << " timeout: " << o.timeout_seconds << " s; times are the median iteration of the slowest rank\n";
  if (s.scenario) {
    out << "# scenario: " << s.scenario->name << " (digest " << sim::digest_hex(s.scenario->document.dump()) << ")\n";
    out << "# rank order: " << s.order->source << " (digest " << s.order->digest(s.scenario->cluster) << ")\n";
  }
  out << "#\n# Using devices\n";
  for (int r = 0; r < world.size(); ++r)
    out << "#  Rank " << pad(std::to_string(r), 2) << " on " << pad(world.hosts()[std::size_t(r)], 10) << " "
        << devices[std::size_t(r)] << "\n";
}

void print_columns(std::ostream& out) {
  out << "#\n";
  out << "#                                                              out-of-place                       in-place\n";
  out << "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n";
  out << "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)"
      << std::endl;
}

std::string half_columns(const Half& h, sim::Collective c, int ranks) {
  if (!h.ran) return pad("N/A", 8) + pad("N/A", 8) + pad("N/A", 8) + pad("N/A", 7);
  const sim::IterationStats st = iteration_stats(h.m.iterations, h.m.warmup);
  const double seconds = st.median.seconds();
  const double algbw = seconds > 0 ? double(h.m.message.count()) / seconds / 1e9 : 0;
  return pad(sim::format_time_us(st.median.microseconds()), 8) + pad(bandwidth(algbw), 8) +
         pad(bandwidth(algbw * sim::busbw_factor(c, ranks)), 8) +
         pad(h.m.wrong ? std::to_string(*h.m.wrong) : "N/A", 7);
}

/// Runs one placement of one size on every rank and gathers the measurement.
Half measure(const World& world, Backend& backend, Watchdog& watchdog, const Case& c, const Options& o,
             const std::string& label) {
  Half h;
  h.ran = true;
  backend.prepare(c);
  backend.fill(c);
  world.barrier();
  watchdog.arm(label + ", warm-up");
  for (int i = 0; i < o.warmup; ++i) backend.run(c);
  std::vector<std::int64_t> times(std::size_t(o.iterations));
  std::vector<Duration> mine;
  for (int i = 0; i < o.iterations; ++i) {
    world.barrier();
    watchdog.arm(label + ", iteration " + std::to_string(i + 1) + " of " + std::to_string(o.iterations));
    const Duration t = backend.run(c);
    times[std::size_t(i)] = t.picoseconds();
    mine.push_back(t);
  }
  if (o.check) {
    backend.fill(c);
    world.barrier();
    watchdog.arm(label + ", checked iteration");
    backend.run(c);
    h.m.wrong = world.sum_all(backend.count_wrong(c));
  }
  watchdog.arm(label + ", gathering times");
  world.max_all(times);
  for (std::int64_t t : times) h.m.iterations.push_back(Duration{t});
  for (std::int64_t t : world.gather_all(iteration_stats(mine, o.warmup).median.picoseconds()))
    h.m.rank_median.push_back(Duration{t});
  watchdog.disarm();
  h.m.warmup = o.warmup;
  h.m.ranks = world.size();
  return h;
}

std::unique_ptr<Backend> make_backend(const World& world, const std::string& name) {
  if (name == "mpi") return make_mpi_backend(world);
  if (name == "nccl") {
    if (auto b = make_nccl_backend(world)) return b;
    throw InputError("", "--backend", "this ringlab-validate was built without CUDA and NCCL (use --backend mpi)");
  }
  throw InputError("", "--backend", "expected mpi or nccl, not '" + name + "'");
}

/// One size's schedule and this rank's program of it (schedule mode).
struct Compiled {
  sim::Schedule schedule;
  std::vector<RankProgram> programs;
};

Compiled compile_size(const Setup& s, const Options& o, Bytes size) {
  sim::CollectiveSpec spec;
  spec.collective = s.collective;
  spec.algorithm = s.algorithm;
  spec.message = size;
  spec.payload.dtype = *schedule_type(s.type);
  spec.channels = o.channels;
  spec.chunk = s.chunk;
  spec.root = o.root;
  spec.channel_rings = s.order->channel_rings;
  std::optional<sim::Schedule> schedule;
  try {
    schedule = sim::build_schedule(s.scenario->cluster, s.order->ranks, spec);
  } catch (const std::invalid_argument& e) {
    throw InputError("", "--algo", e.what());
  }
  if (const auto why = unsupported(*schedule); !why.empty())
    throw InputError("", "--algo", "the harness cannot execute this schedule: " + why.front());
  std::vector<RankProgram> programs = compile_programs(*schedule);
  return Compiled{std::move(*schedule), std::move(programs)};
}

/// Everything measured for one size: both placements (out of place in library mode only).
struct SizeOutcome {
  Half out_of_place, in_place;
  sim::RunKey key;
  std::int64_t count = 0;
};

SizeOutcome measure_size(const World& world, Backend& backend, Watchdog& watchdog, const Setup& s, const Options& o,
                         const std::string& backend_name, Bytes size) {
  const int p = world.size();
  const bool blocked = s.collective == sim::Collective::ReduceScatter || s.collective == sim::Collective::AllGather;
  Case c;
  c.collective = s.collective;
  c.type = s.type;
  c.ranks = p;
  c.rank = world.rank();
  c.root = o.root;
  c.count = size.count() / element_bytes(s.type);
  c.block = blocked ? c.count / p : c.count;
  std::optional<Compiled> compiled;
  if (s.schedule) {
    compiled = compile_size(s, o, size);
    c.schedule = &compiled->schedule;
    c.program = &compiled->programs[std::size_t(world.rank())];
  }
  SizeOutcome outcome;
  outcome.count = c.count;
  const std::string label = "size " + std::to_string(size.count()) + " B";
  if (!s.schedule) {
    c.in_place = false;
    outcome.out_of_place = measure(world, backend, watchdog, c, o, label + ", out of place");
  }
  c.in_place = true;
  outcome.in_place = measure(world, backend, watchdog, c, o, label + ", in place");
  for (Half* h : {&outcome.out_of_place, &outcome.in_place}) {
    h->m.collective = s.collective;
    h->m.algorithm = compiled ? compiled->schedule.algorithm() : backend_name;
    h->m.dtype = nccl_tests_name(s.type);
    h->m.message = size;
  }
  outcome.key.dtype = nccl_tests_name(s.type);
  if (compiled) {
    outcome.key.protocol = std::string(to_string(compiled->schedule.protocol()));
    outcome.key.channels = int(compiled->schedule.channel_count());
  }
  return outcome;
}

void print_row(std::ostream& out, const Setup& s, const Options& o, int ranks, Bytes size, const SizeOutcome& r) {
  const bool rooted = s.collective == sim::Collective::Broadcast || s.collective == sim::Collective::Reduce;
  const bool reduces = s.collective != sim::Collective::AllGather && s.collective != sim::Collective::Broadcast;
  out << pad(std::to_string(size.count()), 12) << pad(std::to_string(r.count), 14) << pad(nccl_tests_name(s.type), 10)
      << pad(reduces ? "sum" : "none", 8) << pad(rooted ? std::to_string(o.root) : "-1", 8)
      << half_columns(r.out_of_place, s.collective, ranks) << half_columns(r.in_place, s.collective, ranks) << std::endl;
}

/// The per-iteration statistics line of one placement.
std::string statistics_line(Bytes size, bool in_place, const sim::IterationStats& st) {
  return "# " + pad(std::to_string(size.count()), 12) + (in_place ? "  in-place    " : "  out-of-place") +
         pad(sim::format_time_us(st.min.microseconds()), 9) + pad(sim::format_time_us(st.median.microseconds()), 9) +
         pad(sim::format_time_us(st.mean.microseconds()), 9) + pad(sim::format_time_us(st.p99->microseconds()), 9) +
         pad(sim::format_time_us(st.max.microseconds()), 9) + "\n";
}

}  // namespace

int run_harness(const World& world, const Options& o) {
  // Armed from the start: the set-up broadcasts too, and a peer that hangs there must not hang the job.
  Watchdog watchdog(std::chrono::duration<double>(o.timeout_seconds), [&](const std::string& what) {
    std::cerr << "ringlab-validate: rank " << world.rank() << " on " << world.host() << ": no progress for "
              << o.timeout_seconds << " s (" << what << "); a peer has died or hangs. Aborting the job." << std::endl;
    world.abort(kExitStalled);
  });
  watchdog.arm("start-up: reading the scenario and rank order, creating the communicator");
  const Setup s = read_setup(world, o);
  std::ostream& out = std::cout;
  const bool leader = world.rank() == 0;
  const std::string backend_name = o.backend.empty() ? (have_nccl_backend() ? "nccl" : "mpi") : o.backend;
  std::unique_ptr<Backend> backend = make_backend(world, backend_name);
  if (const std::string why = backend->unsupported(s.type, s.schedule); !why.empty())
    throw InputError("", s.schedule ? "--mode" : "-d", why);

  const std::vector<std::string> devices =
      world.gather_strings(backend->device() + ", pid " + std::to_string(::getpid()));
  if (leader) print_header(world, o, s, *backend, devices, out);
  const int misplaced = check_placement(world, s, out);
  if (leader) print_columns(out);
  if (misplaced > 0 && o.strict_placement)
    throw InputError(o.rank_order.empty() ? o.scenario : o.rank_order, "",
                     std::to_string(misplaced) + " ranks run on other hosts than the rank order says (--strict-placement)");

  const sim::ResultSource source{sim::ResultKind::Measured, backend->engine(), job_hosts(world)};
  const std::string scenario_digest = s.scenario ? sim::digest_hex(s.scenario->document.dump()) : "";
  const std::string order_digest = s.order ? s.order->digest(s.scenario->cluster) : "";
  std::vector<sim::Result> results;
  std::int64_t wrong_total = 0;
  std::vector<double> busbw;
  std::string statistics;
  for (const Bytes size : s.sizes) {
    SizeOutcome r = measure_size(world, *backend, watchdog, s, o, backend_name, size);
    for (const Half* h : {&r.out_of_place, &r.in_place}) {
      if (!h->ran) continue;
      wrong_total += h->m.wrong.value_or(0);
      const sim::IterationStats st = iteration_stats(h->m.iterations, h->m.warmup);
      if (st.median.seconds() > 0)
        busbw.push_back(double(size.count()) / st.median.seconds() / 1e9 * sim::busbw_factor(s.collective, world.size()));
      statistics += statistics_line(size, h == &r.in_place, st);
    }
    r.key.scenario = scenario_digest;
    r.key.order = order_digest;
    results.push_back(measured_result(r.out_of_place.ran ? r.out_of_place.m : r.in_place.m, source, r.key));
    if (leader) print_row(out, s, o, world.size(), size, r);
  }

  if (leader) {
    double mean_busbw = 0;
    for (double b : busbw) mean_busbw += b / double(busbw.size());
    out << "# Out of bounds values : " << wrong_total << (wrong_total ? " FAILED" : " OK") << "\n";
    out << "# Avg bus bandwidth    : " << fixed(mean_busbw, 4) << "\n#\n";
    out << "# Per-iteration times (us), slowest rank per iteration:\n";
    out << "#       size  placement        min   median     mean      p99      max\n" << statistics;
    out.flush();
    if (!o.results.empty())
      write_output(o.results, [&](std::ostream& file) { sim::write_results_json(file, results); });
  }
  return wrong_total ? kExitWrong : 0;
}

}  // namespace ringlab::validate
