// The sweep journal: every finished point of `ringlab sweep -o FILE`, appended and flushed as it
// finishes, so an interrupted sweep (Ctrl-C, a killed job) keeps its work and `--resume` skips it.
//
// FILE.journal (FILE.journal.<rank> under MPI, one writer per file) holds JSON lines: a header
// {"ringlab_sweep_journal": 1, "sweep": DIGEST, "points": N}, then {"index": i, "metrics": [...],
// "error": "..."} per finished point, in finishing order. DIGEST identifies the sweep (command, base
// scenario, axes, metrics), so a journal of another sweep is refused instead of mixed in. A last line
// cut short by a kill is ignored. The journal is removed once the output file is written.
#pragma once

#include <cstdint>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "sweep_grid.hpp"

namespace ringlab::cli {

/// 16 hex digits identifying what a sweep computes.
std::string sweep_digest(const SweepSpec& spec);

/// The journal file names of output `output` for `ranks` ranks: FILE.journal, or FILE.journal.<r>.
std::vector<std::string> journal_files(const std::string& output, int ranks);

/// The journals of `output` that exist now (any rank count), sorted.
std::vector<std::string> existing_journals(const std::string& output);

/// Reads every journal of `output` that exists (any rank count): finished points by index. Throws
/// InputError naming the journal when it belongs to another sweep or a line is not a journal entry.
std::map<std::int64_t, SweepRow> read_journals(const std::string& output, const SweepSpec& spec);

/// Appends finished points to one journal; thread-safe.
class SweepJournal {
 public:
  /// Opens `path` for appending (writing the header first when the file is new or empty). Throws
  /// InputError when it cannot be written.
  SweepJournal(const std::string& path, const SweepSpec& spec);
  void add(std::int64_t index, const SweepRow& row);

 private:
  std::mutex mutex_;
  std::ofstream out_;
  std::string path_;
};

}  // namespace ringlab::cli
