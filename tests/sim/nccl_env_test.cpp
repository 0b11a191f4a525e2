// NCCL environment settings (nccl_env.hpp): parsed as NCCL parses them, refused or warned about when
// ringlab does not model them, and what they do to NCCL's choice.
#include <catch2/catch.hpp>

#include <algorithm>
#include <stdexcept>

#include "nccl_fixtures.hpp"
#include "ringlab/sim/nccl_env.hpp"
#include "ringlab/sim/nccl_tuning.hpp"
#include "ringlab/topology/error.hpp"
#include "ringlab/topology/generators.hpp"

using namespace ringlab;
using namespace ringlab::sim;
using namespace ringlab::literals;

namespace {

NcclEnv env_of(std::initializer_list<std::pair<const char*, const char*>> settings) {
  NcclEnv env;
  for (const auto& [name, value] : settings) set_nccl_env(env, name, value);
  return env;
}

NcclModel h100_node(const NcclEnv& env = {}) {
  NcclModel m = test::h100_node_model();
  m.env = env;
  return m;
}

}  // namespace

TEST_CASE("nccl env: NCCL_ALGO lists enable what they name, '^' lists disable it, case-insensitively", "[nccl][env]") {
  const NcclEnv ring = env_of({{"NCCL_ALGO", "ring"}});
  CHECK(ring.algorithms[std::size_t(NcclAlgorithm::Ring)] == NcclEnable::On);
  CHECK(ring.algorithms[std::size_t(NcclAlgorithm::Tree)] == NcclEnable::Off);
  const NcclEnv no_tree = env_of({{"NCCL_ALGO", "^Tree"}});
  CHECK(no_tree.algorithms[std::size_t(NcclAlgorithm::Tree)] == NcclEnable::Off);
  // A '^' list sets what it does not name to 1, not to NCCL's default 2 (parseList).
  CHECK(no_tree.algorithms[std::size_t(NcclAlgorithm::Ring)] == NcclEnable::On);
  NcclEnv e;
  CHECK_THROWS_WITH(set_nccl_env(e, "NCCL_ALGO", "Ring,Fast"), Catch::Contains("unknown: Fast"));
  // Every name NCCL knows is modelled: CollNet Chain sits between CollNet Direct and NVLS, as in NCCL.
  NcclEnv chain;
  CHECK(set_nccl_env(chain, "NCCL_ALGO", "Ring,CollNetChain").empty());
  CHECK(chain.algorithms[std::size_t(NcclAlgorithm::CollNetChain)] == NcclEnable::On);
  CHECK(chain.algorithms[std::size_t(NcclAlgorithm::CollNetDirect)] == NcclEnable::Off);
  CHECK(chain.algorithms[std::size_t(NcclAlgorithm::Nvls)] == NcclEnable::Off);
  // PAT is modelled (AllGather and ReduceScatter with one GPU per node).
  NcclEnv pat;
  CHECK(set_nccl_env(pat, "NCCL_ALGO", "PAT").empty());
  CHECK(pat.algorithms[std::size_t(NcclAlgorithm::Pat)] == NcclEnable::On);
  CHECK(pat.algorithms[std::size_t(NcclAlgorithm::Ring)] == NcclEnable::Off);
}

TEST_CASE("nccl env: NCCL_ALGO and NCCL_PROTO decide which rows NCCL's model chooses among", "[nccl][env]") {
  for (const NcclEstimate& row : nccl_estimates(h100_node(env_of({{"NCCL_ALGO", "Tree"}})), Collective::AllReduce, 1_MiB))
    CHECK(row.algorithm == NcclAlgorithm::Tree);
  for (const NcclEstimate& row :
       nccl_estimates(h100_node(env_of({{"NCCL_PROTO", "Simple"}})), Collective::AllReduce, 1_MiB))
    CHECK(row.protocol == Protocol::Simple);
  // 8 bytes: NCCL's default picks LL; with LL off it cannot.
  CHECK(nccl_choose(h100_node(), Collective::AllReduce, 8_B).protocol == Protocol::LL);
  CHECK(nccl_choose(h100_node(env_of({{"NCCL_PROTO", "^LL"}})), Collective::AllReduce, 8_B).protocol != Protocol::LL);
  // Tree serves AllReduce only: forcing it leaves an allgather with nothing, as NCCL fails (from
  // 2.24; the newest tables here).
  const NcclChoice none = nccl_choose(h100_node(env_of({{"NCCL_ALGO", "Tree"}})), Collective::AllGather, 1_MiB);
  CHECK_THAT(none.unavailable, Catch::Contains("no algorithm/protocol available"));
}

TEST_CASE("nccl env: per-collective NCCL_ALGO and NCCL_PROTO entries (NCCL 2.24's parseList)", "[nccl][env]") {
  const NcclEnv e = env_of({{"NCCL_ALGO", "ring;allreduce:tree,RING;AllGather:^ring"}});
  CHECK(e.algorithms[std::size_t(NcclAlgorithm::Ring)] == NcclEnable::On);
  CHECK(e.algorithms[std::size_t(NcclAlgorithm::Tree)] == NcclEnable::Off);
  const NcclAlgorithmSet& ar = e.algorithms_for(Collective::AllReduce);
  CHECK(ar[std::size_t(NcclAlgorithm::Tree)] == NcclEnable::On);
  CHECK(ar[std::size_t(NcclAlgorithm::Ring)] == NcclEnable::On);
  CHECK(ar[std::size_t(NcclAlgorithm::Nvls)] == NcclEnable::Off);
  CHECK(e.algorithms_for(Collective::AllGather)[std::size_t(NcclAlgorithm::Ring)] == NcclEnable::Off);
  CHECK(e.algorithms_for(Collective::AllGather)[std::size_t(NcclAlgorithm::Pat)] == NcclEnable::On);
  CHECK(&e.algorithms_for(Collective::Broadcast) == &e.algorithms);  // no entry of its own
  // A prefixed entry alone leaves the other collectives at NCCL's defaults.
  const NcclEnv only_ar = env_of({{"NCCL_PROTO", "allreduce:Simple"}});
  CHECK(only_ar.protocols[std::size_t(Protocol::LL)] == NcclEnable::Default);
  CHECK(only_ar.protocols_for(Collective::AllReduce)[std::size_t(Protocol::LL)] == NcclEnable::Off);
  // What the model then allows: Simple only for allreduce, LL still for allgather.
  for (const NcclEstimate& row : nccl_estimates(h100_node(only_ar), Collective::AllReduce, 1_MiB))
    CHECK(row.protocol == Protocol::Simple);
  CHECK(nccl_choose(h100_node(only_ar), Collective::AllGather, 8_B).protocol == Protocol::LL);
  // A later setting of the variable replaces the earlier one, per-collective entries included.
  const NcclEnv replaced = env_of({{"NCCL_ALGO", "allreduce:tree"}, {"NCCL_ALGO", "ring"}});
  CHECK_FALSE(replaced.function_algorithms[std::size_t(nccl_function(Collective::AllReduce))]);
  // NCCL's errors: a prefix-less entry after the first, an unknown prefix, an empty list.
  NcclEnv bad;
  CHECK_THROWS_WITH(set_nccl_env(bad, "NCCL_ALGO", "allreduce:tree;ring"),
                    Catch::Contains("a collective prefix on every entry but the first"));
  CHECK_THROWS_WITH(set_nccl_env(bad, "NCCL_ALGO", "alltoall:ring"), Catch::Contains("unknown: alltoall"));
  CHECK_THROWS_WITH(set_nccl_env(bad, "NCCL_PROTO", "allreduce:^LL,LL128,Simple"),
                    Catch::Contains("at least one protocol enabled for every collective"));
  // Releases before 2.24 do not read them: a warning names the release.
  std::vector<std::string> warnings;
  nccl_env_from(nlohmann::json::object(), "", {"NCCL_ALGO=allreduce:tree", "version=2.23.4"}, warnings);
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings.front(), Catch::Contains("arrived in NCCL 2.24; version 2.23"));
}

TEST_CASE("nccl env: NCCL_PROTO=^LL forces LL128 on, where NCCL's default would leave it off", "[nccl][env]") {
  // Mixed compute capabilities: LL128 is off by default up to 2.29 (tuning.cc minCompCap == maxCompCap);
  // parseList sets the protocols a '^' list does not name to 1, which skips that check (as naming
  // LL128 does).
  NcclModel m = h100_node();
  m.env.version = 22907;
  m.mixed_compute = true;
  const auto has_ll128 = [&] {
    const auto rows = nccl_estimates(m, Collective::AllReduce, 1_MiB);
    return std::any_of(rows.begin(), rows.end(), [](const NcclEstimate& r) { return r.protocol == Protocol::LL128; });
  };
  CHECK_FALSE(has_ll128());
  m.env = env_of({{"NCCL_PROTO", "^LL"}});
  m.env.version = 22907;
  CHECK(has_ll128());
  m.env = env_of({{"NCCL_PROTO", "LL128,Simple"}});
  m.env.version = 22907;
  CHECK(has_ll128());
  // From 2.30.3 (the newest) LL128 stays on by default where the oldest GPU is sm 9.0 or newer
  // ("minCompCap == maxCompCap || minCompCap >= 90"), not with an Ampere among them.
  m.env = NcclEnv{};
  CHECK(has_ll128());
  m.env.version = 23003;
  CHECK(has_ll128());
  m.gpu = GpuModel::A100;
  CHECK_FALSE(has_ll128());
}

TEST_CASE("nccl env: a collective NCCL_ALGO leaves without an algorithm keeps or regains the ring by release",
          "[nccl][env]") {
  // NCCL_ALGO=Tree with NCCL_PROTO=Simple, allgather (the tree serves AllReduce only).
  const auto rows = [](const char* version) {
    NcclModel m = h100_node(env_of({{"NCCL_ALGO", "Tree"}, {"NCCL_PROTO", "Simple"}, {"version", version}}));
    return nccl_estimates(m, Collective::AllGather, 1_MiB);
  };
  // 2.18: the ring is never disabled outside AllReduce; NCCL_PROTO still applies.
  const auto v218 = rows("2.18.5");
  REQUIRE(v218.size() == 1);
  CHECK(v218.front().algorithm == NcclAlgorithm::Ring);
  CHECK(v218.front().protocol == Protocol::Simple);
  // 2.19-2.23: the ring comes back with every protocol at its bandwidth before the settings.
  const auto v223 = rows("2.23.4");
  REQUIRE(v223.size() == 3);
  for (const NcclEstimate& r : v223) CHECK(r.algorithm == NcclAlgorithm::Ring);
  // 2.24 on: nothing (NCCL fails).
  CHECK(rows("2.24.3").empty());
  // AllReduce keeps its tree in every release.
  NcclModel m = h100_node(env_of({{"NCCL_ALGO", "Tree"}, {"version", "2.18.5"}}));
  for (const NcclEstimate& r : nccl_estimates(m, Collective::AllReduce, 1_MiB)) CHECK(r.algorithm == NcclAlgorithm::Tree);
}

TEST_CASE("nccl env: channel bounds, NVLS and the Simple buffer", "[nccl][env]") {
  const NcclEnv capped = env_of({{"NCCL_MAX_NCHANNELS", "4"}});
  CHECK(capped.max_channels == 4);
  const NcclEnv both = env_of({{"NCCL_NCHANNELS", "6"}});
  CHECK(both.min_channels == 6);
  CHECK(both.max_channels == 6);
  NcclEnv e;
  // NCCL reads no NCCL_NCHANNELS (src/graph/connect.cc: MIN/MAX_NCHANNELS and the legacy NRINGS names):
  // ringlab honours it as asked, and says so.
  CHECK_THAT(set_nccl_env(e, "NCCL_NCHANNELS", "6"), Catch::Contains("NCCL itself does not read it"));
  // The socket transport's threads and streams are modelled (nccl_transport_test.cpp): no warning.
  CHECK(set_nccl_env(e, "NCCL_SOCKET_NTHREADS", "4").empty());
  CHECK(set_nccl_env(e, "NCCL_NSOCKS_PERTHREAD", "2").empty());
  CHECK(e.socket_threads == 4);
  CHECK(e.socks_per_thread == 2);
  CHECK(set_nccl_env(e, "NCCL_SOCKET_IFNAME", "eth0").empty());
  CHECK_THROWS_WITH(set_nccl_env(e, "NCCL_MAX_NCHANNELS", "0"), Catch::Contains("an integer from 1 to 32"));
  // NVLS off: NCCL's choice for 1 GiB on an H100 node falls back to the ring.
  NcclModel m = h100_node(env_of({{"NCCL_NVLS_ENABLE", "0"}}));
  m.nvls = true && m.env.nvls;
  CHECK(nccl_choose(m, Collective::AllReduce, 1_GiB).nccl_algorithm == NcclAlgorithm::Ring);
  // NCCL_BUFFSIZE: a Simple step is an eighth of the buffer (NCCL_STEPS 8).
  const NcclEnv big = env_of({{"NCCL_BUFFSIZE", "8388608"}});
  CHECK(big.buffer == 8_MiB);
  CHECK(nccl_choose(h100_node(big), Collective::AllReduce, 1_GiB).chunk == 1_MiB);
  CHECK(nccl_choose(h100_node(), Collective::AllReduce, 1_GiB).chunk == 512_KiB);
  CHECK_THROWS_WITH(set_nccl_env(e, "NCCL_BUFFSIZE", "lots"), Catch::Contains("a buffer size in bytes"));
}

TEST_CASE("nccl env: NCCL_MIN/MAX_CTAS bound the channels with NCCL_MIN/MAX_NCHANNELS, the minimum winning",
          "[nccl][env]") {
  ClusterSpec spec;
  spec.nodes = 1;
  spec.node = node_template(NodeTemplate::DgxH100);
  spec.fabric.kind = FabricKind::None;
  const Topology t = make_cluster(spec);
  const auto channels = [&](std::initializer_list<std::pair<const char*, const char*>> settings) {
    return nccl_model(t, t.gpus(), env_of(settings)).channels;
  };
  REQUIRE(channels({}) == 24);  // NCCL's ring search: 12 rings, doubled by ncclTopoPostset
  CHECK(channels({{"NCCL_MAX_CTAS", "4"}}) == 4);
  CHECK(channels({{"NCCL_MIN_CTAS", "28"}}) == 28);
  // connect.cc: max first, then min ("combining max, then min, to only use the first channels, then
  // duplicate them").
  CHECK(channels({{"NCCL_MAX_NCHANNELS", "4"}, {"NCCL_MIN_CTAS", "8"}}) == 8);
  CHECK(channels({{"NCCL_MAX_CTAS", "4"}, {"NCCL_MIN_NCHANNELS", "8"}}) == 8);
  // init.cc: minCTAs above maxCTAs becomes maxCTAs.
  CHECK(channels({{"NCCL_MIN_CTAS", "20"}, {"NCCL_MAX_CTAS", "6"}}) == 6);
  // Past MAXCHANNELS (32 before 2.25.1, 64 since) NCCL caps the config.
  CHECK(channels({{"NCCL_MIN_CTAS", "64"}, {"version", "2.23.4"}}) == 32);
  CHECK(channels({{"NCCL_MIN_CTAS", "64"}}) == 64);
  NcclEnv e;
  CHECK(set_nccl_env(e, "NCCL_MIN_CTAS", "2").empty());
  CHECK_THROWS_WITH(set_nccl_env(e, "NCCL_MAX_CTAS", "0"), Catch::Contains("an integer from 1 to 64"));
}

TEST_CASE("nccl env: what ringlab does not model is refused or warned about, never dropped", "[nccl][env]") {
  NcclEnv e;
  CHECK_THROWS_WITH(set_nccl_env(e, "OMP_NUM_THREADS", "4"), Catch::Contains("not an NCCL environment variable"));
  CHECK(set_nccl_env(e, "NCCL_DEBUG", "INFO").empty());  // logging changes nothing
  CHECK_THAT(set_nccl_env(e, "NCCL_TUNER_PLUGIN", "libnccl-ofi-tuner.so"), Catch::Contains("not modelled"));
  CHECK_THROWS_AS(split_nccl_setting("NCCL_ALGO"), std::invalid_argument);
}

TEST_CASE("nccl env: a scenario's nccl section, then --nccl-env over it, errors name /nccl/NAME", "[nccl][env]") {
  std::vector<std::string> warnings;
  const nlohmann::json section = {{"NCCL_ALGO", "Tree"}, {"NCCL_BUFFSIZE", 8388608}};
  const NcclEnv env = nccl_env_from(section, "s.json", {"NCCL_ALGO=Ring"}, warnings);
  CHECK(env.algorithms[std::size_t(NcclAlgorithm::Ring)] == NcclEnable::On);  // the command line wins
  CHECK(env.algorithms[std::size_t(NcclAlgorithm::Tree)] == NcclEnable::Off);
  CHECK(env.buffer == 8_MiB);
  CHECK(warnings.empty());
  try {
    nccl_env_from(nlohmann::json{{"NCCL_PROTO", true}}, "s.json", {}, warnings);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(e.problems().front().file == "s.json");
    CHECK(e.problems().front().location == "/nccl/NCCL_PROTO");
  }
  try {
    nccl_env_from(nlohmann::json::object(), "s.json", {"NCCL_MIN_NCHANNELS=x"}, warnings);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(e.problems().front().location == "--nccl-env");
  }
}

TEST_CASE("nccl env: version is NCCL's release, as NCCL_VERSION_CODE", "[nccl][env]") {
  CHECK(env_of({{"version", "2.20.3"}}).version == 22003);
  CHECK(env_of({{"version", "2.27"}}).version == 22700);
  NcclEnv e;
  CHECK(set_nccl_env(e, "version", "2.18.6").empty());  // 2.18.3's tables
  CHECK(set_nccl_env(e, "version", "2.18.1").empty());  // its own
  CHECK_THAT(set_nccl_env(e, "version", "2.17.1"), Catch::Contains("using 2.18.1's"));
  CHECK(e.version == 21701);
  CHECK(set_nccl_env(e, "version", "2.30.7").empty());
  CHECK_THAT(set_nccl_env(e, "version", "2.31.2"), Catch::Contains("up to 2.30.7; using those"));
  CHECK(e.version == 23102);
  CHECK_THROWS_WITH(set_nccl_env(e, "version", "3.0"), Catch::Contains("an NCCL release such as 2.20.3"));
  CHECK_THROWS_WITH(set_nccl_env(e, "version", "2.x"), Catch::Contains("an NCCL release"));
  CHECK_THROWS_WITH(set_nccl_env(e, "version", "2.20.3.1"), Catch::Contains("an NCCL release"));
}

TEST_CASE("nccl env: NCCL_IB_HCA is parsed as NCCL parses it (prefixes, ^, =, :port)", "[nccl][env]") {
  NcclEnv e;
  CHECK(set_nccl_env(e, "NCCL_IB_HCA", "mlx5_0:1,mlx5_1").empty());
  CHECK(e.ib_hca.entries.size() == 2);
  CHECK(e.ib_hca.selects("node0/mlx5_0"));
  CHECK(e.ib_hca.selects("node0/mlx5_10"));  // a prefix, as in NCCL
  CHECK_FALSE(e.ib_hca.selects("node0/mlx5_2"));
  set_nccl_env(e, "NCCL_IB_HCA", "=mlx5_1");
  CHECK(e.ib_hca.selects("node3/mlx5_1"));
  CHECK_FALSE(e.ib_hca.selects("node3/mlx5_10"));  // '=': exact names
  set_nccl_env(e, "NCCL_IB_HCA", "^nic0");
  CHECK_FALSE(e.ib_hca.selects("node1/nic0"));
  CHECK(e.ib_hca.selects("node1/nic1"));
  set_nccl_env(e, "NCCL_IB_HCA", "nic0:2");  // ringlab's NICs have port 1 only
  CHECK_FALSE(e.ib_hca.selects("node1/nic0"));
  CHECK_THROWS_WITH(set_nccl_env(e, "NCCL_IB_HCA", "mlx5_0:one"), Catch::Contains("NIC name prefixes"));
  CHECK_THROWS_WITH(set_nccl_env(e, "NCCL_IB_HCA", "^"), Catch::Contains("at least one NIC name prefix"));
}

TEST_CASE("nccl env: NCCL_DEBUG and NCCL_DEBUG_SUBSYS decide whether NCCL logs its tuning", "[nccl][env]") {
  // src/debug.cc: INFO lines print at level INFO or above (ABORT, TRACE); the default subsystems are
  // INIT, BOOTSTRAP and ENV; "^" starts from all of them and removes those listed; case is ignored.
  CHECK_FALSE(env_of({{"NCCL_DEBUG", "INFO"}}).debug_tuning);
  CHECK(env_of({{"NCCL_DEBUG", "INFO"}, {"NCCL_DEBUG_SUBSYS", "INIT,TUNING"}}).debug_tuning);
  CHECK(env_of({{"NCCL_DEBUG_SUBSYS", "tuning"}, {"NCCL_DEBUG", "trace"}}).debug_tuning);
  CHECK(env_of({{"NCCL_DEBUG", "ABORT"}, {"NCCL_DEBUG_SUBSYS", "ALL"}}).debug_tuning);
  CHECK(env_of({{"NCCL_DEBUG", "INFO"}, {"NCCL_DEBUG_SUBSYS", "^INIT,NET"}}).debug_tuning);
  CHECK_FALSE(env_of({{"NCCL_DEBUG", "INFO"}, {"NCCL_DEBUG_SUBSYS", "^TUNING"}}).debug_tuning);
  CHECK_FALSE(env_of({{"NCCL_DEBUG", "WARN"}, {"NCCL_DEBUG_SUBSYS", "TUNING"}}).debug_tuning);
  CHECK_FALSE(env_of({{"NCCL_DEBUG_SUBSYS", "TUNING"}}).debug_tuning);  // no level: no log
  // The later setting wins, as in an environment read once.
  CHECK_FALSE(env_of({{"NCCL_DEBUG", "INFO"}, {"NCCL_DEBUG_SUBSYS", "TUNING"}, {"NCCL_DEBUG", "WARN"}}).debug_tuning);
  NcclEnv e;
  CHECK_THROWS_WITH(set_nccl_env(e, "NCCL_DEBUG", "VERBOSE"), Catch::Contains("VERSION, WARN, INFO, ABORT or TRACE"));
  CHECK_THAT(set_nccl_env(e, "NCCL_DEBUG_SUBSYS", "INIT,TUNNING"), Catch::Contains("'TUNNING' is no NCCL subsystem"));
  CHECK_THAT(set_nccl_env(e, "NCCL_DEBUG_FILE", "/tmp/nccl.%h.%p"), Catch::Contains("standard error"));
}
