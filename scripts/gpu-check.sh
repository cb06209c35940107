#!/usr/bin/env bash
# The GPU check (issue 7): predicted against measured memory and time on one CUDA GPU, in under 8 minutes.
#
#   scripts/gpu-check.sh [--out DIR] [--remat PATH] [--runner PATH] [--cpu-dry-run]
#
# 1. Builds remat-runner from runtime/ alone against the local PyTorch (its LibTorch has CUDA; Debian's
#    libtorch-dev, which the main build uses, has none): cmake -S runtime -B build-gpu-runner
#    -DCMAKE_PREFIX_PATH="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')". That needs
#    CMake, a C++20 compiler, the CUDA toolkit that PyTorch's CMake files look for, and nlohmann-json
#    (nlohmann-json3-dev; without it runtime/CMakeLists.txt downloads the header). --runner PATH skips this.
# 2. Needs the `remat` command line of the main project: --remat PATH, else build/bin/remat, which it
#    rebuilds when build/ is configured (scripts/build.sh configures it; the main project needs the
#    Debian packages of scripts/install-deps.sh). Without either it stops and says so.
# 3. For datasets/resnet50.json and datasets/bert_base.json, `remat validate --device cuda` of store-all,
#    chen-sqrtn, approx-dp and exact-dp at two budgets: `least` (each solver at its own least feasible
#    budget) and a middle budget (halfway between exact-dp's least budget and its unconstrained plan's
#    model peak; store-all and chen-sqrtn take no budget there). Each run keeps its plans, measurements,
#    runner logs, the table (table.txt), the JSON report (validation.json) and the overlaid timelines
#    (timeline.svg) in DIR/NAME-BUDGET/; DIR/summary.txt lists every step and its outcome.
#
# The transformer is BERT-base at batch 32 and 128 tokens (bert_base.json). The script first checks that
# the runner can play every operation of it (--dry-run; ViT-B/16 and GPT-2 small pass as well) and
# records a failure in summary.txt if not. exact-dp refuses graphs with more than 100,000 lower sets (all
# three transformers): `remat validate` leaves it out with a warning there.
#
# Time: every step runs under `timeout` with its own budget, and steps that would start after 7 minutes
# are skipped (and listed as skipped), so the whole check stays under 8 minutes.
#
# --cpu-dry-run exercises the same logic on this machine without a GPU: --device cpu, the same networks
# at a reduced size (datasets/small/resnet18-64px.json for ResNet-50, datasets/small/bert_base-2x16.json:
# BERT-base at batch 2 and 16 tokens), one iteration, the runner of the main build
# (build/bin/remat-runner) unless --runner is given.
#
# Exit codes: 0 every step ran (a validate that fails is recorded in summary.txt and makes the exit code
# 1), 2 usage, 3 no remat CLI, 9 no CUDA device (or no PyTorch with CUDA), 4 the runner did not build.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

out=build-gpu-check/results
remat=""
runner=""
cpu=0
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --remat) remat="$2"; shift 2 ;;
    --runner) runner="$2"; shift 2 ;;
    --cpu-dry-run) cpu=1; shift ;;
    -h|--help) sed -n '2,45p' "$0"; exit 0 ;;
    *) echo "gpu-check: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done

deadline=420  # seconds after which no new step starts (the last step's own timeout keeps us under 8 min)
start=$SECONDS
summary="$out/summary.txt"
failures=0
log() { echo "$*" | tee -a "$summary" >&2; }
elapsed() { echo $((SECONDS - start)); }

# Runs a step under a time limit unless the deadline has passed; records its outcome.
step() {
  local name="$1" limit="$2"
  shift 2
  if [ "$(elapsed)" -ge "$deadline" ]; then
    log "SKIPPED  $name (the check is at $(elapsed) s; no step starts after $deadline s)"
    return 125
  fi
  local t0=$SECONDS rc=0
  timeout --kill-after=10 "$limit" "$@" || rc=$?
  if [ "$rc" -eq 0 ]; then
    log "ok       $name ($((SECONDS - t0)) s)"
  elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    log "TIMEOUT  $name (over its $limit s)"
    failures=$((failures + 1))
  else
    log "FAILED   $name (exit code $rc, $((SECONDS - t0)) s)"
    failures=$((failures + 1))
  fi
  return "$rc"
}

if [ "$cpu" -eq 1 ]; then
  device=cpu
  iterations=(--iterations 1 --warmup 0)
  resnet=datasets/small/resnet18-64px.json
  transformer=datasets/small/bert_base-2x16.json
else
  device=cuda
  iterations=(--iterations 3 --warmup 1)
  resnet=datasets/resnet50.json
  transformer=datasets/bert_base.json
  if ! python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    gpus="$(nvidia-smi -L 2>/dev/null | head -1)"
    echo "gpu-check: no CUDA device: python3's torch is missing, has no CUDA, or sees no GPU" \
      "(nvidia-smi: ${gpus:-not found or no GPU}); use --cpu-dry-run to check the logic on a CPU" >&2
    exit 9
  fi
fi
mkdir -p "$out"
: >"$summary"
[ "$cpu" -eq 1 ] && log "gpu-check: --cpu-dry-run: device cpu, small graphs, one iteration (the logic of the GPU check only)"

# --- the remat command line --------------------------------------------------------------------------
if [ -z "$remat" ]; then
  remat=build/bin/remat
  if [ -f build/build.ninja ] || [ -f build/Makefile ]; then
    step "build the remat command line (build/)" 300 cmake --build build --target remat -j "$(nproc)" >&2
  fi
fi
if [ ! -x "$remat" ]; then
  echo "gpu-check: no remat command line at $remat: build the main project first (scripts/build.sh dev)" \
    "or pass --remat PATH" >&2
  exit 3
fi

# --- the runner ---------------------------------------------------------------------------------------
if [ -z "$runner" ]; then
  if [ "$cpu" -eq 1 ]; then
    runner=build/bin/remat-runner
  else
    prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')"
    step "configure remat-runner against PyTorch ($prefix)" 120 \
      cmake -S runtime -B build-gpu-runner -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" >&2
    step "build remat-runner" 300 cmake --build build-gpu-runner -j "$(nproc)" >&2
    runner=build-gpu-runner/bin/remat-runner
  fi
fi
if [ ! -x "$runner" ]; then
  echo "gpu-check: remat-runner did not build (see above), or --runner does not name it: $runner" >&2
  exit 4
fi
log "runner: $("$runner" --version 2>&1)"
if [ "$cpu" -eq 0 ] && ! "$runner" --version 2>&1 | grep -q CUDA; then
  echo "gpu-check: $runner was built without CUDA (its LibTorch has none)" >&2
  exit 9
fi

# --- the transformer ------------------------------------------------------------------------------------
# Every operation of the three transformers must be playable (a dry run checks graph and operations only).
for candidate in datasets/bert_base.json datasets/gpt2_small.json datasets/vit_b_16.json; do
  if "$runner" "$candidate" --baseline --dry-run 2>"$out/probe.log"; then
    log "probe    $candidate: every operation can be played"
  else
    log "FAILED   probe $candidate: $(grep -m1 'error' "$out/probe.log")"
    failures=$((failures + 1))
  fi
done
rm -f "$out/probe.log"

# --- validation -------------------------------------------------------------------------------------------
# One validate run: NAME-BUDGET/{table.txt, validation.json, timeline.svg, plans, measurements, logs}.
validate() {
  local dir="$1" limit="$2"
  shift 2
  mkdir -p "$dir"
  # shellcheck disable=SC2016  # the inner script expands its own positional parameters
  step "validate $(basename "$dir")" "$limit" bash -c '
    dir="$1"; shift
    "$@" --figure "$dir/timeline.svg" --out-dir "$dir" >"$dir/table.txt.tmp" 2>"$dir/stderr.txt" &&
      mv "$dir/table.txt.tmp" "$dir/table.txt"
    rc=$?
    rm -f "$dir/table.txt.tmp"
    exit $rc' _ "$dir" "$@"
  [ -f "$dir/table.txt" ] && cat "$dir/table.txt" >&2
}

for graph in "$resnet" "$transformer"; do
  name="$(basename "$graph" .json)"
  solvers=store-all,chen-sqrtn,approx-dp,exact-dp
  validate "$out/$name-least" 150 "$remat" validate "$graph" --solvers "$solvers" --budget least \
    --device "$device" "${iterations[@]}" --runner "$runner"

  # The middle budget: halfway between exact-dp's least budget and its unconstrained plan's model peak
  # (approx-dp's when exact-dp has none, as on graphs with too many lower sets).
  mid=$(
    "$remat" compare "$graph" --solvers exact-dp,approx-dp --budget least --json 2>/dev/null |
      python3 -c 'import json,sys; rows=[r for r in json.load(sys.stdin)["rows"] if r["budget_bytes"]]; print(rows[0]["solver"], rows[0]["budget_bytes"]) if rows else None'
  )
  if [ -z "$mid" ]; then
    log "SKIPPED  $name middle budget: no DP solver gave a least budget"
    continue
  fi
  dp=${mid%% *}
  least=${mid##* }
  top=$("$remat" solve "$graph" --solver "$dp" --json 2>/dev/null |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["metrics"]["model_peak_bytes"])')
  budget=$(((least + top) / 2))
  plans=()
  pdir="$out/$name-mid"
  mkdir -p "$pdir/solved"
  for s in store-all chen-sqrtn approx-dp exact-dp; do
    b=()
    case "$s" in approx-dp|exact-dp) b=(--budget "$budget") ;; esac
    if "$remat" solve "$graph" --solver "$s" "${b[@]}" -o "$pdir/solved/$s.json" >"$pdir/solved/$s.log" 2>&1; then
      plans+=(--plan "$pdir/solved/$s.json")
    else
      # The solve report's status and message lines (a usage error has only its last line).
      why="$(grep -E '^(Status|Message) ' "$pdir/solved/$s.log" | sed -E 's/  +/ /' | tr '\n' ' ')"
      log "note     $name: $s has no plan at $budget bytes: ${why:-$(tail -1 "$pdir/solved/$s.log")}"
    fi
  done
  log "budget   $name middle: $budget bytes ($dp least $least, unconstrained model peak $top)"
  validate "$pdir" 150 "$remat" validate "$graph" "${plans[@]}" --device "$device" "${iterations[@]}" \
    --runner "$runner"
done

log "gpu-check: $(elapsed) s in all; results in $out"
[ "$failures" -eq 0 ]
