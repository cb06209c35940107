#!/usr/bin/env bash
# Regenerates docs/figures/: ResNet50 at batch 32 (datasets/resnet50.json) with the plain run, Chen's
# sqrt(n) and the exact DP, each at its own least feasible budget: the memory timeline of the three,
# the exact DP's checkpoint drawing, schedule matrix and memory layout, and the Pareto fronts of Chen's
# solver and the exact DP. Paper theme, PNG at 144 dpi.
#   scripts/figures.sh [OUT_DIR]      (default docs/figures)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-docs/figures}"
scripts/build.sh dev remat >&2
build/bin/remat compare datasets/resnet50.json --solvers store-all,chen-sqrtn,exact-dp --budget least \
  --figures "$out" --figure-format png --theme paper --dpi 144
build/bin/remat render datasets/resnet50.json --figure graph --solvers exact-dp --budget least \
  -o "$out/graph.png" --theme paper --width 1600 --height 1800 --dpi 120
