#!/usr/bin/env python3
"""Median solve times of exact-dp and approx-dp (time-centric) and of min-budget on the paper's graphs at
budgets from the least feasible one (x1) up to unconstrained, of `remat sweep` (the whole front in one
run) on the paper's graphs, and of approx-dp on a generated 10,000-node deep ResNet; writes the tables
into BENCHMARKS.md between the DP-TIMINGS markers.

   dp_timings.py [REPEATS]      (run through bench/dp-timings.sh)

Times are wall-clock seconds of the whole `remat` process (reading the graph, solving, simulating the
plan, writing JSON), median of REPEATS runs, on whatever machine runs the script.
"""
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

from benchmarks_md import replace_section

ROOT = pathlib.Path(__file__).resolve().parent.parent
REMAT = ROOT / "build-release" / "bin" / "remat"
CORPUS = ROOT.parent / "shared" / "corpus" / "paper-graphs"
GRAPHS = ["cg_vgg19.txt", "cg_unet.txt", "cg_resnet50.txt", "cg_resnet152.txt", "cg_densenet.txt", "cg_googlenet.txt",
          "cg_pspnet.txt"]
FACTORS = [1.0, 1.1, 1.5, 2.0, 4.0, 8.0, 16.0, 32.0, None]  # multiples of the solver's least budget; None = unconstrained
REPEATS = int(sys.argv[1]) if len(sys.argv) > 1 else 5


def timed(*args, repeats=None):
    runs = []
    for _ in range(repeats or REPEATS):
        start = time.perf_counter()
        out = subprocess.run([str(REMAT), *args, "--json"], capture_output=True, text=True)
        runs.append(time.perf_counter() - start)
        if out.returncode != 0:
            sys.exit(f"remat {' '.join(args)} exited {out.returncode}: {out.stderr}")
    return statistics.median(runs), json.loads(out.stdout)


def row(path, solver, repeats=None):
    _, least = timed("min-budget", path, "--solver", solver, repeats=1)
    cells = []
    for f in FACTORS:
        budget = [] if f is None else ["--budget", str(int(least["min_budget_bytes"] * f))]
        seconds, _ = timed("solve", path, "--solver", solver, *budget, repeats=repeats)
        cells.append(f"{seconds:.2f}")
    return cells


def main():
    header = "| graph | " + " | ".join("unconstrained" if f is None else f"x{f}" for f in FACTORS) + " | min-budget |"
    sep = "|---|" + "---:|" * (len(FACTORS) + 1)
    tables = []
    for solver in ("exact-dp", "approx-dp"):
        lines = [f"**{solver}** (seconds, median of {REPEATS})", "", header, sep]
        for g in GRAPHS:
            path = str(CORPUS / g)
            mb, _ = timed("min-budget", path, "--solver", solver)
            lines.append(f"| {g} | " + " | ".join(row(path, solver)) + f" | {mb:.2f} |")
        tables.append("\n".join(lines))
    lines = [f"**sweep: the whole budget/overhead front in one run** (seconds, median of {REPEATS}; points on the "
             "front)", "", "| graph | exact-dp | points | approx-dp | points |", "|---|---:|---:|---:|---:|"]
    for g in GRAPHS:
        path = str(CORPUS / g)
        cells = []
        for solver in ("exact-dp", "approx-dp"):
            seconds, out = timed("sweep", path, "--solver", solver)
            message = out.get("message", "")
            if "exact solves" in message:
                sys.exit(f"sweep on {g} fell back to a grid: {message}")
            cells += [f"{seconds:.2f}", message.split()[3] if message.startswith("the front has") else "?"]
        lines.append(f"| {g} | " + " | ".join(cells) + " |")
    tables.append("\n".join(lines))
    deep_repeats = min(REPEATS, 3)  # the large graph is slow at middle budgets; three runs give its median
    with tempfile.TemporaryDirectory() as tmp:
        deep = pathlib.Path(tmp) / "deep.json"
        with deep.open("w") as out:
            subprocess.run(["/usr/bin/python3", str(ROOT / "bench/tools/make_deep_resnet.py"), "10000"], stdout=out,
                           check=True)
        lines = [f"**approx-dp on a generated 10,000-op deep ResNet** (bench/tools/make_deep_resnet.py 10000; "
                 f"seconds, median of {deep_repeats})", "", header, sep,
                 "| deep-resnet-10000 | " + " | ".join(row(str(deep), "approx-dp", deep_repeats)) +
                 f" | {timed('min-budget', str(deep), '--solver', 'approx-dp', repeats=deep_repeats)[0]:.2f} |"]
        tables.append("\n".join(lines))
    text = "\n\n".join(tables)
    replace_section("DP-TIMINGS", text)
    print(text)


if __name__ == "__main__":
    main()
