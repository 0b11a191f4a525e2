// RouteMemo (sim/src/engine/route_memo.hpp): routes computed together for several channels of one
// pair (route_channels) are the routes a memo that computes each channel alone keeps, with and
// without waypoints that stage some channels through host memory.
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
    options.waypoints = [&](DeviceId src, DeviceId, std::uint16_t channel) {
      return src == gpus[0] && channel % 2 == 1 ? std::vector<DeviceId>{cpu} : std::vector<DeviceId>{};
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
}
