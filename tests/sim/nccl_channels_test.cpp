// NCCL's channels across nodes: one ring per channel, spread over every NIC of a node and kept on one
// rail between nodes (nccl_channel_rings), and what that does to a simulated multi-node allreduce
// under --algo nccl: busbw reaches the node's whole network bandwidth, not one NIC's.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "ringlab/sim/nccl_tuning.hpp"
#include "ringlab/sim/run_collective.hpp"
#include "ringlab/sim/simulator.hpp"
#include "ringlab/topology/generators.hpp"
#include "ringlab/topology/routing.hpp"

using namespace ringlab;
using namespace ringlab::sim;
using namespace ringlab::literals;

namespace {

/// `nodes` nodes of template `base` on `fabric` (a rail-optimised one with 2 spines).
Topology template_cluster(NodeTemplate base, int nodes, FabricKind fabric) {
  ClusterSpec spec;
  spec.nodes = nodes;
  spec.node = node_template(base);
  spec.fabric.kind = fabric;
  if (fabric == FabricKind::RailOptimized) spec.fabric.spines = 2;
  return make_cluster(spec);
}

Topology dgx_h100_cluster(int nodes, FabricKind fabric) { return template_cluster(NodeTemplate::DgxH100, nodes, fabric); }

/// Two HGX A100 nodes as OCI BM.GPU4.8: 4 PCIe switches, each with 2 GPUs and 4 NICs of 100 Gb/s.
Topology a100_16_nics_cluster() {
  ClusterSpec spec;
  spec.nodes = 2;
  spec.node = node_template(NodeTemplate::DgxA100);
  spec.node.nics = 16;
  spec.node.nic = LinkKind::Eth100;
  spec.fabric.kind = FabricKind::SingleSwitch;
  return make_cluster(spec);
}

/// `message` allreduce under --algo nccl over every GPU of `t`, with the nccl calibration.
/// `nodes` hosts of one GPU and `nics` NICs on one PCIe switch, on one switch.
Topology one_gpu_hosts(int nodes, NodeTemplate base, int nics) {
  ClusterSpec spec;
  spec.nodes = nodes;
  spec.node = node_template(base);
  spec.node.gpus = 1;
  spec.node.nics = nics;
  spec.node.pcie_switches = 1;
  spec.fabric.kind = FabricKind::SingleSwitch;
  return make_cluster(spec);
}

CollectiveRequest nccl_request(const Topology& t, Bytes message) {
  CollectiveRequest request;
  request.algorithm = Algorithm::Nccl;
  request.message = message;
  request.order.ranks = t.gpus();
  request.options.calibration = Calibration::nccl();
  return request;
}

/// A bulk allreduce's busbw under --algo nccl, GB/s: 2(p-1)/p M over the time beyond NCCL's modelled
/// latency. Requires that NCCL's model runs it as a ring with the Simple protocol.
double ring_busbw_gbytes(const Topology& t, const CollectiveRequest& request) {
  const CollectiveOutcome out = run_collective(t, request);
  REQUIRE(out.applicable());
  REQUIRE(out.algorithm == Algorithm::Ring);
  REQUIRE(out.protocol == Protocol::Simple);
  const double p = double(request.order.ranks.size());
  const Duration bandwidth_part =
      out.result->time -
      nccl_choose(t, request.order.ranks, Collective::AllReduce, request.message, {}, request.nccl_env).latency;
  return 2 * (p - 1) / p * double(request.message.count()) / bandwidth_part.seconds() / 1e9;
}

/// The NIC a route leaves or enters a host by (the first / last NIC on it).
DeviceId nic_on(const Topology& t, const Route& r, bool last) {
  std::vector<DeviceId> nics;
  for (DirectionId c : r.directions)
    if (t.device(t.direction_target(c)).kind == DeviceKind::Nic) nics.push_back(t.direction_target(c));
  REQUIRE(nics.size() == 2);
  return last ? nics.back() : nics.front();
}

/// Four DGX H100 on a rail-optimised fabric (2 spines) whose switches reduce (SHARP).
Topology sharp_dgx_h100_cluster() {
  ClusterSpec spec;
  spec.nodes = 4;
  spec.node = node_template(NodeTemplate::DgxH100);
  spec.fabric.kind = FabricKind::RailOptimized;
  spec.fabric.spines = 2;
  spec.fabric.in_network_reduction = true;
  return make_cluster(spec);
}

/// 1 GiB allreduce under NCCL_COLLNET_ENABLE=1 and NCCL_ALGO=`algorithm`.
CollectiveRequest collnet_request(const Topology& t, const char* algorithm) {
  CollectiveRequest request = nccl_request(t, 1_GiB);
  set_nccl_env(request.nccl_env, "NCCL_COLLNET_ENABLE", "1");
  set_nccl_env(request.nccl_env, "NCCL_ALGO", algorithm);
  return request;
}

/// Bytes each NIC sent into the fabric, one entry per NIC.
std::vector<std::int64_t> nic_uplink_bytes(const Topology& t, const Result& r) {
  std::vector<std::int64_t> out;
  for (const DirectionStats& d : r.directions)
    if (t.device(t.direction_source(d.direction)).kind == DeviceKind::Nic &&
        t.device(t.direction_target(d.direction)).host == kNoHost)
      out.push_back(d.bytes.count());
  return out;
}

}  // namespace

TEST_CASE("nccl channel rings: every NIC sends and receives the same number of channels, on one rail",
          "[nccl][channels]") {
  const int nodes = GENERATE(2, 3, 4);
  const Topology t = dgx_h100_cluster(nodes, FabricKind::RailOptimized);
  const std::vector<DeviceId> ranks = t.gpus();
  const NcclModel m = nccl_model(t, ranks);
  REQUIRE(m.nics == 8);
  REQUIRE(m.channels % 8 == 0);
  const auto rings = nccl_channel_rings(t, ranks, m.channels);
  REQUIRE(int(rings.size()) == m.channels);
  const Router router(t, EcmpPolicy::First);
  std::map<DeviceId, int> sends, receives;
  int cross_rail = 0;
  for (const std::vector<int>& ring : rings) {
    std::vector<int> sorted = ring;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t k = 0; k < sorted.size(); ++k) REQUIRE(sorted[k] == int(k));  // a permutation
    for (std::size_t k = 0; k < ring.size(); ++k) {
      const DeviceId a = ranks[std::size_t(ring[k])];
      const DeviceId b = ranks[std::size_t(ring[(k + 1) % ring.size()])];
      if (t.device(a).host == t.device(b).host) continue;
      const Route r = router.route(a, b);
      const DeviceId out = nic_on(t, r, false);
      const DeviceId in = nic_on(t, r, true);
      ++sends[out];
      ++receives[in];
      if (t.device(out).local_index != t.device(in).local_index) ++cross_rail;
    }
  }
  // Every NIC of every node: channels / 8 sends and as many receives.
  REQUIRE(int(sends.size()) == 8 * nodes);
  REQUIRE(int(receives.size()) == 8 * nodes);
  for (const auto& [nic, n] : sends) CHECK(n == m.channels / 8);
  for (const auto& [nic, n] : receives) CHECK(n == m.channels / 8);
  // Between consecutive hosts a ring stays on its rail; only the wrap-around may cross (when the
  // rail has not come back to where it started after `nodes` hosts: 8 rails, so unless nodes % 8 == 0).
  CHECK(cross_rail <= m.channels);
  CHECK(cross_rail == (nodes % 8 == 0 ? 0 : m.channels));
}

TEST_CASE("nccl channel rings: one host gives no rings (NCCL's intra-node rings are all alike on NVSwitch)",
          "[nccl][channels]") {
  const Topology t = dgx_h100_cluster(1, FabricKind::SingleSwitch);
  CHECK(nccl_channel_rings(t, t.gpus(), 16).empty());
}

TEST_CASE("nccl on one HGX A100 4-GPU board (NVLink between every pair, no NVSwitch): NCCL's rings load every "
          "pair alike, busbw 240 GB/s, not one pair's 80",
          "[nccl][channels][search]") {
  // 4 A100 joined pairwise by 4 NVLink3 links: 80 GB/s per pair and direction at NCCL's 20 GB/s a
  // link. NCCL's search gives 12 rings (the six directed rings of 4 GPUs, twice; nccl_search_test),
  // 24 channels once doubled at connection. Every directed pair is on 4 of the 12 rings, so a ring
  // allreduce moves M/2 over each pair's 80 GB/s: busbw = 2(p-1)/p M / t = 3 x 80 = 240 GB/s. The
  // ranks' own order on every channel (what one node used to get) would load 4 of the 12 pairs
  // only: 80 GB/s.
  ClusterSpec spec;
  spec.nodes = 1;
  spec.node.gpus = 4;
  spec.node.gpu_model = GpuModel::A100;
  spec.node.gpu_interconnect = GpuInterconnect::AllToAll;
  spec.node.nvlink = LinkKind::NvLink3;
  spec.node.nvlinks = 12;
  spec.node.nics = 0;
  spec.fabric.kind = FabricKind::None;
  const Topology t = make_cluster(spec);
  const auto rings = nccl_channel_rings(t, t.gpus(), 24);
  REQUIRE(rings.size() == 12);
  std::map<std::pair<int, int>, int> use;
  for (const auto& ring : rings)
    for (std::size_t k = 0; k < ring.size(); ++k) ++use[{ring[k], ring[(k + 1) % ring.size()]}];
  CHECK(use.size() == 12);
  for (const auto& [arc, n] : use) CHECK(n == 4);
  CHECK(nccl_model(t, t.gpus()).channels == 24);

  const double busbw = ring_busbw_gbytes(t, nccl_request(t, 4_GiB));
  CHECK(busbw == Approx(240.0).epsilon(0.02));
  CHECK(busbw <= 240.0 * (1 + 1e-9));
}

TEST_CASE("nccl on two DGX H100: bulk allreduce busbw is the node's 8 rails (384 GB/s at NCCL's PCIe figure), not one NIC's",
          "[nccl][channels]") {
  // Ring allreduce over p = 16 ranks, C channels, each NIC carrying C/8 channels per direction: every
  // step moves M/(pC) per flow through the GPU's PCIe Gen5 x16 link to its NIC at NCCL's 48 GB/s
  // (topo.cc: 16 lanes x 3 GB/s; the 400 Gb/s NIC carries 50), so busbw = 2(p-1)/p M / t tends to
  // 8 x 48 GB/s = 384 GB/s. NVLink (18 x 20.6 GB/s per GPU) is not the bottleneck. One NIC per node
  // would give at most 48 GB/s.
  const Topology t = dgx_h100_cluster(2, FabricKind::SingleSwitch);
  CollectiveRequest request = nccl_request(t, 4_GiB);
  request.nccl_env.algorithms[std::size_t(NcclAlgorithm::NvlsTree)] = NcclEnable::Off;  // the ring alone
  const double busbw = ring_busbw_gbytes(t, request);
  CHECK(busbw == Approx(384.0).epsilon(0.03));
  CHECK(busbw <= 384.0 * (1 + 1e-9));  // never above what the GPUs' PCIe links carry
}

TEST_CASE("nccl: NCCL's modelled latency is the whole latency of a small message", "[nccl][channels]") {
  // 8 bytes: the bandwidth term is picoseconds, link latencies are off under --algo nccl, so the
  // simulated time is NCCL's latency for the chosen (algorithm, protocol) plus a few ps of transfer.
  const Topology t = dgx_h100_cluster(2, FabricKind::SingleSwitch);
  CollectiveRequest request;
  request.algorithm = Algorithm::Nccl;
  request.message = 8_B;
  request.order.ranks = t.gpus();
  request.options.calibration = Calibration::nccl();
  const CollectiveOutcome out = run_collective(t, request);
  REQUIRE(out.applicable());
  const NcclChoice choice = nccl_choose(t, t.gpus(), Collective::AllReduce, 8_B);
  CHECK(out.result->time >= choice.latency);
  CHECK((out.result->time - choice.latency).microseconds() < 0.1);
}

TEST_CASE("nccl tree chains: channel c enters every host at the GPU nearest NIC c mod 8", "[nccl][channels][tree]") {
  const Topology t = dgx_h100_cluster(3, FabricKind::RailOptimized);
  const std::vector<DeviceId> ranks = t.gpus();
  const auto chains = nccl_tree_chains(t, ranks, 16);
  REQUIRE(chains.size() == 16);
  const Router router(t, EcmpPolicy::First);
  for (std::size_t c = 0; c < chains.size(); ++c) {
    const std::vector<int>& order = chains[c];
    for (std::size_t h = 0; h < 3; ++h) {
      const DeviceId head = ranks[std::size_t(order[h * 8])];
      const DeviceId other = ranks[std::size_t(order[((h + 1) % 3) * 8])];
      // The head's route out of its host leaves by NIC c mod 8 (the DGX's GPU i sits next to NIC i).
      CHECK(t.device(nic_on(t, router.route(head, other), false)).local_index == int(c % 8));
      for (std::size_t k = 1; k < 8; ++k)  // the host's eight GPUs follow, contiguously
        CHECK(t.device(ranks[std::size_t(order[h * 8 + k])]).host == t.device(head).host);
    }
  }
}

TEST_CASE("nccl tree with host chains: only heads cross hosts, chains run inside, every NIC is used",
          "[nccl][channels][tree]") {
  const Topology t = dgx_h100_cluster(4, FabricKind::RailOptimized);
  const std::vector<DeviceId> ranks = t.gpus();
  CollectiveSpec spec;
  spec.algorithm = Algorithm::Tree;
  spec.message = 64_MiB;
  spec.channels = 16;
  spec.channel_rings = nccl_tree_chains(t, ranks, spec.channels);
  spec.host_chains = true;
  const Schedule s = build_schedule(t, ranks, spec);
  const Router router(t, EcmpPolicy::First);
  std::map<DeviceId, std::int64_t> nic_bytes;  // bytes sent out of each NIC
  std::int64_t intra_bytes = 0;
  for (const Op& op : s.ops()) {
    if (op.kind != OpKind::Send) continue;
    const std::vector<int>& order = spec.channel_rings[op.channel / 2];  // op.channel = 2*channel + tree
    const auto pos = [&](int r) { return std::size_t(std::find(order.begin(), order.end(), r) - order.begin()); };
    const DeviceId a = ranks[op.at];
    const DeviceId b = ranks[op.peer];
    const std::int64_t bytes = op.count * s.element_bytes(Buffer::Data);
    if (t.device(a).host == t.device(b).host) {
      // Inside a host: neighbours in the channel's chain.
      const std::size_t pa = pos(int(op.at)), pb = pos(int(op.peer));
      CHECK((pa + 1 == pb || pb + 1 == pa));
      CHECK(pa / 8 == pb / 8);
      intra_bytes += bytes;
      continue;
    }
    // Across hosts: head to head.
    CHECK(pos(int(op.at)) % 8 == 0);
    CHECK(pos(int(op.peer)) % 8 == 0);
    nic_bytes[nic_on(t, router.route(a, b), false)] += bytes;
  }
  // Every NIC of every host sends, and equally: 16 channels over 8 rails, 2 per NIC, and each tree
  // carries each half once up and once down per edge between hosts.
  REQUIRE(nic_bytes.size() == 32);
  const auto [lo, hi] = std::minmax_element(nic_bytes.begin(), nic_bytes.end(),
                                            [](const auto& x, const auto& y) { return x.second < y.second; });
  // The two trees make some hosts leaves, so per-host totals differ; per rail they are equal across
  // a host's NICs.
  for (int h = 0; h < 4; ++h) {
    std::vector<std::int64_t> per_nic;
    for (const auto& [nic, b] : nic_bytes)
      if (t.device(nic).host == t.device(ranks[std::size_t(h * 8)]).host) per_nic.push_back(b);
    REQUIRE(per_nic.size() == 8);
    CHECK(*std::min_element(per_nic.begin(), per_nic.end()) == *std::max_element(per_nic.begin(), per_nic.end()));
  }
  CHECK(lo->second > 0);
  CHECK(hi->second <= 2 * lo->second);
  CHECK(intra_bytes > 0);
}

TEST_CASE("nccl tree on two DGX H100: bulk allreduce is bound by the chain's NVLink, not one NIC",
          "[nccl][channels][tree]") {
  // 16 channels, the double binary tree over 2 hosts, an 8-GPU chain per host per channel. A chain's
  // middle GPU sends each channel's piece (M/16) twice (up and down); its head and tail once. Heads
  // rotate over the 8 rails, so every GPU is head in 2 channels and tail in 2: egress per GPU =
  // (12 x 2 + 4 x 1) M/16 = 1.75 M over its NVLink, 18 links at NCCL's 20.6 GB/s each = 370.8 GB/s
  // under the nccl calibration. The NICs carry M/8 each way per NIC (50 GB/s: 400 GB/s per host), a
  // lighter load. So busbw = 2(p-1)/p M / t = (1.875 / 1.75) x 370.8 = 397 GB/s; a tree through one
  // NIC per host would be capped near 2(p-1)/p x 50 = 94 GB/s.
  const Topology t = dgx_h100_cluster(2, FabricKind::SingleSwitch);
  const std::vector<DeviceId> ranks = t.gpus();
  CollectiveSpec spec;
  spec.algorithm = Algorithm::Tree;
  spec.message = 4_GiB;
  spec.channels = 16;
  spec.chunk = 4_MiB;
  spec.channel_rings = nccl_tree_chains(t, ranks, spec.channels);
  spec.host_chains = true;
  const Schedule s = build_schedule(t, ranks, spec);
  SimOptions options;
  options.calibration = Calibration::nccl();
  options.link_latencies = false;
  const Result r = Simulator(t, options).run(s);
  const double busbw = 2 * 15.0 / 16 * double(spec.message.count()) / r.time.seconds();
  const double nvlink = 18 * 20.6;
  CHECK(busbw / 1e9 == Approx(1.875 / 1.75 * nvlink).epsilon(0.05));
  CHECK(busbw / 1e9 <= 1.875 / 1.75 * nvlink * (1 + 1e-9));
}

TEST_CASE("nccl on two HGX A100 with 16 NICs: every NIC carries the same bytes, busbw is the 8 GPUs' PCIe links (192 GB/s)",
          "[nccl][channels]") {
  // An OCI BM.GPU4.8-like node: 4 PCIe switches, each with 2 GPUs and 4 NICs of 100 Gb/s (12.5 GB/s).
  // Each GPU is equally near four NICs, so NCCL's 16 channels enter each host on every rail, the two
  // GPUs of a switch taking two rails each (neither PCIe x16 link carries four). Each GPU's two rails
  // (25 GB/s) then meet its PCIe Gen4 x16 link at NCCL's 24 GB/s (topo.cc: 16 lanes x 1.5 GB/s), so ring
  // busbw tends to 8 x 24 = 192 GB/s: NVLink (12 x 20 GB/s) is not the bottleneck.
  const Topology t = a100_16_nics_cluster();
  CollectiveRequest request = nccl_request(t, 4_GiB);
  request.nccl_env.algorithms[std::size_t(NcclAlgorithm::Tree)] = NcclEnable::Off;  // the ring alone
  const CollectiveOutcome out = run_collective(t, request);
  REQUIRE(out.applicable());
  REQUIRE(out.algorithm == Algorithm::Ring);
  const Duration bandwidth_part = out.result->time - nccl_choose(t, t.gpus(), Collective::AllReduce, 4_GiB, {}, request.nccl_env).latency;
  const double busbw = 2 * 15.0 / 16 * double(request.message.count()) / bandwidth_part.seconds();
  CHECK(busbw / 1e9 == Approx(192.0).epsilon(0.03));
  CHECK(busbw / 1e9 <= 192.0 * (1 + 1e-9));
  // Every NIC-to-switch direction carried the same bytes.
  std::vector<std::int64_t> nic_bytes;
  for (const DirectionStats& d : out.result->directions) {
    const Device& from = t.device(t.direction_source(d.direction));
    const Device& to = t.device(t.direction_target(d.direction));
    if (from.kind == DeviceKind::Nic && to.kind != DeviceKind::Nic && to.host == kNoHost) nic_bytes.push_back(d.bytes.count());
  }
  REQUIRE(nic_bytes.size() == 32);
  const auto [lo, hi] = std::minmax_element(nic_bytes.begin(), nic_bytes.end());
  CHECK(*lo == *hi);
}

TEST_CASE("routing: EcmpPolicy::Channel sends channel c over the c-th of equally short next hops",
          "[nccl][channels]") {
  // Two hosts of one GPU and four NICs on its PCIe switch: four equal-cost ways out.
  const Topology t = one_gpu_hosts(2, NodeTemplate::Generic, 4);
  const Router router(t, EcmpPolicy::Channel);
  const DeviceId a = t.gpus()[0], b = t.gpus()[1];
  for (std::uint64_t channel = 0; channel < 8; ++channel) {
    const Route r = router.route(a, b, channel);
    CHECK(t.device(nic_on(t, r, false)).local_index == int(channel % 4));
    CHECK(t.device(nic_on(t, r, true)).local_index == int(channel % 4));
  }
}

TEST_CASE("nccl: predicted time never falls as the message grows (one and two DGX H100)", "[nccl][channels]") {
  // NCCL's choice changes with size (LL, LL128, Simple; ring, tree, NVLS); each switch goes to the
  // faster candidate, so the time of the chosen one is nondecreasing in size.
  for (int nodes : {1, 2}) {
    const Topology t = dgx_h100_cluster(nodes, FabricKind::SingleSwitch);
    Duration previous{};
    for (std::int64_t bytes = 8; bytes <= (std::int64_t(256) << 20); bytes *= 4) {
      CollectiveRequest request;
      request.algorithm = Algorithm::Nccl;
      request.message = Bytes{bytes};
      request.order.ranks = t.gpus();
      request.options.calibration = Calibration::nccl();
      const CollectiveOutcome out = run_collective(t, request);
      REQUIRE(out.applicable());
      INFO(nodes << " nodes, " << bytes << " B: " << out.result->algorithm);
      CHECK(out.result->time >= previous);
      previous = out.result->time;
    }
  }
}

TEST_CASE("nccl: a few bytes past a whole number of chunks never make NVLS, NVLS-Tree or a broadcast faster",
          "[nccl][channels]") {
  // NCCL's kernels loop over a channel's share in whole chunks and leave the remainder last
  // (CollectiveSpec::whole_chunks). Cutting the share into equal pieces instead made 4 MiB + 256 B
  // on one DGX H100 (NVLS: 8 channels of 512 KiB pieces, two half pieces instead of one), 32 MiB +
  // 256 B on two (NVLS-Tree: 4 MiB units per channel) and a ring broadcast of 13 x 32 KiB + 256 B
  // (Ring/LL on 13 channels in 4 KiB pieces: nine equal pieces pipeline finer than eight whole ones
  // and a 20-byte remainder) faster than the whole number of chunks just below.
  struct Case {
    int nodes;
    Collective collective;
    std::int64_t whole;
  };
  for (const Case& c : {Case{1, Collective::AllReduce, std::int64_t(4) << 20},
                        Case{2, Collective::AllReduce, std::int64_t(32) << 20},
                        Case{1, Collective::Broadcast, std::int64_t(13) * 32768}}) {
    const Topology t = dgx_h100_cluster(c.nodes, FabricKind::SingleSwitch);
    CollectiveRequest request;
    request.algorithm = Algorithm::Nccl;
    request.collective = c.collective;
    request.order.ranks = t.gpus();
    request.options.calibration = Calibration::nccl();
    CollectiveSweep sweep(t, request);
    std::optional<CollectiveOutcome> previous;
    std::int64_t previous_bytes = 0;
    for (std::int64_t extra : {std::int64_t(-4096), std::int64_t(0), std::int64_t(256), std::int64_t(4096)}) {
      const std::int64_t bytes = c.whole + extra;
      CollectiveOutcome out = sweep.run(Bytes{bytes});
      REQUIRE(out.applicable());
      if (previous && previous->result->algorithm == out.result->algorithm) {
        INFO(c.nodes << " node(s), " << to_string(c.collective) << ", " << previous_bytes << " B -> " << bytes
                     << " B: " << out.result->algorithm);
        CHECK(out.result->time >= previous->result->time);
      }
      previous = std::move(out);
      previous_bytes = bytes;
    }
  }
}

TEST_CASE("nccl ring broadcast and reduce under LL and LL128 pay their chain's hops once, as NCCL's lines do",
          "[nccl][channels]") {
  // NCCL forwards each LL/LL128 line as it arrives (cut-through), so its model times a chain as
  // latency + bytes / bandwidth. Store-and-forward in whole protocol steps made a 16 MiB Ring/LL128
  // broadcast on one DGX H100 (7 hops, 13 channels, three 576,000 B steps each) 206.7 us against the
  // model's 78.4 us, and 1 MiB (Ring/LL) 30.8 us against 18.8 us. The pieces now keep the chain's
  // fill under 1/8 of the transfer; the flows' own rate differs from the model's by a few per cent.
  const Topology t = dgx_h100_cluster(1, FabricKind::SingleSwitch);
  for (const Collective c : {Collective::Broadcast, Collective::Reduce})
    for (const Bytes size : {1_MiB, 16_MiB}) {
      CollectiveRequest request;
      request.algorithm = Algorithm::Nccl;
      request.collective = c;
      request.message = size;
      request.order.ranks = t.gpus();
      request.options.calibration = Calibration::nccl();
      const CollectiveOutcome out = run_collective(t, request);
      REQUIRE(out.applicable());
      const NcclChoice model = nccl_choose(t, t.gpus(), c, size, Payload{}, request.nccl_env);
      REQUIRE(model.protocol != Protocol::Simple);
      INFO(to_string(c) << " " << size.count() << " B: " << out.result->algorithm << ", " << out.result->time.microseconds()
                        << " us against NCCL's model " << model.predicted.microseconds() << " us");
      CHECK(out.result->time.microseconds() <= 1.15 * model.predicted.microseconds());
      CHECK(out.result->time.microseconds() >= 0.85 * model.predicted.microseconds());
    }
}

TEST_CASE("nccl tree on two DGX H100: NCCL's tree rate is a floor on what the links allow", "[nccl][channels][tree]") {
  // The flows alone give the tree busbw 397 GB/s (the test above), algBw 212 GB/s. NCCL's model
  // runs the tree at 0.92 of its channels' bandwidth, min(18 x 20.6 NVLink, 2 x 400 network) GB/s
  // on two nodes, at most perChMaxTreeBws[Hopper][N2] 41.4 GB/s per graph channel (8: one per NIC),
  // and counts every byte up and down: algBw = 0.5 x min(0.92 x 370.8, 8 x 41.4) = 165.6 GB/s. The
  // slower of the two is the time: NCCL's latency + M / 165.6 GB/s.
  const Topology t = dgx_h100_cluster(2, FabricKind::SingleSwitch);
  CollectiveRequest request = nccl_request(t, 4_GiB);
  request.nccl_env.algorithms.fill(NcclEnable::Off);
  request.nccl_env.algorithms[std::size_t(NcclAlgorithm::Tree)] = NcclEnable::On;
  const CollectiveOutcome out = run_collective(t, request);
  REQUIRE(out.applicable());
  REQUIRE(out.algorithm == Algorithm::Tree);
  const NcclChoice c = nccl_choose(t, t.gpus(), Collective::AllReduce, 4_GiB, {}, request.nccl_env);
  const double algbw = 0.5 * std::min(0.92 * 18 * 20.6e9, 8 * 41.4e9);
  CHECK(out.result->time.seconds() == Approx(c.latency.seconds() + double(request.message.count()) / algbw).epsilon(1e-9));
}

TEST_CASE("nccl ring under LL on one DGX A100: NCCL's LL rate is a floor on what the links allow", "[nccl][channels][ring]") {
  // The flows carry LL lines at their wire efficiency, half of NCCL's 12 x 20 GB/s of NVLink a GPU:
  // algBw 120 x 8/14 = 68.6 GB/s. NCCL's model runs a ring's LL at min(llMaxBw, share x busBw), with
  // llMaxBws[Ampere][one node] 87.7 GB/s and share 1/4 for AllReduce up to 2.22, 1/2 from 2.23
  // (tuning.cc): busBw min(87.7, 60) = 60 GB/s under 2.19, 87.7 under 2.28, algBw x 8/14. The
  // slower of flows and model is the time: NCCL's latency + M / algBw.
  const Topology t = template_cluster(NodeTemplate::DgxA100, 1, FabricKind::SingleSwitch);
  const auto [version, busbw] = GENERATE(table<int, double>({{21904, 60.0}, {22809, 87.7}}));
  CAPTURE(version);
  CollectiveRequest request = nccl_request(t, 4_MiB);
  request.nccl_env.version = version;
  set_nccl_env(request.nccl_env, "NCCL_ALGO", "Ring");
  set_nccl_env(request.nccl_env, "NCCL_PROTO", "LL");
  const CollectiveOutcome out = run_collective(t, request);
  REQUIRE(out.applicable());
  REQUIRE(out.algorithm == Algorithm::Ring);
  REQUIRE(out.protocol == Protocol::LL);
  const NcclChoice c = nccl_choose(t, t.gpus(), Collective::AllReduce, 4_MiB, {}, request.nccl_env);
  const double algbw = busbw * 1e9 * 8 / 14;
  // epsilon: times are whole picoseconds (1e-8 of this run's ~0.1 ms).
  CHECK(out.result->time.seconds() == Approx(c.latency.seconds() + double(request.message.count()) / algbw).epsilon(1e-7));
}

TEST_CASE("nccl with NCCL_IB_HCA picking 8 of 16 NICs (2 per PCIe switch): those 8 carry the channels, busbw 100 GB/s",
          "[nccl][channels]") {
  // The OCI BM.GPU4.8-like node of the test above, 4 NICs of 100 Gb/s per PCIe switch (nic4k ..
  // nic4k+3 on switch k), of which NCCL_IB_HCA leaves two per switch: every GPU still has a NIC on its
  // switch, and the ring's busbw tends to what leaves a host through the 8 chosen NICs, 8 x 12.5 GB/s.
  const Topology t = a100_16_nics_cluster();
  CollectiveRequest request = nccl_request(t, 4_GiB);
  set_nccl_env(request.nccl_env, "NCCL_IB_HCA", "=nic0,nic1,nic4,nic5,nic8,nic9,nic12,nic13");
  set_nccl_env(request.nccl_env, "NCCL_ALGO", "Ring");
  const NcclModel m = nccl_model(t, t.gpus(), request.nccl_env);
  CHECK(m.nics == 8);
  CHECK(m.inter.gigabytes_per_second() == Approx(100.0));
  const CollectiveOutcome out = run_collective(t, request);
  REQUIRE(out.applicable());
  const Duration bandwidth_part =
      out.result->time - nccl_choose(t, t.gpus(), Collective::AllReduce, 4_GiB, {}, request.nccl_env).latency;
  const double busbw = 2 * 15.0 / 16 * double(request.message.count()) / bandwidth_part.seconds();
  CHECK(busbw / 1e9 == Approx(100.0).epsilon(0.03));
  CHECK(busbw / 1e9 <= 100.0 * (1 + 1e-9));
  int used = 0;
  for (const DirectionStats& d : out.result->directions) {
    const Device& from = t.device(t.direction_source(d.direction));
    const Device& to = t.device(t.direction_target(d.direction));
    if (from.kind != DeviceKind::Nic || to.host != kNoHost) continue;
    if (!request.nccl_env.ib_hca.selects(from.name)) CHECK(d.bytes.count() == 0);
    if (d.bytes.count() > 0) ++used;
  }
  CHECK(used == 16);  // 8 NICs on each of the 2 hosts
  // A filter that leaves a host without a NIC is refused, naming the setting.
  set_nccl_env(request.nccl_env, "NCCL_IB_HCA", "mlx5");
  const CollectiveOutcome none = run_collective(t, request);
  CHECK_FALSE(none.applicable());
  CHECK_THAT(none.not_applicable, Catch::Contains("NCCL_IB_HCA=mlx5 leaves host node0 without a NIC"));
}

Topology nvl72_racks(int trays, int trays_per_rack) {
  ClusterSpec spec;
  spec.nodes = trays;
  spec.node = node_template(NodeTemplate::Gb200Nvl72);
  spec.node.nvlink_domain = trays_per_rack;
  spec.fabric.kind = FabricKind::SingleSwitch;
  return make_cluster(spec);
}

TEST_CASE("GB200 NVL72: NCCL's view fuses each rack's NVLink clique into one node (MNNVL)", "[nccl][nvl72]") {
  const Topology t = nvl72_racks(8, 4);  // 2 racks of 4 trays, 16 GPUs each
  const std::vector<DeviceId> ranks = t.gpus();
  const std::optional<Topology> view = nccl_node_topology(t, ranks);
  REQUIRE(view);
  CHECK(view->hosts().size() == 2);
  REQUIRE(view->device_count() == t.device_count());
  REQUIRE(view->links().size() == t.links().size());
  // Every device keeps its id and name; a rack's GPUs and NICs are numbered tray by tray (rails over
  // the whole clique), and the rack's NVLink switch joins its node.
  for (HostId h = 0; h < 2; ++h) {
    std::map<DeviceKind, std::vector<int>> indices;
    for (DeviceId d : view->host_devices(h)) indices[view->device(d).kind].push_back(view->device(d).local_index);
    for (DeviceKind k : {DeviceKind::Gpu, DeviceKind::Nic}) {
      std::vector<int> got = indices[k];
      std::sort(got.begin(), got.end());
      std::vector<int> want(16);
      for (int i = 0; i < 16; ++i) want[std::size_t(i)] = i;
      CHECK(got == want);
    }
    CHECK(indices[DeviceKind::NvSwitch].size() == 1);
  }
  for (DeviceId d = 0; d < t.device_count(); ++d) CHECK(view->device(d).name == t.device(d).name);
  // Each node is named after its first and last tray.
  CHECK(view->host(0).name == t.host(0).name + ".." + t.host(3).name);
  CHECK(view->host(1).name == t.host(4).name + ".." + t.host(7).name);
  // NCCL's model takes that view itself: two nodes of 16 GPUs, NVLS-Tree across them.
  const NcclModel fused = nccl_model(t, ranks);
  CHECK(fused.nodes == 2);
  CHECK(fused.nvls_tree);
  // DGX H100 nodes share no NVLink: nothing to change.
  const Topology dgx = dgx_h100_cluster(2, FabricKind::SingleSwitch);
  CHECK_FALSE(nccl_node_topology(dgx, dgx.gpus()));
  // Without MNNVL (NCCL_MNNVL_ENABLE=0, NCCL before 2.20, or P2P disabled) every tray is a node with a
  // private copy of its rack's switch: 8 nodes, one appended switch each, no link added.
  for (const char* setting : {"NCCL_MNNVL_ENABLE=0", "version=2.19", "NCCL_P2P_DISABLE=1"}) {
    NcclEnv env;
    const std::string text = setting;
    set_nccl_env(env, text.substr(0, text.find('=')), text.substr(text.find('=') + 1));
    const std::optional<Topology> split = nccl_node_topology(t, ranks, env);
    REQUIRE(split);
    CHECK(split->hosts().size() == 8);
    CHECK(split->device_count() == t.device_count() + 8);
    CHECK(split->links().size() == t.links().size());
    CHECK(nccl_model(t, ranks, env).nodes == 8);
  }
}

TEST_CASE("GB200 NVL72: --algo nccl runs one rack as one NVLS node at the Blackwell NVLS rate; without MNNVL "
          "the trays talk over InfiniBand",
          "[nccl][nvl72]") {
  const Topology t = nvl72_racks(18, 18);
  CollectiveRequest request;
  request.algorithm = Algorithm::Nccl;
  request.message = 1_GiB;
  request.order.ranks = t.gpus();
  const CollectiveOutcome nccl = run_collective(t, request);
  REQUIRE(nccl.applicable());
  CHECK(nccl.result->algorithm == "nccl:nvls/simple");
  // NCCL 2.28's NVLS model on the fused rack: 32 channels (NCCL_MAX_NVLS_ARITY) and (32 + 1) x speed <=
  // 18 x 40.1 GB/s picks 20 GB/s from the sm100 speeds; busBw = 32 x 20 x 0.74 x 31/32 x 2 = 917.6 GB/s.
  // The flows alone would finish sooner (900 GB/s NVLink each way), so the model's rate sets the time:
  // busbw over the time after NCCL's latency is that figure.
  const NcclChoice choice = nccl_choose(t, request.order.ranks, Collective::AllReduce, 1_GiB);
  const double seconds = (nccl.result->time - choice.latency).seconds();
  CHECK(2 * 71.0 / 72 * double(request.message.count()) / seconds / 1e9 == Approx(32 * 20 * 0.74 * 31.0 / 32 * 2));
  // NCCL_MNNVL_ENABLE=0: 18 nodes of 4 GPUs; between trays every byte crosses a NIC, none the rack's
  // NVLink switch, and the run is slower.
  set_nccl_env(request.nccl_env, "NCCL_MNNVL_ENABLE", "0");
  const CollectiveOutcome off = run_collective(t, request);
  REQUIRE(off.applicable());
  CHECK(off.result->time > nccl.result->time);
  // Directions are read off NCCL's view (the same link ids, the rack switch's links moved to each
  // tray's private copy).
  const Topology view = *nccl_node_topology(t, request.order.ranks, request.nccl_env);
  double nic_bytes = 0, nvlink_between_trays = 0;
  for (const DirectionStats& d : off.result->directions) {
    const Device& from = view.device(view.direction_source(d.direction));
    const Device& to = view.device(view.direction_target(d.direction));
    if (from.kind == DeviceKind::Nic && to.host == kNoHost) nic_bytes += double(d.bytes.count());
    if (link_family(view.link(Topology::direction_link(d.direction)).kind) == LinkFamily::NvLink && from.host != to.host)
      nvlink_between_trays += double(d.bytes.count());
  }
  CHECK(nvlink_between_trays == 0);
  CHECK(nic_bytes > 0);
}

TEST_CASE("GB200 NVL72: ring and in_network run over the rack's NVLink", "[nccl][nvl72]") {
  const Topology t = nvl72_racks(18, 18);
  CollectiveRequest request;
  request.message = 1_GiB;
  request.order.ranks = t.gpus();
  // A ring over the 72 GPUs in tray order crosses only NVLink: each GPU's 18 NVLink5 links (900 GB/s a
  // direction) carry one flow out and one in, so with links and reductions free (pure calibration,
  // no compute, no link latency) busbw = 900 GB/s exactly.
  request.algorithm = Algorithm::Ring;
  request.options.calibration = Calibration::pure();
  request.options.calibration.model_compute = false;
  request.options.link_latencies = false;
  const CollectiveOutcome ring = run_collective(t, request);
  REQUIRE(ring.applicable());
  const double busbw = 2 * 71.0 / 72 * double(request.message.count()) / ring.result->time.seconds();
  CHECK(busbw / 1e9 == Approx(900.0).epsilon(1e-6));
  // The rack's NVLink switch reduces (NVLink SHARP): in_network finds it.
  request.algorithm = Algorithm::InNetwork;
  CHECK(run_collective(t, request).applicable());
}

TEST_CASE("nccl CollNet Direct (NCCL_COLLNET_ENABLE=1 on SHARP): each GPU's NIC carries 1/8 of the buffer each way",
          "[nccl][channels]") {
  // Four DGX H100 on a rail-optimised fabric whose switches reduce. NCCL's model picks CollNet Direct
  // for 1 GiB; it runs as the rail hierarchy with SHARP per rail: every NIC sends M/8 and receives M/8
  // (a ring would send 2(p-1)/p M/8 through each NIC).
  const Topology t = sharp_dgx_h100_cluster();
  const CollectiveOutcome out = run_collective(t, collnet_request(t, "CollNetDirect"));
  REQUIRE(out.applicable());
  CHECK(out.result->algorithm == "nccl:collnet_direct/simple");
  const std::vector<std::int64_t> nics = nic_uplink_bytes(t, *out.result);
  CHECK(nics.size() == 32);
  for (std::int64_t bytes : nics) CHECK(bytes == (1_GiB).count() / 8);
}

TEST_CASE("nccl CollNet Chain: per channel a chain up to the head by the channel's NIC, SHARP across heads, and back",
          "[nccl][channels]") {
  // The same four DGX H100 with NCCL_ALGO=CollNetChain. Each channel's head sends its channel's
  // share up once and gets the sum back, and channels spread evenly over the 8 NICs: each NIC carries
  // M/8 each way, as with Direct. Inside a node each channel's chain moves M/C up through 7 GPUs
  // and M/C back down through 7: 14 M per node over the channels, every byte through the NVSwitch.
  const Topology t = sharp_dgx_h100_cluster();
  const CollectiveRequest request = collnet_request(t, "CollNetChain");
  const CollectiveOutcome out = run_collective(t, request);
  REQUIRE(out.applicable());
  CHECK(out.result->algorithm == "nccl:collnet_chain/simple");
  REQUIRE(out.channels % 8 == 0);
  const std::vector<std::int64_t> nics = nic_uplink_bytes(t, *out.result);
  CHECK(nics.size() == 32);
  for (std::int64_t bytes : nics) CHECK(bytes == (1_GiB).count() / 8);
  std::int64_t node0_to_nvswitch = 0;
  for (const DirectionStats& d : out.result->directions) {
    const Device& from = t.device(t.direction_source(d.direction));
    if (from.kind == DeviceKind::Gpu && from.host == 0 &&
        t.device(t.direction_target(d.direction)).kind == DeviceKind::NvSwitch)
      node0_to_nvswitch += d.bytes.count();
  }
  CHECK(node0_to_nvswitch == 14 * (1_GiB).count());
  // The chain's latency is NCCL's: 2 x 7 x 2.8 + 30 us, as start latency.
  const NcclChoice choice = nccl_choose(t, t.gpus(), Collective::AllReduce, 1_GiB, Payload{}, request.nccl_env);
  CHECK(choice.latency.microseconds() == Approx(2 * 7 * 2.8 + 30.0));
}

TEST_CASE("nccl on two DGX H100: bulk allreduce runs NVLS-Tree at NCCL's rate, 8 heads x 57.7 GB/s busbw",
          "[nccl][channels]") {
  // NCCL's multi-node NVLS graph (search.cc): 8 heads; bwIntra is the fastest inter speed with
  // 9 x speed <= 18 x 20.6 GB/s of NVLink (40), bwInter the head's network path (48: PCIe Gen5 x16 at
  // NCCL's figure, below the 400 Gb/s NIC). 2.28's tuning: per channel min(40 x 0.85 x 7/8 x 2,
  // 2 x 48, perChMaxNVLSTreeBw[Hopper][2 nodes] 57.7) = 57.7, so busbw 8 x 57.7 = 461.6 GB/s. The
  // flows alone would be faster (each NIC carries 1/8 of the buffer each way), so NCCL's rate is the
  // time.
  const Topology t = dgx_h100_cluster(2, FabricKind::SingleSwitch);
  const CollectiveOutcome out = run_collective(t, nccl_request(t, 4_GiB));
  REQUIRE(out.applicable());
  REQUIRE(out.algorithm == Algorithm::Hierarchical);
  CHECK(out.result->algorithm == "nccl:nvls_tree/simple");
  CHECK(out.channels == 16);  // as NCCL logs it: the NVLS CTAs that run the 8 heads' channels
  const NcclChoice choice = nccl_choose(t, t.gpus(), Collective::AllReduce, 4_GiB);
  CHECK(choice.channels == 8);
  const double busbw = 2 * 15.0 / 16 * double((4_GiB).count()) / (out.result->time - choice.latency).seconds();
  CHECK(busbw / 1e9 == Approx(8 * 57.7).epsilon(1e-4));
  // Before 2.28 NCCL's model took min(bwIntra, bwInter) = 40 per head and 5/6 of it as algBw: that
  // release picks NVLS-Tree too, and the time keeps the hardware rate of the newest model.
  CollectiveRequest older = nccl_request(t, 4_GiB);
  older.nccl_env.version = 22005;
  const CollectiveOutcome old = run_collective(t, older);
  REQUIRE(old.applicable());
  CHECK(old.result->algorithm == "nccl:nvls_tree/simple");
  CHECK(nccl_choose(t, t.gpus(), Collective::AllReduce, 4_GiB, {}, older.nccl_env).bandwidth.gigabytes_per_second() ==
        Approx(8 * 40 * 5.0 / 6));
  // NCCL_ALGO=^NVLSTree leaves the ring (tested above); a single node never runs it.
  const Topology one = dgx_h100_cluster(1, FabricKind::SingleSwitch);
  CHECK_FALSE(nccl_model(one, one.gpus()).nvls_tree);
}

TEST_CASE("nccl PAT: one GPU per node, a small allgather runs NCCL's PAT as halving/doubling or direct",
          "[nccl][channels]") {
  for (const int nodes : {16, 12}) {
    const Topology t = one_gpu_hosts(nodes, NodeTemplate::DgxH100, 1);
    CollectiveRequest request = nccl_request(t, 64_KiB);
    request.collective = Collective::AllGather;
    request.keep_schedule = true;
    const CollectiveOutcome out = run_collective(t, request);
    REQUIRE(out.applicable());
    CHECK(out.result->algorithm == "nccl:pat/simple");
    // Recursive doubling for a power-of-two count (each rank talks to log2(16) = 4 peers), every peer
    // at once otherwise (11).
    REQUIRE(out.schedule);
    std::map<Endpoint, std::set<Endpoint>> peers;
    for (const Op& op : out.schedule->ops())
      if (op.kind == OpKind::Send) peers[op.at].insert(op.peer);
    CHECK(peers.size() == std::size_t(nodes));
    for (const auto& [rank, to] : peers) CHECK(to.size() == (nodes == 16 ? 4U : std::size_t(nodes - 1)));
    // NCCL's PAT rate is a floor: no faster than its modelled latency + bytes / bandwidth.
    const NcclChoice choice = nccl_choose(t, request.order.ranks, Collective::AllGather, 64_KiB);
    CHECK(out.result->time >= choice.latency + request.message / choice.bandwidth - Duration{1});
  }
}
