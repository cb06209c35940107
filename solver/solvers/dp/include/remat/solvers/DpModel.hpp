#pragma once

#include <cstddef>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/NodeSet.hpp"
#include "remat/solvers/SimulatedDpModel.hpp"

namespace remat::solvers {

/// The memory and time of a lower-set sequence in the model of Kusumoto et al. 2019, Section 3
/// (docs/architecture.md section 5.1). Only operation nodes count: inputs and parameters are outside V.
struct DpModelCost {
  Bytes peak{0};                ///< M = max_i [M(U_{i-1}) + 2 M(V_i) + M(A_i) + M(B_i)]
  Ticks overhead{0};            ///< T = Σ_i T(V_i \ ∂(L_i))
  std::size_t peakSegment = 0;  ///< the 0-based i that attains the peak
  Bytes checkpointBytes{0};     ///< M(U_k), all boundaries kept
};

/// Evaluates a sequence ∅ ⊊ L_1 ⊊ ... ⊊ L_k = V in the paper's model; throws sim::InvalidLowerSetSequence
/// otherwise.
[[nodiscard]] DpModelCost evaluateDpModel(const graph::ComputeGraph& g, const std::vector<graph::NodeSet>& lowerSets);

/// The same figures in either model (the simulator's: evaluateSimulatedModel).
[[nodiscard]] DpModelCost evaluateChainModel(const graph::ComputeGraph& g, const std::vector<graph::NodeSet>& lowerSets,
                                             DpModelKind model);

}  // namespace remat::solvers
