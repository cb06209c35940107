#!/usr/bin/env bash
# The main job: installs what is missing, builds, and shows every solver side by side on the default
# graph (datasets/resnet50.json: torchvision's ResNet50 at batch 32, imported from ONNX), or on the graph
# given as the first argument.
#   scripts/run.sh [--cli] [GRAPH] [extra `remat compare` options]
# Without arguments, from a terminal on a desktop (a display and a terminal on stdout): Remat Studio on
# the default graph. Otherwise, or with --cli: the command-line comparison, every solver at its own least
# budget, the DPs memory-centric (the paper's table), and its figures as SVG in build/figures.
set -euo pipefail
cd "$(dirname "$0")/.."
cli=0
if [ "${1:-}" = "--cli" ]; then
  cli=1
  shift
fi
scripts/build.sh dev remat remat-studio >&2
default=datasets/resnet50.json
if [ $# -eq 0 ]; then
  # A script or CI job (no terminal, or no display) gets the table, never a window that waits for a user.
  if [ "$cli" -eq 0 ] && [ -t 1 ] && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; } &&
    [ -x build/bin/remat-studio ]; then
    echo "run: opening Remat Studio on $default (scripts/run.sh --cli prints the comparison instead)" >&2
    exec build/bin/remat-studio "$default"
  fi
  # The paper's comparison: every solver at its own least feasible budget, the DPs memory-centric; the
  # figures of the comparison go to build/figures.
  exec build/bin/remat compare "$default" --budget least --strategy memory --figures build/figures
fi
graph="$1"
shift
exec build/bin/remat compare "$graph" "$@"
