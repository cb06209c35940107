#!/usr/bin/env bash
# The main job: installs what is missing, builds, and compares every solver side by side on the default
# graph (datasets/resnet50.json: torchvision's ResNet50 at batch 32, imported from ONNX), or on the graph
# given as the first argument.
#   scripts/run.sh [GRAPH] [extra `remat compare` options]
# Without arguments: every solver at its own least budget, the DPs memory-centric (the paper's table),
# and its figures as SVG in build/figures.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh dev >&2
if [ $# -eq 0 ]; then
  # The paper's comparison: every solver at its own least feasible budget, the DPs memory-centric; the
  # figures of the comparison go to build/figures.
  exec build/bin/remat compare datasets/resnet50.json --budget least --strategy memory --figures build/figures
fi
graph="$1"
shift
exec build/bin/remat compare "$graph" "$@"
