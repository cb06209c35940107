#!/usr/bin/env bash
# Rebuilds the release preset and rewrites the "Size limits of the checkpoint drawing" and "remat info
# on deep chains" tables of BENCHMARKS.md: `remat render --figure graph` at the drawing's limits and
# beyond, `remat info` on chains of 100,000 and 1,000,000 ops (wall time and peak memory).
#   bench/figure-limits.sh [REPEATS]      (default 3; REMAT=path/to/remat to time another build)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${REMAT:-}" ]; then scripts/build.sh release remat >&2; fi
/usr/bin/python3 bench/figure_limits.py "${1:-3}"
