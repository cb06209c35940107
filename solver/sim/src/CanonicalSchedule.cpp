#include "remat/sim/CanonicalSchedule.hpp"

#include "remat/graph/LowerSets.hpp"
#include "remat/sim/Simulator.hpp"

namespace remat::sim {

using graph::ComputeGraph;
using graph::NodeSet;
using graph::OpIndex;

Schedule storeAllSchedule(const ComputeGraph& g) {
  Schedule s;
  s.reserve(2 * g.opCount());
  for (std::uint32_t v = g.firstOp(); v < g.size(); ++v) s.push_back({StepKind::Forward, graph::NodeId{v}});
  if (g.asGiven()) return s;  // the whole computation: no backward pass
  for (auto v = static_cast<std::uint32_t>(g.size()); v-- > g.firstOp();)
    s.push_back({StepKind::Backward, graph::NodeId{v}});
  return s;
}

void checkLowerSetSequence(const ComputeGraph& g, const std::vector<NodeSet>& lowerSets) {
  if (lowerSets.empty()) throw InvalidLowerSetSequence("empty lower-set sequence");
  NodeSet previous = graph::emptySet(g);
  for (std::size_t i = 0; i < lowerSets.size(); ++i) {
    const NodeSet& l = lowerSets[i];
    if (l.universe() != g.opCount())
      throw InvalidLowerSetSequence("lower set " + std::to_string(i + 1) + " has the wrong size");
    if (!graph::isLowerSet(g, l)) throw InvalidLowerSetSequence("set " + std::to_string(i + 1) + " is not a lower set");
    if (!previous.subsetOf(l) || previous == l)
      throw InvalidLowerSetSequence("lower set " + std::to_string(i + 1) +
                                    " does not strictly contain the previous one");
    previous = l;
  }
  if (previous != graph::fullSet(g)) throw InvalidLowerSetSequence("the last lower set is not the whole graph");
}

NodeSet neededRecomputation(const ComputeGraph& g, const NodeSet& segment, const NodeSet& next) {
  const NodeSet candidates = segment - graph::boundary(g, next);
  NodeSet needed = graph::emptySet(g);
  // Reverse topological order: whatever marks a value (a backward keeping it, a needed consumer) has a
  // larger index or is the value itself, so a value is marked before it is looked at.
  const std::vector<OpIndex> members = segment.members();
  for (std::size_t m = members.size(); m-- > 0;) {
    const OpIndex member = members[m];
    const graph::NodeId w = g.opNode(member);
    for (graph::NodeId u : savedOpValues(g, w))
      if (candidates.contains(g.opIndex(u))) needed.insert(g.opIndex(u));
    if (!needed.contains(member)) continue;
    for (graph::NodeId u : g.opPredecessors(w))
      if (candidates.contains(g.opIndex(u))) needed.insert(g.opIndex(u));
  }
  return needed;
}

ChainLowering lowerChain(const ComputeGraph& g, const std::vector<NodeSet>& lowerSets) {
  checkLowerSetSequence(g, lowerSets);
  const std::size_t k = lowerSets.size();
  ChainLowering out;
  NodeSet previous = graph::emptySet(g);
  for (std::size_t i = 0; i < k; ++i) {
    NodeSet segment = lowerSets[i] - previous;
    if (i + 1 < k) {
      out.checkpoints.push_back(segment & graph::boundary(g, lowerSets[i]));
      out.recompute.push_back(neededRecomputation(g, segment, lowerSets[i]));
    } else {
      out.checkpoints.push_back(graph::emptySet(g));
      out.recompute.push_back(graph::emptySet(g));
    }
    out.segments.push_back(std::move(segment));
    previous = lowerSets[i];
  }
  return out;
}

namespace {

// The two lowerings differ only in what a segment frees after its forward and recomputes in its
// backward; `forgotten[i]` is freed after V_i's forward, `recompute[i]` recomputed before its backward.
Schedule lower(const ComputeGraph& g, const std::vector<NodeSet>& segments, const std::vector<NodeSet>& forgotten,
               const std::vector<NodeSet>& recompute) {
  const std::size_t k = segments.size();
  Schedule s;
  s.reserve(4 * g.opCount());
  auto emit = [&](StepKind kind, OpIndex i) { s.push_back({kind, g.opNode(i)}); };
  for (std::size_t i = 0; i < k; ++i) {
    segments[i].forEach([&](OpIndex v) { emit(StepKind::Forward, v); });
    forgotten[i].forEach([&](OpIndex v) { emit(StepKind::Free, v); });
  }
  for (std::size_t i = k; i-- > 0;) {
    recompute[i].forEach([&](OpIndex v) { emit(StepKind::Forward, v); });
    const std::vector<OpIndex> members = segments[i].members();
    for (std::size_t m = members.size(); m-- > 0;) {
      emit(StepKind::Backward, members[m]);
      emit(StepKind::FreeGrad, members[m]);
    }
    // What is still in memory without liveness analysis: the kept part of the segment and what was
    // recomputed (explicit frees keep a schedule bounded when it is simulated without liveness).
    ((segments[i] - forgotten[i]) | recompute[i]).forEach([&](OpIndex v) { emit(StepKind::Free, v); });
  }
  return s;
}

}  // namespace

Schedule canonicalSchedule(const ComputeGraph& g, const std::vector<NodeSet>& lowerSets) {
  ChainLowering c = lowerChain(g, lowerSets);
  std::vector<NodeSet> forgotten;
  for (std::size_t i = 0; i < c.segments.size(); ++i)
    forgotten.push_back(i + 1 < c.segments.size() ? c.segments[i] - c.checkpoints[i] : graph::emptySet(g));
  return lower(g, c.segments, forgotten, c.recompute);
}

Schedule paperSchedule(const ComputeGraph& g, const std::vector<NodeSet>& lowerSets) {
  checkLowerSetSequence(g, lowerSets);
  std::vector<NodeSet> segments;
  std::vector<NodeSet> recompute;
  NodeSet previous = graph::emptySet(g);
  for (const NodeSet& l : lowerSets) {
    segments.push_back(l - previous);
    recompute.push_back(segments.back() - graph::boundary(g, l));
    previous = l;
  }
  return lower(g, segments, recompute, recompute);
}

}  // namespace remat::sim
