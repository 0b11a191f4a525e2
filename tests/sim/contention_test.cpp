// Rank order matters: the same ring over the same hosts, laid out rack-contiguously or interleaved
// across racks, on a fabric whose racks meet through one uplink each.
//
// Topology: two racks, each a ToR switch with 4 single-GPU hosts (GPU - NIC - ToR, 100 Gb/s) and ONE
// 100 Gb/s uplink to a core switch. Ring allreduce, p = 8, compute off, no latency or overhead, so a
// ring step lasts (N/p) / (rate of its slowest flow).
//   contiguous  r0h0 r0h1 r0h2 r0h3 r1h0 r1h1 r1h2 r1h3: only r0h3 -> r1h0 and r1h3 -> r0h0 cross the
//               core; each uplink direction carries one flow, every flow runs at B.
//               t = 2(p-1) * N/(pB).
//   interleaved r0h0 r1h0 r0h1 r1h1 ...: every ring edge crosses; the 4 edges r0 -> r1 share rack 0's
//               uplink upward (and rack 1's downward), the 4 edges r1 -> r0 the other directions:
//               4 flows per uplink direction, B/4 each. t = 2(p-1) * 4N/(pB), four times slower.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "collective_fixtures.hpp"
#include "ringlab/sim/collectives.hpp"
#include "ringlab/sim/simulator.hpp"

using namespace ringlab;
using namespace ringlab::sim;
using namespace ringlab::literals;

namespace {

constexpr Bandwidth kB = 100_Gbps;
constexpr int kRacks = 2;
constexpr int kHostsPerRack = 4;

struct TwoRacks {
  Topology topology;
  std::vector<std::vector<DeviceId>> gpus;  ///< [rack][host]
};

TwoRacks two_racks() {
  TwoRacks t;
  const DeviceId core = test::add(t.topology, "core0", DeviceKind::Core);
  for (int r = 0; r < kRacks; ++r) {
    const RackId rack = t.topology.add_rack("rack" + std::to_string(r));
    const DeviceId tor = test::add(t.topology, "tor" + std::to_string(r), DeviceKind::Leaf, kNoHost, rack);
    t.topology.add_link(test::custom_link(tor, core, kB, Duration{}));  // the single uplink
    t.gpus.emplace_back();
    for (int h = 0; h < kHostsPerRack; ++h) {
      const std::string name = "r" + std::to_string(r) + "h" + std::to_string(h);
      const HostId host = t.topology.add_host(name, rack);
      const DeviceId gpu = test::add(t.topology, name + "/gpu0", DeviceKind::Gpu, host, rack, 0);
      const DeviceId nic = test::add(t.topology, name + "/nic0", DeviceKind::Nic, host, rack, 0);
      t.topology.add_link(test::custom_link(gpu, nic, kB, Duration{}));
      t.topology.add_link(test::custom_link(nic, tor, kB, Duration{}));
      t.gpus.back().push_back(gpu);
    }
  }
  return t;
}

Duration ring_time(const Topology& topology, const std::vector<DeviceId>& order, Bytes n) {
  CollectiveSpec spec;
  spec.message = n;
  SimOptions options;
  options.calibration.model_compute = false;
  Simulator sim(topology, options);
  return sim.run(build_schedule(topology, order, spec)).time;
}

}  // namespace

TEST_CASE("ring across two racks with one uplink each: interleaving the racks is 4x slower", "[contention]") {
  const TwoRacks t = two_racks();
  std::vector<DeviceId> contiguous;
  std::vector<DeviceId> interleaved;
  for (int r = 0; r < kRacks; ++r)
    for (int h = 0; h < kHostsPerRack; ++h) contiguous.push_back(t.gpus[std::size_t(r)][std::size_t(h)]);
  for (int h = 0; h < kHostsPerRack; ++h)
    for (int r = 0; r < kRacks; ++r) interleaved.push_back(t.gpus[std::size_t(r)][std::size_t(h)]);
  const int p = kRacks * kHostsPerRack;
  const Bytes n = 64_MiB;
  const double step = double(n.count()) / p * 8.0 / kB.bits_per_second();  // N/(pB) in seconds

  const Duration fast = ring_time(t.topology, contiguous, n);
  const Duration slow = ring_time(t.topology, interleaved, n);
  CHECK(fast.seconds() == Approx(2.0 * (p - 1) * step).epsilon(1e-9));
  CHECK(slow.seconds() == Approx(2.0 * (p - 1) * 4 * step).epsilon(1e-9));
  CHECK(slow / fast == Approx(4.0).epsilon(1e-9));
}
