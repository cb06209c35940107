#!/usr/bin/env bash
# Rebuilds the release preset and rewrites the paper-table section of BENCHMARKS.md.
#   bench/paper-table.sh
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d ../shared/corpus/paper-graphs ] || { echo "bench: ../shared/corpus/paper-graphs not found" >&2; exit 3; }
scripts/build.sh release remat >&2
/usr/bin/python3 bench/paper_table.py
