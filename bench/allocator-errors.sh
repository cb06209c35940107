#!/usr/bin/env bash
# The simulator's peak against what LibTorch's CPU allocator really held (counted by remat-runner), for
# the plain framework run and for every solver's plan at its least budget and at no budget, on the
# reduced networks of datasets/small, each as imported (no workspace) and as `remat profile --device cpu`
# writes it (times and workspace measured on this CPU). Rewrites the ALLOCATOR-ERRORS section of BENCHMARKS.md. Uses the
# dev build (build/bin/remat and remat-runner) unless REMAT_BIN names the remat binary.
#   bench/allocator-errors.sh [GRAPH ...]   # default: the four reduced CNNs and transformers
set -euo pipefail
cd "$(dirname "$0")/.."
export REMAT_BIN="${REMAT_BIN:-build/bin/remat}"
/usr/bin/python3 bench/allocator_errors.py "$@"
