// The launcher files of the bundle: Open MPI hostfile and rankfile, MPICH/Hydra machinefile,
// SLURM_HOSTFILE and its srun script, torchrun lines with the static rendezvous, TF_CONFIG per
// worker. Each puts the plan's hosts in node order and rank r on the host that holds it
// (shared/reference/launchers.md 2, formats.md 6).
#include <deque>
#include <set>

#include <nlohmann/json.hpp>

#include "bundle/bundle_internal.hpp"

namespace ringlab::planner::bundle {
namespace {

constexpr int kTfIndent = 2;

/// The CPU socket (CPU local index) closest to a GPU over PCIe/SMP links, or -1 when the host has
/// no CPU on a path from it. NVLink and NVSwitch hops are not followed: they say nothing about the
/// socket the GPU hangs off.
int gpu_socket(const Topology& topology, DeviceId gpu) {
  const HostId host = topology.device(gpu).host;
  std::deque<DeviceId> queue{gpu};
  std::set<DeviceId> seen{gpu};
  while (!queue.empty()) {
    const DeviceId d = queue.front();
    queue.pop_front();
    if (topology.device(d).kind == DeviceKind::Cpu) return topology.device(d).local_index;
    for (const Adjacency& a : topology.neighbors(d)) {
      const Device& peer = topology.device(a.peer);
      const LinkFamily family = link_family(topology.link(a.link).kind);
      if (peer.host != host || peer.kind == DeviceKind::NvSwitch || family == LinkFamily::NvLink) continue;
      if (seen.insert(a.peer).second) queue.push_back(a.peer);
    }
  }
  return -1;
}

}  // namespace

BundleFile hostfile(const Plan& plan) {
  // Open MPI and DeepSpeed: "host slots=N"; `--map-by slot` fills hosts in file order, N ranks each.
  // A host without slots= gets its core count (formats.md 6, Open MPI scheduling docs).
  std::string text =
      "# Open MPI / DeepSpeed hostfile written by `ringlab plan`: hosts in node (rank) order.\n"
      "# mpirun --hostfile hostfile --map-by slot -n " + std::to_string(plan.ranks()) + " ...\n";
  for (const HostPlan& h : plan.hosts) text += h.name + " slots=" + std::to_string(h.size()) + "\n";
  return {"hostfile", text, false, "Open MPI (--hostfile, --map-by slot) and DeepSpeed (-H) host list in node order"};
}

BundleFile rankfile(const Topology& topology, const Plan& plan) {
  // Open MPI rankfile lines `rank N=host slot=SPEC` (v5 --map-by rankfile:file=F, v4 -rf F;
  // launchers.md 2). SPEC "S:*" binds the rank to every core of package (socket) S, the socket
  // nearest its GPU, a form Open MPI's own help text gives as proper syntax (rank 0=host2 slot=0:*,
  // orte/mca/rmaps/rank_file/help-rmaps_rank_file.txt); cores per socket are not in the model, so
  // no finer binding is claimed. Without a CPU in the model, SPEC is the local rank as a logical
  // core: one distinct core per rank. '#' starts a comment (rmaps_rank_file_lex.l).
  std::string text =
      "# Open MPI rankfile written by `ringlab plan`: rank N runs on the host named, bound to the CPU\n"
      "# socket next to its GPU (slot=SOCKET:*). v5: mpirun --map-by rankfile:file=rankfile ...;\n"
      "# v4: mpirun -rf rankfile ... If mpirun refuses overlapping bindings, add --bind-to :overload-allowed.\n";
  for (const HostPlan& h : plan.hosts)
    for (int i = 0; i < h.size(); ++i) {
      const int rank = h.first_rank + i;
      const int socket = gpu_socket(topology, plan.order.ranks[std::size_t(rank)]);
      const std::string slot = socket >= 0 ? std::to_string(socket) + ":*" : std::to_string(i);
      text += "rank " + std::to_string(rank) + "=" + h.name + " slot=" + slot + "\n";
    }
  return {"rankfile", text, false, "Open MPI rankfile: rank N=host slot=SOCKET:* (binding next to each rank's GPU)"};
}

BundleFile machinefile(const Plan& plan) {
  // MPICH / Intel MPI (Hydra): "host:n" puts n consecutive ranks on the host (launchers.md 2).
  std::string text =
      "# MPICH / Intel MPI (Hydra) machinefile written by `ringlab plan`: host:ranks in node order.\n"
      "# mpiexec -f machinefile -n " + std::to_string(plan.ranks()) + " ...\n";
  for (const HostPlan& h : plan.hosts) text += h.name + ":" + std::to_string(h.size()) + "\n";
  return {"machinefile", text, false, "MPICH / Intel MPI (Hydra): mpiexec -f machinefile"};
}

BundleFile slurm_hosts(const Plan& plan) {
  // SLURM_HOSTFILE with --distribution=arbitrary: task k runs on the k-th name, one line per task
  // (srun man page; launchers.md 2). No comments: srun reads every line as a host.
  std::string text;
  for (const HostPlan& h : plan.hosts)
    for (int i = 0; i < h.size(); ++i) text += h.name + "\n";
  return {"slurm.hosts", text, false, "SLURM_HOSTFILE: one line per task, in rank order (used by srun.sh)"};
}

BundleFile srun_script(const Plan& plan) {
  // srun sets SLURM_PROCID/SLURM_LOCALID but not RANK/LOCAL_RANK (launchers.md 2); the script runs
  // itself once per task (--task) to map them and to list the node's GPUs in local-rank order.
  std::string cases;
  for (const HostPlan& h : plan.hosts)
    cases += "    " + host_pattern(h.name) + ") CUDA_VISIBLE_DEVICES=" + join(h.gpus, ",") + " ;;\n";
  const std::string p = std::to_string(plan.ranks());
  std::string text =
      "#!/bin/sh\n"
      "# srun.sh written by `ringlab plan`: runs COMMAND as " + p + " tasks, task k on line k+1 of\n"
      "# slurm.hosts (SLURM_HOSTFILE with --distribution=arbitrary), with RANK=$SLURM_PROCID,\n"
      "# LOCAL_RANK=$SLURM_LOCALID, WORLD_SIZE, MASTER_ADDR/PORT, CUDA_VISIBLE_DEVICES in local-rank\n"
      "# order and nccl.env. Inside an allocation of the plan's hosts:  ./srun.sh COMMAND [ARGS...]\n"
      "# Keep this folder on a path every node sees.\n"
      "set -eu\n"
      "DIR=$(cd \"$(dirname \"$0\")\" && pwd)\n"
      "if [ \"${1:-}\" = --task ]; then\n"
      "  shift\n"
      "  RINGLAB_HOST=${RINGLAB_HOST:-$(hostname)}\n"
      "  case \"$RINGLAB_HOST\" in\n" + cases +
      "    *) echo \"srun.sh: host $RINGLAB_HOST is not in the plan\" >&2; exit 2 ;;\n"
      "  esac\n"
      "  RANK=$SLURM_PROCID LOCAL_RANK=$SLURM_LOCALID WORLD_SIZE=" + p + "\n"
      "  MASTER_ADDR=" + plan.master_host + " MASTER_PORT=" + std::to_string(plan.master_port) + "\n"
      "  RINGLAB_PLAN_DIR=$DIR\n"
      "  export CUDA_VISIBLE_DEVICES RANK LOCAL_RANK WORLD_SIZE MASTER_ADDR MASTER_PORT RINGLAB_HOST RINGLAB_PLAN_DIR\n"
      "  . \"$DIR/nccl.env\"\n"
      "  exec \"$@\"\n"
      "fi\n"
      "SLURM_HOSTFILE=\"$DIR/slurm.hosts\"\n"
      "export SLURM_HOSTFILE\n"
      "exec srun -n " + p + " --distribution=arbitrary \"$DIR/srun.sh\" --task \"$@\"\n";
  return {"srun.sh", text, true, "Slurm: srun -n P --distribution=arbitrary with slurm.hosts, RANK/LOCAL_RANK set"};
}

BundleFile torchrun_script(const Plan& plan) {
  // Static rendezvous (torchrun's default --rdzv-backend): group rank = --node-rank and RANK = the
  // lower groups' local_world_size + LOCAL_RANK (torch/distributed/run.py; launchers.md 2).
  std::string cases;
  const std::string nnodes = std::to_string(plan.hosts.size());
  for (std::size_t k = 0; k < plan.hosts.size(); ++k) {
    const HostPlan& h = plan.hosts[k];
    cases += "  " + host_pattern(h.name) + ") export CUDA_VISIBLE_DEVICES=" + join(h.gpus, ",") +
             "; exec torchrun --nnodes=" + nnodes + " --nproc-per-node=" + std::to_string(h.size()) +
             " --node-rank=" + std::to_string(k) + " --master-addr=" + plan.master_host +
             " --master-port=" + std::to_string(plan.master_port) + " \"$@\" ;;\n";
  }
  std::string text =
      "#!/bin/sh\n"
      "# torchrun.sh written by `ringlab plan`: starts this node's ranks with torchrun's STATIC\n"
      "# rendezvous. On every node:  ./torchrun.sh train.py [ARGS...]  (the node finds its line by\n"
      "# `hostname`; RINGLAB_HOST=NAME overrides), or copy the node's line into a job script.\n"
      "# WARNING: do not add --rdzv-backend=c10d / --rdzv-endpoint: the dynamic c10d rendezvous ignores\n"
      "# --node-rank and ranks nodes by their sorted host names, which undoes the plan\n"
      "# (pytorch/pytorch#150660, #137402). LOCAL_RANK i uses visible device i.\n"
      "set -eu\n"
      "DIR=$(cd \"$(dirname \"$0\")\" && pwd)\n"
      "RINGLAB_HOST=${RINGLAB_HOST:-$(hostname)}\n"
      "RINGLAB_PLAN_DIR=$DIR\n"
      "export RINGLAB_HOST RINGLAB_PLAN_DIR\n"
      ". \"$DIR/nccl.env\"\n"
      "case \"$RINGLAB_HOST\" in\n" + cases +
      "  *) echo \"torchrun.sh: host $RINGLAB_HOST is not in the plan\" >&2; exit 2 ;;\n"
      "esac\n";
  return {"torchrun.sh", text, true, "torchrun: one line per node, static rendezvous, --node-rank in node order"};
}

BundleFile tf_config(const Plan& plan, std::size_t host) {
  // TF_CONFIG: cluster.worker's order is the rank order; task.index names this worker
  // (TFConfigClusterResolver; launchers.md 2).
  nlohmann::json workers = nlohmann::json::array();
  for (const HostPlan& h : plan.hosts) workers.push_back(h.name + ":" + std::to_string(kTfPort));
  const nlohmann::json config = {{"cluster", {{"worker", workers}}},
                                 {"task", {{"type", "worker"}, {"index", int(host)}}}};
  const std::string& name = plan.hosts[host].name;
  return {"tf_config/" + name + ".json", config.dump(kTfIndent) + "\n", false,
          "TF_CONFIG for the worker on " + name + ": export TF_CONFIG=\"$(cat tf_config/" + name + ".json)\""};
}

}  // namespace ringlab::planner::bundle
