#!/usr/bin/env bash
# Configures and builds one CMake preset (default: dev) after making sure the system packages are there.
#   scripts/build.sh [PRESET]
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-dev}"
scripts/install-deps.sh
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
