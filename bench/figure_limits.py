"""Times `remat render --figure graph` at the checkpoint drawing's size limits and beyond, and `remat
info` on deep chains (see bench/figure-limits.sh); rewrites two sections of BENCHMARKS.md.

Graphs come from bench/tools/make_shape.py: at the limits (5,000 boxes, 10,000 edges) one of each shape
that dot finds hardest among those tried (long chains, random DAGs, lattices, fans, complete DAGs), and
beyond them a chain that is drawn collapsed and graphs that are refused.
"""
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

from benchmarks_md import replace_section

ROOT = pathlib.Path(__file__).resolve().parent.parent
REMAT = pathlib.Path(os.environ.get("REMAT", ROOT / "build-release" / "bin" / "remat"))
SHAPE = ROOT / "bench" / "tools" / "make_shape.py"

AT_LIMIT = [("chain", 4999), ("random", 4999, 8), ("random", 4999, 200), ("lattice", 4999, 50), ("fan", 4999),
            ("dense", 140, 140)]
BEYOND = [("chain", 60000), ("random", 20000, 8), ("dense", 2000, 1000)]
INFO = [("chain", 100000), ("chain", 1000000)]


def make(tmp, shape):
    path = tmp / ("-".join(map(str, shape)) + ".json")
    if not path.exists():
        with open(path, "w") as out:
            subprocess.run([sys.executable, str(SHAPE)] + [str(a) for a in shape], check=True, stdout=out)
    return path


def timed(cmd):
    """(exit code, seconds, peak resident MiB) of one run, by /usr/bin/time."""
    r = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    seconds, kib = r.stderr.strip().splitlines()[-1].split()
    return r.returncode, float(seconds), int(kib) / 1024


def measure(cmd, repeats):
    runs = [timed(cmd) for _ in range(repeats)]
    return runs[0][0], statistics.median(r[1] for r in runs), max(r[2] for r in runs)


def counts(graph):
    info = json.loads(subprocess.run([str(REMAT), "info", str(graph), "--json", "--lower-set-limit", "1"],
                                     check=True, capture_output=True, text=True).stdout)
    return info["nodes"], info["edges"]


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        svg = tmp / "out.svg"
        rows = ["| graph (make_shape.py) | boxes | edges | exit | seconds | peak MiB |", "|---|---:|---:|---:|---:|---:|"]
        for shape in AT_LIMIT + BEYOND:
            graph = make(tmp, shape)
            nodes, edges = counts(graph)
            code, seconds, mib = measure([str(REMAT), "render", str(graph), "--figure", "graph", "-o", str(svg)],
                                         repeats)
            rows.append(f"| {' '.join(map(str, shape))} | {nodes:,} | {edges:,} | {code} | {seconds:.2f} | {mib:.0f} |")
        replace_section("FIGURE-LIMITS", "\n".join(rows))
        rows = ["| graph (make_shape.py) | ops | seconds | peak MiB |", "|---|---:|---:|---:|"]
        for shape in INFO:
            graph = make(tmp, shape)
            code, seconds, mib = measure([str(REMAT), "info", str(graph)], 1)
            assert code == 0
            rows.append(f"| {' '.join(map(str, shape))} | {shape[1]:,} | {seconds:.1f} | {mib:.0f} |")
        replace_section("INFO-DEEP", "\n".join(rows))


if __name__ == "__main__":
    main()
