#!/usr/bin/python3
"""exact-dp on networks with in-place writes that keep their input (SiLU, Hardswish, ReLU6), unpinned and
pinned: the overhead the DP prints, the overhead of the chain apply runs, and the pinned plan's measured peak.

For each network (torchvision, random weights, cross-entropy, the CPU, one thread) the training step is captured
with its measured times (`capture`: each node's median of 3; they vary run to run, so compare within a row,
where every figure comes from the same capture). At each fraction of
the simulator's plain-run peak, exact-dp plans twice: unpinned, and with `in_place_pins(cap)` pinned
recompute (what `best_plan` does). For each plan: its overhead as printed; the overhead of the chain
`normalize` makes of it, which is what `apply` runs ("refused" where apply cannot run it); and for the pinned
plan, its peak as `measure` sees it against the prediction. One markdown row per network and fraction, printed
as it comes, then written into BENCHMARKS.md (IN-PLACE-PINS) unless --print.

    PYTHONPATH=build/python /usr/bin/python3 bench/in_place_pins.py [--models efficientnet_b0,...] [--print]
"""

import argparse
import pathlib
import sys

import torch
import torch.nn.functional as F
import torchvision

import remat  # PYTHONPATH=build/python
from remat.torch import PlanError, apply, capture, in_place_pins, measure, normalize

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from benchmarks_md import replace_section  # noqa: E402


def percent(graph_plain_time, overhead):
    return f"{100.0 * overhead / graph_plain_time:.2f}%"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default="efficientnet_b0,mobilenet_v2,mobilenet_v3_large")
    parser.add_argument("--fractions", default="0.6,0.7,0.8")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--size", type=int, default=128)
    parser.add_argument("--print", action="store_true", help="print the table only; leave BENCHMARKS.md")
    args = parser.parse_args()
    torch.set_num_threads(1)
    rows = ["| network | budget | pins | unpinned: printed | unpinned: as apply runs it | pinned: printed "
            "| pinned: as apply runs it | pinned: measured - predicted |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    print("\n".join(rows), flush=True)
    for name in args.models.split(","):
        torch.manual_seed(0)
        model = getattr(torchvision.models, name)(weights=None)
        images = torch.randn(args.batch, 3, args.size, args.size)
        labels = torch.randint(0, 1000, (args.batch,))
        cap = capture(model, (images,), F.cross_entropy, (labels,))
        # Without the pins the captured graph carries, so that "unpinned" is unpinned.
        graph = remat.Graph.from_json({k: v for k, v in cap.graph.items() if k != "pins"})
        plain = remat.solve(graph, "store-all")["metrics"]
        pins = in_place_pins(cap)
        for fraction in (float(f) for f in args.fractions.split(",")):
            budget = int(fraction * plain["simulated_peak_bytes"])
            cells = []
            pinned_plan = None
            for recompute in ([], pins):
                plan = remat.solve(graph, "exact-dp", budget=budget, recompute=recompute)
                if plan["status"] not in ("optimal", "feasible"):
                    cells += ["no plan", "-"]
                    continue
                segments = [list(s) for s in plan["segments"]]
                cells.append(percent(plain["total_time"], plan["metrics"]["overhead"]))
                try:
                    run = normalize(cap, segments)
                except PlanError:
                    cells.append("refused")
                    continue
                ran = plan if run == segments else remat.simulate(graph, run, budget=budget)
                moved = "" if run == segments else (", moved" + ("" if ran["status"] in ("optimal", "feasible")
                                                                 else ", over the budget"))
                cells.append(percent(plain["total_time"], ran["metrics"]["overhead"]) + moved)
                if recompute:
                    pinned_plan = plan
            if pinned_plan is not None:
                measured = measure(apply(cap, pinned_plan), (images, labels)).peak_bytes
                cells.append(f"{measured - pinned_plan['metrics']['simulated_peak_bytes']:+d} B")
            else:
                cells.append("-")
            rows.append(f"| {name} | {fraction:.0%} | {len(pins)} | " + " | ".join(cells) + " |")
            print(rows[-1], flush=True)
    if not args.print:
        replace_section("IN-PLACE-PINS", "\n".join(rows))


if __name__ == "__main__":
    main()
