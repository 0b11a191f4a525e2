// `ringlab sweep`: run one command (simulate, train) headless over a grid of scenario variants and write
// one row per point (docs/sweep.md).
//
// Points run on a pool of threads, each point building its own scenario, topology and simulator; under
// an MPI launcher the ranks take every size-th point and rank 0 gathers the rows. Rows are placed by
// point index, so the output is the same byte for byte whatever the number of threads or ranks.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "commands.hpp"
#include "names.hpp"
#include "output.hpp"
#include "ringlab/topology/error.hpp"
#include "sweep_grid.hpp"
#include "sweep_mpi.hpp"
#include "sweep_runners.hpp"

namespace ringlab::cli {
namespace {

using Json = nlohmann::json;

struct SweepCommandLine {
  std::string file;
  std::string format = "csv";
  std::string output;
  int jobs = 0;  // 0 = this machine's cores, shared among the MPI ranks on it
  bool progress = false;
};

/// Reports finished points on stderr: a redrawn bar on a terminal, else "done k/n" lines if asked.
class Progress {
 public:
  Progress(std::int64_t total, bool bar, bool lines) : total_(total), bar_(bar), lines_(lines && !bar) {}

  void point_done() {
    if (!bar_ && !lines_) return;
    const std::lock_guard<std::mutex> lock(mutex_);
    ++done_;
    if (lines_) std::cerr << "done " << done_ << '/' << total_ << '\n';
    if (!bar_) return;
    constexpr int kWidth = 40;
    const auto filled = int(done_ * kWidth / std::max<std::int64_t>(total_, 1));
    std::cerr << "\rsweep [" << std::string(std::size_t(filled), '#') << std::string(std::size_t(kWidth - filled), '.')
              << "] " << done_ << '/' << total_ << (done_ == total_ ? "\n" : "") << std::flush;
  }

 private:
  std::int64_t total_;
  bool bar_;
  bool lines_;
  std::mutex mutex_;
  std::int64_t done_ = 0;
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
  } catch (const std::exception& e) {
    return SweepRow{{}, std::string("internal error: ") + e.what()};
  }
}

// Runs the points `indices` on `jobs` threads; rows[k] is point indices[k].
std::vector<SweepRow> run_points(const SweepSpec& spec, const SweepRunner& runner,
                                 const std::vector<std::int64_t>& indices, int jobs, Progress& progress) {
  std::vector<SweepRow> rows(indices.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t k = next++; k < indices.size(); k = next++) {
      rows[k] = run_point(spec, runner, indices[k]);
      progress.point_done();
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

// Runs this rank's share and, on rank 0, writes the output. Returns the exit status every rank agrees on.
int run_share(const SweepCommandLine& c, const SweepMpi& mpi) {
  const SweepSpec spec = load_sweep(c.file, sweep_commands());
  std::vector<std::int64_t> indices;
  for (std::int64_t i = mpi.rank(); i < spec.point_count; i += mpi.size()) indices.push_back(i);
  const bool root = mpi.rank() == 0;
  Progress progress(std::int64_t(indices.size()), root && isatty(STDERR_FILENO), root && c.progress);
  const int jobs = c.jobs > 0 ? c.jobs : default_jobs(mpi);
  std::vector<SweepRow> rows = run_points(spec, sweep_runners().at(spec.command), indices, jobs, progress);
  if (mpi.size() > 1) rows = gather_rows(mpi, indices, rows, spec.point_count);

  int status = kExitOk;
  std::optional<InputError> write_error;
  if (root) {
    try {
      write_output(c.output, [&](std::ostream& out) {
        if (c.format == "json") write_sweep_json(out, spec, rows);
        else write_sweep_csv(out, spec, rows);
      });
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
  sweep->add_option("-j,--jobs", c->jobs, "points run at once per process (default: the machine's cores, "
                                          "divided among the MPI ranks on it)")
      ->check(CLI::Range(1, 4096));
  sweep->add_flag("--progress", c->progress, "print 'done k/n' lines on stderr (a bar is drawn anyway on a terminal)");
  sweep->callback([c] { run_sweep(*c); });
}

}  // namespace ringlab::cli
