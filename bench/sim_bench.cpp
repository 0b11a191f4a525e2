// Simulator benchmark: 1 GiB allreduce (ring, or NCCL's choice) on large generated clusters, timed end to end.
//
// Cases (pass one name per process so the peak-memory figure belongs to that case alone):
//   ring1024        128 DGX H100 nodes (1024 GPUs), 2-tier fat tree, non-blocking
//   ring8192        1024 DGX H100 nodes (8192 GPUs), 2-tier fat tree, non-blocking
//   ring65536       8192 DGX H100 nodes (65536 GPUs), 2-tier fat tree, non-blocking (2.1e10 ops)
//   contended1024   as ring1024 but the fat tree is 4:1 oversubscribed and ranks are interleaved
//                   across leaves, so every inter-node ring edge crosses the spine tier
//   ring1024-ch4    as ring1024 with 4 channels (4 rings) and 512 KiB pipeline chunks
//   rail8192        8192 GPUs, hierarchical allreduce: intra-node ring reduce-scatter, one 1024-rank
//                   ring per rail, intra-node allgather
//   nccl1024        as ring1024 under --algo nccl (NCCL's choice, channels over every NIC rail), through
//   nccl8192        run_collective as the CLI runs it; schedule building is inside "simulate" there
//   ncclmnnvl216    512 MiB on 54 GB200 trays (216 GPUs, 3 NVL72 NVLink domains of 18 trays, one IB
//                   switch) with NCCL_NVLS_ENABLE=0 as CoreWeave's GB200 scripts set it: NCCL's tree
//                   (LL128, 32 channels), which no channel move folds; every re-solve reschedules
//                   hundreds of flows (the event queue's dead instants, docs/performance.md)
// Flat ring cases use the compact schedule (compact_schedule.hpp) by default; --explicit builds the
// explicit Schedule instead (refused when it would not fit in half the machine's memory: ring8192
// has ~336M ops, ~20 GiB). Hierarchical cases are always explicit.
// Output, one line per case: wall time and user CPU time (getrusage; less sensitive to other load on
// the machine), medians of --repeat runs, in total and split into schedule building and simulation;
// simulated time, events, events per second of simulation (wall and CPU), flows, peak resident memory.
// The exact repeat shortcut (SimOptions::exact_shortcuts) is on, as in the CLI; --no-shortcuts
// simulates every event. `events` counts the events the run stands for, `simulated` those processed
// one by one (the rest were skipped as exact repeats); events per second are of the simulated ones.
// Usage: ringlab_sim_bench CASE [--repeat N] [--explicit] [--no-shortcuts]
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "bench_clock.hpp"
#include "ringlab/sim/collectives.hpp"
#include "ringlab/sim/compact_schedule.hpp"
#include "ringlab/sim/run_collective.hpp"
#include "ringlab/sim/process_memory.hpp"
#include "ringlab/sim/simulator.hpp"
#include "ringlab/topology/generators.hpp"

using namespace ringlab;
using namespace ringlab::sim;
using namespace ringlab::literals;
using ringlab::bench::median;
using ringlab::bench::peak_rss_mib;
using ringlab::bench::Stopwatch;
using ringlab::bench::Timing;

namespace {

struct Case {
  const char* name;
  int nodes;
  double oversubscription;
  bool interleave;
  int channels;
  Bytes chunk;
  Algorithm algorithm = Algorithm::Ring;
  bool mnnvl = false;  ///< GB200 NVL72 trays, NVLS off, 512 MiB (ncclmnnvl216)
};

constexpr Case kCases[] = {
    {"ring1024", 128, 1.0, false, 1, 0_B},
    {"contended1024", 128, 4.0, true, 1, 0_B},
    {"ring1024-ch4", 128, 1.0, false, 4, 512_KiB},
    {"ring8192", 1024, 1.0, false, 1, 0_B},
    {"ring65536", 8192, 1.0, false, 1, 0_B},
    {"rail8192", 1024, 1.0, false, 1, 0_B, Algorithm::Hierarchical},
    {"nccl1024", 128, 1.0, false, 1, 0_B, Algorithm::Nccl},
    {"nccl8192", 1024, 1.0, false, 1, 0_B, Algorithm::Nccl},
    {"ncclmnnvl216", 54, 1.0, false, 1, 0_B, Algorithm::Nccl, true},
};
constexpr int kTraysPerNvlinkDomain = 18;  // GB200 NVL72: 18 compute trays per rack
constexpr int kNodesPerLeaf = 4;
constexpr int kSpines = 8;

Topology make_fabric(const Case& c) {
  ClusterSpec spec;
  spec.nodes = c.nodes;
  if (c.mnnvl) {
    spec.node = node_template(NodeTemplate::Gb200Nvl72);
    spec.node.nvlink_domain = kTraysPerNvlinkDomain;
    spec.fabric.kind = FabricKind::SingleSwitch;
    return make_cluster(spec);
  }
  spec.node = node_template(NodeTemplate::DgxH100);
  spec.fabric.kind = FabricKind::LeafSpine;
  spec.fabric.nodes_per_leaf = kNodesPerLeaf;
  spec.fabric.spines = kSpines;
  spec.fabric.oversubscription = c.oversubscription;
  return make_cluster(spec);
}

// Rank order: host by host (ring-friendly), or round-robin over leaves so neighbours sit on
// different leaves.
std::vector<DeviceId> rank_order(const Topology& t, bool interleave) {
  std::vector<DeviceId> gpus = t.gpus();
  if (!interleave) return gpus;
  const std::size_t per_node = 8;
  const std::size_t nodes = gpus.size() / per_node;
  const std::size_t leaves = nodes / kNodesPerLeaf;
  std::vector<DeviceId> out;
  for (std::size_t slot = 0; slot < kNodesPerLeaf; ++slot)
    for (std::size_t leaf = 0; leaf < leaves; ++leaf) {
      const std::size_t node = leaf * kNodesPerLeaf + slot;
      for (std::size_t g = 0; g < per_node; ++g) out.push_back(gpus[node * per_node + g]);
    }
  return out;
}

// Bytes per schedule op as stored today (Op record + about one dependency id), for the memory guard.
constexpr double kBytesPerOp = 64.0;

// A flat unchunked ring allreduce has p-1 reduce-scatter and p-1 allgather steps of p transfers (a send
// and a recv each) plus p reduces per reduce-scatter step: 5p(p-1) ops.
double flat_ring_ops(const Case& c) {
  const double p = double(c.nodes) * 8;
  return 5.0 * p * (p - 1) * c.channels;
}

double physical_memory_bytes() { return double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE)); }

}  // namespace

int main(int argc, char** argv) {
  ringlab::sim::keep_large_blocks_mapped();
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CASE [--repeat N] [--explicit] [--no-shortcuts]; cases:", argv[0]);
    for (const Case& c : kCases) std::fprintf(stderr, " %s", c.name);
    std::fprintf(stderr, "\n");
    return 2;
  }
  int repeat = 3;
  bool force_explicit = false;
  SimOptions options;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--no-shortcuts") == 0) options.exact_shortcuts = options.fold_channels = false;
    else if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else if (std::strcmp(argv[i], "--explicit") == 0) force_explicit = true;
  }
  const Case* chosen = nullptr;
  for (const Case& c : kCases)
    if (std::strcmp(c.name, argv[1]) == 0) chosen = &c;
  if (!chosen) {
    std::fprintf(stderr, "unknown case %s\n", argv[1]);
    return 2;
  }
  const bool compact = chosen->algorithm == Algorithm::Ring && !force_explicit;
  if (!compact && chosen->algorithm == Algorithm::Ring &&
      flat_ring_ops(*chosen) * kBytesPerOp > 0.5 * physical_memory_bytes()) {
    std::printf("%-14s skipped: an explicit schedule needs ~%.0fM ops (~%.1f GiB), more than half of this machine's "
                "%.1f GiB; run it without --explicit (compact schedule)\n",
                chosen->name, flat_ring_ops(*chosen) / 1e6, flat_ring_ops(*chosen) * kBytesPerOp / double(1 << 30),
                physical_memory_bytes() / double(1 << 30));
    return 0;
  }
  std::vector<double> totals, builds, sims, total_cpus, build_cpus, sim_cpus;
  Result result;
  std::uint64_t ops = 0;
  for (int i = 0; i < repeat; ++i) {
    const Stopwatch whole;
    const Topology topology = make_fabric(*chosen);
    const std::vector<DeviceId> ranks = rank_order(topology, chosen->interleave);
    CollectiveSpec spec;
    spec.message = chosen->mnnvl ? 512_MiB : 1_GiB;
    spec.channels = chosen->channels;
    spec.chunk = chosen->chunk;
    spec.algorithm = chosen->algorithm;
    spec.hierarchy = Hierarchy::Rail;
    Timing build, sim;
    if (chosen->algorithm == Algorithm::Nccl) {
      CollectiveRequest request;
      request.algorithm = Algorithm::Nccl;
      request.message = spec.message;
      request.order.ranks = ranks;
      request.options = options;
      request.options.calibration = Calibration::nccl();
      request.nccl_env.nvls = !chosen->mnnvl;
      const Stopwatch sim_watch;
      const CollectiveOutcome out = run_collective(topology, request);
      sim = sim_watch.elapsed();
      if (!out.result) {
        std::fprintf(stderr, "%s: %s\n", chosen->name, out.not_applicable.c_str());
        return 1;
      }
      result = *out.result;
    } else if (compact) {
      const Stopwatch build_watch;
      const std::optional<CompactSchedule> schedule = build_compact_schedule(topology, ranks, spec);
      build = build_watch.elapsed();
      if (!schedule) {
        std::fprintf(stderr, "%s: no compact form for this spec\n", chosen->name);
        return 1;
      }
      ops = schedule->op_count();
      const Stopwatch sim_watch;
      Simulator simulator(topology, options);
      result = simulator.run(*schedule);
      sim = sim_watch.elapsed();
    } else {
      const Stopwatch build_watch;
      const Schedule schedule = build_schedule(topology, ranks, spec);
      build = build_watch.elapsed();
      ops = schedule.ops().size();
      const Stopwatch sim_watch;
      Simulator simulator(topology, options);
      result = simulator.run(schedule);
      sim = sim_watch.elapsed();
    }
    const Timing total = whole.elapsed();
    builds.push_back(build.wall);
    build_cpus.push_back(build.cpu);
    sims.push_back(sim.wall);
    sim_cpus.push_back(sim.cpu);
    totals.push_back(total.wall);
    total_cpus.push_back(total.cpu);
  }
  const double sim = median(sims), sim_cpu = median(sim_cpus);
  const double simulated = double(result.events - result.events_repeated);
  std::printf("%-14s %s ranks=%d ops=%llu median(n=%d) wall_s: total=%.3f schedule=%.3f simulate=%.3f | user_cpu_s: "
              "total=%.3f schedule=%.3f simulate=%.3f | simulated_ms=%.3f busbw_GBps=%.2f events=%llu "
              "simulated=%.0f events_per_s(wall)=%.3g events_per_s(cpu)=%.3g flows=%llu rate_updates=%llu peak_rss_MiB=%.1f\n",
              chosen->name, chosen->algorithm == Algorithm::Nccl ? result.algorithm.c_str() : compact ? "compact" : "explicit", result.ranks, static_cast<unsigned long long>(ops), repeat,
              median(totals), median(builds), sim, median(total_cpus), median(build_cpus), sim_cpu,
              result.time.seconds() * 1e3, result.busbw().gigabytes_per_second(),
              static_cast<unsigned long long>(result.events), simulated, simulated / sim, simulated / sim_cpu, static_cast<unsigned long long>(result.flows),
              static_cast<unsigned long long>(result.rate_updates), peak_rss_mib());
  return 0;
}
