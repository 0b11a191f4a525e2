// Calibration tables: NCCL protocol efficiencies and GPU-local rates.
#include "ringlab/sim/calibration.hpp"

namespace ringlab::sim {
namespace {
// Fraction of each protocol's wire bytes that carry payload (NCCL src/device/prims_ll.h: a 16-byte
// LL line carries 8 data bytes and 8 flag bytes; prims_ll128.h: 120 data bytes per 128-byte line).
constexpr std::array<double, kProtocolCount> kProtocolEfficiency{1.0, 120.0 / 128.0, 0.5};
// Sustained memory bandwidth of a two-socket server reducing gradients on all cores: STREAM Triad
// reaches ~200 GB/s on 2x Xeon Platinum 8380 (8 channels DDR4-3200 per socket, 409.6 GB/s peak;
// Intel "3rd Gen Xeon Scalable" performance brief, 2021).
constexpr double kCpuMemoryBandwidthBytesPerSecond = 200e9;
// The bandwidth NCCL's topology search gives one NVLink link, GB/s per direction (NCCL src/graph/topo.h:
// SM70_NVLINK_BW 20.0, SM80_NVLINK_BW 20.0, SM90_NVLINK_BW 20.6, SM100_NVLINK_BW 40.1), over the
// link's nominal per-direction rate (kinds.cpp: NVLink2-4 25 GB/s, NVLink5 50 GB/s). NVLink1 (P100,
// SM60_NVLINK_BW 18.0 of 20).
struct NvlinkGoodput {
  LinkKind kind;
  double nccl_gbytes;
  double nominal_gbytes;
};
constexpr std::array<NvlinkGoodput, 5> kNvlinkGoodput{{
    {LinkKind::NvLink1, 18.0, 20.0},
    {LinkKind::NvLink2, 20.0, 25.0},
    {LinkKind::NvLink3, 20.0, 25.0},
    {LinkKind::NvLink4, 20.6, 25.0},
    {LinkKind::NvLink5, 40.1, 50.0},
}};
}  // namespace

std::string_view to_string(Protocol p) {
  switch (p) {
    case Protocol::Simple: return "simple";
    case Protocol::LL128: return "ll128";
    case Protocol::LL: return "ll";
  }
  return "simple";
}

std::optional<Protocol> find_protocol(std::string_view name) {
  if (name == "simple" || name == "Simple") return Protocol::Simple;
  if (name == "ll128" || name == "LL128") return Protocol::LL128;
  if (name == "ll" || name == "LL") return Protocol::LL;
  return std::nullopt;
}

double nccl_nvlink_link_gbytes(LinkKind kind) {
  for (const NvlinkGoodput& g : kNvlinkGoodput)
    if (g.kind == kind) return g.nccl_gbytes;
  return 0.0;
}

Calibration Calibration::pure() { return Calibration{}; }

Calibration Calibration::nccl() {
  Calibration c;
  for (int f = 0; f < kFamilies; ++f)
    for (int p = 0; p < kProtocolCount; ++p) c.table_[std::size_t(f)][std::size_t(p)].bandwidth = kProtocolEfficiency[std::size_t(p)];
  for (const NvlinkGoodput& g : kNvlinkGoodput) c.kind_goodput_[std::size_t(g.kind)] = g.nccl_gbytes / g.nominal_gbytes;
  return c;
}

Bandwidth Calibration::reduce_rate(GpuModel model) const {
  if (const auto& measured = measured_reduce_rate[std::size_t(model)]) return *measured;
  return gpu_spec(model).hbm / reduce_traffic;
}
Bandwidth Calibration::codec_rate(GpuModel model) const { return gpu_spec(model).hbm / codec_traffic; }
Bandwidth Calibration::copy_rate(GpuModel model) const { return gpu_spec(model).hbm / copy_traffic; }
Bandwidth Calibration::default_cpu_memory_bandwidth() {
  return Bandwidth::from_bytes_per_second(kCpuMemoryBandwidthBytesPerSecond);
}

}  // namespace ringlab::sim
