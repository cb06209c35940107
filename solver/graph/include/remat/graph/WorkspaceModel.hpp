#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/Diagnostic.hpp"

namespace remat::graph {

/// Workspace models fill each operation's `workspace` (the temporaries its forward, or a recomputation,
/// holds while it runs) and `bwd_workspace` (its backward's), as cost models fill the times:
///  - `file`: what the graph file carries (measured by `remat profile --device cpu`, given by hand).
///  - `none`: no temporaries; the simulator counts the graph's tensors alone.
///  - `libtorch-cpu`: rules of op type and tensor sizes measured with LibTorch's CPU kernels (oneDNN)
///    as remat-runner calls them (docs/simulator.md, The timeline, has the table): a convolution
///    reorders its weight and input (a 1x1 convolution with stride 1 nothing), softmax cross-entropy
///    holds its log-probabilities, max-pool its int64 indices, dropout its mask, batch norm an
///    input-sized gradient, an elementwise derivative its intermediate products. Ops the rules do not
///    name get none (a matrix product's gradients become the gradients' buffers). They need shapes
///    (graphs imported from ONNX have them); a node without a shape uses the bytes the graph gives it.
[[nodiscard]] std::vector<std::string> workspaceModelNames();

/// The graph with every operation's workspace replaced by the named model, or an error naming the
/// known models. `file` returns the graph as it is.
[[nodiscard]] Result<ComputeGraph> applyWorkspaceModel(const ComputeGraph& g, std::string_view model);

}  // namespace remat::graph
