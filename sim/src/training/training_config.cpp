// Reads a scenario's "workload", "strategy" and "train" sections into a TrainJob, collecting every
// problem with its JSON path (format: docs/scenario-format.md, section "Training").
#include <algorithm>
#include <filesystem>
#include <set>

#include "ringlab/topology/error.hpp"
#include "ringlab/topology/json_reader.hpp"
#include "ringlab/topology/scenario.hpp"
#include "ringlab/topology/suggest.hpp"
#include "training/training_plan.hpp"

namespace ringlab::sim {
namespace {

using Json = nlohmann::json;

// A duration such as "90s" or "50000h" in seconds (a plain 0 is zero).
void read_seconds(JsonReader& r, const JsonNode& object, std::string_view key, double& into) {
  const auto node = r.member(object, key);
  if (!node) return;
  if ((*node)->is_number() && (*node)->get<double>() == 0) {
    into = 0;
    return;
  }
  const auto v = r.with_unit(*node, "a duration with a unit such as \"90s\", \"30min\" or \"50000h\"",
                             [](const std::string& text) { return parse_long_duration(text); });
  if (v) into = *v;
}

constexpr std::array<std::pair<std::string_view, double>, 4> kOptimizers{{
    {"adam", 8}, {"adamw", 8}, {"momentum", 4}, {"sgd", 0},
}};

// "layers": [{"name", "parameters", "count"}, ...], replacing the preset's layers.
void read_layers(JsonReader& r, const JsonNode& layers, Workload& w) {
  w.layers.clear();
  if (!layers->is_array() || layers->empty())
    return r.add(layers.path, "expected a non-empty array of {\"name\", \"parameters\", \"count\"}");
  const std::vector<JsonNode> items = r.elements(layers);
  for (std::size_t i = 0; i < items.size(); ++i) {
    const JsonNode& l = items[i];
    if (!r.expect_object(l)) continue;
    r.check_keys(l, {"name", "parameters", "count"});
    std::string name = "layer" + std::to_string(i);
    double params = 0;
    int count = 1;
    r.field(l, "name", name);
    if (auto p = r.required(l, "parameters", "the layer's parameter count"))
      params = r.number(*p, 1, 1e13, "a parameter count").value_or(0);
    r.field(l, "count", count, 1, 100000);
    for (int c = 0; c < count; ++c)
      w.layers.push_back({count > 1 ? name + std::to_string(c) : name, std::int64_t(params)});
  }
}

Workload read_workload(JsonReader& r, const JsonNode& s) {
  r.check_keys(s, {"model", "layers", "parameters", "blocks", "flops_per_sample", "activation_elements_per_sample",
                   "checkpointed_activation_elements_per_sample", "half_batch", "optimizer", "optimizer_state_bytes",
                   "sample_unit"});
  Workload w;
  std::string model = "resnet50";
  r.field(s, "model", model);
  bool unknown_model = false;
  if (auto preset = find_workload(model)) {
    w = *preset;
  } else if (auto node = r.member(s, "model")) {
    r.add(node->path, "unknown model '" + model + "'" + did_you_mean(model, workload_names()) + "; expected " +
                          workload_names());
    unknown_model = true;
  }
  if (auto layers = r.member(s, "layers")) read_layers(r, *layers, w);
  if (r.member(s, "parameters")) {
    double params = 0;
    int blocks = 1;
    r.field(s, "parameters", params, 1, 1e13, "a parameter count");
    r.field(s, "blocks", blocks, 1, 100000);
    w.layers.clear();
    for (int b = 0; b < blocks; ++b)
      w.layers.push_back({"block" + std::to_string(b), std::int64_t(params) / blocks + (b == 0 ? std::int64_t(params) % blocks : 0)});
  }
  r.field(s, "flops_per_sample", w.flops_per_sample, 1, 1e20, "FLOPs per sample (forward + backward)");
  r.field(s, "activation_elements_per_sample", w.activation_elements, 0, 1e15);
  r.field(s, "checkpointed_activation_elements_per_sample", w.checkpointed_activation_elements, 0, 1e15);
  r.field(s, "half_batch", w.half_batch, 0, 1e9, "samples");
  std::string optimizer;
  r.field(s, "optimizer", optimizer);
  if (!optimizer.empty()) {
    const auto it = std::find_if(kOptimizers.begin(), kOptimizers.end(), [&](const auto& o) { return o.first == optimizer; });
    if (it != kOptimizers.end()) w.optimizer_state_bytes = it->second;
    else r.add(child_path(s.path, "optimizer"), unknown_name_message("optimizer", optimizer, "adam, adamw, momentum or sgd"));
  }
  r.field(s, "optimizer_state_bytes", w.optimizer_state_bytes, 0, 1024, "bytes per parameter");
  r.field(s, "sample_unit", w.sample_unit);
  if (unknown_model) return w;  // the checks below would only repeat that the model is missing
  if (w.layers.empty()) r.add(child_path(s.path, "model"), "no model: give a preset or \"layers\"/\"parameters\"");
  if (w.flops_per_sample <= 0) r.add(child_path(s.path, "flops_per_sample"), "missing: FLOPs per sample (forward + backward)");
  return w;
}

// A string field that must be one of a few fixed words; records `unknown value ...` otherwise.
std::string read_word(JsonReader& r, const JsonNode& s, std::string_view key, std::string value,
                      std::initializer_list<std::string_view> words, const std::string& expected) {
  r.field(s, key, value);
  if (std::find(words.begin(), words.end(), value) == words.end())
    r.add(child_path(s.path, key), "unknown value '" + value + "'" + did_you_mean(value, expected) + "; expected " + expected);
  return value;
}

Strategy read_strategy(JsonReader& r, const JsonNode& s, const Topology& topology) {
  r.check_keys(s, {"name", "precision", "gradient_dtype", "compression", "bucket", "first_bucket", "overlap",
                   "accumulation", "activation_checkpointing", "algorithm", "communication", "hierarchical", "async",
                   "parameter_servers", "calibration"});
  Strategy st;
  r.choice_field(s, "name", st.kind, find_strategy, strategy_names());
  r.choice_field(s, "precision", st.precision, find_precision, "fp32, tf32, bf16, fp16 or fp8");
  st.gradient_dtype = weight_element_bytes(st.precision) == 4 ? DataType::Fp32 : DataType::Bf16;
  r.choice_field(s, "gradient_dtype", st.gradient_dtype, find_data_type, "fp32, bf16, fp16");
  std::string compression;
  r.field(s, "compression", compression);
  if (!compression.empty()) {
    if (auto c = parse_compression(compression)) st.compression = *c;
    else r.add(child_path(s.path, "compression"), "unknown value '" + compression + "'; expected none, fp8, int8 or topk:RATIO");
  }
  r.field(s, "bucket", st.bucket);
  r.field(s, "first_bucket", st.first_bucket);
  r.field(s, "overlap", st.overlap);
  r.field(s, "accumulation", st.accumulation, 1, 4096);
  r.field(s, "activation_checkpointing", st.activation_checkpointing);
  r.choice_field(s, "algorithm", st.algorithm, find_algorithm, algorithm_names());
  std::string communication;
  r.field(s, "communication", communication);
  if (communication == "nccl") st.algorithm = Algorithm::Nccl;
  else if (communication == "ring") st.algorithm = Algorithm::Ring;
  else if (!communication.empty())
    r.add(child_path(s.path, "communication"),
          "unknown value '" + communication + "'" + did_you_mean(communication, "nccl or ring") + "; expected nccl or ring");
  r.field(s, "hierarchical", st.hierarchical);
  r.field(s, "async", st.async);
  st.nccl_calibration = read_word(r, s, "calibration", st.algorithm == Algorithm::Nccl ? "nccl" : "pure",
                                  {"pure", "nccl"}, "pure or nccl") == "nccl";
  if (auto ps = r.member(s, "parameter_servers")) {
    if (!(*ps)->is_array()) r.add(ps->path, "expected an array of device names");
    for (const JsonNode& e : (*ps)->is_array() ? r.elements(*ps) : std::vector<JsonNode>{}) {
      const auto id = e->is_string() ? topology.find_device(e->get<std::string>()) : std::nullopt;
      if (id) st.parameter_servers.push_back(*id);
      else r.add(e.path, "expected the name of a device of the cluster (e.g. \"ps0/cpu0\")");
    }
  }
  if (st.async && st.kind != StrategyKind::TfParameterServer)
    r.add(child_path(s.path, "async"), "only tf_parameter_server trains asynchronously");
  return st;
}

std::optional<GpuCompute> read_gpu(JsonReader& r, const JsonNode& t) {
  const auto g = r.member(t, "gpu");
  if (!g) return std::nullopt;
  const std::string expected = gpu_compute_names();
  if ((*g)->is_string()) {
    if (auto preset = find_gpu_compute((*g)->get<std::string>())) return preset;
    r.add(g->path, unknown_name_message("GPU", (*g)->get<std::string>(), expected));
    return std::nullopt;
  }
  const JsonNode s = r.section(t, "gpu");
  r.check_keys(s, {"model", "memory", "peak_tflops", "mfu_max"});
  std::string model = "generic";
  r.field(s, "model", model);
  auto out = find_gpu_compute(model);
  if (!out) {
    r.add(child_path(s.path, "model"), unknown_name_message("GPU", model, expected));
    return std::nullopt;
  }
  r.field(s, "memory", out->memory);
  for (const bool mfu : {false, true}) {
    const JsonNode table = r.section(s, mfu ? "mfu_max" : "peak_tflops");
    r.check_keys(table, {"fp32", "tf32", "bf16", "fp8"});
    for (std::size_t i = 0; i < std::size_t(kPrecisionCount); ++i) {
      const std::string key(to_string(Precision(i)));
      if (mfu) {
        r.field(table, key, out->mfu_max[i], 0, 1.0);
        continue;
      }
      double tflops = out->peak_flops[i] / 1e12;
      r.field(table, key, tflops, 0, 1e6);
      out->peak_flops[i] = tflops * 1e12;
    }
  }
  return out;
}

// Calibration file: { "v100": [ { "batch": 32, "seconds": 0.105 }, ... ], ... } (seconds per micro-batch).
ComputeCalibration read_calibration(JsonReader& r, const JsonNode& t, const std::string& scenario_file) {
  ComputeCalibration c;
  std::string name;
  r.field(t, "compute_calibration", name);
  if (name.empty()) return c;
  std::filesystem::path path(name);
  if (path.is_relative() && !scenario_file.empty()) path = std::filesystem::path(scenario_file).parent_path() / path;
  ProblemList problems(path.string());
  Json doc;
  try {
    doc = read_json_file(path.string(), "calibration file");  // rejects malformed JSON and duplicate keys
  } catch (const InputError& e) {
    r.add(child_path(t.path, "compute_calibration"), std::string("calibration file: ") + e.what());
    return c;
  }
  if (!doc.is_object()) problems.add("", "expected an object keyed by GPU name");
  for (const auto& [gpu, points] : doc.is_object() ? doc.items() : Json::object().items()) {
    const std::string at = child_path("", gpu);
    if (!find_gpu_compute(gpu)) problems.add(at, unknown_name_message("GPU", gpu, gpu_compute_names()));
    if (!points.is_array()) { problems.add(at, "expected an array of {\"batch\", \"seconds\"}"); continue; }
    for (std::size_t i = 0; i < points.size(); ++i) {
      const Json& p = points[i];
      const bool ok = p.is_object() && p.contains("batch") && p["batch"].is_number_integer() && p["batch"].get<int>() >= 1 &&
                      p.contains("seconds") && p["seconds"].is_number() && p["seconds"].get<double>() > 0;
      if (ok) c.seconds[gpu][p["batch"].get<int>()] = p["seconds"].get<double>();
      else problems.add(child_path(at, i), "expected {\"batch\": integer >= 1, \"seconds\": seconds per micro-batch > 0}");
    }
  }
  problems.throw_if_any();
  return c;
}

void read_train(JsonReader& r, const JsonNode& t, const Scenario& scenario, TrainJob& job) {
  r.check_keys(t, {"batch", "samples", "gpus", "gpu", "compute_calibration", "steps", "seed", "ecmp",
                   "collective_compute", "stragglers", "reliability", "compare", "rank_order"});
  r.field(t, "collective_compute", job.collective_compute);
  r.field(t, "batch", job.batch, 1, 1 << 20);
  r.field(t, "samples", job.samples, 0, 1e18, "a sample count");
  int gpus = 0;
  const std::vector<DeviceId> all = scenario.cluster.gpus();
  r.field(t, "gpus", gpus, 1, std::max(1, int(all.size())));  // absent: every GPU
  job.order = declaration_order(scenario.cluster, gpus);
  if (const auto order = r.member(t, "rank_order")) {
    if (auto read = read_rank_order(scenario.cluster, r, *order, gpus, scenario.file)) job.order = std::move(*read);
  }
  if (job.order.ranks.empty()) r.add("/cluster", "the cluster has no GPUs to train on");
  const std::optional<GpuCompute> gpu = read_gpu(r, t);
  for (DeviceId rank : job.order.ranks) job.rank_gpus.push_back(gpu ? *gpu : gpu_compute(scenario.cluster.device(rank).gpu_model));
  job.calibration = read_calibration(r, t, scenario.file);
  r.field(t, "steps", job.steps, 1, 100000);
  int seed = 1;
  r.field(t, "seed", seed, 0, INT32_MAX);
  job.seed = std::uint64_t(seed);
  if (read_word(r, t, "ecmp", "hash", {"hash", "first"}, "hash or first") == "first") job.ecmp = EcmpPolicy::First;

  const JsonNode s = r.section(t, "stragglers");
  r.check_keys(s, {"jitter", "slow_probability", "slow_factor"});
  r.field(s, "jitter", job.stragglers.jitter, 0, 2, "a log-standard-deviation");
  r.field(s, "slow_probability", job.stragglers.slow_probability, 0, 1, "a probability");
  r.field(s, "slow_factor", job.stragglers.slow_factor, 1, 1000, "a slowdown factor");

  const JsonNode rel = r.section(t, "reliability");
  r.check_keys(rel, {"node_mtbf", "checkpoint", "restart", "interval", "startup_base", "startup_per_rank"});
  read_seconds(r, rel, "node_mtbf", job.reliability.node_mtbf_s);
  read_seconds(r, rel, "checkpoint", job.reliability.checkpoint_s);
  read_seconds(r, rel, "restart", job.reliability.restart_s);
  read_seconds(r, rel, "interval", job.reliability.interval_s);
  read_seconds(r, rel, "startup_base", job.reliability.startup.base_s);
  read_seconds(r, rel, "startup_per_rank", job.reliability.startup.per_rank_s);

  for (int k = 0; k < kStrategyCount; ++k)
    if (StrategyKind(k) != job.strategy.kind) job.compare.push_back(StrategyKind(k));
  const auto c = r.member(t, "compare");
  if (!c) return;
  if (!(*c)->is_array()) return r.add(c->path, "expected an array of strategy names");
  job.compare.clear();
  for (const JsonNode& e : r.elements(*c)) {
    const auto kind = e->is_string() ? find_strategy(e->get<std::string>()) : std::nullopt;
    if (kind) job.compare.push_back(*kind);
    else if (e->is_string()) r.add(e.path, unknown_name_message("strategy", e->get<std::string>(), strategy_names()));
    else r.add(e.path, "expected one of " + strategy_names());
  }
}

}  // namespace

TrainJob train_job_from_scenario(const Scenario& scenario) {
  ProblemList problems(scenario.file.empty() ? "<built-in scenario>" : scenario.file);
  JsonReader r(problems);
  TrainJob job;
  job.workload = read_workload(r, JsonNode{&scenario.workload, "/workload"});
  job.strategy = read_strategy(r, JsonNode{&scenario.strategy, "/strategy"}, scenario.cluster);
  read_train(r, JsonNode{&scenario.train, "/train"}, scenario, job);
  problems.throw_if_any();
  return job;
}

}  // namespace ringlab::sim
