// Schedule construction and structural checks.
#include <catch2/catch.hpp>

#include <sstream>
#include <vector>

#include "ringlab/sim/schedule.hpp"

using namespace ringlab;
using namespace ringlab::sim;
using namespace ringlab::literals;

TEST_CASE("schedule: a transfer adds a matched send/recv pair", "[schedule]") {
  const std::vector<DeviceId> ranks{10, 11};
  Schedule s(Collective::AllReduce, "test", 4_MiB, ranks);
  const OpId recv = s.add_transfer(0, 1, 0_B, 2_MiB, {});
  const OpId reduce = s.add_local(OpKind::Reduce, 1, 0_B, 2_MiB, std::vector<OpId>{recv});
  REQUIRE(s.ops().size() == 3);
  const OpId send = s.op(recv).match;
  CHECK(s.op(send).kind == OpKind::Send);
  CHECK(s.op(send).at == 0);
  CHECK(s.op(send).peer == 1);
  CHECK(s.op(send).match == recv);
  CHECK(s.deps(reduce).size() == 1);
  CHECK(s.check().empty());
  std::ostringstream out;
  s.print(out);
  CHECK(out.str().find("send 2MiB @0B -> rank 1") != std::string::npos);
}

TEST_CASE("schedule: busbw factors follow nccl-tests' PERFORMANCE.md", "[schedule]") {
  CHECK(busbw_factor(Collective::AllReduce, 8) == Approx(14.0 / 8.0));
  CHECK(busbw_factor(Collective::AllGather, 4) == Approx(0.75));
  CHECK(busbw_factor(Collective::ReduceScatter, 4) == Approx(0.75));
  CHECK(busbw_factor(Collective::Broadcast, 16) == 1.0);
}
