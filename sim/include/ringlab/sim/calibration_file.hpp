// Calibration files ("ringlab.calibration", version 1): what `ringlab calibrate` fits from measured
// runs, read back by `simulate`, `compare` and `calibrate --calibration FILE`. docs/calibration.md.
//
//   {"schema": "ringlab.calibration", "version": 1,
//    "base": "nccl",                       // the table the factors multiply: "pure" or "nccl"
//    "links": [{"family": "ethernet", "bandwidth_factor": 0.93, "latency_factor": 1.8}],
//    "nccl_latency": {"base_factor": 1.2, "intra_factor": 1.0, "net_factor": 2.1},  // optional
//    "gpus": [{"model": "h100", "reduce_bytes_per_second": 9.17e11,
//              "gemm_flops_per_second": {"bf16": 7.81e14, ...}}],
//    "fit": {...}}                         // how the factors were found (informational)
//
// A family's factors multiply every protocol's factors of the base table for that family: bandwidth
// (link rate) and latency (hop latency and per-message overhead). A GPU model's measured reduction
// rate replaces HBM bandwidth / 3 in the reduction model (Calibration::measured_reduce_rate).
// "nccl_latency" multiplies NCCL's own latency table under --algo nccl (Calibration::nccl_latency).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ringlab/sim/calibration.hpp"

namespace ringlab::sim {

inline constexpr std::string_view kCalibrationSchema = "ringlab.calibration";
inline constexpr int kCalibrationVersion = 1;

/// "nvlink", "pcie", "smp", "infiniband", "ethernet", "custom".
std::string_view to_string(LinkFamily family);
std::optional<LinkFamily> find_link_family(std::string_view name);

struct GpuCalibration {
  std::optional<double> reduce_bytes_per_second;         ///< reduced bytes per second (float)
  std::map<std::string, double> gemm_flops_per_second;   ///< by precision name ("bf16", "fp32", ...)
};

struct CalibrationFile {
  std::string base = "pure";                   ///< "pure" or "nccl"
  std::map<LinkFamily, LinkFactors> links;     ///< multipliers on the base table, per family
  NcclLatencyFactors nccl_latency;             ///< multipliers on NCCL's latency table (all 1: none)
  std::map<GpuModel, GpuCalibration> gpus;
  nlohmann::ordered_json fit = nlohmann::ordered_json::object();  ///< how it was fitted

  /// The calibration the simulator runs with.
  Calibration calibration() const;
};

nlohmann::ordered_json to_json(const CalibrationFile& file);
/// Throws InputError naming `source` and the JSON pointer of every problem.
CalibrationFile calibration_from_json(const nlohmann::json& document, const std::string& source);
CalibrationFile load_calibration_file(const std::string& path);

/// Adds a GPU calibration (ringlab.gpu_calibration, written by ringlab-validate --gpu-calibration) to
/// `file`: the float reduction rate and the GEMM rates, under the document's "model". Throws InputError.
void add_gpu_calibration(CalibrationFile& file, const nlohmann::json& gpu_document, const std::string& source);

}  // namespace ringlab::sim
