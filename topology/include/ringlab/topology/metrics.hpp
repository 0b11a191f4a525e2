// Topology metrics: the numbers `ringlab topo describe` prints about a cluster (device and link
// counts, bisection bandwidth, oversubscription per fabric tier, GPU-to-GPU diameter, NIC bandwidth
// per GPU, equal-cost path spread and ECMP balance), and their stable text layout.
//
// Everything here is deterministic: the same Topology gives the same summary and the same text, so
// the text can be checked in as a golden file.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ringlab/topology/kinds.hpp"
#include "ringlab/topology/routing.hpp"
#include "ringlab/topology/topology.hpp"
#include "ringlab/topology/units.hpp"

namespace ringlab {

/// Links of one kind.
struct LinkKindSummary {
  LinkKind kind;
  std::size_t count = 0;
  Bandwidth min_bandwidth;  ///< slowest link of the kind, per direction
  Bandwidth max_bandwidth;  ///< fastest link of the kind, per direction
  Bandwidth total;          ///< sum over the links, per direction
};

/// How the bisection cut was chosen.
enum class BisectionSplit : std::uint8_t {
  None,   ///< fewer than two GPUs: no bisection
  Hosts,  ///< hosts [0, half) against [half, host_count) in host order
  Gpus,   ///< one host (or none): GPUs [0, half) against [half, gpu_count) in Topology::gpus() order
};

/// Switch-level ratio downlink / uplink bandwidth at one fabric tier.
struct TierOversubscription {
  int tier = 0;              ///< the switches' tier: 1 leaf, 2 spine, 3 core
  int upper_tier = 0;        ///< lowest tier their uplinks lead to (a ToR's core is tier 3)
  std::size_t switches = 0;  ///< switches of the tier with at least one uplink
  double min_ratio = 0.0;    ///< min over those switches of downlink / uplink bandwidth
  double max_ratio = 0.0;
};

struct TopologySummary {
  std::size_t hosts = 0, racks = 0, gpus = 0, devices = 0, links = 0;
  std::array<std::size_t, kDeviceKindCount> devices_per_kind{};  ///< indexed by DeviceKind
  std::vector<LinkKindSummary> links_per_kind;                    ///< kinds present, in LinkKind order
  std::array<std::size_t, kGpuModelCount> gpus_per_model{};       ///< indexed by GpuModel
  /// Hosts per CPU vendor (indexed by CpuVendor): NCCL's transports and tuning depend on it.
  std::array<std::size_t, kCpuVendorCount> hosts_per_cpu_vendor{};

  BisectionSplit bisection_split = BisectionSplit::None;
  std::size_t bisection_half = 0;  ///< hosts (or GPUs) in the first half; the rest form the second
  /// Max flow from the first half's GPUs to the second half's, one direction, with traffic entering
  /// and leaving hosts only as routes may (no transit through other hosts).
  Bandwidth bisection;

  std::vector<TierOversubscription> oversubscription;  ///< tiers with uplinks, ascending

  /// Largest Router::hops between two GPUs; nullopt with fewer than two GPUs or when some GPU pair
  /// is unreachable (then `connected` is false).
  std::optional<int> diameter_hops;
  bool connected = true;

  /// Per GPU: network bandwidth of its nearest NICs, each NIC's share split equally among the GPUs
  /// for which it is nearest. nullopt when no GPU has a NIC in its host.
  std::optional<Bandwidth> nic_bandwidth_per_gpu_min, nic_bandwidth_per_gpu_max;

  /// Equal-cost shortest paths from the first GPU to the first GPU of other hosts (every other host,
  /// or an evenly strided sample of kSpreadSampleHosts of them). Zero pairs with fewer than two hosts.
  std::size_t spread_pairs = 0;
  std::size_t spread_candidates = 0;  ///< other hosts with a GPU (spread_pairs of them were sampled)
  std::uint64_t paths_min = 0, paths_median = 0, paths_max = 0;

  /// ECMP balance over the sampled pairs with 2..kBalanceMaxPaths paths (at most kBalancePairs of
  /// them): kBalanceFlowsPerPath * paths flow keys are routed with the Router's policy, and the ratio
  /// max / mean flows per path is taken; 1.0 is a perfect spread. nullopt when no pair qualifies.
  EcmpPolicy balance_policy = EcmpPolicy::Hash;  ///< the Router's policy
  std::size_t balance_pairs = 0;
  std::optional<double> balance_worst;  ///< largest ratio over the pairs
  std::optional<double> balance_mean;   ///< mean ratio over the pairs
};

inline constexpr std::size_t kSpreadSampleHosts = 256;
inline constexpr std::size_t kBalancePairs = 16;
inline constexpr std::uint64_t kBalanceMaxPaths = 64;
inline constexpr std::uint64_t kBalanceFlowsPerPath = 16;

/// Computes the summary. The router must route over `topology`. Cost: linear in the cluster plus one
/// max flow, one fabric BFS per distinct GPU "attachment signature" (see metrics.cpp) and at most
/// kSpreadSampleHosts path counts; well under a second for 1024 hosts of 8 GPUs.
TopologySummary summarize(const Topology& topology, const Router& router);

/// Writes the summary as fixed-precision text, one line per metric, units on every number, in a
/// stable order. Bandwidths are in Gbps (1e9 bits/s) per direction.
void print_summary(std::ostream& out, const Topology& topology, const TopologySummary& summary);

/// `topo describe -f json`'s schema name and version (docs/report-formats.md).
inline constexpr std::string_view kTopologySummarySchema = "ringlab.topology-summary";
inline constexpr int kTopologySummaryVersion = 1;

/// The summary as JSON, the same figures as print_summary with units in the key names:
///   {"schema": "ringlab.topology-summary", "version": 1, "scenario": <scenario name or file>,
///    "cluster": {hosts, racks, gpus, devices, links}, "devices_per_kind": {<kind>: count (kinds present)},
///    "links_per_kind": [{kind, count, min_bandwidth_bps, max_bandwidth_bps, total_bandwidth_bps}],
///    "bisection": {split: "hosts"|"gpus"|"none", first_half, bandwidth_bps},
///    "oversubscription": [{tier, upper_tier, switches, min_ratio, max_ratio}],
///    "diameter_hops": int|null, "connected": bool,
///    "nic_bandwidth_per_gpu_bps": {min, max}|null,
///    "routing_spread": {pairs, candidates, paths_min, paths_median, paths_max},
///    "ecmp_balance": {policy, flows_per_path, pairs, worst|null, mean|null}}
/// Bandwidths are per direction in bits/s. Deterministic.
nlohmann::ordered_json summary_json(const TopologySummary& summary, const std::string& scenario);

}  // namespace ringlab
