#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds the dev preset and runs every test through
# ctest, then does the same under AddressSanitizer and UndefinedBehaviorSanitizer (the asan preset).
#   scripts/test.sh            # dev + asan
#   scripts/test.sh --quick    # dev only
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="$(nproc)"
scripts/build.sh dev
ctest --preset dev -j "$jobs"
# Predicted against measured memory and time on this CPU, printed: datasets/resnet50.json's network at
# batch 2 and 64x64, its temporaries from the libtorch-cpu rules (tests/validation checks the same on
# every plan of the reduced ResNet-18, ResNet-50, ViT, GPT-2 and BERT of datasets/small).
if [ -x build/bin/remat-runner ]; then
  build/bin/remat validate datasets/small/resnet50-64px.json --workspace libtorch-cpu \
    --solvers store-all,chen-sqrtn,approx-dp --budget least --device cpu --threads 1
fi
if [ "${1:-}" != "--quick" ]; then
  scripts/build.sh asan
  # The preset sets the sanitizer options and the leak suppressions of tests/lsan.supp.
  ctest --preset asan -j "$jobs"
fi
