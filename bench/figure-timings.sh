#!/usr/bin/env bash
# Rebuilds the release preset and rewrites the figure timing table of BENCHMARKS.md: the median wall
# time of `remat render` for each figure on the largest datasets and a generated 1,000-op network.
#   bench/figure-timings.sh [REPEATS]      (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh release remat >&2
/usr/bin/python3 bench/figure_timings.py "${1:-5}"
