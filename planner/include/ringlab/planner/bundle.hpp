// The launch bundle: every file a launcher or NCCL reads to run a Plan, and a checker that re-reads
// them the way those tools do.
//
// NCCL joins nodes in global rank order and the launcher decides that order (hostfile or rankfile
// order for Open MPI, SLURM_HOSTFILE with --distribution=arbitrary for Slurm, --node-rank with the
// static rendezvous for torchrun, cluster.worker for TF_CONFIG, the machinefile for MPICH/Hydra);
// the ring inside a node and the NIC of each channel are pinned per node by an NCCL_GRAPH_FILE
// (shared/reference/launchers.md 1-3). The bundle writes all of them from one Plan, plus the NCCL
// environment split into system settings and debug-only ones (launchers.md 4), and check.sh, which
// confirms from an NCCL_DEBUG=INFO log that NCCL loaded the graphs and that ranks landed where
// planned. Every file is described in docs/plan-format.md.
#pragma once

#include <string>
#include <vector>

#include "ringlab/planner/plan.hpp"
#include "ringlab/topology/topology.hpp"

namespace ringlab::planner {

/// One file of the bundle, relative to the bundle directory.
struct BundleFile {
  std::string path;         ///< "hostfile", "tf_config/node0.json", ...
  std::string text;         ///< the whole content
  bool executable = false;  ///< a script (mode 0755)
  std::string purpose;      ///< one line for README.txt
};

/// Every file of the bundle, in a stable order (plan.json, README.txt, hostfile, rankfile,
/// machinefile, slurm.hosts, srun.sh, torchrun.sh, tf_config/<host>.json in node order, nccl.env,
/// nccl-debug.env, nccl-graph/<host>.xml in node order, check.sh). Pure and deterministic.
/// Precondition: the plan is consistent with `topology` (as plan_from_json() checks); throws
/// std::invalid_argument for a host name that cannot be a file name or shell word
/// (letters, digits, '.', '-', '_' only).
std::vector<BundleFile> launch_files(const Topology& topology, const Plan& plan);

/// Writes launch_files() under `dir` (created with its subfolders). Each file is written to a
/// temporary name in its own folder and renamed into place, so an error never leaves a half-written
/// file; scripts get mode 0755. Throws InputError naming the file that could not be written.
void write_bundle(const Topology& topology, const Plan& plan, const std::string& dir);

/// Re-reads DIR/plan.json and every launch file under `dir` with the parsing rules of the tool that
/// reads it (Open MPI hostfile slots and rankfile lines, SLURM_HOSTFILE lines and commas, Hydra
/// host:n, TF_CONFIG JSON and its task index, torchrun --node-rank per host, NCCL's graph XML
/// grammar) and returns one problem per mismatch, "file:line: what is wrong (expected ..., found
/// ...)"; empty when every file encodes the planned order. A plan.json that does not load gives its
/// own problems and nothing else.
std::vector<std::string> check_bundle(const Topology& topology, const std::string& dir);

}  // namespace ringlab::planner
