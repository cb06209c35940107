"""What passes through PyTorch's allocator while a piece of work runs: on the CPU from the profiler's memory
events (c10's CPU allocator, every allocation and free, in order), on CUDA from the caching allocator's
statistics (allocated bytes, the peak reset before)."""

from __future__ import annotations

from typing import Callable, List, Tuple

import torch
from torch.profiler import ProfilerActivity, profile


def storage_key(t: torch.Tensor) -> int:
    """The address of a tensor's storage (0 for an empty one): tensors that share it share memory."""
    if hasattr(t, "untyped_storage"):
        return t.untyped_storage().data_ptr()
    return t.storage().data_ptr()


def storage_bytes(t: torch.Tensor) -> int:
    """The bytes of a tensor's storage, which is what its allocation holds (a view's is its base's)."""
    if hasattr(t, "untyped_storage"):
        return t.untyped_storage().nbytes()
    return t.storage().nbytes()


def allocation_events(device: torch.device, fn: Callable[[], object]) -> Tuple[object, List[int]]:
    """Runs fn() under the profiler; its result and the CPU allocator's events on `device`: bytes
    allocated (> 0) or freed (< 0), in the order they happened. CPU only (CUDA: `cuda_peak`)."""
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        result = fn()
    events = []
    for order, e in enumerate(prof.profiler.kineto_results.events()):
        if e.name() != "[memory]" or str(e.device_type()).rsplit(".", 1)[-1] != "CPU":
            continue
        events.append((e.start_us(), order, e.nbytes()))
    events.sort()
    return result, [nbytes for _, _, nbytes in events]


def peak_and_end(deltas: List[int]) -> Tuple[int, int]:
    """The most held above the start while the events ran, and what is held above the start at the end."""
    live = 0
    peak = 0
    for d in deltas:
        live += d
        peak = max(peak, live)
    return peak, live


def extra_during(device: torch.device, fn: Callable[[], object]) -> Tuple[object, int, int]:
    """fn()'s result, the most bytes it held at once above what was held before, and what it still holds."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        before = torch.cuda.memory_allocated(device)
        torch.cuda.reset_peak_memory_stats(device)
        result = fn()
        torch.cuda.synchronize(device)
        return result, torch.cuda.max_memory_allocated(device) - before, torch.cuda.memory_allocated(device) - before
    result, deltas = allocation_events(device, fn)
    peak, end = peak_and_end(deltas)
    return result, peak, end
