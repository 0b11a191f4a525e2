#!/bin/bash
# The NCCL back-end on this machine's GPUs: library and schedule modes, every collective, results
# checked, a results file written; then the GPU calibration. Exit 77 (skipped) without a GPU or
# without an NCCL build of ringlab-validate.
# Usage: gpu.sh MPIRUN RINGLAB_VALIDATE SOURCE_DIR OUT_DIR
set -u
mpirun=$1 validate=$2 src=$3 out=$4
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then echo "no GPU: skipped"; exit 77; fi
if "$validate" --backend nccl -b 8 -e 8 -n 1 2>&1 | grep -q "built without CUDA"; then
  echo "ringlab-validate was built without NCCL: skipped"; exit 77
fi
gpus=$(nvidia-smi -L | wc -l)
fail=0
run() {
  echo "== $*"
  "$mpirun" -np "$gpus" "$validate" --backend nccl "$@" || fail=1
}
# The schedule mode needs a cluster: one DGX H100 (up to 8 GPUs; the host name will differ: a warning).
scenario=$src/scenarios/dgx-h100.json
for c in allreduce reducescatter allgather broadcast reduce; do
  run --collective "$c" -b 8 -e 256M -f 8 -w 2 -n 10 || true
done
run -b 1M -e 1G -f 4 -w 5 -n 20 -d bfloat16 --results "$out/nccl-library.json"
run -b 1M -e 1G -f 4 -w 5 -n 20 -d half
for c in allreduce allgather; do
  run --mode schedule --scenario "$scenario" --collective "$c" -b 1K -e 256M -f 16 -w 2 -n 10 --results "$out/nccl-schedule-$c.json"
done
"$mpirun" -np 1 "$validate" --gpu-calibration "$out/gpu-calibration.json" || fail=1
cat "$out/gpu-calibration.json" 2>/dev/null
exit $fail
