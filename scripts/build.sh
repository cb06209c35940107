#!/usr/bin/env bash
# Configures and builds one CMake preset (default: dev) after making sure the system packages are there:
# every target, or only the ones named (the command line `remat`, `remat-studio`, `remat-runner`, a test
# binary such as `remat_solvers_tests`); a named target the configuration lacks (Studio without Qt, the
# runner without LibTorch) is left out with a note.
#   scripts/build.sh [PRESET [TARGET ...]]
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-dev}"
[ $# -gt 0 ] && shift
scripts/install-deps.sh
cmake --preset "$preset" >/dev/null
targets=()
if [ $# -gt 0 ]; then
  known="$(cmake --build --preset "$preset" --target help)"
  for t in "$@"; do
    if grep -q "^$t:" <<<"$known"; then
      targets+=(--target "$t")
    else
      echo "build: preset $preset has no target $t; left out" >&2
    fi
  done
  [ ${#targets[@]} -gt 0 ] || exit 0
fi
cmake --build --preset "$preset" -j "$(nproc)" "${targets[@]}"
