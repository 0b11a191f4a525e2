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
// SM70_NVLINK_BW 20.0, SM80_NVLINK_BW 20.0, SM90_NVLINK_BW 20.6, SM100_NVLINK_BW 40.1), against the
// link's nominal per-direction rate (kinds.cpp: NVLink2-4 25 GB/s, NVLink5 50 GB/s). NVLink1 (P100,
// SM60_NVLINK_BW 18.0 of 20).
struct LinkFigure {
  LinkKind kind;
  double nccl_gbytes;
};
constexpr std::array<LinkFigure, 5> kNvlinkGoodput{{
    {LinkKind::NvLink1, 18.0},
    {LinkKind::NvLink2, 20.0},
    {LinkKind::NvLink3, 20.0},
    {LinkKind::NvLink4, 20.6},
    {LinkKind::NvLink5, 40.1},
}};
// The bandwidth NCCL gives one PCIe lane, GB/s per direction: src/graph/topo.cc kvDictPciGen ("8 GT/s"
// 60, "16 GT/s" 120, "32 GT/s" 240, "64.0 GT/s PCIe" 480, in 100 Mb/s per lane) and ncclTopoAddPci
// (bw = width x speed / 80 GB/s): a gen3 x16 link is NCCL's PCI_BW 12 GB/s (topo.h), about 76 % of the
// lane rate after line coding (kinds.cpp); NCCL's search takes each GPU-NIC and GPU-CPU path at it.
struct PcieGoodput {
  LinkKind kind;
  double nccl_gbytes_per_lane;
};
constexpr std::array<PcieGoodput, 4> kPcieGoodput{{
    {LinkKind::Pcie3, 0.75},
    {LinkKind::Pcie4, 1.5},
    {LinkKind::Pcie5, 3.0},
    {LinkKind::Pcie6, 6.0},
}};
// The bandwidth NCCL gives the link between two CPU sockets, GB/s per direction, whatever its link
// count (src/graph/topo.h and topo.cc ncclTopoGetInterCpuBw, v2.28.9: BDW_QPI_BW 6, SKL_QPI_BW 10,
// SRP_QPI_BW 22, ERP_QPI_BW 40, AMD_BW 16; the Intel model from the CPUID model number). NCCL's search
// takes SHM and host-staged paths between sockets at it; far below the links' nominal rates.
constexpr std::array<LinkFigure, 5> kSocketLinkGoodput{{
    {LinkKind::Qpi, 6.0},
    {LinkKind::Smp, 10.0},
    {LinkKind::UpiSpr, 22.0},
    {LinkKind::UpiEmr, 40.0},
    {LinkKind::Xgmi, 16.0},
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
  for (const LinkFigure& g : kNvlinkGoodput)
    if (g.kind == kind) return g.nccl_gbytes;
  return 0.0;
}

double nccl_link_goodput(LinkKind kind) {
  const double nominal_gbytes = link_defaults(kind).per_lane.gigabytes_per_second();
  for (const LinkFigure& g : kNvlinkGoodput)
    if (g.kind == kind) return g.nccl_gbytes / nominal_gbytes;
  for (const PcieGoodput& g : kPcieGoodput)
    if (g.kind == kind) return g.nccl_gbytes_per_lane / nominal_gbytes;
  for (const LinkFigure& g : kSocketLinkGoodput)  // at the kind's default link count
    if (g.kind == kind) return g.nccl_gbytes / (nominal_gbytes * link_defaults(kind).default_lanes);
  return 1.0;
}

Calibration Calibration::pure() { return Calibration{}; }

Calibration Calibration::nccl() {
  Calibration c;
  for (int f = 0; f < kFamilies; ++f)
    for (int p = 0; p < kProtocolCount; ++p) c.table_[std::size_t(f)][std::size_t(p)].bandwidth = kProtocolEfficiency[std::size_t(p)];
  for (const LinkFigure& g : kNvlinkGoodput) c.kind_goodput_[std::size_t(g.kind)] = nccl_link_goodput(g.kind);
  for (const PcieGoodput& g : kPcieGoodput) c.kind_goodput_[std::size_t(g.kind)] = nccl_link_goodput(g.kind);
  for (const LinkFigure& g : kSocketLinkGoodput) c.kind_goodput_[std::size_t(g.kind)] = nccl_link_goodput(g.kind);
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
