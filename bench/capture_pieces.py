#!/usr/bin/python3
"""Where the capture of MobileNetV3-large misses PyTorch's peak: pieces of it measured alone, and a plan.

Each piece (a few layers with a pooled linear head, cross-entropy, one training step on the CPU) is
captured and its plain-run peak, as the simulator predicts it, set against the CPU allocator's
(remat.torch.measure); then approx-dp's plan for the whole network at 90 MiB (batch 8, 128 px, the plan
`best_plan` applies there) is applied and measured. BENCHMARKS.md, CAPTURE-ERRORS, quotes the figures;
the plan follows the capture's measured times, so it and its miss can differ from run to run.

    PYTHONPATH=build/python /usr/bin/python3 bench/capture_pieces.py     # 6 s here
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

import remat  # PYTHONPATH=build/python
from remat.torch import apply, capture, measure


class Residual(nn.Module):
    """A convolution and batch norm whose output the block input is added to in place, as
    torchvision's InvertedResidual does (`result += input`)."""

    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.norm = nn.BatchNorm2d(channels)

    def forward(self, x):
        r = self.norm(self.conv(x))
        r += x
        return r


def head(channels, classes=10):
    return [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(channels, classes)]


def plain(name, model, data, labels):
    cap = capture(model, (data,), F.cross_entropy, (labels,))
    predicted = remat.solve(remat.Graph.from_json(cap.graph), "store-all")["metrics"]["simulated_peak_bytes"]
    measured = measure(cap.module, (data, labels)).peak_bytes
    print(f"| {name} | {predicted} | {measured} | {predicted - measured:+d} |", flush=True)


def main():
    torch.set_num_threads(1)
    torch.manual_seed(0)
    net = torchvision.models.mobilenet_v3_large(weights=None)
    images, labels = torch.randn(8, 3, 128, 128), torch.randint(0, 10, (8,))
    print("| piece | predicted B | measured B | predicted - measured |\n|---|---:|---:|---:|")
    plain("features[0:2] (stem, first residual block)", nn.Sequential(net.features[:2], *head(16)), images, labels)
    x = torch.randn(8, 16, 64, 64)
    plain("conv, ReLU, residual block", nn.Sequential(nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(inplace=True),
                                                       Residual(16), *head(16)), x, labels)
    labels = torch.randint(0, 1000, (8,))
    cap = capture(net, (images,), F.cross_entropy, (labels,))
    budget = 90 << 20
    plan = remat.solve(remat.Graph.from_json(cap.graph), "approx-dp", budget=budget)
    measured = measure(apply(cap, plan), (images, labels)).peak_bytes
    predicted = plan["metrics"]["simulated_peak_bytes"]
    print(f"\napprox-dp at {budget} B on the whole network: predicted {predicted} B, measured {measured} B "
          f"({measured - budget:+d} B against the budget)")


if __name__ == "__main__":
    main()
