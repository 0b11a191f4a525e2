// `ringlab plan`: rank order, algorithm, lower bound, batch sizes and NCCL settings for a scenario,
// as a report (text or JSON) and, with -o DIR, the launch bundle (planner/bundle.hpp).
#include <iostream>
#include <memory>
#include <string>

#include "commands.hpp"
#include "nccl_env_options.hpp"
#include "output.hpp"
#include "ringlab/planner/bundle.hpp"
#include "ringlab/planner/planner.hpp"
#include "ringlab/sim/rank_order.hpp"
#include "ringlab/topology/error.hpp"

namespace ringlab::cli {
namespace {

struct CommandLine {
  std::string scenario;
  std::string format = "text";
  std::string report;          ///< -r FILE: the report; default standard output
  std::string bundle;          ///< -o DIR: write the launch bundle there
  std::string check;           ///< --check DIR: verify a bundle instead of planning
  std::string size;
  std::string collective = "allreduce";
  std::string rank_order;      ///< the scheduler's order (a hostfile, SLURM_HOSTFILE, ...)
  std::string global_batch;    ///< N or MIN:MAX
  std::string ecmp = "hash";
  int ranks = 0;
  int channels = 0;
  long long moves = -1;
  double time_limit = 0;
  int random_orders = 8;
  std::uint64_t seed = 1;
  std::vector<std::string> nccl_env;  ///< --nccl-env NAME=VALUE, over the scenario's "nccl" section
};

planner::BatchTarget parse_batch(const std::string& text) {
  planner::BatchTarget t;
  if (text.empty()) return t;
  const auto colon = text.find(':');
  try {
    std::size_t used = 0;
    t.min = std::stoll(text.substr(0, colon), &used);
    if (used != text.substr(0, colon).size()) throw std::invalid_argument("junk");
    t.max = t.min;
    if (colon != std::string::npos) {
      const std::string hi = text.substr(colon + 1);
      t.max = std::stoll(hi, &used);
      if (used != hi.size()) throw std::invalid_argument("junk");
    }
  } catch (const std::exception&) {
    throw InputError("", "--global-batch", "expected N or MIN:MAX (samples), got '" + text + "'");
  }
  if (t.min < 1 || t.max < t.min)
    throw InputError("", "--global-batch", "expected 1 <= MIN <= MAX, got '" + text + "'");
  return t;
}

planner::PlanRequest request_from(const CommandLine& c, const Scenario& scenario) {
  planner::PlanRequest r;
  const auto collective = sim::find_collective(c.collective);
  if (!collective) throw InputError("", "--collective", "expected allreduce, reducescatter, allgather, broadcast or reduce, got '" + c.collective + "'");
  r.collective = *collective;
  if (!c.size.empty()) r.message = parse_bytes(c.size);
  const int gpus = int(scenario.cluster.gpus().size());
  if (c.ranks < 0 || c.ranks > gpus)
    throw InputError("", "--ranks", "expected 2 to " + std::to_string(gpus) + " GPUs, got " + std::to_string(c.ranks));
  r.ranks = c.ranks;
  if (c.channels < 0) throw InputError("", "--channels", "expected at least 1");
  r.channels = c.channels;
  r.search.seed = c.seed;
  r.search.max_moves = c.moves;
  r.search.time_limit_seconds = c.time_limit;
  if (c.random_orders < 0) throw InputError("", "--random-orders", "expected 0 or more");
  r.random_orders = c.random_orders;
  if (c.ecmp != "hash" && c.ecmp != "first") throw InputError("", "--ecmp", "expected hash or first, got '" + c.ecmp + "'");
  r.ecmp = c.ecmp == "first" ? EcmpPolicy::First : EcmpPolicy::Hash;
  r.batch = parse_batch(c.global_batch);
  if (!c.rank_order.empty()) r.scheduler_order = sim::load_rank_order(scenario.cluster, c.rank_order, c.ranks);
  r.nccl_env = read_nccl_env(scenario, c.nccl_env);
  warn_no_tuning_log(r.nccl_env, "plan");
  return r;
}

void run_check(const Scenario& scenario, const std::string& dir) {
  const std::vector<std::string> problems = planner::check_bundle(scenario.cluster, dir);
  for (const std::string& p : problems) std::cout << dir << "/" << p << "\n";
  if (problems.empty()) {
    std::cout << dir << ": every launch file encodes the planned order\n";
    return;
  }
  std::cout << problems.size() << (problems.size() == 1 ? " problem" : " problems") << "\n";
  throw ExitStatus{kExitCheckFailed};
}

void run_plan(const CommandLine& c) {
  const Scenario scenario = load_scenario_or_default(c.scenario);
  if (!c.check.empty()) return run_check(scenario, c.check);
  const planner::PlanRequest request = request_from(c, scenario);
  planner::PlanReport report;
  try {
    report = planner::make_plan(scenario, request);
  } catch (const std::invalid_argument& e) {
    throw InputError(scenario.file.empty() ? "<built-in scenario>" : scenario.file, "", e.what());
  }
  if (!c.bundle.empty()) planner::write_bundle(scenario.cluster, report.plan, c.bundle);
  write_output(c.report, [&](std::ostream& out) {
    if (c.format == "json") out << report.plan.report.dump(2) << '\n';
    else planner::write_report(out, report);
  });
}

}  // namespace

void add_plan_command(CLI::App& app) {
  auto c = std::make_shared<CommandLine>();
  CLI::App* cmd = app.add_subcommand("plan", "Plan rank order, algorithm and batch sizes for a scenario; write the launch files");
  cmd->add_option("scenario", c->scenario, "Scenario JSON file (default: the built-in scenario)");
  cmd->add_option("--size", c->size, "message planned for, e.g. 1GiB (default: the training job's gradients, else 256MiB)");
  cmd->add_option("--collective", c->collective, "allreduce, reducescatter, allgather, broadcast or reduce")->capture_default_str();
  cmd->add_option("--rank-order", c->rank_order,
                  "the scheduler's order (hostfile, SLURM_HOSTFILE, GPU list); default: the scenario's GPU order");
  cmd->add_option("--ranks", c->ranks, "use the first N GPUs of the scheduler's order (default: all)");
  cmd->add_option("--channels", c->channels, "parallel rings (default: the NICs of a host, at least 1)");
  cmd->add_option("--seed", c->seed, "seed of the order search and the random orders")->capture_default_str();
  cmd->add_option("--moves", c->moves, "local-search moves (default: 400 per host + 2000; 0: construction only)");
  cmd->add_option("--time-limit", c->time_limit, "stop the search after this many seconds (makes the result depend on speed)");
  cmd->add_option("--random-orders", c->random_orders, "random host orders to compare with")->capture_default_str();
  cmd->add_option("--global-batch", c->global_batch, "global batch target: N or MIN:MAX samples (training scenarios)");
  cmd->add_option("--ecmp", c->ecmp, "ECMP policy: hash or first")->capture_default_str();
  add_nccl_env_option(*cmd, c->nccl_env);
  cmd->add_option("-f,--format", c->format, "report format: text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  cmd->add_option("-r,--report", c->report, "write the report to FILE (default: standard output)");
  cmd->add_option("-o,--output", c->bundle, "write plan.json and every launch file into DIR");
  cmd->add_option("--check", c->check,
                  "re-read the bundle in DIR and verify that every launch file encodes the planned order (exit 3 if not)");
  cmd->callback([c] { run_plan(*c); });
}

}  // namespace ringlab::cli
