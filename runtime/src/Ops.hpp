#pragma once

// Internal to remat-runner: the operations it executes, forward and backward, on ATen tensors.
// Included only by the LibTorch translation units (Ops.cpp, Player.cpp).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

#include "remat/runtime/GraphSpec.hpp"

namespace remat::runtime::detail {

struct ForwardCall {
  const GraphSpec& graph;
  std::size_t node;
  const std::vector<at::Tensor>& inputs;  ///< one per operand position
  std::uint64_t seed;                     ///< per node, so that a recomputation draws the same dropout mask
};

struct BackwardCall {
  const GraphSpec& graph;
  std::size_t node;
  /// One per operand position: inputs and parameters (resident) and the operation values the node's
  /// `saves` lists; every other position is undefined, so a backward cannot read what the graph does
  /// not keep.
  const std::vector<at::Tensor>& inputs;
  const at::Tensor& output;           ///< defined when the node keeps its output
  const at::Tensor& grad;             ///< the complete gradient of the node
  const std::vector<bool>& needGrad;  ///< per operand position
  std::uint64_t seed;
};

/// Why the runner cannot execute node v (type, attributes, or a backward that needs a value the graph
/// does not save); nullopt when it can.
[[nodiscard]] std::optional<std::string> unsupportedReason(const GraphSpec& g, std::size_t v);

/// The node's output. Works with autograd on (the baseline) and off (the plan's player).
[[nodiscard]] at::Tensor runForward(const ForwardCall& call);

/// The node's backward: the gradient contribution for each operand position (undefined where none:
/// not asked for, or not differentiable). Temporaries die at the end of the call.
[[nodiscard]] std::vector<at::Tensor> runBackward(const BackwardCall& call);

}  // namespace remat::runtime::detail
