#!/usr/bin/env bash
# Builds the reader fuzzers, plan JSON's included, in the sanitizer tree (preset `asan`: clang, libFuzzer,
# ASan, UBSan; scripts/test.sh has built them already) and runs each one for a bounded time, seeded with
# the reader fixtures. New corpus entries go to a temporary folder that is removed at the end; a crashing
# input is kept under fuzz-out/ (ignored by git). As many fuzzers run at once as there are cores.
#
# Usage: scripts/fuzz.sh [SECONDS]   seconds per fuzzer, default 20. Exits 1 if any fuzzer failed.
set -euo pipefail

seconds="${1:-20}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [[ "$seconds" -eq 0 ]]; then
  echo "usage: $0 [seconds per fuzzer, a positive integer; default 20]" >&2
  exit 2
fi

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

fuzzers=(fuzz_native_json fuzz_pfn_cg fuzz_checkmate_json fuzz_onnx fuzz_plan_json fuzz_memory_trace fuzz_session fuzz_study_lines)
scripts/install-deps.sh
cmake --preset asan >/dev/null
cmake --build build-asan --target "${fuzzers[@]}" -j "$(nproc)"

work="$(mktemp -d "${TMPDIR:-/tmp}/remat-fuzz.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p fuzz-out

# One fuzzer a core at a time: each still gets its whole time (the fixtures, dictionaries and limits as
# below); each writes its own log, reported in the list's order once all have ended.
run_fuzzer() {
  local fuzzer="$1" fixtures dict timeout=5
  case "$fuzzer" in
    fuzz_native_json) fixtures=native dict=json.dict ;;
    fuzz_pfn_cg) fixtures=pfn dict=pfn.dict ;;
    fuzz_checkmate_json) fixtures=checkmate dict=json.dict ;;
    # The ONNX reader runs libonnx's shape inference in a child process each round (it crashes on some
    # malformed models), and a fork of a sanitized process is slow: a mutated window_pad.onnx that
    # infers 143 times took 21 s here under ASan (3 s in the dev build). Such inputs are slow, not stuck.
    fuzz_onnx) fixtures=onnx dict=onnx.dict timeout=60 ;;
    fuzz_plan_json) fixtures=plan dict=json.dict ;;
    fuzz_memory_trace) fixtures=trace dict=json.dict ;;
    fuzz_session) fixtures=session dict=json.dict ;;
    fuzz_study_lines) fixtures=study dict=json.dict ;;
  esac
  local corpus="$work/$fuzzer"
  mkdir -p "$corpus"
  echo "tests/fixtures/$fixtures" >"$work/$fuzzer.seeds"
  # The first folder receives new inputs; the fixture folders are only read.
  if "build-asan/bin/$fuzzer" "$corpus" "tests/fixtures/$fixtures/valid" "tests/fixtures/$fixtures/invalid" \
      -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout="$timeout" \
      -dict="tests/fuzz/$dict" -artifact_prefix="fuzz-out/$fuzzer-" -print_final_stats=1 >"$work/$fuzzer.log" 2>&1; then
    echo 0 >"$work/$fuzzer.status"
  else
    echo 1 >"$work/$fuzzer.status"
  fi
}

cores="$(nproc)"
for fuzzer in "${fuzzers[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$cores" ]; do wait -n || true; done
  run_fuzzer "$fuzzer" &
done
wait

status=0
for fuzzer in "${fuzzers[@]}"; do
  log="$work/$fuzzer.log"
  echo "== $fuzzer (${seconds}s, seeds: $(cat "$work/$fuzzer.seeds"))"
  if [ "$(cat "$work/$fuzzer.status")" = 0 ]; then
    grep -E "^stat::number_of_executed_units|^Done" "$log" || true
  else
    echo "!! $fuzzer failed; the input that caused it is under fuzz-out/. End of its log:"
    tail -n 60 "$log"
    status=1
  fi
done

if [[ $status -eq 0 ]]; then
  echo "fuzz: all ${#fuzzers[@]} fuzzers ran ${seconds}s each without a failure"
fi
exit $status
