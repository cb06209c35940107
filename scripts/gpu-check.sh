#!/usr/bin/env bash
# The GPU check (issue 38): remat.torch's predictions against what PyTorch allocates on one CUDA GPU, for
# torchvision's ResNet-50 (batch 64, 224x224), a GPT-2-small-sized GPT in plain PyTorch (batch 8, 1,024
# tokens) and torchvision's ViT-B/16 (batch 32, 224x224; nn.MultiheadAttention, traced through, which
# PyTorch 2 runs as scaled_dot_product_attention): the plain step, store-all applied, and the best plan
# apply can run at two budgets, each one training step with gradients set against the plain step's.
#
# The GPU machine has Python and PyTorch and nothing else (no Debian packages, no network), so only what
# needs the GPU runs there, with remat.torch alone (python/, pure Python); what needs the engine (the
# solvers, the simulator) runs here through its bindings (build/python). Two calls on the GPU:
#
#   GPU:  scripts/gpu-check.sh profile DIR     # capture both networks with times, measure the plain step
#   here: scripts/gpu-check.sh plan DIR        # plans at 50% and 70% of the plain peak (or from the least budget)
#   GPU:  scripts/gpu-check.sh measure DIR     # apply each plan, measure one step, compare gradients
#   here: scripts/gpu-check.sh report DIR      # DIR/report.md: predicted against measured; exit 1 over 3%
#
#   scripts/gpu-check.sh --cpu-dry-run [--out DIR]   # all four on the CPU at reduced sizes (CI runs this)
#
# Each step runs under `timeout` (profile 300 s, measure 240 s on the GPU, so both calls stay under 10
# minutes with the machine's start; the networks go in the order above, each written as it is done). Keep a GPU run's DIR in docs/validation/. PYTHON picks the
# interpreter (default: /usr/bin/python3 when it has torch, else python3). Exit codes: 0 ok, 1 a
# prediction off by more than 3% (report), 2 usage, 9 no CUDA device, 124 a step ran out of time.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

if [ -z "${PYTHON:-}" ]; then
  if /usr/bin/python3 -c 'import torch' 2>/dev/null; then PYTHON=/usr/bin/python3; else PYTHON=python3; fi
fi
export PYTHONPATH="$PWD/build/python${PYTHONPATH:+:$PYTHONPATH}"

run() {  # run LIMIT STEP DIR [ARGS...]
  local limit="$1"
  shift
  timeout --kill-after=10 "$limit" "$PYTHON" scripts/gpu_check.py "$@"
}

case "${1:-}" in
  profile) [ $# -ge 2 ] || exit 2; run 300 profile "$2" "${@:3}" ;;
  measure) [ $# -ge 2 ] || exit 2; run 240 measure "$2" "${@:3}" ;;
  plan) [ $# -ge 2 ] || exit 2; run 300 plan "$2" "${@:3}" ;;
  report) [ $# -ge 2 ] || exit 2; run 60 report "$2" "${@:3}" ;;
  --cpu-dry-run)
    out=build-gpu-check/dry-run
    [ "${2:-}" = "--out" ] && out="$3"
    rm -rf "$out"
    run 240 profile "$out" --device cpu --small &&
      run 300 plan "$out" --small &&
      run 200 measure "$out" --device cpu --small &&
      run 60 report "$out" --small
    ;;
  -h|--help) sed -n '2,24p' "$0" ;;
  *) echo "gpu-check: give profile, plan, measure or report and a folder, or --cpu-dry-run (see --help)" >&2; exit 2 ;;
esac
