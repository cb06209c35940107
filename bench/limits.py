"""How close to a time limit every solver stops (see bench/limits.sh); rewrites the LIMITS section of
BENCHMARKS.md.

Every registered solver runs `remat solve G -s S -b 2GB --time-limit 2 --json` on datasets/inception_v3.json
and on a generated 100,000-op chain (bench/tools/make_shape.py chain 100000), once each, under an outer
limit of 120 s. Reported: the status, the solver's own time (metrics.solve_seconds: solving, not reading
the graph), how far past the 2 s limit it answered, the whole process's wall time, and its peak resident
memory (GNU time's maximum RSS, which covers the child process that milp and lp-bound run CBC/CLP in).

Then DTR's own solve time (metrics.solve_seconds, median of 3) on every dataset and a generated 10,000-op
chain at 50, 60, 70 and 80% of the graph's plain-run peak (store-all's simulated peak), into the
DTR-TIMINGS section. `--print` prints the tables instead of writing them, `--dtr-only` runs only the
second (to time another build: REMAT=path/to/remat bench/limits.py --print --dtr-only).

`--commands` runs only the whole-command table (COMMAND-LIMITS section): `sweep --points 10` and
`max-batch -m 80GiB` with `--time-limit 2`, `compare --total-time-limit 2` and `render --figure pareto
--time-limit 2` on datasets/pspnet.json and datasets/inception_v3.json, every planning solver, each the
median wall time of 3 runs under an outer limit of 120 s (goal: within 1 s of the limit).
"""
import json
import os
import statistics
import pathlib
import subprocess
import sys
import tempfile

from benchmarks_md import replace_section

ROOT = pathlib.Path(__file__).resolve().parent.parent
REMAT = pathlib.Path(os.environ.get("REMAT", ROOT / "build-release" / "bin" / "remat"))
SHAPE = ROOT / "bench" / "tools" / "make_shape.py"
LIMIT = 2.0
OUTER = 120


def solvers():
    out = subprocess.run([str(REMAT), "solvers", "--json"], check=True, capture_output=True, text=True).stdout
    return [s["id"] for s in json.loads(out)]


def run(graph, solver):
    cmd = ["/usr/bin/time", "-f", "%e %M", "timeout", "-s", "KILL", str(OUTER), str(REMAT), "solve", str(graph),
           "-s", solver, "-b", "2GB", "--time-limit", str(LIMIT), "--json"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    wall, kib = r.stderr.strip().splitlines()[-1].split()
    try:
        out = json.loads(r.stdout)
        status, seconds = out["status"], out["metrics"]["solve_seconds"]
    except (json.JSONDecodeError, KeyError, TypeError):
        status, seconds = f"killed at {OUTER} s" if float(wall) >= OUTER else f"exit {r.returncode}", None
    return status, seconds, float(wall), int(kib) / 1024


def solve_json(graph, *args):
    r = subprocess.run([str(REMAT), "solve", str(graph), *args, "--json"], capture_output=True, text=True,
                       timeout=OUTER)
    return json.loads(r.stdout)


def dtr_rows(graphs):
    fractions = (0.5, 0.6, 0.7, 0.8)
    rows = ["| graph | " + " | ".join(f"{f:.0%}" for f in fractions) + " |", "|---" + "|---:" * len(fractions) + "|"]
    for name, path in graphs:
        peak = solve_json(path, "-s", "store-all")["metrics"]["simulated_peak_bytes"]
        cells = []
        for f in fractions:
            runs = [solve_json(path, "-s", "dtr", "-b", str(int(peak * f))) for _ in range(3)]
            seconds = statistics.median(r["metrics"]["solve_seconds"] for r in runs)
            status = runs[0]["status"]
            cells.append(f"{seconds:.3f}" + ("" if status == "feasible" else f" ({status})"))
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
        print(rows[-1], flush=True)
    return rows


PLANNERS = ("chen-sqrtn", "chen-greedy", "approx-dp", "exact-dp", "milp", "chain-dp", "dtr")


def wall_of(args):
    cmd = ["/usr/bin/time", "-f", "%e", "timeout", "-s", "KILL", str(OUTER), str(REMAT), *args]
    r = subprocess.run(cmd, capture_output=True, text=True)
    wall = float(r.stderr.strip().splitlines()[-1])
    try:
        out = json.loads(r.stdout)
        status = out.get("status", f"exit {r.returncode}")
        if "rows" in out:  # compare: how many solvers the total left unrun
            unrun = sum(row["message"].startswith("not run") for row in out["rows"])
            status = f"{len(out['rows']) - unrun} of {len(out['rows'])} solvers ran"
        elif "fronts" in out:
            status = f"{len(out['fronts'])} fronts drawn"
    except json.JSONDecodeError:
        status = f"killed at {OUTER} s" if wall >= OUTER else f"exit {r.returncode}"
    return status, wall


def command_rows():
    rows = [f"| command | graph | solver | status | wall s (median of 3) | past the {LIMIT:g} s limit |",
            "|---|---|---|---|---:|---:|"]
    limit = str(LIMIT)
    with tempfile.TemporaryDirectory() as tmp:
        figure = str(pathlib.Path(tmp) / "pareto.svg")
        for graph in ("pspnet.json", "inception_v3.json"):
            path = str(ROOT / "datasets" / graph)
            commands = []
            for solver in PLANNERS:
                commands.append(("sweep", solver, ["sweep", path, "-s", solver, "--points", "10",
                                                   "--time-limit", limit, "--json"]))
                commands.append(("max-batch", solver, ["max-batch", path, "-s", solver, "-m", "80GiB",
                                                       "--time-limit", limit, "--json"]))
            commands.append(("compare --total-time-limit", "all", ["compare", path, "-b", "2GiB",
                                                                   "--total-time-limit", limit, "--json"]))
            commands.append(("render --figure pareto", "default fronts", ["render", path, "--figure", "pareto",
                                                                          "-o", figure, "--time-limit", limit,
                                                                          "--json"]))
            for command, solver, args in commands:
                runs = [wall_of(args) for _ in range(3)]
                wall = statistics.median(w for _, w in runs)
                status = runs[0][0]
                rows.append(f"| {command} | {graph} | {solver} | {status} | {wall:.2f} | "
                            f"{max(0.0, wall - LIMIT):.2f} |")
                print(rows[-1], flush=True)
    return rows


def main():
    printing = "--print" in sys.argv[1:]
    dtr_only = "--dtr-only" in sys.argv[1:]
    if "--commands" in sys.argv[1:]:
        rows = command_rows()
        if printing:
            print("\n".join(rows))
        else:
            replace_section("COMMAND-LIMITS", "\n".join(rows))
        return
    with tempfile.TemporaryDirectory() as tmp:
        chain = pathlib.Path(tmp) / "chain-100000.json"
        with open(chain, "w") as out:
            subprocess.run([sys.executable, str(SHAPE), "chain", "100000"], check=True, stdout=out)
        graphs = [("inception_v3.json", ROOT / "datasets" / "inception_v3.json"), ("chain 100000", chain)]
        rows = [f"| graph | solver | status | solve s | past the {LIMIT:g} s limit | wall s | peak MiB |",
                "|---|---|---|---:|---:|---:|---:|"]
        for name, path in [] if dtr_only else graphs:
            for solver in solvers():
                status, seconds, wall, mib = run(path, solver)
                solve = f"{seconds:.2f}" if seconds is not None else "-"
                past = f"{max(0.0, seconds - LIMIT):.2f}" if seconds is not None else "-"
                rows.append(f"| {name} | {solver} | {status} | {solve} | {past} | {wall:.2f} | {mib:.0f} |")
                print(rows[-1], flush=True)
        chain10k = pathlib.Path(tmp) / "chain-10000.json"
        with open(chain10k, "w") as out:
            subprocess.run([sys.executable, str(SHAPE), "chain", "10000"], check=True, stdout=out)
        datasets = sorted(p for p in (ROOT / "datasets").glob("*.json") if p.name != "manifest.json")
        dtr = dtr_rows([(p.name, p) for p in datasets] + [("chain 10000", chain10k)])
        if printing:
            print("\n".join(rows + [""] + dtr))
        else:
            if not dtr_only:
                replace_section("LIMITS", "\n".join(rows))
            replace_section("DTR-TIMINGS", "\n".join(dtr))


if __name__ == "__main__":
    main()
