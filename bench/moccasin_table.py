#!/usr/bin/env python3
"""Moccasin's and FastSA's graphs planned as given, beside the published figures: Moccasin's random
layered graphs RL1-RL4 (general DAGs, the whole computation) and Checkmate's FCN8 and ResNet-50 training
graphs read with --as-given (their backward nodes are operations, as Checkmate, Moccasin and FastSA plan
them), at 90% and 80% of the plain run's peak (the file's graph.order where it has one, as Moccasin computes its
initial peak; liveness), rounded up as Moccasin does. Each cell: cost increase in %
of the plain run's total time / peak in % of the plain peak / solve seconds (median of REPEATS runs of
the solver's own time, `remat solve --json`), for fastsa and dp-evict (seed 0; dp-evict, Remat's own
planner, starts there from the forward orders and takes fastsa's plan as the one to beat), with the best
published figure of Checkmate's MILP (Gurobi), Moccasin (CP-SAT) and FastSA (FastSA's Table 1,
../shared/corpus/README.md).
Beside them Remat's own Checkmate MILP on the same graphs as given (`milp`, CBC, one run with
`--time-limit MILP_LIMIT`, 120 s unless the environment says otherwise: its incumbent where it has one)
and its LP relaxation (`lp-bound`: a lower bound on the cost of every plan of Checkmate's formulation, the
file's order of first computations, not on plans that reorder). For FCN8 and ResNet-50 the training
model's exact-dp and dp-evict (the backward derived from the file, not as given) are shown too. Writes
the MOCCASIN-TABLE section of BENCHMARKS.md; run through bench/moccasin-table.sh.
"""
import json
import os
import pathlib
import statistics
import subprocess
import sys

from benchmarks_md import replace_section

ROOT = pathlib.Path(__file__).resolve().parent.parent
REMAT = os.environ.get("REMAT_BIN", str(ROOT / "build-release" / "bin" / "remat"))
CORPUS = ROOT.parent / "shared" / "corpus" / "checkmate-graphs"
REPEATS = int(sys.argv[1]) if len(sys.argv) > 1 else 3
MILP_LIMIT = int(os.environ.get("MILP_LIMIT", "120"))

# (label, file, extra reading options, budgets in %, published {budget: {method: (cost %, memory %, s)}})
CELLS = [
    ("RL1", "random_layered_n100_w0.27_nlv0.75_ed0.2_scd0.14.json", [], {
        90: {"Checkmate": (0.8, 89.2, 18.5), "Moccasin": (0.8, 88.1, 9.3), "FastSA": (0.0, 79.4, 11.7)},
        80: {"Checkmate": (2.3, 79.5, 22.7), "Moccasin": (2.3, 79.5, 9.5), "FastSA": (0.3, 79.4, 11.5)}}),
    ("RL2", "random_layered_n250_w0.43_nlv0.75_ed0.2_scd0.14.json", [], {
        90: {"Checkmate": (0.9, 90.0, 685.1), "Moccasin": (0.9, 89.8, 55.0), "FastSA": (0.0, 77.3, 15.1)},
        80: {"Checkmate": None, "Moccasin": (4.9, 80.0, 639.5), "FastSA": (0.0, 72.2, 15.0)}}),
    ("RL3", "random_layered_n500_w0.36_nlv0.75_ed0.2_scd0.14.json", [], {
        90: {"Checkmate": None, "Moccasin": (0.7, 90.0, 1803.3), "FastSA": (0.03, 87.4, 21.0)},
        80: {"Checkmate": None, "Moccasin": (3.4, 80.0, 1804.8), "FastSA": (2.3, 78.6, 20.9)}}),
    ("RL4", "random_layered_n1000_w0.31_nlv0.75_ed0.2_scd0.14.json", [], {
        90: {"Checkmate": None, "Moccasin": (0.7, 90.0, 3612.9), "FastSA": (0.4, 87.5, 36.0)},
        80: {"Checkmate": None, "Moccasin": (3.4, 80.0, 3611.8), "FastSA": (2.5, 78.4, 36.3)}}),
    ("CM1 FCN8", "fcn_8_vgg_32_416x608x3_train_nx.json", ["--as-given"], {
        90: {"Checkmate": (0.0, 88.4, 6.3), "Moccasin": (0.0, 88.4, 3.1), "FastSA": (0.1, 75.3, 9.4)},
        80: {"Checkmate": (0.1, 76.9, 5.6), "Moccasin": (0.1, 78.9, 3.1), "FastSA": (0.1, 75.1, 9.7)}}),
    ("CM2 ResNet-50", "ResNet50_256_224x224x3_train_nx.json", ["--as-given"], {
        90: {"Checkmate": (0.1, 89.0, 434.1), "Moccasin": (0.2, 89.9, 65.2), "FastSA": (0.2, 86.2, 10.9)}}),
]


def remat(*args):
    out = subprocess.run([REMAT, *args, "--json"], capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"remat {' '.join(args)} exited {out.returncode}: {out.stderr}")
    return json.loads(out.stdout)


def plan(path, options, solver, budget, repeats=None, extra=()):
    runs = [remat("solve", path, *options, "--solver", solver, "--budget", str(budget), *extra)
            for _ in range(repeats or REPEATS)]
    j = runs[-1]
    return j, statistics.median(r["metrics"]["solve_seconds"] for r in runs)


def milp_cells(path, options, budget, plain):
    """The MILP's cell (its incumbent, `TL` after it where not proven optimal) and lp-bound's (the
    bound's cost in %), one run each within MILP_LIMIT seconds."""
    limit = ("--time-limit", str(MILP_LIMIT))
    total = plain["metrics"]["total_time"]
    j, seconds = plan(path, options, "milp", budget, 1, limit)
    cost, text = cell(j, seconds, plain)
    if cost is not None and j["status"] != "optimal":
        text += " (TL)"
    elif cost is None:
        text = "TLE" if j["status"] == "time-limit" else j["status"]
    b, bs = plan(path, options, "lp-bound", budget, 1, limit)
    if b["status"] == "bound":
        bound = f">= {100.0 * b['overhead_lower_bound'] / total:.2f} / {bs:.1f}"
    else:
        bound = "TLE" if b["status"] == "time-limit" else b["status"]
    return text, bound


def cell(j, seconds, plain):
    if not j.get("fits_budget", j["status"] in ("optimal", "feasible")) or j["metrics"]["overhead"] is None:
        return None, f"{j['status']}"
    m = j["metrics"]
    cost = 100.0 * m["overhead"] / plain["metrics"]["total_time"]
    memory = 100.0 * m["simulated_peak_bytes"] / plain["metrics"]["simulated_peak_bytes"]
    return cost, f"{cost:.2f} / {memory:.1f} / {seconds:.2f}"


def main():
    if not CORPUS.is_dir():
        sys.exit(f"{CORPUS} is missing: the table needs the shared corpus")
    lines = ["| graph (ops) | B | Checkmate MILP | Moccasin | FastSA (published) | fastsa (Remat, as given) "
             "| dp-evict (Remat, as given) | dp-evict at or below the best published cost "
             "| milp (Remat's CBC, as given) | lp-bound (cost % / s) "
             "| exact-dp (training model) | dp-evict (training model) |",
             "|---|---:|---|---|---|---|---|---|---|---|---|---|"]
    below = 0
    below_sa = 0
    cells = 0
    for label, name, options, published in CELLS:
        path = str(CORPUS / name)
        plain = remat("solve", path, *options, "--solver", "store-all")
        ops = remat("info", path, *options)["op_nodes"]
        training = None
        if options:
            training = remat("solve", path, "--solver", "store-all")
        for percent, pub in published.items():
            # Moccasin's B = ceil(initial peak * fraction) (main.py), over the file's graph.order
            budget = -(-plain["metrics"]["simulated_peak_bytes"] * percent // 100)
            j, seconds = plan(path, options, "fastsa", budget)
            sa_cost, text = cell(j, seconds, plain)
            e, e_seconds = plan(path, options, "dp-evict", budget)
            cost, evict_text = cell(e, e_seconds, plain)
            costs = [v[0] for v in pub.values() if v is not None]
            best = min(costs)
            ok = cost is not None and round(cost, 1) <= best
            cells += 1
            below += ok
            below_sa += sa_cost is not None and round(sa_cost, 1) <= best
            verdict = "yes" if ok else f"no (best published {best})"
            fmt = lambda v: "TLE" if v is None else f"{v[0]} / {v[1]} / {v[2]}"
            milp, bound = milp_cells(path, options, budget, plain)
            own = ["", ""]
            if training:
                tb = training["metrics"]["simulated_peak_bytes"] * percent // 100
                for k, solver in enumerate(("exact-dp", "dp-evict")):
                    tj, ts = plan(path, [], solver, tb)
                    own[k] = cell(tj, ts, training)[1]
            lines.append(f"| {label} ({ops}) | {percent}% | {fmt(pub['Checkmate'])} | {fmt(pub['Moccasin'])} | "
                         f"{fmt(pub['FastSA'])} | {text} | {evict_text} | {verdict} | {milp} | {bound} | {own[0]} | "
                         f"{own[1]} |")
            print(lines[-1], file=sys.stderr, flush=True)
    body = "\n".join(lines)
    body += (f"\n\ndp-evict at or below the best published cost (to the published one decimal) in {below} of "
             f"{cells} cells, fastsa in {below_sa}.")
    replace_section("MOCCASIN-TABLE", body)


if __name__ == "__main__":
    main()
