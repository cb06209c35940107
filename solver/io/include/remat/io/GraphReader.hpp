#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/Diagnostic.hpp"

namespace remat::io {

/// The graph file formats Remat reads (docs/formats.md).
enum class GraphFormat {
  Auto,       ///< detect from the content, then from the file extension
  Native,     ///< Remat's own JSON, `"format": "remat-graph"`
  PfnCg,      ///< the `cg_*.txt` text graphs of Kusumoto et al. (pfnet-research/recompute)
  Checkmate,  ///< Checkmate / Moccasin networkx node-link JSON
  Onnx,       ///< ONNX protobuf (`.onnx`)
};

/// Options some formats take.
struct ReadOptions {
  /// ONNX only: the batch size written into the first dimension of every data input.
  std::optional<std::int64_t> batch;
  /// With a format other than ONNX, ignore `batch` instead of refusing it (max-batch, whose --batch
  /// names the batch any graph was built for).
  bool batchOnlyForOnnx = false;
  /// The file is the whole computation: plan it as given, with no backward pass added
  /// (ComputeGraph::asGiven). A Checkmate training graph's backward nodes become operations; a graph of
  /// another format keeps its operations and drops what the file says of a backward pass.
  bool asGiven = false;
};

/// Files larger than this are refused before anything is read.
inline constexpr std::uintmax_t kMaxGraphFileBytes = std::uintmax_t{1} << 30;

/// Reads a graph file. With GraphFormat::Auto the format is detected from the content: a JSON object
/// with a "format" key is native, one with "nodes" and "links" is Checkmate, and a first line of two
/// integers is PFN cg text, a protobuf starting with ONNX's ir_version field is ONNX; otherwise the
/// extension decides (.json native, .txt PFN, .onnx ONNX). A missing or unreadable file, or one over
/// 1 GiB, is an error naming the file; so is a batch size for a format other than ONNX. Never throws.
[[nodiscard]] Result<graph::ComputeGraph> readGraphFile(const std::string& path, GraphFormat format = GraphFormat::Auto,
                                                        const ReadOptions& options = {});

/// The format for a command-line name: "auto", "native", "pfn", "checkmate" or "onnx"; nullopt otherwise.
[[nodiscard]] std::optional<GraphFormat> formatFromName(std::string_view name);

/// The command-line name of a format (inverse of formatFromName).
[[nodiscard]] std::string formatName(GraphFormat f);

}  // namespace remat::io
