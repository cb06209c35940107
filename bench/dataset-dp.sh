#!/usr/bin/env bash
# exact-dp's solve time on datasets/pspnet.json, googlenet.json and inception_v3.json at 50-80% of the
# plain peak (median of REPEATS, default 3); rewrites the DATASET-DP section of BENCHMARKS.md.
#   bench/dataset-dp.sh [REPEATS] [--time-limit S] [--graphs a.json,b.json] [--fractions 0.5,0.8] [--print]
#   (REMAT=path/to/remat to time another build; a per-solve limit of 1800 s by default)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${REMAT:-}" ]; then scripts/build.sh release remat >&2; fi
/usr/bin/python3 bench/dataset_dp.py "$@"
