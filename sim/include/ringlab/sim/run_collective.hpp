// run_collective: the one library call that times one collective on a cluster. The command line's
// simulate, train and sweep call it, and so will the planner and the app.
//
// A request names the collective, the size and element type, the algorithm (a fixed one, "nccl" for
// what NCCL's tuner would pick, or "auto" for the fastest that applies), the rank order, the
// algorithm's options and the timing engine. The algorithm is resolved once: nccl asks NCCL's model
// for (algorithm, protocol, channels, chunk) exactly once per request; auto times every applicable
// algorithm and keeps the fastest. The schedule is then built (compact for flat rings, so 8,192 ranks
// fit in memory) and run on the engine. An algorithm that does not apply to this topology, rank count
// or collective is a returned reason, not an exception.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ringlab/sim/collectives.hpp"
#include "ringlab/sim/rank_order.hpp"
#include "ringlab/sim/result.hpp"
#include "ringlab/sim/schedule.hpp"
#include "ringlab/sim/simulator.hpp"
#include "ringlab/topology/topology.hpp"

namespace ringlab::sim {

/// A timing back-end for explicit schedules. The native flow engine is built in; others (SimGrid, in
/// the ringlab_simgrid library) implement this. Implementations must be safe to call concurrently.
class TimingEngine {
 public:
  virtual ~TimingEngine() = default;
  /// Short name for reports ("simgrid (pure model)").
  virtual std::string name() const = 0;
  /// Times `schedule` on `topology`. May throw std::invalid_argument when the engine cannot run it
  /// (the reason becomes CollectiveOutcome::not_applicable).
  virtual Result run(const Topology& topology, const SimOptions& options, const Schedule& schedule) const = 0;
};

/// What to choose the algorithm by.
enum class AlgorithmChoice : std::uint8_t {
  Fixed,  ///< CollectiveRequest::algorithm as given (Algorithm::Nccl: NCCL's tuner picks)
  Auto,   ///< every algorithm that applies is timed; the fastest wins (ties: lower enum value)
};

struct CollectiveRequest {
  Collective collective = Collective::AllReduce;
  /// Per-rank buffer as nccl-tests counts it. Rounded down to whole elements of payload.dtype (at
  /// least one element) before building.
  Bytes message;
  Payload payload;
  AlgorithmChoice choice = AlgorithmChoice::Fixed;
  Algorithm algorithm = Algorithm::Ring;
  RankOrder order;                          ///< ranks and optional per-channel rings; must be non-empty
  int channels = 1;                         ///< ignored when NCCL's tuner picks
  Bytes chunk;                              ///< 0 = no pipelining; ignored when NCCL's tuner picks
  int root = 0;                             ///< Broadcast/Reduce root, a rank index
  Hierarchy hierarchy = Hierarchy::Leader;
  InterAlgorithm inter = InterAlgorithm::Ring;
  std::vector<DeviceId> servers;            ///< parameter_server devices; empty = default placement
  NcclEnv nccl_env;                         ///< Algorithm::Nccl: NCCL_ALGO, NCCL_PROTO, channels, ...
  SimOptions options;                       ///< ECMP, calibration, protocol (set from NCCL's pick), progress, ...
  const TimingEngine* engine = nullptr;     ///< nullptr: the native flow engine
  bool keep_schedule = false;               ///< return the explicit schedule (and record the timeline)
};

/// One algorithm tried by AlgorithmChoice::Auto.
struct Candidate {
  Algorithm algorithm = Algorithm::Ring;
  std::optional<Duration> time;  ///< empty when it does not apply
  std::string not_applicable;
};

struct CollectiveOutcome {
  std::optional<Result> result;  ///< empty when the algorithm does not apply
  std::string not_applicable;    ///< why, when result is empty
  bool engine_refused = false;   ///< the reason came from the timing engine, not from the algorithm

  Algorithm algorithm = Algorithm::Ring;  ///< the algorithm that ran (resolved from nccl or auto)
  Protocol protocol = Protocol::Simple;   ///< the protocol timed (NCCL's pick under nccl)
  int channels = 1;                       ///< parallel rings/trees that ran
  Bytes chunk;                            ///< pipelining piece size that ran
  Bytes message;                          ///< the size that ran (whole elements)
  std::optional<Schedule> schedule;       ///< when CollectiveRequest::keep_schedule
  std::vector<Candidate> candidates;      ///< AlgorithmChoice::Auto: every algorithm, in enum order

  bool applicable() const { return result.has_value(); }
};

/// Times one collective. Precondition: request.order names distinct GPUs of `topology`.
/// Throws only for bugs, for cancellation (Cancelled, when request.options.cancel is set) and RangeError
/// when the simulated time or a byte counter would leave its range (units.hpp).
/// Deterministic: the same request gives the same outcome.
CollectiveOutcome run_collective(const Topology& topology, const CollectiveRequest& request);

/// One request timed at many message sizes (a `simulate` sweep, the rows of a `compare`), sharing
/// what does not depend on the size: NCCL's view of the cluster and its transports, and every
/// connection's route, routed once for the whole sweep. run(m, keep) gives the outcome
/// run_collective() gives with request.message = m and request.keep_schedule = keep, field for field.
/// `topology` (and request.engine, when set) must outlive the sweep. Not thread-safe.
class CollectiveSweep {
 public:
  CollectiveSweep(const Topology& topology, CollectiveRequest request);
  ~CollectiveSweep();
  CollectiveSweep(CollectiveSweep&&) noexcept;
  CollectiveSweep& operator=(CollectiveSweep&&) noexcept;

  /// Throws as run_collective() does.
  CollectiveOutcome run(Bytes message, bool keep_schedule = false);
  const CollectiveRequest& request() const;

  struct State;  ///< opaque: what the sizes share (run_collective.cpp)

 private:
  std::unique_ptr<State> state_;
};

/// nccl-tests rounds a size down to whole elements (at least one for a positive size); so does
/// run_collective. A size of 0 stays 0: run_collective then reports time 0 and keeps no schedule.
Bytes whole_elements(Bytes size, const Payload& payload);

}  // namespace ringlab::sim
