// The defaults tables: nominal link rates, latencies and software overheads per link kind, and the GPU
// catalogue (memory bandwidth, NVLink, PCIe, P2P, compute capability). Each row names its source. These are the *pure model* numbers; measured
// efficiency factors (e.g. TCP goodput, NCCL protocol efficiency) belong to the simulator's
// calibration table, not here.
#include "ringlab/topology/kinds.hpp"

#include <array>
#include <cctype>
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
     "Intel Xeon Scalable (Skylake-SP, Cascade Lake) UPI: 10.4 GT/s x 16 bit = 20.8 GB/s per link per direction, 2 links"},
    {LinkKind::Qpi, "qpi", LinkFamily::Smp, gbytes(19.2), 2, 150_ns, 0_ns, 0_ns,
     "Intel Xeon E5-2600 v4 (Broadwell-EP, ark.intel.com): QPI 9.6 GT/s x 16 bit = 19.2 GB/s per link per direction, 2 links"},
    {LinkKind::UpiSpr, "upi_spr", LinkFamily::Smp, gbytes(32), 4, 150_ns, 0_ns, 0_ns,
     "Intel Xeon Platinum 8480+ (Sapphire Rapids, ark.intel.com): UPI 16 GT/s x 16 bit = 32 GB/s per link per direction, 4 links"},
    {LinkKind::UpiEmr, "upi_emr", LinkFamily::Smp, gbytes(40), 4, 150_ns, 0_ns, 0_ns,
     "Intel Xeon Platinum 8580 (Emerald Rapids, ark.intel.com): UPI 20 GT/s x 16 bit = 40 GB/s per link per direction, 4 links"},
    {LinkKind::Xgmi, "xgmi", LinkFamily::Smp, gbytes(36), 4, 150_ns, 0_ns, 0_ns,
     "AMD EPYC 7002/7003 (Rome, Milan) socket-to-socket Infinity Fabric (xGMI-2): x16 at 18 GT/s = 36 GB/s per link per direction, 4 links"},
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

// The GPU catalogue, in GpuModel order (new models are appended). Columns: memory bandwidth (decimal
// GB/s, HBM or GDDR, as the datasheet states it), NVLink generation and links per GPU (0 = none; one
// NVLink3/4 link is 25 GB/s per direction, so 12 links are the datasheets' "600 GB/s" and 18 their
// "900 GB/s" bidirectional), PCIe generation of the GPU's x16 host interface, whether CUDA peer-to-peer
// over PCIe works with the stock driver, and the CUDA compute capability (NVIDIA CUDA C++ Programming
// Guide, "Compute Capabilities": 7.0 Volta, 8.0 A100, 8.6 GA10x, 8.9 Ada, 9.0 Hopper, 10.0 Blackwell).
// Every row cites the NVIDIA datasheet or spec page its numbers come from; inferences are marked.
constexpr std::array<GpuSpec, kGpuModelCount> kGpuTable{{
    {GpuModel::Generic, "generic", gbytes(1000), LinkKind::NvLink3, 0, LinkKind::Pcie4, true, 0,
     "a round 1 TB/s HBM figure for unnamed GPUs; PCIe gen4 with P2P like the generic template"},
    {GpuModel::V100, "v100", gbytes(900), LinkKind::NvLink2, 6, LinkKind::Pcie3, true, 70,
     "NVIDIA V100 SXM2 datasheet: 900 GB/s HBM2, NVLink 300 GB/s (6 links), PCIe Gen3 32 GB/s"},
    {GpuModel::A100, "a100", gbytes(2039), LinkKind::NvLink3, 12, LinkKind::Pcie4, true, 80,
     "NVIDIA A100 80GB SXM datasheet: 2039 GB/s HBM2e, NVLink 600 GB/s (12 links), PCIe Gen4 64 GB/s"},
    {GpuModel::H100, "h100", gbytes(3350), LinkKind::NvLink4, 18, LinkKind::Pcie5, true, 90,
     "NVIDIA H100 SXM datasheet: 3.35 TB/s HBM3, NVLink 900 GB/s (18 links), PCIe Gen5 128 GB/s"},
    {GpuModel::H200, "h200", gbytes(4800), LinkKind::NvLink4, 18, LinkKind::Pcie5, true, 90,
     "NVIDIA H200 SXM datasheet: 4.8 TB/s HBM3e, NVLink 900 GB/s (18 links), PCIe Gen5 128 GB/s"},
    {GpuModel::B200, "b200", gbytes(8000), LinkKind::NvLink5, 18, LinkKind::Pcie5, true, 100,
     "NVIDIA DGX B200 datasheet: 8 TB/s HBM3e, NVLink5 1.8 TB/s (18 links) per GPU; PCIe gen5 as wired "
     "on HGX/DGX B200 (gen5 switches and ConnectX-7; the Blackwell die itself is gen6-capable, inferred)"},
    {GpuModel::A100_40GB, "a100_40gb", gbytes(1555), LinkKind::NvLink3, 12, LinkKind::Pcie4, true, 80,
     "NVIDIA A100 datasheet, A100 40GB SXM column: 1555 GB/s HBM2, NVLink 600 GB/s (12 links), PCIe Gen4 "
     "64 GB/s"},
    {GpuModel::A100Pcie, "a100_pcie", gbytes(1935), LinkKind::NvLink3, 12, LinkKind::Pcie4, true, 80,
     "NVIDIA A100 datasheet, A100 80GB PCIe column: 1935 GB/s HBM2e, NVLink Bridge for 2 GPUs 600 GB/s "
     "(12 links over 3 bridges), PCIe Gen4 64 GB/s"},
    {GpuModel::A10, "a10", gbytes(600), LinkKind::NvLink3, 0, LinkKind::Pcie4, true, 86,
     "NVIDIA A10 datasheet: 24 GB GDDR6 at 600 GB/s, no NVLink, PCIe Gen4 64 GB/s"},
    {GpuModel::L40S, "l40s", gbytes(864), LinkKind::NvLink4, 0, LinkKind::Pcie4, true, 89,
     "NVIDIA L40S datasheet: 48 GB GDDR6 at 864 GB/s, no NVLink, PCIe Gen4 x16 64 GB/s"},
    {GpuModel::H100Pcie, "h100_pcie", gbytes(2000), LinkKind::NvLink4, 12, LinkKind::Pcie5, true, 90,
     "NVIDIA H100 datasheet, H100 PCIe column: 80 GB HBM2e at 2 TB/s, NVLink bridge 600 GB/s (12 links, "
     "GPU pairs), PCIe Gen5 128 GB/s"},
    {GpuModel::H100Nvl, "h100_nvl", gbytes(3900), LinkKind::NvLink4, 12, LinkKind::Pcie5, true, 90,
     "NVIDIA H100 datasheet, H100 NVL column: 94 GB HBM3 at 3.9 TB/s, NVLink bridge pair 600 GB/s "
     "(12 links), PCIe Gen5 128 GB/s"},
    {GpuModel::H20, "h20", gbytes(4000), LinkKind::NvLink4, 18, LinkKind::Pcie5, true, 90,
     "NVIDIA HGX H20 spec as published by NVIDIA partners (no public nvidia.com datasheet): 96 GB HBM3 "
     "at 4.0 TB/s, NVLink 900 GB/s (18 links), PCIe Gen5 128 GB/s"},
    {GpuModel::GB200, "gb200", gbytes(8000), LinkKind::NvLink5, 18, LinkKind::Pcie5, true, 100,
     "NVIDIA GB200 NVL72 spec page: 576 TB/s HBM3e and 130 TB/s NVLink over 72 GPUs = 8 TB/s and "
     "1.8 TB/s (18 NVLink5 links) per B200; CPU link NVLink-C2C 900 GB/s; PCIe gen5 to the NICs (inferred)"},
    {GpuModel::Rtx4090, "rtx4090", gbytes(1008), LinkKind::NvLink4, 0, LinkKind::Pcie4, false, 89,
     "NVIDIA Ada Lovelace architecture whitepaper v2.1, Appendix A, and GeForce RTX 4090 spec page: 24 GB "
     "GDDR6X at 1008 GB/s, no NVLink, PCIe Gen4; PCIe P2P not supported by the GeForce driver (topo -p2p: NS)"},
    {GpuModel::Rtx6000Ada, "rtx6000_ada", gbytes(960), LinkKind::NvLink4, 0, LinkKind::Pcie4, true, 89,
     "NVIDIA RTX 6000 Ada Generation datasheet: 48 GB GDDR6 at 960 GB/s, no NVLink, PCIe Gen4 x16; "
     "P2P supported by the professional driver"},
    {GpuModel::Rtx2080Ti, "rtx2080ti", gbytes(616), LinkKind::NvLink2, 0, LinkKind::Pcie3, false, 75,
     "NVIDIA Turing architecture whitepaper (2018), Appendix A: GeForce RTX 2080 Ti 11 GB GDDR6 at 616 GB/s, "
     "PCIe Gen3 x16; its NVLink (2 links, bridge optional) is not in the catalogue row. PCIe P2P not "
     "supported by the GeForce driver (nvidia-smi topo -p2p: NS, as the rtx2080ti fidelity system shows)"},
    {GpuModel::A100Pcie40GB, "a100_40gb_pcie", gbytes(1555), LinkKind::NvLink3, 12, LinkKind::Pcie4, true, 80,
     "NVIDIA A100 Tensor Core GPU datasheet (2020), A100 for PCIe column: 40 GB HBM2 at 1555 GB/s, NVLink "
     "Bridge for 2 GPUs 600 GB/s (12 links over 3 bridges), PCIe Gen4 64 GB/s"},
}};

static_assert(
    [] {
      for (std::size_t i = 0; i < kGpuTable.size(); ++i)
        if (kGpuTable[i].model != GpuModel(i)) return false;
      return true;
    }(),
    "kGpuTable rows must be in GpuModel order");

// Product names as nvidia-smi --query-gpu=name and cudaDeviceProp::name print them, matched exactly
// (ignoring case). "NVIDIA H100 80GB HBM3" and "NVIDIA A100-SXM4-40GB" are read from the published
// nccl-tests logs in tests/data/fidelity; the others are the names NVIDIA's drivers report for those
// boards (not checked against a log here; "NVIDIA A100-PCIE-40GB" is the name in the NVIDIA driver
// README's list of supported GPUs, PCI id 20F1). Names of boards outside the catalogue (V100 PCIe, H200
// NVL, ...) are deliberately absent: they would otherwise borrow another board's numbers.
struct ProductName {
  std::string_view name;
  GpuModel model;
};
constexpr std::array<ProductName, 18> kGpuProductNames{{
    {"Tesla V100-SXM2-16GB", GpuModel::V100},
    {"Tesla V100-SXM2-32GB", GpuModel::V100},
    {"NVIDIA A100-SXM4-80GB", GpuModel::A100},
    {"NVIDIA A100-SXM4-40GB", GpuModel::A100_40GB},
    {"NVIDIA A100 80GB PCIe", GpuModel::A100Pcie},
    {"NVIDIA A100-PCIE-40GB", GpuModel::A100Pcie40GB},
    {"NVIDIA A10", GpuModel::A10},
    {"NVIDIA L40S", GpuModel::L40S},
    {"NVIDIA H100 80GB HBM3", GpuModel::H100},
    {"NVIDIA H100 PCIe", GpuModel::H100Pcie},
    {"NVIDIA H100 NVL", GpuModel::H100Nvl},
    {"NVIDIA H200", GpuModel::H200},
    {"NVIDIA H20", GpuModel::H20},
    {"NVIDIA B200", GpuModel::B200},
    {"NVIDIA GB200", GpuModel::GB200},
    {"NVIDIA GeForce RTX 4090", GpuModel::Rtx4090},
    {"NVIDIA RTX 6000 Ada Generation", GpuModel::Rtx6000Ada},
    {"NVIDIA GeForce RTX 2080 Ti", GpuModel::Rtx2080Ti},
}};

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

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
    case Transport::Srd: return "srd";
    case Transport::Tcpx: return "tcpx";
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

std::string_view to_string(CpuVendor v) {
  switch (v) {
    case CpuVendor::Intel: return "intel";
    case CpuVendor::Amd: return "amd";
    case CpuVendor::Other: return "other";
  }
  return "intel";
}

std::optional<CpuVendor> find_cpu_vendor(std::string_view name) {
  for (const CpuVendor v : {CpuVendor::Intel, CpuVendor::Amd, CpuVendor::Other})
    if (name == to_string(v)) return v;
  return std::nullopt;
}

std::optional<CpuVendor> socket_link_vendor(LinkKind kind) {
  if (link_family(kind) != LinkFamily::Smp) return std::nullopt;
  return kind == LinkKind::Xgmi ? CpuVendor::Amd : CpuVendor::Intel;
}

bool cpu_vendor_matches(CpuVendor vendor, LinkKind socket_link) {
  if (vendor == CpuVendor::Other) return socket_link == LinkKind::Smp;
  return socket_link_vendor(socket_link) == vendor;
}

std::optional<Transport> find_transport(std::string_view name) {
  if (name == "rdma" || name == "roce") return Transport::Rdma;
  if (name == "tcp") return Transport::Tcp;
  if (name == "srd" || name == "efa") return Transport::Srd;
  if (name == "tcpx" || name == "tcpxo") return Transport::Tcpx;
  return std::nullopt;
}

std::optional<GpuModel> find_gpu_model(std::string_view name) {
  for (const GpuSpec& row : kGpuTable)
    if (row.name == name) return row.model;
  for (const ProductName& row : kGpuProductNames)
    if (equal_ignoring_case(row.name, name)) return row.model;
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
