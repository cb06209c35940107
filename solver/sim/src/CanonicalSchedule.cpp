#include "remat/sim/CanonicalSchedule.hpp"

#include "remat/graph/LowerSets.hpp"

namespace remat::sim {

using graph::ComputeGraph;
using graph::NodeSet;
using graph::OpIndex;

Schedule storeAllSchedule(const ComputeGraph& g) {
  Schedule s;
  s.reserve(2 * g.opCount());
  for (std::uint32_t v = g.firstOp(); v < g.size(); ++v) s.push_back({StepKind::Forward, graph::NodeId{v}});
  for (auto v = static_cast<std::uint32_t>(g.size()); v-- > g.firstOp();)
    s.push_back({StepKind::Backward, graph::NodeId{v}});
  return s;
}

void checkLowerSetSequence(const ComputeGraph& g, const std::vector<NodeSet>& lowerSets) {
  if (lowerSets.empty()) throw InvalidLowerSetSequence("empty lower-set sequence");
  NodeSet previous = graph::emptySet(g);
  for (std::size_t i = 0; i < lowerSets.size(); ++i) {
    const NodeSet& l = lowerSets[i];
    if (l.universe() != g.opCount()) throw InvalidLowerSetSequence("lower set " + std::to_string(i + 1) + " has the wrong size");
    if (!graph::isLowerSet(g, l)) throw InvalidLowerSetSequence("set " + std::to_string(i + 1) + " is not a lower set");
    if (!previous.subsetOf(l) || previous == l)
      throw InvalidLowerSetSequence("lower set " + std::to_string(i + 1) + " does not strictly contain the previous one");
    previous = l;
  }
  if (previous != graph::fullSet(g)) throw InvalidLowerSetSequence("the last lower set is not the whole graph");
}

Schedule canonicalSchedule(const ComputeGraph& g, const std::vector<NodeSet>& lowerSets) {
  checkLowerSetSequence(g, lowerSets);
  const std::size_t k = lowerSets.size();
  std::vector<NodeSet> segment(k);     // V_i
  std::vector<NodeSet> recompute(k);   // V_i \ ∂(L_i)
  NodeSet previous = graph::emptySet(g);
  for (std::size_t i = 0; i < k; ++i) {
    segment[i] = lowerSets[i] - previous;
    recompute[i] = segment[i] - graph::boundary(g, lowerSets[i]);
    previous = lowerSets[i];
  }
  Schedule s;
  s.reserve(4 * g.opCount());
  auto emit = [&](StepKind kind, OpIndex i) { s.push_back({kind, g.opNode(i)}); };

  // Forward: compute each segment, then drop what is not on its boundary.
  for (std::size_t i = 0; i < k; ++i) {
    segment[i].forEach([&](OpIndex v) { emit(StepKind::Forward, v); });
    recompute[i].forEach([&](OpIndex v) { emit(StepKind::Free, v); });
  }
  // Backward: last segment first; recompute from the kept boundary, backward in reverse order, drop.
  for (std::size_t i = k; i-- > 0;) {
    recompute[i].forEach([&](OpIndex v) { emit(StepKind::Forward, v); });
    const std::vector<OpIndex> members = segment[i].members();
    for (auto it = members.rbegin(); it != members.rend(); ++it) {
      emit(StepKind::Backward, *it);
      emit(StepKind::FreeGrad, *it);
    }
    for (OpIndex v : members) emit(StepKind::Free, v);
  }
  return s;
}

}  // namespace remat::sim
