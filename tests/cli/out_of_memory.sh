#!/usr/bin/env bash
# A run that needs more memory than the process may have is a clear error (exit 2) naming the
# scenario, the size and what to change, and leaves no output file: `direct` (every rank sends to
# every other, an explicit schedule of p^2 transfers) on 8,192 GPUs under a 1 GB address-space limit;
# in a sweep, that point's row says so and the others run. The fabric becomes one switch, where the
# sweep's 8,192-GPU ring repeats its steps exactly and takes a fraction of a second (on the rail
# fabric it settles never and takes 40 s).
# Usage: out_of_memory.sh RINGLAB SCENARIO TMPDIR
set -uo pipefail
ringlab=$1 scenario=$2 tmp=$3
big=$tmp/oom_$$.json out=$tmp/oom_$$.txt err=$tmp/oom_$$.err
sed 's/"nodes": 32/"nodes": 1024/; s/"fabric": {[^}]*}/"fabric": { "kind": "single_switch" }/' "$scenario" > "$big"
grep -q '"nodes": 1024' "$big" || { echo "could not scale $scenario to 1,024 nodes"; exit 1; }
grep -q '"fabric": { "kind": "single_switch" }' "$big" || { echo "could not give $scenario one switch"; exit 1; }
(ulimit -v 1000000 && exec "$ringlab" simulate "$big" --algo direct --sizes 1GiB -o "$out") 2>"$err"
rc=$?
cat "$err"
[ "$rc" -eq 2 ] || { echo "exit code $rc, expected 2"; exit 1; }
grep -q "oom_$$.json: /simulate/algorithm: size 1GiB: out of memory: 8192 ranks" "$err" || { echo "message does not name the file, size and ranks"; exit 1; }
[ ! -e "$out" ] || { echo "an output file was written"; exit 1; }
# The same in a sweep: the direct point's row says out of memory, the ring point runs, exit 3.
sweep=$tmp/oom_sweep_$$.json csv=$tmp/oom_sweep_$$.csv
cat > "$sweep" <<JSON
{ "ringlab": 1, "base": "$(basename "$big")", "command": "simulate",
  "axes": [ { "pointer": "/simulate/algorithm", "values": ["direct", "ring"] },
            { "pointer": "/simulate/sizes", "values": ["1MiB"] } ] }
JSON
(ulimit -v 1000000 && exec "$ringlab" sweep "$sweep" -f csv -o "$csv") 2>"$err"
rc=$?
cat "$err" "$csv"
[ "$rc" -eq 3 ] || { echo "sweep exit code $rc, expected 3"; exit 1; }
grep -q "^direct,.*out of memory: 8192 ranks" "$csv" || { echo "the direct row does not say out of memory"; exit 1; }
grep -q "^ring,1MiB,[0-9]" "$csv" || { echo "the ring row did not run"; exit 1; }
rm -f "$big" "$err" "$sweep" "$csv"
