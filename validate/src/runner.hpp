// The harness's main loop: reads the scenario and rank order (rank 0 reads, every rank parses),
// checks where the ranks landed, builds the schedule of every size (schedule mode), drives the
// back-end through warm-up, timed and checked iterations, and writes the nccl-tests-style table and
// the measured Results.
#pragma once

#include <string>

namespace ringlab::validate {

class World;

struct Options {
  std::string backend;                 ///< "mpi" or "nccl"; "" = nccl when built, else mpi
  std::string mode = "library";        ///< "library" (the library's own collective) or "schedule"
  std::string collective = "allreduce";
  std::string min_bytes = "32M";       ///< nccl-tests -b (K/M/G are powers of 1024, or unit strings "1MiB")
  std::string max_bytes = "32M";       ///< nccl-tests -e
  double step_factor = 1;              ///< nccl-tests -f (> 1: multiply)
  std::string step_bytes = "1M";       ///< nccl-tests -i (used when the factor is 1)
  int warmup = 1;                      ///< nccl-tests -w
  int iterations = 20;                 ///< nccl-tests -n
  std::string dtype = "float";         ///< nccl-tests -d
  std::string op = "sum";              ///< nccl-tests -o
  int root = 0;                        ///< nccl-tests -r
  int check = 1;                       ///< nccl-tests -c
  std::string scenario;                ///< cluster the ranks run on (needed by schedule mode)
  std::string rank_order;              ///< plan.json, hostfile, rankfile, ... (sim::load_rank_order)
  std::string algorithm = "ring";      ///< schedule mode: which schedule to build
  int channels = 1;                    ///< schedule mode
  std::string chunk = "0";             ///< schedule mode: pipelining piece, 0 = none
  std::string results;                 ///< ringlab.results file to write (rank 0)
  double timeout_seconds = 300;        ///< no progress for this long ends the job (0: never)
  bool strict_placement = false;       ///< ranks on other hosts than the order says: error, not warning
  std::string gpu_calibration;         ///< write GPU reduce/copy/GEMM rates here and exit (nccl builds)
};

/// Exit codes: 0 ok, 1 wrong results, 2 bad input, 4 a rank stalled (watchdog).
inline constexpr int kExitWrong = 1;
inline constexpr int kExitInput = 2;
inline constexpr int kExitStalled = 4;

/// Runs the sweep on every rank; returns the process exit code. Throws InputError for bad input
/// (every rank throws the same, since every rank parses the same text).
int run_harness(const World& world, const Options& options);

}  // namespace ringlab::validate
