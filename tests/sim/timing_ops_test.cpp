// The run's lean form of a compiled collective (sim/src/collectives/timing_ops.hpp) and its DAG
// (sim/src/engine/timing_dag.hpp) against the full form: every builder, through either sink, must
// give the same ops (kind, endpoints, bytes, channel, Send/Recv pairing) with the same dependency
// lists, and TimingDag must make the same ops ready in the same order, with the same critical
// predecessors, as ExplicitDag over the equal Schedule. Runs over the two are then the same run
// (tests/sim/channel_fold_test.cpp compares the quotient's run with the fold of the full one).
#include <catch2/catch.hpp>

#include <algorithm>
#include <deque>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "collectives/collectives_builder.hpp"
#include "collectives/timing_ops.hpp"
#include "engine/explicit_dag.hpp"
#include "engine/timing_dag.hpp"
#include "ringlab/sim/collectives.hpp"
#include "ringlab/sim/nccl_tuning.hpp"
#include "ringlab/topology/generators.hpp"

using namespace ringlab;
using namespace ringlab::sim;
using namespace ringlab::literals;

namespace {

/// DGX H100 nodes on a leaf-spine fabric whose switches reduce (SHARP), so that in_network builds.
Topology dgx_h100_nodes(int nodes) {
  ClusterSpec spec;
  spec.nodes = nodes;
  spec.node = node_template(NodeTemplate::DgxH100);
  spec.fabric.kind = FabricKind::LeafSpine;
  spec.fabric.nodes_per_leaf = 2;
  spec.fabric.spines = 2;
  spec.fabric.in_network_reduction = true;
  return make_cluster(spec);
}

/// The first op at which `lean` differs from `full` (kind, endpoints, bytes, channel, Send/Recv
/// pairing, dependency list), or kNoOp.
OpId first_difference(const Schedule& full, const sim::detail::TimingOps& lean) {
  std::size_t at = 0;
  for (OpId id = 0; id < full.ops().size(); ++id) {
    const Op& op = full.op(id);
    const sim::detail::TimedOp& t = lean.ops()[id];
    const bool paired = op.kind == OpKind::Send   ? op.match == id + 1
                        : op.kind == OpKind::Recv ? op.match == id - 1
                                                  : true;
    const std::span<const OpId> deps = full.deps(id);
    if (!paired || t.kind != op.kind || t.at != op.at || t.peer != op.peer || t.bytes != op.bytes ||
        t.channel != op.channel || lean.dep_count(id) != deps.size() || at + deps.size() > lean.deps().size() ||
        !std::equal(deps.begin(), deps.end(), lean.deps().begin() + std::ptrdiff_t(at)))
      return id;
    at += deps.size();
  }
  return at == lean.deps().size() ? kNoOp : OpId(full.ops().size());
}

void require_same_ops(const Schedule& full, const sim::detail::TimingOps& lean) {
  REQUIRE(lean.collective() == full.collective());
  REQUIRE(lean.algorithm() == full.algorithm());
  REQUIRE(lean.message() == full.message());
  REQUIRE(lean.rank_count() == full.rank_count());
  REQUIRE(lean.endpoints().size() == full.endpoints().size());
  for (std::size_t e = 0; e < full.endpoints().size(); ++e) {
    REQUIRE(lean.endpoints()[e].device == full.endpoints()[e].device);
    REQUIRE(lean.endpoints()[e].role == full.endpoints()[e].role);
  }
  REQUIRE(lean.ops().size() == full.ops().size());
  CHECK(first_difference(full, lean) == kNoOp);
  // Every transfer's connection (its Recv's aux), numbered in order of first use: equal exactly for
  // equal (from, to, channel), which is what lets a run share one path slot per connection.
  std::map<std::tuple<Endpoint, Endpoint, std::uint16_t>, std::uint32_t> seen;
  for (OpId id = 0; id < full.ops().size(); ++id) {
    const Op& op = full.op(id);
    if (op.kind != OpKind::Send) continue;
    const auto [it, first] = seen.try_emplace({op.at, op.peer, op.channel}, std::uint32_t(seen.size()));
    REQUIRE(lean.ops()[id + 1].aux == it->second);
  }
}

/// Walks both DAGs in lock step (ops complete in the order they became ready) and requires the same
/// initial ops, the same ready successors in the same order, the same critical predecessors and the
/// same op fields as a run reads them. Returns the first op where they part, or kNoOp.
OpId first_walk_difference(const Schedule& full, sim::detail::TimingOps lean) {
  sim::detail::ExplicitDag a(full);
  sim::detail::TimingDag b(std::move(lean));
  if (a.size() != b.size()) return 0;
  std::vector<OpId> ready_a, ready_b;
  a.for_each_initial([&](OpId id) { ready_a.push_back(id); });
  b.for_each_initial([&](OpId id) { ready_b.push_back(id); });
  if (ready_a != ready_b) return 0;
  std::deque<OpId> queue(ready_a.begin(), ready_a.end());
  std::size_t completed = 0;
  while (!queue.empty()) {
    const OpId id = queue.front();
    queue.pop_front();
    ++completed;
    const Op& x = a.op(id);
    const Op y = b.op(id);
    if (a.is_recv(id) != b.is_recv(id) || a.endpoint(id) != b.endpoint(id) || x.kind != y.kind || x.at != y.at ||
        x.peer != y.peer || x.bytes != y.bytes || x.channel != y.channel || x.match != y.match)
      return id;
    if (y.kind == OpKind::Send && b.path_slot(id, y) != UINT32_MAX) return id;
    ready_a.clear();
    ready_b.clear();
    a.for_each_ready_successor(id, [&](OpId next) { ready_a.push_back(next); });
    b.for_each_ready_successor(id, [&](OpId next) { ready_b.push_back(next); });
    if (ready_a != ready_b) return id;
    queue.insert(queue.end(), ready_a.begin(), ready_a.end());
  }
  if (completed != a.size()) return OpId(a.size());
  for (OpId id = 0; id < a.size(); ++id)
    if (a.critical(id) != b.critical(id)) return id;
  return kNoOp;
}

void require_same_build(const Topology& t, const std::vector<DeviceId>& ranks, const CollectiveSpec& spec,
                        const std::vector<bool>& keep) {
  sim::detail::ChannelFilter full_filter{keep}, lean_filter{keep};
  const Schedule full = sim::detail::build_channels(t, ranks, spec, full_filter);
  sim::detail::TimingOps lean = sim::detail::build_channels_timing(t, ranks, spec, lean_filter);
  REQUIRE(full_filter.uniform == lean_filter.uniform);
  REQUIRE(full_filter.kept == lean_filter.kept);
  require_same_ops(full, lean);
  CHECK(first_walk_difference(full, std::move(lean)) == kNoOp);
}

}  // namespace

TEST_CASE("timing ops: every builder gives the full schedule's ops, dependencies and DAG walk", "[timing]") {
  const Topology t = dgx_h100_nodes(4);
  const std::vector<DeviceId> ranks = t.gpus();
  const Collective collective = GENERATE(Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather,
                                         Collective::Broadcast, Collective::Reduce);
  const bool quantized = GENERATE(false, true);
  int built = 0;
  for (int a = 0; a < kAlgorithmCount; ++a) {
    const auto algorithm = Algorithm(a);
    if (algorithm == Algorithm::Nccl || !supports(algorithm, collective)) continue;
    for (const Hierarchy hierarchy : {Hierarchy::Leader, Hierarchy::Rail}) {
      if (algorithm != Algorithm::Hierarchical && hierarchy == Hierarchy::Rail) continue;
      CollectiveSpec spec;
      spec.collective = collective;
      spec.algorithm = algorithm;
      spec.hierarchy = hierarchy;
      spec.message = 8_MiB;
      spec.channels = 4;
      spec.chunk = 256_KiB;
      spec.root = 3;
      if (quantized) spec.payload.compression = Compression::quantize(DataType::Fp8);
      CAPTURE(std::string(to_string(algorithm)), std::string(to_string(collective)), quantized, int(hierarchy));
      try {
        sim::detail::validate_spec(t, ranks, spec);
      } catch (const std::invalid_argument&) {
        continue;  // not a combination this builder takes
      }
      require_same_build(t, ranks, spec, {true, true, true, true});
      require_same_build(t, ranks, spec, {true, false, true, false});
      ++built;
    }
  }
  CHECK(built >= 5);
}

TEST_CASE("timing ops: NCCL's NVLS-Tree, tree and top-k builds match the full schedule", "[timing]") {
  const Topology t = dgx_h100_nodes(4);
  const std::vector<DeviceId> ranks = t.gpus();
  SECTION("NCCL's choices") {
    const char* algo = GENERATE("NVLSTree", "Tree", "Ring");
    CAPTURE(algo);
    CollectiveSpec spec;
    spec.algorithm = Algorithm::Nccl;
    spec.message = 64_MiB;
    set_nccl_env(spec.nccl_env, "NCCL_ALGO", algo);
    const NcclResolved nccl = nccl_resolve(t, ranks, spec);
    REQUIRE(nccl.choice.unavailable.empty());
    std::vector<bool> keep(std::size_t(nccl.spec.channels), true);
    require_same_build(t, ranks, nccl.spec, keep);
    for (std::size_t c = 1; c < keep.size(); c += 2) keep[c] = false;
    require_same_build(t, ranks, nccl.spec, keep);
  }
  SECTION("top-k allgather of sparse parts") {
    CollectiveSpec spec;
    spec.message = 4_MiB;
    spec.channels = 2;
    spec.chunk = 64_KiB;
    spec.payload.compression = Compression::topk(0.05);
    sim::detail::validate_spec(t, ranks, spec);
    require_same_build(t, ranks, spec, {true, true});
  }
}
