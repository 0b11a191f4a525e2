#!/bin/bash
# A rank that hangs (SIGSTOP) or dies (SIGKILL) in the middle of a run must end the job with a non-zero
# exit and a message, within the watchdog's timeout, never a silent hang.
# Usage: fault.sh stop|kill MPIRUN RINGLAB_VALIDATE
set -u
mode=$1 mpirun=$2 validate=$3
# Each mode runs its own iteration count, so that the two tests, run in parallel, find only their own ranks.
iters=$([ "$mode" = stop ] && echo 100000 || echo 100001)
pattern="^$validate --backend mpi -b 4K -e 4K -w 0 -n $iters"  # the ranks, not mpirun
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
start=$(date +%s)
"$mpirun" --oversubscribe -np 3 "$validate" --backend mpi -b 4K -e 4K -w 0 -n "$iters" --timeout 5 \
  >"$log/out" 2>"$log/err" &
job=$!
# Wait until the ranks are in the timed loop (rank 0 has printed the column header), then stop or kill
# rank 1 (the second ringlab-validate process by process id).
for _ in $(seq 300); do
  grep -q "(elements)" "$log/out" 2>/dev/null && break
  sleep 0.1
done
mapfile -t ranks < <(pgrep -f -- "$pattern" | sort -n)
if [ "${#ranks[@]}" -lt 3 ]; then echo "the ranks did not start"; cat "$log/err"; exit 1; fi
victim=${ranks[1]}
if [ "$mode" = stop ]; then kill -STOP "$victim"; else kill -KILL "$victim"; fi
# Give up after 60 s: the watchdog fires after 5 s without progress.
for _ in $(seq 600); do kill -0 "$job" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$job" 2>/dev/null; then
  echo "FAIL: the job still runs 60 s after rank 1 was ${mode}ped"
  pkill -KILL -f -- "$pattern"; exit 1
fi
wait "$job"; rc=$?
elapsed=$(( $(date +%s) - start ))
echo "exit code $rc after $elapsed s"; cat "$log/err"
[ "$rc" -ne 0 ] || { echo "FAIL: exit code 0"; exit 1; }
if [ "$mode" = stop ]; then
  grep -q "no progress for 5 s" "$log/err" || { echo "FAIL: no watchdog message"; exit 1; }
else
  grep -qiE "signal 9|killed|exited on signal" "$log/err" || { echo "FAIL: no message about the dead rank"; exit 1; }
fi
echo PASS
