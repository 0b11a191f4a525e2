// `ringlab sweep`: run one command (simulate, train) headless over a grid of scenario variants and write
// one row per point (docs/sweep.md).
//
// Points run on a pool of threads, each point building its own scenario, topology and simulator; under
// an MPI launcher the ranks take every size-th point and rank 0 gathers the rows. Rows are placed by
// point index, so the output is the same byte for byte whatever the number of threads or ranks, and
// whether the sweep ran in one go or was resumed. Finished points are streamed as they finish: to the
// journal beside `-o FILE` (sweep_journal.hpp; `--resume` continues from it), or, without -o, as CSV
// lines on standard output in point order. With --plot, rank 0 draws the rows as an SVG once every point
// is in (sweep_plot.hpp).
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <thread>

#include "commands.hpp"
#include "names.hpp"
#include "output.hpp"
#include "ringlab/topology/error.hpp"
#include "sweep_grid.hpp"
#include "sweep_journal.hpp"
#include "sweep_mpi.hpp"
#include "sweep_plot.hpp"
#include "sweep_runners.hpp"

namespace ringlab::cli {
namespace {

using Json = nlohmann::json;

struct SweepCommandLine {
  std::string file;
  std::string format = "csv";
  std::string output;
  std::string plot;  ///< an SVG of the results against the first numeric axis, written with the output
  int jobs = 0;  // 0 = this machine's cores, shared among the MPI ranks on it
  bool progress = false;
  bool resume = false;
  std::int64_t limit = 0;  ///< run at most this many new points, then stop (0: all)
};

/// Reports finished points on stderr: a redrawn bar with the elapsed time and an estimate of the time
/// left on a terminal, else "done k/n" lines if asked.
class Progress {
 public:
  Progress(std::int64_t total, bool bar, bool lines)
      : total_(total), bar_(bar), lines_(lines && !bar), start_(std::chrono::steady_clock::now()) {}

  void point_done() {
    if (!bar_ && !lines_) return;
    const std::lock_guard<std::mutex> lock(mutex_);
    ++done_;
    if (lines_) std::cerr << "done " << done_ << '/' << total_ << '\n';
    if (!bar_) return;
    constexpr int kWidth = 40;
    const auto filled = int(done_ * kWidth / std::max<std::int64_t>(total_, 1));
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double left = elapsed / double(done_) * double(total_ - done_);
    std::cerr << "\rsweep [" << std::string(std::size_t(filled), '#') << std::string(std::size_t(kWidth - filled), '.')
              << "] " << done_ << '/' << total_ << "  " << clock(elapsed) << " elapsed"
              << (done_ == total_ ? "          \n" : ", ETA " + clock(left) + "  ") << std::flush;
  }

 private:
  /// "m:ss", or "h:mm:ss" from an hour.
  static std::string clock(double seconds) {
    const auto s = std::int64_t(seconds + 0.5);
    char text[32];
    if (s >= 3600) std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", (long long)(s / 3600), (long long)(s / 60 % 60), (long long)(s % 60));
    else std::snprintf(text, sizeof text, "%lld:%02lld", (long long)(s / 60), (long long)(s % 60));
    return text;
  }

  std::int64_t total_;
  bool bar_;
  bool lines_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::int64_t done_ = 0;
};

/// Writes CSV lines on standard output in point order as points finish (a point waits for the ones
/// before it); points already known (a resumed sweep) are given up front.
class OrderedCsv {
 public:
  OrderedCsv(const SweepSpec& spec, std::map<std::int64_t, SweepRow> known) : spec_(spec), pending_(std::move(known)) {
    std::cout << sweep_csv_header(spec_) << '\n';
    flush_ready();
  }
  void add(std::int64_t index, const SweepRow& row) {
    const std::lock_guard<std::mutex> lock(mutex_);
    pending_[index] = row;
    flush_ready();
  }

 private:
  void flush_ready() {
    for (auto it = pending_.find(next_); it != pending_.end(); it = pending_.find(++next_)) {
      std::cout << sweep_csv_line(spec_, next_, it->second) << '\n';
      pending_.erase(it);
    }
    std::cout.flush();
  }
  const SweepSpec& spec_;
  std::mutex mutex_;
  std::map<std::int64_t, SweepRow> pending_;
  std::int64_t next_ = 0;
};

std::string problems_text(const InputError& e) {
  std::string text;
  for (const Problem& p : e.problems()) text += (text.empty() ? "" : "; ") + p.to_string();
  return text;
}

SweepRow run_point(const SweepSpec& spec, const SweepRunner& runner, std::int64_t index) {
  try {
    return metric_row(spec, runner.run(point_scenario(spec, index), spec.base_source));
  } catch (const InputError& e) {
    return SweepRow{{}, problems_text(e)};
  } catch (const std::bad_alloc&) {
    return SweepRow{{}, "out of memory: this point needs more memory than the process can allocate"};
  } catch (const std::exception& e) {
    return SweepRow{{}, std::string("internal error: ") + e.what()};
  }
}

// Runs the points `indices` on `jobs` threads; rows[k] is point indices[k]. `finished` is called, from
// the worker thread, with each point as it finishes.
std::vector<SweepRow> run_points(const SweepSpec& spec, const SweepRunner& runner,
                                 const std::vector<std::int64_t>& indices, int jobs,
                                 const std::function<void(std::int64_t, const SweepRow&)>& finished) {
  std::vector<SweepRow> rows(indices.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t k = next++; k < indices.size(); k = next++) {
      rows[k] = run_point(spec, runner, indices[k]);
      finished(indices[k], rows[k]);
    }
  };
  std::vector<std::thread> threads;
  const auto count = std::min<std::size_t>(std::size_t(std::max(jobs, 1)), indices.size());
  for (std::size_t t = 1; t < count; ++t) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  return rows;
}

// Each rank's rows as CBOR [[index, [metrics...], error], ...]; rank 0 puts them back in point order.
std::vector<SweepRow> gather_rows(const SweepMpi& mpi, const std::vector<std::int64_t>& indices,
                                  const std::vector<SweepRow>& local, std::int64_t point_count) {
  Json mine = Json::array();
  for (std::size_t k = 0; k < local.size(); ++k) mine.push_back({indices[k], local[k].metrics, local[k].error});
  const std::vector<std::uint8_t> bytes = Json::to_cbor(mine);
  const std::vector<std::string> parts = mpi.gather(std::string(bytes.begin(), bytes.end()));
  std::vector<SweepRow> rows(mpi.rank() == 0 ? std::size_t(point_count) : 0);
  for (const std::string& part : parts)
    for (const Json& row : Json::from_cbor(part))
      rows[row[0].get<std::size_t>()] = SweepRow{row[1].get<std::vector<Json>>(), row[2].get<std::string>()};
  return rows;
}

SweepCommands sweep_commands() {
  SweepCommands commands;
  for (const auto& [name, runner] : sweep_runners()) commands[name] = runner.default_metrics;
  return commands;
}

int default_jobs(const SweepMpi& mpi) {
  const auto cores = int(std::thread::hardware_concurrency());
  return std::max(1, cores / std::max(mpi.local_size(), 1));
}

/// Points finished by an earlier, interrupted run of the same sweep (--resume), or none.
std::map<std::int64_t, SweepRow> resumed_points(const SweepCommandLine& c, const SweepSpec& spec) {
  if (c.output.empty() || c.output == "-") {
    if (c.resume) throw InputError("", "--resume", "needs -o FILE: the journal of finished points is kept beside it");
    return {};
  }
  if (c.resume) return read_journals(c.output, spec);
  if (const std::vector<std::string> journals = existing_journals(c.output); !journals.empty())
    throw InputError(journals.front(), "", "an interrupted run of this output left its finished points here: add "
                                           "--resume to continue it, or remove the file to start again");
  return {};
}

/// resumed_points() on every rank, and every rank agrees on the outcome before any rank opens its own
/// journal: otherwise rank 0's fresh journal could look to a slower rank like an interrupted run,
/// that rank would stop, and rank 0 would wait for it forever. The gather returns on rank 0 only
/// once every rank has looked.
std::map<std::int64_t, SweepRow> agreed_resumed_points(const SweepCommandLine& c, const SweepSpec& spec,
                                                       const SweepMpi& mpi) {
  std::optional<InputError> problem;
  std::map<std::int64_t, SweepRow> done;
  try {
    done = resumed_points(c, spec);
  } catch (const InputError& e) {
    problem = e;
  }
  if (mpi.size() > 1) {
    const std::vector<std::string> looked = mpi.gather(problem ? "1" : "0");
    const bool any = std::any_of(looked.begin(), looked.end(), [](const std::string& v) { return v == "1"; });
    if (mpi.broadcast(any ? 1 : 0) != 0 && !problem)
      problem = InputError("", "--resume", "another rank found the journals of an interrupted run it cannot continue");
  }
  if (problem) throw *problem;
  return done;
}

// Runs this rank's share and, on rank 0, writes the output. Returns the exit status every rank agrees on.
int run_share(const SweepCommandLine& c, const SweepMpi& mpi) {
  const SweepSpec spec = load_sweep(c.file, sweep_commands());
  if (!c.plot.empty()) (void)sweep_plot_layout(spec);  // a sweep that cannot be drawn is refused before it runs
  const std::map<std::int64_t, SweepRow> done = agreed_resumed_points(c, spec, mpi);
  std::vector<std::int64_t> todo;
  for (std::int64_t i = 0; i < spec.point_count; ++i)
    if (!done.count(i)) todo.push_back(i);
  const bool partial = c.limit > 0 && std::int64_t(todo.size()) > c.limit;
  if (partial) {
    if (c.output.empty() || c.output == "-") throw InputError("", "--limit", "needs -o FILE (the journal keeps the points)");
    todo.resize(std::size_t(c.limit));
  }
  std::vector<std::int64_t> indices;
  for (std::size_t k = std::size_t(mpi.rank()); k < todo.size(); k += std::size_t(mpi.size())) indices.push_back(todo[k]);
  const bool root = mpi.rank() == 0;
  Progress progress(std::int64_t(indices.size()), root && isatty(STDERR_FILENO), root && c.progress);
  const bool to_file = !c.output.empty() && c.output != "-";
  std::optional<SweepJournal> journal;
  if (to_file) journal.emplace(journal_files(c.output, mpi.size())[std::size_t(mpi.rank())], spec);
  std::optional<OrderedCsv> stream;
  if (!to_file && mpi.size() == 1 && c.format == "csv") stream.emplace(spec, done);
  const int jobs = c.jobs > 0 ? c.jobs : default_jobs(mpi);
  std::vector<SweepRow> mine = run_points(spec, sweep_runners().at(spec.command), indices, jobs,
                                          [&](std::int64_t index, const SweepRow& row) {
                                            if (journal) journal->add(index, row);
                                            if (stream) stream->add(index, row);
                                            progress.point_done();
                                          });
  if (partial) {
    if (root)
      std::cerr << "ringlab sweep: stopped after " << c.limit << " more points (" << done.size() + todo.size() << " of "
                << spec.point_count << " done, kept in " << journal_files(c.output, mpi.size()).front()
                << (mpi.size() > 1 ? " and the other ranks' journals" : "") << "); run again with --resume\n";
    return kExitOk;
  }
  std::vector<SweepRow> rows = mpi.size() > 1 ? gather_rows(mpi, indices, mine, spec.point_count) : std::vector<SweepRow>{};
  if (mpi.size() == 1) {
    rows.resize(std::size_t(spec.point_count));
    for (std::size_t k = 0; k < indices.size(); ++k) rows[std::size_t(indices[k])] = std::move(mine[k]);
  }
  if (root)
    for (const auto& [index, row] : done) rows[std::size_t(index)] = row;

  int status = kExitOk;
  std::optional<InputError> write_error;
  if (root) {
    try {
      if (!stream)
        write_output(c.output, [&](std::ostream& out) {
          if (c.format == "json") write_sweep_json(out, spec, rows);
          else write_sweep_csv(out, spec, rows);
        });
      if (!c.plot.empty()) write_output(c.plot, [&](std::ostream& out) { write_sweep_plot(out, spec, rows); });
      const auto failed = std::count_if(rows.begin(), rows.end(), [](const SweepRow& r) { return r.failed(); });
      if (failed > 0) {
        std::cerr << "ringlab sweep: " << failed << " of " << rows.size() << " points failed (see the error column)\n";
        status = kExitSomePointsFailed;
      }
    } catch (const InputError& e) {
      write_error = e;
      status = kExitBadInput;
    }
  }
  status = mpi.broadcast(status);
  journal.reset();
  if (root && to_file && !write_error) {
    std::error_code ec;
    for (const std::string& path : existing_journals(c.output)) std::filesystem::remove(path, ec);
  }
  if (write_error) throw *write_error;
  return status;
}

void run_sweep(const SweepCommandLine& c) {
  const SweepMpi mpi;
  int status = kExitOk;
  try {
    status = run_share(c, mpi);
  } catch (const InputError&) {
    if (mpi.rank() == 0) throw;
    status = kExitBadInput;  // every rank read the same file; rank 0 reports it
  }
  if (status != kExitOk) throw ExitStatus{status};
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto c = std::make_shared<SweepCommandLine>();
  CLI::App* sweep = app.add_subcommand(
      "sweep", "Run simulate (or train) headless over a grid of scenario variants; one CSV or JSON row per point");
  sweep->add_option("sweep", c->file, "Sweep file (JSON; see docs/sweep.md)")->required();
  sweep->add_option("-f,--format", c->format, "csv or json")
      ->check(one_of("format", {"csv", "json"}))
      ->capture_default_str();
  sweep->add_option("-o,--output", c->output, "write the results to this file instead of standard output");
  sweep->add_option("--plot", c->plot, "also draw busbw (else time, else the first metric) against the first "
                                      "numeric axis as an SVG, one line per combination of the other axes");
  sweep->add_option("-j,--jobs", c->jobs, "points run at once per process (default: the machine's cores, "
                                          "divided among the MPI ranks on it)")
      ->check(CLI::Range(1, 4096));
  sweep->add_flag("--progress", c->progress, "print 'done k/n' lines on stderr (a bar is drawn anyway on a terminal)");
  sweep->add_option("--limit", c->limit, "run at most N more points, keep them in the journal and stop "
                                        "(for time-limited jobs; continue with --resume)")
      ->check(CLI::Range(std::int64_t(1), std::int64_t(kMaxPointsCeiling)));
  sweep->add_flag("--resume", c->resume,
                  "continue an interrupted sweep: skip the points in the journal beside -o FILE (FILE.journal)");
  sweep->callback([c] { run_sweep(*c); });
}

}  // namespace ringlab::cli
