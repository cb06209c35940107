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
# Predicted against measured memory and time on this CPU, printed: datasets/resnet50.json's network at
# batch 2 and 64x64, its temporaries from the libtorch-cpu rules (tests/validation checks the same on
# every plan of the reduced ResNet-50, ViT and GPT-2 of datasets/small).
if [ -x build/bin/remat-runner ]; then
  phase "dev: validate resnet50-64px" build/bin/remat validate datasets/small/resnet50-64px.json \
    --workspace libtorch-cpu --solvers store-all,chen-sqrtn,approx-dp --budget least --device cpu --threads 1
fi
# The GPU check's steps on the CPU at reduced sizes (remat.torch's capture, the engine's plans through
# the Python bindings, apply and measure; docs/python.md).
if [ -f build/python/remat/__init__.py ]; then
  phase "dev: gpu-check dry run" scripts/gpu-check.sh --cpu-dry-run
fi
if [ "${1:-}" != "--quick" ]; then
  phase "asan: build (with the fuzzers)" scripts/build.sh asan
  # The preset sets the sanitizer options and the leak suppressions of tests/lsan.supp.
  phase "asan: tests" run_ctest ctest-asan --preset asan -j "$jobs"
fi
