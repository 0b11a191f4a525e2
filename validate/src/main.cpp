// ringlab-validate: runs collectives for real under MPI (mpirun, srun), nccl-tests style, and
// writes what it measured as ringlab.results for `ringlab compare` and `ringlab calibrate`.
//
//   mpirun -np 16 --hostfile plan/hostfile ringlab-validate --scenario cluster.json --plan plan/plan.json
//          -b 8 -e 1G -f 2 --results measured.json
//
// Exit codes: 0 ok, 1 wrong results, 2 bad input (same on every rank), 3 a back-end failed on some
// rank (the job is aborted), 4 a rank made no progress within --timeout (the job is aborted).
#include <CLI/CLI.hpp>

#include <iostream>

#include "gpu_calibration.hpp"
#include "ringlab/topology/error.hpp"
#include "runner.hpp"
#include "world.hpp"

namespace {

constexpr int kExitBackendFailed = 3;

void add_options(CLI::App& app, ringlab::validate::Options& o) {
  app.add_option("--backend", o.backend, "nccl (GPUs, one per rank) or mpi (CPU buffers); default nccl when built");
  app.add_option("--mode", o.mode, "library (the library's own collective) or schedule (ringlab's schedule, op by op)")
      ->capture_default_str();
  app.add_option("--collective", o.collective, "allreduce, reducescatter, allgather, broadcast or reduce")
      ->capture_default_str();
  app.add_option("-b,--minbytes", o.min_bytes, "smallest size (nccl-tests: K/M/G suffixes, or 256MiB)")->capture_default_str();
  app.add_option("-e,--maxbytes", o.max_bytes, "largest size")->capture_default_str();
  app.add_option("-f,--stepfactor", o.step_factor, "multiply the size by this between steps (1: add -i)")
      ->capture_default_str();
  app.add_option("-i,--stepbytes", o.step_bytes, "add this between steps when -f is 1")->capture_default_str();
  app.add_option("-w,--warmup_iters", o.warmup, "untimed iterations per size")->capture_default_str();
  app.add_option("-n,--iters", o.iterations, "timed iterations per size")->capture_default_str();
  app.add_option("-d,--datatype", o.dtype, "float, half, bfloat16, double or int32")->capture_default_str();
  app.add_option("-o,--op", o.op, "reduction (sum)")->capture_default_str();
  app.add_option("-r,--root", o.root, "root rank of broadcast and reduce")->capture_default_str();
  app.add_option("-c,--check", o.check, "check the results of one extra iteration (0 or 1)")->capture_default_str();
  app.add_option("--scenario", o.scenario, "the cluster the job runs on (ringlab scenario file)");
  app.add_option("--plan,--rank-order", o.rank_order,
                 "where each rank should run: plan.json from `ringlab plan -o`, or a hostfile, rankfile, ...");
  app.add_option("--algo", o.algorithm, "schedule mode: the schedule to build (ring, tree, ...)")->capture_default_str();
  app.add_option("--channels", o.channels, "schedule mode: parallel rings or trees")->capture_default_str();
  app.add_option("--chunk", o.chunk, "schedule mode: pipelining piece size (0: none)")->capture_default_str();
  app.add_option("--results", o.results, "write the measured results here (ringlab.results JSON)");
  app.add_option("--timeout", o.timeout_seconds, "seconds without progress after which the job is aborted (0: never)")
      ->capture_default_str();
  app.add_flag("--strict-placement", o.strict_placement, "ranks on other hosts than the rank order says is an error");
  app.add_option("--gpu-calibration", o.gpu_calibration,
                 "measure this GPU's reduction, copy and GEMM rates, write them here and exit (NCCL builds)");
}

}  // namespace

int main(int argc, char** argv) {
  ringlab::validate::World world(&argc, &argv);
  const bool leader = world.rank() == 0;
  CLI::App app{"ringlab-validate: run collectives under MPI with NCCL or MPI, nccl-tests style, and write "
               "the measured results for `ringlab compare` and `ringlab calibrate`"};
  ringlab::validate::Options options;
  add_options(app, options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return leader ? app.exit(e) : 0;
  } catch (const CLI::ParseError& e) {
    if (leader) app.exit(e);
    return ringlab::validate::kExitInput;
  }
  try {
    if (!options.gpu_calibration.empty()) return ringlab::validate::write_gpu_calibration(world, options.gpu_calibration);
    return ringlab::validate::run_harness(world, options);
  } catch (const ringlab::InputError& e) {
    // Every rank parsed the same input and threw the same error: rank 0 reports it, all exit cleanly.
    if (leader)
      for (const ringlab::Problem& p : e.problems()) std::cerr << "ringlab-validate: error: " << p.to_string() << '\n';
    return ringlab::validate::kExitInput;
  } catch (const std::exception& e) {
    std::cerr << "ringlab-validate: rank " << world.rank() << " on " << world.host() << ": " << e.what()
              << "; aborting the job" << std::endl;
    world.abort(kExitBackendFailed);
  }
}
