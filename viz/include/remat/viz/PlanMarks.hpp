#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/NodeSet.hpp"
#include "remat/sim/Schedule.hpp"
#include "remat/viz/Theme.hpp"

namespace remat::viz {

/// What a plan does with each node, for the drawings: its role, and for canonical plans the lower-set
/// segment V_i = L_i \ L_{i-1} it belongs to. Both are indexed by NodeId value (size g.size()).
///
/// Roles: `Recomputed` when the schedule computes the node more than once. Otherwise, with lower sets,
/// `Kept` on a boundary ∂(L_i); without them (baselines' plans), `Kept` when its value is alive as the
/// backward pass begins and some recomputation reads it (a checkpoint), `NeverFreed` when it is alive
/// then but no recomputation reads it. Everything else (inputs, parameters, values dropped in the
/// forward pass because no backward needs them) is `Other`.
struct NodeMarks {
  std::vector<NodeRole> role;
  std::vector<int> segment;  ///< 0-based segment index, -1 when the plan has no lower sets or for non-ops
  int segments = 0;          ///< number of segments
  /// How many times the schedule computes each node (its forward steps); empty when not known.
  std::vector<std::uint32_t> computations;
};

[[nodiscard]] NodeMarks planMarks(const graph::ComputeGraph& g, const sim::Schedule& schedule,
                                  const std::optional<std::vector<graph::NodeSet>>& lowerSets);

}  // namespace remat::viz
