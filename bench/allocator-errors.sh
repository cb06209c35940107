#!/usr/bin/env bash
# The simulator's peak against what LibTorch's CPU allocator really held (counted by remat-runner), for
# the plain framework run and for every solver's plan at its least budget and at no budget, on the
# reduced networks of datasets/small and six torchvision networks the repository does not ship
# (tv:NAME, exported without weights at batch 2 and 64x64 by runtime/trace_step.py, which needs
# /usr/bin/python3 with torch and torchvision), each three ways: as imported (no workspace), with the
# `--workspace libtorch-cpu` rules, and as `remat profile --device cpu` writes it (times and workspace
# measured on this CPU). Rewrites the ALLOCATOR-ERRORS section of BENCHMARKS.md. Uses the dev build
# (build/bin/remat and remat-runner) unless REMAT_BIN names the remat binary.
#   bench/allocator-errors.sh [GRAPH | tv:NAME ...]   # default: the four reduced networks, six tv: ones
set -euo pipefail
cd "$(dirname "$0")/.."
export REMAT_BIN="${REMAT_BIN:-build/bin/remat}"
/usr/bin/python3 bench/allocator_errors.py "$@"
