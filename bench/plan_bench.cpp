// Planner benchmark: plan time and gap to the ring lower bound for 64, 256, 1,024 and 4,096 GPUs.
//
// Cluster: nodes of 8 GPUs with one 100 Gb/s RoCE NIC (the generic template) on a non-blocking
// leaf-spine fabric of 8 nodes per leaf; the scheduler hands the hosts out in a seeded random order
// (scattered across leaves), which the planner must undo. Message 1 GiB, one channel. Prints per
// size: wall and CPU seconds of make_plan (median of --repeat runs), peak memory, the planned ring
// time, the ring bound and the gap, and the scheduler order's time.
//
//   build/bench/ringlab_plan_bench [--sizes 64,256,1024,4096] [--repeat 3]
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench_clock.hpp"
#include "ringlab/planner/planner.hpp"

using namespace ringlab;

namespace {

Scenario cluster(int gpus) {
  const int nodes = gpus / 8;
  std::ostringstream json;
  json << R"({"ringlab": 1, "name": "leaf-spine-)" << gpus << R"(", "cluster": {"generate": {"nodes": )" << nodes
       << R"(, "node": {"template": "generic"}, "fabric": {"kind": "leaf_spine", "nodes_per_leaf": )" << std::min(8, nodes)
       << R"(, "spines": 8}}}})";
  return parse_scenario(json.str(), "bench.json");
}

sim::RankOrder scattered(const Topology& t, std::uint64_t seed) {
  std::vector<HostId> hosts;
  for (std::size_t h = 0; h < t.host_count(); ++h) hosts.push_back(HostId(h));
  std::mt19937_64 rng(seed);
  for (std::size_t i = hosts.size(); i > 1; --i) std::swap(hosts[i - 1], hosts[rng() % i]);
  sim::RankOrder o;
  for (HostId h : hosts)
    for (DeviceId d : t.host_devices(h))
      if (t.device(d).kind == DeviceKind::Gpu) o.ranks.push_back(d);
  o.source = "scattered";
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes = {64, 256, 1024, 4096};
  int repeat = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--repeat") repeat = std::atoi(argv[i + 1]);
    else if (flag == "--sizes") {
      sizes.clear();
      std::stringstream ss(argv[i + 1]);
      for (std::string item; std::getline(ss, item, ',');) sizes.push_back(std::stoi(item));
    }
  }
  std::printf("%6s %9s %9s %9s %12s %12s %8s %12s %8s\n", "gpus", "wall_s", "cpu_s", "peak_MiB", "planned_ms",
              "ring_bound_ms", "gap_%", "scheduler_ms", "moves");
  for (int gpus : sizes) {
    const Scenario s = cluster(gpus);
    planner::PlanRequest request;
    request.message = Bytes{1LL << 30};
    request.channels = 1;
    request.scheduler_order = scattered(s.cluster, 7);
    std::vector<double> walls, cpus;
    planner::PlanReport report;
    for (int r = 0; r < repeat; ++r) {
      bench::Stopwatch watch;
      report = planner::make_plan(s, request);
      const bench::Timing t = watch.elapsed();
      walls.push_back(t.wall);
      cpus.push_back(t.cpu);
    }
    Duration scheduler;
    for (const auto& o : report.orders)
      if (o.name == "scheduler order") scheduler = o.time;
    std::printf("%6d %9.2f %9.2f %9.1f %12.3f %12.3f %8.2f %12.3f %8lld\n", gpus, bench::median(walls),
                bench::median(cpus), bench::peak_rss_mib(), report.ring_time.seconds() * 1e3,
                report.bound.ring.seconds() * 1e3, (report.ring_time / report.bound.ring - 1) * 100,
                scheduler.seconds() * 1e3, report.search.moves);
    std::fflush(stdout);
  }
}
