#!/usr/bin/env bash
# Median wall time of `remat info` (lower-set count, vanilla simulation, bound) and `remat compare`
# (every registered solver) on each graph of ../shared/corpus/paper-graphs, over REPEATS runs.
#   bench/corpus-timings.sh [REPEATS]     (default 7; builds the release preset first)
set -euo pipefail
cd "$(dirname "$0")/.."
repeats="${1:-7}"
corpus="../shared/corpus/paper-graphs"
[ -d "$corpus" ] || { echo "bench: $corpus not found" >&2; exit 3; }
scripts/build.sh release remat >&2
remat=build-release/bin/remat

# Median seconds of REPEATS runs of a command (output discarded).
time_of() {
  /usr/bin/python3 - "$repeats" "$@" <<'PY'
import statistics, subprocess, sys, time
runs = []
for _ in range(int(sys.argv[1])):
    t = time.perf_counter()
    subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, check=True)
    runs.append(time.perf_counter() - t)
print(f"{statistics.median(runs):.3f}")
PY
}

printf '| graph | ops | lower sets | info median (s) | compare median (s) |\n|---|---:|---:|---:|---:|\n'
for f in "$corpus"/cg_*.txt; do
  name=$(basename "$f" .txt)
  read -r ops sets < <("$remat" info "$f" --json | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["op_nodes"], d["lower_sets"])')
  printf '| %s | %s | %s | %s | %s |\n' "$name" "$ops" "$sets" "$(time_of "$remat" info "$f")" "$(time_of "$remat" compare "$f")"
done
