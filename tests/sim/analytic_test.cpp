// Simulated collective times against their alpha-beta closed forms on contention-free topologies,
// with compute switched off (Calibration::pure(), model_compute = false).
//
// Links are Custom with B = 100 Gb/s (one byte every 80 ps), hop latency l and per-message overhead
// o, so every step's time is a whole number of picoseconds and results match to 1e-9 relative.
// A message on a route of h hops costs alpha = o + h*l (the simulator charges the largest overhead
// on the route once and every hop's latency), then bytes / B.
//   star:      p single-GPU hosts, GPU - NIC - leaf - NIC - GPU (h = 4); ring neighbours and
//              halving-doubling partners use disjoint link directions.
//   full mesh: a direct link between every pair of GPUs (h = 1); also the tree's and direct's
//              concurrent messages each get a link of their own.
#include <catch2/catch.hpp>

#include <cmath>

#include "collective_fixtures.hpp"
#include "ringlab/sim/collectives.hpp"
#include "ringlab/sim/simulator.hpp"
#include "ringlab/topology/generators.hpp"

using namespace ringlab;
using namespace ringlab::sim;
using namespace ringlab::literals;
using ringlab::test::Cluster;

namespace {

constexpr Bandwidth kB = 100_Gbps;
constexpr Duration kLatency = 1_us;
constexpr Duration kOverhead = 2_us;
constexpr std::int64_t kFp32 = 4;

SimOptions no_compute() {
  SimOptions o;
  o.calibration = Calibration::pure();
  o.calibration.model_compute = false;
  return o;
}

Result simulate(const Cluster& c, const CollectiveSpec& spec) {
  const Schedule s = build_schedule(c.topology, c.gpus, spec);
  REQUIRE(s.check().empty());
  Simulator sim(c.topology, no_compute());
  return sim.run(s);
}

CollectiveSpec allreduce(Algorithm a, Bytes n) {
  CollectiveSpec s;
  s.algorithm = a;
  s.message = n;
  return s;
}

/// Seconds to move `bytes` at B.
double wire(double bytes) { return bytes * 8.0 / kB.bits_per_second(); }

}  // namespace

TEST_CASE("ring allreduce, star of p hosts: 2(p-1)*alpha + 2(p-1)/p*N/B", "[analytic]") {
  const int p = GENERATE(2, 3, 4, 8);
  const Cluster c = test::leaf_cluster(p, 1, kB, kLatency, kOverhead);
  const Bytes n{std::int64_t(p) * kFp32 * 32768};
  const double alpha = (kOverhead + 4 * kLatency).seconds();
  const double expected = 2.0 * (p - 1) * alpha + 2.0 * (p - 1) / p * wire(double(n.count()));
  const Result r = simulate(c, allreduce(Algorithm::Ring, n));
  CHECK(r.time.seconds() == Approx(expected).epsilon(1e-9));
}

TEST_CASE("ring allreduce, full mesh: one hop per step", "[analytic]") {
  const int p = GENERATE(3, 4, 8);
  const Cluster c = test::full_mesh(p, kB, kLatency, kOverhead);
  const Bytes n{std::int64_t(p) * kFp32 * 1000};
  const double alpha = (kOverhead + kLatency).seconds();
  const Result r = simulate(c, allreduce(Algorithm::Ring, n));
  CHECK(r.time.seconds() == Approx(2.0 * (p - 1) * (alpha + wire(double(n.count()) / p))).epsilon(1e-9));
}

TEST_CASE("ring allreduce without latency: busbw equals the link bandwidth", "[analytic]") {
  const int p = GENERATE(2, 4, 8);
  const Cluster c = test::leaf_cluster(p, 1, kB, Duration{}, Duration{});
  const Result r = simulate(c, allreduce(Algorithm::Ring, Bytes{std::int64_t(p) * kFp32 * 65536}));
  CHECK(r.busbw().bits_per_second() == Approx(kB.bits_per_second()).epsilon(1e-9));
}

TEST_CASE("pipelined chain broadcast: (p-1 + k-1)*(alpha + c/B) for k pieces of c bytes", "[analytic]") {
  // A connection carries one piece at a time; piece j leaves hop h after (j + h + 1) slots.
  const int p = GENERATE(2, 4, 8);
  const int k = 8;
  const Cluster c = test::full_mesh(p, kB, kLatency, kOverhead);
  const Bytes chunk{kFp32 * 1024};
  CollectiveSpec spec = allreduce(Algorithm::Ring, chunk * k);
  spec.collective = Collective::Broadcast;
  spec.chunk = chunk;
  const double slot = (kOverhead + kLatency).seconds() + wire(double(chunk.count()));
  const Result r = simulate(c, spec);
  CHECK(r.time.seconds() == Approx((p - 1 + k - 1) * slot).epsilon(1e-9));
}

TEST_CASE("chunked ring allreduce: each connection sends its 2(p-1)k pieces back to back", "[analytic]") {
  // Every link of the ring is busy in every step, so pieces cannot overlap there: the bandwidth term
  // is unchanged and each of the 2(p-1)k pieces pays alpha once.
  const int p = 4;
  const int k = 8;
  const Cluster c = test::full_mesh(p, kB, kLatency, kOverhead);
  const Bytes chunk{kFp32 * 1024};
  CollectiveSpec spec = allreduce(Algorithm::Ring, chunk * (p * k));
  spec.chunk = chunk;
  const double slot = (kOverhead + kLatency).seconds() + wire(double(chunk.count()));
  const Result r = simulate(c, spec);
  CHECK(r.time.seconds() == Approx(2.0 * (p - 1) * k * slot).epsilon(1e-9));
}

TEST_CASE("halving-doubling allreduce: 2 log2(p)*alpha + 2(p-1)/p*N/B", "[analytic]") {
  const int p = GENERATE(2, 4, 8);
  const int log2p = int(std::lround(std::log2(p)));
  const Bytes n{std::int64_t(p) * kFp32 * 4096};
  SECTION("star") {
    const Cluster c = test::leaf_cluster(p, 1, kB, kLatency, kOverhead);
    const double alpha = (kOverhead + 4 * kLatency).seconds();
    const Result r = simulate(c, allreduce(Algorithm::HalvingDoubling, n));
    CHECK(r.time.seconds() == Approx(2.0 * log2p * alpha + 2.0 * (p - 1) / p * wire(double(n.count()))).epsilon(1e-9));
  }
  SECTION("full mesh") {
    const Cluster c = test::full_mesh(p, kB, kLatency, kOverhead);
    const double alpha = (kOverhead + kLatency).seconds();
    const Result r = simulate(c, allreduce(Algorithm::HalvingDoubling, n));
    CHECK(r.time.seconds() == Approx(2.0 * log2p * alpha + 2.0 * (p - 1) / p * wire(double(n.count()))).epsilon(1e-9));
  }
}

TEST_CASE("direct allreduce: 2*(alpha + N/(pB)) on a full mesh, 2*(alpha + (p-1)N/(pB)) on a star", "[analytic]") {
  const int p = GENERATE(3, 4, 8);
  const Bytes n{std::int64_t(p) * kFp32 * 2048};
  SECTION("full mesh: every block has a link of its own") {
    const Cluster c = test::full_mesh(p, kB, kLatency, kOverhead);
    const double alpha = (kOverhead + kLatency).seconds();
    const Result r = simulate(c, allreduce(Algorithm::Direct, n));
    CHECK(r.time.seconds() == Approx(2.0 * (alpha + wire(double(n.count()) / p))).epsilon(1e-9));
  }
  SECTION("star: p-1 blocks share each NIC link") {
    const Cluster c = test::leaf_cluster(p, 1, kB, kLatency, kOverhead);
    const double alpha = (kOverhead + 4 * kLatency).seconds();
    const Result r = simulate(c, allreduce(Algorithm::Direct, n));
    CHECK(r.time.seconds() == Approx(2.0 * (alpha + (p - 1) * wire(double(n.count()) / p))).epsilon(1e-9));
  }
}

TEST_CASE("double binary tree allreduce, full mesh: 2*height*(alpha + N/(2B))", "[analytic]") {
  // p = 2: each tree is one edge (height 1). p = 4: tree 0 is 0 <- 2 <- {1, 3}, tree 1 its mirror
  // 3 <- 1 <- {2, 0} (height 2); the trees never use the same link direction in the same level.
  const int p = GENERATE(2, 4);
  const int height = p == 2 ? 1 : 2;
  const Cluster c = test::full_mesh(p, kB, kLatency, kOverhead);
  const Bytes n{std::int64_t(p) * kFp32 * 4096};
  const double alpha = (kOverhead + kLatency).seconds();
  const Result r = simulate(c, allreduce(Algorithm::Tree, n));
  CHECK(r.time.seconds() == Approx(2.0 * height * (alpha + wire(double(n.count()) / 2))).epsilon(1e-9));
}

TEST_CASE("in_network allreduce, SHARP leaf: alpha up + N/B + alpha down + N/B", "[analytic]") {
  // GPU - NIC - leaf is 2 hops each way; the leaf aggregates at line rate once all N arrived.
  const int p = 4;
  const Cluster c = test::leaf_cluster(p, 1, kB, kLatency, kOverhead, true);
  const Bytes n{kFp32 * 8192};
  const double alpha = (kOverhead + 2 * kLatency).seconds();
  const Result r = simulate(c, allreduce(Algorithm::InNetwork, n));
  CHECK(r.time.seconds() == Approx(2.0 * (alpha + wire(double(n.count())))).epsilon(1e-9));
}

TEST_CASE("in_network allreduce, SHARP on leaves and spines: an aggregation tree, each uplink carries N once",
          "[analytic]") {
  // 4 one-GPU nodes, 2 per leaf, 200 Gb/s HDR everywhere (each leaf has one 25 GB/s port to each of 2
  // spines). The root is a spine (4 hops from every GPU; a leaf is 5 from the far ones). Each leaf
  // sums its 2 nodes and sends N up once; the spine sums the 2 leaves and sends N down each leaf once.
  // Four stages of N/k at 25 GB/s on distinct link directions, each connection one piece at a time:
  // k pieces take (k + 3) N / (k B). Sending to the spine directly would put 2N on each uplink.
  ClusterSpec spec;
  spec.nodes = 4;
  spec.node.gpus = 1;
  spec.node.nics = 1;
  spec.node.nic = LinkKind::IbHdr;
  spec.fabric.kind = FabricKind::LeafSpine;
  spec.fabric.nodes_per_leaf = 2;
  spec.fabric.spines = 2;
  spec.fabric.in_network_reduction = true;
  const Topology t = make_cluster(spec);
  const double b = 25e9;
  const double n = double(std::int64_t(1) << 30);
  for (const int k : {1, 4}) {
    CollectiveSpec c = allreduce(Algorithm::InNetwork, Bytes{std::int64_t(n)});
    c.chunk = Bytes{std::int64_t(n) / k};
    const Schedule s = build_schedule(t, t.gpus(), c);
    REQUIRE(s.check().empty());
    SimOptions o = no_compute();
    o.link_latencies = false;
    const Result r = Simulator(t, o).run(s);
    CHECK(r.time.seconds() == Approx((k + 3) * n / (k * b)).epsilon(1e-9));
    for (const DirectionStats& d : r.directions) {
      const Device& from = t.device(t.direction_source(d.direction));
      const Device& to = t.device(t.direction_target(d.direction));
      if (from.kind == DeviceKind::Leaf && to.kind == DeviceKind::Spine) CHECK((d.bytes.count() == 0 || d.bytes.count() == std::int64_t(n)));
    }
  }
}

// Two-level collectives on leaf_cluster nodes: GPUs of a node meet on its NVSwitch (GPU - NVSwitch
// - GPU, 2 hops: alpha_i = o + 2l); every GPU has its own NIC, so rail traffic between nodes runs
// GPU - NIC - leaf - NIC - GPU (4 hops: alpha_n = o + 4l) on links no other flow uses. A GPU's
// NVSwitch link and NIC link are distinct, so intra- and inter-node transfers of one GPU overlap.

namespace {

CollectiveSpec two_level(Collective c, Algorithm a, Hierarchy h, Bytes n) {
  CollectiveSpec s = allreduce(a, n);
  s.collective = c;
  s.hierarchy = h;
  return s;
}

double alpha_intra() { return (kOverhead + 2 * kLatency).seconds(); }
double alpha_inter() { return (kOverhead + 4 * kLatency).seconds(); }

}  // namespace

TEST_CASE("hierarchical leader broadcast, 3 nodes x 2: 2*alpha_n + alpha_i + 3N/B", "[analytic]") {
  // Root 0 (leader of node 0). Leaders chain 0 -> 2 -> 4 (alpha_n + N/B each); each leader then
  // sends to its node's other rank (alpha_i + N/B). 0 -> 1 overlaps 0 -> 2 and 2 -> 3 overlaps
  // 2 -> 4, so the last rank, 5, has the data after 2(alpha_n + N/B) + alpha_i + N/B.
  const Cluster c = test::leaf_cluster(3, 2, kB, kLatency, kOverhead);
  const Bytes n{kFp32 * 32768};
  const Result r = simulate(c, two_level(Collective::Broadcast, Algorithm::Hierarchical, Hierarchy::Leader, n));
  const double expected = 2 * alpha_inter() + alpha_intra() + 3 * wire(double(n.count()));
  CHECK(r.time.seconds() == Approx(expected).epsilon(1e-9));
}

TEST_CASE("hierarchical rail reduce, 2 nodes x 2: 2*alpha_i + alpha_n + 3N/(2B)", "[analytic]") {
  // Root 0. Each node's ring reduce-scatter (one step, N/2 each way: alpha_i + N/(2B)); rail l
  // reduces block l from node 1 to node 0 (alpha_n + N/(2B), both rails at once); rank 1 sends its
  // block to the root (alpha_i + N/(2B)).
  const Cluster c = test::leaf_cluster(2, 2, kB, kLatency, kOverhead);
  const Bytes n{kFp32 * 2 * 16384};
  const Result r = simulate(c, two_level(Collective::Reduce, Algorithm::Hierarchical, Hierarchy::Rail, n));
  const double expected = 2 * alpha_intra() + alpha_inter() + 3 * wire(double(n.count()) / 2);
  CHECK(r.time.seconds() == Approx(expected).epsilon(1e-9));
}

TEST_CASE("ring2d reduce-scatter, 2 nodes x 2: alpha_i + alpha_n + N/(2B)", "[analytic]") {
  // Blocks b0..b3 of N/4, rank r owns b_r. A node's ring step sends its column as two messages per
  // connection, one after the other, the other node's row first: 1 -> 0 carries b2, then b0. So
  // rank 0 holds node 0's sum of b2 at alpha_i + N/(4B) and rail 0 sends it on (0 -> 2, alpha_n +
  // N/(4B)) while b0 still crosses the node; 2 -> 0 carries b0 in the same way. The rails finish at
  // alpha_i + alpha_n + 2N/(4B), after the nodes' second messages (2(alpha_i + N/(4B))), as
  // alpha_n > alpha_i. Node 1 and rail 1 mirror it.
  const Cluster c = test::leaf_cluster(2, 2, kB, kLatency, kOverhead);
  const Bytes n{kFp32 * 4 * 8192};
  const Result r = simulate(c, two_level(Collective::ReduceScatter, Algorithm::Ring2D, Hierarchy::Rail, n));
  REQUIRE(alpha_inter() > alpha_intra());
  const double expected = alpha_intra() + alpha_inter() + 2 * wire(double(n.count()) / 4);
  CHECK(r.time.seconds() == Approx(expected).epsilon(1e-9));
}

TEST_CASE("ring2d allgather, 2 nodes x 2: alpha_n + alpha_i + N/(2B)", "[analytic]") {
  // Rails swap their blocks first (alpha_n + N/(4B)); meanwhile each node's ring already swaps its
  // own row (b0 <-> b1, alpha_i + N/(4B) < alpha_n + N/(4B)); the other node's row follows on the
  // same connection as soon as it arrives: alpha_n + N/(4B) + alpha_i + N/(4B).
  const Cluster c = test::leaf_cluster(2, 2, kB, kLatency, kOverhead);
  const Bytes n{kFp32 * 4 * 8192};
  const Result r = simulate(c, two_level(Collective::AllGather, Algorithm::Ring2D, Hierarchy::Rail, n));
  const double expected = alpha_inter() + alpha_intra() + 2 * wire(double(n.count()) / 4);
  CHECK(r.time.seconds() == Approx(expected).epsilon(1e-9));
}

TEST_CASE("hierarchical rail with inter in_network (CollNet Direct's shape): each NIC carries its rail's 1/ppn slice once",
          "[analytic]") {
  // 4 nodes of 2 GPUs, one NIC per GPU, 2 nodes per leaf, SHARP on leaves and spines. Inside a node
  // the GPUs reduce-scatter, then each rail (GPU l of every node) allreduces its half N/2 on SHARP's
  // tree: every NIC sends N/2 up and gets N/2 back; each leaf forwards one N/2 per rail to the root.
  ClusterSpec spec;
  spec.nodes = 4;
  spec.node.gpus = 2;
  spec.node.gpu_interconnect = GpuInterconnect::NvSwitch;
  spec.node.nvlink = LinkKind::NvLink4;
  spec.node.nvlinks = 18;
  spec.node.nics = 2;
  spec.node.pcie_switches = 2;
  spec.node.nic = LinkKind::IbNdr;
  spec.fabric.kind = FabricKind::LeafSpine;
  spec.fabric.nodes_per_leaf = 2;
  spec.fabric.in_network_reduction = true;
  const Topology t = make_cluster(spec);
  const std::int64_t n = std::int64_t(64) << 20;
  CollectiveSpec c = allreduce(Algorithm::Hierarchical, Bytes{n});
  c.hierarchy = Hierarchy::Rail;
  c.inter = InterAlgorithm::InNetwork;
  const Schedule s = build_schedule(t, t.gpus(), c);
  REQUIRE(s.check().empty());
  const Result r = Simulator(t, no_compute()).run(s);
  std::int64_t uplinks = 0;
  int nics = 0;
  for (const DirectionStats& d : r.directions) {
    const Device& from = t.device(t.direction_source(d.direction));
    const Device& to = t.device(t.direction_target(d.direction));
    if (from.kind == DeviceKind::Nic && to.kind == DeviceKind::Leaf) {
      ++nics;
      CHECK(d.bytes.count() == n / 2);
    }
    if (to.kind == DeviceKind::Nic && from.kind == DeviceKind::Leaf) CHECK(d.bytes.count() == n / 2);
    if (from.kind == DeviceKind::Leaf && to.kind == DeviceKind::Spine) uplinks += d.bytes.count();
  }
  CHECK(nics == 8);
  CHECK(uplinks == 2 * 2 * n / 2);  // 2 leaves x 2 rails x N/2
  // Quantised payloads cannot be summed by the switch.
  c.payload.compression = Compression::quantize(DataType::Fp8);
  CHECK_THROWS_WITH(build_schedule(t, t.gpus(), c), Catch::Contains("the switch reduces"));
}
