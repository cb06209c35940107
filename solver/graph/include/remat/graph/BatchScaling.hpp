#pragma once

#include <cstdint>
#include <optional>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/Diagnostic.hpp"

namespace remat::graph {

/// The batch size a graph was built for: the leading dimension shared by its inputs' shapes, when the
/// file gives shapes; nullopt otherwise (the PFN graphs carry no shapes).
[[nodiscard]] std::optional<std::int64_t> inferBatchSize(const ComputeGraph& g);

/// The same network at another batch size: inputs, activations, workspace and times scale by
/// toBatch / fromBatch (rounded to the nearest integer; a nonzero size stays nonzero), parameters do
/// not; a leading shape dimension equal to fromBatch becomes toBatch. Fails on sizes that overflow.
[[nodiscard]] Result<ComputeGraph> scaleBatch(const ComputeGraph& g, std::int64_t fromBatch, std::int64_t toBatch);

}  // namespace remat::graph
