// Simulator::run on hand-built topologies, with every expected time computed by hand from the
// link defaults: PCIe 5 x16 (504 Gb/s, 150 ns), InfiniBand NDR (400 Gb/s = 0.05 B/ps, 600 ns,
// 1 us RDMA overhead).
#include <catch2/catch.hpp>

#include <vector>

#include "hand_topologies.hpp"
#include "ringlab/sim/simulator.hpp"

using namespace ringlab;
using namespace ringlab::sim;
using namespace ringlab::literals;

namespace {
// gpu -> nic -> leaf -> nic -> gpu: overhead max(0, 1us, 1us, 0) and latency 150+600+600+150 ns.
constexpr Duration kInterHostOverhead = 1_us;
constexpr Duration kInterHostLatency = 1500_ns;
constexpr Bandwidth kNdr = 400_Gbps;

SimOptions timeline_options() {
  SimOptions options;
  options.record_timeline = true;
  options.check_invariants = true;
  return options;
}
}  // namespace

TEST_CASE("simulator: one transfer between two hosts = overhead + bytes/B + sum of hop latencies", "[simulator]") {
  const auto c = test::star_cluster(2, 1);
  const std::vector<DeviceId> ranks{c.gpus[0][0], c.gpus[1][0]};
  Schedule s(Collective::Broadcast, "hand", 4_MiB, ranks);
  const OpId recv = s.add_transfer(0, 1, 0_B, 4_MiB, {});
  const OpId send = s.op(recv).match;
  Simulator sim(c.topology, timeline_options());
  const Result r = sim.run(s);
  // 4 MiB / 50 GB/s = 83886080 ps exactly.
  const Duration expected = kInterHostOverhead + Duration{83886080} + kInterHostLatency;
  CHECK(4_MiB / kNdr == Duration{83886080});
  CHECK(r.time == expected);
  REQUIRE(r.timeline.size() == 2);
  CHECK(r.timeline[send].start == Duration{});
  CHECK(r.timeline[send].end == expected);
  CHECK(r.timeline[recv].start == kInterHostOverhead);  // the flow starts after the overhead
  CHECK(r.timeline[recv].end == expected);
  CHECK(r.flows == 1);
  CHECK(r.critical_path == std::vector<std::uint64_t>{send, recv});
  // Four channels carried 4 MiB each; the NDR ones are the most utilised.
  REQUIRE(r.directions.size() == 4);
  for (const DirectionStats& ch : r.directions) {
    CHECK(ch.bytes == 4_MiB);
    CHECK(ch.busy == Duration{83886080});
  }
  REQUIRE(r.bottlenecks.size() == 4);
  const double ndr_utilisation = 83886080.0 / double(expected.picoseconds());
  for (const DirectionStats& ch : r.directions)
    if (ch.direction == r.bottlenecks[0]) CHECK(ch.utilisation == Approx(ndr_utilisation));
  // nccl-tests: algbw = S / t, busbw = algbw x 1 for broadcast.
  CHECK(r.algbw().bytes_per_second() == Approx(double((4_MiB).count()) / expected.seconds()));
  CHECK(r.busbw().bytes_per_second() == Approx(r.algbw().bytes_per_second()));
}

TEST_CASE("simulator: two transfers sharing a NIC link split its bandwidth", "[simulator]") {
  const auto c = test::star_cluster(2, 2);
  const std::vector<DeviceId> ranks{c.gpus[0][0], c.gpus[0][1], c.gpus[1][0], c.gpus[1][1]};
  Schedule s(Collective::AllGather, "hand", 4_MiB, ranks);
  const OpId big = s.add_transfer(0, 2, 0_B, 4_MiB, {}, {}, 0);
  const OpId small = s.add_transfer(1, 3, 0_B, 2_MiB, {}, {}, 1);
  Simulator sim(c.topology, timeline_options());
  const Result r = sim.run(s);
  // Both flows get 25 GB/s until the 2 MiB one is done (2 MiB / 25 GB/s = 83886080 ps); the 4 MiB
  // one then has 2 MiB left alone at 50 GB/s (41943040 ps).
  CHECK(r.timeline[small].end == kInterHostOverhead + Duration{83886080} + kInterHostLatency);
  CHECK(r.timeline[big].end == kInterHostOverhead + Duration{83886080 + 41943040} + kInterHostLatency);
  CHECK(r.time == r.timeline[big].end);
  CHECK(r.flows == 2);
  CHECK(r.rate_updates == 2);  // both start together; one finishes
}

TEST_CASE("simulator: a flow slowed by a later one ends when its bytes are done", "[simulator]") {
  // The 4 MiB flow alone would end at 1 us + 83886080 ps; a 2 MiB flow joins its NIC link after a
  // local reduce, so its finish moves later, and earlier again when the second flow leaves.
  const auto c = test::star_cluster(2, 2, GpuModel::H100);
  const std::vector<DeviceId> ranks{c.gpus[0][0], c.gpus[0][1], c.gpus[1][0], c.gpus[1][1]};
  Schedule s(Collective::AllGather, "hand", 4_MiB, ranks);
  const OpId big = s.add_transfer(0, 2, 0_B, 4_MiB, {}, {}, 0);
  const OpId wait = s.add_local(OpKind::Reduce, 1, 0_B, 1_MiB, {});
  const OpId late = s.add_transfer(1, 3, 0_B, 2_MiB, std::vector<OpId>{wait}, {}, 1);
  const SimOptions options = timeline_options();
  const Duration t_wait = 1_MiB / options.calibration.reduce_rate(GpuModel::H100);
  REQUIRE(t_wait < Duration{41943040});  // the late flow joins while over 2 MiB of the big one are left
  Simulator sim(c.topology, options);
  const Result r = sim.run(s);
  // Late: 2 MiB at 25 GB/s. Big: 6 MiB crossed the shared link at 50 GB/s in all (work conserving).
  CHECK(r.timeline[late].end == t_wait + kInterHostOverhead + Duration{83886080} + kInterHostLatency);
  CHECK(r.timeline[big].end == kInterHostOverhead + Duration{125829120} + kInterHostLatency);
  CHECK(r.flows == 2);
  // One local completion, two flow starts, two flow ends and two arrivals.
  CHECK(r.events == 7);
}

TEST_CASE("simulator: zero-byte and same-device transfers", "[simulator]") {
  const auto c = test::star_cluster(2, 1);
  SECTION("a zero-byte message costs overhead + latency only") {
    const std::vector<DeviceId> ranks{c.gpus[0][0], c.gpus[1][0]};
    Schedule s(Collective::Broadcast, "hand", 0_B, ranks);
    const OpId recv = s.add_transfer(0, 1, 0_B, 0_B, {});
    Simulator sim(c.topology, timeline_options());
    const Result r = sim.run(s);
    CHECK(r.time == kInterHostOverhead + kInterHostLatency);
    CHECK(r.timeline[recv].end == r.time);
    CHECK(r.flows == 0);
    CHECK(r.directions.empty());
  }
  SECTION("endpoints on the same device exchange data instantly") {
    const std::vector<DeviceId> ranks{c.gpus[0][0], c.gpus[0][0]};
    Schedule s(Collective::Broadcast, "hand", 4_MiB, ranks);
    s.add_transfer(0, 1, 0_B, 4_MiB, {});
    Simulator sim(c.topology, timeline_options());
    const Result r = sim.run(s);
    CHECK(r.time == Duration{});
    CHECK(r.flows == 0);
  }
}

TEST_CASE("simulator: local ops run at the calibration's GPU and CPU rates", "[simulator]") {
  const auto c = test::star_cluster(1, 1, GpuModel::H100);
  const std::vector<DeviceId> ranks{c.gpus[0][0]};
  Schedule s(Collective::AllReduce, "hand", 4_MiB, ranks);
  const OpId reduce = s.add_local(OpKind::Reduce, 0, 0_B, 4_MiB, {});
  const OpId copy = s.add_local(OpKind::Copy, 0, 0_B, 4_MiB, std::vector<OpId>{reduce});
  const OpId encode = s.add_local(OpKind::Encode, 0, 0_B, 4_MiB, std::vector<OpId>{copy});
  SimOptions options = timeline_options();
  const Calibration& cal = options.calibration;
  const Duration t_reduce = 4_MiB / cal.reduce_rate(GpuModel::H100);
  const Duration t_copy = 4_MiB / cal.copy_rate(GpuModel::H100);
  const Duration t_encode = 4_MiB / cal.codec_rate(GpuModel::H100);
  Simulator sim(c.topology, options);
  const Result r = sim.run(s);
  CHECK(r.timeline[reduce].end == t_reduce);
  CHECK(r.timeline[copy].start == t_reduce);
  CHECK(r.timeline[copy].end == t_reduce + t_copy);
  CHECK(r.time == t_reduce + t_copy + t_encode);
  CHECK(r.critical_path == std::vector<std::uint64_t>{reduce, copy, encode});

  SECTION("model_compute = false makes them free") {
    options.calibration.model_compute = false;
    Simulator free_sim(c.topology, options);
    CHECK(free_sim.run(s).time == Duration{});
  }
  SECTION("a switch reduces at line rate, a CPU at cpu_reduce_rate") {
    Schedule t(Collective::AllReduce, "hand", 4_MiB, ranks);
    const Endpoint sw = t.add_endpoint(c.leaf, EndpointRole::Switch);
    const Endpoint nic = t.add_endpoint(c.nics[0], EndpointRole::ParameterServer);  // a NIC: line rate too
    t.add_local(OpKind::Reduce, sw, 0_B, 4_MiB, {});
    t.add_local(OpKind::Reduce, nic, 0_B, 4_MiB, {});
    CHECK(Simulator(c.topology, options).run(t).time == Duration{});

    Topology topo = c.topology;
    Device host_cpu;
    host_cpu.name = "node0/cpu0";
    host_cpu.kind = DeviceKind::Cpu;
    host_cpu.host = 0;
    const DeviceId cpu_id = topo.add_device(host_cpu);
    topo.add_link(Topology::default_link(cpu_id, c.nics[0], LinkKind::Pcie5));
    Schedule u(Collective::AllReduce, "hand", 4_MiB, ranks);
    const Endpoint ps = u.add_endpoint(cpu_id, EndpointRole::ParameterServer);
    u.add_local(OpKind::Reduce, ps, 0_B, 4_MiB, {});
    CHECK(Simulator(topo, options).run(u).time == 4_MiB / options.calibration.cpu_reduce_rate());
  }
}

TEST_CASE("simulator: a recv completes at max(arrival, its own deps)", "[simulator]") {
  const auto c = test::star_cluster(2, 1);
  const std::vector<DeviceId> ranks{c.gpus[0][0], c.gpus[1][0]};
  Schedule s(Collective::AllReduce, "hand", 64_MiB, ranks);
  // The receiver is busy reducing 256 MiB (longer than the 4 MiB message takes to arrive).
  const OpId busy = s.add_local(OpKind::Reduce, 1, 0_B, 256_MiB, {});
  const OpId recv = s.add_transfer(0, 1, 0_B, 4_MiB, {}, std::vector<OpId>{busy});
  const OpId send = s.op(recv).match;
  SimOptions options = timeline_options();
  Simulator sim(c.topology, options);
  const Result r = sim.run(s);
  const Duration arrival = kInterHostOverhead + Duration{83886080} + kInterHostLatency;
  const Duration reduce = 256_MiB / options.calibration.reduce_rate(GpuModel::H100);
  REQUIRE(reduce > arrival);
  CHECK(r.timeline[send].end == arrival);
  CHECK(r.timeline[recv].end == reduce);
  CHECK(r.critical_path == std::vector<std::uint64_t>{busy, recv});
}

TEST_CASE("simulator: calibration factors scale bandwidth and latency", "[simulator]") {
  const auto c = test::star_cluster(2, 1);
  const std::vector<DeviceId> ranks{c.gpus[0][0], c.gpus[1][0]};
  Schedule s(Collective::Broadcast, "hand", 4_MiB, ranks);
  s.add_transfer(0, 1, 0_B, 4_MiB, {});
  SimOptions options;
  options.calibration = Calibration::nccl();
  options.protocol = Protocol::LL;  // half the wire bytes are flags: bandwidth factor 0.5
  Calibration& cal = options.calibration;
  for (LinkFamily f : {LinkFamily::Pcie, LinkFamily::InfiniBand}) {
    LinkFactors factors = cal.factors(f, Protocol::LL);
    factors.latency = 2.0;
    cal.set_factors(f, Protocol::LL, factors);
  }
  const Result r = Simulator(c.topology, options).run(s);
  // The narrowest link is now PCIe Gen5 x16 at NCCL's 48 GB/s (NDR is 50), halved by LL: 4 MiB at
  // 0.024 B/ps is 174762666.7 ps, rounded up to a whole picosecond.
  CHECK(r.time == 2 * kInterHostOverhead + Duration{174762667} + 2 * kInterHostLatency);
}

TEST_CASE("simulator: a per-flow rate limit caps a lone flow", "[simulator]") {
  const auto c = test::star_cluster(2, 1);
  const std::vector<DeviceId> ranks{c.gpus[0][0], c.gpus[1][0]};
  Schedule s(Collective::Broadcast, "hand", 4_MiB, ranks);
  s.add_transfer(0, 1, 0_B, 4_MiB, {});
  SimOptions options;
  options.max_flow_rate = 100_Gbps;
  const Result r = Simulator(c.topology, options).run(s);
  CHECK(r.time == kInterHostOverhead + Duration{4 * 83886080} + kInterHostLatency);
}

TEST_CASE("simulator: ring allreduce on one switch matches 2(p-1)/p*N/B + 2(p-1)*alpha", "[simulator]") {
  // Four single-GPU hosts; a ring with p = 4 chunks. Each step every rank sends N/p to its successor
  // and reduces (compute off) -- the NIC links carry one flow each per direction, so every step
  // costs alpha + (N/p)/B with alpha = overhead + latency.
  constexpr int p = 4;
  const auto c = test::star_cluster(p, 1);
  std::vector<DeviceId> ranks;
  for (int h = 0; h < p; ++h) ranks.push_back(c.gpus[std::size_t(h)][0]);
  const Bytes message = 64_MiB;
  const Bytes chunk = message / p;
  Schedule s(Collective::AllReduce, "ring", message, ranks);
  std::vector<OpId> last(p, kNoOp);  // per rank: the recv of the previous step
  for (std::uint32_t step = 0; step < 2 * (p - 1); ++step) {
    std::vector<OpId> now(p);
    for (int r = 0; r < p; ++r) {
      const int next = (r + 1) % p;
      std::vector<OpId> deps;
      if (last[std::size_t(r)] != kNoOp) deps.push_back(last[std::size_t(r)]);
      now[std::size_t(next)] = s.add_transfer(Endpoint(r), Endpoint(next), chunk * r, chunk, deps, {}, 0, step);
    }
    last = now;
  }
  REQUIRE(s.check().empty());
  SimOptions options;
  options.calibration.model_compute = false;
  const Result r = Simulator(c.topology, options).run(s);
  const Duration alpha = kInterHostOverhead + kInterHostLatency;
  const Duration expected = 2 * (p - 1) * (alpha + chunk / kNdr);
  CHECK(r.time == expected);
  CHECK(r.busbw().bytes_per_second() ==
        Approx(double(message.count()) / expected.seconds() * 2.0 * (p - 1) / p));
  CHECK(r.flows == std::uint64_t(2 * (p - 1) * p));
}

TEST_CASE("simulator: a simulator is a value, repeated runs agree", "[simulator]") {
  const auto c = test::star_cluster(2, 2);
  const std::vector<DeviceId> ranks{c.gpus[0][0], c.gpus[0][1], c.gpus[1][0], c.gpus[1][1]};
  Schedule s(Collective::AllGather, "hand", 4_MiB, ranks);
  s.add_transfer(0, 2, 0_B, 4_MiB, {});
  s.add_transfer(1, 3, 0_B, 1_MiB, {});
  Simulator a(c.topology, timeline_options());
  Simulator b = std::move(a);
  const Result first = b.run(s);
  const Result second = b.run(s);
  CHECK(first.time == second.time);
  CHECK(first.events == second.events);
}
