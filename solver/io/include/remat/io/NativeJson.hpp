#pragma once

#include <string>
#include <string_view>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/Diagnostic.hpp"

namespace remat::io {

/// Parses Remat's native graph JSON (`"format": "remat-graph", "version": 1`; schema in
/// docs/remat-graph.schema.json). `fileName` is used in messages only. Errors name the JSON path
/// (`/nodes/3/bytes`) or, for syntax errors, the line. Unknown keys are ignored with a warning.
/// Never throws.
[[nodiscard]] Result<graph::ComputeGraph> readNativeJson(std::string_view text, const std::string& fileName);

/// Writes a graph as native JSON: pretty-printed, deterministic, every node in ComputeGraph order,
/// ending with a newline. readNativeJson(writeNativeJson(g)) is sameAs(g).
[[nodiscard]] std::string writeNativeJson(const graph::ComputeGraph& g);

}  // namespace remat::io
