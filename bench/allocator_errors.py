"""The simulator's peak against the CPU allocator's (see allocator-errors.sh)."""
import json
import os
import pathlib
import subprocess
import sys
import tempfile

from benchmarks_md import replace_section

ROOT = pathlib.Path(__file__).resolve().parent.parent
REMAT = os.environ["REMAT_BIN"]
RUNNER = str(pathlib.Path(REMAT).parent / "remat-runner")
SOLVERS = "store-all,chen-sqrtn,chen-greedy,approx-dp,dtr,chain-dp"
DEFAULT = ["resnet18-64px", "resnet50-64px", "vit_b_16-32px", "gpt2_small-1x32"]


def run(args):
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({done.returncode}):\n{done.stderr}")
    return done.stdout


def validate(graph, budget):
    """remat validate's JSON rows for every solver at `budget` (least, or none)."""
    args = [REMAT, "validate", graph, "--solvers", SOLVERS, "--device", "cpu", "--threads", "1",
            "--iterations", "1", "--warmup", "0", "--no-check-grads", "--json"]
    if budget != "none":
        args += ["--budget", budget]
    return json.loads(run(args))["rows"]


def plain(graph):
    """The simulator's plain-run peak and the allocator's peak over the plain framework run (autograd)."""
    info = json.loads(run([REMAT, "info", graph, "--json"]))
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "baseline.json"
        run([RUNNER, graph, "--baseline", "--threads", "1", "--warmup", "0", "--iterations", "1", "-o", str(out)])
        measured = json.loads(out.read_text())
    return info["vanilla_peak_bytes"], measured["cpu_allocator"]["peak_bytes"]


def mib(b):
    return f"{b / 2**20:.1f}"


def main():
    names = sys.argv[1:] or DEFAULT
    lines = ["| graph | run | simulated peak (MiB) | allocator peak (MiB) | error |", "|---|---|---:|---:|---:|"]
    worst = {}
    for name in names:
        graph = name if name.endswith(".json") else str(ROOT / "datasets" / "small" / f"{name}.json")
        label = pathlib.Path(graph).stem
        simulated, allocated = plain(graph)
        error = 100.0 * (allocated - simulated) / simulated
        lines.append(f"| {label} | runner's plain run (autograd) | {mib(simulated)} | {mib(allocated)} | {error:+.2f}% |")
        errors = [error]
        for budget in ("none", "least"):
            for row in validate(graph, budget):
                e = row["allocator_error_percent"]
                errors.append(e)
                lines.append(f"| {label} | {row['label']}, budget {budget} | {mib(row['predicted_peak_bytes'])} | "
                             f"{mib(row['allocator_peak_bytes'])} | {e:+.2f}% |")
        worst[label] = max(errors, key=abs)
        print(f"{label}: worst {worst[label]:+.2f}%", file=sys.stderr)
    summary = ", ".join(f"{k} {v:+.2f}%" for k, v in worst.items())
    replace_section("ALLOCATOR-ERRORS", "\n".join(lines) + f"\n\nLargest error per graph: {summary}.")


if __name__ == "__main__":
    main()
