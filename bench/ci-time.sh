#!/usr/bin/env bash
# Rewrites the "CI time" section of BENCHMARKS.md: `.ci/run` on RUNS (default 2) fresh clones of HEAD,
# one after the other, each in a folder beside this checkout (so that ../shared/corpus is found as CI
# finds it; the packages are already installed, as CI finds them), with nothing else running. The table
# has each phase's wall time in every run and their median; below it, the 15 slowest tests of the last
# run (scripts/ci-profile.sh's list). Each run takes a quarter of an hour on 2 cores.
#   bench/ci-time.sh            # RUNS=2
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${RUNS:-2}"
here="$PWD"
commit="$(git rev-parse --short HEAD)"
records="$(mktemp -d)"  # kept when anything fails, with every run's log and profile
for i in $(seq "$runs"); do
  clone="$(dirname "$here")/remat-ci-time-$i"
  rm -rf "$clone"
  git clone -q "$here" "$clone"
  echo "ci-time: run $i of $runs in $clone" >&2
  start="$(date +%s)"
  if ! (cd "$clone" && .ci/run >"$records/run-$i.log" 2>&1); then
    echo "ci-time: .ci/run failed in run $i; its log: $records/run-$i.log" >&2
    tail -n 40 "$records/run-$i.log" >&2
    exit 1
  fi
  echo "$(($(date +%s) - start))" >"$records/total-$i"
  cp -r "$clone/build-ci" "$records/profile-$i"
  rm -rf "$clone"
done
if ! /usr/bin/python3 - "$records" "$runs" "$commit" <<'PY'
import pathlib, statistics, subprocess, sys
sys.path.insert(0, "bench")
from benchmarks_md import replace_section
records, runs, commit = pathlib.Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
def mmss(s):
    return f"{int(s // 60)} min {s - 60 * int(s // 60):04.1f} s"
phases = {}
for i in range(1, runs + 1):
    for line in (records / f"profile-{i}" / "phases.tsv").read_text().splitlines():
        name, seconds, _ = line.split("\t")
        phases.setdefault(name, []).append(float(seconds))
totals = [float((records / f"total-{i}").read_text()) for i in range(1, runs + 1)]
head = "| phase | " + " | ".join(f"run {i}" for i in range(1, runs + 1)) + " | median |"
rows = [head, "|---|" + "---:|" * (runs + 1)]
for name, values in phases.items():
    rows.append(f"| {name} | " + " | ".join(mmss(v) for v in values) + f" | {mmss(statistics.median(values))} |")
rows.append("| **`.ci/run`, clone to end** | " + " | ".join(f"**{mmss(v)}**" for v in totals) +
            f" | **{mmss(statistics.median(totals))}** |")
profile = subprocess.run(["scripts/ci-profile.sh", str(records / f"profile-{runs}")], capture_output=True,
                         text=True, check=True).stdout
slowest = profile.split("\n\n", 1)[1].strip() if "\n\n" in profile else ""
cores = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
body = "\n".join(rows) + f"\n\n({cores} cores, commit {commit}, packages installed, nothing else running.)\n"
body += "\n```\n" + slowest + "\n```"
replace_section("CI-TIME", body)
print(body)
PY
then
  echo "ci-time: could not write the table; the runs' records are in $records" >&2
  exit 1
fi
rm -rf "$records"
