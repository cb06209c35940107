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


def profiled(graph, tmp):
    """The graph with its times and workspace measured on this CPU (`remat profile`)."""
    out = str(pathlib.Path(tmp) / (pathlib.Path(graph).stem + ".profiled.json"))
    run([REMAT, "profile", graph, "--device", "cpu", "--threads", "1", "--warmup", "0", "--iterations", "1",
         "-o", out])
    return out


def main():
    names = sys.argv[1:] or DEFAULT
    lines = ["| graph | run | as imported: simulated (MiB) | allocator (MiB) | error | "
             "profiled: simulated (MiB) | allocator (MiB) | error |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    worst = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            graph = name if name.endswith(".json") else str(ROOT / "datasets" / "small" / f"{name}.json")
            label = pathlib.Path(graph).stem
            measured = profiled(graph, tmp)
            simulated, allocated = plain(graph)
            simulatedProfiled, allocatedAgain = plain(measured)
            e1 = 100.0 * (allocated - simulated) / simulated
            e2 = 100.0 * (allocatedAgain - simulatedProfiled) / simulatedProfiled
            lines.append(f"| {label} | runner's plain run (autograd) | {mib(simulated)} | {mib(allocated)} | {e1:+.2f}% | "
                         f"{mib(simulatedProfiled)} | {mib(allocatedAgain)} | {e2:+.2f}% |")
            errors = [(e1, e2)]
            for budget in ("none", "least"):
                imported = validate(graph, budget)
                again = {row["label"]: row for row in validate(measured, budget)}
                for row in imported:
                    other = again.get(row["label"])
                    a = row["allocator_error_percent"]
                    b = other["allocator_error_percent"] if other else None
                    errors.append((a, b if b is not None else a))
                    right = (f"{mib(other['predicted_peak_bytes'])} | {mib(other['allocator_peak_bytes'])} | {b:+.2f}%"
                             if other else "- | - | -")
                    lines.append(f"| {label} | {row['label']}, budget {budget} | {mib(row['predicted_peak_bytes'])} | "
                                 f"{mib(row['allocator_peak_bytes'])} | {a:+.2f}% | {right} |")
            worst[label] = (max((e[0] for e in errors), key=abs), max((e[1] for e in errors[1:]), key=abs))
            print(f"{label}: worst {worst[label][0]:+.2f}% as imported, {worst[label][1]:+.2f}% profiled "
                  "(plans)", file=sys.stderr)
    summary = ", ".join(f"{k} {v[0]:+.2f}% as imported and {v[1]:+.2f}% profiled" for k, v in worst.items())
    replace_section("ALLOCATOR-ERRORS", "\n".join(lines) +
                    f"\n\nLargest error per graph (as imported: every run; profiled: the plans): {summary}.")


if __name__ == "__main__":
    main()
