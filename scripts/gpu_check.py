#!/usr/bin/env python3
"""The GPU check's steps (scripts/gpu-check.sh runs them): what needs the GPU runs there with PyTorch
alone (python/ on PYTHONPATH: remat.torch, no engine), what needs the engine runs here.

    gpu_check.py profile --out DIR [--device cuda|cpu] [--small]   # GPU: capture with times, the plain step
    gpu_check.py plan DIR                                           # here: plans at two budgets (bindings)
    gpu_check.py measure DIR [--device cuda|cpu] [--small]          # GPU: apply each plan, measure a step
    gpu_check.py report DIR                                         # here: predicted against measured

DIR holds, per network: NAME.graph.json (the captured graph), NAME.plain.json (the plain step measured),
NAME.plans.json (store-all and the best plan apply can run at 50% and 70% of the plain peak, or of the
way from the least budget to it where the plain peak's fraction is below that budget, with the engine's
predictions), NAME.measured.json (each plan applied and
measured, gradients set against the plain step's), and report.md. Networks: torchvision's ResNet-50 and
a GPT-2-small-sized GPT written in plain PyTorch (tests/python/tiny_gpt.py); --small runs both at a
reduced size (the CPU dry run of CI).
"""

import argparse
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# After PYTHONPATH: build/python (remat with the engine's bindings) wins over python/ (remat.torch alone).
sys.path.append(os.path.join(ROOT, "python"))
sys.path.append(os.path.join(ROOT, "tests", "python"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402


def networks(small: bool):
    """(name, model factory, inputs, loss function, targets): the same on every call and machine."""
    import torchvision
    from tiny_gpt import TinyGPT, gpt_loss

    def resnet():
        torch.manual_seed(0)
        return torchvision.models.resnet50(weights=None)

    def gpt():
        torch.manual_seed(0)
        if small:
            return TinyGPT(vocab=256, dim=64, heads=4, layers=2, context=32)
        return TinyGPT(vocab=50257, dim=768, heads=12, layers=12, context=1024)

    gen = torch.Generator().manual_seed(1)
    batch, size = (2, 64) if small else (64, 224)
    images = torch.randn(batch, 3, size, size, generator=gen)
    labels = torch.randint(0, 1000, (batch,), generator=gen)
    gbatch, length, vocab = (2, 32, 256) if small else (8, 1024, 50257)
    tokens = torch.randint(0, vocab, (gbatch, length), generator=gen)
    following = torch.randint(0, vocab, (gbatch, length), generator=gen)

    def vit():  # torchvision's, built of nn.MultiheadAttention, which the capture traces through
        torch.manual_seed(0)
        if small:
            from torchvision.models.vision_transformer import VisionTransformer
            return VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32,
                                     mlp_dim=64)
        return torchvision.models.vit_b_16(weights=None)

    vbatch, vsize = (2, 32) if small else (32, 224)
    pictures = torch.randn(vbatch, 3, vsize, vsize, generator=gen)
    classes = torch.randint(0, 1000, (vbatch,), generator=gen)
    return [("resnet50", resnet, (images,), F.cross_entropy, (labels,)),
            ("gpt", gpt, (tokens,), gpt_loss, (following,)),
            ("vit", vit, (pictures,), F.cross_entropy, (classes,))]


def grads_of(model):
    return [p.grad.detach().float().cpu().clone() if p.grad is not None else torch.zeros(p.shape)
            for p in model.parameters()]


def max_relative_difference(reference, other):
    worst = 0.0
    for a, b in zip(reference, other):
        scale = a.abs().max().item()
        if scale > 0:
            worst = max(worst, (a - b).abs().max().item() / scale)
    return worst


def write(path, obj):
    with open(path + ".tmp", "w") as f:
        json.dump(obj, f, indent=1)
    os.replace(path + ".tmp", path)


def read(path):
    with open(path) as f:
        return json.load(f)


def on(device, *tensors):
    return tuple(t.to(device) for t in tensors)


def profile(args):
    from remat.torch import capture, measure
    os.makedirs(args.dir, exist_ok=True)
    device = torch.device(args.device)
    for name, make, inputs, loss_fn, targets in networks(args.small):
        model = make().to(device)
        inputs, targets = on(device, *inputs), on(device, *targets)
        start = time.perf_counter()
        cap = capture(model, inputs, loss_fn, targets, name=name, repeats=3)
        seconds = time.perf_counter() - start
        cap.write(os.path.join(args.dir, f"{name}.graph.json"))
        torch.manual_seed(7)
        plain = measure(model, inputs, loss_fn, targets)
        write(os.path.join(args.dir, f"{name}.plain.json"),
              {"device": str(device), "torch": torch.__version__, "capture_seconds": seconds,
               "gpu": torch.cuda.get_device_name(device) if device.type == "cuda" else None,
               "peak_bytes": plain.peak_bytes, "reserved_bytes": plain.reserved_bytes, "seconds": plain.seconds})
        print(f"profile  {name}: captured in {seconds:.1f} s, plain step peak {plain.peak_bytes} bytes", flush=True)


def plan(args):
    import remat
    from remat.torch import appliable
    for name, *_ in networks(args.small):
        graph = remat.Graph.from_json(read(os.path.join(args.dir, f"{name}.graph.json")), name)
        plain_peak = graph.info()["vanilla_peak_bytes"]
        least = remat.min_budget(graph, "approx-dp")["min_budget_bytes"]
        plans = [{"label": "store-all", "budget": None,
                  "plan": remat.simulate(graph, [graph.op_ids], label="store-all")}]
        for fraction in (0.5, 0.7):  # of the plain peak; of the way from the least budget where that is below it
            budget, where = int(fraction * plain_peak), "of the plain peak"
            if budget < least:
                budget, where = int(least + fraction * (plain_peak - least)), "from the least budget"
            table = remat.compare(graph, budget=budget, solvers=["chen-sqrtn", "approx-dp", "exact-dp", "dtr"],
                                  time_limit=60)
            rows = [r for r in table["rows"] if appliable(r) and r["fits"]]
            if not rows:
                print(f"plan     {name} at {budget}: no plan apply can run fits", flush=True)
                continue
            best = min(rows, key=lambda r: (r["metrics"]["overhead"], r["metrics"]["simulated_peak_bytes"]))
            plans.append({"label": f"{best['solver']} at {fraction:.0%} {where}", "budget": budget, "plan": best,
                          "winner": table["winner"]})
        write(os.path.join(args.dir, f"{name}.plans.json"), {"plain_predicted": plain_peak, "plans": plans})
        print(f"plan     {name}: " + ", ".join(p["label"] for p in plans), flush=True)


def measure_plans(args):
    from remat.torch import apply, capture, measure
    device = torch.device(args.device)
    for name, make, inputs, loss_fn, targets in networks(args.small):
        model = make().to(device)
        inputs, targets = on(device, *inputs), on(device, *targets)
        cap = capture(model, inputs, loss_fn, targets, name=name, measure=False)
        profiled = read(os.path.join(args.dir, f"{name}.graph.json"))
        same = [(n["id"], n["bytes"]) for n in cap.graph["nodes"]] == [(n["id"], n["bytes"]) for n in profiled["nodes"]]
        torch.manual_seed(7)
        plain = measure(model, inputs, loss_fn, targets)
        reference = grads_of(model)
        results = []
        for entry in read(os.path.join(args.dir, f"{name}.plans.json"))["plans"]:
            step = apply(cap, entry["plan"])
            torch.manual_seed(7)
            m = measure(step, inputs + targets)
            results.append({"label": entry["label"], "budget": entry["budget"],
                            "predicted": entry["plan"]["metrics"]["simulated_peak_bytes"],
                            "predicted_overhead": entry["plan"]["metrics"]["overhead"],
                            "measured": m.peak_bytes, "reserved": m.reserved_bytes, "seconds": m.seconds,
                            "gradients": max_relative_difference(reference, grads_of(model))})
            print(f"measure  {name} {entry['label']}: {m.peak_bytes} bytes", flush=True)
        write(os.path.join(args.dir, f"{name}.measured.json"),
              {"device": str(device), "same_graph": same, "plain": plain.peak_bytes,
               "plain_reserved": plain.reserved_bytes, "plain_seconds": plain.seconds, "plans": results})


def report(args):
    mib = float(1 << 20)
    lines = []
    for name, *_ in networks(args.small):
        prof = read(os.path.join(args.dir, f"{name}.plain.json"))
        plans = read(os.path.join(args.dir, f"{name}.plans.json"))
        got = read(os.path.join(args.dir, f"{name}.measured.json"))
        lines += [f"### {name} on {prof['gpu'] or prof['device']} (torch {prof['torch']})", "",
                  f"Plain step: predicted {plans['plain_predicted'] / mib:.1f} MiB, measured {got['plain'] / mib:.1f} MiB "
                  f"({plans['plain_predicted'] / got['plain'] - 1:+.2%})"
                  + (f", reserved {got['plain_reserved'] / mib:.1f} MiB" if got["plain_reserved"] else "")
                  + ("" if got["same_graph"] else "; WARNING: the graph captured for measuring differs from the profiled one"),
                  "", "| plan | budget (MiB) | predicted (MiB) | measured (MiB) | error | reserved (MiB) | step (s) | gradients |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for r in got["plans"]:
            budget = f"{r['budget'] / mib:.1f}" if r["budget"] else "-"
            reserved = f"{r['reserved'] / mib:.1f}" if r["reserved"] else "-"
            lines.append(f"| {r['label']} | {budget} | {r['predicted'] / mib:.1f} | {r['measured'] / mib:.1f} | "
                         f"{r['measured'] / r['predicted'] - 1:+.2%} | {reserved} | {r['seconds']:.3f} | "
                         f"{r['gradients']:.1e} |")
        lines.append("")
    text = "\n".join(lines)
    with open(os.path.join(args.dir, "report.md"), "w") as f:
        f.write(text)
    print(text)
    worst = max(abs(r["measured"] / r["predicted"] - 1) for name, *_ in networks(args.small)
                for r in read(os.path.join(args.dir, f"{name}.measured.json"))["plans"])
    return 0 if worst <= args.tolerance else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for command in ("profile", "plan", "measure", "report"):
        p = sub.add_parser(command)
        p.add_argument("dir")
        p.add_argument("--small", action="store_true", help="reduced sizes (the CPU dry run)")
        if command in ("profile", "measure"):
            p.add_argument("--device", default="cuda")
        if command == "report":
            p.add_argument("--tolerance", type=float, default=0.03,
                           help="the largest |measured / predicted - 1| that passes (default 0.03)")
    args = parser.parse_args()
    if getattr(args, "device", "cpu").startswith("cuda") and not torch.cuda.is_available():
        print("gpu_check: no CUDA device (torch.cuda.is_available() is False); --device cpu for a dry run",
              file=sys.stderr)
        return 9
    return {"profile": profile, "plan": plan, "measure": measure_plans, "report": report}[args.command](args) or 0


if __name__ == "__main__":
    sys.exit(main())
