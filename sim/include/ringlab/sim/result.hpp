// Result: what one simulated (or, later, measured) collective run produced. The validation harness
// returns the same shape, so predicted and measured runs compare field by field.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "ringlab/sim/schedule.hpp"
#include "ringlab/topology/topology.hpp"
#include "ringlab/topology/units.hpp"

namespace ringlab::sim {

/// Traffic on one direction of one link.
struct DirectionStats {
  DirectionId direction = 0;
  Bytes bytes;            ///< bytes that crossed it
  Duration busy;          ///< time with at least one flow on it
  double utilisation = 0; ///< bytes / (capacity * run time), in [0, 1]
};

/// When one op ran. For a Recv, start is when its flow started moving and end is delivery.
struct OpSpan {
  OpId op = 0;
  Duration start;
  Duration end;
};

/// Where a Result came from: a simulation engine, or a measurement on real hardware.
enum class ResultKind : std::uint8_t { Simulated, Measured };

struct ResultSource {
  ResultKind kind = ResultKind::Simulated;
  std::string engine;              ///< "ringlab-flow 0.1.0", "simgrid 3.32 (pure model)", "nccl 2.21.5 (cuda 13.0)"
  std::vector<std::string> hosts;  ///< measured: the hosts the run used, in rank order of their first rank
  /// Measured by nccl-tests: how many GPUs one host thread launched each call on (-g), when the
  /// launches were not captured in CUDA graphs (-G); 0 when unknown, graph-launched or not nccl-tests.
  int gpus_per_thread = 0;
};

/// Which run a Result belongs to: predicted and measured results of the same run have equal keys
/// (compare() matches rows on collective, message, dtype and order; the rest is reported if it differs).
struct RunKey {
  std::string scenario;   ///< digest of the scenario (digest_hex of its JSON text), or "" when unknown
  std::string dtype;      ///< nccl-tests' name: "float", "half", "bfloat16", ...
  std::string protocol;   ///< "simple", "ll128", "ll"
  int channels = 0;       ///< parallel rings/trees that ran (0: unknown)
  std::string order;      ///< RankOrder::digest(), "" when unknown
  bool operator==(const RunKey&) const = default;
};

/// Per-iteration statistics of a measured run (nccl-tests -n iterations after -w warm-up ones).
struct IterationStats {
  int count = 0;   ///< timed iterations
  int warmup = 0;  ///< untimed warm-up iterations before them
  Duration min, median, mean, max;
  std::optional<Duration> p99;  ///< 99th percentile (nearest rank), when the source gives it
  bool operator==(const IterationStats&) const = default;
};

/// 16 hex digits of FNV-1a 64 over `text`: digests of scenarios and rank orders.
std::string digest_hex(std::string_view text);

struct Result {
  ResultSource source;
  RunKey key;
  Collective collective = Collective::AllReduce;
  std::string algorithm;
  Bytes message;          ///< per-rank buffer size as nccl-tests counts it
  int ranks = 0;
  Duration time;          ///< from the first op becoming ready to the last op finishing (measured: median iteration)
  /// Per rank: when its last op finished (simulated: SimOptions::record_rank_finish; empty otherwise)
  /// or its own time (measured).
  std::vector<Duration> rank_finish;
  std::optional<IterationStats> iterations;  ///< measured runs only
  std::optional<std::int64_t> wrong;       ///< elements that differ from the expected result; empty: not checked
  /// Algorithm::Nccl runs: the time NCCL's own tuning model gives the call (its table's latency +
  /// bytes / bandwidth for the pair it chose), beside the simulated `time`; empty for other runs.
  std::optional<Duration> nccl_model;

  /// nccl-tests: algbw = S / t; busbw = algbw * busbw_factor(collective, ranks).
  Bandwidth algbw() const;
  Bandwidth busbw() const;

  std::vector<DirectionStats> directions;  ///< link directions that carried bytes, by id
  std::vector<DirectionId> bottlenecks;    ///< most utilised link directions, highest first (ties by id)
  /// Ops on the longest dependency chain, first to last (64-bit: compact schedules exceed OpId). Ids of
  /// the schedule run, except after Simulator::run(ranks, spec) built only the kept channels of a
  /// fold (channel_fold > 1): then of that quotient, as the full schedule was never built.
  std::vector<std::uint64_t> critical_path;
  std::vector<OpSpan> timeline;           ///< every op, by op id (empty unless recorded)

  std::uint64_t events = 0;               ///< discrete events processed (including those repeated)
  std::uint64_t events_repeated = 0;      ///< of `events`, those the exact repeat shortcut skipped
  std::uint64_t flows = 0;                ///< network flows simulated
  std::uint64_t rate_updates = 0;         ///< max-min recomputations
  /// Channels simulated as one: an exact channel symmetry folded out of the run (1: none). `events`,
  /// `flows` and `rate_updates` count the folded run's.
  std::uint32_t channel_fold = 1;
};

}  // namespace ringlab::sim
