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

/// The framework's plain run: every forward in topological order, then every backward in reverse (a
/// graph computed as given: the forwards only).
[[nodiscard]] Schedule storeAllSchedule(const graph::ComputeGraph& g);

/// What the canonical lowering does with each segment V_i = L_i \ L_{i-1} of a lower-set chain.
struct ChainLowering {
  std::vector<graph::NodeSet> segments;     ///< V_i
  std::vector<graph::NodeSet> checkpoints;  ///< ∂(L_i) ∩ V_i, kept from the forward pass (none for the last)
  std::vector<graph::NodeSet> recompute;    ///< what V_i's backward recomputes (none for the last segment)
};

/// The values the backward of segment `segment` (of lower set `next`, not the last one) recomputes:
/// the members outside ∂(next) that some later step of that backward reads, either because a backward
/// of the segment keeps them (`saves`) or because a value recomputed there is computed from them.
[[nodiscard]] graph::NodeSet neededRecomputation(const graph::ComputeGraph& g, const graph::NodeSet& segment,
                                                 const graph::NodeSet& next);

/// The segments, checkpoints and recomputations of a chain; throws InvalidLowerSetSequence.
[[nodiscard]] ChainLowering lowerChain(const graph::ComputeGraph& g, const std::vector<graph::NodeSet>& lowerSets);

/// The canonical schedule of a lower-set chain ∅ ⊊ L_1 ⊊ ... ⊊ L_k = V (docs/simulator.md, "Lowering a
/// chain"): forward segment by segment; after segment i < k only its checkpoints ∂(L_i) ∩ V_i are kept
/// (the rest is freed, later uses or not); the last segment keeps what its own backward reads. Backward
/// segment by segment from the last: segment i < k recomputes, in topological order, only the values a
/// later step of its backward reads (neededRecomputation), then runs V_i's backward in reverse
/// topological order, freeing each gradient after its backward and the segment's values at its end.
/// With liveness analysis every value is freed right after its last use, checkpoints included. Its
/// simulated overhead is Σ_{i<k} T(recompute_i).
[[nodiscard]] Schedule canonicalSchedule(const graph::ComputeGraph& g, const std::vector<graph::NodeSet>& lowerSets);

/// The paper's lowering (Kusumoto et al. 2019, Section 3; `--model paper`): as above, but every segment,
/// the last one too, recomputes all of V_i \ ∂(L_i) whether or not anything reads it. Its simulated
/// overhead is the paper's T(L_1..L_k) = Σ T(V_i \ ∂(L_i)) exactly.
[[nodiscard]] Schedule paperSchedule(const graph::ComputeGraph& g, const std::vector<graph::NodeSet>& lowerSets);

/// Checks the lower-set sequence precondition of canonicalSchedule; throws InvalidLowerSetSequence.
void checkLowerSetSequence(const graph::ComputeGraph& g, const std::vector<graph::NodeSet>& lowerSets);

}  // namespace remat::sim
