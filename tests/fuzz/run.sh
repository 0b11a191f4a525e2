#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan + coverage) in a build directory of their own and
# runs each in turn for a fixed number of executions from a fixed seed, over a fresh corpus seeded with
# the test fixtures and the saved crash reproducers (docs/fuzzing.md). Prints one line per target
# (executions, exec/s, findings) and exits 1 when any target found something; the reproducer is left
# in $BUILD_DIR/findings/<target>/.
# Usage: tests/fuzz/run.sh [RUNS] [SEED] [TARGET...]   (default: 1000000 runs, seed 1, every target)
# Environment: BUILD_DIR (default build-fuzz), CXX (default clang++), JOBS (build jobs, default nproc),
# FUZZ_ARGS (extra libFuzzer flags, e.g. "-max_total_time=300").
set -euo pipefail
cd "$(dirname "$0")/../.."
src=$PWD
runs=${1:-1000000}
seed=${2:-1}
shift $(( $# < 2 ? $# : 2 ))
build=${BUILD_DIR:-build-fuzz}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(scenario slurm_conf slurm_yaml ibnetdiscover nvidia_smi nccl_xml rank_order schedule results nccl_tests)

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="${CXX:-clang++}" \
      -DRINGLAB_FUZZ=ON -DRINGLAB_TESTS=OFF -DRINGLAB_BENCH=OFF ${CMAKE_ARGS:-} >/dev/null
cmake --build "$build" --target ringlab_fuzz -j "${JOBS:-$(nproc)}"

# The fixtures each format's corpus starts from (globs relative to the source tree). They are copied
# into one directory, so their file names must differ.
seeds() {
  case $1 in
    scenario) echo "scenarios/*.json tests/data/scenarios/*.json tests/data/bad/*.json tests/fuzz/seeds/scenario/*" ;;
    slurm_conf) echo "tests/data/import/*.conf" ;;
    slurm_yaml) echo "tests/fuzz/seeds/slurm_yaml/*" ;;
    ibnetdiscover) echo "tests/data/import/*.ibnetdiscover" ;;
    nvidia_smi) echo "tests/data/import/*_topo_m.txt" ;;
    nccl_xml) echo "tests/data/import/*.xml" ;;
    rank_order) echo "tests/data/rank_order/* scenarios/orders/*" ;;
    schedule) echo "tests/data/schedule/*.json" ;;
    results) echo "tests/data/results/*.json" ;;
    nccl_tests) echo "tests/data/nccl_tests/h100-1gpu/*.txt tests/data/nccl_tests/h100-1gpu/*.json tests/data/nccl_tests/tuning-log/*.txt tests/fuzz/seeds/nccl_tests/*" ;;
  esac
}
dict() {
  case $1 in
    scenario | rank_order | schedule | results) echo tests/fuzz/dict/json.dict ;;
    nccl_xml) echo tests/fuzz/dict/xml.dict ;;
    *) echo tests/fuzz/dict/text.dict ;;
  esac
}

failed=0
summary=()
for t in "${targets[@]}"; do
  corpus=$build/corpus/$t findings=$build/findings/$t log=$build/fuzz_$t.log
  rm -rf "$corpus" "$findings" && mkdir -p "$corpus" "$findings"
  # shellcheck disable=SC2046
  cp $(seeds "$t") "$corpus"/
  if [ -d "tests/fuzz/regressions/$t" ]; then cp "tests/fuzz/regressions/$t"/* "$corpus"/ 2>/dev/null || true; fi
  start=$EPOCHREALTIME
  set +e
  # shellcheck disable=SC2086
  "$build/tests/fuzz/fuzz_$t" -runs="$runs" -seed="$seed" -workers=1 -timeout=60 -rss_limit_mb=2048 \
    -max_len=65536 -dict="$(dict "$t")" -print_final_stats=1 -artifact_prefix="$findings/" ${FUZZ_ARGS:-} \
    "$corpus" >"$log" 2>&1
  rc=$?
  set -e
  seconds=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(awk -v n="${execs:-0}" -v s="$seconds" 'BEGIN { printf "%d", (s > 0 ? n / s : 0) }')
  found=$(find "$findings" -type f ! -name 'slow-unit-*' | wc -l)  # slow units (over 10 s) are reported, not failed
  line=$(printf '%-14s executions %9s  seconds %7.1f  exec/s %6s  findings %s' "$t" "${execs:-?}" "$seconds" "$rate" "$found")
  if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
    failed=1
    line="$line  FAILED (exit $rc; log $log)"
    grep -m5 -E 'ERROR|runtime error|uncaught|terminate' "$log" >&2 || true
    find "$findings" -type f ! -name 'slow-unit-*' >&2
  fi
  echo "$line"
  summary+=("$line")
done
echo "fuzz: seed $seed, $runs runs per target:"
printf '  %s\n' "${summary[@]}"
[ "$failed" -eq 0 ] || { echo "fuzz: FINDINGS (see above)" >&2; exit 1; }
