#!/usr/bin/env python3
"""Least budgets: on every dataset (and the paper's graphs when ../shared/corpus exists), each planner's
least budget (`remat min-budget --json`, in the simulator's memory: the DPs' in their model, which is
never below their plan's simulated peak), whether dp-evict's is at or below DTR's, and at DTR's least
budget the overhead of DTR's plan and of dp-evict's (`remat solve -b`, simulated). Writes the table
between the LEAST-BUDGETS markers of BENCHMARKS.md, or prints it with --print.

   least_budgets.py [--print]      (run through bench/least-budgets.sh; REMAT=path to time another build)
"""
import json
import os
import pathlib
import subprocess
import sys

from benchmarks_md import replace_section

ROOT = pathlib.Path(__file__).resolve().parent.parent
REMAT = os.environ.get("REMAT", str(ROOT / "build-release" / "bin" / "remat"))
SOLVERS = ("exact-dp", "approx-dp", "dtr", "chain-dp", "dp-evict", "fastsa")
LIMIT = 300


def graphs():
    out = sorted(p for p in (ROOT / "datasets").glob("*.json") if p.name != "manifest.json")
    corpus = ROOT.parent / "shared" / "corpus" / "paper-graphs"
    if corpus.is_dir():
        out += sorted(corpus.glob("cg_*.txt"))
    return out


def least(path, solver):
    r = subprocess.run([REMAT, "min-budget", str(path), "-s", solver, "--time-limit", str(LIMIT), "--json"],
                       capture_output=True, text=True, timeout=LIMIT + 60)
    j = json.loads(r.stdout)
    return j["min_budget_bytes"], j["status"], j["solve_seconds"]


def overhead_at(path, solver, budget):
    r = subprocess.run([REMAT, "solve", str(path), "-s", solver, "-b", str(budget), "--time-limit", str(LIMIT),
                        "--json"], capture_output=True, text=True, timeout=LIMIT + 60)
    j = json.loads(r.stdout)
    m = j.get("metrics") or {}
    fits = j["status"] in ("optimal", "feasible") and m.get("simulated_peak_bytes", budget + 1) <= budget
    return m.get("overhead") if fits else None


def mib(b):
    return f"{b / 2**20:.1f}" if b is not None else "-"


def main():
    rows = ["| graph | plain peak MiB | " + " | ".join(SOLVERS) + " | dp-evict at or below dtr |"
            " overhead at dtr's least: dtr / dp-evict |",
            "|---|---:|" + "---:|" * len(SOLVERS) + "---|---:|"]
    for path in graphs():
        info = json.loads(subprocess.run([REMAT, "info", str(path), "--json", "--lower-set-limit", "1"],
                                         capture_output=True, text=True, check=True).stdout)
        found = {s: least(path, s) for s in SOLVERS}
        cells = []
        for s in SOLVERS:
            b, status, seconds = found[s]
            cells.append(mib(b) if b is not None else status)
        ev, dtr = found["dp-evict"][0], found["dtr"][0]
        verdict = "-" if ev is None or dtr is None else ("yes" if ev <= dtr else f"no ({ev / dtr:.2f}x)")
        at = "-"
        if dtr is not None:
            o_dtr, o_ev = overhead_at(path, "dtr", dtr), overhead_at(path, "dp-evict", dtr)
            at = f"{o_dtr if o_dtr is not None else 'no plan'} / {o_ev if o_ev is not None else 'no plan'}"
        rows.append(f"| {path.stem} | {mib(info['vanilla_peak_bytes'])} | " + " | ".join(cells) +
                    f" | {verdict} | {at} |")
        print(rows[-1], file=sys.stderr, flush=True)
    if "--print" in sys.argv[1:]:
        print("\n".join(rows))
    else:
        replace_section("LEAST-BUDGETS", "\n".join(rows))


if __name__ == "__main__":
    main()
