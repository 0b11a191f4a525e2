// NCCL tuning model: table values recomputed by hand from NCCL src/graph/tuning.cc (v2.19) and the
// choices NCCL is known to make (LL for small messages, LL128 in the middle, Simple for bulk).
#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "ringlab/sim/collectives.hpp"
#include "nccl_fixtures.hpp"
#include "ringlab/sim/nccl_tuning.hpp"
#include "ringlab/topology/generators.hpp"

using namespace ringlab;
using namespace ringlab::sim;
using namespace ringlab::literals;

namespace {

/// One H100 node: 8 GPUs, 16 channels over 18 NVLink4 links, which NCCL counts at 20.6 GB/s each
/// (topo.h SM90_NVLINK_BW: 370.8 GB/s, not the links' 450); the hand-computed rows below are
/// NCCL 2.19's tables.
NcclModel h100_node() { return test::h100_node_model(21900); }

/// Four H100 nodes, 8 GPUs each, one 400 Gb/s NIC (50 GB/s) per GPU, 4 channels.
NcclModel h100_four_nodes() {
  NcclModel m = h100_node();
  m.ranks = 32;
  m.nodes = 4;
  m.channels = 4;
  m.inter = 50_GBps;
  return m;
}

/// `nodes` B200 nodes of 8 GPUs (18 NVLink5 links at NCCL's 40.1 GB/s = 721.8 each) under NCCL `version`.
NcclModel b200_nodes(int nodes, int version = 0) {
  NcclModel m = test::h100_node_model(version);
  m.gpu = GpuModel::B200;
  m.nvlink_kind = LinkKind::NvLink5;
  m.ranks = 8 * nodes;
  m.nodes = nodes;
  return m;
}

/// By value: callers may pass nccl_estimates(...) itself, a temporary gone after the full expression.
NcclEstimate row(const std::vector<NcclEstimate>& rows, NcclAlgorithm a, Protocol p) {
  const auto it = std::find_if(rows.begin(), rows.end(),
                               [&](const NcclEstimate& e) { return e.algorithm == a && e.protocol == p; });
  REQUIRE(it != rows.end());
  return *it;
}

/// `nodes` catalogue nodes of `tmpl` (as edited by `edit`) behind one switch, or alone with 1 node.
template <class Edit = void (*)(NodeSpec&)>
Topology template_cluster(NodeTemplate tmpl, int nodes, Edit edit = [](NodeSpec&) {}) {
  ClusterSpec spec;
  spec.nodes = nodes;
  spec.node = node_template(tmpl);
  edit(spec.node);
  spec.fabric.kind = nodes > 1 ? FabricKind::SingleSwitch : FabricKind::None;
  return make_cluster(spec);
}

/// An HGX-style host: 8 H100s on an NVSwitch with 18 NVLink4 links each, one NDR NIC per GPU;
/// `nvls` marks the NVSwitches as reducing (NVLink SHARP, as on a DGX H100).
Topology hgx_hosts(int hosts, std::vector<DeviceId>& gpus, bool nvls = false) {
  Topology t;
  Device leaf;
  leaf.name = "leaf0";
  leaf.kind = DeviceKind::Leaf;
  const DeviceId leaf_id = t.add_device(leaf);
  for (int h = 0; h < hosts; ++h) {
    const std::string node = "node" + std::to_string(h);
    const HostId host = t.add_host(node);
    Device sw;
    sw.name = node + "/nvswitch0";
    sw.kind = DeviceKind::NvSwitch;
    sw.host = host;
    sw.in_network_reduction = nvls;
    const DeviceId nvs = t.add_device(sw);
    for (int g = 0; g < 8; ++g) {
      Device gpu;
      gpu.name = node + "/gpu" + std::to_string(g);
      gpu.host = host;
      gpu.local_index = g;
      gpu.gpu_model = GpuModel::H100;
      const DeviceId id = t.add_device(gpu);
      Device nic;
      nic.name = node + "/nic" + std::to_string(g);
      nic.kind = DeviceKind::Nic;
      nic.host = host;
      nic.local_index = g;
      const DeviceId nic_id = t.add_device(nic);
      t.add_link(Topology::default_link(id, nvs, LinkKind::NvLink4, 18));
      t.add_link(Topology::default_link(id, nic_id, LinkKind::Pcie5));
      t.add_link(Topology::default_link(nic_id, leaf_id, LinkKind::IbNdr));
      gpus.push_back(id);
    }
  }
  return t;
}

}  // namespace

TEST_CASE("nccl: one H100 node, allreduce rows of the latency/bandwidth table", "[nccl]") {
  const auto rows = nccl_estimates(h100_node(), Collective::AllReduce, 1_GiB);
  REQUIRE(rows.size() == 6);  // tree and ring, LL/LL128/Simple each
  // Ring/Simple: baseLat 8.4 + 2(p-1) x hwLat[NVLink][Ring][Simple] 3.4 = 8.4 + 14 x 3.4 us.
  const NcclEstimate ring = row(rows, NcclAlgorithm::Ring, Protocol::Simple);
  CHECK(ring.latency.microseconds() == Approx(56.0));
  // busBw = 16 x 370.8/16 GB/s; algBw = busBw x p / 2(p-1).
  CHECK(ring.bandwidth.gigabytes_per_second() == Approx(370.8 * 8 / 14));
  CHECK(ring.time.microseconds() == Approx(56.0 + 1073741824.0 / (1000.0 * 370.8 * 8 / 14)).epsilon(1e-6));
  // Ring/LL: 6.6 + 14 x 0.6 us; busBw = min(llMaxBw[Hopper][N1] 87.7, 370.8/4).
  const NcclEstimate ll = row(rows, NcclAlgorithm::Ring, Protocol::LL);
  CHECK(ll.latency.microseconds() == Approx(15.0));
  CHECK(ll.bandwidth.gigabytes_per_second() == Approx(87.7 * 8 / 14));
  // Ring/LL128: 14 + 14 x 1.9 us; busBw = min(0.92 x 370.8, 16 x 36.7).
  const NcclEstimate ll128 = row(rows, NcclAlgorithm::Ring, Protocol::LL128);
  CHECK(ll128.latency.microseconds() == Approx(40.6));
  CHECK(ll128.bandwidth.gigabytes_per_second() == Approx(0.92 * 370.8 * 8 / 14));
  // Tree/Simple: 0 + 2 x (p-1) x 28 us; busBw = min(0.92 x 370.8, 16 x 38.7), algBw half of it
  // (1 GiB is past the correction table).
  const NcclEstimate tree = row(rows, NcclAlgorithm::Tree, Protocol::Simple);
  CHECK(tree.latency.microseconds() == Approx(392.0));
  CHECK(tree.bandwidth.gigabytes_per_second() == Approx(0.92 * 370.8 * 0.5));
  // Tree/LL128: 14 + 2 x 7 x 1.25 us; busBw = min(0.92 x 370.8 x 7/9, 16 x 36.7) / 2.
  const NcclEstimate tree128 = row(rows, NcclAlgorithm::Tree, Protocol::LL128);
  CHECK(tree128.latency.microseconds() == Approx(31.5));
  CHECK(tree128.bandwidth.gigabytes_per_second() == Approx(0.92 * 370.8 * 7 / 9 * 0.5));
}

TEST_CASE("nccl: LL for small messages, LL128 in between, Simple for bulk (one H100 node)", "[nccl]") {
  const NcclModel m = h100_node();
  CHECK(nccl_choose(m, Collective::AllReduce, 8_B).name == "ring/ll");
  // 1 MiB: ring/LL 15 + 1 MiB / 50.1 GB/s = 35.9 us beats tree/LL128 (31.5 + 1 MiB / (161 x 0.6)).
  CHECK(nccl_choose(m, Collective::AllReduce, 1_MiB).name == "ring/ll");
  // 4 MiB: ring/LL128 40.6 + 17.7 = 58.3 us beats ring/Simple 72.3 us and tree/LL128 64.1 us.
  CHECK(nccl_choose(m, Collective::AllReduce, 4_MiB).name == "ring/ll128");
  const NcclChoice bulk = nccl_choose(m, Collective::AllReduce, 1_GiB);
  CHECK(bulk.name == "ring/simple");
  CHECK(bulk.algorithm == Algorithm::Ring);
  CHECK(bulk.protocol == Protocol::Simple);
  CHECK(bulk.channels == 16);
  CHECK(bulk.chunk == 512_KiB);
  CHECK(bulk.step_latency.microseconds() == Approx(3.4));
  CHECK(bulk.predicted.microseconds() == Approx(56.0 + 1073741824.0 / (1000.0 * 370.8 * 8 / 14)).epsilon(1e-6));
}

TEST_CASE("nccl: four nodes, ring latency counts network steps and the Simple plateau", "[nccl]") {
  const NcclModel m = h100_four_nodes();
  // nsteps 2(32-1) = 62, of which 2 x 4 cross the network at hwLat[NET][Ring][Simple] 14 us; the
  // rest pay max(hwLat[NVLink] 3.4, 3 x 1 us net overhead).
  const double lat = 8.4 + (62 - 8) * 3.4 + 8 * 14.0;
  CHECK(row(nccl_estimates(m, Collective::AllReduce, 8_B), NcclAlgorithm::Ring, Protocol::Simple)
            .latency.microseconds() == Approx(lat));
  // Past 64 B per channel per rank the ring plateau factor 1.4 applies (compute capability >= 8.0).
  const std::vector<NcclEstimate> big_rows = nccl_estimates(m, Collective::AllReduce, 1_GiB);
  const NcclEstimate big = row(big_rows, NcclAlgorithm::Ring, Protocol::Simple);
  CHECK(big.latency.microseconds() == Approx(lat * 1.4));
  // Network-bound: busBw = 4 channels x min(450, 50)/4 GB/s.
  CHECK(big.bandwidth.gigabytes_per_second() == Approx(50.0 * 32 / 62));
  // Tree/Simple: 2 x ((8-1) x 28 + log2(4) x 28) us.
  CHECK(row(nccl_estimates(m, Collective::AllReduce, 8_B), NcclAlgorithm::Tree, Protocol::Simple)
            .latency.microseconds() == Approx(2 * (7 * 28.0 + 2 * 28.0)));
}

TEST_CASE("nccl: one GPU per node gives the tree NCCL's TREE pattern, x .85 from 2.26 (tuning.cc)", "[nccl]") {
  // NCCL's search gives a one-GPU node's tree graph the plain TREE pattern, which 2.26 on charges
  // .85 of the tree's bus bandwidth; 2.25 has the same tables otherwise (the 2.23 era).
  NcclModel m = h100_four_nodes();
  const auto tree_bw = [&](int ranks, int version) {
    m.ranks = ranks;
    m.env.version = version;
    return row(nccl_estimates(m, Collective::AllReduce, 1_GiB), NcclAlgorithm::Tree, Protocol::Simple)
        .bandwidth.gigabytes_per_second();
  };
  CHECK(tree_bw(4, 22602) == Approx(0.85 * tree_bw(4, 22503)));
  // Eight GPUs a node: balanced trees, no charge.
  CHECK(tree_bw(32, 22602) == Approx(tree_bw(32, 22503)));
}

TEST_CASE("nccl: NVLS serves allgather and reduce-scatter on one node from 2.19 (enqueue.cc)", "[nccl]") {
  NcclModel m = h100_node();
  m.nvls = true;
  const auto nvls_row = [&](Collective c, int version) {
    m.env.version = version;
    std::optional<NcclEstimate> found;
    for (const NcclEstimate& e : nccl_estimates(m, c, 1_GiB))
      if (e.algorithm == NcclAlgorithm::Nvls) found = e;
    return found;
  };
  for (Collective c : {Collective::AllGather, Collective::ReduceScatter}) {
    // 2.19-2.27: the NVLS graph as is, 8 channels x 40 GB/s, algBw x 5/6 until 2.22; latency
    // hwLat[NVLINK] 23 (2.19, 2.20; 25 from 2.21).
    const auto old = nvls_row(c, 22005);
    REQUIRE(old);
    CHECK(old->latency.microseconds() == Approx(23.0));
    CHECK(old->bandwidth.gigabytes_per_second() == Approx(8 * 40 * 5.0 / 6));
    // From 2.23 these rows keep busBw as algBw.
    const auto mid = nvls_row(c, 22703);
    REQUIRE(mid);
    CHECK(mid->bandwidth.gigabytes_per_second() == Approx(8 * 40.0));
    // 2.28: busBw 8 x 40 x 0.85 x 7/8 x (ppn - 1)/ppn (no AllReduce pipelining), unconverted.
    const auto now = nvls_row(c, 22800);
    REQUIRE(now);
    CHECK(now->latency.microseconds() == Approx(25.0));
    CHECK(now->bandwidth.gigabytes_per_second() == Approx(8 * 40 * 0.85 * 7.0 / 8 * 7.0 / 8));
    CHECK_FALSE(nvls_row(c, 21805));  // 2.18: AllReduce only
  }
  // Across nodes NCCL needs a CollNet plugin for them (not modelled): none.
  m.ranks = 16;
  m.nodes = 2;
  m.env.version = 22800;
  for (const NcclEstimate& e : nccl_estimates(m, Collective::AllGather, 1_GiB)) CHECK(e.algorithm != NcclAlgorithm::Nvls);
  // Broadcast and Reduce never.
  m.ranks = 8;
  m.nodes = 1;
  for (Collective c : {Collective::Broadcast, Collective::Reduce})
    for (const NcclEstimate& e : nccl_estimates(m, c, 1_GiB)) CHECK(e.algorithm == NcclAlgorithm::Ring);
}

TEST_CASE("nccl: without NVLS only the ring serves reduce-scatter, allgather, broadcast and reduce", "[nccl]") {
  for (Collective c : {Collective::ReduceScatter, Collective::AllGather, Collective::Broadcast, Collective::Reduce})
    for (const NcclEstimate& e : nccl_estimates(h100_node(), c, 1_MiB)) CHECK(e.algorithm == NcclAlgorithm::Ring);
  // AllGather: p-1 ring steps, algBw = busBw x p/(p-1).
  const auto rows = nccl_estimates(h100_node(), Collective::AllGather, 1_GiB);
  CHECK(row(rows, NcclAlgorithm::Ring, Protocol::Simple).latency.microseconds() == Approx(8.4 + 7 * 3.4));
}

TEST_CASE("nccl: NVLS joins when the NVSwitch reduces, LL128 leaves without NVLink", "[nccl]") {
  NcclModel m = h100_node();
  m.nvls = true;
  const auto rows = nccl_estimates(m, Collective::AllReduce, 1_GiB);
  const NcclEstimate nvls = row(rows, NcclAlgorithm::Nvls, Protocol::Simple);
  CHECK(nvls.latency.microseconds() == Approx(23.0));  // hwLat[NVLink][NVLS][Simple] in 2.19
  // Before 2.28 the NVLS graph's bandwidth as is: 8 channels (one per GPU) of 40 GB/s ((8 + 1) x
  // speed <= 18 links x 20.6 GB/s = 370.8 picks 40 from the SM90 speed array), algBw = busBw x 5/6.
  CHECK(nvls.bandwidth.gigabytes_per_second() == Approx(8 * 40 * 5.0 / 6));
  m.env.version = 22800;
  const auto rows228 = nccl_estimates(m, Collective::AllReduce, 1_GiB);
  const NcclEstimate nvls228 = row(rows228, NcclAlgorithm::Nvls, Protocol::Simple);
  CHECK(nvls228.latency.microseconds() == Approx(25.0));
  // From 2.28: busBw = 8 x 40 x 0.85 (nvlsEfficiency) x 7/8 x 2 (AllReduce) = 476 GB/s; algBw =
  // busBw x 8 / 14.
  CHECK(nvls228.bandwidth.gigabytes_per_second() == Approx(8 * 40 * 0.85 * 7.0 / 8 * 2 * 8.0 / 14));
  // Fewer NVLinks, a slower speed: 12 links x 20.6 = 247.2 -> 24 GB/s (9 x 30 = 270 does not fit).
  NcclModel fewer = m;
  fewer.nvlinks = 12;
  CHECK(row(nccl_estimates(fewer, Collective::AllReduce, 1_GiB), NcclAlgorithm::Nvls, Protocol::Simple)
            .bandwidth.gigabytes_per_second() == Approx(8 * 24 * 0.85 * 7.0 / 8 * 2 * 8.0 / 14));
  // Ampere has no NVLS (nvlsEfficiency 0).
  NcclModel ampere = m;
  ampere.env.version = 21900;
  ampere.gpu = GpuModel::A100;
  for (const NcclEstimate& e : nccl_estimates(ampere, Collective::AllReduce, 1_GiB))
    CHECK(e.algorithm != NcclAlgorithm::Nvls);
  CHECK(nccl_choose(m, Collective::AllReduce, 1_GiB).algorithm == Algorithm::InNetwork);
  m.nvls = false;
  m.nvlink = false;
  for (const NcclEstimate& e : nccl_estimates(m, Collective::AllReduce, 1_MiB)) CHECK(e.protocol != Protocol::LL128);
}

TEST_CASE("nccl: Blackwell takes 2.28's own NVLS constants (nvlsEfficiency 0.74, sm100 speeds)", "[nccl]") {
  // One B200 node: 18 NVLink5 links at NCCL's 40.1 GB/s = 721.8; (8 + 1) x speed <= 721.8 picks 80
  // from sm100SpeedArrayIntra (the SM90 array would give 60). busBw = 8 x 80 x 0.74 x 7/8 x 2 (AllReduce
  // pipelining) = 828.8 GB/s; algBw = busBw x 8 / 14.
  NcclModel m = b200_nodes(1, 22809);
  m.nvls = true;
  const NcclEstimate nvls = row(nccl_estimates(m, Collective::AllReduce, 1_GiB), NcclAlgorithm::Nvls, Protocol::Simple);
  CHECK(nvls.bandwidth.gigabytes_per_second() == Approx(8 * 80 * 0.74 * 7.0 / 8 * 2 * 8.0 / 14));
  // The same board with Hopper GPUs keeps Hopper's 0.85 and the SM90 speeds (721.8 / 9 -> 60).
  m.gpu = GpuModel::H100;
  const NcclEstimate hopper =
      row(nccl_estimates(m, Collective::AllReduce, 1_GiB), NcclAlgorithm::Nvls, Protocol::Simple);
  CHECK(hopper.bandwidth.gigabytes_per_second() == Approx(8 * 60 * 0.85 * 7.0 / 8 * 2 * 8.0 / 14));
}

TEST_CASE("nccl: PAT for allgather and reduce-scatter with one GPU per node, from 2.23", "[nccl]") {
  // Eight nodes of one H100 each, one 400 Gb/s NIC (50 GB/s), 4 channels.
  NcclModel m = h100_node();
  m.ranks = 8;
  m.nodes = 8;
  m.channels = 4;
  m.inter = 50_GBps;
  m.env.version = 22800;
  const NcclEstimate pat = row(nccl_estimates(m, Collective::AllGather, 1_MiB), NcclAlgorithm::Pat, Protocol::Simple);
  // Latency (tuning.cc): 8 + log2(8) x (the tree's NET Simple hop, 14 us) / 3.5 + 8 ranks x 2.8 = 42.4 us.
  CHECK(pat.latency.microseconds() == Approx(8 + 3 * 14.0 / 3.5 + 8 * 2.8));
  // Bandwidth: the tree graph's 4 channels x min(NVLink 370.8 / 4, 50 / 4) GB/s x 0.75, left as busBw.
  CHECK(pat.bandwidth.gigabytes_per_second() == Approx(4 * 12.5 * 0.75));
  CHECK(row(nccl_estimates(m, Collective::ReduceScatter, 1_MiB), NcclAlgorithm::Pat, Protocol::Simple)
            .bandwidth.gigabytes_per_second() == Approx(4 * 12.5 * 0.75));
  // 2.23 to 2.27 take 0.85; 2.21 has no PAT; neither has AllReduce or LL/LL128.
  m.env.version = 22300;
  CHECK(row(nccl_estimates(m, Collective::AllGather, 1_MiB), NcclAlgorithm::Pat, Protocol::Simple)
            .bandwidth.gigabytes_per_second() == Approx(4 * 12.5 * 0.85));
  auto has_pat = [](const NcclModel& model, Collective c) {
    const auto rows = nccl_estimates(model, c, 1_MiB);
    return std::any_of(rows.begin(), rows.end(), [](const NcclEstimate& e) { return e.algorithm == NcclAlgorithm::Pat; });
  };
  for (const NcclEstimate& e : nccl_estimates(m, Collective::AllGather, 1_MiB))
    if (e.algorithm == NcclAlgorithm::Pat) CHECK(e.protocol == Protocol::Simple);
  CHECK_FALSE(has_pat(m, Collective::AllReduce));
  NcclModel old = m;
  old.env.version = 22100;
  CHECK_FALSE(has_pat(old, Collective::AllGather));
  // Two GPUs per node: off by default, on with NCCL_PAT_ENABLE=1; NCCL_PAT_ENABLE=0 turns it off.
  NcclModel two = m;
  two.ranks = 16;
  CHECK_FALSE(has_pat(two, Collective::AllGather));
  set_nccl_env(two.env, "NCCL_PAT_ENABLE", "1");
  CHECK(has_pat(two, Collective::AllGather));
  set_nccl_env(m.env, "NCCL_PAT_ENABLE", "0");
  CHECK_FALSE(has_pat(m, Collective::AllGather));
  // Small allgathers pick it where its log latency beats the ring's network steps: on 16 nodes
  // 8 + 4 x 4 + 16 x 2.8 = 68.8 us against ring/LL's 6.6 + 15 x 5.0 = 81.6 us (on 8 nodes, 42.4 us
  // against 41.6, the ring still wins).
  m.env.pat = NcclEnable::Default;
  m.env.version = 22800;
  CHECK(nccl_choose(m, Collective::AllGather, 8_B).nccl_algorithm == NcclAlgorithm::Ring);
  m.ranks = m.nodes = 16;
  CHECK(nccl_choose(m, Collective::AllGather, 8_B).nccl_algorithm == NcclAlgorithm::Pat);
}

TEST_CASE("nccl: CollNet Chain and Direct rows on SHARP, Direct only with an NVSwitch in the node", "[nccl]") {
  // Four H100 nodes (8 GPUs, 18 NVLink4 links = 370.8 GB/s in NCCL's units), 50 GB/s leaving each
  // node, 4 channels, a fabric that reduces, NCCL 2.28 tables.
  NcclModel m = h100_four_nodes();
  m.env.version = 22800;
  m.collnet = true;
  const auto rows = nccl_estimates(m, Collective::AllReduce, 1_GiB);
  const NcclEstimate chain = row(rows, NcclAlgorithm::CollNetChain, Protocol::Simple);
  // Latency (tuning.cc): baseLat 0 + 2 x (8 - 1) x hwLat[NVLINK][Chain][Simple] 2.8 + hwLat[NET] 30 us.
  CHECK(chain.latency.microseconds() == Approx(2 * 7 * 2.8 + 30.0));
  // Bandwidth: the chain graph's bwIntra, raised to at most twice bwInter (search pass 2):
  // 4 x min(370.8 / 4, 2 x 50 / 4) = 100 GB/s busBw, algBw half of it.
  CHECK(chain.bandwidth.gigabytes_per_second() == Approx(4 * 2 * 50.0 / 4 * 0.5));
  // Direct: bwIntra as is, / GPU-per-NIC factor (8/4 -> 2 - 1/2 = 1.5), x 0.85 on Hopper, algBw x 0.5;
  // latency 2 x (1 x 3.7 + 7 x 0.4) + 31.
  const NcclEstimate direct = row(rows, NcclAlgorithm::CollNetDirect, Protocol::Simple);
  CHECK(direct.bandwidth.gigabytes_per_second() == Approx(18 * 20.6 / 1.5 * 0.85 * 0.5));
  CHECK(direct.latency.microseconds() == Approx(2 * (3.7 + 7 * 0.4) + 31.0));
  // Neither has LL/LL128 rows, and only AllReduce uses them.
  for (const NcclEstimate& e : rows)
    if (e.algorithm == NcclAlgorithm::CollNetChain || e.algorithm == NcclAlgorithm::CollNetDirect)
      CHECK(e.protocol == Protocol::Simple);
  for (const NcclEstimate& e : nccl_estimates(m, Collective::AllGather, 1_GiB))
    CHECK(e.algorithm != NcclAlgorithm::CollNetChain);
  // Without an NVSwitch (tuning.cc: nvsCount == 0 disables CollNet Direct) only the chain is left.
  NcclModel pcie = m;
  pcie.nvswitch = false;
  bool direct_left = false, chain_left = false;
  for (const NcclEstimate& e : nccl_estimates(pcie, Collective::AllReduce, 1_GiB)) {
    direct_left |= e.algorithm == NcclAlgorithm::CollNetDirect;
    chain_left |= e.algorithm == NcclAlgorithm::CollNetChain;
  }
  CHECK_FALSE(direct_left);
  CHECK(chain_left);
  // NCCL_ALGO=CollNetChain leaves the chain alone.
  set_nccl_env(m.env, "NCCL_ALGO", "CollNetChain");
  const NcclChoice forced = nccl_choose(m, Collective::AllReduce, 1_GiB);
  CHECK(forced.nccl_algorithm == NcclAlgorithm::CollNetChain);
  CHECK(forced.name == "collnet_chain/simple");
}

TEST_CASE("nccl: the model read off a hand-built HGX topology", "[nccl]") {
  std::vector<DeviceId> gpus;
  const Topology one = hgx_hosts(1, gpus);
  const NcclModel m = nccl_model(one, gpus);
  CHECK(m.ranks == 8);
  CHECK(m.nodes == 1);
  CHECK(m.nvlink);
  CHECK(m.gpu == GpuModel::H100);
  CHECK(m.intra.gigabytes_per_second() == Approx(450.0));  // 18 NVLink4 links x 25 GB/s
  // NCCL's ring search behind the switch (18 x 20.6 = 370.8 GB/s a GPU in NCCL's units, sm90 speeds):
  // 6 rings of 60 (7 of 50 and 12 of 30 carry no more), duplicated to 12 of 30, doubled at connection.
  CHECK(m.channels == 24);
  gpus.clear();
  const Topology two = hgx_hosts(2, gpus);
  const NcclModel m2 = nccl_model(two, gpus);
  CHECK(m2.nodes == 2);
  CHECK(m2.nics == 8);
  CHECK(m2.inter.gigabytes_per_second() == Approx(400.0));  // 8 NDR ports leave each host
  CHECK(m2.channels == 16);  // ceil(400 / 36.7) = 11, rounded up to 2 channels per NIC
  CHECK_FALSE(m2.collnet);
  // Multi-node picks are charged the network's per-hop latency.
  const NcclChoice c = nccl_choose(two, gpus, Collective::AllReduce, 1_GiB);
  CHECK(c.name == "ring/simple");
  CHECK(c.step_latency.microseconds() == Approx(14.0));  // hwLat[NET][Ring][Simple]
}

TEST_CASE("nccl: a single rank costs nothing", "[nccl]") {
  NcclModel m = h100_node();
  m.ranks = 1;
  CHECK(nccl_estimates(m, Collective::AllReduce, 1_MiB).empty());
  CHECK(nccl_choose(m, Collective::AllReduce, 1_MiB).predicted == Duration{});
}

TEST_CASE("nccl: a compressed payload skips NVLS and CollNet and takes the best remaining row", "[nccl]") {
  // One DGX H100 with NVLS: at 1 GiB the model picks NVLS, which cannot reduce fp8 on the wire.
  std::vector<DeviceId> gpus;
  const Topology dgx = hgx_hosts(1, gpus, true);
  const NcclModel m = nccl_model(dgx, gpus);
  REQUIRE(m.nvls);
  CHECK(nccl_choose(m, Collective::AllReduce, 1_GiB).nccl_algorithm == NcclAlgorithm::Nvls);
  Payload fp8;
  fp8.compression = Compression::quantize(DataType::Fp8);
  CHECK_FALSE(nccl_runs_payload(NcclAlgorithm::Nvls, fp8));
  CHECK_FALSE(nccl_runs_payload(NcclAlgorithm::CollNetDirect, fp8));
  CHECK_FALSE(nccl_runs_payload(NcclAlgorithm::CollNetChain, fp8));
  CHECK(nccl_runs_payload(NcclAlgorithm::Nvls, Payload{}));
  const NcclChoice choice = nccl_choose(m, Collective::AllReduce, 1_GiB, fp8);
  // The fastest row other than NVLS and CollNet, found by scanning the table.
  const auto rows = nccl_estimates(m, Collective::AllReduce, 1_GiB);
  const NcclEstimate* best = nullptr;
  for (const NcclEstimate& e : rows)
    if (nccl_runs_payload(e.algorithm, fp8) && (best == nullptr || e.time < best->time))
      best = &e;
  REQUIRE(best != nullptr);
  CHECK(choice.nccl_algorithm == best->algorithm);
  CHECK(choice.protocol == best->protocol);
  CHECK(choice.predicted == best->time);
  // Without NVLS the bulk pick on one H100 node is ring/simple (see the LL/LL128/Simple case above).
  CHECK(choice.name == "ring/simple");
  CHECK(choice.algorithm == Algorithm::Ring);
  // The nccl algorithm now builds the compressed schedule instead of rejecting in_network.
  CollectiveSpec spec;
  spec.algorithm = Algorithm::Nccl;
  spec.message = 1_GiB;
  spec.payload = fp8;
  const Schedule s = build_schedule(dgx, gpus, spec);
  CHECK(s.algorithm() == "nccl:ring/simple");
  CHECK(s.check().empty());
}

TEST_CASE("nccl: NCCL's version picks its tuning tables (2.18.1, 2.18.3, 2.19, 2.21, 2.23, 2.28)", "[nccl]") {
  // One H100 node, ring/LL at 1 GiB: busBw = min(llMaxBw[Hopper][N1], 370.8 x share):
  // 2.19: min(87.7, 370.8/4); from 2.21: min(141, 370.8 x 0.5).
  NcclModel m = h100_node();
  const auto ll_bw = [&](int version) {
    m.env.version = version;
    return row(nccl_estimates(m, Collective::AllReduce, 1_GiB), NcclAlgorithm::Ring, Protocol::LL)
        .bandwidth.gigabytes_per_second();
  };
  CHECK(ll_bw(22005) == Approx(87.7 * 8 / 14));
  CHECK(ll_bw(22105) == Approx(141.0 * 8 / 14));
  CHECK(ll_bw(0) == Approx(141.0 * 8 / 14));  // default: the newest tables
  // Tree/Simple latency on one node: 2.19 baseLat 0 + 2 x 7 x hwLat[NVLink][Tree][Simple] 28;
  // from 2.23 baseLat 8.4 + 2 x 7 x 4.0.
  const auto tree_lat = [&](int version) {
    m.env.version = version;
    return row(nccl_estimates(m, Collective::AllReduce, 8_B), NcclAlgorithm::Tree, Protocol::Simple)
        .latency.microseconds();
  };
  CHECK(tree_lat(22203) == Approx(2 * 7 * 28.0));
  CHECK(tree_lat(22304) == Approx(8.4 + 2 * 7 * 4.0));
  // Four nodes, ring/Simple: from 2.23 the ring crosses the network 2(nodes-1) = 6 times (8 before),
  // the rest pay max(3.4, 3 x 1 us).
  NcclModel four = h100_four_nodes();
  four.env.version = 22703;
  CHECK(row(nccl_estimates(four, Collective::AllReduce, 8_B), NcclAlgorithm::Ring, Protocol::Simple)
            .latency.microseconds() == Approx(8.4 + (62 - 6) * 3.4 + 6 * 14.0));
  // One rank per node (from 2.23): the NET hop is charged the tree's latency, here LL 5.0 not 2.7.
  NcclModel spread = four;
  spread.ranks = 4;
  spread.nodes = 4;
  const double ring_ll = row(nccl_estimates(spread, Collective::AllReduce, 8_B), NcclAlgorithm::Ring, Protocol::LL)
                             .latency.microseconds();
  CHECK(ring_ll == Approx(6.6 + 6 * 5.0));  // nsteps 6, all of them inter-node
  spread.env.version = 22005;
  // 2.20 counts 2 x nodes = 8 network steps at 2.7 us out of nsteps 6, so (6 - 8) intra-node steps
  // at max(0.6, 1 us net overhead) come off: NCCL's formula as it was.
  CHECK(row(nccl_estimates(spread, Collective::AllReduce, 8_B), NcclAlgorithm::Ring, Protocol::LL)
            .latency.microseconds() == Approx(6.6 + (6 - 8) * 1.0 + 8 * 2.7));
}

TEST_CASE("nccl: 2.18.3's NVLS-Tree, NVLS, tree and CollNet rows (v2.18.3 and v2.18.5 tuning.cc)", "[nccl]") {
  // Four H100 nodes, one 400 Gb/s NIC per GPU: 8 NVLS heads; the NVLS-Tree graph's bwIntra is 40
  // ((8 + 1) x 40 <= 370.8) and its bwInter rises to 48 (<= 50 GB/s, < 2 x 40).
  NcclModel m = h100_four_nodes();
  m.nics = 8;
  m.nvls = true;
  m.nvls_tree = true;
  m.nvls_head_gbytes = 50.0;
  m.collnet = true;
  const auto at = [&](int version, NcclAlgorithm a, Protocol p) {
    m.env.version = version;
    return row(nccl_estimates(m, Collective::AllReduce, 1_GiB), a, p);
  };
  // 2.18.5: baseLat 23 + 2 (nodes - 1) x hwLat[NET][NVLSTree] 19; busBw 8 x bwInter 48 (more than 2
  // nodes), algBw x .70 x 4 / (2 x 3).
  const NcclEstimate old_tree = at(21805, NcclAlgorithm::NvlsTree, Protocol::Simple);
  CHECK(old_tree.latency.microseconds() == Approx(23.0 + 2 * 3 * 19.0));
  CHECK(old_tree.bandwidth.gigabytes_per_second() == Approx(8 * 48 * 0.70 * 4 / 6.0));
  // 2.19: baseLat 0 + hwLat[NVLINK] 23 + 2 log2(4) x 14; busBw 8 x min(40, 48 / 2), x 5/6.
  const NcclEstimate new_tree = at(21900, NcclAlgorithm::NvlsTree, Protocol::Simple);
  CHECK(new_tree.latency.microseconds() == Approx(23.0 + 2 * 2 * 14.0));
  CHECK(new_tree.bandwidth.gigabytes_per_second() == Approx(8 * 24 * 5.0 / 6));
  // Tree/Simple 2.18.5: 2 x (7 x hwLat[NVLINK] 4 + log2(4) x hwLat[NET] 14); 2.19: 28 and 28.
  CHECK(at(21805, NcclAlgorithm::Tree, Protocol::Simple).latency.microseconds() == Approx(2 * (7 * 4.0 + 2 * 14.0)));
  CHECK(at(21900, NcclAlgorithm::Tree, Protocol::Simple).latency.microseconds() == Approx(2 * (7 * 28.0 + 2 * 28.0)));
  // CollNet Direct 2.18.5: 2 x (1 x 8.0 + 7 x 0.5 arity) + 10.7; Chain 2 x 7 x 4.75 + 14.
  CHECK(at(21805, NcclAlgorithm::CollNetDirect, Protocol::Simple).latency.microseconds() ==
        Approx(2 * (8.0 + 7 * 0.5) + 10.7));
  CHECK(at(21805, NcclAlgorithm::CollNetChain, Protocol::Simple).latency.microseconds() == Approx(2 * 7 * 4.75 + 14.0));
  // Two nodes: 23 + 2 x 19, busBw 8 x bwIntra 40, algBw x .70 x 2 / 2.
  m.ranks = 16;
  m.nodes = 2;
  const NcclEstimate two = at(21805, NcclAlgorithm::NvlsTree, Protocol::Simple);
  CHECK(two.latency.microseconds() == Approx(23.0 + 2 * 19.0));
  CHECK(two.bandwidth.gigabytes_per_second() == Approx(8 * 40 * 0.70));
  // One node, NVLS: 2.18.5's baseLat 23 (its NVLINK hop 0) is 2.19's 23 us hop (baseLat 0).
  NcclModel one = h100_node();
  one.nvls = true;
  one.env.version = 21805;
  const NcclEstimate nvls = row(nccl_estimates(one, Collective::AllReduce, 1_GiB), NcclAlgorithm::Nvls, Protocol::Simple);
  CHECK(nvls.latency.microseconds() == Approx(23.0));
  CHECK(nvls.bandwidth.gigabytes_per_second() == Approx(8 * 40 * 5.0 / 6));
  // 2.18.3 has the same tables.
  one.env.version = 21803;
  CHECK(row(nccl_estimates(one, Collective::AllReduce, 8_B), NcclAlgorithm::Tree, Protocol::Simple)
            .latency.microseconds() == Approx(2 * 7 * 4.0));
}

TEST_CASE("nccl: 2.18.1's rows: Tree Simple hops 28 us, NVLS x .75, one LL128 cap, Hopper tree N4 33 (v2.18.1 tuning.cc)",
          "[nccl]") {
  // Four H100 nodes of 8 GPUs, 4 channels, 400 GB/s out of each: per channel 370.8 / 4 = 92.7 GB/s
  // inside and 100 between nodes, so busBw starts at 4 x 92.7 = 370.8 and the per-channel caps bind.
  NcclModel m = h100_four_nodes();
  m.inter = 400_GBps;
  const auto at = [&](int version, NcclAlgorithm a, Protocol p, Bytes size = 1_GiB) {
    m.env.version = version;
    return row(nccl_estimates(m, Collective::AllReduce, size), a, p);
  };
  // Tree/Simple: 2 x (7 x hwLat[NVLINK] 28 + log2(4) x hwLat[NET] 28) in 2.18.1, 4 and 14 in 2.18.3.
  CHECK(at(21801, NcclAlgorithm::Tree, Protocol::Simple, 8_B).latency.microseconds() ==
        Approx(2 * (7 * 28.0 + 2 * 28.0)));
  CHECK(at(21803, NcclAlgorithm::Tree, Protocol::Simple, 8_B).latency.microseconds() ==
        Approx(2 * (7 * 4.0 + 2 * 14.0)));
  // Tree LL128 at 4+ nodes: busBw min(370.8 x .92, 4 x 33.0 (2.18.1) / 36.0) x 120/128, then
  // min(., 4 x 36.7 (2.18.1: ll128MaxBwPerCh) / 29.0), algBw x .5.
  const double bus = 370.8;
  const double tree181 = std::min(std::min(bus * 0.92, 4 * 33.0) * 120.0 / 128.0, 4 * 36.7) * 0.5;
  const double tree183 = std::min(std::min(bus * 0.92, 4 * 36.0) * 120.0 / 128.0, 4 * 29.0) * 0.5;
  REQUIRE(tree181 != Approx(tree183));
  CHECK(at(21801, NcclAlgorithm::Tree, Protocol::LL128).bandwidth.gigabytes_per_second() == Approx(tree181));
  CHECK(at(21803, NcclAlgorithm::Tree, Protocol::LL128).bandwidth.gigabytes_per_second() == Approx(tree183));
  // Tree Simple: min(370.8 x .92, 4 x 33.0) x .5 against 4 x 36.0.
  CHECK(at(21801, NcclAlgorithm::Tree, Protocol::Simple).bandwidth.gigabytes_per_second() == Approx(4 * 33.0 * 0.5));
  CHECK(at(21803, NcclAlgorithm::Tree, Protocol::Simple).bandwidth.gigabytes_per_second() == Approx(4 * 36.0 * 0.5));
  // One node, NVLS: 8 heads x 40 GB/s converted x .75 (2.18.1) against x 5/6 (2.18.3).
  NcclModel one = h100_node();
  one.nvls = true;
  const auto nvls = [&](int version) {
    one.env.version = version;
    return row(nccl_estimates(one, Collective::AllReduce, 1_GiB), NcclAlgorithm::Nvls, Protocol::Simple)
        .bandwidth.gigabytes_per_second();
  };
  CHECK(nvls(21801) == Approx(8 * 40 * 0.75));
  CHECK(nvls(21803) == Approx(8 * 40 * 5.0 / 6));
  // Releases before 2.18.1 take its tables.
  CHECK(at(21703, NcclAlgorithm::Tree, Protocol::Simple, 8_B).latency.microseconds() ==
        Approx(2 * (7 * 28.0 + 2 * 28.0)));
}

TEST_CASE("nccl: Blackwell's own per-channel rows by release, 2.25's (twice Hopper's) to 2.30's", "[nccl]") {
  // Two B200 nodes (18 NVLink5 links at NCCL's 40.1 GB/s = 721.8), 50 GB/s x 8 NICs out of each,
  // 4 channels: 180.45 GB/s intra and 100 inter per channel.
  NcclModel m = b200_nodes(2, 22602);
  m.channels = 4;
  m.inter = Bandwidth::from_bytes_per_second(400e9);
  const auto bw = [&](int version, NcclAlgorithm a, Protocol p) {
    m.env.version = version;
    return row(nccl_estimates(m, Collective::AllReduce, 1_GiB), a, p).bandwidth.gigabytes_per_second();
  };
  // Tree/Simple on two nodes: min(180.45, 2 x 100) x 4 x 0.92 = 664 over the cap 4 x perChMaxTreeBws
  // [Blackwell][N2]: 2 x 41.4 in 2.26, 42.8 in 2.28; algBw x 0.5.
  CHECK(bw(22602, NcclAlgorithm::Tree, Protocol::Simple) == Approx(4 * 2 * 41.4 * 0.5));
  CHECK(bw(22800, NcclAlgorithm::Tree, Protocol::Simple) == Approx(4 * 42.8 * 0.5));
  // Ring/LL128: 4 x 100 x 0.92 = 368 over 4 x perChMaxRingLL128Bws[Blackwell][N2]: 2 x 36.7 to 2.28.3,
  // 34.6 in 2.28.7 to 2.29.3, 40 from 2.29.7 (the newest); algBw x 16 / 30.
  CHECK(bw(22602, NcclAlgorithm::Ring, Protocol::LL128) == Approx(4 * 2 * 36.7 * 16 / 30.0));
  CHECK(bw(22803, NcclAlgorithm::Ring, Protocol::LL128) == Approx(4 * 2 * 36.7 * 16 / 30.0));
  CHECK(bw(22807, NcclAlgorithm::Ring, Protocol::LL128) == Approx(4 * 34.6 * 16 / 30.0));
  CHECK(bw(22903, NcclAlgorithm::Ring, Protocol::LL128) == Approx(4 * 34.6 * 16 / 30.0));
  CHECK(bw(22907, NcclAlgorithm::Ring, Protocol::LL128) == Approx(4 * 40.0 * 16 / 30.0));
  CHECK(bw(0, NcclAlgorithm::Ring, Protocol::LL128) == Approx(4 * 40.0 * 16 / 30.0));
  // One node: ring/LL at min(llMaxBws[Blackwell][N1] 2 x 141, 721.8 x 0.5), algBw x 8 / 14.
  m.ranks = 8;
  m.nodes = 1;
  CHECK(bw(22800, NcclAlgorithm::Ring, Protocol::LL) == Approx(2 * 141.0 * 8 / 14));
  // Hopper keeps its rows: 141 on one node.
  m.gpu = GpuModel::H100;
  m.nvlink_kind = LinkKind::NvLink4;
  CHECK(bw(22800, NcclAlgorithm::Ring, Protocol::LL) == Approx(141.0 * 8 / 14));
}

TEST_CASE("nccl: Blackwell's NVLS and NVLS-Tree by release: search speeds, the N4 cap, 2.29's correction",
          "[nccl]") {
  // Four B200 nodes (18 NVLink5 links at NCCL's 40.1 GB/s = 721.8), one 800 Gb/s NIC per GPU (100 GB/s
  // network path): 8 heads. NVLS-Tree graph (search.cc sm100SpeedArrayInter): bwIntra is the fastest
  // speed with 9 x speed <= 721.8 and speed <= 100, bwInter rises towards 2 x bwIntra within 100:
  // 2.28.x {96, 48, ..} -> (48, 96); 2.29.7 {96, 80, 48, ..} -> (80, 96); 2.30.3 {96, 86, 80, ..} -> (80, 96).
  NcclModel m = b200_nodes(4);
  m.nics = 8;
  m.inter = Bandwidth::from_bytes_per_second(800e9);
  m.nvls_tree = true;
  m.nvls_head_gbytes = 100.0;
  const auto tree_bw = [&](int version, Bytes size) {
    m.env.version = version;
    return row(nccl_estimates(m, Collective::AllReduce, size), NcclAlgorithm::NvlsTree, Protocol::Simple)
        .bandwidth.gigabytes_per_second();
  };
  // busBw per head min(bwIntra x 0.74 x 7/8 x 2, bwInter, perChMaxNVLSTreeBws[Blackwell][N4]) with the
  // cap 43.1 (2.28.3), 43.8 (2.28.9), 80 (2.30.3); algBw x 32 / 62. 1 GiB is past the correction's sizes.
  const double ratio = 32.0 / 62;
  CHECK(tree_bw(22803, 1_GiB) == Approx(8 * 43.1 * ratio));
  CHECK(tree_bw(22809, 1_GiB) == Approx(8 * 43.8 * ratio));
  CHECK(tree_bw(22907, 1_GiB) == Approx(8 * 43.8 * ratio));
  CHECK(tree_bw(23003, 1_GiB) == Approx(8 * 80.0 * ratio));
  CHECK(tree_bw(0, 1_GiB) == Approx(8 * 80.0 * ratio));
  // Two nodes (cap 96, bwInter x 2): the speed arrays show. 2.28.9: 48 x 0.74 x 7/8 x 2 = 62.16;
  // 2.29.7: min(80 x 0.74 x 7/8 x 2 = 103.6, 96) = 96. algBw x 16 / 30.
  m.ranks = 16;
  m.nodes = 2;
  CHECK(tree_bw(22809, 1_GiB) == Approx(8 * 48 * 0.74 * 7.0 / 8 * 2 * 16 / 30));
  CHECK(tree_bw(22907, 1_GiB) == Approx(8 * 96.0 * 16 / 30));
  // From 2.29.2, on Blackwell with x86 CPUs, NVLS-Tree takes treeCorrectionFactor[Simple]: 1 MiB is
  // log2(1 MiB / 64) = 14 (x .5), 512 MiB the new 24th entry (x .9); not with Grace (Arm) CPUs, not
  // before 2.29.2.
  const double full = tree_bw(22907, 1_GiB);
  CHECK(tree_bw(22907, 1_MiB) == Approx(full * 0.5));
  CHECK(tree_bw(22907, 512_MiB) == Approx(full * 0.9));
  CHECK(tree_bw(22809, 1_MiB) == Approx(tree_bw(22809, 1_GiB)));
  m.x86 = false;
  CHECK(tree_bw(22907, 1_MiB) == Approx(full));
  // One node of 8 with 11 NVLink5 links (441.1 GB/s): NVLS (sm100SpeedArrayIntra) takes the fastest
  // speed with 9 x speed <= 441.1: 40 up to 2.29.1, 45 from 2.29.2. busBw 8 x speed x 0.74 x 7/8 x 2,
  // algBw x 8 / 14.
  NcclModel one = b200_nodes(1);
  one.nvlinks = 11;
  one.nvls = true;
  const auto nvls_bw = [&](int version) {
    one.env.version = version;
    return row(nccl_estimates(one, Collective::AllReduce, 1_GiB), NcclAlgorithm::Nvls, Protocol::Simple)
        .bandwidth.gigabytes_per_second();
  };
  CHECK(nvls_bw(22809) == Approx(8 * 40 * 0.74 * 7.0 / 8 * 2 * 8 / 14));
  CHECK(nvls_bw(22902) == Approx(8 * 45 * 0.74 * 7.0 / 8 * 2 * 8 / 14));
}

TEST_CASE("nccl: under 64 B the tree's correction applies up to 2.21 only (log2i is log2Down from 2.22)",
          "[nccl]") {
  // ncclTopoGetAlgoTime takes treeCorrectionFactor[p][log2i(nBytes >> 6)] when that is >= 0: 2.21's
  // log2i(0) is 0 (Simple x .9), 2.22's log2Down(0) is -1 (none). Same tuning tables otherwise.
  NcclModel m = test::h100_node_model();
  const auto tree_bw = [&](int version, Bytes size) {
    m.env.version = version;
    return row(nccl_estimates(m, Collective::AllReduce, size), NcclAlgorithm::Tree, Protocol::Simple)
        .bandwidth.gigabytes_per_second();
  };
  CHECK(tree_bw(22105, 32_B) == Approx(tree_bw(22203, 32_B) * 0.9));
  CHECK(tree_bw(22105, 64_B) == Approx(tree_bw(22203, 64_B)));
}

TEST_CASE("nccl: catalogue GPUs take NCCL's rows by compute capability", "[nccl]") {
  // NCCL enables LL128 by default only for sm 7.0, 8.0 and 9.0 (tuning.cc), with NVLink.
  auto has_ll128 = [](GpuModel gpu) {
    NcclModel m = h100_node();
    m.gpu = gpu;
    const auto rows = nccl_estimates(m, Collective::AllReduce, 1_MiB);
    return std::any_of(rows.begin(), rows.end(), [](const NcclEstimate& e) { return e.protocol == Protocol::LL128; });
  };
  for (GpuModel g : {GpuModel::A100_40GB, GpuModel::A100Pcie, GpuModel::A100Pcie40GB, GpuModel::H100Pcie,
                     GpuModel::H100Nvl, GpuModel::H20})
    CHECK(has_ll128(g));
  for (GpuModel g : {GpuModel::A10, GpuModel::L40S, GpuModel::Rtx4090, GpuModel::Rtx6000Ada, GpuModel::B200,
                     GpuModel::GB200})
    CHECK_FALSE(has_ll128(g));
  // Later releases widen it (on NVLink): 2.25 and 2.26 add sm 10.0 and 12.0, 2.27 every sm >= 7.0.
  auto has_ll128_in = [](GpuModel gpu, int version) {
    NcclModel m = h100_node();
    m.gpu = gpu;
    m.env.version = version;
    const auto rows = nccl_estimates(m, Collective::AllReduce, 1_MiB);
    return std::any_of(rows.begin(), rows.end(), [](const NcclEstimate& e) { return e.protocol == Protocol::LL128; });
  };
  CHECK(has_ll128_in(GpuModel::B200, 22501));
  CHECK_FALSE(has_ll128_in(GpuModel::L40S, 22606));
  CHECK(has_ll128_in(GpuModel::L40S, 22703));
  CHECK(has_ll128_in(GpuModel::L40S, 0));  // the newest tables
  // NVLS exists on Hopper rows (nvlsEfficiency 0.85): the sm 9.0 models and B200/GB200 give H100's
  // figure for the same links; Ampere rows (sm 8.x) have none.
  auto nvls_bandwidth = [](GpuModel gpu) {
    NcclModel m = h100_node();
    m.gpu = gpu;
    m.nvls = true;
    for (const NcclEstimate& e : nccl_estimates(m, Collective::AllReduce, 1_GiB))
      if (e.algorithm == NcclAlgorithm::Nvls) return e.bandwidth.gigabytes_per_second();
    return 0.0;
  };
  const double hopper = nvls_bandwidth(GpuModel::H100);
  REQUIRE(hopper > 0);
  for (GpuModel g : {GpuModel::H20, GpuModel::H100Nvl, GpuModel::H200, GpuModel::GB200})
    CHECK(nvls_bandwidth(g) == Approx(hopper));
  for (GpuModel g : {GpuModel::A100_40GB, GpuModel::L40S, GpuModel::Rtx4090}) CHECK(nvls_bandwidth(g) == 0.0);
}

TEST_CASE("nccl: mixed GPU models run at the oldest compute capability, not the lowest enum value", "[nccl]") {
  // H100 (enum 3, sm 9.0) next to A10 (enum 8, sm 8.6): NCCL's minCompCap is the A10's.
  Topology t;
  ClusterSpec h100;
  h100.node = node_template(NodeTemplate::DgxH100);
  h100.prefix = "h";
  h100.fabric.kind = FabricKind::None;
  add_cluster(t, h100);
  ClusterSpec a10 = h100;
  a10.prefix = "a";
  a10.node = node_template(NodeTemplate::Generic);
  set_gpu_model(a10.node, GpuModel::A10);
  add_cluster(t, a10);
  const std::vector<DeviceId> ranks{t.device_by_name("h0/gpu0"), t.device_by_name("a0/gpu0")};
  CHECK(nccl_model(t, ranks).gpu == GpuModel::A10);
  const std::vector<DeviceId> reversed{ranks[1], ranks[0]};
  CHECK(nccl_model(t, reversed).gpu == GpuModel::A10);
  // minCompCap != maxCompCap: NCCL leaves LL128 off (tuning.cc), even where NVLink would allow it.
  NcclModel mixed = nccl_model(t, ranks);
  CHECK(mixed.mixed_compute);
  mixed.nvlink = true;
  for (const NcclEstimate& e : nccl_estimates(mixed, Collective::AllReduce, 1_MiB)) CHECK(e.protocol != Protocol::LL128);
  mixed.mixed_compute = false;
  bool ll128 = false;
  for (const NcclEstimate& e : nccl_estimates(mixed, Collective::AllReduce, 1_MiB)) ll128 |= e.protocol == Protocol::LL128;
  CHECK(ll128);
  // Two H100s: one compute capability.
  CHECK_FALSE(nccl_model(t, std::vector<DeviceId>{t.device_by_name("h0/gpu0"), t.device_by_name("h0/gpu1")}).mixed_compute);
}

TEST_CASE("nccl: EFA's network hop latency (aws-ofi-nccl's 20 us, +3 us for Simple) replaces hwLat[NET]", "[nccl]") {
  NcclModel m = h100_four_nodes();
  m.efa = true;
  const auto rows = nccl_estimates(m, Collective::AllReduce, 8_B);
  // Tree/Simple: 2 x ((8-1) x hwLat[NVLink][Tree][Simple] 28 + log2(4) x (20 + 3)) us.
  CHECK(row(rows, NcclAlgorithm::Tree, Protocol::Simple).latency.microseconds() == Approx(2 * (7 * 28.0 + 2 * 23.0)));
  // Ring/LL (2.19): baseLat 6.6 + (62 - 8) x max(hwLat[NVLink][Ring][LL] 0.6, net overhead 1.0) + 8 x 20 us.
  CHECK(row(rows, NcclAlgorithm::Ring, Protocol::LL).latency.microseconds() == Approx(6.6 + 54 * 1.0 + 8 * 20.0));
  // The same model over InfiniBand pays NCCL's hwLat[NET][Tree][Simple], 28 us in 2.19.
  CHECK(row(nccl_estimates(h100_four_nodes(), Collective::AllReduce, 8_B), NcclAlgorithm::Tree, Protocol::Simple)
            .latency.microseconds() == Approx(2 * (7 * 28.0 + 2 * 28.0)));
}

TEST_CASE("nccl: EFA is read off the hosts' links (aws_p5 is EFA, DGX H100 is not)", "[nccl]") {
  for (const auto& [tmpl, efa] : {std::pair{NodeTemplate::AwsP5, true}, std::pair{NodeTemplate::DgxH100, false}}) {
    const Topology t = template_cluster(tmpl, 2);
    const NcclModel m = nccl_model(t, t.gpus());
    CHECK(m.efa == efa);
    CHECK(m.nvlink_kind == LinkKind::NvLink4);
    const NcclChoice c = nccl_choose(t, t.gpus(), Collective::AllReduce, 1_GiB);
    if (efa && c.protocol == Protocol::Simple) CHECK(c.step_latency.microseconds() == Approx(23.0));
  }
}

TEST_CASE("nccl: on two nodes the tree channel runs at min(intra, 2 x inter) (search.cc pass 2)", "[nccl]") {
  // Two H100 nodes with 50 GB/s leaving each host, 4 channels: NCCL's NVLink is 18 x 20.6 GB/s.
  NcclModel m = h100_four_nodes();
  m.ranks = 16;
  m.nodes = 2;
  const auto rows = nccl_estimates(m, Collective::AllReduce, 1_GiB);
  // Tree/Simple: busBw = min(0.92 x 4 x min(370.8, 2 x 50)/4, 4 x perChMaxTreeBw[Hopper][2 nodes] 41.4);
  // algBw = busBw / 2 = 46 GB/s.
  CHECK(row(rows, NcclAlgorithm::Tree, Protocol::Simple).bandwidth.gigabytes_per_second() == Approx(0.92 * 100 * 0.5));
  // Ring/Simple is bound by inter alone: 50 x 16 / 30 GB/s.
  CHECK(row(rows, NcclAlgorithm::Ring, Protocol::Simple).bandwidth.gigabytes_per_second() == Approx(50.0 * 16 / 30));
  CHECK(nccl_choose(m, Collective::AllReduce, 1_GiB).name == "tree/simple");
  // Four nodes: the tree has inter alone, 0.92 x 50 / 2 GB/s, and the ring wins.
  const auto four = nccl_estimates(h100_four_nodes(), Collective::AllReduce, 1_GiB);
  CHECK(row(four, NcclAlgorithm::Tree, Protocol::Simple).bandwidth.gigabytes_per_second() == Approx(0.92 * 50 * 0.5));
}

namespace {
/// The cells of one table line, split at '|' (the first is the row's name).
std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t bar = line.find('|'); bar != std::string::npos; bar = line.find('|', start)) {
    out.push_back(line.substr(start, bar - start));
    start = bar + 1;
  }
  return out;
}
}  // namespace

TEST_CASE("nccl: the tuning table as NCCL logs it under NCCL_DEBUG_SUBSYS=TUNING (one H100 node)", "[nccl]") {
  // 2.19 has six algorithms: two blocks of three, each a header, a protocol line and five collectives.
  const std::vector<std::string> lines = nccl_tuning_table(h100_node());
  REQUIRE(lines.size() == 14);
  CHECK(lines[0] == "  Algorithm   |                            Tree                  |                            Ring"
                    "                  |                   CollNetDirect                  |");
  CHECK(lines[1].find("|             LL |          LL128 |         Simple |") != std::string::npos);
  CHECK(lines[7].find("CollNetChain") != std::string::npos);
  CHECK(lines[7].find("NVLSTree") != std::string::npos);
  // The AllReduce row holds the hand-computed values of the test above, "latency/bandwidth" as
  // NCCL's "%8.1f/%6.1f": ring Simple 56 us at 370.8 x 8/14 GB/s, LL128 40.6 us at 0.92 of that,
  // LL 15 us at 87.7 x 8/14; tree Simple 392 us at 0.92 x 370.8 / 2, LL128 31.5 us.
  const std::vector<std::string> all_reduce = cells(lines[6]);
  REQUIRE(all_reduce.size() == 10);
  CHECK(all_reduce[0] == "    AllReduce ");
  CHECK(all_reduce[2] == "    31.5/ 132.7 ");
  CHECK(all_reduce[3] == "   392.0/ 170.6 ");
  CHECK(all_reduce[4] == "    15.0/  50.1 ");
  CHECK(all_reduce[5] == "    40.6/ 194.9 ");
  CHECK(all_reduce[6] == "    56.0/ 211.9 ");
  CHECK(all_reduce[7] == "     0.0/   0.0 ");  // CollNet is off
  // AllGather: no tree; the ring takes p - 1 = 7 steps, 8.4 + 7 x 3.4 us at 370.8 x 8/7 GB/s.
  const std::vector<std::string> all_gather = cells(lines[4]);
  CHECK(all_gather[0] == "    AllGather ");
  CHECK(all_gather[3] == "     0.0/   0.0 ");
  CHECK(all_gather[6] == "    32.2/ 423.8 ");
  // NCCL_ALGO=^Ring: as in NCCL, the disabled pairs keep their latency with bandwidth 0.
  NcclModel no_ring = h100_node();
  no_ring.env.algorithms[std::size_t(NcclAlgorithm::Ring)] = NcclEnable::Off;
  CHECK(cells(nccl_tuning_table(no_ring)[6])[6] == "    56.0/   0.0 ");
  // From 2.23 NCCL has PAT, a seventh algorithm: a third block.
  const std::vector<std::string> newer = nccl_tuning_table(test::h100_node_model(22300));
  REQUIRE(newer.size() == 21);
  CHECK(newer[14].find("PAT") != std::string::npos);
}

TEST_CASE("nccl: the channels one call runs on", "[nccl]") {
  const auto calls = [](int version, Collective c, NcclAlgorithm a, Protocol p, Bytes bytes) {
    return nccl_call_channels(test::h100_node_model(version), c, a, p, bytes);  // 16 channels, 8 ranks
  };
  const auto ar = Collective::AllReduce;
  // Up to 2.19 the thread thresholds alone: channels drop while bytes < channels x threads x bytes a
  // thread. Ring LL: 512 threads x 8 B x 8 ranks = 32 KiB a channel.
  CHECK(calls(21900, ar, NcclAlgorithm::Ring, Protocol::LL, 8_B) == 1);
  CHECK(calls(21900, ar, NcclAlgorithm::Ring, Protocol::LL, 64_KiB) == 2);
  CHECK(calls(21900, ar, NcclAlgorithm::Ring, Protocol::LL, Bytes{300000}) == 9);  // 9 x 32768 <= 300000
  CHECK(calls(21900, ar, NcclAlgorithm::Ring, Protocol::LL, 1_MiB) == 16);
  // Tree LL128: 640 x 8 = 5120 B a channel; ring Simple: 512 x 64 = 32 KiB.
  CHECK(calls(21900, ar, NcclAlgorithm::Tree, Protocol::LL128, Bytes{40000}) == 7);
  CHECK(calls(21900, ar, NcclAlgorithm::Ring, Protocol::Simple, Bytes{100000}) == 3);
  // 2.20 and 2.21: each channel takes ceil(bytes / channels), rounded up to 16 B and then to the
  // protocol's alignment, until the bytes run out. Tree LL128 on 640 threads aligns to 20 warps x 480
  // B = 9600 B: 40000 B over 7 channels is 5715 -> 5728 -> 9600 B a channel, so 5 channels; 256 KiB
  // over 16 is 16384 -> 19200 B, so 14.
  CHECK(calls(22003, ar, NcclAlgorithm::Tree, Protocol::LL128, Bytes{40000}) == 5);
  CHECK(calls(22003, ar, NcclAlgorithm::Tree, Protocol::LL128, 256_KiB) == 14);
  CHECK(calls(22105, ar, NcclAlgorithm::Ring, Protocol::LL128, 512_KiB) == 14);  // 32768 -> 38400 B
  // Simple aligns to 4 KiB: 528 KiB over 16 channels is 33792 -> 36864 B a channel, so 15.
  CHECK(calls(22003, ar, NcclAlgorithm::Ring, Protocol::Simple, 528_KiB) == 15);
  CHECK(calls(21900, ar, NcclAlgorithm::Ring, Protocol::Simple, 528_KiB) == 16);
  // LL on 8 B: one channel, whose threads halve to 64 and are raised to 3 warps (768 B of alignment).
  CHECK(calls(22003, ar, NcclAlgorithm::Ring, Protocol::LL, 8_B) == 1);
  CHECK(calls(22003, ar, NcclAlgorithm::Ring, Protocol::LL, 64_KiB) == 2);  // 32 KiB each, aligned
  // 2.22: the planner's cells of 16 B, at least 512 B of traffic a channel. 40000 B of tree LL128 on
  // 7 channels: 80000 B of traffic, 11428 a channel, 358 cells of 32 each: 358 + 5 x 358 + 352 cells,
  // all 7 channels. 2.23.4's cells hold 16 KiB of traffic (8192 B): 5 cells, one a channel.
  CHECK(calls(22203, ar, NcclAlgorithm::Tree, Protocol::LL128, Bytes{40000}) == 7);
  CHECK(calls(22304, ar, NcclAlgorithm::Tree, Protocol::LL128, Bytes{40000}) == 5);
  CHECK(calls(22203, ar, NcclAlgorithm::Ring, Protocol::LL, 64_KiB) == 2);
  // From 2.23 the planner's cells. 2.25, 64 KiB ring LL on the 2 channels above: 128 KiB of traffic,
  // 64 KiB a channel, cells of 16 KiB of traffic (8 KiB of data): 4 cells each, 2 channels.
  CHECK(calls(22501, ar, NcclAlgorithm::Ring, Protocol::LL, 64_KiB) == 2);
  // 2.30: an LL cell counts 4 x its traffic and holds 32 KiB of it (4 KiB of data, 16 cells), while a
  // channel's share stays 64 KiB: 2 cells each, 8 channels (NCCL spreads small LL calls wider).
  CHECK(calls(23007, ar, NcclAlgorithm::Ring, Protocol::LL, 64_KiB) == 8);
  CHECK(calls(23007, ar, NcclAlgorithm::Ring, Protocol::LL, 8_B) == 1);
  CHECK(calls(23007, ar, NcclAlgorithm::Ring, Protocol::Simple, 16_MiB) == 16);
  // An allgather's cells count its per-rank part (1 MiB of 8) at 8 x 4 traffic a byte: 1,024 cells,
  // 16 a channel's share, more than 16 channels hold, so all 16 (the planner's overflow rule).
  CHECK(calls(23007, Collective::AllGather, NcclAlgorithm::Ring, Protocol::LL, 8_MiB) == 16);
  // CollNet Direct runs on every channel.
  CHECK(calls(23007, ar, NcclAlgorithm::CollNetDirect, Protocol::Simple, 8_B) == 16);
}

TEST_CASE("nccl: a DGX H100's per-call channels as NCCL 2.30.7 logs them", "[nccl]") {
  // Published NCCL_DEBUG_SUBSYS=TUNING lines of all_reduce_perf on one 8x H100 node, NCCL 2.30.7
  // (blog post "Inside NCCL's all-reduce: ring, double binary tree, or neither?", 2026-08-02):
  // 4096 B RING LL {0..0}, 1 MiB RING LL {0..23}, 2 MiB NVLS SIMPLE {0..15}.
  const Topology t = template_cluster(NodeTemplate::DgxH100, 1);
  NcclEnv env;
  set_nccl_env(env, "version", "2.30.7");
  const NcclModel m = nccl_model(t, t.gpus(), env);
  REQUIRE(m.channels == 24);
  const auto line = [&](Bytes b) { return nccl_choice_line(m, Collective::AllReduce, b, nccl_choose(m, Collective::AllReduce, b)); };
  CHECK(line(4_KiB) == "AllReduce: 4096 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}");
  CHECK(line(1_MiB) == "AllReduce: 1048576 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..23}");
  CHECK(line(2_MiB) == "AllReduce: 2097152 Bytes -> Algo NVLS proto SIMPLE channel{Lo..Hi}={0..15}");
}

TEST_CASE("nccl: the NVLS CTAs a call runs on, as NCCL logs them", "[nccl]") {
  // NVLS and NVLS-Tree run on NCCL's NVLS CTAs (16 on Hopper), and from 2.20 the planner splits a
  // call over them as it does over ring channels; NVLS across nodes is a CollNet task and takes all.
  const auto logged = [](int nodes, const char* version, const char* algo, Bytes bytes) {
    const Topology t = template_cluster(NodeTemplate::DgxH100, nodes);
    NcclEnv env;
    set_nccl_env(env, "version", version);
    set_nccl_env(env, "NCCL_ALGO", algo);
    const NcclModel m = nccl_model(t, t.gpus(), env);
    const NcclChoice choice = nccl_choose(m, Collective::AllReduce, bytes);
    CHECK(choice.nccl_algorithm == (nodes == 1 ? NcclAlgorithm::Nvls : NcclAlgorithm::NvlsTree));
    const std::string line = nccl_choice_line(m, Collective::AllReduce, bytes, choice);
    CHECK(line.substr(line.find("channel")) == "channel{Lo..Hi}={0.." + std::to_string(choice.logged_channels - 1) + "}");
    return choice.logged_channels;
  };
  // 2.30: 2 MiB as NCCL logs it on a DGX H100; 128 KiB is 256 KiB of traffic, 16 KiB a CTA's share,
  // in cells of 32 KiB of traffic: 8 cells, one a CTA.
  CHECK(logged(1, "2.30.7", "NVLS", 2_MiB) == 16);
  CHECK(logged(1, "2.30.7", "NVLS", 128_KiB) == 8);
  CHECK(logged(2, "2.30.7", "NVLSTree", 128_KiB) == 8);
  // 2.26: cells of 16 KiB of traffic, at least 16 KiB a CTA: 128 KiB fills 16, 32 KiB 4.
  CHECK(logged(1, "2.26.2", "NVLS", 128_KiB) == 16);
  CHECK(logged(1, "2.26.2", "NVLS", 32_KiB) == 4);
  // 2.21: 32 KiB / 16 = 2 KiB, aligned to Simple's 4 KiB: 8 CTAs. 2.19 uses all 16.
  CHECK(logged(1, "2.21.5", "NVLS", 32_KiB) == 8);
  CHECK(logged(1, "2.19.3", "NVLS", 32_KiB) == 16);
  // NVLS across nodes (over SHARP) is a CollNet task: all its CTAs, from 2.28.3 at most nChannels.
  const auto across = [](int version) {
    NcclModel m = h100_four_nodes();  // 4 channels
    m.env.version = version;
    m.collnet = true;
    m.nvls = true;
    for (NcclAlgorithm a : {NcclAlgorithm::Tree, NcclAlgorithm::Ring, NcclAlgorithm::CollNetDirect,
                            NcclAlgorithm::CollNetChain, NcclAlgorithm::NvlsTree, NcclAlgorithm::Pat})
      m.env.algorithms[std::size_t(a)] = NcclEnable::Off;
    const NcclChoice choice = nccl_choose(m, Collective::AllReduce, 1_MiB);
    CHECK(choice.nccl_algorithm == NcclAlgorithm::Nvls);
    return choice.logged_channels;
  };
  CHECK(across(22803) == 4);
  CHECK(across(22705) == 16);
}

TEST_CASE("nccl: the line NCCL logs per call names the algorithm, protocol, bytes and channels", "[nccl]") {
  const NcclModel m = h100_node();
  // 1 GiB: ring Simple (211.9 GB/s) beats the tree (170.6) on one node; 16 channels.
  CHECK(nccl_choice_line(m, Collective::AllReduce, 1_GiB, nccl_choose(m, Collective::AllReduce, 1_GiB)) ==
        "AllReduce: 1073741824 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..15}");
  // 4 KiB: LL (15 us of latency against LL128's 40.6 and Simple's 56), on one channel: 4096 B are
  // fewer than 2 channels x 512 threads x 8 x 8 ranks bytes (see "the channels one call runs on").
  CHECK(nccl_choice_line(m, Collective::AllReduce, 4_KiB, nccl_choose(m, Collective::AllReduce, 4_KiB)) ==
        "AllReduce: 4096 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}");
  // NVLS runs on NCCL's NVLS CTAs, 16 on Hopper (NCCL_NVLS_NCHANNELS), whatever ringlab's head count.
  NcclModel nvls = m;
  nvls.nvls = true;
  const NcclChoice bulk = nccl_choose(nvls, Collective::AllReduce, 1_GiB);
  REQUIRE(bulk.nccl_algorithm == NcclAlgorithm::Nvls);
  CHECK(nccl_choice_line(nvls, Collective::AllReduce, 1_GiB, bulk) ==
        "AllReduce: 1073741824 Bytes -> Algo NVLS proto SIMPLE channel{Lo..Hi}={0..15}");
  // NCCL counts an allgather's bytes per rank (sendcount x type size): 8 MiB over 8 ranks is 1 MiB.
  const NcclChoice gather = nccl_choose(m, Collective::AllGather, 8_MiB);
  CHECK(nccl_choice_line(m, Collective::AllGather, 8_MiB, gather).rfind("AllGather: 1048576 Bytes -> Algo RING", 0) == 0);
}

TEST_CASE("nccl: the hosts' CPU vendor picks NCCL's network overhead and multi-node LL cap", "[nccl]") {
  // tuning.cc getNetOverhead(): 1 us on x86 Intel and any other CPU, 2 us on x86 AMD; llMaxBws row
  // for more than one node: 1 for AMD (and MIXED, 2.28), else 0 (4+ nodes: 20.4 GB/s, row 1 19.0).
  NcclModel intel = h100_four_nodes();
  intel.inter = 400_GBps;  // so that the LL cap binds
  NcclModel amd = intel, arm = intel, mixed = intel;
  amd.cpu_vendor = CpuVendor::Amd;
  arm.cpu_vendor = CpuVendor::Other;
  mixed.cpu_vendor.reset();
  auto ring = [](const NcclModel& m, Protocol p) {
    return row(nccl_estimates(m, Collective::AllReduce, 8_B), NcclAlgorithm::Ring, p);
  };
  // 54 of the 62 ring steps stay in the node and pay max(hwLat[NVLink], net overhead): LL 0.6
  // against 1 or 2 us; Simple 3.4 against 3 x 1 or 3 x 2 us.
  const double intel_ll = ring(intel, Protocol::LL).latency.microseconds();
  CHECK(ring(amd, Protocol::LL).latency.microseconds() - intel_ll == Approx(54 * (2.0 - 1.0)));
  CHECK(ring(amd, Protocol::Simple).latency.microseconds() - ring(intel, Protocol::Simple).latency.microseconds() ==
        Approx(54 * (6.0 - 3.4)));
  CHECK(ring(arm, Protocol::LL).latency.microseconds() == Approx(intel_ll));
  CHECK(ring(mixed, Protocol::LL).latency.microseconds() == Approx(intel_ll));
  // LL's busBw: min(llMaxBw, a share of the channels' 4 x 370.8/4 GB/s, far above it), algBw = busBw x 32/62.
  CHECK(ring(intel, Protocol::LL).bandwidth.gigabytes_per_second() == Approx(20.4 * 32 / 62));
  CHECK(ring(arm, Protocol::LL).bandwidth.gigabytes_per_second() == Approx(20.4 * 32 / 62));
  CHECK(ring(amd, Protocol::LL).bandwidth.gigabytes_per_second() == Approx(19.0 * 32 / 62));
  CHECK(ring(mixed, Protocol::LL).bandwidth.gigabytes_per_second() == Approx(19.0 * 32 / 62));
  // Read off the hosts: two DGX A100 (2x EPYC 7742) are AMD; an AMD and an Intel host are mixed.
  ClusterSpec spec;
  spec.nodes = 2;
  spec.node = node_template(NodeTemplate::DgxA100);
  spec.fabric.kind = FabricKind::SingleSwitch;
  Topology t = make_cluster(spec);
  CHECK(nccl_model(t, t.gpus(), NcclEnv{}).cpu_vendor == CpuVendor::Amd);
  t.set_cpu_vendor(1, CpuVendor::Intel);
  CHECK_FALSE(nccl_model(t, t.gpus(), NcclEnv{}).cpu_vendor.has_value());
}

TEST_CASE("nccl: the report's one-line summary of what NCCL's model sees", "[nccl]") {
  // One H100 node: 18 NVLink4 links at NCCL's 20.6 GB/s (topo.h SM90_NVLINK_BW) = 370.8 GB/s.
  CHECK(nccl_model_summary(test::h100_node_model()) ==
        "1 node x 8 h100 (sm 90), NVLink 370.8 GB/s per GPU through NVSwitch, intel CPUs, 16 channels, "
        "tuning tables of 2.30");
  // Two hand-built HGX hosts (an NVSwitch that does not reduce) of 8 NDR NICs each, on AMD CPUs,
  // under 2.23.4's tables.
  std::vector<DeviceId> gpus;
  Topology two = hgx_hosts(2, gpus);
  two.set_cpu_vendor(0, CpuVendor::Amd);
  two.set_cpu_vendor(1, CpuVendor::Amd);
  NcclEnv env;
  env.version = 22304;
  CHECK(nccl_model_summary(nccl_model(two, gpus, env)) ==
        "2 nodes x 8 h100 (sm 90), NVLink 370.8 GB/s per GPU through NVSwitch, 8 NICs 400.0 GB/s out of each "
        "node, amd CPUs, "
        "16 channels, tuning tables of 2.23");
  // Ranks that do not fill their nodes evenly, on mixed vendors, on a PCIe GPU without a name.
  NcclModel odd;
  odd.ranks = 3;
  odd.nodes = 2;
  odd.channels = 2;
  odd.intra = 24_GBps;
  odd.nics = 1;
  odd.inter = 12.5_GBps;
  odd.cpu_vendor.reset();
  CHECK(nccl_model_summary(odd) ==
        "3 ranks on 2 nodes, generic (sm 80), PCIe 24.0 GB/s per GPU, 1 NIC 12.5 GB/s out of each node, mixed CPU "
        "vendors, 2 channels, tuning tables of 2.30");
}

namespace {

/// Two nodes of `gpus` NVLink-joined GPUs (`model`), `cpus` sockets, `switches` PCIe switches (0:
/// GPUs and NICs on the CPUs) and `nics` NICs, one Ethernet switch between them.
Topology two_nvlink_nodes(GpuModel model, int cpus, int switches, int nics, int gpus = 2) {
  ClusterSpec spec;
  spec.nodes = 2;
  spec.node.gpus = gpus;
  spec.node.gpu_model = model;
  spec.node.gpu_interconnect = GpuInterconnect::AllToAll;
  spec.node.nvlink = gpu_spec(model).nvlink;
  spec.node.nvlinks = gpu_spec(model).nvlinks;
  spec.node.cpus = cpus;
  spec.node.pcie_switches = switches;
  spec.node.nics = nics;
  spec.fabric.kind = FabricKind::SingleSwitch;
  return make_cluster(spec);
}

bool has_ll128(const NcclModel& m) {
  const auto rows = nccl_estimates(m, Collective::AllReduce, 1_MiB);
  return std::any_of(rows.begin(), rows.end(), [](const NcclEstimate& e) { return e.protocol == Protocol::LL128; });
}

}  // namespace

TEST_CASE("nccl: LL128 needs the GPU-NIC path (typeInter) within PXB, PXN from sm 9.0", "[nccl]") {
  // Each GPU's own PCIe switch holds a NIC: PIX.
  Topology t = two_nvlink_nodes(GpuModel::A100, 1, 2, 2);
  NcclModel m = nccl_model(t, t.gpus());
  CHECK(m.net_path == NcclPath::Pix);
  CHECK(has_ll128(m));
  // One NIC on one switch: GPU 0 reaches it at PIX, and NCCL's graph enters by that GPU.
  t = two_nvlink_nodes(GpuModel::A100, 1, 2, 1);
  CHECK(nccl_model(t, t.gpus()).net_path == NcclPath::Pix);
  // GPUs and the NIC straight on the CPU: PHB, no LL128 on Ampere or Hopper (PHB is past PXN).
  t = two_nvlink_nodes(GpuModel::A100, 1, 0, 1);
  m = nccl_model(t, t.gpus());
  CHECK(m.net_path == NcclPath::Phb);
  CHECK_FALSE(has_ll128(m));
  CHECK(nccl_model_summary(m).find("GPU to NIC PHB") != std::string::npos);
  t = two_nvlink_nodes(GpuModel::H100, 1, 0, 1);
  m = nccl_model(t, t.gpus());
  REQUIRE(m.net_path == NcclPath::Phb);
  CHECK_FALSE(has_ll128(m));
  // Two sockets, a GPU and a NIC on each: every NIC has a GPU on its own CPU, PHB. Four GPUs, two on
  // each socket, of which only the first socket's are ranks: NIC 1 is across the sockets, SYS.
  t = two_nvlink_nodes(GpuModel::A100, 2, 0, 2);
  CHECK(nccl_model(t, t.gpus()).net_path == NcclPath::Phb);
  t = two_nvlink_nodes(GpuModel::A100, 2, 0, 2, 4);
  std::vector<DeviceId> first_socket;
  for (DeviceId g : t.gpus())
    if (t.device(g).local_index < 2) first_socket.push_back(g);
  REQUIRE(first_socket.size() == 4);
  CHECK(nccl_model(t, first_socket).net_path == NcclPath::Sys);
  CHECK(nccl_model(t, t.gpus()).net_path == NcclPath::Phb);
  // The rule by release, on a PXN path: Hopper keeps LL128 but in 2.27.3 (within P2C there), Ampere
  // never; PXB passes everywhere.
  t = two_nvlink_nodes(GpuModel::H100, 1, 2, 2);
  m = nccl_model(t, t.gpus());
  REQUIRE(has_ll128(m));
  m.net_path = NcclPath::Pxn;
  for (const int version : {21805, 22604, 0}) {
    m.env.version = version;
    CHECK(has_ll128(m));
  }
  m.env.version = 22703;
  CHECK_FALSE(has_ll128(m));
  m.net_path = NcclPath::Pxb;
  CHECK(has_ll128(m));
  t = two_nvlink_nodes(GpuModel::A100, 1, 2, 2);
  m = nccl_model(t, t.gpus());
  m.net_path = NcclPath::Pxn;
  CHECK_FALSE(has_ll128(m));
  m.net_path = NcclPath::Pxb;
  CHECK(has_ll128(m));
}

TEST_CASE("nccl: the channels across nodes follow NCCL's search on the NICs and its postset doublings", "[nccl]") {
  const auto channels = [](NodeTemplate tmpl, int gpus, int nics, const char* version) {
    const Topology t = template_cluster(tmpl, 2, [&](NodeSpec& node) {
      if (gpus == 0) return;
      node.gpus = gpus;
      node.nics = nics;
      node.gpu_interconnect = GpuInterconnect::None;
      node.pcie_switches = 1;
    });
    NcclEnv env;
    if (*version) set_nccl_env(env, "version", version);
    return nccl_model(t, t.gpus(), env).channels;
  };
  // Two DGX H100: the ring graph is 8 channels at 48 GB/s (one per NDR NIC), doubled at connection
  // to 16; Hopper's rule for rings above 45 GB/s doubles again in 2.18-2.19 (2 x 16 <= 32), as a
  // published NCCL 2.19.3 log of two HGX H100 nodes shows ("32 coll channels",
  // tests/data/fidelity/crusoe-h100-2node-ib-k3s-ring), but only below 16 channels from 2.20.3.
  CHECK(channels(NodeTemplate::DgxH100, 0, 0, "2.19.3") == 32);
  CHECK(channels(NodeTemplate::DgxH100, 0, 0, "2.20.3") == 16);
  CHECK(channels(NodeTemplate::DgxH100, 0, 0, "") == 16);
  // Two DGX A100: 8 x 24 GB/s (HDR NICs behind PCIe gen4), not duplicated, 16 after connection.
  CHECK(channels(NodeTemplate::DgxA100, 0, 0, "") == 16);
  // One H100 and one 400 Gb/s NIC per node: 1 x 48 duplicated to 2 x 24, 4 after connection, and
  // at 24 GB/s Hopper's rule does not apply.
  CHECK(channels(NodeTemplate::GcpA3Ultra, 1, 1, "") == 4);
  // EFA with more NICs than GPUs (p5: 32 x 100 Gb/s for 8 H100): aws-ofi-nccl's RDMA protocol shows
  // NCCL one device of 4 rails per GPU (50 GB/s, 48 on the GPU's PCIe gen5), so NCCL sees a DGX H100's
  // 8 x 48 graph. With fewer NICs than GPUs (p4de: 4 x 100 Gb/s for 8 A100) each NIC is a device:
  // 4 rings at 12 GB/s (totalBw 240: 6 fits twice per NIC, 8 x 6 is not more; 5 / 12 < .49 stops),
  // 8 after connection.
  CHECK(channels(NodeTemplate::AwsP5, 0, 0, "2.18.5") == 32);
  CHECK(channels(NodeTemplate::AwsP5, 0, 0, "") == 16);
  CHECK(channels(NodeTemplate::AwsP4de, 0, 0, "") == 8);
}

TEST_CASE("nccl: the tree graph's bwIntra is the ring graph's speed raised by search pass 2", "[nccl]") {
  // ncclTopoCompute pass 2 for trees: from the ring speed, the next faster speed of the inter array
  // while bwIntra is below twice bwInter and each GPU's NVLink carries channels - channels/gpus chains.
  const auto tree_intra = [](NodeTemplate tmpl, int gpus) {
    const Topology t = template_cluster(tmpl, 2, [&](NodeSpec& node) {
      if (gpus > 0) node.gpus = node.nics = gpus;
    });
    const NcclModel m = nccl_model(t, t.gpus(), NcclEnv{});
    CHECK(m.ring_graph_gbytes > 0.0);
    return m.tree_graph_intra_gbytes;
  };
  // DGX H100: 8 x 48 GB/s, and 48 is the fastest of Hopper's speeds.
  CHECK(tree_intra(NodeTemplate::DgxH100, 0) == Approx(48.0));
  // DGX A100: 8 x 24; 28 (7 x 28 = 196) and 30 (210) fit 240 GB/s of NVLink, 48 (336) does not.
  CHECK(tree_intra(NodeTemplate::DgxA100, 0) == Approx(30.0));
  // DGX B200: 8 x 48; Blackwell's 96 fits (7 x 96 = 672 <= 721.8) and is twice 48: no further.
  CHECK(tree_intra(NodeTemplate::DgxB200, 0) == Approx(96.0));
  // One H100 a node: 2 x 24 after duplication; no NVLink between GPUs to load, so 30, 40, 42, 45
  // and 48, where it reaches twice 24.
  CHECK(tree_intra(NodeTemplate::DgxH100, 1) == Approx(48.0));
}

TEST_CASE("nccl: a 72-GPU NVLink domain counts its rings on its NICs as any host does", "[nccl]") {
  // Two GB200 NVL72 racks (MNNVL: each NVLink domain of 18 trays is one NCCL node of 72 GPUs and 72
  // NDR NICs). Blackwell's fastest speed that the NICs allow is 48 GB/s, and a GPU's NVLink (721.8
  // GB/s) carries r - r/72 rings at it: 15 (15 x 48 = 720). At 45.1 GB/s it carries 16, and 16 x 45.1
  // = 721.6 beats 720, so the search keeps 16 rings at 45.1 (42 x 17 = 714 does not pay); at 45.1 GB/s
  // ncclTopoDupChannels does not duplicate (below 50 above sm 8.0, with more than 4 channels). 32 after
  // connection; Hopper's doubling wants fewer than 16.
  const Topology t = template_cluster(NodeTemplate::Gb200Nvl72, 36);
  const NcclModel m = nccl_model(t, t.gpus(), NcclEnv{});
  REQUIRE(m.nodes == 2);
  CHECK(m.graph_channels == 16);
  CHECK(m.ring_graph_gbytes == Approx(45.1));
  CHECK(m.channels == 32);
}

TEST_CASE("nccl: CollNet adds half the channels again at connection where the chain's NVLink allows", "[nccl]") {
  // ncclTopoPostset: with CollNet on, comm->nChannels grows from n to n + n/2 where the chain graph's
  // bwIntra exceeds its bwInter and a node holds more than one rank; before Hopper's doubling, which
  // applies below 16 channels only (from 2.20.3) or while twice the count fits 32 (2.18-2.19).
  const auto channels = [](NodeTemplate tmpl, int gpus, bool collnet, const char* version) {
    ClusterSpec spec;
    spec.nodes = 2;
    spec.node = node_template(tmpl);
    if (gpus > 0) spec.node.gpus = spec.node.nics = gpus;
    spec.fabric.kind = FabricKind::SingleSwitch;
    spec.fabric.in_network_reduction = true;  // SHARP
    const Topology t = make_cluster(spec);
    NcclEnv env;
    if (*version) set_nccl_env(env, "version", version);
    if (collnet) set_nccl_env(env, "NCCL_COLLNET_ENABLE", "1");
    return nccl_model(t, t.gpus(), env).channels;
  };
  // Two DGX A100: 8 graph channels at 24 GB/s, 16 after connection; NVLink 240 / 8 = 30 > 24: 24.
  CHECK(channels(NodeTemplate::DgxA100, 0, false, "") == 16);
  CHECK(channels(NodeTemplate::DgxA100, 0, true, "") == 24);
  // Two DGX H100: 8 x 48, 16 after connection; 48 GB/s is the fastest speed of Hopper's inter array,
  // so pass 2 cannot raise bwIntra and the count stays as without CollNet (16; 32 under 2.19.3).
  CHECK(channels(NodeTemplate::DgxH100, 0, true, "") == 16);
  CHECK(channels(NodeTemplate::DgxH100, 0, true, "2.19.3") == 32);
  // Two DGX B200: 8 x 48, 16 after connection (Hopper's rule wants fewer); Blackwell's array has 96
  // above 48, and 7 chains of 96 GB/s fit a B200's 721.8 GB/s of NVLink: 24.
  CHECK(channels(NodeTemplate::DgxB200, 0, false, "") == 16);
  CHECK(channels(NodeTemplate::DgxB200, 0, true, "") == 24);
  // One GPU a node: "except the 1 PPN case".
  CHECK(channels(NodeTemplate::DgxA100, 1, true, "") == channels(NodeTemplate::DgxA100, 1, false, ""));
}

TEST_CASE("nccl: the tuning caps bandwidth per graph channel, not per connected channel", "[nccl]") {
  // Two DGX A100: the graph's 8 channels (one per HDR NIC) become 16 at connection, but tuning.cc
  // caps the tree at perChMaxTreeBws[Ampere][N2] 23.6 GB/s x graphs[TREE]->nChannels: busBw =
  // min(0.92 x 240, 8 x 23.6) = 188.8 GB/s, algBw half of it.
  const Topology t = template_cluster(NodeTemplate::DgxA100, 2);
  const NcclModel m = nccl_model(t, t.gpus());
  CHECK(m.graph_channels == 8);
  CHECK(m.channels == 16);
  const NcclEstimate tree = row(nccl_estimates(m, Collective::AllReduce, 1_GiB), NcclAlgorithm::Tree, Protocol::Simple);
  CHECK(tree.bandwidth.bytes_per_second() == Approx(0.5 * 8 * 23.6e9));
}

TEST_CASE("nccl: a calibration's latency factors scale NCCL's baseLat, intra-node and network hop rows", "[nccl]") {
  // Four H100 nodes (above) with base x2, intra-node hops x3, network hops x0.5.
  NcclModel m = h100_four_nodes();
  m.env.version = 21900;
  m.env.latency_factors = NcclLatencyFactors{2.0, 3.0, 0.5};
  const std::vector<NcclEstimate> rows = nccl_estimates(m, Collective::AllReduce, 8_B);
  // Ring/Simple: 2 x 8.4 + 54 x max(3 x 3.4, 0.5 x 3 x 1 us overhead) + 8 x 0.5 x 14.
  CHECK(row(rows, NcclAlgorithm::Ring, Protocol::Simple).latency.microseconds() ==
        Approx(2 * 8.4 + 54 * 3 * 3.4 + 8 * 0.5 * 14.0));
  // Tree/LL: 2 x 6.8 + 2 x (7 x 3 x 0.6 + log2(4) x 0.5 x 5.0).
  CHECK(row(rows, NcclAlgorithm::Tree, Protocol::LL).latency.microseconds() ==
        Approx(2 * 6.8 + 2 * (7 * 3 * 0.6 + 2 * 0.5 * 5.0)));
  // Tree/Simple (baseLat 0): 2 x (7 x 3 x 28 + 2 x 0.5 x 28).
  CHECK(row(rows, NcclAlgorithm::Tree, Protocol::Simple).latency.microseconds() ==
        Approx(2 * (7 * 3 * 28.0 + 2 * 0.5 * 28.0)));
  // The chosen pair's per-hop latency across nodes is the network row's, scaled.
  const NcclChoice scaled = nccl_choose(m, Collective::AllReduce, 1_GiB);
  CHECK_THAT(nccl_model_summary(m), Catch::EndsWith("latencies calibrated (base x2.00, intra-node hops x3.00, network hops x0.50)"));
  m.env.latency_factors = {};  // all 1: NCCL's own numbers (the tests above)
  const NcclChoice own = nccl_choose(m, Collective::AllReduce, 1_GiB);
  REQUIRE(scaled.name == own.name);
  CHECK_THAT(nccl_model_summary(m), !Catch::Contains("calibrated"));
  CHECK(scaled.step_latency.microseconds() == Approx(0.5 * own.step_latency.microseconds()));
  CHECK(row(nccl_estimates(m, Collective::AllReduce, 8_B), NcclAlgorithm::Tree, Protocol::LL).latency.microseconds() ==
        Approx(6.8 + 2 * (7 * 0.6 + 2 * 5.0)));
}
