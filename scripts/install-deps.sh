#!/usr/bin/env bash
# Installs every Debian 12 package Remat needs to build, test and run (idempotent; quiet when all is
# present). Later layers (viz, studio, runtime, ONNX import, MILP) need the packages listed here too, so a
# machine set up once builds every target.
set -euo pipefail

packages=(
  build-essential cmake pkg-config ninja-build clang libclang-rt-14-dev clang-format clang-tidy
  libboost-graph-dev libgraphviz-dev graphviz
  qt6-base-dev qt6-base-dev-tools libqt6opengl6-dev qt6-charts-dev qt6-svg-dev qt6-qpa-plugins
  libxkbcommon-dev
  libcgal-dev libgmp-dev libmpfr-dev
  catch2
  coinor-libcbc-dev coinor-libclp-dev
  libonnx-dev protobuf-compiler libprotobuf-dev
  nlohmann-json3-dev libcli11-dev libfmt-dev libeigen3-dev libtbb-dev
  libtorch-dev python3-torch python3-torchvision python3-onnx pybind11-dev python3-dev
  # LibTorch's recommended BLAS, which --no-install-recommends below would leave out: without it Debian's
  # LibTorch multiplies with the reference BLAS, and here an iteration of the reduced GPT-2 takes 2.6x as
  # long, the DenseNet-121 test of tests/python 3x. The OpenMP build keeps to LibTorch's thread count
  # (remat-runner --threads).
  libopenblas0-openmp
  xvfb xauth fonts-dejavu-core poppler-utils
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${#missing[@]} missing package(s): ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done" >&2
