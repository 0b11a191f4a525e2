// The reference executor run over every algorithm x collective x rank count 1..17 x awkward element
// counts (1, p-1, 7p+3, and a chunked 3-channel case): each schedule must compute exactly what its
// collective promises, under three dependency-respecting execution orders. Combinations a builder
// rejects must be rejected with the documented message.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "collective_fixtures.hpp"
#include "ringlab/sim/collectives.hpp"
#include "ringlab/sim/reference_executor.hpp"

using namespace ringlab;
using namespace ringlab::sim;
using namespace ringlab::literals;
using ringlab::test::Cluster;

namespace {

constexpr std::int64_t kFp32 = 4;
constexpr int kMaxRanks = 17;
constexpr int kChunkedChannels = 3;
constexpr std::int64_t kChunkElements = 2;

struct Variant {
  std::string name;
  Algorithm algorithm;
  Hierarchy hierarchy = Hierarchy::Leader;
  InterAlgorithm inter = InterAlgorithm::Ring;
  bool node_shaped = false;  ///< also try nodes of unequal size
};

const std::vector<Variant>& variants() {
  static const std::vector<Variant> all{
      {"ring", Algorithm::Ring},
      {"tree", Algorithm::Tree},
      {"hierarchical(leader,ring)", Algorithm::Hierarchical, Hierarchy::Leader, InterAlgorithm::Ring, true},
      {"hierarchical(leader,tree)", Algorithm::Hierarchical, Hierarchy::Leader, InterAlgorithm::Tree, true},
      {"hierarchical(rail,ring)", Algorithm::Hierarchical, Hierarchy::Rail, InterAlgorithm::Ring, true},
      {"hierarchical(rail,tree)", Algorithm::Hierarchical, Hierarchy::Rail, InterAlgorithm::Tree, true},
      {"ring2d", Algorithm::Ring2D, Hierarchy::Leader, InterAlgorithm::Ring, true},
      {"halving_doubling", Algorithm::HalvingDoubling},
      {"direct", Algorithm::Direct},
      {"reduce_broadcast", Algorithm::ReduceBroadcast},
      {"parameter_server", Algorithm::ParameterServer},
      {"in_network", Algorithm::InNetwork},
      {"nccl", Algorithm::Nccl},
  };
  return all;
}

constexpr Collective kCollectives[] = {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather,
                                       Collective::Broadcast, Collective::Reduce};

/// The documented rejection for this combination, or "" when the builder must accept it.
std::string expected_rejection(const Variant& v, Collective c, int p, bool equal_nodes, const Payload& payload) {
  if (!supports(v.algorithm, c)) return "does not implement";
  if (payload.quantized() && v.algorithm == Algorithm::InNetwork) return "compression is not supported";
  if (v.algorithm == Algorithm::HalvingDoubling && (p & (p - 1)) != 0) return "needs a power-of-two rank count";
  const bool owner_blocks = c == Collective::ReduceScatter || c == Collective::AllGather;
  if (v.algorithm == Algorithm::Hierarchical && owner_blocks && v.hierarchy == Hierarchy::Leader)
    return "leader mode has no";
  if (v.algorithm == Algorithm::Hierarchical && owner_blocks && v.inter == InterAlgorithm::Tree)
    return "has no tree form between nodes";
  const bool rail = v.algorithm == Algorithm::Ring2D ||
                    (v.algorithm == Algorithm::Hierarchical && v.hierarchy == Hierarchy::Rail);
  if (rail && !equal_nodes && p >= 2) return "every node needs the same number of ranks";
  return "";
}

/// Clusters to run `v` on with p ranks: (cluster, ranks, all nodes equal).
struct Shape {
  Cluster cluster;
  std::vector<DeviceId> ranks;
  bool equal_nodes = true;
};

std::vector<Shape> shapes(const Variant& v, int p) {
  std::vector<Shape> out;
  const int per_host = p % 2 == 0 ? 2 : (p % 3 == 0 ? 3 : 1);
  Shape equal{test::leaf_cluster(p / per_host, per_host, 100_Gbps, 1_us, 1_us, true), {}, true};
  equal.ranks = equal.cluster.gpus;
  out.push_back(std::move(equal));
  if (v.node_shaped && p >= 3 && p % 2 == 1) {  // two GPUs per host, the last host has one
    Shape unequal{test::leaf_cluster((p + 1) / 2, 2, 100_Gbps, 1_us, 1_us, true), {}, false};
    unequal.ranks.assign(unequal.cluster.gpus.begin(), unequal.cluster.gpus.begin() + p);
    out.push_back(std::move(unequal));
  }
  return out;
}

struct Case {
  std::int64_t elements;
  int channels;
  std::int64_t chunk_elements;  ///< 0: no chunking
};

std::vector<Case> cases(int p) {
  std::vector<Case> out{{1, 1, 0}, {7 * std::int64_t(p) + 3, 1, 0}};
  if (p > 2) out.push_back({p - 1, 1, 0});
  out.push_back({13 * std::int64_t(p) + 5, kChunkedChannels, kChunkElements});
  return out;
}

struct Tally {
  int executed = 0;
  int rejected = 0;
  std::vector<std::string> failures;
};

void run_variant(const Variant& v, const Payload& payload, Tally& tally) {
  for (int p = 1; p <= kMaxRanks; ++p)
    for (Shape& shape : shapes(v, p))
      for (Collective c : kCollectives)
        for (const Case& k : cases(p)) {
          CollectiveSpec spec;
          spec.collective = c;
          spec.algorithm = v.algorithm;
          spec.hierarchy = v.hierarchy;
          spec.inter = v.inter;
          spec.message = Bytes{k.elements * kFp32};
          spec.channels = k.channels;
          spec.chunk = Bytes{k.chunk_elements * kFp32};
          spec.root = p / 2;
          spec.payload = payload;
          std::ostringstream where;
          where << v.name << ' ' << to_string(c) << " p=" << p << (shape.equal_nodes ? "" : " (unequal nodes)")
                << " n=" << k.elements << " channels=" << k.channels << " chunk=" << k.chunk_elements << ": ";
          const std::string rejection = expected_rejection(v, c, p, shape.equal_nodes, payload);
          std::optional<Schedule> s;
          try {
            s.emplace(build_schedule(shape.cluster.topology, shape.ranks, spec));
          } catch (const std::invalid_argument& e) {
            if (rejection.empty() || std::string(e.what()).find(rejection) == std::string::npos)
              tally.failures.push_back(where.str() + "unexpected rejection: " + e.what());
            else
              ++tally.rejected;
            continue;
          }
          if (!rejection.empty()) {
            tally.failures.push_back(where.str() + "accepted, expected rejection '" + rejection + "'");
            continue;
          }
          const std::vector<std::string> problems = s->check();
          if (!problems.empty()) {
            tally.failures.push_back(where.str() + "check(): " + problems.front());
            continue;
          }
          std::vector<std::vector<double>> inputs(std::size_t(p), std::vector<double>(std::size_t(k.elements)));
          for (int r = 0; r < p; ++r)
            for (std::int64_t i = 0; i < k.elements; ++i) inputs[std::size_t(r)][std::size_t(i)] = test::exec_input(r, i);
          for (ExecOrder order : {ExecOrder::LowestFirst, ExecOrder::HighestFirst, ExecOrder::Random}) {
            std::string problem;
            try {
              problem = test::verify_collective(c, p, spec.root, k.elements, execute_schedule(*s, inputs, ExecOptions{order, 7}));
            } catch (const ExecutionError& e) {
              problem = e.what();
            }
            if (!problem.empty()) {
              tally.failures.push_back(where.str() + "order " + std::to_string(int(order)) + ": " + problem);
              break;
            }
          }
          ++tally.executed;
        }
}

}  // namespace

namespace {

/// Every variant in its own section, failures listed together (the first 20) to see a bug's pattern.
void run_all(const Payload& payload) {
  for (const Variant& v : variants()) {
    DYNAMIC_SECTION(v.name) {
      Tally tally;
      run_variant(v, payload, tally);
      std::string report;
      for (std::size_t i = 0; i < std::min<std::size_t>(tally.failures.size(), 20); ++i)
        report += tally.failures[i] + '\n';
      INFO(v.name << ": " << tally.executed << " executed, " << tally.rejected << " rejected, "
                  << tally.failures.size() << " failures\n"
                  << report);
      CHECK(tally.failures.empty());
      if (!(payload.quantized() && v.algorithm == Algorithm::InNetwork)) CHECK(tally.executed > 0);
    }
  }
}

}  // namespace

TEST_CASE("reference executor: every algorithm computes its collectives exactly", "[executor]") {
  run_all(Payload{});
}

// Quantisation is the identity on values here, so this checks the data flow of encoded payloads:
// Encode before a send, forwarding of the encoded form, Decode after every receive.
TEST_CASE("reference executor: quantised payloads move the same values (identity codec)", "[executor]") {
  Payload fp8;
  fp8.compression = Compression::quantize(DataType::Fp8);
  run_all(fp8);
}

TEST_CASE("reference executor: top-k schedules are refused", "[executor]") {
  const Cluster c = test::leaf_cluster(4, 1, 100_Gbps, 1_us);
  CollectiveSpec spec;
  spec.payload.compression = Compression::topk(0.25);
  spec.message = Bytes{64 * kFp32};
  const Schedule s = build_schedule(c.topology, c.gpus, spec);
  REQUIRE(s.check().empty());
  const std::vector<std::vector<double>> inputs(4, std::vector<double>(64, 1.0));
  CHECK_THROWS_AS(execute_schedule(s, inputs), ExecutionError);
}

TEST_CASE("reference executor: a missing dependency shows up as a race", "[executor]") {
  const Cluster c = test::leaf_cluster(2, 1, 100_Gbps, 1_us);
  Schedule s(Collective::Reduce, "hand", Bytes{4 * kFp32}, c.gpus);
  const Chunk all{0, 4};
  s.add_transfer(0, 1, Buffer::Data, Buffer::Inbox, RecvMode::Overwrite, all, Bytes{4 * kFp32}, {});
  // The Reduce forgets to wait for the Recv: run first, it finds an empty inbox.
  s.add_local(OpKind::Reduce, 1, 0, Buffer::Inbox, Buffer::Data, all, Bytes{4 * kFp32}, {});
  REQUIRE(s.check().empty());
  const std::vector<std::vector<double>> inputs(2, std::vector<double>(4, 1.0));
  CHECK_THROWS_AS(execute_schedule(s, inputs, ExecOptions{ExecOrder::HighestFirst}), ExecutionError);
  const auto out = execute_schedule(s, inputs, ExecOptions{ExecOrder::LowestFirst});
  CHECK(out[1] == std::vector<double>(4, 2.0));
}

TEST_CASE("reference executor: a source overwritten while in flight is a race", "[executor]") {
  const Cluster c = test::leaf_cluster(2, 1, 100_Gbps, 1_us);
  Schedule s(Collective::AllReduce, "hand", Bytes{4 * kFp32}, c.gpus);
  const Chunk all{0, 4};
  const Bytes bytes{4 * kFp32};
  // #0/#1: rank 0 sends its data to rank 1. #2/#3: rank 1 sends to rank 0's inbox. #4: rank 0
  // reduces that into its data after its own Send (#0) but not after rank 1 received it (#1).
  s.add_transfer(0, 1, Buffer::Data, Buffer::Data, RecvMode::Overwrite, all, bytes, {});
  s.add_transfer(1, 0, Buffer::Data, Buffer::Inbox, RecvMode::Overwrite, all, bytes, {});
  s.add_local(OpKind::Reduce, 0, 1, Buffer::Inbox, Buffer::Data, all, bytes, std::vector<OpId>{0, 3});
  REQUIRE(s.check().empty());
  const std::vector<std::vector<double>> inputs{std::vector<double>(4, 1.0), std::vector<double>(4, 2.0)};
  CHECK_THROWS_WITH(execute_schedule(s, inputs, ExecOptions{ExecOrder::HighestFirst}),
                    Catch::Contains("changed while the transfer was in flight"));
  // Without the check the Send's snapshot is what arrives.
  ExecOptions lenient{ExecOrder::HighestFirst};
  lenient.check_in_flight = false;
  const auto out = execute_schedule(s, inputs, lenient);
  CHECK(out[0] == std::vector<double>(4, 3.0));
  CHECK(out[1] == std::vector<double>(4, 1.0));
}
