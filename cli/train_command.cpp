// `ringlab train`: simulate whole training steps of a model on a scenario's cluster with a
// data-parallel strategy, and report step time, throughput, scaling, memory, step-time spread and
// time to train (table or JSON), optionally with a Chrome trace of one step.
//
// Settings come from the scenario's "workload", "strategy" and "train" sections; command-line
// options write the keys they override (--model -> /workload/model, --strategy -> /strategy/name,
// --batch -> /train/batch, ...), so problems name the same JSON paths either way.
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "commands.hpp"
#include "names.hpp"
#include "output.hpp"
#include "validators.hpp"
#include "ringlab/sim/training.hpp"
#include "ringlab/topology/error.hpp"

namespace ringlab::cli {
namespace {

struct CommandLine {
  std::string scenario;
  std::string format = "table";
  std::string output;
  std::string trace;
  nlohmann::json workload = nlohmann::json::object();  ///< overrides, keyed as in the sections
  nlohmann::json strategy = nlohmann::json::object();
  nlohmann::json train = nlohmann::json::object();
};

std::string source_name(const Scenario& s) { return s.file.empty() ? "<built-in scenario>" : s.file; }

sim::TrainReport run(const Scenario& scenario) {
  const sim::TrainJob job = sim::train_job_from_scenario(scenario);
  try {
    return sim::run_training(job, scenario.cluster, scenario.name.empty() ? source_name(scenario) : scenario.name);
  } catch (const std::invalid_argument& e) {
    throw InputError(source_name(scenario), "/strategy/name", e.what());
  } catch (const RangeError& e) {
    throw InputError(source_name(scenario), "/workload",
                     std::string(e.what()) + ": expected a smaller model or batch, or faster links and GPUs");
  }
}

void run_train(const CommandLine& c) {
  Scenario scenario = load_scenario_or_default(c.scenario);
  scenario.workload.update(c.workload, /*merge_objects=*/true);
  scenario.strategy.update(c.strategy, /*merge_objects=*/true);
  scenario.train.update(c.train, /*merge_objects=*/true);  // --jitter keeps the file's other straggler keys
  const sim::TrainReport report = run(scenario);
  write_output(c.output, [&](std::ostream& out) {
    if (c.format == "json") out << sim::to_json(report).dump(2) << '\n';
    else sim::write_table(out, report);
  });
  if (!c.trace.empty()) write_output(c.trace, [&](std::ostream& out) { sim::write_step_trace(out, report); });
}

}  // namespace

nlohmann::json run_train_json(const nlohmann::json& scenario, const std::string& source) {
  return sim::to_json(run(scenario_from_json(scenario, source)));
}

void add_train_command(CLI::App& app) {
  auto c = std::make_shared<CommandLine>();
  CLI::App* cmd = app.add_subcommand(
      "train", "Simulate training steps: step time, exposed communication, throughput, scaling and time to train");
  cmd->add_option("scenario", c->scenario, "Scenario JSON file (default: the built-in scenario)");
  // Defaults shown by --help: what runs when neither the option nor the scenario's sections set it.
  auto text = [&](const char* flags, nlohmann::json CommandLine::*section, const char* key, const char* help,
                  const std::string& fallback) {
    cmd->add_option_function<std::string>(flags, [c, section, key](const std::string& v) { ((*c).*section)[key] = v; }, help)
        ->default_str(fallback);
  };
  auto count = [&](const char* flags, nlohmann::json CommandLine::*section, const char* key, const char* help,
                   const CLI::Validator& check, const std::string& fallback) {
    cmd->add_option_function<int>(flags, [c, section, key](int v) { ((*c).*section)[key] = v; }, help)
        ->check(check)
        ->default_str(fallback);
  };
  text("-m,--model", &CommandLine::workload, "model", "resnet50, bert-large, gpt2-1.5b, llama2-7b, llama2-70b", "resnet50");
  text("-S,--strategy", &CommandLine::strategy, "name",
       "tf_mirrored, tf_multi_worker, tf_central_storage, tf_parameter_server, ddp, horovod, zero1, zero2, zero3, fsdp",
       "ddp");
  text("--precision", &CommandLine::strategy, "precision", "fp32, tf32, bf16, fp16, fp8", "fp32");
  text("-a,--algo", &CommandLine::strategy, "algorithm", "collective algorithm (ring, tree, hierarchical, nccl, ...)",
       "ring");
  text("--compression", &CommandLine::strategy, "compression", "gradient compression: none, fp8, int8, topk:RATIO",
       "none");
  count("-b,--batch", &CommandLine::train, "batch", "per-GPU micro-batch (samples)", integer_between(1), "32");
  count("-k,--accumulation", &CommandLine::strategy, "accumulation", "micro-batches per optimizer step",
        integer_between(1), "1");
  count("--gpus", &CommandLine::train, "gpus", "use the first N GPUs (N >= 1), or the N GPUs of --rank-order",
        integer_between(1), "all");
  // The section's "rank_order" string is a file relative to the scenario; the option's is relative to
  // the working directory, so it is made absolute.
  cmd->add_option_function<std::string>(
      "--rank-order", [c](const std::string& v) { c->train["rank_order"] = std::filesystem::absolute(v).string(); },
      "rank order file: one GPU or host name per line (a hostfile works), or a plan JSON")
      ->default_str("declaration order");
  cmd->add_flag_callback("--no-overlap", [c] { c->strategy["overlap"] = false; },
                         "issue collectives only after backward");
  cmd->add_option_function<double>("--samples", [c](double v) { c->train["samples"] = v; },
                                   "samples to train (time to train; 0 = not asked)")
      ->check(number_at_least(0))
      ->default_str("0");
  cmd->add_flag_callback("--async", [c] { c->strategy["async"] = true; },
                         "asynchronous parameter-server updates (tf_parameter_server)");
  count("--seed", &CommandLine::train, "seed", "seed of the straggler draws and ECMP", integer_between(0), "1");
  auto number = [&](const char* flags, const char* object, const char* key, const char* help, const std::string& fallback) {
    cmd->add_option_function<double>(flags, [c, object, key](double v) { c->train[object][key] = v; }, help)
        ->check(number_at_least(0))  // the section's own ranges apply on top
        ->default_str(fallback);
  };
  auto duration = [&](const char* flags, const char* key, const char* help) {
    cmd->add_option_function<std::string>(flags, [c, key](const std::string& v) { c->train["reliability"][key] = v; }, help)
        ->default_str("0 (off)");
  };
  number("--jitter", "stragglers", "jitter", "per-GPU step-time jitter (log-sd of a mean-1 lognormal)", "0");
  number("--slow-probability", "stragglers", "slow_probability", "probability that a GPU is slow in a step", "0");
  number("--slow-factor", "stragglers", "slow_factor", "how much slower a slow GPU's step is (a factor)", "1");
  duration("--node-mtbf", "node_mtbf", "mean time between failures of one node, with a unit (ps ... s, min, h, d), e.g. 5000h");
  duration("--checkpoint", "checkpoint", "time to write a checkpoint, with a unit, e.g. 60s");
  duration("--restart", "restart", "time to restart after a failure, with a unit, e.g. 5min");
  cmd->add_option("-f,--format", c->format, "table or json")->check(one_of("format", {"table", "json"}))->capture_default_str();
  cmd->add_option("-o,--output", c->output, "write the report to this file instead of standard output");
  cmd->add_option("--trace", c->trace, "write a Chrome trace-event JSON of one step (opens in Perfetto)");
  cmd->footer("Values after \"=\" are defaults; the scenario's \"workload\", \"strategy\" and \"train\" sections "
              "override them, and options override the sections.");
  cmd->callback([c] { run_train(*c); });
}

}  // namespace ringlab::cli
