#!/usr/bin/env bash
# GPU check of ringlab-validate on a machine without a package registry (the project's lent GPU
# machine: CUDA, NCCL and Open MPI installed, no Boost, JSON, pugixml, yaml-cpp, CLI11 or Catch2):
# unpacks Debian packages brought along, builds the harness alone (RINGLAB_HARNESS_ONLY) and runs its
# tests, the `gpu` one (NCCL back-end, both modes) included. Logs go to $OUT (default /tmp/gpu-check).
#
# Fetch the packages once, on a Debian 12 machine, from the repository root:
#   mkdir -p .devdeps && echo /.devdeps/ >> .git/info/exclude && (cd .devdeps && apt-get download \
#     libboost1.74-dev nlohmann-json3-dev libpugixml-dev libpugixml1v5 libyaml-cpp-dev libyaml-cpp0.7 \
#     libcli11-dev catch2)
# then run `bash scripts/gpu-harness-check.sh` from the repository root on the GPU machine, with
# .devdeps beside it (about 11 MB).
set -u
OUT=${OUT:-/tmp/gpu-check}
mkdir -p "$OUT"
nvidia-smi -L
for t in mpicc mpirun nvcc cmake ninja; do printf '%s: %s\n' "$t" "$(command -v "$t" || echo missing)"; done
command -v mpicc >/dev/null || { echo "no MPI on this machine"; exit 3; }
mkdir -p /opt/deps && for f in .devdeps/*.deb; do dpkg -x "$f" /opt/deps; done
export CMAKE_PREFIX_PATH=/opt/deps/usr
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
cmake -S . -B /tmp/hb -G Ninja -DRINGLAB_HARNESS_ONLY=ON -DRINGLAB_TESTS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DBoost_INCLUDE_DIR=/opt/deps/usr/include > "$OUT/cmake.log" 2>&1 || { tail -40 "$OUT/cmake.log"; exit 1; }
grep "ringlab-validate:" "$OUT/cmake.log"
cmake --build /tmp/hb -j "$(nproc)" > "$OUT/build.log" 2>&1 || { grep -m5 -B2 -A8 "error" "$OUT/build.log"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ctest --test-dir /tmp/hb --output-on-failure -j 4 > "$OUT/ctest.log" 2>&1
rc=$?
grep -E "tests passed|Failed|gpu" "$OUT/ctest.log" | tail -5
exit $rc
