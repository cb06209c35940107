#!/usr/bin/python3
"""The plain-run peak as remat.torch.capture predicts it, against PyTorch's own, next to the ONNX import's.

For seven torchvision networks (the five of issue 38 at its sizes, MobileNetV3-large, whose residual
adds and hard-swish blocks none of those has, and ViT-B/16, whose nn.MultiheadAttention the capture
traces through; random weights, cross-entropy, one training step on the CPU), three numbers: the peak the CPU allocator's events show for the plain step
(remat.torch.measure, as runtime/trace_step.py records it), the simulator's plain-run peak of the graph
`capture` makes (times and temporaries measured), and that of the same step exported to ONNX and
imported (`remat convert`, as datasets/generate.py exports: no weights, training mode, opset 14) with
`--workspace libtorch-cpu`, the import's best. Rewrites BENCHMARKS.md's CAPTURE-ERRORS section.

    PYTHONPATH=build/python /usr/bin/python3 bench/torch-capture.py [--only resnet18,vgg11]   # ~7 min here

Memory is deterministic here (one run each); the capture's seconds are one run's wall time.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import torch
import torch.nn.functional as F
import torchvision

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "runtime"))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import remat  # noqa: E402  (PYTHONPATH=build/python)
from remat.torch import capture, measure  # noqa: E402
from trace_step import WithLoss, export_onnx  # noqa: E402

MODELS = [("resnet50", 4, 224), ("mobilenet_v2", 4, 224), ("densenet121", 2, 224), ("vgg11", 2, 224),
          ("resnet18", 8, 128), ("mobilenet_v3_large", 8, 128), ("vit_b_16", 2, 224)]


def onnx_prediction(model, data, labels, remat_cli):
    with tempfile.TemporaryDirectory() as tmp:
        onnx_path, graph_path = os.path.join(tmp, "m.onnx"), os.path.join(tmp, "m.json")
        export_onnx(WithLoss(model), (data, labels), onnx_path)
        subprocess.run([remat_cli, "convert", onnx_path, graph_path], check=True, capture_output=True)
        out = subprocess.run([remat_cli, "info", graph_path, "--workspace", "libtorch-cpu", "--json"], check=True,
                             capture_output=True, text=True).stdout
        return json.loads(out)["vanilla_peak_bytes"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="comma-separated model names")
    parser.add_argument("--remat", default=os.path.join(ROOT, "build", "bin", "remat"))
    parser.add_argument("--no-write", action="store_true", help="print the table, leave BENCHMARKS.md as it is")
    args = parser.parse_args()
    wanted = set(args.only.split(",")) if args.only else None
    rows = ["| model | batch, size | PyTorch's peak (MiB) | capture (MiB) | capture - PyTorch | ONNX import (MiB) | "
            "error | capture time |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    mib = float(1 << 20)
    for name, batch, size in MODELS:
        if wanted and name not in wanted:
            continue
        torch.manual_seed(0)
        model = getattr(torchvision.models, name)(weights=None)
        data = torch.randn(batch, 3, size, size)
        labels = torch.randint(0, 1000, (batch,))
        measured = measure(model, (data,), F.cross_entropy, (labels,)).peak_bytes
        start = time.perf_counter()
        cap = capture(model, (data,), F.cross_entropy, (labels,), repeats=1)
        seconds = time.perf_counter() - start
        predicted = remat.Graph.from_json(cap.graph, name).info()["vanilla_peak_bytes"]
        imported = onnx_prediction(model, data, labels, args.remat)
        row = (f"| {name} | {batch}, {size}x{size} | {measured / mib:.1f} | {predicted / mib:.1f} | "
               f"{predicted - measured:+d} B ({predicted / measured - 1:+.3%}) | {imported / mib:.1f} | "
               f"{imported / measured - 1:+.2%} | {seconds:.0f} s |")
        print(row, flush=True)
        rows.append(row)
    body = "\n".join(rows)
    if not args.no_write and not wanted:
        from benchmarks_md import replace_section
        replace_section("CAPTURE-ERRORS", body)
    print(body)


if __name__ == "__main__":
    main()
