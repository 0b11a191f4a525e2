// Reads a scenario's "workload", "strategy" and "train" sections into a TrainJob, collecting every
// problem with its JSON path (format: docs/scenario-format.md, section "Training").
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "ringlab/topology/error.hpp"
#include "training_plan.hpp"

namespace ringlab::sim {
namespace {

using Json = nlohmann::json;

/// Typed, path-aware reads from one section; every failure becomes a problem.
class Section {
 public:
  Section(const Json& j, std::string path, ProblemList& problems) : j_(j), path_(std::move(path)), p_(problems) {}

  void keys(std::initializer_list<std::string_view> allowed) const {
    std::string all;
    for (std::string_view k : allowed) all += (all.empty() ? "" : ", ") + std::string(k);
    for (const auto& [key, value] : j_.items())
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
        p_.add(path_ + "/" + key, "unknown key; expected one of " + all);
  }
  bool has(const char* key) const { return j_.contains(key); }
  const Json& at(const char* key) const { return j_.at(key); }
  std::string path(const char* key) const { return path_ + "/" + key; }
  ProblemList& problems() const { return p_; }

  void string(const char* key, std::string& into) const {
    if (!has(key)) return;
    if (j_[key].is_string()) into = j_[key].get<std::string>();
    else p_.add(path(key), "expected a string");
  }
  void boolean(const char* key, bool& into) const {
    if (!has(key)) return;
    if (j_[key].is_boolean()) into = j_[key].get<bool>();
    else p_.add(path(key), "expected true or false");
  }
  void integer(const char* key, int& into, int lo, int hi) const {
    if (!has(key)) return;
    const Json& v = j_[key];
    if (v.is_number_integer() && v.get<std::int64_t>() >= lo && v.get<std::int64_t>() <= hi) into = v.get<int>();
    else p_.add(path(key), "expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
  }
  void number(const char* key, double& into, double lo, double hi, const char* what = "a number") const {
    if (!has(key)) return;
    const Json& v = j_[key];
    if (v.is_number() && v.get<double>() >= lo && v.get<double>() <= hi) into = v.get<double>();
    else p_.add(path(key), std::string("expected ") + what + " from " + fmt(lo) + " to " + fmt(hi));
  }
  void bytes(const char* key, Bytes& into) const {
    if (!has(key)) return;
    if (!j_[key].is_string()) return p_.add(path(key), "expected a size with a unit such as \"25MiB\"");
    try {
      into = parse_bytes(j_[key].get<std::string>());
    } catch (const std::exception& e) {
      p_.add(path(key), e.what());
    }
  }
  void seconds(const char* key, double& into) const {
    if (!has(key)) return;
    if (!j_[key].is_string() && !(j_[key].is_number() && j_[key].get<double>() == 0))
      return p_.add(path(key), "expected a duration with a unit such as \"90s\", \"30min\" or \"50000h\"");
    try {
      into = j_[key].is_string() ? parse_long_duration(j_[key].get<std::string>()) : 0.0;
    } catch (const std::exception& e) {
      p_.add(path(key), e.what());
    }
  }
  template <typename T, typename F>
  void lookup(const char* key, T& into, F find, const std::string& expected) const {
    std::string text;
    if (!has(key)) return;
    string(key, text);
    if (!j_[key].is_string()) return;
    if (auto v = find(text)) into = *v;
    else p_.add(path(key), "unknown value '" + text + "'; expected " + expected);
  }
  Section child(const char* key) const {
    static const Json kEmpty = Json::object();
    if (!has(key)) return Section(kEmpty, path(key), p_);
    if (!j_[key].is_object()) p_.add(path(key), "expected an object");
    return Section(j_[key].is_object() ? j_[key] : kEmpty, path(key), p_);
  }

 private:
  static std::string fmt(double v) {
    std::ostringstream o;
    o << v;
    return o.str();
  }
  const Json& j_;
  std::string path_;
  ProblemList& p_;
};

constexpr std::array<std::pair<std::string_view, double>, 4> kOptimizers{{
    {"adam", 8}, {"adamw", 8}, {"momentum", 4}, {"sgd", 0},
}};

Workload read_workload(const Section& s) {
  s.keys({"model", "layers", "parameters", "blocks", "flops_per_sample", "activation_elements_per_sample",
          "checkpointed_activation_elements_per_sample", "half_batch", "optimizer", "optimizer_state_bytes",
          "sample_unit"});
  Workload w;
  std::string model = "resnet50";
  s.string("model", model);
  bool unknown_model = false;
  if (auto preset = find_workload(model)) {
    w = *preset;
  } else if (s.has("model")) {
    s.problems().add(s.path("model"), "unknown model '" + model + "'; expected " + workload_names());
    unknown_model = true;
  }
  if (s.has("layers")) {
    w.layers.clear();
    const Json& layers = s.at("layers");
    if (!layers.is_array() || layers.empty()) s.problems().add(s.path("layers"), "expected a non-empty array of {\"name\", \"parameters\", \"count\"}");
    for (std::size_t i = 0; layers.is_array() && i < layers.size(); ++i) {
      const std::string path = s.path("layers") + "/" + std::to_string(i);
      const Section l(layers[i], path, s.problems());
      if (!layers[i].is_object()) { s.problems().add(path, "expected an object"); continue; }
      l.keys({"name", "parameters", "count"});
      std::string name = "layer" + std::to_string(i);
      double params = 0;
      int count = 1;
      l.string("name", name);
      l.number("parameters", params, 1, 1e13, "a parameter count");
      if (!l.has("parameters")) s.problems().add(path + "/parameters", "missing: the layer's parameter count");
      l.integer("count", count, 1, 100000);
      for (int c = 0; c < count; ++c)
        w.layers.push_back({count > 1 ? name + std::to_string(c) : name, std::int64_t(params)});
    }
  }
  if (s.has("parameters")) {
    double params = 0;
    int blocks = 1;
    s.number("parameters", params, 1, 1e13, "a parameter count");
    s.integer("blocks", blocks, 1, 100000);
    w.layers.clear();
    for (int b = 0; b < blocks; ++b)
      w.layers.push_back({"block" + std::to_string(b), std::int64_t(params) / blocks + (b == 0 ? std::int64_t(params) % blocks : 0)});
  }
  s.number("flops_per_sample", w.flops_per_sample, 1, 1e20, "FLOPs per sample (forward + backward)");
  s.number("activation_elements_per_sample", w.activation_elements, 0, 1e15);
  s.number("checkpointed_activation_elements_per_sample", w.checkpointed_activation_elements, 0, 1e15);
  s.number("half_batch", w.half_batch, 0, 1e9, "samples");
  std::string optimizer;
  s.string("optimizer", optimizer);
  if (!optimizer.empty()) {
    const auto it = std::find_if(kOptimizers.begin(), kOptimizers.end(), [&](const auto& o) { return o.first == optimizer; });
    if (it != kOptimizers.end()) w.optimizer_state_bytes = it->second;
    else s.problems().add(s.path("optimizer"), "unknown optimizer '" + optimizer + "'; expected adam, adamw, momentum or sgd");
  }
  s.number("optimizer_state_bytes", w.optimizer_state_bytes, 0, 1024, "bytes per parameter");
  s.string("sample_unit", w.sample_unit);
  if (unknown_model) return w;  // the checks below would only repeat that the model is missing
  if (w.layers.empty()) s.problems().add(s.path("model"), "no model: give a preset or \"layers\"/\"parameters\"");
  if (w.flops_per_sample <= 0) s.problems().add(s.path("flops_per_sample"), "missing: FLOPs per sample (forward + backward)");
  return w;
}

Strategy read_strategy(const Section& s, const Topology& topology) {
  s.keys({"name", "precision", "gradient_dtype", "compression", "bucket", "first_bucket", "overlap", "accumulation",
          "activation_checkpointing", "algorithm", "communication", "hierarchical", "async", "parameter_servers",
          "calibration"});
  Strategy st;
  s.lookup("name", st.kind, find_strategy, strategy_names());
  s.lookup("precision", st.precision, find_precision, "fp32, tf32, bf16, fp16 or fp8");
  st.gradient_dtype = weight_element_bytes(st.precision) == 4 ? DataType::Fp32 : DataType::Bf16;
  s.lookup("gradient_dtype", st.gradient_dtype, find_data_type, "fp32, bf16, fp16");
  std::string compression;
  s.string("compression", compression);
  if (!compression.empty()) {
    if (auto c = parse_compression(compression)) st.compression = *c;
    else s.problems().add(s.path("compression"), "unknown value '" + compression + "'; expected none, fp8, int8 or topk:RATIO");
  }
  s.bytes("bucket", st.bucket);
  s.bytes("first_bucket", st.first_bucket);
  s.boolean("overlap", st.overlap);
  s.integer("accumulation", st.accumulation, 1, 4096);
  s.boolean("activation_checkpointing", st.activation_checkpointing);
  Algorithm algorithm = Algorithm::Ring;
  s.lookup("algorithm", algorithm, find_algorithm, algorithm_names());
  if (s.has("algorithm")) st.algorithm = algorithm;
  std::string communication;
  s.string("communication", communication);
  if (communication == "nccl") st.algorithm = Algorithm::Nccl;
  else if (communication == "ring") st.algorithm = Algorithm::Ring;
  else if (!communication.empty()) s.problems().add(s.path("communication"), "unknown value '" + communication + "'; expected nccl or ring");
  s.boolean("hierarchical", st.hierarchical);
  s.boolean("async", st.async);
  std::string calibration = st.algorithm == Algorithm::Nccl ? "nccl" : "pure";
  s.string("calibration", calibration);
  if (calibration != "pure" && calibration != "nccl")
    s.problems().add(s.path("calibration"), "unknown value '" + calibration + "'; expected pure or nccl");
  st.nccl_calibration = calibration == "nccl";
  if (s.has("parameter_servers")) {
    const Json& ps = s.at("parameter_servers");
    if (!ps.is_array()) s.problems().add(s.path("parameter_servers"), "expected an array of device names");
    for (std::size_t i = 0; ps.is_array() && i < ps.size(); ++i) {
      const std::string path = s.path("parameter_servers") + "/" + std::to_string(i);
      const auto id = ps[i].is_string() ? topology.find_device(ps[i].get<std::string>()) : std::nullopt;
      if (id) st.parameter_servers.push_back(*id);
      else s.problems().add(path, "expected the name of a device of the cluster (e.g. \"ps0/cpu0\")");
    }
  }
  if (st.async && st.kind != StrategyKind::TfParameterServer)
    s.problems().add(s.path("async"), "only tf_parameter_server trains asynchronously");
  return st;
}

std::optional<GpuCompute> read_gpu(const Section& t) {
  if (!t.has("gpu")) return std::nullopt;
  const Json& g = t.at("gpu");
  if (g.is_string()) {
    if (auto preset = find_gpu_compute(g.get<std::string>())) return preset;
    t.problems().add(t.path("gpu"), "unknown GPU '" + g.get<std::string>() + "'; expected " + gpu_compute_names());
    return std::nullopt;
  }
  const Section s = t.child("gpu");
  s.keys({"model", "memory", "peak_tflops", "mfu_max"});
  std::string model = "generic";
  s.string("model", model);
  auto out = find_gpu_compute(model);
  if (!out) {
    s.problems().add(s.path("model"), "unknown GPU '" + model + "'; expected " + gpu_compute_names());
    return std::nullopt;
  }
  s.bytes("memory", out->memory);
  for (const char* table : {"peak_tflops", "mfu_max"}) {
    const Section p = s.child(table);
    p.keys({"fp32", "tf32", "bf16", "fp8"});
    for (int i = 0; i < kPrecisionCount; ++i) {
      const std::string key(to_string(Precision(i)));
      double v = std::string(table) == "mfu_max" ? out->mfu_max[std::size_t(i)] : out->peak_flops[std::size_t(i)] / 1e12;
      p.number(key.c_str(), v, 0, std::string(table) == "mfu_max" ? 1.0 : 1e6);
      if (std::string(table) == "mfu_max") out->mfu_max[std::size_t(i)] = v;
      else out->peak_flops[std::size_t(i)] = v * 1e12;
    }
  }
  return out;
}

// Calibration file: { "v100": [ { "batch": 32, "seconds": 0.105 }, ... ], ... } (seconds per micro-batch).
ComputeCalibration read_calibration(const Section& t, const std::string& scenario_file) {
  ComputeCalibration c;
  if (!t.has("compute_calibration")) return c;
  std::string name;
  t.string("compute_calibration", name);
  if (name.empty()) return c;
  std::filesystem::path path(name);
  if (path.is_relative() && !scenario_file.empty()) path = std::filesystem::path(scenario_file).parent_path() / path;
  std::ifstream in(path);
  ProblemList problems(path.string());
  Json doc;
  try {
    if (!in) throw std::runtime_error("cannot read the file");
    doc = Json::parse(in);
  } catch (const std::exception& e) {
    t.problems().add(t.path("compute_calibration"), "calibration file " + path.string() + ": " + e.what());
    return c;
  }
  if (!doc.is_object()) problems.add("", "expected an object keyed by GPU name");
  for (const auto& [gpu, points] : doc.is_object() ? doc.items() : Json::object().items()) {
    if (!find_gpu_compute(gpu)) problems.add("/" + gpu, "unknown GPU; expected " + gpu_compute_names());
    if (!points.is_array()) { problems.add("/" + gpu, "expected an array of {\"batch\", \"seconds\"}"); continue; }
    for (std::size_t i = 0; i < points.size(); ++i) {
      const std::string where = "/" + gpu + "/" + std::to_string(i);
      const Json& p = points[i];
      const bool ok = p.is_object() && p.contains("batch") && p["batch"].is_number_integer() && p["batch"].get<int>() >= 1 &&
                      p.contains("seconds") && p["seconds"].is_number() && p["seconds"].get<double>() > 0;
      if (ok) c.seconds[gpu][p["batch"].get<int>()] = p["seconds"].get<double>();
      else problems.add(where, "expected {\"batch\": integer >= 1, \"seconds\": seconds per micro-batch > 0}");
    }
  }
  problems.throw_if_any();
  return c;
}

void read_train(const Section& t, const Scenario& scenario, TrainJob& job) {
  t.keys({"batch", "samples", "gpus", "gpu", "compute_calibration", "steps", "seed", "ecmp", "collective_compute",
          "stragglers", "reliability", "compare"});
  t.boolean("collective_compute", job.collective_compute);
  t.integer("batch", job.batch, 1, 1 << 20);
  t.number("samples", job.samples, 0, 1e18, "a sample count");
  int gpus = 0;
  const std::vector<DeviceId> all = scenario.cluster.gpus();
  t.integer("gpus", gpus, 0, int(all.size()));
  job.ranks.assign(all.begin(), all.begin() + (gpus > 0 ? gpus : int(all.size())));
  if (job.ranks.empty()) t.problems().add("/cluster", "the cluster has no GPUs to train on");
  const std::optional<GpuCompute> gpu = read_gpu(t);
  for (DeviceId r : job.ranks) job.rank_gpus.push_back(gpu ? *gpu : gpu_compute(scenario.cluster.device(r).gpu_model));
  job.calibration = read_calibration(t, scenario.file);
  t.integer("steps", job.steps, 1, 100000);
  int seed = 1;
  t.integer("seed", seed, 0, INT32_MAX);
  job.seed = std::uint64_t(seed);
  std::string ecmp = "hash";
  t.string("ecmp", ecmp);
  if (ecmp == "first") job.ecmp = EcmpPolicy::First;
  else if (ecmp != "hash") t.problems().add(t.path("ecmp"), "unknown value '" + ecmp + "'; expected hash or first");

  const Section s = t.child("stragglers");
  s.keys({"jitter", "slow_probability", "slow_factor"});
  s.number("jitter", job.stragglers.jitter, 0, 2, "a log-standard-deviation");
  s.number("slow_probability", job.stragglers.slow_probability, 0, 1, "a probability");
  s.number("slow_factor", job.stragglers.slow_factor, 1, 1000, "a slowdown factor");

  const Section r = t.child("reliability");
  r.keys({"node_mtbf", "checkpoint", "restart", "interval", "startup_base", "startup_per_rank"});
  r.seconds("node_mtbf", job.reliability.node_mtbf_s);
  r.seconds("checkpoint", job.reliability.checkpoint_s);
  r.seconds("restart", job.reliability.restart_s);
  r.seconds("interval", job.reliability.interval_s);
  r.seconds("startup_base", job.reliability.startup.base_s);
  r.seconds("startup_per_rank", job.reliability.startup.per_rank_s);

  for (int k = 0; k < kStrategyCount; ++k)
    if (StrategyKind(k) != job.strategy.kind) job.compare.push_back(StrategyKind(k));
  if (!t.has("compare")) return;
  const Json& c = t.at("compare");
  if (!c.is_array()) return t.problems().add(t.path("compare"), "expected an array of strategy names");
  job.compare.clear();
  for (std::size_t i = 0; i < c.size(); ++i) {
    const auto kind = c[i].is_string() ? find_strategy(c[i].get<std::string>()) : std::nullopt;
    if (kind) job.compare.push_back(*kind);
    else t.problems().add(t.path("compare") + "/" + std::to_string(i), "expected one of " + strategy_names());
  }
}

}  // namespace

TrainJob train_job_from_scenario(const Scenario& scenario) {
  ProblemList problems(scenario.file.empty() ? "<built-in scenario>" : scenario.file);
  TrainJob job;
  job.workload = read_workload(Section(scenario.workload, "/workload", problems));
  job.strategy = read_strategy(Section(scenario.strategy, "/strategy", problems), scenario.cluster);
  read_train(Section(scenario.train, "/train", problems), scenario, job);
  problems.throw_if_any();
  return job;
}

}  // namespace ringlab::sim
