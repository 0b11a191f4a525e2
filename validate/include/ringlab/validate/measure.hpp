// Measurement arithmetic of the harness, free of MPI and CUDA so it is unit-tested on its own:
// nccl-tests' size sweep, per-iteration statistics, and the measured sim::Result of one size.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ringlab/sim/result.hpp"
#include "ringlab/sim/schedule.hpp"
#include "ringlab/topology/units.hpp"

namespace ringlab::validate {

/// nccl-tests' -b/-e/-f/-i sweep: from `min` to `max` bytes, multiplying by `factor` when it is > 1,
/// else adding `increment`. Sizes are then rounded down to whole elements of `element` bytes times
/// `multiple` (the rank count for reduce-scatter and all-gather, whose blocks must be equal), at
/// least one such unit. Duplicates after rounding are dropped. Preconditions: 0 < min <= max,
/// factor >= 1, increment >= 0, factor > 1 or increment > 0, element >= 1, multiple >= 1.
std::vector<Bytes> size_sweep(Bytes min, Bytes max, double factor, Bytes increment, std::int64_t element,
                              std::int64_t multiple);

/// Statistics of per-iteration times: min, median (mean of the two middle values for an even
/// count), mean, max and p99 (nearest rank: the ceil(0.99 n)-th smallest). Precondition: non-empty.
sim::IterationStats iteration_stats(std::span<const Duration> times, int warmup);

/// One measured size: what ran and its per-iteration times (already the maximum over ranks) and
/// per-rank medians.
struct Measurement {
  sim::Collective collective = sim::Collective::AllReduce;
  std::string algorithm;          ///< "nccl", "mpi", or the schedule's algorithm ("ring")
  std::string dtype = "float";    ///< nccl-tests' name
  Bytes message;                  ///< nccl-tests' size
  int ranks = 0;
  std::vector<Duration> iterations;   ///< per iteration, the slowest rank's time
  std::vector<Duration> rank_median;  ///< per rank, its own median iteration
  int warmup = 0;
  std::optional<std::int64_t> wrong;  ///< summed over ranks; empty when not checked
};

/// The measured Result: time = median iteration, rank_finish = per-rank medians.
sim::Result measured_result(const Measurement& m, const sim::ResultSource& source, const sim::RunKey& key);

}  // namespace ringlab::validate
