#!/usr/bin/env bash
# Temporaries inside each step that the simulator does not count: the CPU allocator's peak while a
# forward or backward step runs, beyond the schedule's tensors, grouped by op and phase, for
# store-all's plan on the reduced networks of datasets/small and the three torchvision networks of
# allocator-errors.sh (remat-runner, one thread), beside what the libtorch-cpu workspace rules give.
# Rewrites the STEP-TEMPORARIES section of BENCHMARKS.md. Uses the dev build unless REMAT_BIN names the
# remat binary.
#   bench/step-temporaries.sh [GRAPH | tv:NAME ...]   # default: as allocator-errors.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export REMAT_BIN="${REMAT_BIN:-build/bin/remat}"
/usr/bin/python3 bench/step_temporaries.py "$@"
