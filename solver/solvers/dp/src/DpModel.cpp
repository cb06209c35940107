#include "remat/solvers/DpModel.hpp"

#include "remat/graph/LowerSets.hpp"
#include "remat/sim/CanonicalSchedule.hpp"

namespace remat::solvers {

DpModelCost evaluateDpModel(const graph::ComputeGraph& g, const std::vector<graph::NodeSet>& lowerSets) {
  sim::checkLowerSetSequence(g, lowerSets);
  DpModelCost cost;
  graph::NodeSet previous = graph::emptySet(g);
  graph::NodeSet kept = graph::emptySet(g);  // U_{i-1}
  for (std::size_t i = 0; i < lowerSets.size(); ++i) {
    const graph::NodeSet& l = lowerSets[i];
    const graph::NodeSet segment = l - previous;                             // V_i
    const graph::NodeSet border = graph::boundary(g, l);                     // ∂(L_i)
    const graph::NodeSet after = graph::successorsOf(g, l) - l;              // A_i
    const graph::NodeSet otherInputs = graph::predecessorsOf(g, after) - l;  // B_i
    const Bytes term = graph::bytesOf(g, kept) + 2 * graph::bytesOf(g, segment) + graph::bytesOf(g, after) +
                       graph::bytesOf(g, otherInputs);
    if (i == 0 || term > cost.peak) {
      cost.peak = term;
      cost.peakSegment = i;
    }
    cost.overhead += graph::timeOf(g, segment - border);
    kept |= border;
    previous = l;
  }
  cost.checkpointBytes = graph::bytesOf(g, kept);
  return cost;
}

DpModelCost evaluateChainModel(const graph::ComputeGraph& g, const std::vector<graph::NodeSet>& lowerSets,
                               DpModelKind model) {
  if (model == DpModelKind::Paper) return evaluateDpModel(g, lowerSets);
  const SimulatedChainCost c = evaluateSimulatedModel(g, lowerSets);
  return DpModelCost{Bytes{c.peak}, Ticks{c.overhead}, c.peakSegment, Bytes{c.checkpointBytes}};
}

}  // namespace remat::solvers
