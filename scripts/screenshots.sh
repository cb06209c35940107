#!/usr/bin/env bash
# Regenerates docs/screenshots/: Remat Studio on ResNet50 at batch 32 (datasets/resnet50.json) at a
# budget of 1.6 GiB (60% of its plain run's peak), the paper's two DPs side by side with DTR, Chen's
# sqrt(n), FastSA and Remat's dp-evict, each also under a keep pin on layer1.0's first convolution where it
# honours pins (docs/pins.md), then the Pareto fronts, one PNG of the window per view, on a virtual X server (Xvfb).
#   scripts/screenshots.sh [OUT_DIR]      (default docs/screenshots)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-docs/screenshots}"
scripts/build.sh dev remat-studio >&2
xvfb-run -a -s "-screen 0 1920x1080x24" build/bin/remat-studio --screenshots "$out" datasets/resnet50.json 1.6GiB \
  exact-dp,approx-dp,dtr,chen-sqrtn,fastsa,dp-evict --keep /net/layer1/layer1.0/conv1/Conv_output_0
echo "wrote $out"
