#!/usr/bin/python3
"""From `import remat` to a step that trains in less memory, on torchvision's classifiers.

For each network (random weights, 10 classes, cross-entropy; GoogLeNet with its auxiliary heads, their
losses summed), one training step on the CPU: the plain step's peak as the allocator measures it
(remat.torch.measure) against the captured graph's (capture, times and temporaries measured once); then
`best_plan` (chen-sqrtn, approx-dp and exact-dp, 60 s each) at the budget halfway between approx-dp's
least budget and the captured plain peak (at these sizes the parameters and their gradients are much of
the peak, so a fixed fraction of it is below every plan for some networks), the plan it applied, its
predicted and measured peaks, and the largest difference of any parameter's gradient from the plain
step's (relative to that gradient's largest entry; the same random state for both). Rewrites
BENCHMARKS.md's TORCH-MODELS section.

    PYTHONPATH=build/python /usr/bin/python3 bench/torch_models.py [--only swin_t,vit_b_16] [--no-write]

Memory is deterministic here (one run each); the plan chosen follows the capture's measured times, which
vary from run to run, and so may its overhead.
"""

import argparse
import copy
import os
import sys
import time
import warnings

import torch
import torch.nn.functional as F
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import remat  # noqa: E402  (PYTHONPATH=build/python)
from remat.torch import best_plan, capture, measure  # noqa: E402

# (name, batch, image size, builder keywords beyond weights=None and 10 classes)
MODELS = [
    ("resnet50", 8, 128, {}), ("resnext50_32x4d", 8, 128, {}), ("wide_resnet50_2", 4, 128, {}),
    ("densenet121", 8, 128, {}), ("vgg11_bn", 8, 128, {}), ("alexnet", 8, 128, {}),
    ("squeezenet1_1", 8, 128, {}), ("googlenet", 8, 128, {"aux_logits": True, "init_weights": False}),
    ("mobilenet_v2", 8, 128, {}), ("mobilenet_v3_large", 8, 128, {}), ("mnasnet1_0", 8, 128, {}),
    ("shufflenet_v2_x1_0", 8, 128, {}), ("efficientnet_b0", 8, 128, {}), ("efficientnet_v2_s", 8, 128, {}),
    ("regnet_y_400mf", 8, 128, {}), ("convnext_tiny", 8, 128, {}), ("swin_t", 8, 128, {}),
    ("vit_b_16", 32, 128, {"image_size": 128}), ("maxvit_t", 2, 224, {}),
]


def loss_fn(out, y):
    if isinstance(out, tuple):  # GoogLeNet in training: the main and auxiliary logits
        return sum(F.cross_entropy(o, y) for o in out if o is not None)
    return F.cross_entropy(out, y)


def gradients(model):
    return [None if p.grad is None else p.grad.detach().clone() for p in model.parameters()]


def largest_difference(plain, planned):
    worst = 0.0
    for a, b in zip(plain, planned):
        if a is None or b is None:
            continue
        scale = a.abs().max().item()
        if scale > 0:
            worst = max(worst, (a - b).abs().max().item() / scale)
    return worst


def run(name, batch, size, kwargs):
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(weights=None, num_classes=10, **kwargs).train()
    data, labels = torch.randn(batch, 3, size, size), torch.randint(0, 10, (batch,))
    reference = copy.deepcopy(model)
    torch.manual_seed(1)
    plain = measure(reference, (data,), loss_fn, (labels,)).peak_bytes
    plain_grads = gradients(reference)
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cap = capture(model, (data,), loss_fn, (labels,), repeats=1)
    said = [str(w.message) for w in caught if "remat" in str(w.message)]
    graph = remat.Graph.from_json(cap.graph, name)
    predicted = graph.info()["vanilla_peak_bytes"]
    least = remat.min_budget(graph, "approx-dp")["min_budget_bytes"]
    budget = (least + predicted) // 2
    best = best_plan(model, (data,), loss_fn, (labels,), budget=budget, cap=cap,
                     solvers=["chen-sqrtn", "approx-dp", "exact-dp"])
    seconds = time.perf_counter() - start
    mib = float(1 << 20)
    head = (f"| {name} | {batch}, {size} | {len(graph.op_ids)} | {plain / mib:.1f} | "
            f"{predicted / plain - 1:+.2%} | {budget / mib:.1f} ({budget / plain:.0%}) |")
    if best.step is None:
        return head + f" none fits: {best.summary().splitlines()[-1]} | - | - | - | - | {seconds:.0f} s |", said
    torch.manual_seed(1)
    model.zero_grad(set_to_none=True)
    measured = measure(best.step, (data, labels)).peak_bytes
    difference = largest_difference(plain_grads, gradients(model))
    fits = "yes" if measured <= budget else "**no**"
    return (head + f" {best.solver}, {best.overhead_percent:.1f}% | {best.predicted_peak_bytes / mib:.1f} | "
            f"{measured / mib:.1f} ({measured / best.predicted_peak_bytes - 1:+.2%}) | {fits} | {difference:.0e} | "
            f"{seconds:.0f} s |"), said


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="comma-separated model names")
    parser.add_argument("--no-write", action="store_true", help="print the table, leave BENCHMARKS.md as it is")
    args = parser.parse_args()
    wanted = set(args.only.split(",")) if args.only else None
    torch.set_num_threads(1)
    rows = ["| model | batch, size | ops | plain step (MiB) | captured - plain | budget (MiB, of plain) | "
            "applied, overhead | predicted (MiB) | measured (MiB) | within budget | gradients | time |",
            "|---|---|---:|---:|---:|---:|---|---:|---:|---|---:|---:|"]
    notes = []
    for name, batch, size, kwargs in MODELS:
        if wanted and name not in wanted:
            continue
        try:
            row, said = run(name, batch, size, kwargs)
        except Exception as failure:  # noqa: BLE001 - a network that fails is a row that says how
            row, said = f"| {name} | {batch}, {size} | failed: {type(failure).__name__}: {failure} |", []
        print(row, flush=True)
        rows.append(row)
        notes += [f"- {name}: {text}" for text in said]
    body = "\n".join(rows + ([""] + notes if notes else []))
    if not args.no_write and not wanted:
        from benchmarks_md import replace_section
        replace_section("TORCH-MODELS", body)
    print(body)


if __name__ == "__main__":
    main()
