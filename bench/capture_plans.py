#!/usr/bin/python3
"""Plans applied to a captured torchvision network, predicted against measured, solver by solver.

For each network (random weights, batch 8 at 128 px, cross-entropy, the CPU), the training step is
captured without timing (`capture(..., measure=False)`: FLOP-based costs, so the plans repeat run to
run), and each solver's plan at each fraction of the simulator's plain-run peak is applied
(`remat.torch.apply`) and measured (`remat.torch.measure`, the CPU allocator's events). Prints one
markdown row per plan: the budget, the predicted and measured peaks and their difference.

    PYTHONPATH=build/python /usr/bin/python3 bench/capture_plans.py [--models shufflenet_v2_x1_0,...]

BENCHMARKS.md (CAPTURE-ERRORS) quotes its ShuffleNetV2 rows: exact-dp's plans there are off by
multiples of half a block's tensor, where the plain run and the other solvers' plans agree to 8 B.
"""

import argparse

import torch
import torch.nn.functional as F
import torchvision

import remat  # PYTHONPATH=build/python
from remat.torch import apply, capture, measure


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default="shufflenet_v2_x1_0")
    parser.add_argument("--fractions", default="0.5,0.6,0.7,0.8")
    parser.add_argument("--solvers", default="exact-dp,approx-dp,chen-sqrtn")
    args = parser.parse_args()
    torch.set_num_threads(1)
    print("| model | solver | budget (fraction of plain) | predicted (B) | measured (B) | measured - predicted |")
    print("|---|---|---:|---:|---:|---:|")
    for name in args.models.split(","):
        torch.manual_seed(0)
        model = getattr(torchvision.models, name)(weights=None)
        images, labels = torch.randn(8, 3, 128, 128), torch.randint(0, 1000, (8,))
        cap = capture(model, (images,), F.cross_entropy, (labels,), measure=False)
        graph = remat.Graph.from_json(cap.graph)
        plain = remat.simulate(graph, remat.solve(graph, "store-all"))["metrics"]["simulated_peak_bytes"]
        for fraction in (float(f) for f in args.fractions.split(",")):
            budget = int(plain * fraction)
            for solver in args.solvers.split(","):
                plan = remat.solve(graph, solver, budget=budget)
                if not plan.get("segments"):
                    print(f"| {name} | {solver} | {budget:,} ({fraction:.2f}) | {plan['status']} | | |")
                    continue
                step = apply(cap, plan)
                predicted = remat.simulate(graph, step.segments)["metrics"]["simulated_peak_bytes"]
                measured = measure(step, (images, labels)).peak_bytes
                print(f"| {name} | {solver} | {budget:,} ({fraction:.2f}) | {predicted:,} | {measured:,} | "
                      f"{measured - predicted:+,} ({100 * (measured - predicted) / predicted:+.3f}%) |", flush=True)


if __name__ == "__main__":
    main()
