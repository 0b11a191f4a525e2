// Invariants of Simulator::run over random small topologies and random schedules: bytes are
// conserved, no channel ever exceeds its capacity (checked at every reallocation by
// SimOptions::check_invariants), dependencies are respected, no transfer beats its route's
// alpha-beta bound, and repeated runs are byte-identical.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "hand_topologies.hpp"
#include "ringlab/sim/simulator.hpp"
#include "ringlab/sim/trace.hpp"
#include "ringlab/topology/routing.hpp"

using namespace ringlab;
using namespace ringlab::sim;
using namespace ringlab::literals;

namespace {

constexpr std::array<LinkKind, 4> kIntraKinds{LinkKind::NvLink4, LinkKind::Pcie4, LinkKind::Pcie5, LinkKind::NvLink3};
constexpr std::array<LinkKind, 4> kFabricKinds{LinkKind::IbHdr, LinkKind::IbNdr, LinkKind::Eth100, LinkKind::Eth400};

template <class T, std::size_t N>
T pick(std::mt19937_64& rng, const std::array<T, N>& options) {
  return options[rng() % N];
}

/// 2-4 hosts of 1-4 GPUs behind a host switch (NVSwitch or PCIe switch) and one or two NICs, 1-2
/// leaves, and 0-2 spines joining the leaves (leaves are chained directly when there is no spine).
Topology random_topology(std::mt19937_64& rng) {
  Topology t;
  const RackId rack = t.add_rack("rack0");
  const int leaves = 1 + int(rng() % 2);
  const int spines = leaves > 1 ? int(rng() % 3) : 0;
  std::vector<DeviceId> leaf_ids, spine_ids;
  for (int l = 0; l < leaves; ++l) leaf_ids.push_back(test::add(t, "leaf" + std::to_string(l), DeviceKind::Leaf));
  for (int s = 0; s < spines; ++s) {
    spine_ids.push_back(test::add(t, "spine" + std::to_string(s), DeviceKind::Spine));
    for (DeviceId leaf : leaf_ids) t.add_link(Topology::default_link(leaf, spine_ids.back(), pick(rng, kFabricKinds)));
  }
  if (spines == 0)
    for (std::size_t l = 1; l < leaf_ids.size(); ++l)
      t.add_link(Topology::default_link(leaf_ids[l - 1], leaf_ids[l], pick(rng, kFabricKinds)));
  const int hosts = 2 + int(rng() % 3);
  for (int h = 0; h < hosts; ++h) {
    const std::string name = "node" + std::to_string(h);
    const HostId host = t.add_host(name, rack);
    const DeviceId hub_id =
        test::add(t, name + "/switch0", rng() % 2 ? DeviceKind::NvSwitch : DeviceKind::PcieSwitch, host);
    const int gpus = 1 + int(rng() % 4);
    for (int g = 0; g < gpus; ++g) {
      const DeviceId id = test::add_gpu(t, name + "/gpu" + std::to_string(g), host, g, GpuModel(rng() % kGpuModelCount));
      t.add_link(Topology::default_link(id, hub_id, pick(rng, kIntraKinds), 1 + int(rng() % 4)));
    }
    const int nics = 1 + int(rng() % 2);
    for (int n = 0; n < nics; ++n) {
      const DeviceId id = test::add(t, name + "/nic" + std::to_string(n), DeviceKind::Nic, host, kNoRack, n);
      t.add_link(Topology::default_link(hub_id, id, LinkKind::Pcie5));
      t.add_link(Topology::default_link(id, leaf_ids[rng() % leaf_ids.size()], pick(rng, kFabricKinds)));
    }
  }
  return t;
}

/// Random DAG over all GPUs: transfers and local ops with random sizes (sometimes zero), channels
/// and dependencies on earlier ops.
Schedule random_schedule(std::mt19937_64& rng, const Topology& t) {
  std::vector<DeviceId> ranks = t.gpus();
  std::shuffle(ranks.begin(), ranks.end(), rng);
  Schedule s(Collective::AllReduce, "random", 1_MiB, ranks);
  const auto endpoints = Endpoint(ranks.size());
  auto random_deps = [&](std::size_t upto) {
    std::vector<OpId> deps;
    const int k = upto ? int(rng() % 4) : 0;
    for (int i = 0; i < k; ++i) deps.push_back(OpId(rng() % upto));
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    return deps;
  };
  const int ops = 10 + int(rng() % 60);
  for (int i = 0; i < ops; ++i) {
    const Bytes bytes = rng() % 8 == 0 ? 0_B : Bytes{std::int64_t(1 + rng() % (4 << 20))};
    const auto channel = std::uint16_t(rng() % 3);
    const auto at = Endpoint(rng() % endpoints);
    if (rng() % 3 == 0 || endpoints < 2) {
      s.add_local(OpKind(2 + rng() % 4), at, 0_B, bytes, random_deps(s.ops().size()), channel);
      continue;
    }
    auto peer = Endpoint(rng() % (endpoints - 1));
    if (peer >= at) ++peer;
    const auto send_deps = random_deps(s.ops().size());
    const auto recv_deps = random_deps(s.ops().size());
    s.add_transfer(at, peer, 0_B, bytes, send_deps, recv_deps, channel);
  }
  return s;
}

std::string trace_of(const Schedule& s, const Result& r, const Topology& t) {
  std::ostringstream out;
  write_chrome_trace(out, s, r, t);
  return out.str();
}

}  // namespace

TEST_CASE("invariants: random topologies and schedules conserve bytes, respect capacity and deps", "[invariants]") {
  std::mt19937_64 rng(20240611);
  constexpr int kIterations = 150;
  for (int iteration = 0; iteration < kIterations; ++iteration) {
    const Topology topology = random_topology(rng);
    const Schedule schedule = random_schedule(rng, topology);
    REQUIRE(schedule.check().empty());
    SimOptions options;
    options.record_timeline = true;
    options.check_invariants = true;  // capacity is verified at every reallocation
    options.ecmp = rng() % 2 ? EcmpPolicy::Hash : EcmpPolicy::First;
    if (rng() % 2) options.calibration = Calibration::nccl();
    options.protocol = Protocol(rng() % kProtocolCount);
    if (rng() % 4 == 0) options.max_flow_rate = 100_Gbps;
    Simulator sim(topology, options);
    Result result;
    REQUIRE_NOTHROW(result = sim.run(schedule));
    INFO("iteration " << iteration);

    // Bytes: every channel on a route carries the whole message.
    const Router router(topology, options.ecmp, options.ecmp_seed);
    std::int64_t expected_bytes = 0;
    for (const Op& op : schedule.ops()) {
      if (op.kind != OpKind::Send || op.bytes.count() == 0) continue;
      const DeviceId src = schedule.endpoints()[op.at].device, dst = schedule.endpoints()[op.peer].device;
      if (src == dst) continue;
      const Route route = router.route(src, dst, op.channel);
      expected_bytes += op.bytes.count() * std::int64_t(route.directions.size());
      // No transfer beats overhead + bytes / bottleneck + latency on its route (calibration factors
      // here only ever slow links down).
      const OpSpan& span = result.timeline[schedule.op(op.match).match];
      const Duration bound = route.overhead + route.latency + op.bytes / route.bottleneck;
      CHECK(span.end - span.start >= bound - 1_ps);
    }
    std::int64_t carried = 0;
    for (const DirectionStats& ch : result.directions) {
      carried += ch.bytes.count();
      CHECK(ch.utilisation <= 1.0);
      CHECK(ch.busy <= result.time);
    }
    CHECK(carried == expected_bytes);

    // Dependencies: sends and local ops start after every dependency ended; every op, a recv
    // included, ends after its dependencies; a recv ends no earlier than its data arrives.
    REQUIRE(result.timeline.size() == schedule.ops().size());
    Duration last;
    for (OpId id = 0; id < schedule.ops().size(); ++id) {
      const Op& op = schedule.op(id);
      const OpSpan& span = result.timeline[id];
      CHECK(span.end >= span.start);
      last = std::max(last, span.end);
      for (OpId dep : schedule.deps(id)) {
        CHECK(span.end >= result.timeline[dep].end);
        if (op.kind != OpKind::Recv) CHECK(span.start >= result.timeline[dep].end);
      }
      if (op.kind == OpKind::Recv) {
        CHECK(span.end >= result.timeline[op.match].end);
        CHECK(span.start >= result.timeline[op.match].start);
      }
    }
    CHECK(result.time == last);
    // The critical path is a chain of ops, each ending no later than the next one starts.
    REQUIRE_FALSE(result.critical_path.empty());
    CHECK(result.timeline[result.critical_path.back()].end == result.time);

    // Determinism: a fresh simulator gives a byte-identical trace and identical statistics.
    Simulator again(topology, options);
    const Result second = again.run(schedule);
    CHECK(trace_of(schedule, result, topology) == trace_of(schedule, second, topology));
    CHECK(second.events == result.events);
    CHECK(second.rate_updates == result.rate_updates);
    CHECK(second.critical_path == result.critical_path);
    CHECK(second.bottlenecks == result.bottlenecks);
  }
}
