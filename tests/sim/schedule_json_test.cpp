// The "ringlab.schedule" JSON form: write -> read -> write is byte-identical and simulates to the
// same time, for schedules of every op kind, buffer and endpoint role; bad files are rejected with
// an InputError naming the JSON path.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "collective_fixtures.hpp"
#include "ringlab/sim/collectives.hpp"
#include "ringlab/sim/schedule_json.hpp"
#include "ringlab/sim/simulator.hpp"
#include "ringlab/topology/error.hpp"

using namespace ringlab;
using namespace ringlab::sim;
using namespace ringlab::literals;
using ringlab::test::Cluster;

namespace {

constexpr std::int64_t kFp32 = 4;
constexpr int kHosts = 3;
constexpr int kGpusPerHost = 2;

std::string to_json(const Schedule& s, const Topology* t) {
  std::ostringstream out;
  write_schedule_json(out, s, t);
  return out.str();
}

struct Named {
  std::string name;
  CollectiveSpec spec;
};

std::vector<Named> specs() {
  std::vector<Named> out;
  auto add = [&](std::string name, Algorithm a, Collective c, Compression comp = Compression::none()) {
    CollectiveSpec s;
    s.algorithm = a;
    s.collective = c;
    s.payload.compression = comp;
    s.message = Bytes{1003 * kFp32};
    s.channels = 2;
    s.chunk = Bytes{64 * kFp32};
    s.root = 1;
    out.push_back({std::move(name), s});
  };
  add("ring allreduce", Algorithm::Ring, Collective::AllReduce);
  add("ring reducescatter", Algorithm::Ring, Collective::ReduceScatter);
  add("tree reduce", Algorithm::Tree, Collective::Reduce);
  add("hierarchical allreduce", Algorithm::Hierarchical, Collective::AllReduce);
  add("ring2d allgather", Algorithm::Ring2D, Collective::AllGather);
  add("parameter_server", Algorithm::ParameterServer, Collective::AllReduce);
  add("in_network", Algorithm::InNetwork, Collective::AllReduce);
  add("nccl", Algorithm::Nccl, Collective::AllReduce);
  add("ring fp8", Algorithm::Ring, Collective::AllReduce, Compression::quantize(DataType::Fp8));
  add("direct topk", Algorithm::Direct, Collective::AllReduce, Compression::topk(0.05));
  return out;
}

}  // namespace

TEST_CASE("schedule json: round trip is byte-identical and simulates identically", "[schedule_json]") {
  const Cluster c = test::leaf_cluster(kHosts, kGpusPerHost, 100_Gbps, 1_us, 1_us, true);
  for (const Named& n : specs()) {
    INFO(n.name);
    const Schedule original = build_schedule(c.topology, c.gpus, n.spec);
    for (const Topology* t : {&c.topology, static_cast<const Topology*>(nullptr)}) {
      const std::string first = to_json(original, t);
      const Schedule read = read_schedule_json(nlohmann::json::parse(first), c.topology, "roundtrip.json");
      CHECK(to_json(read, t) == first);
      REQUIRE(read.ops().size() == original.ops().size());
      CHECK(read.payload().dtype == original.payload().dtype);
      CHECK(read.protocol() == original.protocol());
      CHECK(read.channel_count() == original.channel_count());
      const Result a = Simulator(c.topology).run(original);
      const Result b = Simulator(c.topology).run(read);
      CHECK(a.time == b.time);
    }
  }
}

TEST_CASE("schedule json: bad input names the file and the JSON path", "[schedule_json]") {
  const Cluster c = test::leaf_cluster(2, 1, 100_Gbps, 1_us);
  CollectiveSpec spec;
  spec.message = Bytes{10 * kFp32};
  const Schedule s = build_schedule(c.topology, c.gpus, spec);
  const nlohmann::json good = nlohmann::json::parse(to_json(s, &c.topology));
  auto rejects = [&](nlohmann::json doc, const std::string& where) {
    try {
      read_schedule_json(doc, c.topology, "bad.json");
    } catch (const InputError& e) {
      bool found = false;
      for (const Problem& p : e.problems()) found = found || (p.file == "bad.json" && p.location == where);
      INFO(e.what());
      CHECK(found);
      return;
    }
    FAIL("accepted a bad schedule; expected a problem at " << where);
  };
  CHECK_NOTHROW(read_schedule_json(good, c.topology, "good.json"));
  {
    auto doc = good;
    doc["schema"] = "ringlab.topology";
    rejects(doc, "/schema");
  }
  {
    auto doc = good;
    doc["version"] = 2;
    rejects(doc, "/version");
  }
  {
    auto doc = good;
    doc["endpoints"][0]["device"] = "nowhere";
    rejects(doc, "/endpoints/0/device");
  }
  {
    auto doc = good;
    doc["ops"][0][0] = "teleport";
    rejects(doc, "/ops/0/0");
  }
  {
    auto doc = good;
    doc["ops"][1][6] = 3;  // the recv's range no longer matches its send
    rejects(doc, "/ops/1");
  }
  {
    auto doc = good;
    doc["ops"][0][11] = nlohmann::json::array({5});
    rejects(doc, "/ops/0/11/0");
  }
  {
    auto doc = good;
    doc["ops"][0][7] = 1000;  // beyond the 10-element buffer
    rejects(doc, "/ops/0");
  }
  {
    auto doc = good;
    doc["channels"] = 4;
    rejects(doc, "/channels");
  }
}
