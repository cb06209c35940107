#pragma once

#include <string>

#include "remat/graph/ComputeGraph.hpp"

namespace remat::io {

/// Graphviz DOT text of a graph for quick looks: operations as boxes labelled with id, operation type
/// and size, inputs and parameters as ellipses, one edge per distinct (producer, consumer) pair. Ids
/// are always quoted and escaped, so any node name is safe.
[[nodiscard]] std::string writeDot(const graph::ComputeGraph& g);

}  // namespace remat::io
