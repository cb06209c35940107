#!/usr/bin/env bash
# Rebuilds the release preset and rewrites the "Time limits" table of BENCHMARKS.md: every solver with
# --time-limit 2 on datasets/inception_v3.json and a generated 100,000-op chain, how far past the limit
# each answers, and its peak memory; and the "DTR's solve time" table (every dataset and a 10,000-op
# chain at 50-80% of the plain peak). `bench/limits.sh --commands` rewrites only the "Whole-command limits"
# table: sweep, max-batch, compare --total-time-limit and render --figure pareto at 2 s on pspnet and
# inception_v3.
#   bench/limits.sh [--commands]     (REMAT=path/to/remat to time another build)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${REMAT:-}" ]; then scripts/build.sh release remat >&2; fi
/usr/bin/python3 bench/limits.py "$@"
