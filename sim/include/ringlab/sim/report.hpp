// Reports of collective runs: an nccl-tests style table, JSON and CSV.
//
// The table reproduces nccl-tests' columns (size, count, type, redop, root, time, algbw, busbw,
// #wrong; out-of-place then in-place) so a simulated sweep and a measured all_reduce_perf run can be
// compared line by line; ringlab appends the algorithm, protocol and channel count actually used
// (algorithm_label).
// A simulation does not distinguish in-place from out-of-place, so both halves carry the same
// numbers, and #wrong is N/A (no data is checked). Units: time in microseconds, bandwidths in GB/s
// (1e9 bytes/s), sizes in bytes, as in nccl-tests. Output is deterministic (fixed precision).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
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
  std::string notes;            ///< an extra header line, printed after "# "
  std::string nccl_model;       ///< what NCCL's model sees (nccl_model_summary), "" when not NCCL's
  std::string order_source = "declaration order";  ///< where the rank order came from
  std::string order_digest;                        ///< RankOrder::digest(), "" when not known
  nlohmann::json order;                            ///< RankOrder::to_json(), null when not known
};

/// The JSON report's schema name and version (docs/report-formats.md).
inline constexpr std::string_view kSimulateReportSchema = "ringlab.simulate-report";
inline constexpr int kSimulateReportVersion = 1;

void write_table(std::ostream& out, const ReportHeader& header, std::span<const ReportRow> rows);
/// {"schema": "ringlab.simulate-report", "version": 1, "ringlab": 1, "scenario", ..., "results": [...]}.
void write_json(std::ostream& out, const ReportHeader& header, std::span<const ReportRow> rows,
                const Topology& topology);
void write_csv(std::ostream& out, std::span<const ReportRow> rows);

/// The table's algorithm column, named as NCCL's INFO logs name things: a row NCCL's model chose
/// (`algorithm` "nccl:ring/ll") reads "Ring/LL, 13 channels" (algorithms Tree, Ring, CollNetDirect,
/// CollNetChain, NVLS, NVLSTree, PAT; protocols LL, LL128, Simple); one of ringlab's own algorithms
/// keeps its --algo name, lower case, so the two stay apart: "halving_doubling/Simple, 1 channel".
/// JSON and CSV keep the machine fields (algorithm, protocol, channels) unchanged.
std::string algorithm_label(const std::string& algorithm, const std::string& protocol, int channels);

/// nccl-tests time formatting: 2 decimals below 100 us, 1 below 10000 us, none above.
std::string format_time_us(double microseconds);

}  // namespace ringlab::sim
