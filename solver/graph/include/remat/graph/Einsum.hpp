#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace remat::graph {

/// An ONNX Einsum equation applied to its operands' shapes, by numpy's rules: a letter labels an axis,
/// "..." stands for the axes no letter names (broadcast across the operands, right-aligned), spaces are
/// ignored, and the output is what follows "->" or, without it, the "..." axes then every letter used
/// once, in character order. A label's sizes must agree across the operands, where one of them is not 1
/// (PyTorch broadcasts a labelled axis of size 1, as numpy does an ellipsis axis).
struct EinsumShapes {
  std::vector<std::int64_t> output;
  /// The product of every label's size and of the broadcast axes: the multiply-adds of the loop nest
  /// that evaluates the equation directly (a contraction of two operands does as many).
  double iterations = 0;
  /// Why the equation does not fit the operands; empty when it does (then the fields above hold).
  std::string error;
};

[[nodiscard]] EinsumShapes einsumShapes(std::string_view equation,
                                        const std::vector<std::vector<std::int64_t>>& operands);

}  // namespace remat::graph
