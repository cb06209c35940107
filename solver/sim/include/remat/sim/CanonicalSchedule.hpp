#pragma once

#include <stdexcept>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/NodeSet.hpp"
#include "remat/sim/Schedule.hpp"

namespace remat::sim {

/// Thrown when a lower-set sequence handed to the lowering is not ∅ ⊊ L_1 ⊊ ... ⊊ L_k = V of lower sets.
class InvalidLowerSetSequence : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// The framework's plain run: every forward in topological order, then every backward in reverse.
[[nodiscard]] Schedule storeAllSchedule(const graph::ComputeGraph& g);

/// The canonical schedule of a lower-set sequence L_1 ⊊ ... ⊊ L_k = V (ARCHITECTURE.md section 5.1;
/// Kusumoto et al. 2019, Section 3): forward segment by segment, keeping after segment i only the values
/// of ∂(L_i) (so U_i = ∂(L_1) ∪ ... ∪ ∂(L_i) stays in memory); backward segment by segment from the last,
/// recomputing V_i \ ∂(L_i) from the kept boundary, running V_i's backward in reverse topological order,
/// then dropping V_i's values and gradients. The simulated overhead of this schedule is the paper's
/// T(L_1..L_k) = Σ T(V_i \ ∂(L_i)) exactly (the last segment too, as in the paper's model).
[[nodiscard]] Schedule canonicalSchedule(const graph::ComputeGraph& g, const std::vector<graph::NodeSet>& lowerSets);

/// Checks the lower-set sequence precondition of canonicalSchedule; throws InvalidLowerSetSequence.
void checkLowerSetSequence(const graph::ComputeGraph& g, const std::vector<graph::NodeSet>& lowerSets);

}  // namespace remat::sim
