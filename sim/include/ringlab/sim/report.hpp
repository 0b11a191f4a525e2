// Reports of collective runs: an nccl-tests style table, JSON and CSV.
//
// The table reproduces nccl-tests' columns (size, count, type, redop, root, time, algbw, busbw,
// #wrong; out-of-place then in-place) so a simulated sweep and a measured all_reduce_perf run can be
// compared line by line; ringlab appends the algorithm, protocol and channel count actually used.
// A simulation does not distinguish in-place from out-of-place, so both halves carry the same
// numbers, and #wrong is N/A (no data is checked). Units: time in microseconds, bandwidths in GB/s
// (1e9 bytes/s), sizes in bytes, as in nccl-tests. Output is deterministic (fixed precision).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "ringlab/sim/result.hpp"
#include "ringlab/topology/topology.hpp"

namespace ringlab::sim {

/// One line of a report: a run plus how it was configured.
struct ReportRow {
  Result result;
  std::string type = "float";   ///< nccl-tests datatype name (float, half, bfloat16, int8, ...)
  int element_size = 4;         ///< bytes per element, for the count column
  std::string redop = "sum";    ///< "none" for allgather/broadcast
  int root = -1;                ///< root rank, -1 when not applicable
  std::string protocol = "simple";
  int channels = 1;
};

struct ReportHeader {
  std::string scenario;         ///< scenario name or file
  std::string collective;
  std::string algorithm;        ///< requested algorithm (may be "nccl" = chosen per size)
  int ranks = 0;
  std::string calibration = "pure";
  std::string notes;            ///< extra lines for the header, each printed after "# "
  std::string order_source = "declaration order";  ///< where the rank order came from
  std::string order_digest;                        ///< RankOrder::digest(), "" when not known
  nlohmann::json order;                            ///< RankOrder::to_json(), null when not known
};

void write_table(std::ostream& out, const ReportHeader& header, std::span<const ReportRow> rows);
void write_json(std::ostream& out, const ReportHeader& header, std::span<const ReportRow> rows,
                const Topology& topology);
void write_csv(std::ostream& out, std::span<const ReportRow> rows);

/// nccl-tests time formatting: 2 decimals below 100 us, 1 below 10000 us, none above.
std::string format_time_us(double microseconds);

}  // namespace ringlab::sim
