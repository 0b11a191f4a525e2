// Reliability and start-up of long training runs: communicator start-up cost, node failures with an
// exponential MTBF, checkpoint/restart, the expected goodput and the checkpoint interval that
// maximises it.
//
// Failure model (Daly 2006, "A higher order estimate of the optimum checkpoint interval for restart
// dumps", FGCS 22(3)): failures arrive as a Poisson process with system MTBF M = node MTBF / nodes;
// a run of solve time Ts checkpointed every tau seconds (cost C) and restarted after a failure (cost
// R) takes in expectation
//   T_wall = M * exp(R/M) * (exp((tau + C)/M) - 1) * Ts / tau,
// so goodput = Ts / T_wall. Young (1974): tau = sqrt(2*C*M). Daly's higher-order optimum:
//   tau = sqrt(2*C*M) * (1 + sqrt(C/(2M))/3 + (C/(2M))/9) - C   for C < 2M, else tau = M.
// Long times are doubles in seconds: an MTBF of years overflows Duration's int64 picoseconds.
#pragma once

#include <string_view>

namespace ringlab::sim {

/// Communicator start-up: base + per_rank * ranks seconds. The linear term models NCCL's bootstrap
/// (ncclCommInitRank: a ring all-gather of every rank's connection info over TCP, then one
/// connection set-up per peer), whose cost grows with the rank count; constants are assumptions to
/// override with a measurement (kStartup* in reliability.cpp).
struct StartupModel {
  double base_s;
  double per_rank_s;
  static StartupModel defaults();
  double seconds(int ranks) const { return base_s + per_rank_s * double(ranks); }
};

struct Reliability {
  double node_mtbf_s = 0;          ///< mean time between failures of one node; 0 = no failures
  double checkpoint_s = 0;         ///< C: time to write one checkpoint
  double restart_s = 0;            ///< R: time to restart after a failure (before start-up)
  double interval_s = 0;           ///< checkpoint interval used; 0 = the optimum
  StartupModel startup = StartupModel::defaults();
};

struct ReliabilityResult {
  int nodes = 0;
  double system_mtbf_s = 0;        ///< 0 when failures are off
  double young_interval_s = 0;
  double daly_interval_s = 0;
  double best_interval_s = 0;      ///< numeric maximum of goodput(tau)
  double interval_s = 0;           ///< the one used
  double goodput = 1;              ///< at interval_s
  double startup_s = 0;
};

double young_interval(double checkpoint_s, double mtbf_s);
double daly_interval(double checkpoint_s, double mtbf_s);
/// Expected wall time for `solve_s` of work (Daly's model above). Preconditions: all > 0 except restart >= 0.
double daly_wall_time(double solve_s, double interval_s, double checkpoint_s, double restart_s, double mtbf_s);
/// solve / wall time; independent of the solve time.
double goodput(double interval_s, double checkpoint_s, double restart_s, double mtbf_s);
/// The interval maximising goodput (golden-section search; goodput is unimodal in tau).
double best_interval(double checkpoint_s, double restart_s, double mtbf_s);

/// Evaluates the reliability model for a job on `nodes` hosts and `ranks` GPUs.
ReliabilityResult evaluate_reliability(const Reliability& r, int nodes, int ranks);

/// Parses a long duration into seconds: a number with unit "ps", "ns", "us", "ms", "s", "min", "h"
/// or "d" ("50000h", "90min", "30 s", "0"). Throws std::invalid_argument naming what was expected.
double parse_long_duration(std::string_view text);

}  // namespace ringlab::sim
