#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/NodeSet.hpp"

namespace remat::solvers {

/// Chen, Xu, Zhang, Guestrin, "Training Deep Nets with Sublinear Memory Cost", arXiv:1604.06174, 2016.
/// Both variants cut the graph only at single-boundary lower sets: the closure L_v = ancestors(v) ∪ {v}
/// of an operation v whose only member with a consumer outside L_v is v itself. The cuts used form the
/// longest chain of such closures under inclusion. A plan is the canonical schedule of the chosen cuts.

/// The single-boundary closures that form the longest inclusion chain, smallest first (V excluded).
[[nodiscard]] std::vector<graph::NodeSet> chenCutChain(const graph::ComputeGraph& g);
/// The same, asking `stopped` between operations: each closure costs a pass over the graph and the chain
/// a pass over the cuts found before it, so a 100,000-op chain takes minutes. nullopt when stopped.
[[nodiscard]] std::optional<std::vector<graph::NodeSet>> chenCutChain(const graph::ComputeGraph& g,
                                                                      const std::function<bool()>& stopped);

}  // namespace remat::solvers
