// Simulator: runs a Schedule on a Topology with a flow-level network model and returns a Result.
//
// Every Send/Recv pair becomes a flow on the route the topology's Router picks (ECMP by policy), with
// the transfer's parallel channel index (Op::channel) as the ECMP flow key, so parallel rings or trees
// between the same two devices may take different equal-cost paths.
// Flows share each link direction max-min fairly, recomputed in one batch whenever flows
// start or finish at the same instant. A message costs: the route's per-message software overhead,
// then its bytes at the max-min rate, then the route's summed hop latency. Local ops (Reduce, Copy,
// Encode, Decode) take bytes / rate with the GPU model's rates from the calibration table.
// A Simulator is a value with no global state; a run is deterministic for a given schedule,
// topology and options.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>

#include "ringlab/sim/calibration.hpp"
#include "ringlab/sim/collectives.hpp"
#include "ringlab/sim/compact_schedule.hpp"
#include "ringlab/sim/result.hpp"
#include "ringlab/sim/schedule.hpp"
#include "ringlab/topology/routing.hpp"
#include "ringlab/topology/topology.hpp"

namespace ringlab::sim {

/// Thrown by a run whose SimOptions::cancel became true.
class Cancelled : public std::runtime_error {
 public:
  Cancelled() : std::runtime_error("simulation cancelled") {}
};

/// How far a run is, for progress reports.
struct Progress {
  std::uint64_t ops_done = 0;
  std::uint64_t ops_total = 0;
  std::uint64_t events = 0;  ///< events processed so far
};

/// Events between two progress reports and cancellation checks (a few milliseconds of work).
inline constexpr std::uint64_t kProgressInterval = std::uint64_t(1) << 16;

/// How a transfer goes where it does not take the router's direct route at line rate
/// (SimOptions::detours): the devices it passes, and what its bytes cost on PCIe links.
struct Detour {
  /// Devices passed between source and destination, in order (the route is Router::route_via);
  /// empty: the direct route.
  std::vector<DeviceId> via;
  /// Capacity one byte takes on each PCIe link of the route's first `costed_legs` legs (leg i ends
  /// at via[i], the last at the destination), >= 1; 1 elsewhere. NCCL's INTEL_P2P_OVERHEAD
  /// (nccl_transport.hpp) is 1.2.
  double pcie_cost = 1.0;
  std::uint8_t costed_legs = 0;
  /// The most one transfer on this route may take, whatever the links leave it (NCCL's socket
  /// transport: its TCP streams, nccl_transport.hpp); zero: no limit of its own.
  Bandwidth max_rate;
  /// Whether some bytes take more than their size of a link's capacity.
  bool costed() const { return costed_legs > 0 && pcie_cost != 1.0; }
  /// The direct route at line rate.
  bool plain() const { return via.empty() && !costed() && max_rate.bits_per_second() <= 0; }
};
using Detours = std::function<Detour(DeviceId src, DeviceId dst, std::uint16_t channel)>;

struct SimOptions {
  EcmpPolicy ecmp = EcmpPolicy::Hash;
  std::uint64_t ecmp_seed = 0;           ///< seed of the Router's ECMP hash
  Calibration calibration = Calibration::pure();
  Protocol protocol = Protocol::Simple;  ///< selects the calibration row; no effect when pure
  bool record_timeline = false;          ///< fill Result::timeline (needed for traces)
  /// Fill Result::rank_finish. Off by default: it costs one endpoint lookup per completed op, about
  /// 4 % of a 1,024-GPU ring's simulation time (SimGrid runs always fill it).
  bool record_rank_finish = false;
  std::size_t bottleneck_count = 5;      ///< how many link directions Result::bottlenecks lists
  /// Software latency that passes before the first op starts: run_collective sets NCCL's modelled
  /// latency of the chosen (algorithm, protocol) here under Algorithm::Nccl (base latency plus
  /// per-step hardware latency, NCCL src/graph/tuning.cc). Zero by default.
  Duration start_latency;
  /// Time the links' hop latencies and per-message overheads. Off under Algorithm::Nccl, where
  /// start_latency holds NCCL's whole latency model and the flows supply the bandwidth term.
  bool link_latencies = true;
  /// How transfers go where a transport stages data in host memory (NCCL's SHM, and NET without
  /// GPUDirect RDMA: nccl_transport.hpp) or pays for PCIe through an Intel CPU: the route is then
  /// Router::route_via its devices, with its costs. Called once per (source, destination, channel) a
  /// schedule uses; empty function or plain() detour: the direct route. The SimGrid engine refuses
  /// detours with costs (std::invalid_argument).
  Detours detours;
  /// Per-flow rate limit (e.g. one TCP stream or one proxy thread); zero means unlimited.
  Bandwidth max_flow_rate;
  /// Test hook: after every bandwidth reallocation verify that no link direction carries more than its
  /// capacity and that every flow moves; throws std::logic_error on a violation. Costs
  /// O(directions + hops) per reallocation.
  bool check_invariants = false;
  /// Exact repeat shortcut for compact ring schedules: once a step repeats the previous one exactly
  /// (same events, flows and rates, shifted in time and op ids), skip the steps that would repeat it
  /// again. Results are identical to the picosecond; off simulates every event (--no-shortcuts).
  bool exact_shortcuts = true;
  /// Exact channel symmetry of explicit schedules (NCCL's channels that run the same ops on routes
  /// that are images of each other): simulate one channel of every orbit, each flow standing for its
  /// orbit (Result::channel_fold). Times and statistics agree with the full run to rounding, not to
  /// the bit, since the max-min sums run in another order; --no-shortcuts turns it off too.
  bool fold_channels = true;
  /// Called every kProgressInterval events (from the running thread); may be empty.
  std::function<void(const Progress&)> progress;
  /// When set, checked every kProgressInterval events; once true the run throws Cancelled.
  const std::atomic<bool>* cancel = nullptr;
};

namespace detail {
class RouteMemo;
}

class Simulator {
 public:
  /// The topology must outlive the simulator.
  explicit Simulator(const Topology& topology, SimOptions options = {});
  /// The same, taking each connection's route from `routes` and keeping new ones there, so that the
  /// simulators of a sweep route each connection once (CollectiveSweep). Precondition:
  /// routes->serves(topology, options) (std::invalid_argument otherwise), and `options.detours`
  /// is the function `routes` was made with.
  Simulator(const Topology& topology, SimOptions options, std::shared_ptr<detail::RouteMemo> routes);
  ~Simulator();
  Simulator(Simulator&&) noexcept;
  Simulator& operator=(Simulator&&) noexcept;

  /// Runs one schedule from time zero. Precondition: schedule.check() is empty and its endpoints
  /// are devices of this topology that can reach each other.
  Result run(const Schedule& schedule);
  /// Runs a compact schedule: the same Result as run(schedule.expand()), field for field, in memory
  /// linear in ranks and links (plus one bit per simulated transfer for the critical path, and the
  /// per-op timeline only when SimOptions::record_timeline asks for it, below 2^32 ops). With
  /// SimOptions::exact_shortcuts, steps that repeat the previous one exactly are skipped.
  Result run(const CompactSchedule& schedule);
  /// Builds and runs build_schedule(topology(), ranks, spec): the same Result as run() on that
  /// schedule, except that with SimOptions::fold_channels a long pipeline whose channels fold (see
  /// fold_channels) is built for the kept channels only, never in full, and its critical_path then
  /// names ops of that quotient. Throws std::invalid_argument as build_schedule does.
  Result run(std::span<const DeviceId> ranks, const CollectiveSpec& spec);

  const Topology& topology() const;
  const SimOptions& options() const;

 private:
  struct Engine;
  /// run(ranks, spec) through a quotient built directly, or nullopt where that does not apply.
  std::optional<Result> run_quotient(std::span<const DeviceId> ranks, const CollectiveSpec& spec);
  std::unique_ptr<Engine> engine_;
};

}  // namespace ringlab::sim
