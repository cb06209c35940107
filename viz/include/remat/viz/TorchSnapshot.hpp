#pragma once

#include <string>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/sim/Schedule.hpp"

namespace remat::viz {

/// A plan's simulated memory as a PyTorch memory snapshot: the pickle that
/// `torch.cuda.memory._snapshot()` returns and `torch.cuda.memory._dump_snapshot` writes, so that
/// PyTorch's own viewers open a prediction (https://pytorch.org/memory_viz, `_memory_viz.py
/// trace_plot` or `memory`). A dict (pickle protocol 2) with
///  - `device_traces`: one list, device 0's trace: per simulated tensor an `alloc` entry at the step it
///    is made and a `free_completed` entry after the step it is last alive in, each with `addr`, `size`,
///    `stream` 0, `time_us` (the step's end in the graph's time, as microseconds when the unit is one
///    of ns/us/ms/s, else the ticks) and `frames`: one frame `{filename: "remat:<graph>", line: <step>,
///    name: "<what the tensor holds> <node> · <the step, e.g. fwd conv1>"}`;
///  - `segments`: the tensors alive at the simulated peak, one segment of one active block each (the
///    memory flame graph of the peak).
/// Addresses are a static layout's (planMemoryLayout), so tensors alive together never overlap. Replayed
/// in order, the allocated bytes once step s's allocations are in equal the simulator's `during` total
/// of step s; after its frees they are at most its `after` total (the simulator's lifetimes are per
/// step: storage a zero-byte view keeps alive is freed with its base and allocated again as the view's
/// at the next step). Throws std::invalid_argument when the schedule does not simulate.
[[nodiscard]] std::string torchMemorySnapshot(const graph::ComputeGraph& g, const sim::Schedule& schedule);

}  // namespace remat::viz
