// Levels: every executable schedule, run level by level in memory exactly as the harness runs it
// (transfers of a level read their sources when issued, then land; then the level's local ops), gives
// the values pattern.hpp expects; a Send and its Recv share a level; and what cannot be executed is
// named. This checks the harness's execution order without MPI or a GPU.
#include <catch2/catch.hpp>

#include <map>

#include "ringlab/sim/collectives.hpp"
#include "ringlab/sim/rank_order.hpp"
#include "ringlab/topology/scenario.hpp"
#include "ringlab/validate/levels.hpp"
#include "ringlab/validate/pattern.hpp"

using namespace ringlab;
using namespace ringlab::validate;

namespace {

struct Memory {
  std::vector<double> data;
  std::map<sim::Endpoint, std::vector<double>> inbox;
  std::vector<double>& buffer(sim::Buffer b, sim::Endpoint slot) { return b == sim::Buffer::Inbox ? inbox[slot] : data; }
};

CheckShape shape_of(const sim::Schedule& s, int rank, std::int64_t count) {
  const bool blocked = s.collective() == sim::Collective::ReduceScatter || s.collective() == sim::Collective::AllGather;
  return CheckShape{CheckedCollective(int(s.collective())), s.rank_count(), rank, s.root(),
                    blocked ? count / s.rank_count() : count};
}

/// Runs `s` level by level; returns the number of wrong elements over all ranks.
std::int64_t run_levels(const sim::Schedule& s) {
  const int p = s.rank_count();
  const std::int64_t count = s.message().count() / s.payload().element_bytes();
  const std::vector<RankProgram> programs = compile_programs(s);
  std::vector<Memory> mem(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) {
    const CheckShape shape = shape_of(s, r, count);
    for (std::int64_t i = 0; i < count; ++i) mem[std::size_t(r)].data.push_back(initial_value(shape, i));
    for (sim::Endpoint peer : inbox_peers(s, sim::Endpoint(r))) mem[std::size_t(r)].inbox[peer].assign(std::size_t(count), 0);
  }
  const std::size_t levels = programs.front().levels.size();
  for (std::size_t l = 0; l < levels; ++l) {
    std::map<sim::OpId, std::vector<double>> wire;  // by Send id
    for (int r = 0; r < p; ++r)
      for (sim::OpId id : programs[std::size_t(r)].levels[l].transfers) {
        const sim::Op& op = s.op(id);
        if (op.kind != sim::OpKind::Send) continue;
        const auto& src = mem[std::size_t(r)].buffer(op.src, sim::Endpoint(r));
        wire[id].assign(src.begin() + op.first, src.begin() + op.first + op.count);
      }
    for (int r = 0; r < p; ++r)
      for (sim::OpId id : programs[std::size_t(r)].levels[l].transfers) {
        const sim::Op& op = s.op(id);
        if (op.kind != sim::OpKind::Recv) continue;
        REQUIRE(wire.count(op.match) == 1);  // the Send ran in the same level
        auto& dst = mem[std::size_t(r)].buffer(op.dst, op.peer);
        std::copy(wire[op.match].begin(), wire[op.match].end(), dst.begin() + op.first);
      }
    for (int r = 0; r < p; ++r)
      for (sim::OpId id : programs[std::size_t(r)].levels[l].local) {
        const sim::Op& op = s.op(id);
        auto& dst = mem[std::size_t(r)].buffer(op.dst, op.peer);
        const auto src = mem[std::size_t(r)].buffer(op.src, op.peer);  // a copy: src may alias dst
        for (std::int64_t i = op.first; i < op.first + op.count; ++i)
          dst[std::size_t(i)] = op.kind == sim::OpKind::Reduce ? dst[std::size_t(i)] + src[std::size_t(i)] : src[std::size_t(i)];
      }
  }
  std::int64_t wrong = 0;
  for (int r = 0; r < p; ++r) {
    const CheckShape shape = shape_of(s, r, count);
    for (std::int64_t i = 0; i < count; ++i) {
      double want = 0;
      if (expected_value(shape, i, &want) && mem[std::size_t(r)].data[std::size_t(i)] != want) ++wrong;
    }
  }
  return wrong;
}

const Scenario& cluster() {
  static const Scenario s = load_scenario(std::string(RINGLAB_SOURCE_DIR) + "/scenarios/brief-4x8-v100.json");
  return s;
}

/// Ranks over `hosts` hosts, `per_host` GPUs each (node<h>/gpu<g>).
std::vector<DeviceId> spread_ranks(int hosts, int per_host) {
  std::vector<DeviceId> ranks;
  for (int h = 0; h < hosts; ++h)
    for (int g = 0; g < per_host; ++g)
      ranks.push_back(*cluster().cluster.find_device("node" + std::to_string(h) + "/gpu" + std::to_string(g)));
  return ranks;
}

}  // namespace

TEST_CASE("pattern: summed_value is the sum of input_value over ranks") {
  for (std::int64_t p = 1; p <= 9; ++p)
    for (std::int64_t i = 0; i < 8; ++i) {
      double sum = 0;
      for (std::int64_t r = 0; r < p; ++r) sum += input_value(r, i);
      CHECK(summed_value(p, i) == sum);
    }
  // Results never meet the poison value below 33 ranks: |sum| <= 2p.
  CHECK(summed_value(32, 1) <= 64);
}

TEST_CASE("levels: every executable algorithm and collective computes the right values level by level") {
  const sim::Algorithm algorithms[] = {sim::Algorithm::Ring,          sim::Algorithm::Tree,
                                       sim::Algorithm::Hierarchical,  sim::Algorithm::Ring2D,
                                       sim::Algorithm::HalvingDoubling, sim::Algorithm::Direct,
                                       sim::Algorithm::ReduceBroadcast};
  const sim::Collective collectives[] = {sim::Collective::AllReduce, sim::Collective::ReduceScatter,
                                         sim::Collective::AllGather, sim::Collective::Broadcast,
                                         sim::Collective::Reduce};
  int ran = 0;
  for (const auto& [hosts, per_host] : {std::pair{2, 2}, std::pair{2, 4}, std::pair{4, 2}, std::pair{3, 1}}) {
    const std::vector<DeviceId> ranks = spread_ranks(hosts, per_host);
    const int p = int(ranks.size());
    for (sim::Algorithm a : algorithms)
      for (sim::Collective c : collectives)
        for (int channels : {1, 2}) {
          if (!sim::supports(a, c)) continue;
          sim::CollectiveSpec spec;
          spec.collective = c;
          spec.algorithm = a;
          spec.message = Bytes{std::int64_t(p) * 4 * 24};  // 24 floats per rank block
          spec.channels = channels;
          spec.chunk = Bytes{16};
          spec.root = p - 1;
          sim::Schedule s = [&] {
            try {
              return sim::build_schedule(cluster().cluster, ranks, spec);
            } catch (const std::invalid_argument&) {
              return sim::Schedule(c, "n/a", Bytes{0}, ranks);
            }
          }();
          if (s.message().count() == 0) continue;  // the algorithm does not apply here (halving-doubling at p=6, ...)
          INFO(sim::to_string(a) << " " << sim::to_string(c) << " p=" << p << " channels " << channels);
          REQUIRE(unsupported(s).empty());
          const std::vector<RankProgram> programs = compile_programs(s);
          std::size_t ops = 0;
          for (const RankProgram& program : programs) ops += program.op_count();
          CHECK(ops == s.ops().size());
          CHECK(run_levels(s) == 0);
          ++ran;
        }
  }
  CHECK(ran > 100);
}

TEST_CASE("levels: a flat ring all-reduce takes 2(p-1) levels, each a send and a receive per rank") {
  const std::vector<DeviceId> ranks = spread_ranks(4, 1);
  sim::CollectiveSpec spec;
  spec.message = Bytes{4 * 4 * 8};
  const sim::Schedule s = sim::build_schedule(cluster().cluster, ranks, spec);
  const std::vector<RankProgram> programs = compile_programs(s);
  for (const RankProgram& program : programs) {
    std::size_t with_transfers = 0;
    for (const Level& level : program.levels) {
      if (level.transfers.empty()) continue;
      ++with_transfers;
      CHECK(level.transfers.size() == 2);
    }
    CHECK(with_transfers == 2 * (4 - 1));
  }
}

TEST_CASE("levels: schedules the harness cannot execute say why") {
  const std::vector<DeviceId> ranks = spread_ranks(2, 2);
  sim::CollectiveSpec spec;
  spec.message = Bytes{4 * 64};
  spec.algorithm = sim::Algorithm::ParameterServer;
  const sim::Schedule ps = sim::build_schedule(cluster().cluster, ranks, spec);
  REQUIRE_FALSE(unsupported(ps).empty());
  CHECK_THAT(unsupported(ps).front(), Catch::Contains("not ranks"));
  spec.algorithm = sim::Algorithm::Ring;
  spec.payload.compression = sim::Compression::quantize(sim::DataType::Fp8);
  const sim::Schedule quantised = sim::build_schedule(cluster().cluster, ranks, spec);
  CHECK_THAT(unsupported(quantised).front(), Catch::Contains("compressed"));
}
