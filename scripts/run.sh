#!/usr/bin/env bash
# The main job: installs what is missing, builds, and compares every solver side by side on the default
# graph (datasets/unet-small.json), or on the graph given as the first argument.
#   scripts/run.sh [GRAPH] [extra `remat compare` options]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh dev >&2
graph="${1:-datasets/unet-small.json}"
[ $# -gt 0 ] && shift
exec build/bin/remat compare "$graph" "$@"
