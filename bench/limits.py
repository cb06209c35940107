"""How close to a time limit every solver stops (see bench/limits.sh); rewrites the LIMITS section of
BENCHMARKS.md.

Every registered solver runs `remat solve G -s S -b 2GB --time-limit 2 --json` on datasets/inception_v3.json
and on a generated 100,000-op chain (bench/tools/make_shape.py chain 100000), once each, under an outer
limit of 120 s. Reported: the status, the solver's own time (metrics.solve_seconds: solving, not reading
the graph), how far past the 2 s limit it answered, the whole process's wall time, and its peak resident
memory (GNU time's maximum RSS, which covers the child process that milp and lp-bound run CBC/CLP in).
"""
import json
import os
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


def main():
    with tempfile.TemporaryDirectory() as tmp:
        chain = pathlib.Path(tmp) / "chain-100000.json"
        with open(chain, "w") as out:
            subprocess.run([sys.executable, str(SHAPE), "chain", "100000"], check=True, stdout=out)
        graphs = [("inception_v3.json", ROOT / "datasets" / "inception_v3.json"), ("chain 100000", chain)]
        rows = [f"| graph | solver | status | solve s | past the {LIMIT:g} s limit | wall s | peak MiB |",
                "|---|---|---|---:|---:|---:|---:|"]
        for name, path in graphs:
            for solver in solvers():
                status, seconds, wall, mib = run(path, solver)
                solve = f"{seconds:.2f}" if seconds is not None else "-"
                past = f"{max(0.0, seconds - LIMIT):.2f}" if seconds is not None else "-"
                rows.append(f"| {name} | {solver} | {status} | {solve} | {past} | {wall:.2f} | {mib:.0f} |")
                print(rows[-1], flush=True)
        replace_section("LIMITS", "\n".join(rows))


if __name__ == "__main__":
    main()
