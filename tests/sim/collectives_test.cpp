// Collective schedules, checked without a simulator: op and byte counts against closed forms, the
// schedule's own structural check, and a symbolic data flow proving every rank ends with the data
// the collective promises (for p = 2, 3, 4, 8, 16 and sizes that do not divide evenly).
#include <catch2/catch.hpp>

#include <numeric>
#include <string>
#include <vector>

#include "collective_fixtures.hpp"
#include "collectives/collectives_builder.hpp"
#include "ringlab/sim/collectives.hpp"
#include "ringlab/sim/reference_executor.hpp"
#include "ringlab/topology/generators.hpp"

using namespace ringlab;
using namespace ringlab::sim;
using namespace ringlab::literals;
using ringlab::test::Cluster;

namespace {

constexpr std::int64_t kFp32 = 4;


Cluster cluster_for(int p, bool sharp = false) {
  const int per_host = p % 2 == 0 ? 2 : 1;
  return test::leaf_cluster(p / per_host, per_host, 100_Gbps, 1_us, 1_us, sharp);
}

CollectiveSpec spec_of(Collective c, Algorithm a, Bytes n, int channels = 1, Bytes chunk = {}) {
  CollectiveSpec s;
  s.collective = c;
  s.algorithm = a;
  s.message = n;
  s.channels = channels;
  s.chunk = chunk;
  return s;
}

/// Every rank holds what the collective promises (the reference executor, lowest-id-first and
/// highest-id-first, so the dependencies rather than insertion order make it right), and the
/// schedule is well formed.
void require_correct(const Schedule& s, int root = 0) {
  INFO(s.algorithm() << " " << to_string(s.collective()) << " p=" << s.rank_count());
  REQUIRE(s.check().empty());
  const int p = s.rank_count();
  const std::int64_t n = s.message().count() / kFp32;
  for (ExecOrder order : {ExecOrder::LowestFirst, ExecOrder::HighestFirst}) {
    ExecOptions options;
    options.order = order;
    CHECK(test::verify_collective(s.collective(), p, root, n, execute_schedule(s, test::exec_inputs(p, n), options)) == "");
  }
}

std::int64_t sum(const std::vector<std::int64_t>& v, std::size_t count) {
  return std::accumulate(v.begin(), v.begin() + std::ptrdiff_t(count), std::int64_t{0});
}

}  // namespace

TEST_CASE("ring allreduce: 2(p-1) sends per rank per channel, 2(p-1)/p*N bytes per rank", "[collectives]") {
  const int p = GENERATE(2, 3, 4, 8, 16);
  const int channels = GENERATE(1, 2);
  const Bytes n{std::int64_t(p) * channels * kFp32 * 1024};
  const Cluster c = cluster_for(p);
  const Schedule s = build_schedule(c.topology, c.gpus, spec_of(Collective::AllReduce, Algorithm::Ring, n, channels));
  const test::RankTotals t = test::totals(s);
  for (int r = 0; r < p; ++r) {
    CHECK(t.sends[std::size_t(r)] == 2 * (p - 1) * channels);
    CHECK(t.reduces[std::size_t(r)] == (p - 1) * channels);
    CHECK(t.bytes_sent[std::size_t(r)] == 2 * (p - 1) * n.count() / p);
  }
  CHECK(s.channel_count() == std::size_t(channels));
  require_correct(s);
}

TEST_CASE("ring allreduce, chunked: every step moves pieces of at most `chunk` bytes", "[collectives]") {
  const Cluster c = cluster_for(4);
  // 1 MiB over 2 channels = 512 KiB per channel; 4 blocks of 16 KiB per unit -> 8 units per channel.
  const Schedule s =
      build_schedule(c.topology, c.gpus, spec_of(Collective::AllReduce, Algorithm::Ring, 1_MiB, 2, 16_KiB));
  const test::RankTotals t = test::totals(s);
  for (int r = 0; r < 4; ++r) CHECK(t.sends[std::size_t(r)] == 2 * 3 * 2 * 8);
  for (const Op& op : s.ops()) CHECK(op.bytes <= 16_KiB);
  require_correct(s);
}

TEST_CASE("every algorithm delivers its collectives, sizes that do not divide evenly", "[collectives]") {
  const int p = GENERATE(2, 3, 4, 8, 16);
  const auto a = Algorithm(GENERATE(range(0, kAlgorithmCount - 1)));  // all but nccl
  const auto coll = Collective(GENERATE(range(0, 5)));
  const bool whole_chunks = GENERATE(false, true);
  if (!supports(a, coll)) return;
  if (a == Algorithm::HalvingDoubling && (p & (p - 1)) != 0) return;
  const Cluster c = cluster_for(p, a == Algorithm::InNetwork);
  // 1001 elements: no p here divides it; 3 channels and 100-byte chunks make ragged pieces.
  CollectiveSpec spec = spec_of(coll, a, Bytes{1001 * kFp32}, 3, 100_B);
  spec.root = p - 1;
  spec.whole_chunks = whole_chunks;
  if (coll == Collective::ReduceScatter || coll == Collective::AllGather) spec.hierarchy = Hierarchy::Rail;
  INFO(to_string(a) << " " << to_string(coll) << " p=" << p << (whole_chunks ? " whole chunks" : ""));
  const Schedule s = build_schedule(c.topology, c.gpus, spec);
  require_correct(s, spec.root);
}

TEST_CASE("chunk splits: equal pieces, or whole chunks with the remainder last (NCCL's loops)", "[collectives]") {
  using sim::detail::ChunkSplit;
  using sim::detail::Layout;
  using sim::detail::Range;
  const Range whole{Bytes{}, Bytes{10000}};  // 2,500 fp32 elements
  const auto ranges = [](const auto& items) {
    std::vector<std::pair<std::int64_t, std::int64_t>> out;
    for (const auto& item : items) out.emplace_back(item.range.offset.count(), item.range.end().count());
    return out;
  };
  using Spans = std::vector<std::pair<std::int64_t, std::int64_t>>;
  // Two channels of 5,000 B (1,250 elements), chunks of 2,048 B (512 elements): three pieces each.
  CHECK(ranges(sim::detail::split_pieces(whole, 2, 2048_B, kFp32, ChunkSplit::Even)) ==
        Spans{{0, 1664}, {1664, 3332}, {3332, 5000}, {5000, 6664}, {6664, 8332}, {8332, 10000}});
  CHECK(ranges(sim::detail::split_pieces(whole, 2, 2048_B, kFp32, ChunkSplit::Whole)) ==
        Spans{{0, 2048}, {2048, 4096}, {4096, 5000}, {5000, 7048}, {7048, 9096}, {9096, 10000}});
  // PieceMajor units of 2 blocks x 1,024 B: whole units of 2,048 B, the last (1,808 B) split evenly.
  const std::vector<sim::detail::Unit> units = sim::detail::split_units(whole, 2, 1, 1024_B, Layout::PieceMajor, kFp32,
                                                               ChunkSplit::Whole);
  REQUIRE(units.size() == 5);
  CHECK(units[3].blocks[0].offset.count() == 6144);
  CHECK(units[3].blocks[1].end().count() == 8192);
  CHECK(units[4].blocks[0].offset.count() == 8192);
  CHECK(units[4].blocks[0].bytes.count() == 904);
  CHECK(units[4].blocks[1].end().count() == 10000);
  // OwnerMajor: each owner's 5,000 B in whole 2,048 B pieces, the remainder last.
  const std::vector<sim::detail::Unit> owned = sim::detail::split_units(whole, 2, 1, 2048_B, Layout::OwnerMajor, kFp32,
                                                               ChunkSplit::Whole);
  REQUIRE(owned.size() == 3);
  CHECK(owned[2].blocks[0].offset.count() == 4096);
  CHECK(owned[2].blocks[0].bytes.count() == 904);
  CHECK(owned[0].blocks[1].offset.count() == 5000);
  CHECK(owned[0].blocks[1].bytes.count() == 2048);
  // No chunk: one piece per channel either way.
  CHECK(ranges(sim::detail::split_pieces(whole, 2, Bytes{}, kFp32, ChunkSplit::Whole)) == Spans{{0, 5000}, {5000, 10000}});
}

TEST_CASE("hierarchical variants and ring2d deliver allreduce", "[collectives]") {
  const Cluster c = test::leaf_cluster(4, 4, 100_Gbps, 1_us);  // 16 ranks, 4 per node
  CollectiveSpec spec = spec_of(Collective::AllReduce, Algorithm::Hierarchical, Bytes{4096 * kFp32}, 2, 1_KiB);
  for (Hierarchy h : {Hierarchy::Leader, Hierarchy::Rail})
    for (InterAlgorithm inter : {InterAlgorithm::Ring, InterAlgorithm::Tree}) {
      spec.hierarchy = h;
      spec.inter = inter;
      require_correct(build_schedule(c.topology, c.gpus, spec));
    }
  spec.algorithm = Algorithm::Ring2D;
  require_correct(build_schedule(c.topology, c.gpus, spec));
}

namespace {

/// p ranks on hosts of `local` GPUs (the last host only partly used when local does not divide p),
/// host-major, or interleaved: rank r on host r % hosts (the ranks of a node are then not adjacent).
struct Shape {
  Cluster cluster;
  std::vector<DeviceId> ranks;
  bool equal_nodes = true;
};

Shape shape_of(int p, int local, bool interleaved) {
  const int hosts = (p + local - 1) / local;
  Shape s{test::leaf_cluster(hosts, local, 100_Gbps, 1_us), {}, p % local == 0};
  for (int r = 0; r < p; ++r) {
    const int host = interleaved && s.equal_nodes ? r % hosts : r / local;
    const int l = interleaved && s.equal_nodes ? r / hosts : r % local;
    s.ranks.push_back(s.cluster.gpus[std::size_t(host * local + l)]);
  }
  return s;
}

}  // namespace

TEST_CASE("hierarchical and ring2d deliver every collective over node shapes, modes and roots", "[collectives]") {
  const int p = GENERATE(2, 3, 4, 8, 16);
  const int local = GENERATE(1, 2, 3, 4, 8);
  const bool interleaved = GENERATE(false, true);
  const int mode = GENERATE(range(0, 5));  // leader ring/tree, rail ring/tree, ring2d
  const auto coll = Collective(GENERATE(range(0, 5)));
  if (local > p) return;
  const Shape shape = shape_of(p, local, interleaved);
  CollectiveSpec spec = spec_of(coll, mode == 4 ? Algorithm::Ring2D : Algorithm::Hierarchical, Bytes{1001 * kFp32}, 2,
                                400_B);
  spec.hierarchy = mode < 2 ? Hierarchy::Leader : Hierarchy::Rail;
  spec.inter = mode % 2 == 0 || mode == 4 ? InterAlgorithm::Ring : InterAlgorithm::Tree;
  const bool owner_blocks = coll == Collective::ReduceScatter || coll == Collective::AllGather;
  INFO(to_string(spec.algorithm) << "(" << to_string(spec.hierarchy) << "," << to_string(spec.inter) << ") "
                                 << to_string(coll) << " p=" << p << " local=" << local
                                 << (interleaved ? " interleaved" : ""));
  if (spec.algorithm == Algorithm::Hierarchical && owner_blocks && spec.hierarchy == Hierarchy::Leader) {
    CHECK_THROWS_WITH(build_schedule(shape.cluster.topology, shape.ranks, spec),
                      Catch::Contains("hierarchical") && Catch::Contains("leader mode has no") &&
                          Catch::Contains("rail"));
    return;
  }
  if (spec.algorithm == Algorithm::Hierarchical && owner_blocks && spec.inter == InterAlgorithm::Tree) {
    CHECK_THROWS_WITH(build_schedule(shape.cluster.topology, shape.ranks, spec),
                      Catch::Contains("no tree form") && Catch::Contains("inter ring"));
    return;
  }
  if (spec.hierarchy == Hierarchy::Rail && !shape.equal_nodes) {
    CHECK_THROWS_WITH(build_schedule(shape.cluster.topology, shape.ranks, spec),
                      Catch::Contains("same number of ranks"));
    return;
  }
  for (int root : {0, p - 1, p / 2}) {
    spec.root = root;
    require_correct(build_schedule(shape.cluster.topology, shape.ranks, spec), root);
    if (coll != Collective::Broadcast && coll != Collective::Reduce) break;
  }
}

TEST_CASE("rail reduce-scatter and allgather: intra-node (L-1)/L*N, inter-node (n-1)/n*N/L per rank, rails stay on "
          "their NIC",
          "[collectives]") {
  const int nodes = 4;
  const int local = 4;
  const Cluster c = test::leaf_cluster(nodes, local, 100_Gbps, 1_us);
  const Bytes n{nodes * local * kFp32 * 256};
  for (Collective coll : {Collective::ReduceScatter, Collective::AllGather}) {
    const Schedule s = build_schedule(c.topology, c.gpus, spec_of(coll, Algorithm::Ring2D, n));
    const test::RankTotals t = test::totals(s);
    // Intra: L-1 ring steps of n column blocks of N/p; inter: n-1 ring steps of one block of N/p.
    const std::int64_t block = n.count() / (nodes * local);
    const std::int64_t expected_sends = (local - 1) * nodes + (nodes - 1);
    for (int r = 0; r < nodes * local; ++r) {
      CHECK(t.sends[std::size_t(r)] == expected_sends);
      CHECK(t.bytes_sent[std::size_t(r)] == expected_sends * block);
    }
    for (const Op& op : s.ops()) {
      if (op.kind != OpKind::Send) continue;
      const Device& a = c.topology.device(s.endpoints()[op.at].device);
      const Device& b = c.topology.device(s.endpoints()[op.peer].device);
      if (a.host != b.host) CHECK(a.local_index == b.local_index);
    }
    require_correct(s);
  }
}

TEST_CASE("ring2d: rows reduce-scatter, columns allreduce the 1/L share over their own NIC", "[collectives]") {
  const int nodes = 4;
  const int local = 4;
  const Cluster c = test::leaf_cluster(nodes, local, 100_Gbps, 1_us);
  const Bytes n{nodes * local * kFp32 * 256};
  const Schedule s = build_schedule(c.topology, c.gpus, spec_of(Collective::AllReduce, Algorithm::Ring2D, n));
  const test::RankTotals t = test::totals(s);
  // Per rank: row RS + row AG move 2(L-1)/L*N; the column ring allreduces N/L: 2(n-1)/n*N/L.
  const std::int64_t expected = 2 * (local - 1) * n.count() / local + 2 * (nodes - 1) * n.count() / local / nodes;
  for (int r = 0; r < nodes * local; ++r) CHECK(t.bytes_sent[std::size_t(r)] == expected);
  // Column traffic stays on its rail: every inter-host transfer joins ranks of equal local index.
  for (const Op& op : s.ops()) {
    if (op.kind != OpKind::Send) continue;
    const Device& a = c.topology.device(s.endpoints()[op.at].device);
    const Device& b = c.topology.device(s.endpoints()[op.peer].device);
    if (a.host != b.host) CHECK(a.local_index == b.local_index);
  }
}

TEST_CASE("double binary tree allreduce: 2(p-1) messages per tree per piece, each tree carries N/2", "[collectives]") {
  const int p = GENERATE(2, 3, 4, 8, 16);
  const Cluster c = cluster_for(p);
  const Bytes n{std::int64_t(p) * kFp32 * 512};
  const Schedule s = build_schedule(c.topology, c.gpus, spec_of(Collective::AllReduce, Algorithm::Tree, n, 2));
  const test::RankTotals t = test::totals(s);
  const std::int64_t pieces = 2;  // one per channel
  CHECK(sum(t.sends, std::size_t(p)) == 2 * 2 * (p - 1) * pieces);
  // Up and down each move (p-1) messages of N/2 per tree: 2(p-1)N in all, like the ring.
  CHECK(sum(t.bytes_sent, std::size_t(p)) == 2 * (p - 1) * n.count());
  CHECK(s.channel_count() == 4);  // 2 channels x 2 trees
  // Each rank sends at most one message up and two down per tree per piece.
  for (int r = 0; r < p; ++r) CHECK(t.sends[std::size_t(r)] <= 3 * 2 * pieces);
  require_correct(s);
}

TEST_CASE("double binary tree: for even p every rank is interior in at most one of the two trees", "[collectives]") {
  const int p = GENERATE(4, 8, 16);
  const Cluster c = cluster_for(p);
  const Schedule s =
      build_schedule(c.topology, c.gpus, spec_of(Collective::AllReduce, Algorithm::Tree, Bytes{p * 64 * kFp32}));
  // Up-phase receives are the ones a Reduce consumes; their receivers are the interior nodes.
  std::vector<std::vector<int>> children(2, std::vector<int>(std::size_t(p), 0));
  for (OpId id = 0; id < s.ops().size(); ++id) {
    if (s.op(id).kind != OpKind::Reduce) continue;
    for (OpId d : s.deps(id))
      if (s.op(d).kind == OpKind::Recv && s.op(d).at == s.op(id).at) ++children[s.op(d).channel % 2][s.op(d).at];
  }
  for (int r = 0; r < p; ++r) {
    CHECK((children[0][std::size_t(r)] == 0 || children[1][std::size_t(r)] == 0));
    CHECK(children[0][std::size_t(r)] <= 2);
    CHECK(children[1][std::size_t(r)] <= 2);
  }
  require_correct(s);
}

TEST_CASE("halving-doubling allreduce: 2 log2(p) messages per rank, 2(p-1)/p*N bytes", "[collectives]") {
  const int p = GENERATE(2, 4, 8, 16);
  const Cluster c = cluster_for(p);
  const Bytes n{std::int64_t(p) * kFp32 * 256};
  const Schedule s = build_schedule(c.topology, c.gpus, spec_of(Collective::AllReduce, Algorithm::HalvingDoubling, n));
  const test::RankTotals t = test::totals(s);
  int log2p = 0;
  while ((1 << log2p) < p) ++log2p;
  for (int r = 0; r < p; ++r) {
    CHECK(t.sends[std::size_t(r)] == 2 * log2p);
    CHECK(t.bytes_sent[std::size_t(r)] == 2 * (p - 1) * n.count() / p);
  }
  require_correct(s);
}

TEST_CASE("halving-doubling rejects a non-power-of-two rank count", "[collectives]") {
  const Cluster c = cluster_for(6);
  CHECK_THROWS_WITH(
      build_schedule(c.topology, c.gpus, spec_of(Collective::AllReduce, Algorithm::HalvingDoubling, 1_MiB)),
      Catch::Contains("power-of-two"));
}

TEST_CASE("direct allreduce: 2(p-1) messages per rank, all of a phase at once", "[collectives]") {
  const int p = GENERATE(2, 3, 8);
  const Cluster c = cluster_for(p);
  const Bytes n{std::int64_t(p) * kFp32 * 100};
  const Schedule s = build_schedule(c.topology, c.gpus, spec_of(Collective::AllReduce, Algorithm::Direct, n));
  const test::RankTotals t = test::totals(s);
  for (int r = 0; r < p; ++r) {
    CHECK(t.sends[std::size_t(r)] == 2 * (p - 1));
    CHECK(t.reduces[std::size_t(r)] == p - 1);
    CHECK(t.bytes_sent[std::size_t(r)] == 2 * (p - 1) * n.count() / p);
  }
  // The whole reduce-scatter is issued at once: its sends wait for nothing.
  for (OpId id = 0; id < s.ops().size(); ++id)
    if (s.op(id).kind == OpKind::Send && s.op(id).step == 0) CHECK(s.deps(id).empty());
  require_correct(s);
}

TEST_CASE("reduce_broadcast: the root receives (p-1)N and sends (p-1)N", "[collectives]") {
  const int p = 4;
  const Cluster c = cluster_for(p);
  const Schedule s =
      build_schedule(c.topology, c.gpus, spec_of(Collective::AllReduce, Algorithm::ReduceBroadcast, 1_MiB));
  const test::RankTotals t = test::totals(s);
  CHECK(t.bytes_received[0] == (p - 1) * (1_MiB).count());
  CHECK(t.bytes_sent[0] == (p - 1) * (1_MiB).count());
  CHECK(t.reduces[0] == p - 1);
  require_correct(s);
}

TEST_CASE("parameter_server: one CPU server per host by default, push N, pull N per worker", "[collectives]") {
  const Cluster c = test::leaf_cluster(4, 2, 100_Gbps, 1_us);  // 8 workers on 4 hosts
  const Bytes n{4 * kFp32 * 1000};
  const Schedule s = build_schedule(c.topology, c.gpus, spec_of(Collective::AllReduce, Algorithm::ParameterServer, n));
  REQUIRE(s.endpoints().size() == 8 + 4);
  for (std::size_t e = 8; e < 12; ++e) {
    CHECK(s.endpoints()[e].role == EndpointRole::ParameterServer);
    CHECK(s.endpoints()[e].device == c.cpus[e - 8]);
  }
  const test::RankTotals t = test::totals(s);
  for (int r = 0; r < 8; ++r) {
    CHECK(t.bytes_sent[std::size_t(r)] == n.count());
    CHECK(t.bytes_received[std::size_t(r)] == n.count());
  }
  for (std::size_t e = 8; e < 12; ++e) {
    CHECK(t.bytes_received[e] == 8 * n.count() / 4);
    CHECK(t.reduces[e] == 7);  // p-1 per shard
  }
  require_correct(s);
}

TEST_CASE("in_network: ranks send N to the reducing switch and get N back", "[collectives]") {
  const int p = 8;
  const Cluster c = cluster_for(p, true);
  const Schedule s = build_schedule(c.topology, c.gpus, spec_of(Collective::AllReduce, Algorithm::InNetwork, 1_MiB));
  REQUIRE(s.endpoints().size() == std::size_t(p) + 1);
  CHECK(s.endpoints()[std::size_t(p)].role == EndpointRole::Switch);
  CHECK(s.endpoints()[std::size_t(p)].device == c.switches[0]);
  const test::RankTotals t = test::totals(s);
  for (int r = 0; r < p; ++r) {
    CHECK(t.bytes_sent[std::size_t(r)] == (1_MiB).count());
    CHECK(t.bytes_received[std::size_t(r)] == (1_MiB).count());
  }
  require_correct(s);
}

TEST_CASE("in_network: NVLS on a node's NVSwitch is nearer than SHARP on the leaf", "[collectives]") {
  const Cluster c = test::leaf_cluster(1, 4, 100_Gbps, 1_us, {}, true, true);
  const std::optional<DeviceId> sw = find_reducing_switch(c.topology, c.gpus);
  REQUIRE(sw);
  CHECK(c.topology.device(*sw).kind == DeviceKind::NvSwitch);
}

namespace {

/// find_reducing_switch's choice by brute force: a full breadth-first search from every rank (the same
/// rules: no forwarding through GPUs or another host's internals, whose NIC is reached only), then
/// the smallest (worst hop count, total, id).
std::optional<DeviceId> reducing_switch_by_brute_force(const Topology& t, const std::vector<DeviceId>& ranks) {
  constexpr long kFar = 1L << 40;
  std::vector<std::vector<long>> dist;
  for (DeviceId src : ranks) {
    std::vector<long> d(t.device_count(), kFar);
    const HostId home = t.device(src).host;
    d[src] = 0;
    std::vector<DeviceId> queue{src};
    for (std::size_t i = 0; i < queue.size(); ++i) {
      const DeviceId at = queue[i];
      if (at != src && t.device(at).kind == DeviceKind::Gpu) continue;
      for (const Adjacency& adj : t.neighbors(at)) {
        const Device& peer = t.device(adj.peer);
        if (d[adj.peer] != kFar) continue;
        const bool foreign = is_host_internal(peer.kind) && peer.host != kNoHost && peer.host != home;
        if (foreign && peer.kind != DeviceKind::Nic) continue;
        d[adj.peer] = d[at] + 1;
        if (!foreign) queue.push_back(adj.peer);
      }
    }
    dist.push_back(std::move(d));
  }
  std::optional<DeviceId> best;
  std::pair<long, long> best_cost;
  for (DeviceId sw = 0; sw < t.device_count(); ++sw) {
    if (!t.device(sw).in_network_reduction) continue;
    long worst = 0, total = 0;
    for (const auto& d : dist) {
      worst = std::max(worst, d[sw]);
      total += d[sw];
    }
    if (worst >= kFar) continue;
    if (!best || std::pair{worst, total} < best_cost) {
      best = sw;
      best_cost = {worst, total};
    }
  }
  return best;
}

}  // namespace

TEST_CASE("in_network: the reducing switch found level by level is the brute-force search's", "[collectives]") {
  struct Case {
    NodeTemplate node;
    FabricKind fabric;
    bool sharp;
  };
  const Case c = GENERATE(Case{NodeTemplate::DgxH100, FabricKind::LeafSpine, false},
                          Case{NodeTemplate::DgxH100, FabricKind::LeafSpine, true},
                          Case{NodeTemplate::DgxA100, FabricKind::RailOptimized, true},
                          Case{NodeTemplate::DgxA100, FabricKind::SingleSwitch, false});
  ClusterSpec spec;
  spec.nodes = 4;
  spec.node = node_template(c.node);
  spec.fabric.kind = c.fabric;
  if (c.fabric == FabricKind::LeafSpine) spec.fabric.nodes_per_leaf = 2;
  spec.fabric.in_network_reduction = c.sharp;
  const Topology t = make_cluster(spec);
  const std::vector<DeviceId> gpus = t.gpus();
  CAPTURE(int(c.node), int(c.fabric), c.sharp);
  // Every node's GPUs (NVLS), the first GPU of every node (SHARP, or none), all GPUs, two GPUs of
  // different nodes, and one GPU.
  std::vector<std::vector<DeviceId>> groups;
  std::vector<DeviceId> heads;
  for (std::size_t n = 0; n < 4; ++n) {
    groups.emplace_back(gpus.begin() + std::ptrdiff_t(8 * n), gpus.begin() + std::ptrdiff_t(8 * n + 8));
    heads.push_back(gpus[8 * n]);
  }
  groups.push_back(heads);
  groups.push_back(gpus);
  groups.push_back({gpus[3], gpus[12]});
  groups.push_back({gpus[5]});
  std::size_t found = 0;
  for (const std::vector<DeviceId>& g : groups) {
    CAPTURE(g);
    const std::optional<DeviceId> sw = find_reducing_switch(t, g);
    CHECK(sw == reducing_switch_by_brute_force(t, g));
    found += sw ? 1 : 0;
  }
  // NVSwitches with NVLS (DGX H100) and SHARP switches give the comparison something to find.
  CHECK((found > 0) == (c.sharp || c.node == NodeTemplate::DgxH100));
}

TEST_CASE("in_network: GPUs outside any host reach a fabric switch that reduces, or none", "[collectives]") {
  // Three hostless GPUs on a leaf, the leaf on a spine; a host with two GPUs, an NVSwitch and a NIC on
  // the leaf. Only the switches picked by `reducing` reduce. find_reducing_switch asks whether any
  // switch can serve only when a search leaves the ranks' hosts, at once for hostless ranks.
  const bool leaf_reduces = GENERATE(false, true);
  const bool spine_reduces = GENERATE(false, true);
  const bool nvswitch_reduces = GENERATE(false, true);
  Topology t;
  const DeviceId leaf = t.add_device(Device{"leaf0", DeviceKind::Leaf, kNoHost, kNoRack, 0, GpuModel::Generic, leaf_reduces, 1});
  const DeviceId spine = t.add_device(Device{"spine0", DeviceKind::Spine, kNoHost, kNoRack, 0, GpuModel::Generic, spine_reduces, 2});
  t.add_link(Topology::default_link(leaf, spine, LinkKind::IbNdr));
  std::vector<DeviceId> lone;
  for (int i = 0; i < 3; ++i) {
    lone.push_back(t.add_device(Device{"gpu" + std::to_string(i), DeviceKind::Gpu}));
    t.add_link(Topology::default_link(lone.back(), leaf, LinkKind::IbNdr));
  }
  const HostId host = t.add_host("node0");
  const DeviceId nvswitch =
      t.add_device(Device{"node0/nvswitch0", DeviceKind::NvSwitch, host, kNoRack, 0, GpuModel::Generic, nvswitch_reduces});
  const DeviceId nic = t.add_device(Device{"node0/nic0", DeviceKind::Nic, host});
  t.add_link(Topology::default_link(nic, leaf, LinkKind::IbNdr));
  std::vector<DeviceId> hosted;
  for (int i = 0; i < 2; ++i) {
    hosted.push_back(t.add_device(Device{"node0/gpu" + std::to_string(i), DeviceKind::Gpu, host, kNoRack, i}));
    t.add_link(Topology::default_link(hosted.back(), nvswitch, LinkKind::NvLink4, 18));
    t.add_link(Topology::default_link(hosted.back(), nic, LinkKind::Pcie5, 16));
  }
  CAPTURE(leaf_reduces, spine_reduces, nvswitch_reduces);
  for (const std::vector<DeviceId>& g : {lone, std::vector<DeviceId>{lone[1]}, hosted, std::vector<DeviceId>{lone[0], hosted[1]}}) {
    CAPTURE(g);
    CHECK(find_reducing_switch(t, g) == reducing_switch_by_brute_force(t, g));
  }
  CHECK(find_reducing_switch(t, lone).has_value() == (leaf_reduces || spine_reduces));
  CHECK(find_reducing_switch(t, hosted).has_value() == (leaf_reduces || spine_reduces || nvswitch_reduces));
}

TEST_CASE("in_network without a reducing switch is rejected with a clear message", "[collectives]") {
  const Cluster c = cluster_for(4, false);
  CHECK_THROWS_WITH(build_schedule(c.topology, c.gpus, spec_of(Collective::AllReduce, Algorithm::InNetwork, 1_MiB)),
                    Catch::Contains("in_network") && Catch::Contains("in_network_reduction"));
}

TEST_CASE("unsupported combinations are rejected naming what is supported", "[collectives]") {
  const Cluster c = cluster_for(4);
  CHECK_THROWS_WITH(build_schedule(c.topology, c.gpus, spec_of(Collective::ReduceScatter, Algorithm::Tree, 1_MiB)),
                    Catch::Contains("tree") && Catch::Contains("allreduce, broadcast, reduce"));
  CHECK_THROWS_WITH(build_schedule(c.topology, c.gpus, spec_of(Collective::AllReduce, Algorithm::Ring, Bytes{1002})),
                    Catch::Contains("whole number"));
  const std::vector<DeviceId> twice{c.gpus[0], c.gpus[0]};
  CHECK_THROWS_WITH(build_schedule(c.topology, twice, spec_of(Collective::AllReduce, Algorithm::Ring, 1_MiB)),
                    Catch::Contains("repeats"));
  std::vector<DeviceId> ranks = c.gpus;  // 2 per host
  CHECK_NOTHROW(build_schedule(c.topology, ranks, spec_of(Collective::AllReduce, Algorithm::Ring2D, 1_MiB)));
  ranks.pop_back();  // last node now has 1 rank
  CHECK_THROWS_WITH(
      build_schedule(c.topology, ranks, spec_of(Collective::AllReduce, Algorithm::Ring2D, Bytes{3 * 4096})),
      Catch::Contains("same number of ranks"));
}

TEST_CASE("a single rank compiles to an empty schedule", "[collectives]") {
  const Cluster c = cluster_for(2);
  const std::vector<DeviceId> one{c.gpus[0]};
  const Schedule s = build_schedule(c.topology, one, spec_of(Collective::AllReduce, Algorithm::Ring, 1_MiB));
  CHECK(s.ops().empty());
}

TEST_CASE("fp8 quantised ring allreduce: a quarter of the bytes, encode before and decode after each hop",
          "[collectives][payload]") {
  const int p = GENERATE(2, 4, 8);
  const Cluster c = cluster_for(p);
  const Bytes n{std::int64_t(p) * kFp32 * 1024};
  CollectiveSpec spec = spec_of(Collective::AllReduce, Algorithm::Ring, n);
  spec.payload.compression = Compression::quantize(DataType::Fp8);
  const Schedule s = build_schedule(c.topology, c.gpus, spec);
  REQUIRE(s.check().empty());
  const test::RankTotals t = test::totals(s);
  for (int r = 0; r < p; ++r) {
    CHECK(t.bytes_sent[std::size_t(r)] == 2 * (p - 1) * n.count() / p / 4);
    // Reduce-scatter re-encodes each partial sum (p-1); the allgather encodes the owned block once
    // and forwards the others as received.
    CHECK(t.encodes[std::size_t(r)] == p);
    CHECK(t.decodes[std::size_t(r)] == 2 * (p - 1));
  }
}

TEST_CASE("top-k allreduce is an allgather of (value, index) parts", "[collectives][payload]") {
  const int p = 4;
  const Cluster c = cluster_for(p);
  const Bytes n{1000 * kFp32};
  CollectiveSpec spec = spec_of(Collective::AllReduce, Algorithm::Ring, n);
  spec.payload.compression = Compression::topk(0.01);
  const Schedule s = build_schedule(c.topology, c.gpus, spec);
  REQUIRE(s.check().empty());
  const std::int64_t part = 10 * (4 + 4);  // 10 kept fp32 values + int32 indices
  const test::RankTotals t = test::totals(s);
  for (int r = 0; r < p; ++r) {
    CHECK(t.sends[std::size_t(r)] == p - 1);
    CHECK(t.bytes_sent[std::size_t(r)] == (p - 1) * part);
    CHECK(t.encodes[std::size_t(r)] == 1);
    CHECK(t.decodes[std::size_t(r)] == p);  // own part + p-1 received
  }
  spec.algorithm = Algorithm::Tree;
  CHECK_THROWS_WITH(build_schedule(c.topology, c.gpus, spec), Catch::Contains("allgather of sparse parts"));
}

TEST_CASE("ring broadcast and reduce are pipelined chains from / to the root", "[collectives]") {
  const int p = 5;
  const Cluster c = cluster_for(p);
  CollectiveSpec spec = spec_of(Collective::Broadcast, Algorithm::Ring, Bytes{4000 * kFp32}, 1, 1000_B);
  spec.root = 2;
  const Schedule b = build_schedule(c.topology, c.gpus, spec);
  const test::RankTotals tb = test::totals(b);
  CHECK(tb.bytes_sent[2] == 4000 * kFp32);
  CHECK(tb.bytes_sent[1] == 0);  // the chain ends just before the root
  CHECK(sum(tb.sends, p) == (p - 1) * 16);
  require_correct(b, 2);
  spec.collective = Collective::Reduce;
  const Schedule r = build_schedule(c.topology, c.gpus, spec);
  CHECK(test::totals(r).bytes_sent[2] == 0);
  require_correct(r, 2);
}

TEST_CASE("algorithm names round-trip and aliases resolve", "[collectives]") {
  for (int i = 0; i < kAlgorithmCount; ++i) CHECK(find_algorithm(to_string(Algorithm(i))) == Algorithm(i));
  CHECK(find_algorithm("rabenseifner") == Algorithm::HalvingDoubling);
  CHECK(find_algorithm("sharp") == Algorithm::InNetwork);
  CHECK(find_algorithm("ps") == Algorithm::ParameterServer);
  CHECK_FALSE(find_algorithm("butterfly"));
  CHECK(algorithm_names().find("halving_doubling") != std::string::npos);
}

TEST_CASE("nccl algorithm builds what nccl_choose picks", "[collectives][nccl]") {
  const Cluster c = test::leaf_cluster(1, 8, 100_Gbps, 1_us);
  const Schedule s = build_schedule(c.topology, c.gpus, spec_of(Collective::AllReduce, Algorithm::Nccl, 64_MiB));
  CHECK(s.algorithm().rfind("nccl:", 0) == 0);
  CHECK(s.check().empty());
  CHECK_FALSE(s.ops().empty());
}

TEST_CASE("in_network on SHARP leaves and spines: every collective is right through the aggregation tree",
          "[collectives]") {
  // 6 one-GPU nodes, 2 per leaf, reducing leaves and spines: ranks report to their leaf, leaves to the
  // root spine. Also the rail hierarchy with SHARP between nodes (CollNet Direct's shape).
  ClusterSpec spec;
  spec.nodes = 6;
  spec.node.gpus = 2;
  spec.node.gpu_interconnect = GpuInterconnect::NvSwitch;
  spec.node.nvlink = LinkKind::NvLink4;
  spec.node.nvlinks = 18;
  spec.node.nics = 2;
  spec.node.pcie_switches = 2;
  spec.fabric.kind = FabricKind::LeafSpine;
  spec.fabric.nodes_per_leaf = 2;
  spec.fabric.in_network_reduction = true;
  const Topology t = make_cluster(spec);
  const std::vector<DeviceId> gpus = t.gpus();
  for (const Collective c : {Collective::AllReduce, Collective::Reduce, Collective::Broadcast, Collective::ReduceScatter,
                             Collective::AllGather}) {
    CollectiveSpec s = spec_of(c, Algorithm::InNetwork, 96_KiB, 2, 8_KiB);
    s.root = 3;
    const Schedule schedule = build_schedule(t, gpus, s);
    CHECK(schedule.endpoints().size() > gpus.size() + 1);  // more than one switch aggregates
    require_correct(schedule, 3);
  }
  for (const Collective c : {Collective::AllReduce, Collective::Reduce, Collective::Broadcast}) {
    CollectiveSpec s = spec_of(c, Algorithm::Hierarchical, 96_KiB, 2, 8_KiB);
    s.hierarchy = Hierarchy::Rail;
    s.inter = InterAlgorithm::InNetwork;
    s.root = 3;
    require_correct(build_schedule(t, gpus, s), 3);
  }
}

TEST_CASE("rail hierarchy with NVLS inside nodes (NCCL's NVLS-Tree): allreduce is right, both inter algorithms",
          "[collectives]") {
  // 3 nodes of 4 GPUs on a reducing NVSwitch, one NIC per GPU: each NVSwitch reduces block l for
  // GPU l, the rails all-reduce between nodes, each GPU multicasts its block back through the switch.
  ClusterSpec spec;
  spec.nodes = 3;
  spec.node.gpus = 4;
  spec.node.gpu_interconnect = GpuInterconnect::NvSwitch;
  spec.node.nvlink = LinkKind::NvLink4;
  spec.node.nvlinks = 18;
  spec.node.nvswitch_reduction = true;
  spec.node.nics = 4;
  spec.node.pcie_switches = 4;
  spec.fabric.kind = FabricKind::SingleSwitch;
  const Topology t = make_cluster(spec);
  for (const InterAlgorithm inter : {InterAlgorithm::Tree, InterAlgorithm::Ring}) {
    CollectiveSpec s = spec_of(Collective::AllReduce, Algorithm::Hierarchical, 96_KiB, 2, 8_KiB);
    s.hierarchy = Hierarchy::Rail;
    s.inter = inter;
    s.intra_in_network = true;
    const Schedule schedule = build_schedule(t, t.gpus(), s);
    CHECK(schedule.endpoints().size() == t.gpus().size() + 6);  // each node's NVSwitch, once per half
    require_correct(schedule, 3);
  }
}
