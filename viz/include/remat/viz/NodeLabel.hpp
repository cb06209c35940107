#pragma once

#include <string>
#include <string_view>

namespace remat::viz {

/// A node's name as figures show it. ONNX exports name values after their module path and output
/// ("/net/layer1/layer1.0/conv1/Conv_output_0"): the "_output_0" of a single output goes, and of a
/// path only the last three parts stay ("layer1.0/conv1/Conv"), which still tell blocks apart. Other
/// names are kept whole. Shorter labels make narrower boxes, so drawings of real networks come out
/// larger and readable.
[[nodiscard]] std::string nodeLabel(std::string_view name);

}  // namespace remat::viz
