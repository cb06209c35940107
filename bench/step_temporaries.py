"""What the CPU allocator holds inside each step beyond the schedule's tensors (see step-temporaries.sh).

For every graph: store-all's plan played by remat-runner on the CPU (one iteration, one thread); per
forward or backward step, temp = the allocator's peak while the step ran minus the runner's tables
(every tensor the schedule holds, outputs of the step included). A backward step that adds a gradient
into a buffer an earlier backward made (a value with several consumers, a parameter used twice) is
counted apart: the contribution is a temporary there, and `accumulated` is its size by the graph's
bytes. The table lists the (op, phase) groups whose largest temp is at least 0.5% of the run's peak,
with what the libtorch-cpu workspace rules (`--workspace libtorch-cpu`) give the step of that largest
temp.
"""
import collections
import json
import pathlib
import statistics
import sys
import tempfile

from allocator_errors import DEFAULT, REMAT, ROOT, RUNNER, mib, run, torchvision
from benchmarks_md import replace_section


def measure(graph):
    with tempfile.TemporaryDirectory() as tmp:
        plan = pathlib.Path(tmp) / "plan.json"
        out = pathlib.Path(tmp) / "measured.json"
        run([REMAT, "solve", graph, "--solver", "store-all", "-o", str(plan)])
        run([RUNNER, graph, "--plan", str(plan), "--threads", "1", "--warmup", "0", "--iterations", "1", "-o", str(out)])
        return json.loads(out.read_text())


def ruled(graph, tmp):
    """Each node's (workspace, bwd_workspace) under the libtorch-cpu rules."""
    out = pathlib.Path(tmp) / (pathlib.Path(graph).stem + ".ruled.json")
    run([REMAT, "convert", graph, str(out), "--workspace", "libtorch-cpu"])
    return {n["id"]: (n.get("workspace", 0), n.get("bwd_workspace", n.get("workspace", 0)))
            for n in json.loads(out.read_text())["nodes"]}


def main():
    names = sys.argv[1:] or DEFAULT
    lines = ["| graph | op | phase | steps | median temp / output | largest temp (MiB) | rules there (MiB) | of the peak |",
             "|---|---|---|---:|---:|---:|---:|---:|"]
    tmp = tempfile.TemporaryDirectory()
    for name in names:
        if name.startswith("tv:"):
            graph = torchvision(name[3:], tmp.name)
        else:
            graph = name if name.endswith(".json") else str(ROOT / "datasets" / "small" / f"{name}.json")
        nodes = {n["id"]: n for n in json.load(open(graph))["nodes"]}
        rules = ruled(graph, tmp.name)
        consumers = collections.defaultdict(int)
        for n in nodes.values():
            for i in set(n.get("inputs", [])):
                consumers[i] += 1
        m = measure(graph)
        peak = m["cpu_allocator"]["peak_bytes"]
        groups = collections.defaultdict(list)
        reached = collections.Counter()  # backward steps run so far per value: its gradient exists after the first
        for s in m["steps"]:
            if s["kind"] not in ("fwd", "bwd") or s["allocator"] is None:
                continue
            node = nodes[s["node"]]
            temp = s["allocator"]["peak"] - s["during"]["total"]
            phase = "forward" if s["kind"] == "fwd" else "backward"
            if phase == "backward":
                inputs = set(node.get("inputs", []))
                accumulated = sum(nodes[u]["bytes"] for u in inputs
                                  if nodes[u]["kind"] != "input" and reached[u] > 0 and consumers[u] > 1)
                for u in inputs:
                    reached[u] += 1
                if accumulated:
                    phase = "backward, accumulating"
            rule = rules[s["node"]][0 if s["kind"] == "fwd" else 1]
            groups[(node.get("op", node["kind"]), phase)].append((temp, node["bytes"], rule))
        label = pathlib.Path(graph).stem
        for (op, phase), rows in sorted(groups.items(), key=lambda kv: -max(r[0] for r in kv[1])):
            largest, _, rule = max(rows)
            if largest < 0.005 * peak:
                continue
            ratio = statistics.median(t / b for t, b, _ in rows if b > 0) if any(r[1] > 0 for r in rows) else 0.0
            lines.append(f"| {label} | {op} | {phase} | {len(rows)} | {ratio:.2f} | {mib(largest)} | {mib(rule)} | "
                         f"{100.0 * largest / peak:.1f}% |")
    text = "\n".join(lines)
    print(text)
    replace_section("STEP-TEMPORARIES", text)


if __name__ == "__main__":
    main()
