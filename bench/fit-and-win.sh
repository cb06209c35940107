#!/usr/bin/env bash
# Every dataset and paper graph at 50/60/70/80% of its plain run's simulated peak: the overhead of each
# solver whose plan fits the budget in the simulator, and whether the paper's DP wins. Rewrites the
# FIT-AND-WIN section of BENCHMARKS.md. Rebuilds the release preset unless REMAT_BIN names a binary.
#   bench/fit-and-win.sh [GRAPH ...]      # default: datasets/*.json and ../shared/corpus/paper-graphs/*
#   /usr/bin/python3 bench/fit_and_win.py --summary   # the counts and means the text quotes, from the table
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${REMAT_BIN:-}" ]; then
  scripts/build.sh release remat >&2
  export REMAT_BIN=build-release/bin/remat
fi
/usr/bin/python3 bench/fit_and_win.py "$@"
