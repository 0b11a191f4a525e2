// SimGrid vs ringlab benchmark: the same 1 GiB ring allreduce schedule on both engines, from 64 to 1024
// ranks of DGX H100 nodes on a non-blocking 2-tier fat tree (4 nodes per leaf, 8 spines).
//
// Per rank count: wall time and CPU time of each engine (median of --repeat runs; SimGrid's CPU time
// is its child process's, from RUSAGE_CHILDREN, plus the parent's share), the speed ratio
// SimGrid / ringlab, and both simulated times with their relative difference (pure model).
// Usage: ringlab_simgrid_bench [--ranks N] [--repeat N] [--model pure|default]
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench_clock.hpp"
#include "ringlab/sim/collectives.hpp"
#include "ringlab/sim/simgrid_engine.hpp"
#include "ringlab/sim/simulator.hpp"
#include "ringlab/topology/generators.hpp"

using namespace ringlab;
using namespace ringlab::sim;
using namespace ringlab::literals;

namespace {

constexpr int kRankCounts[] = {64, 128, 256, 512, 1024};
constexpr int kGpusPerNode = 8;
constexpr int kNodesPerLeaf = 4;
constexpr int kSpines = 8;
constexpr Bytes kMessage = 1_GiB;

/// One engine's run: its clock times and the simulated time.
struct Run {
  bench::Timing timing;
  Duration simulated;
};

template <typename F> Run measure(F run) {
  const bench::Stopwatch watch;
  const Result r = run();
  return Run{watch.elapsed(), r.time};
}

/// Median wall and median CPU time of the runs (each taken separately), and the simulated time.
Run median(const std::vector<Run>& runs) {
  std::vector<double> wall, cpu;
  for (const Run& r : runs) {
    wall.push_back(r.timing.wall);
    cpu.push_back(r.timing.cpu);
  }
  return Run{{bench::median(wall), bench::median(cpu)}, runs.front().simulated};
}

void compare_engines(int ranks, int repeat, SimgridModel model) {
  ClusterSpec spec;
  spec.nodes = ranks / kGpusPerNode;
  spec.node = node_template(NodeTemplate::DgxH100);
  spec.fabric.kind = FabricKind::LeafSpine;
  spec.fabric.nodes_per_leaf = std::min(kNodesPerLeaf, spec.nodes);
  spec.fabric.spines = kSpines;
  const Topology topology = make_cluster(spec);
  CollectiveSpec collective;
  collective.message = kMessage;
  const Schedule schedule = build_schedule(topology, topology.gpus(), collective);
  SimOptions options;
  options.calibration.model_compute = false;
  std::vector<Run> ours, theirs;
  for (int i = 0; i < repeat; ++i) {
    ours.push_back(measure([&] { return Simulator(topology, options).run(schedule); }));
    theirs.push_back(measure([&] { return SimgridSimulator(topology, options, model).run(schedule); }));
  }
  const Run a = median(ours);
  const Run b = median(theirs);
  std::printf("%5d %9zu %10.3f %10.3f %10.3f %10.3f %8.1fx %8.1fx %14.3f %14.3f %+9.5f%%\n", ranks,
              schedule.ops().size(), a.timing.wall, a.timing.cpu, b.timing.wall, b.timing.cpu, b.timing.wall / a.timing.wall,
              b.timing.cpu / std::max(a.timing.cpu, 1e-6),
              a.simulated.microseconds(), b.simulated.microseconds(),
              (b.simulated / a.simulated - 1.0) * 100.0);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int only = 0;
  int repeat = 3;
  SimgridModel model = SimgridModel::Pure;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--ranks") == 0) only = std::stoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--repeat") == 0) repeat = std::max(1, std::stoi(argv[i + 1]));
    else if (std::strcmp(argv[i], "--model") == 0 && find_simgrid_model(argv[i + 1])) model = *find_simgrid_model(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: %s [--ranks N] [--repeat N] [--model pure|default]\n", argv[0]);
      return 2;
    }
  }
  std::printf("# 1 GiB ring allreduce, DGX H100 leaf-spine, compute off, SimGrid model %s; medians of %d\n",
              std::string(to_string(model)).c_str(), repeat);
  std::printf("%5s %9s %10s %10s %10s %10s %9s %9s %14s %14s %10s\n", "ranks", "ops", "ringlab_s", "ringlab_cpu",
              "simgrid_s", "simgrid_cpu", "wall_x", "cpu_x", "ringlab_us", "simgrid_us", "diff");
  for (int ranks : kRankCounts)
    if (only == 0 || only == ranks) compare_engines(ranks, repeat, model);
  return 0;
}
