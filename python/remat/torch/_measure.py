"""measure: one training step (forward and backward), and the memory it held at its peak.

On the CPU the peak comes from the allocator's events as the profiler records them (every allocation and
free through c10's CPU allocator, temporaries included; `runtime/trace_step.py` reads the same events),
added to what the step starts with on the device: the parameters, buffers, inputs and targets, each
storage once. On CUDA it is `torch.cuda.max_memory_allocated` after resetting the peak (what PyTorch's
caching allocator handed out, the same quantity), and `max_memory_reserved` is reported beside it (what
the caching allocator held from the device: rounding, caching and fragmentation, which Remat does not
model). Parameters' gradients start as None, as a training loop leaves them after
`zero_grad(set_to_none=True)`, and are left as the step computed them.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any, Callable, Optional, Sequence

import torch
import torch.nn as nn

from . import _memory


@dataclasses.dataclass
class Measurement:
    peak_bytes: int  # the most held at once on the device during the step, resident tensors included
    resident_bytes: int  # parameters, buffers, inputs and targets, each storage once
    reserved_bytes: Optional[int]  # CUDA: the caching allocator's peak reservation; None on the CPU
    seconds: float
    loss: float
    device: str


def _distinct_bytes(tensors, device: torch.device) -> int:
    seen = set()
    total = 0
    for t in tensors:
        if not isinstance(t, torch.Tensor) or t.device != device:
            continue
        key = _memory.storage_key(t)
        if key in seen or key == 0:
            continue
        seen.add(key)
        total += _memory.storage_bytes(t)
    return total


def measure(step: Callable[..., torch.Tensor], inputs: Sequence[Any], loss_fn: Optional[Callable] = None,
            targets: Sequence[Any] = ()) -> Measurement:
    """Runs one step and measures it: `loss_fn(step(*inputs), *targets)` with a loss function (a model as
    it is), `step(*inputs, *targets)` without (an `apply`-ed step, or a module that returns the loss)."""
    inputs, targets = tuple(inputs), tuple(targets)
    modules = [step] if isinstance(step, nn.Module) else []
    if isinstance(loss_fn, nn.Module):
        modules.append(loss_fn)
    params = [p for m in modules for p in m.parameters()]
    buffers = [b for m in modules for b in m.buffers()]
    device = params[0].device if params else next(
        (t.device for t in inputs if isinstance(t, torch.Tensor)), torch.device("cpu"))
    for p in params:
        p.grad = None

    def run():
        loss = loss_fn(step(*inputs), *targets) if loss_fn is not None else step(*inputs, *targets)
        loss.backward()
        return loss

    resident = _distinct_bytes(params + buffers + list(inputs) + list(targets), device)
    start = time.perf_counter()
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
        loss = run()
        torch.cuda.synchronize(device)
        seconds = time.perf_counter() - start
        return Measurement(peak_bytes=torch.cuda.max_memory_allocated(device), resident_bytes=resident,
                           reserved_bytes=torch.cuda.max_memory_reserved(device), seconds=seconds,
                           loss=float(loss.detach()), device=str(device))
    loss, deltas = _memory.allocation_events(device, run)
    seconds = time.perf_counter() - start
    peak, _ = _memory.peak_and_end(deltas)
    return Measurement(peak_bytes=resident + peak, resident_bytes=resident, reserved_bytes=None, seconds=seconds,
                       loss=float(loss.detach()), device=str(device))
