#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds the dev preset and runs every test through
# ctest, then does the same under AddressSanitizer and UndefinedBehaviorSanitizer (the asan preset, whose
# tree also builds the reader fuzzers that scripts/fuzz.sh runs). Each phase says how long it took.
#   scripts/test.sh            # dev + asan
#   scripts/test.sh --quick    # dev only
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=phase.sh
source scripts/phase.sh
jobs="$(nproc)"
phase "dev: build" scripts/build.sh dev
phase "dev: tests" run_ctest ctest-dev --preset dev -j "$jobs"
# Two checks of one process each, run side by side (each keeps to one core), their outputs printed in
# turn once both have ended:
# - predicted against measured memory and time on this CPU, printed: datasets/resnet50.json's network at
#   batch 2 and 64x64, its temporaries from the libtorch-cpu rules (tests/validation checks the same on
#   every plan of the reduced ResNet-50, ViT and GPT-2 of datasets/small);
# - the GPU check's steps on the CPU at reduced sizes (remat.torch's capture, the engine's plans through
#   the Python bindings, apply and measure; docs/python.md).
dev_checks() {
  local out status=0 validate="" gpu=""
  out="$(mktemp -d "${TMPDIR:-/tmp}/remat-checks.XXXXXX")"
  if [ -x build/bin/remat-runner ]; then
    build/bin/remat validate datasets/small/resnet50-64px.json --workspace libtorch-cpu \
      --solvers store-all,chen-sqrtn,approx-dp --budget least --device cpu --threads 1 >"$out/validate.log" 2>&1 &
    validate=$!
  fi
  if [ -f build/python/remat/__init__.py ]; then
    scripts/gpu-check.sh --cpu-dry-run >"$out/gpu-check.log" 2>&1 &
    gpu=$!
  fi
  if [ -n "$validate" ]; then
    wait "$validate" || status=$?
    echo "== remat validate datasets/small/resnet50-64px.json (exit $status)"
    cat "$out/validate.log"
  fi
  if [ -n "$gpu" ]; then
    local gpu_status=0
    wait "$gpu" || gpu_status=$?
    echo "== scripts/gpu-check.sh --cpu-dry-run (exit $gpu_status)"
    cat "$out/gpu-check.log"
    [ "$status" -ne 0 ] || status=$gpu_status
  fi
  rm -rf "$out"
  return "$status"
}
phase "dev: validate + gpu-check dry run" dev_checks
if [ "${1:-}" != "--quick" ]; then
  phase "asan: build (with the fuzzers)" scripts/build.sh asan
  # The preset sets the sanitizer options and the leak suppressions of tests/lsan.supp.
  phase "asan: tests" run_ctest ctest-asan --preset asan -j "$jobs"
fi
