#!/usr/bin/env bash
# Rewrites the "Studio's responsiveness" section of BENCHMARKS.md: the longest stretch of CPU time the
# GUI thread spends between two ticks of a 5 ms timer while exact-dp, approx-dp, chen-greedy and
# chen-sqrtn solve datasets/pspnet.json and the user flips through every view and drags the budget
# (tests/studio/ResponsivenessTest.cpp, a hidden Catch case), RUNS runs (default 5) per build folder
# named (default: build, the dev preset, built first); median and worst.
#   bench/studio-responsiveness.sh [BUILD_DIR ...]      e.g. bench/studio-responsiveness.sh build build-debug
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- build
for b in "$@"; do [ "$b" = build ] && scripts/build.sh dev remat_studio_tests >&2; done
runs="${RUNS:-5}"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
for b in "$@"; do
  for _ in $(seq "$runs"); do
    # A sanitizer build's leak report at exit is not this bench's business.
    line="$(ASAN_OPTIONS=detect_leaks=0 QT_QPA_PLATFORM=offscreen "$b/bin/remat_studio_tests" \
      "Studio's event loop never stalls while solvers run" 2>&1 |
      grep -o 'longest GUI-thread busy stretch [0-9.]* ms of CPU (wall gap [0-9.]* ms)' | head -1 || true)"
    echo "$(basename "$b") $line" >>"$out"
  done
done
/usr/bin/python3 - "$out" "$runs" <<'PY'
import re, statistics, subprocess, sys
sys.path.insert(0, "bench")
from benchmarks_md import replace_section
runs = int(sys.argv[2])
rows = {}
for line in open(sys.argv[1]).read().splitlines():
    build = line.split(" ", 1)[0]
    m = re.search(r"stretch ([0-9.]+) ms of CPU \(wall gap ([0-9.]+) ms\)", line)
    if not m:
        raise SystemExit(f"studio-responsiveness: a run of {build} reported no figure")
    rows.setdefault(build, []).append((float(m.group(1)), float(m.group(2))))
cores = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
body = "| build | runs | GUI-thread CPU, median | worst | wall gap, median | worst |\n|---|---:|---:|---:|---:|---:|\n"
for build, values in rows.items():
    cpu = [c for c, _ in values]
    wall = [w for _, w in values]
    body += (f"| {build} | {len(values)} | {statistics.median(cpu):.1f} ms | {max(cpu):.1f} ms | "
             f"{statistics.median(wall):.1f} ms | {max(wall):.1f} ms |\n")
body += f"\n({cores} cores, nothing else running; the target is under 100 ms of GUI-thread CPU between two ticks.)"
print(body)
replace_section("STUDIO-RESPONSIVENESS", body)
PY
