#!/usr/bin/env bash
# Moccasin's random layered graphs and Checkmate's FCN8 and ResNet-50 training graphs, planned as given,
# beside the published Checkmate, Moccasin and FastSA figures; rewrites the MOCCASIN-TABLE section of
# BENCHMARKS.md. Needs ../shared/corpus. Rebuilds the release preset unless REMAT_BIN names a binary.
#   bench/moccasin-table.sh [REPEATS]      # default 3 (fastsa's runs; milp and lp-bound run once each)
#   MILP_LIMIT=S bench/moccasin-table.sh   # the time limit of each milp and lp-bound run, default 120 s
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${REMAT_BIN:-}" ]; then
  scripts/build.sh release remat >&2
  export REMAT_BIN=build-release/bin/remat
fi
/usr/bin/python3 bench/moccasin_table.py "$@"
