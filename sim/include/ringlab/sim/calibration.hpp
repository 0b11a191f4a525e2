// Calibration: efficiency factors that turn the pure alpha-beta model into a calibrated one.
//
// The pure model (Calibration::pure(), the default) uses nominal link numbers from topology's
// defaults table with every factor 1. Calibration::nccl() applies NCCL's protocol efficiencies per
// link family and protocol. GPU-local work (reduction, compression codecs) runs at rates derived
// from the GPU model's HBM bandwidth; the traffic multipliers are here, with their reasoning.
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "ringlab/topology/kinds.hpp"
#include "ringlab/topology/units.hpp"

namespace ringlab::sim {

/// NCCL's wire protocols (src/device/prims_{simple,ll,ll128}.h).
enum class Protocol : std::uint8_t { Simple, LL128, LL };
inline constexpr int kProtocolCount = 3;
std::string_view to_string(Protocol p);
std::optional<Protocol> find_protocol(std::string_view name);

struct LinkFactors {
  double bandwidth = 1.0;  ///< multiplies link bandwidth (goodput / line rate)
  double latency = 1.0;    ///< multiplies hop latency and per-message overhead
};

/// NCCL's bandwidth of one NVLink link of `kind`, GB/s per direction (src/graph/topo.h
/// SMxx_NVLINK_BW: the rate of the GPU generation that link kind comes with); 0 for other kinds.
double nccl_nvlink_link_gbytes(LinkKind kind);
/// The fraction of a link kind's nominal rate that NCCL's topology gives it: NVLink at
/// SMxx_NVLINK_BW per link, PCIe at NCCL's per-lane figure (src/graph/topo.cc kvDictPciGen), CPU
/// socket links at NCCL's inter-CPU figure (topo.cc ncclTopoGetInterCpuBw) over the kind's default
/// link count; 1 for other kinds. Calibration::nccl() moves data at it, and NCCL's model sees links
/// at it.
double nccl_link_goodput(LinkKind kind);

/// Factors on NCCL's own latency table (src/graph/tuning.cc baseLat and hwLat), which `--algo nccl`
/// puts in simulated time: `base` multiplies baseLat (and PAT's fixed and per-rank terms), `intra` the
/// NVLink and PCIe hop rows (and CollNet Direct's arity term), `net` the network hop rows and NCCL's
/// network post overhead (EFA's hop included). All 1: NCCL's own model. `ringlab calibrate` fits them
/// from a cluster's own measurements (docs/calibration.md); ringlab's fidelity scores use none.
struct NcclLatencyFactors {
  double base = 1.0;
  double intra = 1.0;
  double net = 1.0;
  bool operator==(const NcclLatencyFactors&) const = default;
};

class Calibration {
 public:
  /// All factors 1: the closed-form alpha-beta model.
  static Calibration pure();
  /// NCCL protocol efficiencies: LL carries 4 data bytes per 8-byte line (50%), LL128 120 of 128
  /// bytes (93.75%), Simple 100% (NCCL src/device/prims_ll.h, prims_ll128.h); NVLink, PCIe and CPU
  /// socket links carry data at NCCL's own figures (nccl_link_goodput), not the nominal rate.
  static Calibration nccl();

  LinkFactors factors(LinkFamily family, Protocol protocol) const {
    return table_[std::size_t(family)][std::size_t(protocol)];
  }
  /// The family's factors for a link of `kind`, its bandwidth factor times the kind's goodput.
  LinkFactors factors(LinkKind kind, Protocol protocol) const {
    LinkFactors f = factors(link_family(kind), protocol);
    f.bandwidth *= kind_goodput_[std::size_t(kind)];
    return f;
  }
  /// Fraction of a link kind's nominal rate that data moves at, before protocol efficiency (1 in
  /// the pure model; NVLink in nccl(): NCCL's per-link bandwidth over the nominal rate).
  double kind_goodput(LinkKind kind) const { return kind_goodput_[std::size_t(kind)]; }
  void set_factors(LinkFamily family, Protocol protocol, LinkFactors f) {
    table_[std::size_t(family)][std::size_t(protocol)] = f;
  }

  /// HBM bytes moved per reduced byte: read two operands, write one result.
  double reduce_traffic = 3.0;
  /// HBM bytes moved per byte encoded or decoded (read input, write output).
  double codec_traffic = 2.0;
  /// Memory bytes moved per byte copied locally (read source, write destination).
  double copy_traffic = 2.0;
  /// Sustained memory bandwidth of a host CPU that reduces (parameter server), see
  /// kCpuMemoryBandwidthBytesPerSecond in calibration.cpp for the source.
  Bandwidth cpu_memory_bandwidth = default_cpu_memory_bandwidth();
  /// Set false to make local ops free (pure network timing).
  bool model_compute = true;
  /// Factors on NCCL's latency table under --algo nccl (all 1 unless a calibration file sets them).
  NcclLatencyFactors nccl_latency;
  /// Measured reduction rates (reduced bytes per second) per GPU model, from a GPU calibration
  /// (ringlab-validate --gpu-calibration); they replace HBM bandwidth / reduce_traffic.
  std::array<std::optional<Bandwidth>, kGpuModelCount> measured_reduce_rate{};

  /// Rate at which a GPU of this model reduces, i.e. HBM bandwidth / reduce_traffic.
  Bandwidth reduce_rate(GpuModel model) const;
  /// Rate at which a GPU of this model encodes or decodes compressed payloads.
  Bandwidth codec_rate(GpuModel model) const;
  /// Rate of a local copy on a GPU of this model: HBM bandwidth / copy_traffic.
  Bandwidth copy_rate(GpuModel model) const;
  /// Rate at which a host CPU reduces: cpu_memory_bandwidth / reduce_traffic.
  Bandwidth cpu_reduce_rate() const { return cpu_memory_bandwidth / reduce_traffic; }
  static Bandwidth default_cpu_memory_bandwidth();

 private:
  static constexpr int kFamilies = 6;
  std::array<std::array<LinkFactors, kProtocolCount>, kFamilies> table_{};
  std::array<double, kLinkKindCount> kind_goodput_ = [] {
    std::array<double, kLinkKindCount> a{};
    a.fill(1.0);
    return a;
  }();
};

}  // namespace ringlab::sim
