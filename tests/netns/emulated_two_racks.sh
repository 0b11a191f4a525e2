#!/usr/bin/env bash
# The emulated-cluster CI test (label netns, docs/emulation.md): scenarios/emulated-two-racks.json is
# built in network namespaces by scripts/emulate-cluster; its links are measured (iperf3) and the
# scenario is rewritten with the realised rates (the calibrated scenario); ringlab-validate runs a ring
# allreduce (ringlab's schedule, op by op, over MPI) in the planned order (`ringlab plan` from the naive
# order) and in the naive rack-alternating order. Checks:
#   1. every measured time is within TOL of the calibrated prediction (`ringlab compare`);
#   2. the naive order is slower than the planned one by the predicted factor, within TOL, and by at
#      least 2x (the uncalibrated prediction is 2.99x).
# A failed attempt is repeated once on a freshly built cluster (RINGLAB_NETNS_ATTEMPTS, default 2): the
# times are real TCP transfers on a shared machine; a loaded CI machine once measured the planned order
# 3.4x slower than predicted at 8 MiB, while the same commit here was within 4 %. The test fails when
# every attempt fails.
# Exit 77 (skipped) when this machine cannot build namespaces (not root, no permission, no tools).
#
#   emulated_two_racks.sh RINGLAB RINGLAB_VALIDATE SOURCE_DIR WORK_DIR [SCENARIO]
set -euo pipefail
ringlab=$1 validate=$2 src=$3 work=$4
emu=$src/scripts/emulate-cluster
export RINGLAB=$ringlab

# Tolerance on |predicted - measured| / measured per size, and on the planned/naive speed-up. On an idle
# 2-core machine the worst error was 11 % (docs/emulation.md): the ring's steps end with their slowest
# TCP flow while the model shares links max-min fairly, realised rates vary by about 4 % between
# links and runs, and 6 busy-polling ranks on 2 cores add about 1 ms per ring step. 25 % leaves room
# for a loaded CI machine and still fails for a wrong order or a rate off by a third.
TOL=${RINGLAB_NETNS_TOL:-0.25}

"$emu" check || exit $?

scenario=${5:-$src/scenarios/emulated-two-racks.json}  # another rate: the same cluster, rates edited (docs/emulation.md)
naive=$src/scenarios/orders/emulated-two-racks-interleaved.hosts
attempt() {
  # One prefix per work directory, so a run killed by the CTest timeout is removed by the next one.
  prefix=rl$(printf '%s' "$work" | md5sum | cut -c1-8)
  "$emu" down "$prefix" >/dev/null 2>&1 || true
  rm -rf "$work"; mkdir -p "$work"
  sweep=(-b 1M -e 8M -f 2 -w 2 -n 5)
  sizes=1M:8M:x2

  "$ringlab" plan "$scenario" --rank-order "$naive" --size 8MiB -o "$work/plan" > "$work/plan.txt"
  sed -n '/orders compared/,/^$/p' "$work/plan.txt"

  # Runs inside `emulate-cluster run`, which removes the cluster however this ends.
  inner() {
    "$emu" measure "$RINGLAB_EMU" --seconds 3 -o "$work/calibrated.json"
    local name hosts order
    for name in planned naive; do
      if [ $name = planned ]; then hosts=$work/plan/hostfile order=$work/plan/plan.json
      else hosts=$naive order=$naive; fi
      echo "# $name order: $(grep -v '^#' "$hosts" | awk '{ printf "%s ", $1 }')"
      "$emu" mpirun "$RINGLAB_EMU" --hostfile "$hosts" --map-by slot -np 6 \
        "$validate" --backend mpi --mode schedule --algo ring --scenario "$scenario" --plan "$order" \
        "${sweep[@]}" --strict-placement --timeout 60 --results "$work/measured-$name.json" \
        2>&1 | grep -v 'setpgid' | sed -n '/^#  *size  *placement/,$p'
    done
  }
  export -f inner
  export emu work naive validate scenario
  export sweep_text="${sweep[*]}"
  "$emu" run "$scenario" --prefix "$prefix" -- bash -c 'sweep=($sweep_text); inner'

  status=0
  for name in planned naive; do
    if [ $name = planned ]; then order=$work/plan/plan.json; else order=$naive; fi
    "$ringlab" simulate "$work/calibrated.json" --rank-order "$order" --algo ring --sizes $sizes -f results \
      -o "$work/predicted-$name.json"
    "$ringlab" simulate "$scenario" --rank-order "$order" --algo ring --sizes $sizes -f results \
      -o "$work/uncalibrated-$name.json"
    echo "# $name order: calibrated prediction vs measurement"
    "$ringlab" compare "$work/predicted-$name.json" "$work/measured-$name.json"
    "$ringlab" compare "$work/predicted-$name.json" "$work/measured-$name.json" -f json > "$work/compare-$name.json"
    bad=$(jq --argjson tol "$TOL" '[.rows[] | select((.error | fabs) > $tol)] | length' "$work/compare-$name.json")
    rows=$(jq '.rows | length' "$work/compare-$name.json")
    if [ "$rows" -ne 4 ] || [ "$bad" -ne 0 ]; then
      echo "FAIL: $name order: $bad of $rows sizes differ from the calibrated prediction by more than $TOL"; status=1
    fi
  done

  # Speed-up of the planned order over the naive one, per size: measured vs calibrated prediction.
  time_of() { jq -r --argjson b "$2" '.results[] | select(.message_bytes == $b) | .time_ps' "$1"; }
  echo "#       size   measured naive/planned   predicted (calibrated)   predicted (scenario)"
  for b in 1048576 2097152 4194304 8388608; do
    m=$(awk -v n="$(time_of "$work/measured-naive.json" $b)" -v p="$(time_of "$work/measured-planned.json" $b)" 'BEGIN { print n / p }')
    c=$(awk -v n="$(time_of "$work/predicted-naive.json" $b)" -v p="$(time_of "$work/predicted-planned.json" $b)" 'BEGIN { print n / p }')
    u=$(awk -v n="$(time_of "$work/uncalibrated-naive.json" $b)" -v p="$(time_of "$work/uncalibrated-planned.json" $b)" 'BEGIN { print n / p }')
    printf '%12s %24.2f %24.2f %22.2f\n' "$b" "$m" "$c" "$u"
    if ! awk -v m="$m" -v c="$c" -v t="$TOL" 'BEGIN { exit !(m >= 2 && m >= c * (1 - t) && m <= c * (1 + t)) }'; then
      echo "FAIL: at $b B the naive order is ${m}x the planned one; predicted ${c}x (tolerance $TOL, at least 2x)"; status=1
    fi
  done
  return $status
}

attempts=${RINGLAB_NETNS_ATTEMPTS:-2}
for ((a = 1; a <= attempts; a++)); do
  echo "## attempt $a of $attempts"
  # In the background, not as an `if` condition, so that errexit still holds inside the attempt.
  attempt & pid=$!
  if wait $pid; then
    echo "PASS (attempt $a of $attempts): planned order faster than the naive one by the predicted factor; times within $TOL of the calibrated prediction"
    exit 0
  fi
done
echo "FAIL: all $attempts attempts failed"
exit 1
