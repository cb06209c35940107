"""Median wall time of `remat render` per figure and graph (see bench/figure-timings.sh).

Each graph is solved once by approx-dp at its least feasible budget (plan written with `remat solve
-o`), so that the render times are drawing alone: simulating the plan, building the figure and
writing it. The pareto figure's time includes its solvers' sweeps, which is what drawing it costs.
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
FIGURES = ["graph", "timeline", "schedule", "layout", "pareto"]


def median_seconds(cmd, repeats):
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        deep = tmp / "deep-resnet-1000.json"
        deep.write_text(subprocess.run([sys.executable, str(ROOT / "bench/tools/make_deep_resnet.py"), "1000"],
                                       check=True, capture_output=True, text=True).stdout)
        graphs = [ROOT / "datasets" / f for f in ("resnet152.json", "densenet161.json", "gpt2_small.json")] + [deep]
        rows = []
        for g in graphs:
            plan = tmp / (g.stem + ".plan.json")
            least = subprocess.run([str(REMAT), "min-budget", str(g), "-s", "approx-dp", "--json"], check=True,
                                   capture_output=True, text=True).stdout
            budget = json.loads(least)["min_budget_bytes"]
            subprocess.run([str(REMAT), "solve", str(g), "-s", "approx-dp", "--budget", str(budget), "-o", str(plan)],
                           check=True, stdout=subprocess.DEVNULL)
            ops = json.loads(subprocess.run([str(REMAT), "info", str(g), "--json"], check=True, capture_output=True,
                                            text=True).stdout)["op_nodes"]
            cells = []
            for fig in FIGURES:
                out = tmp / f"{g.stem}-{fig}.svg"
                cmd = [str(REMAT), "render", str(g), "--figure", fig, "-o", str(out)]
                cmd += ["--solvers", "approx-dp,chen-greedy"] if fig == "pareto" else ["--plan", str(plan)]
                cells.append(f"{median_seconds(cmd, repeats):.2f}")
            rows.append(f"| {g.stem} | {ops} | " + " | ".join(cells) + " |")
    header = (f"**remat render, SVG, approx-dp's plan at its least budget** (seconds, median of {repeats}; "
              "pareto: the fronts of approx-dp and chen-greedy)\n\n"
              "| graph | ops | " + " | ".join(FIGURES) + " |\n|---|---:|" + "---:|" * len(FIGURES))
    text = header + "\n" + "\n".join(rows)
    print(text)
    replace_section("FIGURE-TIMINGS", text)


if __name__ == "__main__":
    main()
