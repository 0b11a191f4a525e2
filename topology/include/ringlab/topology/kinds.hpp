// Device and link kinds of the cluster model, their names in scenario files, and the defaults table.
//
// Every nominal number (link bandwidth per direction, per-hop latency, per-message software overhead,
// GPU memory bandwidth) lives in the two tables in kinds.cpp, each with its unit and source. Nothing
// else in ringlab inlines hardware numbers.
#pragma once

#include <optional>
#include <string_view>

#include "ringlab/topology/units.hpp"

namespace ringlab {

enum class DeviceKind : std::uint8_t {
  Gpu,
  Cpu,         ///< host CPU / PCIe root complex
  PcieSwitch,
  NvSwitch,
  Nic,
  Leaf,        ///< top-of-rack or leaf switch
  Spine,
  Core,
};
inline constexpr int kDeviceKindCount = 8;

/// True for devices that sit inside a host (GPU, CPU, PCIe switch, NVSwitch, NIC).
constexpr bool is_host_internal(DeviceKind k) { return k <= DeviceKind::Nic; }
/// True for fabric switches (leaf/ToR, spine, core).
constexpr bool is_fabric_switch(DeviceKind k) { return k >= DeviceKind::Leaf; }

enum class LinkKind : std::uint8_t {
  NvLink1, NvLink2, NvLink3, NvLink4, NvLink5,  ///< per NVLink link; `lanes` = number of bonded links
  Pcie3, Pcie4, Pcie5, Pcie6,                   ///< per PCIe lane; `lanes` = width (x1..x16)
  Smp,                                          ///< CPU socket link, Intel UPI (Skylake .. Ice Lake), per link
  Qpi, UpiSpr, UpiEmr, Xgmi,                    ///< Intel QPI (Broadwell), UPI of Sapphire / Emerald Rapids, AMD xGMI
  IbEdr, IbHdr, IbNdr, IbXdr,                   ///< one 4x InfiniBand port; `lanes` = ports bonded
  Eth10, Eth25, Eth40, Eth100, Eth200, Eth400, Eth800,  ///< one Ethernet port; `lanes` = ports bonded
  Custom,                                       ///< no defaults: bandwidth and latency must be given
};
inline constexpr int kLinkKindCount = 26;

enum class LinkFamily : std::uint8_t { NvLink, Pcie, Smp, InfiniBand, Ethernet, Custom };

/// Transport of a network link. InfiniBand is always RDMA; Ethernet may be RoCE (RDMA), TCP, AWS
/// EFA's SRD (Scalable Reliable Datagram: RDMA-like GPUDirect, but with its own, higher per-message
/// latency, which NCCL's network hop latency takes from the aws-ofi-nccl plugin; see nccl_tuning.cpp),
/// or Google's GPUDirect-TCPX/TCPXO (TCP whose payload the NIC moves to and from GPU memory: TCP's
/// per-message overhead, but no staging in host memory under NCCL). Plain TCP is NCCL's socket
/// transport, which stages through host memory (nccl_transport.hpp). Host-internal links use None.
enum class Transport : std::uint8_t { None, Rdma, Tcp, Srd, Tcpx };

/// A host's CPUs as NCCL's topology tells them apart (src/graph/topo.cc ncclTopoAddCpu: x86 by CPUID
/// vendor, else the architecture): Intel and AMD x86, or Other (Arm such as Grace, POWER, other x86
/// vendors). NCCL charges its PCIe overhead through Intel's root complex only (nccl_transport.hpp).
enum class CpuVendor : std::uint8_t { Intel, Amd, Other };
inline constexpr int kCpuVendorCount = 3;

/// GPU models of the catalogue (kGpuTable in kinds.cpp). New models are appended: the enum indexes
/// tables (kGpuTable, calibration arrays), so the order of existing values never changes and it is
/// NOT chronological; compare GPUs by GpuSpec::sm, not by enum value.
enum class GpuModel : std::uint8_t {
  Generic, V100, A100, H100, H200, B200,
  A100_40GB,   ///< A100 SXM4 40GB ("a100_40gb"); A100 is the 80GB SXM4
  A100Pcie,    ///< A100 80GB PCIe ("a100_pcie")
  A10,         ///< "a10"
  L40S,        ///< "l40s"
  H100Pcie,    ///< H100 80GB PCIe ("h100_pcie"); H100 is the SXM5
  H100Nvl,     ///< H100 NVL 94GB, PCIe with NVLink bridge pair ("h100_nvl")
  H20,         ///< "h20"
  GB200,       ///< one B200 GPU of a GB200 Grace Blackwell superchip ("gb200")
  Rtx4090,     ///< GeForce RTX 4090 ("rtx4090")
  Rtx6000Ada,  ///< RTX 6000 Ada Generation ("rtx6000_ada")
  Rtx2080Ti,   ///< GeForce RTX 2080 Ti ("rtx2080ti")
  A100Pcie40GB,  ///< A100 40GB PCIe ("a100_40gb_pcie")
};
inline constexpr int kGpuModelCount = 18;

/// Defaults for one link kind; all values per direction of a full-duplex link.
struct LinkDefaults {
  LinkKind kind;
  std::string_view name;        ///< name in scenario files, e.g. "nvlink4", "ib_ndr", "eth100"
  LinkFamily family;
  Bandwidth per_lane;           ///< per NVLink link / PCIe lane / port, per direction
  int default_lanes;            ///< lanes when a file gives none (PCIe x16, one NVLink, one port)
  Duration hop_latency;         ///< latency added per traversal of this link (wire + switch port)
  Duration rdma_overhead;       ///< per-message software overhead when the transport is RDMA (or None)
  Duration tcp_overhead;        ///< per-message software overhead over TCP (Ethernet only)
  std::string_view source;      ///< where the numbers come from
};

struct GpuSpec {
  GpuModel model;
  std::string_view name;        ///< "h100", ...
  Bandwidth hbm;                ///< peak device memory bandwidth (HBM or GDDR; decimal GB/s figure of the datasheet)
  LinkKind nvlink;              ///< NVLink generation of this GPU (meaningless when nvlinks is 0)
  int nvlinks;                  ///< NVLink links per GPU; 0 without NVLink. Per-GPU NVLink bandwidth per
                                ///< direction = nvlinks x link_defaults(nvlink).per_lane
  LinkKind pcie;                ///< PCIe generation of the GPU's x16 host interface
  bool pcie_p2p;                ///< CUDA peer-to-peer over PCIe supported by the stock driver
  int sm;                       ///< CUDA compute capability, major*10+minor (NCCL's "sm"); 0 = unknown
  std::string_view source;
};

const LinkDefaults& link_defaults(LinkKind kind);
const GpuSpec& gpu_spec(GpuModel model);
LinkFamily link_family(LinkKind kind);

std::string_view to_string(DeviceKind kind);
std::string_view to_string(LinkKind kind);
std::string_view to_string(Transport t);
std::string_view to_string(CpuVendor v);
std::string_view to_string(GpuModel m);

/// Name lookups for scenario files; nullopt when the name is unknown. Device kinds accept "tor" as
/// an alias of "leaf".
std::optional<DeviceKind> find_device_kind(std::string_view name);
std::optional<LinkKind> find_link_kind(std::string_view name);
std::optional<Transport> find_transport(std::string_view name);
/// "intel", "amd" or "other".
std::optional<CpuVendor> find_cpu_vendor(std::string_view name);
/// The vendor a CPU socket link kind names: xgmi AMD's, smp, qpi and upi_* Intel's; nullopt for
/// other link kinds.
std::optional<CpuVendor> socket_link_vendor(LinkKind kind);
/// Whether CPUs of `vendor` can be joined by `socket_link`: intel by smp, qpi or upi_*, amd by xgmi,
/// other by smp.
bool cpu_vendor_matches(CpuVendor vendor, LinkKind socket_link);
/// Accepts the catalogue names ("h100", "a100_40gb", ...) and, case-insensitively, the product names
/// nvidia-smi and cudaGetDeviceProperties print ("NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB",
/// "NVIDIA GeForce RTX 4090"), from the product-name table in kinds.cpp.
std::optional<GpuModel> find_gpu_model(std::string_view name);

/// Comma-separated list of the accepted names, for error messages ("expected one of ...").
std::string device_kind_names();
std::string link_kind_names();
std::string gpu_model_names();

}  // namespace ringlab
