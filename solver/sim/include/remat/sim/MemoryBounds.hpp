#pragma once

#include "remat/graph/ComputeGraph.hpp"

namespace remat::sim {

/// A lower bound on the peak of any complete schedule in the simulator's accounting: inputs and
/// parameters are always resident, and some step must hold, for each operation v, what its forward
/// needs (v and its operation inputs) and what its backward needs (the gradient of v, the values it
/// keeps, the gradients it produces, the gradients of its parameters), and at the last step every
/// parameter gradient exists. Workspace of the running step is included. O(|V| + |E|).
[[nodiscard]] Bytes memoryLowerBound(const graph::ComputeGraph& g);

}  // namespace remat::sim
