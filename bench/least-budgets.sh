#!/usr/bin/env bash
# Each planner's least budget on every dataset and paper graph, and whether dp-evict's is at or below
# DTR's; rewrites the LEAST-BUDGETS section of BENCHMARKS.md.
#   bench/least-budgets.sh [--print]     (REMAT=path/to/remat for another build)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${REMAT:-}" ]; then scripts/build.sh release remat >&2; fi
/usr/bin/python3 bench/least_budgets.py "$@"
