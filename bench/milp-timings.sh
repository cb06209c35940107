#!/usr/bin/env bash
# Rebuilds the release preset and rewrites the MILP timing table of BENCHMARKS.md (milp and lp-bound on
# Checkmate's training graphs).
#   bench/milp-timings.sh [REPEATS] [CAP_SECONDS]      (defaults 3 and 60; about 20 minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d ../shared/corpus/checkmate-graphs ] || { echo "bench: ../shared/corpus/checkmate-graphs not found" >&2; exit 3; }
scripts/build.sh release remat >&2
/usr/bin/python3 bench/milp_timings.py --repeats "${1:-3}" --cap "${2:-60}"
