// Rank orders from files and scenarios, checked against the closed form of the two-racks case.
//
// Cluster (written as a scenario, so the whole path from file to time is exercised): two racks, each a
// ToR with 8 single-GPU hosts (GPU - NIC - ToR, every link B = 100 Gb/s, no latency or overhead) and
// ONE uplink of B to a core switch. Ring allreduce of N bytes over p = 16 ranks, compute off.
// Each ring edge carries one flow per step (one connection per neighbour pair), every NIC link
// carries one flow per direction, and the k edges that go from rack 0 to rack 1 share rack 0's uplink
// (the k edges back share the other direction; a ring crosses as often one way as the other). Those
// flows run at B/k and stay in lockstep (every other flow is faster and never delays them), so
//   t = 2(p-1) * k * N/(pB)
// (contention_test.cpp derives the k = 1 and k = 4 cases for p = 8).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ringlab/sim/rank_order.hpp"
#include "ringlab/sim/run_collective.hpp"
#include "ringlab/topology/error.hpp"
#include "ringlab/topology/scenario.hpp"

using namespace ringlab;
using namespace ringlab::sim;
using namespace ringlab::literals;

namespace {

constexpr int kRacks = 2;
constexpr int kHostsPerRack = 8;
constexpr int kRanks = kRacks * kHostsPerRack;
constexpr Bandwidth kB = 100_Gbps;

std::string host_name(int rack, int host) { return "r" + std::to_string(rack) + "h" + std::to_string(host); }

nlohmann::json link(const std::string& a, const std::string& b) {
  return {{"a", a}, {"b", b}, {"kind", "custom"}, {"bandwidth", "100Gbps"}, {"latency", "0"}};
}

/// The two-racks cluster as a scenario; `gpus_per_host` GPUs per host, each with its own NIC.
Scenario two_racks(int gpus_per_host = 1) {
  nlohmann::json c;
  c["racks"] = nlohmann::json::array();
  c["hosts"] = nlohmann::json::array();
  c["devices"] = nlohmann::json::array({{{"name", "core"}, {"kind", "core"}}});
  c["links"] = nlohmann::json::array();
  for (int r = 0; r < kRacks; ++r) {
    const std::string rack = "rack" + std::to_string(r);
    const std::string tor = "tor" + std::to_string(r);
    c["racks"].push_back({{"name", rack}});
    c["devices"].push_back({{"name", tor}, {"kind", "leaf"}, {"rack", rack}});
    c["links"].push_back(link(tor, "core"));  // the single uplink
    for (int h = 0; h < kHostsPerRack; ++h) {
      const std::string host = host_name(r, h);
      c["hosts"].push_back({{"name", host}, {"rack", rack}});
      for (int g = 0; g < gpus_per_host; ++g) {
        const std::string gpu = host + "/gpu" + std::to_string(g);
        const std::string nic = host + "/nic" + std::to_string(g);
        c["devices"].push_back({{"name", gpu}, {"kind", "gpu"}, {"host", host}});
        c["devices"].push_back({{"name", nic}, {"kind", "nic"}, {"host", host}});
        c["links"].push_back(link(gpu, nic));
        c["links"].push_back(link(nic, tor));
      }
    }
  }
  return scenario_from_json({{"ringlab", 1}, {"name", "two-racks-16"}, {"cluster", c}}, "two-racks-16.json");
}

/// Writes `text` to a fresh file in the test's temporary directory and returns its path.
std::string write_file(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "ringlab_rank_order_test";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

Duration ring_time(const Topology& topology, const RankOrder& order, Bytes n, int channels = 1) {
  CollectiveRequest request;
  request.message = n;
  request.order = order;
  request.channels = channels;
  request.options.calibration.model_compute = false;
  const CollectiveOutcome outcome = run_collective(topology, request);
  REQUIRE(outcome.applicable());
  return outcome.result->time;
}

/// Ring edges that leave rack 0 for rack 1 (rack of a rank: its host name's second character).
int crossings(const std::vector<std::string>& hosts) {
  int k = 0;
  for (std::size_t i = 0; i < hosts.size(); ++i)
    k += hosts[i][1] == '0' && hosts[(i + 1) % hosts.size()][1] == '1' ? 1 : 0;
  return k;
}

std::string lines(const std::vector<std::string>& names) {
  std::string text = "# ring order, one host per line\n";
  for (const std::string& n : names) text += n + "\n";
  return text;
}

Duration closed_form(int k, Bytes n) {
  const double step_s = double(n.count()) / kRanks * 8.0 / kB.bits_per_second();
  return Duration::from_seconds(2.0 * (kRanks - 1) * k * step_s);
}

}  // namespace

TEST_CASE("rank-order files on two racks with one uplink give the closed-form ring time", "[rank_order]") {
  const Scenario s = two_racks();
  const Bytes n = 64_MiB;
  std::vector<std::string> block;
  std::vector<std::string> interleaved;
  for (int r = 0; r < kRacks; ++r)
    for (int h = 0; h < kHostsPerRack; ++h) block.push_back(host_name(r, h));
  for (int h = 0; h < kHostsPerRack; ++h)
    for (int r = 0; r < kRacks; ++r) interleaved.push_back(host_name(r, h));
  // A fixed shuffle, by hand: racks 0 0 1 0 1 1 0 1 1 0 0 1 0 1 0 1 -> 0->1 edges at positions
  // 1, 3, 6, 9, 12, 14 = 6 crossings each way.
  const std::vector<std::string> shuffled = {"r0h3", "r0h0", "r1h5", "r0h7", "r1h1", "r1h0", "r0h2", "r1h7",
                                             "r1h3", "r0h5", "r0h1", "r1h2", "r0h6", "r1h6", "r0h4", "r1h4"};
  REQUIRE(crossings(block) == 1);
  REQUIRE(crossings(interleaved) == 8);
  REQUIRE(crossings(shuffled) == 6);

  for (const auto& [name, hosts, k] : {std::tuple{"block", block, 1}, std::tuple{"interleaved", interleaved, 8},
                                       std::tuple{"shuffled", shuffled, 6}}) {
    const RankOrder order = load_rank_order(s.cluster, write_file(std::string(name) + ".txt", lines(hosts)), 0);
    REQUIRE(order.size() == kRanks);
    CHECK(s.cluster.device(order.ranks[0]).name == hosts[0] + "/gpu0");
    INFO(name);
    CHECK(ring_time(s.cluster, order, n).seconds() == Approx(closed_form(k, n).seconds()).epsilon(1e-9));
  }
}

TEST_CASE("the default order is declaration order and the scenario's rank_order is honoured", "[rank_order]") {
  Scenario s = two_racks();
  const RankOrder declared = declaration_order(s.cluster);
  CHECK(declared.ranks == s.cluster.gpus());
  CHECK(declared.source == "declaration order");

  ProblemList problems("two-racks-16.json");
  JsonReader reader(problems);
  nlohmann::json names = nlohmann::json::array();
  for (int h = 0; h < kHostsPerRack; ++h)
    for (int r = 0; r < kRacks; ++r) names.push_back(host_name(r, h) + "/gpu0");
  const auto order = read_rank_order(s.cluster, reader, JsonNode{&names, "/simulate/rank_order"}, 0);
  REQUIRE(order);
  CHECK(problems.empty());
  CHECK(s.cluster.device(order->ranks[1]).name == "r1h0/gpu0");
  CHECK(order->digest(s.cluster) != declared.digest(s.cluster));
  CHECK(order->digest(s.cluster) == order->digest(s.cluster));
  CHECK(order->to_json(s.cluster) == names);
}

TEST_CASE("hostfiles work as they are: one host per line, slots=N, host:N, one line per task", "[rank_order]") {
  const Scenario s = two_racks(4);  // 16 hosts x 4 GPUs
  auto name_of = [&](const RankOrder& o, int r) { return s.cluster.device(o.ranks[std::size_t(r)]).name; };

  // Open MPI hostfile, one host per line: each host stands for its 4 GPUs in local order.
  std::string ompi;
  for (int h = kHostsPerRack - 1; h >= 0; --h) ompi += host_name(0, h) + " slots=4\n";
  const RankOrder a = parse_rank_order_text(s.cluster, ompi, "hosts", 32);
  CHECK(name_of(a, 0) == "r0h7/gpu0");
  CHECK(name_of(a, 3) == "r0h7/gpu3");
  CHECK(name_of(a, 4) == "r0h6/gpu0");

  // Bare host names, slots and MPICH counts, comma lists, and SLURM_HOSTFILE's one line per task.
  const RankOrder b = parse_rank_order_text(
      s.cluster, "r1h0\nr1h1 slots=2\nr1h1:2  # the other two\nr1h2,r1h3\nr1h4\nr1h4\nr1h4\nr1h4\n", "mixed", 20);
  CHECK(name_of(b, 0) == "r1h0/gpu0");
  CHECK(name_of(b, 4) == "r1h1/gpu0");
  CHECK(name_of(b, 7) == "r1h1/gpu3");
  CHECK(name_of(b, 8) == "r1h2/gpu0");
  CHECK(name_of(b, 12) == "r1h3/gpu0");
  CHECK(name_of(b, 16) == "r1h4/gpu0");
  CHECK(name_of(b, 19) == "r1h4/gpu3");
  CHECK(b.size() == 20);  // 4 + 2 + 2 + (4 + 4) + 4 x 1
}

TEST_CASE("bad rank orders are errors naming the file and line", "[rank_order]") {
  const Scenario s = two_racks();
  auto problems_of = [&](const std::string& text, int count) {
    try {
      parse_rank_order_text(s.cluster, text, "order.txt", count);
    } catch (const InputError& e) {
      std::vector<std::string> out;
      for (const Problem& p : e.problems()) out.push_back(p.to_string());
      return out;
    }
    return std::vector<std::string>{};
  };
  auto first = [&](const std::string& text, int count) {
    const auto p = problems_of(text, count);
    REQUIRE(!p.empty());
    return p.front();
  };
  CHECK_THAT(first("r0h0\n\n# comment\nr9h9\n", 2), Catch::StartsWith("order.txt: line 4: unknown GPU or host 'r9h9'"));
  CHECK_THAT(first("r0h0/gpu0\nr0h1\nr0h0\n", 3),
             Catch::StartsWith("order.txt: line 3: GPU r0h0/gpu0 is already rank 0 (line 1)"));
  CHECK_THAT(first("r0h0\nr0h1\n", 0), Catch::Contains("the order names 2 GPUs; the run needs 16"));
  CHECK_THAT(first("r0h0 slots=2\n", 2), Catch::StartsWith("order.txt: line 1: host r0h0 has 1 GPUs"));
  CHECK_THAT(first("r0h0:x\n", 1), Catch::StartsWith("order.txt: line 1: expected a positive count"));
  CHECK_THAT(first("r0h0 oops\n", 1), Catch::StartsWith("order.txt: line 1: unexpected 'oops'"));
  CHECK_THROWS_AS(load_rank_order(s.cluster, "/nonexistent/order.txt", 0), InputError);
}

TEST_CASE("a plan JSON carries the order and per-channel rings", "[rank_order]") {
  const Scenario s = two_racks();
  nlohmann::json ranks = nlohmann::json::array();
  for (int r = 0; r < kRacks; ++r)
    for (int h = 0; h < kHostsPerRack; ++h) ranks.push_back(host_name(r, h));
  std::vector<int> reversed;
  for (int r = kRanks - 1; r >= 0; --r) reversed.push_back(r);
  const nlohmann::json plan = {{"schema", "ringlab.plan"},
                               {"rank_order", {{"ranks", ranks}, {"channel_rings", {reversed}}}}};
  const RankOrder order = load_rank_order(s.cluster, write_file("plan.json", plan.dump(2)), 0);
  CHECK(order.size() == kRanks);
  REQUIRE(order.per_channel());
  CHECK(order.channel_rings.front() == reversed);

  nlohmann::json bad = plan;
  bad["rank_order"]["channel_rings"] = {{0, 1, 1}};
  try {
    load_rank_order(s.cluster, write_file("bad-plan.json", bad.dump(2)), 0);
    FAIL("a ring that repeats a rank was accepted");
  } catch (const InputError& e) {
    REQUIRE(!e.problems().empty());
    CHECK(e.problems().front().location == "/rank_order/channel_rings/0/2");
  }
}

TEST_CASE("per-channel rings from a plan change the time as the uplink sharing says", "[rank_order]") {
  // Two channels, each carrying N/2. Every uplink direction is shared by the crossing flows of both
  // channels: c0 + c1 of them, each at B/(c0 + c1), and every other flow is faster, so
  //   t = 2(p-1) * (N/2p) / (B/(c0 + c1)) = (p-1)(c0 + c1) N/(pB).
  // block + block: c = 1 + 1; block + interleaved: 1 + 8; interleaved + interleaved: 8 + 8.
  const Scenario s = two_racks();
  const Bytes n = 64_MiB;
  std::vector<int> block(kRanks);
  std::vector<int> interleaved;
  for (int r = 0; r < kRanks; ++r) block[std::size_t(r)] = r;  // declaration order is rack-contiguous
  for (int h = 0; h < kHostsPerRack; ++h)
    for (int r = 0; r < kRacks; ++r) interleaved.push_back(r * kHostsPerRack + h);
  const double unit = double(n.count()) / kRanks * 8.0 / kB.bits_per_second();  // N/(pB) in seconds
  for (const auto& [rings, crossings] : {std::pair{std::vector{block, block}, 2},
                                         std::pair{std::vector{block, interleaved}, 9},
                                         std::pair{std::vector{interleaved, interleaved}, 16}}) {
    nlohmann::json names = nlohmann::json::array();
    for (DeviceId g : s.cluster.gpus()) names.push_back(s.cluster.device(g).name);
    const nlohmann::json plan = {{"rank_order", {{"ranks", names}, {"channel_rings", rings}}}};
    const RankOrder order = load_rank_order(s.cluster, write_file("channels.json", plan.dump()), 0);
    REQUIRE(order.per_channel());
    INFO("crossing flows per uplink direction: " << crossings);
    CHECK(ring_time(s.cluster, order, n, 2).seconds() == Approx((kRanks - 1) * crossings * unit).epsilon(1e-9));
  }
}
