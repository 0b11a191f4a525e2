#!/usr/bin/env bash
# Installs what ringlab needs on Debian 12 (as root; uses sudo when not root), then configures and
# builds it in ./build. Safe to run again: it installs only missing packages and rebuilds
# incrementally. Environment: BUILD_DIR (default build), CMAKE_ARGS (extra configure flags),
# JOBS (default: number of cores).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake ninja-build pkg-config
          libboost-graph-dev nlohmann-json3-dev catch2 libcli11-dev
          libsimgrid-dev libpugixml-dev libyaml-cpp-dev libopenmpi-dev openmpi-bin
          qt6-base-dev qt6-charts-dev qt6-svg-dev   # ringlab-gui (Widgets, Charts, Svg; Qt Test is in qt6-base-dev)
          libqt6opengl6-dev   # Qt6Charts' CMake package needs Qt6OpenGL; qt6-base-dev only recommends it
          clang libclang-rt-14-dev   # clang and libFuzzer: the sanitizer and fuzz builds (docs/fuzzing.md)
          graphviz python3-networkx   # tests that render the DOT export and read the GraphML one
          iproute2 util-linux jq iperf3 iputils-ping ethtool)  # the emulated cluster (docs/emulation.md)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

build_dir=${BUILD_DIR:-build}
jobs=${JOBS:-$(nproc)}
# shellcheck disable=SC2086
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo ${CMAKE_ARGS:-} >/dev/null
cmake --build "$build_dir" -j "$jobs"
