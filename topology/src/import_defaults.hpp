// The import defaults table: what ringlab assumes when a topology format leaves something out.
//
// Link bandwidths and latencies themselves come from kinds.cpp and node layouts from the templates in
// generators.cpp; this table only holds the mappings from format vocabulary (SM versions, InfiniBand
// speed names, PCIe transfer rates) onto those kinds, and the few policy choices the importers make.
// Each row names its source. docs/import-export.md lists the same table for users.
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "ringlab/topology/generators.hpp"
#include "ringlab/topology/kinds.hpp"

namespace ringlab::detail {

/// CUDA compute capability (NCCL's `sm` attribute, major*10+minor) -> GPU model.
struct SmRow {
  int sm;
  GpuModel model;
};
/// Source: NVIDIA CUDA C++ Programming Guide, "Compute Capabilities" (V100 7.0, A100 8.0, H100/H200
/// 9.0, B200 10.0). sm 90 is H100 and H200 alike; the first row wins, so 90 reads as h100. This is the
/// import guess only: sm 86 and 89 (A10, L40S, RTX 4090, RTX 6000 Ada, A40, ...) name no single board
/// and stay generic; the export side writes GpuSpec::sm of every catalogue model.
inline constexpr std::array<SmRow, 5> kSmModels{{
    {70, GpuModel::V100}, {80, GpuModel::A100}, {90, GpuModel::H100}, {90, GpuModel::H200}, {100, GpuModel::B200}}};

/// InfiniBand speed names of `ibnetdiscover` (e.g. the "EDR" of "4xEDR") -> nominal signalling rate
/// per lane, and the ringlab kind of a 4x port of that speed (none for speeds older than EDR).
struct IbSpeedRow {
  std::string_view name;
  double gbps_per_lane;
  std::optional<LinkKind> kind_4x;
};
/// Source: IBTA InfiniBand roadmap / Architecture Specification Vol. 2 nominal lane rates (SDR 2.5,
/// DDR 5, QDR 10, FDR10 10, FDR 14, EDR 25, HDR 50, NDR 100, XDR 200 Gb/s); 4x EDR/HDR/NDR/XDR are
/// the 100/200/400/800 Gb/s rows of kinds.cpp.
inline constexpr std::array<IbSpeedRow, 9> kIbSpeeds{{
    {"SDR", 2.5, std::nullopt},
    {"DDR", 5.0, std::nullopt},
    {"QDR", 10.0, std::nullopt},
    {"FDR10", 10.0, std::nullopt},
    {"FDR", 14.0, std::nullopt},
    {"EDR", 25.0, LinkKind::IbEdr},
    {"HDR", 50.0, LinkKind::IbHdr},
    {"NDR", 100.0, LinkKind::IbNdr},
    {"XDR", 200.0, LinkKind::IbXdr},
}};
/// Lanes of the standard InfiniBand port that ringlab's ib_* kinds describe (IBTA "4x").
inline constexpr int kIbStandardWidth = 4;
/// Kind whose latency and overhead a pre-EDR InfiniBand link (a custom link) borrows.
inline constexpr LinkKind kIbLegacyTimingKind = LinkKind::IbEdr;

/// PCIe transfer rate (NCCL's link_speed "16.0 GT/s PCIe") -> kind. Gen1/2 have no kind: they become
/// custom links of rate x width x encoding, with the timing of kPcieLegacyTimingKind.
struct PcieRow {
  double gt_per_s;
  std::optional<LinkKind> kind;
  double encoding;  ///< payload fraction of the line rate
};
/// Source: PCI-SIG base specifications 1.0-6.0 (2.5/5 GT/s with 8b/10b, 8/16/32 GT/s with 128b/130b,
/// 64 GT/s FLIT mode; the last four are the pcie3..pcie6 rows of kinds.cpp).
inline constexpr std::array<PcieRow, 6> kPcieGens{{
    {2.5, std::nullopt, 0.8},
    {5.0, std::nullopt, 0.8},
    {8.0, LinkKind::Pcie3, 128.0 / 130.0},
    {16.0, LinkKind::Pcie4, 128.0 / 130.0},
    {32.0, LinkKind::Pcie5, 128.0 / 130.0},
    {64.0, LinkKind::Pcie6, 242.0 / 256.0},
}};
inline constexpr LinkKind kPcieLegacyTimingKind = LinkKind::Pcie3;

/// PCI class codes NCCL writes in <pci class=...> and <nvlink tclass=...> (PCI Code and ID Assignment
/// Specification: 02 07 00 InfiniBand controller, 02 00 00 Ethernet controller, 03 00/03 02 display and
/// 3D controller, 06 80 00 other bridge: what an NVSwitch reports). Compared on the upper 16 bits.
inline constexpr unsigned kPciSubclassMask = 0xffff00;
inline constexpr unsigned kPciClassInfiniBand = 0x020700;
inline constexpr unsigned kPciClassEthernet = 0x020000;
inline constexpr unsigned kPciClassNvSwitch = 0x068000;
inline constexpr unsigned kPciBaseClassDisplay = 0x030000;  ///< compared on the upper 8 bits

/// NVIDIA GPUs by PCI device id (NCCL_TOPO_FILE hints often give vendor/device and no <gpu sm=...>).
/// `sxm`: an SXM module, whose NVLink an 8-GPU board joins through NVSwitches.
struct PciGpuRow {
  unsigned device;
  GpuModel model;
  bool sxm;
  std::string_view name;
};
inline constexpr unsigned kPciVendorNvidia = 0x10de;
/// Source: the PCI ID Repository (pci-ids.ucw.cz), vendor 10de.
inline constexpr std::array<PciGpuRow, 9> kPciGpus{{
    {0x1db1, GpuModel::V100, true, "V100 SXM2 16GB"},
    {0x1db5, GpuModel::V100, true, "V100 SXM2 32GB"},
    {0x20b0, GpuModel::A100_40GB, true, "A100 SXM4 40GB"},
    {0x20b2, GpuModel::A100, true, "A100 SXM4 80GB"},
    {0x20b5, GpuModel::A100Pcie, false, "A100 PCIe 80GB"},
    {0x20f1, GpuModel::A100Pcie40GB, false, "A100 PCIe 40GB"},
    {0x2330, GpuModel::H100, true, "H100 SXM5 80GB"},
    {0x2331, GpuModel::H100Pcie, false, "H100 PCIe"},
    {0x2335, GpuModel::H200, true, "H200 SXM 141GB"},
}};

/// NICs by PCI vendor/device id whose port rate is fixed, for NICs an XML lists without a speed.
struct PciNicRow {
  unsigned vendor, device;
  double gbps;
  std::string_view name;
};
/// Source: AWS EC2 accelerated-computing instance specifications (p4d.24xlarge: 400 Gbps over 4 EFA
/// devices, vendor 0x1d0f device 0xefa0 in aws-ofi-nccl's topology/p4d-24xl-topo.xml).
inline constexpr std::array<PciNicRow, 1> kPciNics{{{0x1d0f, 0xefa0, 100.0, "AWS EFA"}}};
/// Amazon's PCI vendor id: its NICs are EFA devices, whose links take the srd transport (AWS's
/// Scalable Reliable Datagram). Source: the PCI ID Repository, vendor 1d0f (Amazon.com, Inc.).
inline constexpr unsigned kPciVendorAmazon = 0x1d0f;

/// Kind whose latency and overhead an Ethernet NIC of a rate without an ethN kind borrows.
inline constexpr LinkKind kEthCustomTimingKind = LinkKind::Eth100;

/// Policy choices, with the reason for each.
struct ImportPolicy {
  /// Slurm gives no uplink port counts: switch uplinks are sized non-blocking (downlink bandwidth /
  /// uplink bandwidth = this ratio), the generators' default oversubscription.
  double slurm_oversubscription = 1.0;
  /// Node template of the GPU model a layout could not name fully (PCIe generation, NIC port kind),
  /// when no template has that GPU model.
  NodeTemplate fallback_template = NodeTemplate::Generic;
  /// A node layout alone: its NICs go to one switch of this name, so their port speed is kept.
  std::string_view lone_switch = "switch";
};
inline constexpr ImportPolicy kImportPolicy;

}  // namespace ringlab::detail
