#!/usr/bin/env bash
# Regenerates docs/screenshots/: Remat Studio on ResNet50 at batch 32 (datasets/resnet50.json) after
# running its default solvers and the Pareto fronts, one PNG of the window per view, on a virtual X
# server (Xvfb).
#   scripts/screenshots.sh [OUT_DIR]      (default docs/screenshots)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-docs/screenshots}"
scripts/build.sh dev >&2
xvfb-run -a -s "-screen 0 1920x1080x24" build/bin/remat-studio --screenshots "$out" datasets/resnet50.json
echo "wrote $out"
