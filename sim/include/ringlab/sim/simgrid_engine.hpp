// SimgridSimulator: runs a Schedule on SimGrid 3.32 (S4U) instead of ringlab's own engine, as an
// independent cross-check of the flow-level network model. Same inputs, same Result shape.
//
// The topology is exported as a SimGrid platform (write_simgrid) holding exactly the routes the
// schedule's transfers take in ringlab (Router with the same ECMP policy and seed); SimGrid loads
// it and times every transfer as a SimGrid communication (Comm::sendto between the two devices'
// hosts). ringlab keeps the dependency bookkeeping of the schedule; SimGrid times everything else:
//   Send      per-message overhead as a SimGrid timer, then Comm of op.bytes on SimGrid's route;
//             Pure: the route latency (SimGrid's, from Host::route_to) as a timer after the bytes,
//             as ringlab does; Default: SimGrid's own latency phase before the bytes (x13.01).
//   Recv      completes when its data has arrived and its own dependencies are done.
//   Reduce/Copy/Encode/Decode  a SimGrid timer of the duration ringlab computes (bytes / rate).
// Models (simgrid.md has the derivation):
//   Pure     network/model:CM02 with latency-factor 0, bandwidth-factor 1, weight-S 0,
//            crosstraffic off, TCP-gamma 0: plain max-min sharing with equal weights. (CM02 weights
//            a flow by its route latency; a latency factor of 0 makes every weight 1 and the
//            latency is then paid by the timer above.) Agrees with ringlab's engine.
//   Default  SimGrid's default LV08: latency x13.01, bandwidth x0.97, weight-S 20537,
//            crosstraffic 0.05 on the reverse route, TCP window 4 MiB / RTT bound.
// Routes are per (source, destination) host pair in SimGrid but per (pair, channel) in ringlab; a run
// therefore requires every channel between one pair to take the same path (always true with
// EcmpPolicy::First or a single path) and throws std::invalid_argument otherwise.
//
// Linking: the engine is its own shared library, ringlab_simgrid (libsimgrid exports hundreds of
// MPI_* symbols that clash with Open MPI). Programs that want it either link ringlab_simgrid (tests,
// the SimGrid benchmark) or load it at run time with load_simgrid_engine(), which opens it with
// RTLD_LOCAL so none of its symbols enter the program's global scope (the ringlab command line,
// which also links Open MPI for its sweep driver). The model names below are in ringlab_sim.
//
// SimGrid's engine is process-global (one s4u::Engine per process, never re-created), so every
// run() forks a child process that builds the engine, runs, and returns the Result over a pipe; the
// caller's process never touches SimGrid state and may run any number of simulations. The platform
// is written to a temporary file and removed afterwards. Deterministic for the same inputs.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "ringlab/sim/result.hpp"
#include "ringlab/sim/run_collective.hpp"
#include "ringlab/sim/schedule.hpp"
#include "ringlab/sim/simulator.hpp"
#include "ringlab/topology/topology.hpp"

namespace ringlab::sim {

enum class SimgridModel : std::uint8_t { Pure, Default };

std::string_view to_string(SimgridModel model);
/// "pure" or "default"; nullopt on a miss.
std::optional<SimgridModel> find_simgrid_model(std::string_view name);

class SimgridSimulator {
 public:
  /// The topology must outlive the simulator. Options mean what they mean for Simulator, except
  /// check_invariants (ignored: SimGrid's solver is not instrumented) and Result::rate_updates,
  /// which stays 0 (SimGrid does not report its solver calls).
  explicit SimgridSimulator(const Topology& topology, SimOptions options = {}, SimgridModel model = SimgridModel::Pure);

  /// Runs one schedule from time zero in a child process. Preconditions as Simulator::run. Throws
  /// std::invalid_argument when two channels between one device pair take different ECMP paths, and
  /// std::runtime_error when the child process fails (its SimGrid error is on standard error).
  Result run(const Schedule& schedule) const;

  const Topology& topology() const { return topology_; }
  const SimOptions& options() const { return options_; }
  SimgridModel model() const { return model_; }

 private:
  const Topology& topology_;
  SimOptions options_;
  SimgridModel model_;
};

/// SimGrid as a run_collective() timing engine (CollectiveRequest::engine).
class SimgridEngine final : public TimingEngine {
 public:
  explicit SimgridEngine(SimgridModel model = SimgridModel::Pure) : model_(model) {}
  /// "simgrid (pure model)".
  std::string name() const override;
  /// SimgridSimulator(topology, options, model).run(schedule); throws what that throws.
  Result run(const Topology& topology, const SimOptions& options, const Schedule& schedule) const override;

 private:
  SimgridModel model_;
};

/// Loads ringlab_simgrid at run time (dlopen, RTLD_LOCAL) and creates its engine. The library is
/// looked up at $RINGLAB_SIMGRID_LIBRARY, else where the build put it. Throws std::runtime_error
/// naming the path and the loader's message when it cannot be loaded. Part of ringlab_sim.
std::unique_ptr<TimingEngine> load_simgrid_engine(SimgridModel model);

}  // namespace ringlab::sim

/// ringlab_simgrid's C entry point for load_simgrid_engine(): a new SimgridEngine (caller owns it).
extern "C" ringlab::sim::TimingEngine* ringlab_simgrid_engine(int model);
