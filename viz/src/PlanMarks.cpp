#include "remat/viz/PlanMarks.hpp"

#include "remat/sim/Simulator.hpp"

namespace remat::viz {

NodeMarks planMarks(const graph::ComputeGraph& g, const sim::Schedule& schedule,
                    const std::optional<std::vector<graph::NodeSet>>& lowerSets) {
  const std::size_t n = g.size();
  NodeMarks marks;
  marks.role.assign(n, NodeRole::Other);
  marks.segment.assign(n, -1);
  std::vector<std::uint32_t> forwards(n, 0);
  std::vector<bool> readByRecompute(n, false);
  std::size_t turn = schedule.size();  // the first backward step
  for (std::size_t s = 0; s < schedule.size(); ++s) {
    const sim::Step& step = schedule[s];
    if (step.node.value >= n) continue;
    if (step.kind == sim::StepKind::Backward && turn == schedule.size()) turn = s;
    if (step.kind != sim::StepKind::Forward) continue;
    if (forwards[step.node.value]++ > 0)
      for (graph::NodeId u : g.opPredecessors(step.node)) readByRecompute[u.value] = true;
  }

  if (lowerSets) {
    marks.segments = static_cast<int>(lowerSets->size());
    for (std::size_t i = lowerSets->size(); i-- > 0;)
      for (std::uint32_t k = 0; k < g.opCount(); ++k)
        if ((*lowerSets)[i].contains(graph::OpIndex{k}))
          marks.segment[g.opNode(graph::OpIndex{k}).value] = static_cast<int>(i);
  }
  // The sets are nested, so v (in segment i) is on the boundary of some L_j, j >= i, exactly when a
  // consumer lies in a later segment.
  std::vector<bool> boundary(n, false);
  if (lowerSets)
    for (std::uint32_t v = g.firstOp(); v < n; ++v)
      for (graph::NodeId w : g.successors(graph::NodeId{v}))
        if (marks.segment[w.value] > marks.segment[v]) boundary[v] = true;

  // Without lower sets: which values are alive as the backward pass begins (liveness as the simulator
  // applies it).
  std::vector<bool> aliveAtTurn(n, false);
  if (!lowerSets && turn < schedule.size()) {
    sim::SimulatorOptions options;
    options.requireComplete = false;
    options.recordLifetimes = true;
    const sim::SimulationResult r = sim::Simulator(g, options).run(schedule);
    for (const sim::TensorLifetime& t : r.lifetimes)
      if ((t.kind == sim::TensorLifetime::Kind::Value || t.kind == sim::TensorLifetime::Kind::Recomputed) &&
          t.first < turn && t.last >= turn)
        aliveAtTurn[t.node.value] = true;
  }

  for (std::uint32_t v = g.firstOp(); v < n; ++v) {
    NodeRole& role = marks.role[v];
    if (forwards[v] > 1)
      role = NodeRole::Recomputed;
    else if (forwards[v] == 1 && lowerSets) {
      // Not a checkpoint and computed once: kept from its forward when the last segment's backward
      // reads it (canonical schedules keep the last segment), else dropped and never needed again.
      const bool last = marks.segment[v] + 1 == marks.segments;
      const graph::NodeId id{v};
      bool read = false;
      if (last)
        for (graph::NodeId w : g.successors(id))
          for (graph::NodeId u : sim::savedOpValues(g, w)) read |= u == id;
      if (last)
        for (graph::NodeId u : sim::savedOpValues(g, id)) read |= u == id;
      role = boundary[v] ? NodeRole::Kept : read ? NodeRole::NeverFreed : NodeRole::Other;
    } else if (forwards[v] == 1 && aliveAtTurn[v])
      role = readByRecompute[v] ? NodeRole::Kept : NodeRole::NeverFreed;
  }
  marks.computations = std::move(forwards);
  return marks;
}

}  // namespace remat::viz
