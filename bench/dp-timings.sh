#!/usr/bin/env bash
# Rebuilds the release preset and rewrites the DP timing tables of BENCHMARKS.md.
#   bench/dp-timings.sh [REPEATS]      (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d ../shared/corpus/paper-graphs ] || { echo "bench: ../shared/corpus/paper-graphs not found" >&2; exit 3; }
scripts/build.sh release remat >&2
/usr/bin/python3 bench/dp_timings.py "${1:-5}"
