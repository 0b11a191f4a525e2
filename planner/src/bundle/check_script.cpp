// check.sh: the self-check run on the cluster. It reads NCCL_DEBUG=INFO output and confirms that
// NCCL loaded the plan's graph files and that every rank landed on its planned host and GPU in the
// planned ring. POSIX sh and awk only; the plan's expectations sit in "#@" comment lines of the
// script itself (awk reads the script, then the log), so no argument grows with the rank count.
//
// Log lines it reads, from NVIDIA/nccl at commit 5067397c:
//   prefix   "host:pid:tid [cudaDev] NCCL INFO ..."  src/debug.cc:330-354 (host cut at its first '.')
//   graph    "NCCL_GRAPH_FILE set by environment to F"  src/graph/search.cc:1113 (subsystem ENV)
//            "Search 0 : N channels loaded from XML graph"  search.cc:1119 (GRAPH)
//   ranks    "... comm P rank R nranks N cudaDev C nvmlDev G busId B commId I - Init COMPLETE"
//            src/init.cc:1945 (INIT; older releases print no nvmlDev: the GPU is then not checked)
//   rings    "Channel CC/NN : r0 r1 ..." printed by rank 0, starting at rank 0, cut at 128 characters
//            with "..."  src/graph/rings.cc:10-27,48 (INIT). Transport lines such as
//            "Channel 00/0 : 0[0] -> 1[1] via P2P/IPC" are told apart by their non-numeric words.
#include "bundle/bundle_internal.hpp"

namespace ringlab::planner::bundle {
namespace {

constexpr const char* kScriptHead = R"SH(#!/bin/sh
# check.sh written by `ringlab plan`: confirms on the cluster that NCCL followed this plan.
#
#   ./check.sh COMMAND [ARGS...]   runs one NCCL job with NCCL_DEBUG=INFO and
#                                  NCCL_DEBUG_SUBSYS=INIT,GRAPH,ENV, keeps its output in
#                                  ${RINGLAB_CHECK_LOG:-ringlab-check.log} and checks it, e.g.
#                                  ./check.sh ./srun.sh ./all_reduce_perf -b 8 -e 8
#                                  (Open MPI: forward them, mpirun -x NCCL_DEBUG -x NCCL_DEBUG_SUBSYS)
#   ./check.sh --log FILE          checks an NCCL_DEBUG=INFO log written before.
#
# Prints one PASS or FAIL line per check; exits 0 when all pass, 1 when one fails, 2 on bad usage.
#   graph      every host printed "NCCL_GRAPH_FILE set by environment to ..." and
#              "Search 0 : N channels loaded from XML graph" with N = the planned channel count
#   placement  each rank's "rank R nranks P ... nvmlDev G ... Init COMPLETE" line comes from the
#              planned host (the "host:pid:tid [dev] NCCL INFO" prefix) and GPU (nvmlDev)
#   ring       each "Channel CC/NN :" ring rank 0 prints is the plan's ring for channel CC mod channels
# The plan (do not edit):
)SH";

constexpr const char* kScriptBody = R"SH(
set -u
case "${1:-}" in
  "" | -h | --help)
    sed -n '2,17p' "$0"
    exit 2 ;;
  --log)
    if [ $# -ne 2 ] || [ ! -r "$2" ]; then
      echo "check.sh: usage: $0 --log FILE (a readable NCCL_DEBUG=INFO log)" >&2
      exit 2
    fi
    log=$2 ;;
  *)
    log=${RINGLAB_CHECK_LOG:-ringlab-check.log}
    NCCL_DEBUG=INFO
    NCCL_DEBUG_SUBSYS=INIT,GRAPH,ENV
    export NCCL_DEBUG NCCL_DEBUG_SUBSYS
    "$@" > "$log" 2>&1
    echo "check.sh: '$*' exited with status $?; its output is in $log" ;;
esac

awk '
function short(h) { sub(/\..*$/, "", h); return h }
function head(ring,   w, n, i, out) {
  n = split(ring, w, " ")
  out = w[1]
  for (i = 2; i <= n && i <= 16; i++) out = out " " w[i]
  return out (n > 16 ? " ..." : "")
}
function problem(text) { if (nproblems++ < 8) problems = problems (problems == "" ? "" : "; ") text }
function verdict(name, ok) {
  if (nproblems == 0) print "PASS " name ": " ok
  else {
    print "FAIL " name ": " problems (nproblems > 8 ? "; and " (nproblems - 8) " more" : "")
    failed = 1
  }
  problems = ""; nproblems = 0
}
FNR == NR {
  if ($1 == "#@ranks") ranks = $2
  else if ($1 == "#@channels") channels = $2
  else if ($1 == "#@host") hosts[++nhosts] = short($2)
  else if ($1 == "#@rank") { want_host[$2] = short($3); want_gpu[$2] = $4 }
  else if ($1 == "#@ring") { r = $3; for (i = 4; i <= NF; i++) r = r " " $i; want_ring[$2] = r }
  next
}
{
  info = 0
  for (i = 2; i + 2 <= NF; i++)
    if ($i ~ /^\[[0-9]+\]$/ && $(i + 1) == "NCCL" && $(i + 2) == "INFO") { info = i; break }
  if (!info) next
  host = $(info - 1)
  sub(/^.*>:/, "", host)
  sub(/:[0-9]+:[0-9]+$/, "", host)
  host = short(host)
  msg = $(info + 3)
  for (i = info + 4; i <= NF; i++) msg = msg " " $i
  if (msg ~ /^NCCL_GRAPH_FILE set by environment to /) graph_set[host] = 1
  else if (msg ~ /^Search 0 : [0-9]+ channels loaded from XML graph/) { split(msg, w, " "); loaded[host] = w[4] }
  else if (msg ~ /Init COMPLETE/) {
    r = ""; n = ""; g = ""
    for (i = info + 3; i < NF; i++) {
      if ($i == "rank") r = $(i + 1)
      else if ($i == "nranks") n = $(i + 1)
      else if ($i == "nvmlDev") g = $(i + 1)
    }
    if (r != "" && n == ranks) { seen_host[r] = host; seen_gpu[r] = g }
  } else if (msg ~ /^Channel [0-9]+\/[0-9]+ :/ && msg !~ /\[|->|via/) {
    ch = msg; sub(/^Channel /, "", ch); sub(/\/.*$/, "", ch)
    rest = msg; sub(/^Channel [0-9]+\/[0-9]+ : */, "", rest)
    got_ring[ch + 0] = rest
  }
}
END {
  for (i = 1; i <= nhosts; i++) {
    h = hosts[i]
    if (!(h in graph_set)) problem(h ": no \"NCCL_GRAPH_FILE set by environment\" line")
    else if (!(h in loaded)) problem(h ": no \"Search 0 : N channels loaded from XML graph\" line")
    else if (loaded[h] != channels) problem(h ": " loaded[h] " channels loaded from XML graph, planned " channels)
  }
  verdict("graph", "NCCL loaded the graph file with " channels " channels on all " nhosts " hosts")
  for (r = 0; r < ranks; r++) {
    if (!(r in seen_host)) problem("rank " r ": no Init COMPLETE line with nranks " ranks)
    else if (seen_host[r] != want_host[r]) problem("rank " r " ran on host " seen_host[r] ", planned " want_host[r])
    else if (seen_gpu[r] != "" && seen_gpu[r] != want_gpu[r])
      problem("rank " r " ran on GPU " seen_gpu[r] " (nvmlDev) of " seen_host[r] ", planned GPU " want_gpu[r])
  }
  verdict("placement", "all " ranks " ranks ran on their planned host and GPU")
  shown = 0
  for (ch in got_ring) {
    shown++
    n = split(got_ring[ch], got, " ")
    cut = n > 0 && got[n] ~ /\.\.\.$/
    if (cut) n--
    m = split(want_ring[ch % channels], want, " ")
    if (!cut && n != m) { problem("channel " ch ": " n " ranks in the ring, planned " m); continue }
    for (i = 1; i <= n; i++)
      if (got[i] != want[i]) {
        problem("channel " ch ": position " (i - 1) " is rank " got[i] ", planned " want[i] " (planned ring " head(want_ring[ch % channels]) ")")
        break
      }
  }
  if (shown == 0) problem("no \"Channel CC/NN : ranks\" lines (run with NCCL_DEBUG_SUBSYS including INIT)")
  verdict("ring", "the " shown " rings NCCL printed follow the plan")
  exit failed
}
' "$0" "$log"
)SH";

}  // namespace

BundleFile check_script(const Plan& plan) {
  std::string data = "#@ranks " + std::to_string(plan.ranks()) + "\n#@channels " + std::to_string(plan.channels) + "\n";
  for (const HostPlan& h : plan.hosts) data += "#@host " + h.name + "\n";
  for (const HostPlan& h : plan.hosts)
    for (int i = 0; i < h.size(); ++i)
      data += "#@rank " + std::to_string(h.first_rank + i) + " " + h.name + " " + std::to_string(h.gpus[std::size_t(i)]) +
              "\n";
  for (int c = 0; c < plan.channels; ++c) data += "#@ring " + std::to_string(c) + " " + join(global_ring(plan, c), " ") + "\n";
  return {"check.sh", std::string(kScriptHead) + data + kScriptBody, true,
          "self-check on the cluster: ./check.sh COMMAND or ./check.sh --log FILE (NCCL_DEBUG=INFO output)"};
}

}  // namespace ringlab::planner::bundle
