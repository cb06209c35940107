#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/Diagnostic.hpp"

namespace remat::io {

struct OnnxOptions {
  /// Replaces the first dimension of every data input (symbolic or fixed) before shape inference.
  std::optional<std::int64_t> batch;
};

/// Reads an ONNX model (protobuf bytes) with ONNX's own shape inference. Every operation output that
/// is used, plus each operation's first output, becomes an `op` node named by its tensor; graph inputs
/// become `input` nodes, or `param` nodes when they hold weights (initializers, inputs that feed a
/// weight position of the op table, floating-point vectors); constants that feed only shapes, axes or
/// scales are left out, other constants become `param` nodes. `saves`, bytes (views are zero) and the
/// `flops` times (default device profile, nanoseconds) come from the op table; operations it does not
/// know import with a warning and conservative defaults. A model exported without weights imports.
/// Errors name the file and the node; never throws.
[[nodiscard]] Result<graph::ComputeGraph> readOnnx(std::string_view bytes, const std::string& fileName,
                                                   const OnnxOptions& options = {});

/// True when the bytes look like a serialized ONNX model (a protobuf that starts with its ir_version
/// or another ModelProto field): used by format detection, not a validation.
[[nodiscard]] bool looksLikeOnnx(std::string_view bytes);

}  // namespace remat::io
