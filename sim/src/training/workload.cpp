// Workload presets and the GPU compute table (see workload.hpp for the model). Every number here
// carries its source; estimates are marked as such.
#include "ringlab/sim/workload.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ringlab::sim {
namespace {

constexpr double kTera = 1e12;
constexpr std::int64_t kGiB = std::int64_t(1) << 30;

// Kaplan et al. 2020, "Scaling Laws for Neural Language Models", eq. 2.1: training costs C ~ 6 N
// FLOPs per token (2N forward, 4N backward); attention's sequence-length term is left out.
constexpr double kTransformerFlopsPerParameterToken = 6.0;
// Forward + backward ~ 3x the forward pass (backward computes gradients for activations and weights).
constexpr double kTrainingToForwardFlops = 3.0;
constexpr double kFlopsPerMultiplyAdd = 2.0;
// Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models", eq. 1:
// a layer stores s*b*h*(34 + 5*a*s/h) bytes at 16-bit, i.e. s*h*(17 + 2.5*a*s/h) elements per
// sample; with FlashAttention the a*s/h term (attention scores) is not stored. Full recomputation
// keeps only each layer's input, s*h elements.
constexpr double kActivationElementsPerToken = 17.0;
constexpr double kAttentionScoreElements = 2.5;

// Optimizer state bytes per parameter (fp32 states, without the fp32 master copy that mixed
// precision adds): Adam m and v = 8; SGD with momentum = 4 (ZeRO paper, Rajbhandari et al. 2020, 3.1).
constexpr double kAdamStateBytes = 8;
constexpr double kMomentumStateBytes = 4;

// Half-saturation batch of the efficiency curve, in samples. Assumption: a GPU reaches half its
// attainable efficiency at ~16 images of 224x224 or ~512 tokens of a transformer layer of width
// >= 1024 (kernel widths at which launch overheads stop dominating); override per workload.
constexpr double kHalfBatchResNet = 16;
constexpr double kHalfBatchTokens = 512;

void repeat(std::vector<Layer>& out, const std::string& name, int count, std::int64_t each) {
  for (int i = 0; i < count; ++i) out.push_back({name + std::to_string(i), each});
}

// Splits `total` parameters of a ResNet stage evenly over its blocks (the first block, which holds
// the downsampling projection, is in reality somewhat larger; the stage totals are exact).
void stage(std::vector<Layer>& out, const std::string& name, int blocks, std::int64_t total) {
  for (int i = 0; i < blocks; ++i)
    out.push_back({name + "." + std::to_string(i), total / blocks + (i == 0 ? total % blocks : 0)});
}

Workload resnet50() {
  Workload w;
  w.name = "resnet50";
  // torchvision resnet50 parameter counts per stage (sum 25,557,032).
  w.layers.push_back({"conv1", 9536});
  stage(w.layers, "layer1", 3, 215808);
  stage(w.layers, "layer2", 4, 1219584);
  stage(w.layers, "layer3", 6, 7098368);
  stage(w.layers, "layer4", 3, 14964736);
  w.layers.push_back({"fc", 2049000});
  // torchvision ResNet50_Weights: 4.09 G multiply-adds per 224x224 image forward.
  w.flops_per_sample = 4.09e9 * kFlopsPerMultiplyAdd * kTrainingToForwardFlops;
  // Estimate: ~25 M stored activation elements per image (feature maps of all conv/BN/ReLU outputs);
  // it lets a per-GPU batch of 128 fp32 images fit a 16 GB V100, the batch commonly used there.
  w.activation_elements = 25e6;
  w.checkpointed_activation_elements = w.activation_elements;
  w.half_batch = kHalfBatchResNet;
  w.optimizer_state_bytes = kMomentumStateBytes;
  w.sample_unit = "images";
  w.source = "He et al. 2016; torchvision resnet50 (25.6 M parameters, 4.09 GMAC); activations estimated";
  return w;
}

struct TransformerShape {
  const char* name;
  int layers;
  std::int64_t hidden;
  int heads;
  std::int64_t sequence;
  std::int64_t embedding;      ///< input embedding parameters (token + position)
  std::int64_t per_layer;      ///< parameters of one block
  std::int64_t head;           ///< output head + final norm (+ pooler for BERT)
  bool flash_attention;        ///< attention scores not stored
  const char* source;
};

Workload transformer(const TransformerShape& s) {
  Workload w;
  w.name = s.name;
  w.layers.push_back({"embedding", s.embedding});
  repeat(w.layers, "block", s.layers, s.per_layer);
  w.layers.push_back({"head", s.head});
  const double tokens = double(s.sequence);
  w.flops_per_sample = kTransformerFlopsPerParameterToken * double(w.parameters()) * tokens;
  const double scores = s.flash_attention ? 0.0 : kAttentionScoreElements * s.heads * tokens / double(s.hidden);
  w.activation_elements = double(s.layers) * tokens * double(s.hidden) * (kActivationElementsPerToken + scores);
  w.checkpointed_activation_elements = double(s.layers) * tokens * double(s.hidden);
  w.half_batch = kHalfBatchTokens / tokens;
  w.optimizer_state_bytes = kAdamStateBytes;
  w.sample_unit = "sequences of " + std::to_string(s.sequence) + " tokens";
  w.source = s.source;
  return w;
}

// BERT-large (Devlin et al. 2019): 24 layers, h=1024, 16 heads, vocab 30522, phase-1 sequence 128.
// Block: QKV 3(h^2+h) + out h^2+h + FFN 8h^2+5h + 2 LayerNorms 4h = 12,596,224.
// GPT-2 1.5B (Radford et al. 2019): 48 layers, h=1600, 25 heads, context 1024, vocab 50257; block 12h^2+13h.
// Llama-2 (Touvron et al. 2023): 7B: 32 layers, h=4096, FFN 11008, 32 heads; 70B: 80 layers, h=8192,
// FFN 28672, 64 heads with 8 KV heads (GQA); vocab 32000, sequence 4096. Block = attention
// (2h^2 + 2*h*h_kv) + SwiGLU 3*h*ffn + 2 RMSNorms 2h.
constexpr TransformerShape kTransformers[] = {
    {"bert-large", 24, 1024, 16, 128, 31782912, 12596224, 2133820, false,
     "Devlin et al. 2019 (BERT-large, 336 M parameters, phase-1 sequence 128); FLOPs 6*N*tokens (Kaplan et al. 2020)"},
    {"gpt2-1.5b", 48, 1600, 25, 1024, 82049600, 30740800, 3200, false,
     "Radford et al. 2019 (GPT-2 XL, 1.56 B parameters, tied output head); FLOPs 6*N*tokens (Kaplan et al. 2020)"},
    {"llama2-7b", 32, 4096, 32, 4096, 131072000, 202383360, 131076096, true,
     "Touvron et al. 2023 (Llama 2 7B, 6.74 B parameters); FLOPs 6*N*tokens (Kaplan et al. 2020)"},
    {"llama2-70b", 80, 8192, 64, 4096, 262144000, 855654400, 262152192, true,
     "Touvron et al. 2023 (Llama 2 70B, 68.98 B parameters, GQA); FLOPs 6*N*tokens (Kaplan et al. 2020)"},
};

// Achievable fraction of dense peak at large batch (mfu_max), by precision class, with rationale:
//  - fp32 on CUDA cores 0.6: ResNet-50 fp32 training on a V100 runs ~380 img/s x 24.5 GFLOP = 9.3
//    TFLOP/s of 15.7 (NVIDIA DeepLearningExamples ResNet-50 v1.5 performance tables).
//  - V100 tensor cores 0.3: Megatron-LM (Shoeybi et al. 2019) sustains 39 TFLOP/s on one V100, 30 % of peak.
//  - A100 16-bit/TF32 0.5: Megatron-LM (Narayanan et al. 2021) 163 TFLOP/s per A100, 52 % of peak.
//  - H100/H200/B200 16-bit 0.4: Llama 3 (Dubey et al. 2024, Table 4) 38-43 % BF16 MFU on H100.
//  - fp8 0.3: assumption; end-to-end fp8 speed-ups of ~1.3-1.5x over bf16 on H100 mean ~0.28 of fp8 peak.
//  - RTX 4090 16-bit 0.35: assumption (consumer card, smaller caches, GDDR6X).
constexpr double kMfuCuda = 0.6;
constexpr double kMfuV100Tensor = 0.3;
constexpr double kMfuA100 = 0.5;
constexpr double kMfuHopper = 0.4;
constexpr double kMfuFp8 = 0.3;
constexpr double kMfuConsumer = 0.35;

struct GpuRow {
  const char* name;
  std::optional<GpuModel> model;
  double memory_gib;
  double fp32, tf32, mixed16, fp8;  // dense TFLOP/s; 0 = unsupported
  double mfu_tensor;                // mfu_max for tf32 and 16-bit
  const char* source;
};

const GpuRow kGpuComputeTable[] = {
    {"generic", GpuModel::Generic, 80, 19.5, 156, 312, 0, kMfuA100, "generic: the A100 80GB row"},
    {"v100", GpuModel::V100, 32, 15.7, 0, 125, 0, kMfuV100Tensor,
     "NVIDIA V100 datasheet (SXM2 32GB): 15.7 TFLOPS FP32, 125 TFLOPS tensor"},
    {"a100", GpuModel::A100, 80, 19.5, 156, 312, 0, kMfuA100,
     "NVIDIA A100 datasheet (SXM 80GB): 19.5 FP32, 156 TF32, 312 BF16/FP16 TFLOPS dense"},
    {"h100", GpuModel::H100, 80, 67, 494.5, 989.5, 1979, kMfuHopper,
     "NVIDIA H100 datasheet (SXM): 67 FP32; TF32 989, BF16 1979, FP8 3958 TFLOPS with sparsity, halved for dense"},
    {"h200", GpuModel::H200, 141, 67, 494.5, 989.5, 1979, kMfuHopper,
     "NVIDIA H200 datasheet (SXM): 141 GB HBM3e, H100 compute (dense = half the sparsity figures)"},
    {"b200", GpuModel::B200, 180, 75, 1100, 2250, 4500, kMfuHopper,
     "NVIDIA DGX/HGX B200 datasheets: 1440 GB per 8 GPUs, 72 PFLOPS FP8 (sparse) per 8 GPUs; dense = half"},
    {"rtx4090", GpuModel::Rtx4090, 24, 82.6, 82.6, 165.2, 330.3, kMfuConsumer,
     "NVIDIA Ada Lovelace architecture whitepaper v2.1, Appendix A: RTX 4090 dense, FP32 accumulate"},
};

GpuCompute from_row(const GpuRow& r) {
  GpuCompute g;
  g.name = r.name;
  g.model = r.model;
  g.memory = Bytes{std::int64_t(r.memory_gib * double(kGiB))};
  g.peak_flops = {r.fp32 * kTera, r.tf32 * kTera, r.mixed16 * kTera, r.fp8 * kTera};
  g.mfu_max = {kMfuCuda, r.mfu_tensor, r.mfu_tensor, kMfuFp8};
  g.source = r.source;
  return g;
}

}  // namespace

std::string_view to_string(Precision p) {
  switch (p) {
    case Precision::Fp32: return "fp32";
    case Precision::Tf32: return "tf32";
    case Precision::Mixed16: return "fp16/bf16";
    case Precision::Fp8: return "fp8";
  }
  return "fp32";
}

std::optional<Precision> find_precision(std::string_view name) {
  if (name == "fp32" || name == "float") return Precision::Fp32;
  if (name == "tf32") return Precision::Tf32;
  if (name == "bf16" || name == "fp16" || name == "mixed" || name == "amp") return Precision::Mixed16;
  if (name == "fp8") return Precision::Fp8;
  return std::nullopt;
}

std::int64_t activation_element_bytes(Precision p) { return p == Precision::Fp32 || p == Precision::Tf32 ? 4 : 2; }
std::int64_t weight_element_bytes(Precision p) { return activation_element_bytes(p); }

std::int64_t Workload::parameters() const {
  return std::accumulate(layers.begin(), layers.end(), std::int64_t(0),
                         [](std::int64_t a, const Layer& l) { return a + l.parameters; });
}

std::optional<Workload> find_workload(std::string_view name) {
  if (name == "resnet50" || name == "resnet-50") return resnet50();
  for (const TransformerShape& s : kTransformers)
    if (name == s.name) return transformer(s);
  return std::nullopt;
}

std::string workload_names() {
  std::string out = "resnet50";
  for (const TransformerShape& s : kTransformers) out += std::string(", ") + s.name;
  return out;
}

Precision GpuCompute::effective(Precision p) const {
  for (int i = int(p); i > 0; --i)
    if (peak_flops[std::size_t(i)] > 0) return Precision(i);
  return Precision::Fp32;
}

std::optional<GpuCompute> find_gpu_compute(std::string_view name) {
  for (const GpuRow& r : kGpuComputeTable)
    if (name == r.name) return from_row(r);
  return std::nullopt;
}

GpuCompute gpu_compute(GpuModel model) {
  for (const GpuRow& r : kGpuComputeTable)
    if (r.model == model) return from_row(r);
  return from_row(kGpuComputeTable[0]);
}

std::string gpu_compute_names() {
  std::string out;
  for (const GpuRow& r : kGpuComputeTable) out += (out.empty() ? "" : ", ") + std::string(r.name);
  return out;
}

std::optional<double> ComputeCalibration::lookup(const std::string& gpu, int batch) const {
  const auto it = seconds.find(gpu);
  if (it == seconds.end() || it->second.empty()) return std::nullopt;
  const std::map<int, double>& points = it->second;
  const auto hi = points.lower_bound(batch);
  if (hi != points.end() && hi->first == batch) return hi->second;
  if (hi == points.begin()) return hi->second / hi->first * batch;
  const auto lo = std::prev(hi);
  if (hi == points.end()) return lo->second / lo->first * batch;
  const double f = double(batch - lo->first) / double(hi->first - lo->first);
  return lo->second + f * (hi->second - lo->second);
}

double model_flops_utilisation(const GpuCompute& gpu, const Workload& w, Precision p, int batch) {
  const double b = double(batch);
  return gpu.mfu_max[std::size_t(gpu.effective(p))] * b / (b + w.half_batch);
}

double micro_batch_seconds(const GpuCompute& gpu, const Workload& w, Precision p, int batch,
                           const ComputeCalibration* calibration) {
  if (calibration)
    if (auto s = calibration->lookup(gpu.name, batch)) return *s;
  return w.flops_per_sample * double(batch) / (gpu.peak(p) * model_flops_utilisation(gpu, w, p, batch));
}

}  // namespace ringlab::sim
