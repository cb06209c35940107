#!/usr/bin/env python3
"""exact-dp on the datasets the paper's DP finds hardest: datasets/pspnet.json (costs in nanoseconds, so
its fronts are wide), datasets/googlenet.json and datasets/inception_v3.json (hundreds of thousands of
lower sets, 10^10 comparable pairs), at 50, 60, 70 and 80% of each graph's plain-run peak (time-centric,
the simulator's model). Each cell: the solver's own time (`metrics.solve_seconds`), median of REPEATS
runs, and the status when not optimal. The per-solve time limit (--time-limit, default 1800 s) is the
user's, so it lifts exact-dp's default allowance of 60 s. Writes the rows of the graphs run into the
table between the DATASET-DP markers of BENCHMARKS.md (the other rows stay), or prints them with --print;
each cell's status, overhead and simulated peak go to stderr.

   dataset_dp.py [REPEATS] [--time-limit S] [--graphs a.json,b.json] [--fractions 0.5,0.8] [--print]
   (run through bench/dataset-dp.sh; REMAT=path to time another build)
"""
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys

from benchmarks_md import read_section, replace_section

ROOT = pathlib.Path(__file__).resolve().parent.parent
REMAT = os.environ.get("REMAT", str(ROOT / "build-release" / "bin" / "remat"))
GRAPHS = ("pspnet.json", "googlenet.json", "inception_v3.json")
FRACTIONS = (0.5, 0.6, 0.7, 0.8)


def option(name, default):
    args = sys.argv[1:]
    return args[args.index(name) + 1] if name in args else default


def run_json(limit, *args):
    r = subprocess.run([REMAT, *args, "--json"], capture_output=True, text=True, timeout=limit + 120)
    return json.loads(r.stdout)


def main():
    limit = float(option("--time-limit", "1800"))
    graphs = option("--graphs", ",".join(GRAPHS)).split(",")
    fractions = [float(f) for f in option("--fractions", ",".join(map(str, FRACTIONS))).split(",")]
    values = {"--time-limit", "--graphs", "--fractions"}
    args = [a for i, a in enumerate(sys.argv[1:]) if not a.startswith("--") and sys.argv[i] not in values]
    repeats = int(args[0]) if args else 3
    header = ["| graph | lower sets | " + " | ".join(f"{f:.0%}" for f in FRACTIONS) + " |",
              "|---|---:|" + "---:|" * len(FRACTIONS)]
    rows = {}
    for name in graphs:
        path = str(ROOT / "datasets" / name)
        info = run_json(limit, "info", path)
        plain = info["vanilla_peak_bytes"]
        sets = info.get("lower_sets")
        cells = []
        for f in FRACTIONS:
            if not any(abs(f - x) < 1e-9 for x in fractions):
                cells.append("-")
                continue
            runs = [run_json(limit, "solve", path, "-s", "exact-dp", "-b", str(int(plain * f)), "--time-limit",
                             str(limit)) for _ in range(repeats)]
            seconds = statistics.median(r["metrics"]["solve_seconds"] for r in runs)
            status = runs[0]["status"]
            # The plan's overhead and peak, to set beside the other solvers' (the fit-and-win table).
            m = runs[0]["metrics"]
            print(f"{name} at {f:.0%}: {status}, overhead {m.get('overhead')}, simulated peak "
                  f"{m.get('simulated_peak_bytes')}, {seconds:.2f} s", file=sys.stderr, flush=True)
            cells.append(f"{seconds:.2f}" + ("" if status == "optimal" else f" ({status})"))
        rows[name] = f"| {name} | {sets if sets is not None else 'over the count limit'} | " + " | ".join(cells) + " |"
        print(rows[name], flush=True)
    if "--print" in sys.argv[1:]:
        return
    # Keep the rows of graphs not run this time, and the cells of fractions not run.
    old = {}
    for line in read_section("DATASET-DP").splitlines()[2:]:
        m = re.match(r"\| (\S+) \|", line)
        if m:
            old[m.group(1)] = line
    for name, line in rows.items():
        if name in old:
            mine, theirs = line.split(" | "), old[name].split(" | ")
            line = " | ".join(a if a.strip(" |") != "-" else b for a, b in zip(mine, theirs))
        old[name] = line
    replace_section("DATASET-DP", "\n".join(header + [old[g] for g in GRAPHS if g in old]))


if __name__ == "__main__":
    main()
