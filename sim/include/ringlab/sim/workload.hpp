// Workload and GPU compute models for training-step simulation: what a model costs per sample
// (parameters, FLOPs, activation memory, gradient tensors in layer order) and how fast and how big a
// GPU is (peak dense FLOP/s per precision, memory, achievable fraction of peak vs per-GPU batch).
//
// Compute model: one micro-batch of b samples on one GPU takes
//   t(b) = flops_per_sample * b / (peak(precision) * mfu(b)),   mfu(b) = mfu_max * b / (b + b_half)
// (a saturating efficiency curve: small batches leave the GPU idle on launch overheads and narrow
// kernels). mfu_max is per GPU and precision (kGpuComputeTable in workload.cpp, with its rationale),
// b_half per workload. A calibration (measured seconds per micro-batch per GPU model and batch)
// replaces the model where it has an entry. Presets cite their sources in workload.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ringlab/sim/payload.hpp"
#include "ringlab/topology/kinds.hpp"
#include "ringlab/topology/units.hpp"

namespace ringlab::sim {

/// Arithmetic precision of the forward/backward math. Mixed16 = bf16 or fp16 autocast with fp32
/// master weights; Fp8 = fp8 matmuls (Transformer Engine) with 16-bit everything else.
enum class Precision : std::uint8_t { Fp32, Tf32, Mixed16, Fp8 };
inline constexpr int kPrecisionCount = 4;
std::string_view to_string(Precision p);
/// "fp32", "tf32", "bf16"/"fp16"/"mixed" (Mixed16), "fp8"; nullopt on a miss.
std::optional<Precision> find_precision(std::string_view name);
/// Bytes of one stored activation element: 4 for fp32/tf32, 2 otherwise.
std::int64_t activation_element_bytes(Precision p);
/// Bytes of one weight as the forward pass reads it (what ZeRO-3/FSDP all-gather): 4 for fp32/tf32, 2 otherwise.
std::int64_t weight_element_bytes(Precision p);

/// One parameter tensor group in forward order (a layer, block or stage); backward produces the
/// groups' gradients in reverse order. FSDP/ZeRO-3 shard and gather per group.
struct Layer {
  std::string name;
  std::int64_t parameters = 0;
};

struct Workload {
  std::string name;
  std::vector<Layer> layers;            ///< forward order; parameters() is their sum
  double flops_per_sample = 0;          ///< forward + backward FLOPs of one sample (6*N*tokens for transformers)
  double activation_elements = 0;       ///< activation elements kept for backward, per sample
  double checkpointed_activation_elements = 0;  ///< the same with full activation checkpointing (layer inputs only)
  double half_batch = 1;                ///< b_half of the efficiency curve, in samples
  double optimizer_state_bytes = 8;     ///< optimizer state bytes per parameter, excluding any fp32 master copy
  std::string sample_unit = "samples";  ///< "images", "sequences of 512 tokens", ... (reports only)
  std::string source;                   ///< where the numbers come from

  std::int64_t parameters() const;
};

/// The presets: "resnet50", "bert-large", "gpt2-1.5b", "llama2-7b", "llama2-70b".
std::optional<Workload> find_workload(std::string_view name);
std::string workload_names();

/// Compute capability of one GPU type. Peaks are dense (no 2:4 sparsity), in FLOP/s; a zero peak
/// means the precision is unsupported and falls back to the next one down (fp8 -> 16-bit -> tf32 -> fp32).
struct GpuCompute {
  std::string name;                                   ///< "v100", "rtx4090", ...
  std::optional<GpuModel> model;                      ///< topology's GpuModel of the same name, if any
  Bytes memory;                                       ///< device memory
  std::array<double, kPrecisionCount> peak_flops{};   ///< by Precision
  std::array<double, kPrecisionCount> mfu_max{};      ///< achievable fraction of peak at large batch, by Precision
  std::string source;

  /// The precision actually used for `p` (falls back when unsupported).
  Precision effective(Precision p) const;
  double peak(Precision p) const { return peak_flops[std::size_t(effective(p))]; }
};

/// Presets by name: "generic", "v100", "a100", "h100", "h200", "b200", "rtx4090"; nullopt on a miss.
std::optional<GpuCompute> find_gpu_compute(std::string_view name);
/// The preset for a topology GPU model (every GpuModel has one).
GpuCompute gpu_compute(GpuModel model);
std::string gpu_compute_names();

/// Measured seconds per micro-batch, per GPU name and per-GPU batch; replaces the compute model for
/// (gpu, batch) pairs it holds. Batches between measured ones are interpolated linearly in batch;
/// outside the measured range the nearest point's per-sample time is used.
struct ComputeCalibration {
  std::map<std::string, std::map<int, double>> seconds;  ///< gpu name -> batch -> seconds per micro-batch
  std::optional<double> lookup(const std::string& gpu, int batch) const;
};

/// mfu(b) = mfu_max * b / (b + half_batch). Precondition: batch >= 1.
double model_flops_utilisation(const GpuCompute& gpu, const Workload& w, Precision p, int batch);
/// Seconds for forward + backward of one micro-batch of `batch` samples (calibration first).
double micro_batch_seconds(const GpuCompute& gpu, const Workload& w, Precision p, int batch,
                           const ComputeCalibration* calibration = nullptr);

}  // namespace ringlab::sim
