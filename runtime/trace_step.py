#!/usr/bin/python3
"""Records the allocations of one training step of a PyTorch module, as evidence for `remat validate --measured`.

    /usr/bin/python3 runtime/trace_step.py --torchvision resnet18 --batch 2 --size 64 -o trace.json \\
        [--onnx resnet18.onnx] [--device cpu|cuda] [--classes 1000] [--seed 0]

or, from your own code, `record_step(model, inputs, device)` with a model that returns the scalar loss
(wrap your network and its loss in one module, as `datasets/generate.py` does), then `write_trace`.

One step is one forward pass of the model (network and loss) and `backward()`, recorded with
`torch.profiler` (`profile_memory=True`) on a model whose gradients are cleared (set to None) first, as
a training loop leaves them after `zero_grad()`. Its allocation events (time, bytes, device) come
from the profiler's event list (`prof.profiler.kineto_results.events()`, name `[memory]`): PyTorch
1.13 leaves them out of `export_chrome_trace`; newer PyTorch writes them into Chrome traces too, and
`remat validate --measured` reads those as well. What the profiler sees is what passes through
PyTorch's allocator on the device (c10's CPU allocator, the CUDA caching allocator's allocations):
temporaries included, caching and rounding not.

The file (`"format": "remat-memory-trace"`, docs/formats.md):
  {"format": "remat-memory-trace", "version": 1, "device": "cpu", "torch_version": "1.13.1",
   "model": "torchvision resnet18, batch 2, 64x64", "resident_bytes": N, "events": [[t_us, bytes], ...]}
`resident_bytes` is what the step starts with on the device (the model's parameters and buffers and the
inputs, each storage once); each event is [microseconds since the step began, bytes allocated (> 0) or
freed (< 0)], in the order they happened.

With --onnx the same wrapped model is exported as `datasets/generate.py` exports its networks (no
weights, training mode, opset 14, inputs `data` and `labels`, output `loss`), for `remat convert
FILE.onnx graph.json`.
"""

import argparse
import json
import sys
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

# This script is shipped to users and needs only torch (torchvision for its command line), so it does
# not import datasets/generate.py (which needs onnx and the repository); these two mirror it.
OPSET = 14  # as datasets/generate.py


class WithLoss(nn.Module):
    """A classifier and its cross-entropy loss in one module: (data, labels) -> the scalar loss."""

    def __init__(self, net: nn.Module):
        super().__init__()
        self.net = net

    def forward(self, data: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(self.net(data), labels)


def resident_bytes(model: nn.Module, inputs, device: torch.device) -> int:
    """Bytes of every distinct storage on `device` among the model's parameters and buffers and the inputs."""
    seen = set()
    total = 0
    for t in list(model.parameters()) + list(model.buffers()) + list(inputs):
        if t.device != device:
            continue
        storage = t.storage()
        key = storage.data_ptr()
        if key in seen or key == 0:
            continue
        seen.add(key)
        total += storage.nbytes()
    return total


def record_step(model: nn.Module, inputs, device: str = "cpu") -> dict:
    """Runs one forward and backward of `model(*inputs)` (a scalar loss) under the profiler; the trace."""
    dev = torch.device(device)
    model = model.to(dev).train()
    inputs = tuple(x.to(dev) for x in inputs)
    for p in model.parameters():
        p.grad = None
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)
    resident = resident_bytes(model, inputs, dev)
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if dev.type == "cuda" else [])
    with profile(activities=activities, profile_memory=True) as prof:
        loss = model(*inputs)
        loss.backward()
        if dev.type == "cuda":
            torch.cuda.synchronize(dev)
    wanted = "CUDA" if dev.type == "cuda" else "CPU"
    events = []
    for order, e in enumerate(prof.profiler.kineto_results.events()):
        if e.name() != "[memory]" or str(e.device_type()).rsplit(".", 1)[-1] != wanted:
            continue
        events.append((e.start_us(), order, e.nbytes()))
    events.sort()  # by time; events of the same microsecond keep the profiler's order
    start = events[0][0] if events else 0
    return {
        "format": "remat-memory-trace",
        "version": 1,
        "device": dev.type,
        "torch_version": torch.__version__,
        "model": "",
        "resident_bytes": resident,
        "events": [[t - start, nbytes] for t, _, nbytes in events],
    }


def write_trace(trace: dict, path: str) -> None:
    with open(path, "w") as out:
        json.dump(trace, out, separators=(",", ":"))
        out.write("\n")


def export_onnx(model: nn.Module, inputs, path: str) -> None:
    """Exports as datasets/generate.py does: no weights, training mode, no constant folding, opset 14."""
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, tuple(inputs), path, export_params=False, training=torch.onnx.TrainingMode.TRAINING,
                          do_constant_folding=False, opset_version=OPSET, input_names=["data", "labels"],
                          output_names=["loss"])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--torchvision", required=True, metavar="NAME",
                        help="a torchvision classification model (resnet18, mobilenet_v2, vgg11, ...), no weights")
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--size", type=int, default=224, help="image height and width (default 224)")
    parser.add_argument("--classes", type=int, default=1000)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--onnx", metavar="FILE", help="also export the model and loss to this ONNX file")
    parser.add_argument("-o", "--output", required=True, metavar="FILE")
    args = parser.parse_args(argv)
    import torchvision  # only for this command line

    if args.batch < 1 or args.size < 1 or args.classes < 2:
        parser.error("--batch and --size must be positive, --classes at least 2")
    try:
        builder = torchvision.models.get_model_builder(args.torchvision) if hasattr(torchvision.models, "get_model_builder") \
            else getattr(torchvision.models, args.torchvision)
    except (AttributeError, ValueError):
        parser.error(f"torchvision has no model '{args.torchvision}'")
    torch.manual_seed(args.seed)
    model = WithLoss(builder(weights=None, num_classes=args.classes))
    data = torch.randn(args.batch, 3, args.size, args.size)
    labels = torch.randint(0, args.classes, (args.batch,))
    if args.onnx:
        export_onnx(model, (data, labels), args.onnx)
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print("error: --device cuda: no CUDA device is available", file=sys.stderr)
        return 1
    trace = record_step(model, (data, labels), args.device)
    trace["model"] = f"torchvision {args.torchvision}, batch {args.batch}, {args.size}x{args.size}"
    write_trace(trace, args.output)
    live = trace["resident_bytes"]
    peak = live
    for _, nbytes in trace["events"]:
        live += nbytes
        peak = max(peak, live)
    print(f"{len(trace['events'])} allocation events; peak {peak} bytes on {trace['device']} "
          f"({trace['resident_bytes']} resident); wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
