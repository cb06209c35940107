#!/usr/bin/env bash
# The simulator's plain-run peak against one training step of real PyTorch autograd, recorded with
# runtime/trace_step.py (torch.profiler's memory events) on torchvision classifiers with random weights,
# each exported and converted as datasets/generate.py does. Rewrites the TRACE-ERRORS section of
# BENCHMARKS.md. Uses build/bin/remat unless REMAT_BIN names another.
#   bench/trace-errors.sh [MODEL:BATCH:SIZE ...]   # default: five classifiers, four at batch 2 and 64x64
set -euo pipefail
cd "$(dirname "$0")/.."
export REMAT_BIN="${REMAT_BIN:-build/bin/remat}"
/usr/bin/python3 bench/trace_errors.py "$@"
