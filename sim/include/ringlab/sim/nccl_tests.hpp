// Measurements from nccl-tests (NVIDIA/nccl-tests: all_reduce_perf and friends), read into measured
// Results, so runs on machines where ringlab-validate cannot be installed compare and calibrate like
// the harness's own. Both of nccl-tests' outputs are read:
//   - the text table it prints (shared/reference/formats.md 8): "# Collective test starting: X_perf",
//     the "# nThread ... warmup iters: W iters: N" line, one "#  Rank ..." line per rank (the host
//     after "on"), and rows of size, count, type, redop, root, then time (us), algbw, busbw, #wrong for
//     out-of-place and in-place; tolerated: old headers without "Group", "# Reducing maxBytes" lines,
//     "N/A" in #wrong (-c 0), extra vendor columns after the thirteenth;
//   - its JSON (-J file, "version": 3): args[0] names the program, config holds the iteration counts
//     and the devices, and each result has "out_of_place"/"in_place" and, with -I 1,
//     "*_per_iter" statistics (min, median = p50, mean, p99, max), which become the Result's
//     iterations (compare() then uses the median; without them, the reported mean).
// ringlab-validate's own table ("# ringlab-validate: allreduce, ...") reads the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ringlab/sim/result.hpp"

namespace ringlab::sim {

/// Which half of nccl-tests' table becomes the Result.
enum class Placement : std::uint8_t { OutOfPlace, InPlace };

/// Reads nccl-tests' text output. Time = the reported time (the mean of the iterations); no iteration
/// statistics (the text has no distribution). Lines may carry a launcher's prefix, which is dropped:
/// "0: " (srun -l) or "[1,0]<stdout>:" (mpirun --tag-output). Older nccl-tests print no
/// "# Collective test starting" line, and output cut from a log may lack the device list: then
/// `collective` says which collective ran (without it that is an error), and the Results have
/// ranks = 0 (unknown; see fill_unknown_ranks). When the output carries NCCL's per-call tuning log
/// (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=TUNING; NCCL logs to stdout by default), a row's algorithm is
/// the one NCCL logged for its size, named as ringlab names NCCL's choices ("nccl:tree/ll128"),
/// else "nccl", and its key's channels the logged channel{Lo..Hi} range's (2.19 and later; `compare`
/// notes a prediction on other channels). Rows of 0 bytes (`-b 0`) move nothing and are left out. Throws InputError naming
/// `file` and the line of every problem.
std::vector<Result> read_nccl_tests_text(std::string_view text, const std::string& file,
                                         Placement placement = Placement::OutOfPlace,
                                         std::optional<Collective> collective = std::nullopt);

/// Reads nccl-tests' -J JSON document; rows of 0 bytes are left out, as in the text. Throws
/// InputError naming `file` and the JSON pointer.
std::vector<Result> read_nccl_tests_json(const nlohmann::json& document, const std::string& file,
                                         Placement placement = Placement::OutOfPlace);

/// Any measurement file: a ringlab.results file, nccl-tests JSON or nccl-tests text, told apart by
/// content. Throws InputError naming `path`.
/// `collective`: as for read_nccl_tests_text, for text output that does not name it.
std::vector<Result> load_measurements(const std::string& path, Placement placement = Placement::OutOfPlace,
                                      std::optional<Collective> collective = std::nullopt);

/// Sets ranks = `ranks` on every Result whose rank count is unknown (0); returns how many it set.
std::size_t fill_unknown_ranks(std::vector<Result>& results, int ranks);

}  // namespace ringlab::sim
