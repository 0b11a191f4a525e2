// The defaults tables: nominal link rates, latencies and software overheads per link kind, and GPU
// memory bandwidths. Each row names its source. These are the *pure model* numbers; measured
// efficiency factors (e.g. TCP goodput, NCCL protocol efficiency) belong to the simulator's
// calibration table, not here.
#include "ringlab/topology/kinds.hpp"

#include <array>
#include <string>

namespace ringlab {
namespace {

using namespace literals;

constexpr Bandwidth gbytes(double v) { return Bandwidth::from_bytes_per_second(v * 1e9); }
constexpr Bandwidth gbits(double v) { return Bandwidth::from_bits_per_second(v * 1e9); }

// Per-hop latencies: NVLink/NVSwitch and PCIe switch hops are a few hundred ns; InfiniBand switch
// port-to-port ~130 ns (NVIDIA Quantum/Quantum-2 datasheets) plus cable/serdes; datacenter Ethernet
// cut-through switches ~0.5 us. RDMA software overhead per message ~1 us (perftest ib_write_lat,
// half round trip incl. post/poll), TCP ~10 us one way (netperf TCP_RR on 10-100GbE, kernel stack).
constexpr std::array<LinkDefaults, kLinkKindCount> kLinkTable{{
    {LinkKind::NvLink1, "nvlink1", LinkFamily::NvLink, gbytes(20), 1, 300_ns, 0_ns, 0_ns,
     "NVIDIA Tesla P100 whitepaper (2016): 20 GB/s per link per direction"},
    {LinkKind::NvLink2, "nvlink2", LinkFamily::NvLink, gbytes(25), 1, 300_ns, 0_ns, 0_ns,
     "NVIDIA Tesla V100 whitepaper (2017): 25 GB/s per link per direction, 6 links"},
    {LinkKind::NvLink3, "nvlink3", LinkFamily::NvLink, gbytes(25), 1, 300_ns, 0_ns, 0_ns,
     "NVIDIA A100 whitepaper (2020): 12 links, 600 GB/s total bidirectional"},
    {LinkKind::NvLink4, "nvlink4", LinkFamily::NvLink, gbytes(25), 1, 300_ns, 0_ns, 0_ns,
     "NVIDIA H100 whitepaper (2022): 18 links, 900 GB/s total bidirectional"},
    {LinkKind::NvLink5, "nvlink5", LinkFamily::NvLink, gbytes(50), 1, 300_ns, 0_ns, 0_ns,
     "NVIDIA Blackwell datasheet (2024): 18 links, 1.8 TB/s total bidirectional"},
    {LinkKind::Pcie3, "pcie3", LinkFamily::Pcie, gbits(8.0 * 128 / 130), 16, 150_ns, 0_ns, 0_ns,
     "PCI-SIG PCIe 3.0: 8 GT/s per lane, 128b/130b encoding"},
    {LinkKind::Pcie4, "pcie4", LinkFamily::Pcie, gbits(16.0 * 128 / 130), 16, 150_ns, 0_ns, 0_ns,
     "PCI-SIG PCIe 4.0: 16 GT/s per lane, 128b/130b encoding"},
    {LinkKind::Pcie5, "pcie5", LinkFamily::Pcie, gbits(32.0 * 128 / 130), 16, 150_ns, 0_ns, 0_ns,
     "PCI-SIG PCIe 5.0: 32 GT/s per lane, 128b/130b encoding"},
    {LinkKind::Pcie6, "pcie6", LinkFamily::Pcie, gbits(64.0 * 242 / 256), 16, 150_ns, 0_ns, 0_ns,
     "PCI-SIG PCIe 6.0: 64 GT/s per lane PAM4, 242/256 FLIT efficiency"},
    {LinkKind::Smp, "smp", LinkFamily::Smp, gbytes(20.8), 2, 150_ns, 0_ns, 0_ns,
     "Intel Xeon Scalable UPI: 10.4 GT/s x 16 bit = 20.8 GB/s per link per direction"},
    {LinkKind::IbEdr, "ib_edr", LinkFamily::InfiniBand, gbits(100), 1, 600_ns, 1_us, 0_ns,
     "IBTA: 4x EDR 100 Gb/s; switch hop ~90-130 ns + NIC/cable; perftest ib_write_lat ~1 us"},
    {LinkKind::IbHdr, "ib_hdr", LinkFamily::InfiniBand, gbits(200), 1, 600_ns, 1_us, 0_ns,
     "IBTA: 4x HDR 200 Gb/s; NVIDIA Quantum datasheet 130 ns port-to-port"},
    {LinkKind::IbNdr, "ib_ndr", LinkFamily::InfiniBand, gbits(400), 1, 600_ns, 1_us, 0_ns,
     "IBTA: 4x NDR 400 Gb/s; NVIDIA Quantum-2 datasheet"},
    {LinkKind::IbXdr, "ib_xdr", LinkFamily::InfiniBand, gbits(800), 1, 600_ns, 1_us, 0_ns,
     "IBTA: 4x XDR 800 Gb/s; NVIDIA Quantum-X800 announcement (2024)"},
    {LinkKind::Eth10, "eth10", LinkFamily::Ethernet, gbits(10), 1, 1_us, 2_us, 10_us,
     "IEEE 802.3ae 10GbE; netperf TCP_RR ~20 us round trip on kernel TCP"},
    {LinkKind::Eth25, "eth25", LinkFamily::Ethernet, gbits(25), 1, 1_us, 2_us, 10_us,
     "IEEE 802.3by 25GbE"},
    {LinkKind::Eth40, "eth40", LinkFamily::Ethernet, gbits(40), 1, 1_us, 2_us, 10_us,
     "IEEE 802.3ba 40GbE"},
    {LinkKind::Eth100, "eth100", LinkFamily::Ethernet, gbits(100), 1, 1_us, 2_us, 10_us,
     "IEEE 802.3ba/bj 100GbE; RoCEv2 small-message latency ~2 us"},
    {LinkKind::Eth200, "eth200", LinkFamily::Ethernet, gbits(200), 1, 1_us, 2_us, 10_us,
     "IEEE 802.3bs 200GbE"},
    {LinkKind::Eth400, "eth400", LinkFamily::Ethernet, gbits(400), 1, 1_us, 2_us, 10_us,
     "IEEE 802.3bs 400GbE"},
    {LinkKind::Eth800, "eth800", LinkFamily::Ethernet, gbits(800), 1, 1_us, 2_us, 10_us,
     "IEEE 802.3df 800GbE"},
    {LinkKind::Custom, "custom", LinkFamily::Custom, Bandwidth{}, 1, 0_ns, 0_ns, 0_ns,
     "no defaults: the scenario gives bandwidth and latency"},
}};

constexpr std::array<GpuSpec, kGpuModelCount> kGpuTable{{
    {GpuModel::Generic, "generic", gbytes(1000), LinkKind::NvLink3, 0,
     "a round 1 TB/s HBM figure for unnamed GPUs"},
    {GpuModel::V100, "v100", gbytes(900), LinkKind::NvLink2, 6, "NVIDIA V100 SXM2 datasheet: 900 GB/s HBM2"},
    {GpuModel::A100, "a100", gbytes(2039), LinkKind::NvLink3, 12,
     "NVIDIA A100 80GB SXM datasheet: 2039 GB/s HBM2e"},
    {GpuModel::H100, "h100", gbytes(3350), LinkKind::NvLink4, 18, "NVIDIA H100 SXM datasheet: 3.35 TB/s HBM3"},
    {GpuModel::H200, "h200", gbytes(4800), LinkKind::NvLink4, 18, "NVIDIA H200 SXM datasheet: 4.8 TB/s HBM3e"},
    {GpuModel::B200, "b200", gbytes(8000), LinkKind::NvLink5, 18, "NVIDIA DGX B200 datasheet: 8 TB/s HBM3e"},
}};

constexpr std::array<std::string_view, kDeviceKindCount> kDeviceNames{
    "gpu", "cpu", "pcie_switch", "nvswitch", "nic", "leaf", "spine", "core"};

template <typename Table, typename F>
std::string join_names(const Table& table, F name) {
  std::string out;
  for (const auto& row : table) {
    if (!out.empty()) out += ", ";
    out += name(row);
  }
  return out;
}

}  // namespace

const LinkDefaults& link_defaults(LinkKind kind) { return kLinkTable[std::size_t(kind)]; }
const GpuSpec& gpu_spec(GpuModel model) { return kGpuTable[std::size_t(model)]; }
LinkFamily link_family(LinkKind kind) { return link_defaults(kind).family; }

std::string_view to_string(DeviceKind kind) { return kDeviceNames[std::size_t(kind)]; }
std::string_view to_string(LinkKind kind) { return link_defaults(kind).name; }
std::string_view to_string(GpuModel m) { return gpu_spec(m).name; }
std::string_view to_string(Transport t) {
  switch (t) {
    case Transport::None: return "none";
    case Transport::Rdma: return "rdma";
    case Transport::Tcp: return "tcp";
  }
  return "none";
}

std::optional<DeviceKind> find_device_kind(std::string_view name) {
  if (name == "tor") return DeviceKind::Leaf;
  for (std::size_t i = 0; i < kDeviceNames.size(); ++i)
    if (kDeviceNames[i] == name) return DeviceKind(i);
  return std::nullopt;
}

std::optional<LinkKind> find_link_kind(std::string_view name) {
  for (const LinkDefaults& row : kLinkTable)
    if (row.name == name) return row.kind;
  return std::nullopt;
}

std::optional<Transport> find_transport(std::string_view name) {
  if (name == "rdma" || name == "roce") return Transport::Rdma;
  if (name == "tcp") return Transport::Tcp;
  return std::nullopt;
}

std::optional<GpuModel> find_gpu_model(std::string_view name) {
  for (const GpuSpec& row : kGpuTable)
    if (row.name == name) return row.model;
  return std::nullopt;
}

std::string device_kind_names() {
  return join_names(kDeviceNames, [](std::string_view n) { return std::string(n); }) + " (tor = leaf)";
}
std::string link_kind_names() {
  return join_names(kLinkTable, [](const LinkDefaults& r) { return std::string(r.name); });
}
std::string gpu_model_names() {
  return join_names(kGpuTable, [](const GpuSpec& r) { return std::string(r.name); });
}

}  // namespace ringlab
