#!/usr/bin/env python3
"""exact-dp on the datasets the paper's DP finds hardest: datasets/pspnet.json (costs in nanoseconds, so
its fronts are wide), datasets/googlenet.json and datasets/inception_v3.json (more lower sets than
exact-dp's cap), at 50, 60, 70 and 80% of each graph's plain-run peak (time-centric, the simulator's
model). Each cell: the solver's own time (`metrics.solve_seconds`), median of REPEATS runs, and the
status when not optimal; writes the table between the DATASET-DP markers of BENCHMARKS.md.

   dataset_dp.py [REPEATS] [--print]      (run through bench/dataset-dp.sh; REMAT=path to time another build)
"""
import json
import os
import pathlib
import statistics
import subprocess
import sys

from benchmarks_md import replace_section

ROOT = pathlib.Path(__file__).resolve().parent.parent
REMAT = os.environ.get("REMAT", str(ROOT / "build-release" / "bin" / "remat"))
GRAPHS = ("pspnet.json", "googlenet.json", "inception_v3.json")
FRACTIONS = (0.5, 0.6, 0.7, 0.8)
LIMIT = 600  # seconds per solve


def run_json(*args):
    r = subprocess.run([REMAT, *args, "--json"], capture_output=True, text=True, timeout=LIMIT + 60)
    return json.loads(r.stdout)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    repeats = int(args[0]) if args else 3
    rows = ["| graph | lower sets | " + " | ".join(f"{f:.0%}" for f in FRACTIONS) + " |",
            "|---|---:|" + "---:|" * len(FRACTIONS)]
    for name in GRAPHS:
        path = str(ROOT / "datasets" / name)
        info = run_json("info", path)
        plain = info["vanilla_peak_bytes"]
        sets = info.get("lower_sets")
        cells = []
        for f in FRACTIONS:
            runs = [run_json("solve", path, "-s", "exact-dp", "-b", str(int(plain * f)), "--time-limit", str(LIMIT))
                    for _ in range(repeats)]
            seconds = statistics.median(r["metrics"]["solve_seconds"] for r in runs)
            status = runs[0]["status"]
            cells.append(f"{seconds:.2f}" + ("" if status == "optimal" else f" ({status})"))
        rows.append(f"| {name} | {sets if sets is not None else 'over the count limit'} | " + " | ".join(cells) + " |")
        print(rows[-1], flush=True)
    if "--print" in sys.argv[1:]:
        print("\n".join(rows))
    else:
        replace_section("DATASET-DP", "\n".join(rows))


if __name__ == "__main__":
    main()
