// build_schedule: validates a CollectiveSpec against the ranks and topology, then hands it to the
// algorithm's builder. Also the algorithm name tables and the support matrix.
#include "ringlab/sim/collectives.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include "collectives/collectives_builder.hpp"
#include "collectives/timing_ops.hpp"
#include "ringlab/sim/nccl_tuning.hpp"

namespace ringlab::sim {
namespace {

constexpr std::array<std::string_view, kAlgorithmCount> kAlgorithmNames{"ring",
                                                                        "tree",
                                                                        "hierarchical",
                                                                        "ring2d",
                                                                        "halving_doubling",
                                                                        "direct",
                                                                        "reduce_broadcast",
                                                                        "parameter_server",
                                                                        "in_network",
                                                                        "nccl"};

struct Alias {
  std::string_view name;
  Algorithm algorithm;
};
constexpr std::array<Alias, 9> kAlgorithmAliases{{
    {"rabenseifner", Algorithm::HalvingDoubling},
    {"hd", Algorithm::HalvingDoubling},
    {"ps", Algorithm::ParameterServer},
    {"sharp", Algorithm::InNetwork},
    {"nvls", Algorithm::InNetwork},
    {"2d_ring", Algorithm::Ring2D},
    {"leader", Algorithm::Hierarchical},
    {"reduction_to_one_device", Algorithm::ReduceBroadcast},
    {"double_binary_tree", Algorithm::Tree},
}};

constexpr int kCollectiveCount = 5;
using SupportRow = std::array<bool, kCollectiveCount>;  // AllReduce, ReduceScatter, AllGather, Broadcast, Reduce
constexpr std::array<SupportRow, kAlgorithmCount> kSupport{{
    {true, true, true, true, true},      // ring
    {true, false, false, true, true},    // tree
    {true, true, true, true, true},      // hierarchical (leader mode: not ReduceScatter, AllGather)
    {true, true, true, true, true},      // ring2d
    {true, true, true, false, false},    // halving_doubling
    {true, true, true, true, true},      // direct
    {true, false, false, true, true},    // reduce_broadcast
    {true, false, false, false, false},  // parameter_server
    {true, true, true, true, true},      // in_network
    {true, true, true, true, true},      // nccl
}};

[[noreturn]] void reject(Algorithm a, const std::string& why) {
  throw std::invalid_argument(std::string(to_string(a)) + ": " + why);
}

std::string supported_list(Algorithm a) {
  std::string out;
  for (int c = 0; c < kCollectiveCount; ++c) {
    if (!supports(a, Collective(c))) continue;
    if (!out.empty()) out += ", ";
    out += to_string(Collective(c));
  }
  return out;
}

bool power_of_two(std::size_t n) { return n != 0 && (n & (n - 1)) == 0; }

}  // namespace

void detail::validate_spec(const Topology& topology, std::span<const DeviceId> ranks, const CollectiveSpec& spec) {
  const Algorithm a = spec.algorithm;
  if (ranks.empty()) reject(a, "no ranks");
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    if (ranks[r] >= topology.device_count())
      reject(a, "rank " + std::to_string(r) + " names device " + std::to_string(ranks[r]) + ", not in the topology");
    if (std::find(ranks.begin(), ranks.begin() + std::ptrdiff_t(r), ranks[r]) != ranks.begin() + std::ptrdiff_t(r))
      reject(a, "rank " + std::to_string(r) + " repeats device '" + topology.device(ranks[r]).name + "'");
  }
  if (!supports(a, spec.collective))
    reject(a,
           "does not implement " + std::string(to_string(spec.collective)) + " (supported: " + supported_list(a) + ")");
  const std::int64_t elem = spec.payload.element_bytes();
  if (spec.message.count() < 0 || spec.message.count() % elem != 0)
    reject(a, "message of " + std::to_string(spec.message.count()) + " bytes is not a whole number of " +
                  std::string(to_string(spec.payload.dtype)) + " elements");
  if (spec.channels < 1) reject(a, "channels must be at least 1");
  if (spec.chunk.count() < 0) reject(a, "chunk must not be negative");
  if (spec.root < 0 || std::size_t(spec.root) >= ranks.size())
    reject(a, "root " + std::to_string(spec.root) + " is not a rank (0.." + std::to_string(ranks.size() - 1) + ")");
  for (std::size_t c = 0; c < spec.channel_rings.size(); ++c) {
    std::vector<int> sorted = spec.channel_rings[c];
    std::sort(sorted.begin(), sorted.end());
    bool permutation = sorted.size() == ranks.size();
    for (std::size_t k = 0; permutation && k < sorted.size(); ++k) permutation = sorted[k] == int(k);
    if (!permutation)
      reject(a, "channel_rings[" + std::to_string(c) + "] is not a permutation of the rank indices 0.." +
                    std::to_string(ranks.size() - 1));
  }
  if (a == Algorithm::HalvingDoubling && !power_of_two(ranks.size()))
    reject(a, "needs a power-of-two rank count (got " + std::to_string(ranks.size()) +
                  "); non-power-of-two counts are rejected rather than padded, use ring or tree");
  const bool owner_blocks = spec.collective == Collective::ReduceScatter || spec.collective == Collective::AllGather;
  if (a == Algorithm::Hierarchical && owner_blocks && spec.hierarchy == Hierarchy::Leader)
    reject(a, "leader mode has no " + std::string(to_string(spec.collective)) +
                  " (a leader would funnel every rank's block through one rank); use hierarchy rail, ring2d or ring");
  if (a == Algorithm::Hierarchical && owner_blocks && spec.inter != InterAlgorithm::Ring)
    reject(a, "rail mode's " + std::string(to_string(spec.collective)) + " has no " +
                  std::string(to_string(spec.inter)) + " form between nodes; use inter ring (or ring2d)");
  const Compression& c = spec.payload.compression;
  if (c.kind == CompressionKind::Quantize && c.wire_type != DataType::Fp8 && c.wire_type != DataType::Int8)
    reject(a, "quantisation targets fp8 or int8");
  if (c.kind == CompressionKind::Quantize &&
      (a == Algorithm::InNetwork || (a == Algorithm::Hierarchical && spec.inter == InterAlgorithm::InNetwork)))
    reject(a, "compression is not supported: the switch reduces the gradient's own type");
  if (c.kind == CompressionKind::TopK) {
    if (!(c.ratio > 0.0 && c.ratio <= 1.0)) reject(a, "top-k ratio must be in (0, 1]");
    if (spec.collective != Collective::AllReduce) reject(a, "top-k compression applies to allreduce only");
    if (a != Algorithm::Ring && a != Algorithm::Direct && a != Algorithm::HalvingDoubling)
      reject(a, "top-k compression is an allgather of sparse parts: use ring, direct or halving_doubling");
  }
}

namespace {

std::string schedule_name(const CollectiveSpec& spec) {
  std::string name(to_string(spec.algorithm));
  if (spec.algorithm == Algorithm::Hierarchical)
    name += "(" + std::string(to_string(spec.hierarchy)) + "," + std::string(to_string(spec.inter)) + ")";
  return name;
}

/// Builds `spec` over `ranks` (at least two, endpoints 0..n-1) into b's sink.
void build_into(detail::Builder& b, const Topology& topology, std::span<const DeviceId> ranks,
                const CollectiveSpec& spec) {
  detail::Group group(ranks.size());
  for (std::size_t r = 0; r < ranks.size(); ++r) group[r] = Endpoint(r);
  b.set_chunk_split(spec.whole_chunks ? detail::ChunkSplit::Whole : detail::ChunkSplit::Even);
  if (spec.payload.sparse()) {
    detail::build_sparse_allreduce(b, group, spec, spec.algorithm);
    return;
  }
  switch (spec.algorithm) {
    case Algorithm::Ring: detail::build_ring(b, group, spec); return;
    case Algorithm::Tree: {
      std::vector<HostId> hosts;
      for (DeviceId d : ranks) hosts.push_back(topology.device(d).host);
      detail::build_tree(b, topology, group, spec, hosts);
      return;
    }
    case Algorithm::Hierarchical:
      detail::build_hierarchical(b, topology, group, spec, spec.hierarchy, spec.inter);
      return;
    case Algorithm::Ring2D:
      detail::build_hierarchical(b, topology, group, spec, Hierarchy::Rail, InterAlgorithm::Ring);
      return;
    case Algorithm::HalvingDoubling: detail::build_halving_doubling(b, group, spec); return;
    case Algorithm::Direct: detail::build_direct(b, group, spec); return;
    case Algorithm::ReduceBroadcast: detail::build_reduce_broadcast(b, group, spec); return;
    case Algorithm::ParameterServer: detail::build_parameter_server(b, topology, group, spec); return;
    case Algorithm::InNetwork: detail::build_in_network(b, topology, group, spec); return;
    case Algorithm::Nccl: break;
  }
  throw std::logic_error("nccl is resolved before building");
}

Schedule build(const Topology& topology, std::span<const DeviceId> ranks, const CollectiveSpec& spec,
               detail::ChannelFilter* filter = nullptr) {
  Schedule schedule(spec.collective, schedule_name(spec), spec.message, ranks);
  schedule.set_payload(spec.payload);
  if (spec.collective == Collective::Broadcast || spec.collective == Collective::Reduce) schedule.set_root(spec.root);
  if (ranks.size() < 2) return schedule;
  detail::ScheduleSink sink(schedule);
  detail::Builder b(sink, spec.payload, filter);
  build_into(b, topology, ranks, spec);
  return schedule;
}

}  // namespace

Schedule detail::build_channels(const Topology& topology, std::span<const DeviceId> ranks, const CollectiveSpec& spec,
                                ChannelFilter& filter) {
  return build(topology, ranks, spec, &filter);
}

detail::TimingOps detail::build_channels_timing(const Topology& topology, std::span<const DeviceId> ranks,
                                                const CollectiveSpec& spec, ChannelFilter& filter) {
  TimingOps ops(spec.collective, schedule_name(spec), spec.message, ranks);
  if (ranks.size() < 2) return ops;
  Builder b(ops, spec.payload, &filter);
  build_into(b, topology, ranks, spec);
  return ops;
}

Schedule build_schedule(const Topology& topology, std::span<const DeviceId> ranks, const CollectiveSpec& spec) {
  detail::validate_spec(topology, ranks, spec);
  if (spec.algorithm != Algorithm::Nccl) return build(topology, ranks, spec);
  const std::optional<Topology> view = nccl_view(topology, ranks, spec.nccl_env);
  const Topology& nccl_topology = view ? *view : topology;
  const NcclResolved nccl = nccl_resolve(nccl_topology, ranks, spec);
  detail::validate_spec(nccl_topology, ranks, nccl.spec);
  Schedule schedule = build(nccl_topology, ranks, nccl.spec);
  schedule.set_algorithm("nccl:" + nccl.choice.name);
  schedule.set_protocol(nccl.choice.protocol);
  schedule.set_nccl_latency(nccl.choice.latency);
  return schedule;
}

bool supports(Algorithm algorithm, Collective collective) {
  return kSupport[std::size_t(algorithm)][std::size_t(collective)];
}

std::string_view to_string(Algorithm algorithm) { return kAlgorithmNames[std::size_t(algorithm)]; }
std::string_view to_string(Hierarchy hierarchy) { return hierarchy == Hierarchy::Leader ? "leader" : "rail"; }
std::string_view to_string(InterAlgorithm inter) {
  switch (inter) {
    case InterAlgorithm::Ring: return "ring";
    case InterAlgorithm::Tree: return "tree";
    case InterAlgorithm::InNetwork: return "in_network";
  }
  return "ring";
}

std::optional<Algorithm> find_algorithm(std::string_view name) {
  for (std::size_t i = 0; i < kAlgorithmNames.size(); ++i)
    if (kAlgorithmNames[i] == name) return Algorithm(i);
  for (const Alias& alias : kAlgorithmAliases)
    if (alias.name == name) return alias.algorithm;
  return std::nullopt;
}

std::optional<Hierarchy> find_hierarchy(std::string_view name) {
  if (name == "leader") return Hierarchy::Leader;
  if (name == "rail" || name == "per_rail") return Hierarchy::Rail;
  return std::nullopt;
}

std::optional<InterAlgorithm> find_inter_algorithm(std::string_view name) {
  if (name == "ring") return InterAlgorithm::Ring;
  if (name == "tree") return InterAlgorithm::Tree;
  if (name == "in_network") return InterAlgorithm::InNetwork;
  return std::nullopt;
}

std::string algorithm_names() {
  std::string out;
  for (std::string_view n : kAlgorithmNames) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

}  // namespace ringlab::sim
