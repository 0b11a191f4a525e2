// The launch bundle: plan.json and the files launchers and NCCL read, so the planned order is the
// order that runs (shared/reference/launchers.md has the facts and sources).
//
//   plan.json              the plan (docs/plan-format.md); `ringlab simulate --rank-order plan.json` reads it
//   hostfile               Open MPI / DeepSpeed: "host slots=N" in node order (mpirun --map-by slot)
//   rankfile               Open MPI: "rank R=host slot=S", one line per rank
//   slurm.hosts, srun.sh   SLURM_HOSTFILE (one line per task) and the srun line (--distribution=arbitrary)
//   machinefile            MPICH / Hydra: "host:N"
//   torchrun.sh            per-node torchrun with the static rendezvous (--node-rank)
//   tf_config/HOST.json    TF_CONFIG per worker: cluster.worker in node order, task.index
//   nccl.env               system settings, safe to ship (NCCL_GRAPH_FILE, NCCL_CROSS_NIC)
//   nccl-debug.env         debug-only settings (NCCL_ALGO, NCCL_MIN/MAX_NCHANNELS): not for production
//   nccl-graph/HOST.xml    NCCL_GRAPH_FILE per host: each channel's GPUs and NICs inside the host
//   check.sh               run on the cluster: checks from NCCL_DEBUG=INFO output that NCCL loaded the
//                          graph, that every rank sits on its planned host and GPU, and the ring order
//   README.txt             which file for which launcher
//
// Local rank i of a host runs on the GPU with local index hosts[h].gpus[i]: every launcher line sets
// CUDA_VISIBLE_DEVICES to that list, so local rank i uses visible device i, and the graph files name
// GPUs by that visible index ("dev", parsed as hex by NCCL: launchers.md 3).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ringlab/planner/plan.hpp"

namespace ringlab::planner {

struct BundleFile {
  std::string path;         ///< relative to the bundle directory
  std::string text;
  bool executable = false;
};

/// plan.json's document (schema kPlanSchema, version kPlanFormatVersion).
nlohmann::json plan_to_json(const Topology& topology, const Plan& plan);

/// Reads a plan document back. The order is read as `simulate --rank-order` reads it; the hosts are
/// derived again from the order and must equal the stored ones. Throws InputError naming `file` and
/// the JSON pointer of every problem.
Plan plan_from_json(const Topology& topology, const nlohmann::json& document, const std::string& file);

/// Every file of the bundle, in a stable order. Pure.
std::vector<BundleFile> launch_files(const Topology& topology, const Plan& plan);

/// Writes the bundle into `dir` (created if needed), each file to a temporary name and renamed into
/// place; scripts are made executable. Throws InputError when a file cannot be written.
void write_bundle(const Topology& topology, const Plan& plan, const std::string& dir);

/// Re-reads plan.json and every launch file in `dir` by the real tools' rules and returns one
/// problem per mismatch with the plan ("hostfile:3: expected node4 slots=4, found node5 slots=4");
/// empty when every file encodes the planned order. Throws InputError when plan.json is unreadable.
std::vector<std::string> check_bundle(const Topology& topology, const std::string& dir);

}  // namespace ringlab::planner
