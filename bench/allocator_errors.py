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
# The reduced networks of datasets/small; torchvision networks the repository does not ship, the first
# three of which were profiled while the libtorch-cpu workspace rules were written, the last three not.
DEFAULT = ["resnet18-64px", "resnet50-64px", "vit_b_16-32px", "gpt2_small-1x32",
           "tv:squeezenet1_0", "tv:mnasnet0_5", "tv:regnet_y_400mf",
           "tv:resnet34", "tv:mnasnet1_0", "tv:regnet_x_800mf"]


def run(args):
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({done.returncode}):\n{done.stderr}")
    return done.stdout


def validate(graph, budget, workspace="file"):
    """remat validate's JSON rows for every solver at `budget` (least, or none)."""
    args = [REMAT, "validate", graph, "--workspace", workspace, "--solvers", SOLVERS, "--device", "cpu",
            "--threads", "1", "--iterations", "1", "--warmup", "0", "--no-check-grads", "--json"]
    if budget != "none":
        args += ["--budget", budget]
    return json.loads(run(args))["rows"]


def plain(graph, workspace="file"):
    """The simulator's plain-run peak and the allocator's peak over the plain framework run (autograd)."""
    info = json.loads(run([REMAT, "info", graph, "--workspace", workspace, "--json"]))
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


def torchvision(name, tmp):
    """torchvision's `name` (no weights) at batch 2 and 64x64, exported and converted as datasets/ are."""
    onnx = pathlib.Path(tmp) / f"{name}.onnx"
    graph = pathlib.Path(tmp) / f"{name}-2x64px.json"
    run(["/usr/bin/python3", str(ROOT / "runtime" / "trace_step.py"), "--torchvision", name, "--batch", "2",
         "--size", "64", "--onnx", str(onnx), "-o", str(pathlib.Path(tmp) / f"{name}.trace.json")])
    run([REMAT, "convert", str(onnx), str(graph)])
    return str(graph)


def cell(row):
    if row is None:
        return "- | -"
    return (f"{mib(row['predicted_peak_bytes'])} / {mib(row['allocator_peak_bytes'])} | "
            f"{row['allocator_error_percent']:+.2f}%")


def main():
    names = sys.argv[1:] or DEFAULT
    lines = ["| graph | run | as imported: simulated / allocator (MiB) | error | "
             "libtorch-cpu rules: simulated / allocator (MiB) | error | "
             "profiled: simulated / allocator (MiB) | error |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    worst = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            if name.startswith("tv:"):
                graph = torchvision(name[3:], tmp)
            else:
                graph = name if name.endswith(".json") else str(ROOT / "datasets" / "small" / f"{name}.json")
            label = pathlib.Path(graph).stem
            measured = profiled(graph, tmp)
            runs = {"imported": (graph, "file"), "rules": (graph, "libtorch-cpu"), "profiled": (measured, "file")}
            cells, errors = [], {k: [] for k in runs}
            for key, (path, workspace) in runs.items():
                simulated, allocated = plain(path, workspace)
                error = 100.0 * (allocated - simulated) / simulated
                cells.append(f"{mib(simulated)} / {mib(allocated)} | {error:+.2f}%")
            lines.append(f"| {label} | runner's plain run (autograd) | " + " | ".join(cells) + " |")
            for budget in ("none", "least"):
                rows = {k: {row["label"]: row for row in validate(p, budget, w)} for k, (p, w) in runs.items()}
                for plan in rows["imported"]:
                    found = [rows[k].get(plan) for k in runs]
                    for k, row in zip(runs, found):
                        if row is not None:
                            errors[k].append(row["allocator_error_percent"])
                    lines.append(f"| {label} | {plan}, budget {budget} | " + " | ".join(cell(r) for r in found) + " |")
            worst[label] = {k: max(v, key=abs) for k, v in errors.items()}
            print(f"{label}: worst plan error {worst[label]}", file=sys.stderr)
    summary = "; ".join(f"{k}: {v['imported']:+.2f}% as imported, {v['rules']:+.2f}% with the rules, "
                        f"{v['profiled']:+.2f}% profiled" for k, v in worst.items())
    body = "\n".join(lines) + f"\n\nLargest error of a plan per graph: {summary}."
    if sys.argv[1:]:
        # Some graphs only: their rows are printed, the whole table in BENCHMARKS.md is kept.
        print(body)
        return
    replace_section("ALLOCATOR-ERRORS", body)


if __name__ == "__main__":
    main()
