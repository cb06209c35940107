#!/usr/bin/env python3
"""Solve times of `milp` (the Checkmate MILP on COIN-OR CBC) on Checkmate's own training graphs, next to
`lp-bound` (its LP relaxation); writes the table into BENCHMARKS.md between the MILP-TIMINGS markers.

   milp_timings.py [--remat PATH] [--repeats N] [--cap SECONDS] [--print]   (run through bench/milp-timings.sh)

Budgets sit between the graph's memory lower bound L (the largest single step, `remat info`) and
store-all's simulated peak P: L + f·(P - L) for f in FRACTIONS. Each cell runs `remat solve -s milp
--time-limit CAP` REPEATS times and reports the median of the solver's own time (metrics.solve_seconds:
building the MILP, CBC, decoding; not reading the graph); a run that reaches the cap is not repeated.
CBC checks its time limit only once branch and bound runs: its preprocessing LP on a large graph can
outlast it, so each run is killed at KILL_FACTOR times the cap (and the graph's larger budgets skipped).
"""
import argparse
import json
import pathlib
import statistics
import subprocess
import sys

from benchmarks_md import replace_section

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus" / "checkmate-graphs"
GRAPHS = ["VGG16_256_224x224x3", "VGG19_256_224x224x3", "MobileNet_512_224x224x3", "ResNet50_256_224x224x3",
          "fcn_8_vgg_32_416x608x3", "segnet_32_416x608x3", "vgg_unet_32_416x608x3"]
FRACTIONS = [0.25, 0.5, 0.75]
KILL_FACTOR = 2


def remat(exe, *args, ok=(0, 1), timeout=None):
    out = subprocess.run([exe, *args, "--json"], capture_output=True, text=True, timeout=timeout)
    if out.returncode not in ok:
        sys.exit(f"remat {' '.join(args)} exited {out.returncode}: {out.stderr}")
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--remat", default=str(ROOT / "build-release" / "bin" / "remat"))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cap", type=float, default=60.0)
    ap.add_argument("--print", action="store_true", help="print the table instead of writing BENCHMARKS.md")
    o = ap.parse_args()
    lines = [f"**milp** (CBC, time limit {o.cap:g} s; seconds: median of {o.repeats} runs, one run where the "
             "limit was reached; overhead and bounds in the graph's ticks)", "",
             "| graph | ops | budget (f) | % of peak | milp status | milp s | overhead | milp bound | LP bound | LP s |",
             "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|"]
    for name in GRAPHS:
        path = str(CORPUS / f"{name}_train_nx.json")
        info = remat(o.remat, "info", path, ok=(0,))
        low, peak = info["memory_lower_bound_bytes"], info["vanilla_peak_bytes"]
        killed = False
        for f in FRACTIONS:
            budget = int(low + f * (peak - low))
            head = f"| {name.rsplit('_', 2)[0]} | {info['op_nodes']} | {f:g} | {100.0 * budget / peak:.1f} | "
            if killed:
                lines.append(head + "not run (killed at a smaller budget) | | | | | |")
                continue
            runs, answer = [], None
            for _ in range(o.repeats):
                try:
                    answer = remat(o.remat, "solve", path, "--solver", "milp", "--budget", str(budget), "--time-limit",
                                   str(o.cap), timeout=KILL_FACTOR * o.cap)
                except subprocess.TimeoutExpired:
                    killed = True
                    break
                runs.append(answer["metrics"]["solve_seconds"])
                if answer["status"] != "optimal" and answer["status"] != "infeasible":
                    break
            if killed:
                lines.append(head + f"killed after {KILL_FACTOR * o.cap:g} s (CBC preprocessing) | | | | | |")
                print(lines[-1], file=sys.stderr, flush=True)
                continue
            lp = remat(o.remat, "solve", path, "--solver", "lp-bound", "--budget", str(budget), "--time-limit",
                       str(o.cap))
            overhead = answer["metrics"]["overhead"]
            bound = answer.get("overhead_lower_bound")
            cell = lambda v: "-" if v is None else str(v)
            lp_bound = lp.get("overhead_lower_bound") if lp["status"] == "bound" else None
            lines.append(head + f"{answer['status']} | {statistics.median(runs):.2f} | {cell(overhead)} | {cell(bound)} | "
                         f"{cell(lp_bound) if lp['status'] != 'infeasible' else 'infeasible'} | "
                         f"{lp['metrics']['solve_seconds']:.2f} |")
            print(lines[-1], file=sys.stderr, flush=True)
    body = "\n".join(lines)
    if o.print:
        print(body)
    else:
        replace_section("MILP-TIMINGS", body)


if __name__ == "__main__":
    main()
