// Calibration files (calibration_file.hpp).
#include "ringlab/sim/calibration_file.hpp"

#include <array>
#include <cmath>

#include "ringlab/topology/error.hpp"
#include "ringlab/topology/scenario.hpp"

namespace ringlab::sim {
namespace {

constexpr std::array<std::pair<LinkFamily, std::string_view>, 6> kFamilyNames = {{
    {LinkFamily::NvLink, "nvlink"},
    {LinkFamily::Pcie, "pcie"},
    {LinkFamily::Smp, "smp"},
    {LinkFamily::InfiniBand, "infiniband"},
    {LinkFamily::Ethernet, "ethernet"},
    {LinkFamily::Custom, "custom"},
}};

/// A positive finite number at `key` of `object`, or a problem at `path`.
std::optional<double> positive(const nlohmann::json& object, const char* key, const std::string& path,
                               ProblemList& problems, bool required) {
  if (!object.contains(key)) {
    if (required) problems.add(path, std::string("missing \"") + key + "\"");
    return std::nullopt;
  }
  const auto& v = object[key];
  if (!v.is_number() || !(v.get<double>() > 0) || !std::isfinite(v.get<double>())) {
    problems.add(path + "/" + key, "expected a positive number");
    return std::nullopt;
  }
  return v.get<double>();
}

}  // namespace

std::string_view to_string(LinkFamily family) {
  for (const auto& [f, name] : kFamilyNames)
    if (f == family) return name;
  return "custom";
}

std::optional<LinkFamily> find_link_family(std::string_view name) {
  for (const auto& [f, n] : kFamilyNames)
    if (n == name) return f;
  return std::nullopt;
}

Calibration CalibrationFile::calibration() const {
  Calibration c = base == "nccl" ? Calibration::nccl() : Calibration::pure();
  for (const auto& [family, factors] : links)
    for (int p = 0; p < kProtocolCount; ++p) {
      LinkFactors f = c.factors(family, Protocol(p));
      f.bandwidth *= factors.bandwidth;
      f.latency *= factors.latency;
      c.set_factors(family, Protocol(p), f);
    }
  c.nccl_latency = nccl_latency;
  for (const auto& [model, gpu] : gpus)
    if (gpu.reduce_bytes_per_second)
      c.measured_reduce_rate[std::size_t(model)] = Bandwidth::from_bytes_per_second(*gpu.reduce_bytes_per_second);
  return c;
}

nlohmann::ordered_json to_json(const CalibrationFile& file) {
  nlohmann::ordered_json j;
  j["schema"] = kCalibrationSchema;
  j["version"] = kCalibrationVersion;
  j["base"] = file.base;
  j["links"] = nlohmann::ordered_json::array();
  for (const auto& [family, f] : file.links)
    j["links"].push_back({{"family", to_string(family)}, {"bandwidth_factor", f.bandwidth}, {"latency_factor", f.latency}});
  if (file.nccl_latency != NcclLatencyFactors{})
    j["nccl_latency"] = {{"base_factor", file.nccl_latency.base},
                         {"intra_factor", file.nccl_latency.intra},
                         {"net_factor", file.nccl_latency.net}};
  j["gpus"] = nlohmann::ordered_json::array();
  for (const auto& [model, gpu] : file.gpus) {
    nlohmann::ordered_json g;
    g["model"] = to_string(model);
    if (gpu.reduce_bytes_per_second) g["reduce_bytes_per_second"] = *gpu.reduce_bytes_per_second;
    if (!gpu.gemm_flops_per_second.empty()) {
      g["gemm_flops_per_second"] = nlohmann::ordered_json::object();
      for (const auto& [precision, flops] : gpu.gemm_flops_per_second) g["gemm_flops_per_second"][precision] = flops;
    }
    j["gpus"].push_back(g);
  }
  j["fit"] = file.fit;
  return j;
}

CalibrationFile calibration_from_json(const nlohmann::json& doc, const std::string& source) {
  ProblemList problems(source);
  CalibrationFile file;
  if (!doc.is_object()) {
    problems.add("", "expected a calibration object");
    problems.throw_if_any();
  }
  if (doc.value("schema", std::string()) != kCalibrationSchema)
    problems.add("/schema", "expected \"ringlab.calibration\"");
  if (!doc.contains("version") || doc["version"] != kCalibrationVersion) problems.add("/version", "expected 1");
  for (const auto& [key, value] : doc.items())
    if (key != "schema" && key != "version" && key != "base" && key != "links" && key != "nccl_latency" &&
        key != "gpus" && key != "fit")
      problems.add("/" + key, "unknown key: expected one of schema, version, base, links, nccl_latency, gpus, fit");
  file.base = doc.value("base", std::string("pure"));
  if (file.base != "pure" && file.base != "nccl") problems.add("/base", "expected \"pure\" or \"nccl\"");
  if (doc.contains("links")) {
    if (!doc["links"].is_array()) problems.add("/links", "expected an array");
    else
      for (std::size_t i = 0; i < doc["links"].size(); ++i) {
        const std::string path = "/links/" + std::to_string(i);
        const auto& l = doc["links"][i];
        if (!l.is_object()) {
          problems.add(path, "expected an object");
          continue;
        }
        const auto family = find_link_family(l.value("family", std::string()));
        if (!family) problems.add(path + "/family", "expected nvlink, pcie, smp, infiniband, ethernet or custom");
        const auto bw = positive(l, "bandwidth_factor", path, problems, false);
        const auto lat = positive(l, "latency_factor", path, problems, false);
        if (family) file.links[*family] = LinkFactors{bw.value_or(1.0), lat.value_or(1.0)};
      }
  }
  if (doc.contains("nccl_latency")) {
    const auto& n = doc["nccl_latency"];
    if (!n.is_object()) {
      problems.add("/nccl_latency", "expected an object {base_factor, intra_factor, net_factor}");
    } else {
      for (const auto& [key, value] : n.items())
        if (key != "base_factor" && key != "intra_factor" && key != "net_factor")
          problems.add("/nccl_latency/" + key, "unknown key: expected base_factor, intra_factor or net_factor");
      file.nccl_latency.base = positive(n, "base_factor", "/nccl_latency", problems, false).value_or(1.0);
      file.nccl_latency.intra = positive(n, "intra_factor", "/nccl_latency", problems, false).value_or(1.0);
      file.nccl_latency.net = positive(n, "net_factor", "/nccl_latency", problems, false).value_or(1.0);
    }
  }
  if (doc.contains("gpus")) {
    if (!doc["gpus"].is_array()) problems.add("/gpus", "expected an array");
    else
      for (std::size_t i = 0; i < doc["gpus"].size(); ++i) {
        const std::string path = "/gpus/" + std::to_string(i);
        const auto& g = doc["gpus"][i];
        const auto model = g.is_object() ? find_gpu_model(g.value("model", std::string())) : std::nullopt;
        if (!model) {
          problems.add(path + "/model", "expected a GPU model (" + gpu_model_names() + ")");
          continue;
        }
        GpuCalibration gpu;
        gpu.reduce_bytes_per_second = positive(g, "reduce_bytes_per_second", path, problems, false);
        if (g.contains("gemm_flops_per_second") && g["gemm_flops_per_second"].is_object())
          for (const auto& [precision, v] : g["gemm_flops_per_second"].items()) {
            if (v.is_number() && v.get<double>() > 0) gpu.gemm_flops_per_second[precision] = v.get<double>();
            else problems.add(path + "/gemm_flops_per_second/" + precision, "expected a positive number");
          }
        file.gpus[*model] = gpu;
      }
  }
  if (doc.contains("fit")) file.fit = doc["fit"];
  problems.throw_if_any();
  return file;
}

CalibrationFile load_calibration_file(const std::string& path) {
  return calibration_from_json(read_json_file(path, "calibration file"), path);
}

void add_gpu_calibration(CalibrationFile& file, const nlohmann::json& doc, const std::string& source) {
  ProblemList problems(source);
  if (!doc.is_object() || doc.value("schema", std::string()) != "ringlab.gpu_calibration") {
    problems.add("/schema", "expected \"ringlab.gpu_calibration\" (written by ringlab-validate --gpu-calibration)");
    problems.throw_if_any();
  }
  const auto model = find_gpu_model(doc.value("model", std::string()));
  if (!model) problems.add("/model", "expected a GPU model ringlab knows (" + gpu_model_names() + ")");
  problems.throw_if_any();
  GpuCalibration& gpu = file.gpus[*model];
  if (doc.contains("reduce") && doc["reduce"].is_array())
    for (const auto& r : doc["reduce"])
      if (r.is_object() && r.value("dtype", std::string()) == "float" && r.contains("bytes_per_second") &&
          r["bytes_per_second"].is_number())
        gpu.reduce_bytes_per_second = r["bytes_per_second"].get<double>();
  if (doc.contains("gemm") && doc["gemm"].is_array())
    for (const auto& g : doc["gemm"])
      if (g.is_object() && g.contains("precision") && g.contains("flops_per_second") && g["flops_per_second"].is_number())
        gpu.gemm_flops_per_second[g["precision"].get<std::string>()] = g["flops_per_second"].get<double>();
}

}  // namespace ringlab::sim
