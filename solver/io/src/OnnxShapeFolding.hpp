#pragma once

// Folding of the small shape computations exporters leave in ONNX graphs (Shape -> Slice -> Concat ->
// Resize, Shape -> Gather -> Unsqueeze -> Reshape, ...). ONNX's shape inference cannot see through
// most of them, so the shapes after them stay unknown. The folder evaluates, in graph order, every node
// whose operands are all known small values (at most kMaxFoldedElements elements), starting from
// initializers, Constant nodes and Shape/Size of tensors whose shapes are known, and replaces each
// folded node by an initializer holding its value. Only what the readers need for shapes is supported.

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace remat::io::detail {

inline constexpr std::size_t kMaxFoldedElements = 1024;

/// The known dimensions of a tensor (-1 where unknown), or nullopt when not even its rank is known.
using ShapeLookup = std::function<std::optional<std::vector<std::int64_t>>(const std::string&)>;

/// The elements of a tensor the file holds, row-major, when it has at most kMaxFoldedElements of them and
/// its type is one the folder reads (int64, int32, float, double, bool); nullopt otherwise.
std::optional<std::vector<double>> smallTensorValues(const onnx::TensorProto& t);

/// Folds what it can; returns the number of nodes replaced by initializers.
std::size_t foldShapeComputations(onnx::GraphProto& graph, const ShapeLookup& shapeOf);

}  // namespace remat::io::detail
