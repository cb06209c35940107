#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace remat::viz {

/// The most characters of a node's label in a drawing (a box, a row of the schedule matrix, the peak
/// label of the timeline): about the widest box of the checkpoint drawing at its label size.
inline constexpr std::size_t kMaxLabelChars = 40;
/// The most characters of a name where it is shown whole (a hover tip, a node's details).
inline constexpr std::size_t kMaxNameChars = 160;

/// A node's name as figures show it. ONNX exports name values after their module path and output
/// ("/net/layer1/layer1.0/conv1/Conv_output_0"): the "_output_0" of a single output goes, and of a
/// path only the last three parts stay ("layer1.0/conv1/Conv"), which still tell blocks apart. Other
/// names are kept whole. Shorter labels make narrower boxes, so drawings of real networks come out
/// larger and readable. Then, as every name a figure shows, escaped and cut (displayName) to
/// kMaxLabelChars: figures measure and lay out only that, so that a name of megabytes costs what a
/// short one does.
[[nodiscard]] std::string nodeLabel(std::string_view name);

/// A name from a graph file as a figure may print it: control characters escaped (graph::printableText:
/// they would make an SVG file invalid XML and garble a PDF) and the middle elided to at most
/// `maxChars` characters.
[[nodiscard]] std::string displayName(std::string_view name, std::size_t maxChars = kMaxNameChars);

}  // namespace remat::viz
