// RouteMemo (sim/src/engine/route_memo.hpp): routes computed together for several channels of one
// pair (route_channels) are the routes a memo that computes each channel alone keeps, with and
// without detours that stage some channels through host memory.
#include <catch2/catch.hpp>

#include <vector>

#include "engine/engine_common.hpp"
#include "engine/route_memo.hpp"
#include "ringlab/topology/generators.hpp"

using namespace ringlab;
using namespace ringlab::sim;

TEST_CASE("route memo: channels routed together are the routes each channel gets alone", "[routing][fold]") {
  ClusterSpec spec;
  spec.nodes = 4;
  spec.node = node_template(NodeTemplate::DgxH100);
  spec.fabric.kind = FabricKind::LeafSpine;
  spec.fabric.nodes_per_leaf = 2;
  spec.fabric.spines = 4;
  const Topology t = make_cluster(spec);
  const std::vector<DeviceId> gpus = t.gpus();
  const bool staged = GENERATE(false, true);
  SimOptions options;
  options.ecmp = EcmpPolicy::Channel;
  // Odd channels from GPU 0 go through a CPU of its host (as host-memory staging would).
  DeviceId cpu = 0;
  while (t.device(cpu).kind != DeviceKind::Cpu || t.device(cpu).host != t.device(gpus[0]).host) ++cpu;
  if (staged)
    options.detours = [&](DeviceId src, DeviceId, std::uint16_t channel) {
      return src == gpus[0] && channel % 2 == 1 ? Detour{{cpu}} : Detour{};
    };
  sim::detail::RouteMemo together(t, options), alone(t, options);
  const std::vector<std::uint16_t> channels = {5, 0, 3, 1, 7, 0, 2};
  std::size_t differing = 0;
  for (const DeviceId dst : {gpus[1], gpus[9], gpus[30]}) {
    together.route_channels(gpus[0], dst, channels);
    const std::vector<DirectionId> first(together.directions(gpus[0], dst, 0).begin(),
                                         together.directions(gpus[0], dst, 0).end());
    for (const std::uint16_t c : channels) {
      const auto got = together.directions(gpus[0], dst, c);
      const std::vector<DirectionId> have(got.begin(), got.end());
      const auto want = alone.directions(gpus[0], dst, c);
      CHECK(have == std::vector<DirectionId>(want.begin(), want.end()));
      differing += have != first;
    }
  }
  CHECK(differing > 0);  // channels take different paths (else the test would not tell them apart)
  // Staging alone costs nothing: no route carries costs (which would refuse the channel fold).
  CHECK_FALSE(together.has_costs());
  CHECK_FALSE(alone.has_costs());
}

TEST_CASE("route memo: a detour's PCIe cost lies on the PCIe links of its costed legs only", "[routing]") {
  // Two DGX H100 nodes: GPU 0 sends to node 1's GPU 0 through its CPU and its NIC (NCCL's staged
  // send), paying 1.2 on the PCIe links of those two legs; the network and the receiving side pay 1.
  ClusterSpec spec;
  spec.nodes = 2;
  spec.node = node_template(NodeTemplate::DgxH100);
  spec.fabric.kind = FabricKind::SingleSwitch;
  const Topology t = make_cluster(spec);
  const DeviceId src = t.find_device("node0/gpu0").value(), dst = t.find_device("node1/gpu0").value();
  const DeviceId cpu = t.find_device("node0/cpu0").value(), nic = t.find_device("node0/nic0").value();
  SimOptions options;
  options.detours = [&](DeviceId, DeviceId, std::uint16_t) { return Detour{{cpu, nic}, 1.2, 2}; };
  sim::detail::RouteMemo memo(t, options);
  const sim::detail::RouteView view = memo.route(src, dst, 0);
  REQUIRE(view.costs.size() == view.directions.size());
  CHECK(memo.has_costs());
  bool past_nic = false;
  int costed = 0;
  for (std::size_t i = 0; i < view.directions.size(); ++i) {
    const bool pcie = link_family(t.link(Topology::direction_link(view.directions[i])).kind) == LinkFamily::Pcie;
    CAPTURE(t.direction_name(view.directions[i]));
    CHECK(view.costs[i] == (pcie && !past_nic ? 1.2 : 1.0));
    costed += view.costs[i] != 1.0;
    past_nic = past_nic || t.direction_target(view.directions[i]) == nic;
  }
  CHECK(costed >= 2);  // up to the CPU and down to the NIC, at least one PCIe link each
  CHECK(past_nic);
  // The same route kept: the second look-up returns the same costs.
  CHECK(memo.route(src, dst, 0).costs.size() == view.costs.size());
}
