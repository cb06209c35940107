#include "remat/sim/Simulator.hpp"

#include <algorithm>
#include <vector>

namespace remat::sim {
namespace {

using graph::ComputeGraph;
using graph::Node;
using graph::NodeId;

// Distinct operation inputs that a node's backward needs the value of (its saved inputs that are
// operations, plus itself when it saves its output).
std::vector<NodeId> savedOpValues(const ComputeGraph& g, NodeId v) {
  const Node& n = g.node(v);
  std::vector<NodeId> out;
  for (std::uint32_t k : n.saves.inputs)
    if (g.isOp(n.inputs[k])) out.push_back(n.inputs[k]);
  if (n.saves.output) out.push_back(v);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<NodeId> distinctParamInputs(const ComputeGraph& g, NodeId v) {
  std::vector<NodeId> out;
  for (NodeId u : g.node(v).inputs)
    if (g.node(u).kind == graph::NodeKind::Param) out.push_back(u);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// For every step, the values whose current instance is used for the last time at that step (or that
// are never used after being computed there). A backward scan: a use is the last one when nothing
// later uses the same instance; a forward or an explicit free of v starts or ends an instance.
std::vector<std::vector<NodeId>> lastValueUses(const ComputeGraph& g, const Schedule& schedule) {
  std::vector<std::vector<NodeId>> freeAfter(schedule.size());
  std::vector<bool> usedLater(g.size(), false);
  auto use = [&](std::size_t s, NodeId u) {
    if (!usedLater[u.value]) {
      freeAfter[s].push_back(u);
      usedLater[u.value] = true;
    }
  };
  for (std::size_t s = schedule.size(); s-- > 0;) {
    const Step& step = schedule[s];
    if (step.node.value >= g.size() || !g.isOp(step.node)) continue;  // reported by the forward pass
    switch (step.kind) {
      case StepKind::Forward:
        for (NodeId u : g.opPredecessors(step.node)) use(s, u);
        if (!usedLater[step.node.value]) freeAfter[s].push_back(step.node);
        usedLater[step.node.value] = false;
        break;
      case StepKind::Backward:
        for (NodeId u : savedOpValues(g, step.node)) use(s, u);
        break;
      case StepKind::Free: usedLater[step.node.value] = false; break;
      case StepKind::FreeGrad: break;
    }
  }
  return freeAfter;
}

}  // namespace

SimulationResult Simulator::run(const Schedule& schedule) const {
  const ComputeGraph& g = m_graph;
  const std::size_t n = g.size();
  SimulationResult result;
  auto fail = [&](std::size_t s, const std::string& why) {
    result.error = ScheduleError{s, "step " + std::to_string(s) + " (" + describeStep(g, schedule[s]) + "): " + why};
    return result;
  };
  auto name = [&](NodeId v) { return "'" + g.node(v).name + "'"; };

  std::vector<std::vector<NodeId>> freeAfter;
  if (m_options.liveness) freeAfter = lastValueUses(g, schedule);

  std::vector<bool> alive(n, false);
  std::vector<bool> aliveIsRecompute(n, false);
  std::vector<std::uint32_t> computed(n, 0);
  std::vector<bool> gradPresent(n, false);
  std::vector<bool> bwdDone(n, false);
  std::vector<bool> paramGrad(n, false);
  std::vector<std::uint32_t> pendingConsumers(n, 0);
  for (std::uint32_t v = g.firstOp(); v < n; ++v)
    pendingConsumers[v] = static_cast<std::uint32_t>(g.successors(NodeId{v}).size());

  // Lifetimes, when asked: where each live value, gradient and parameter gradient began.
  const bool record = m_options.recordLifetimes;
  std::vector<std::size_t> valueFirst(record ? n : 0);
  std::vector<std::size_t> gradFirst(record ? n : 0);
  std::vector<std::size_t> paramGradFirst(record ? n : 0);
  std::size_t at = 0;  // the step being simulated
  using Kind = TensorLifetime::Kind;
  auto lifetime = [&](Kind kind, NodeId v, Bytes bytes, std::size_t first, std::size_t last) {
    if (record && bytes.value > 0) result.lifetimes.push_back(TensorLifetime{kind, v, bytes, first, last});
  };

  MemoryBreakdown mem;
  mem.params = g.paramBytes();
  mem.inputs = g.inputBytes();
  Ticks clock{0};

  auto freeValue = [&](NodeId v) {
    alive[v.value] = false;
    (aliveIsRecompute[v.value] ? mem.recomputed : mem.values) -= g.node(v).bytes;
    if (record) lifetime(aliveIsRecompute[v.value] ? Kind::Recomputed : Kind::Value, v, g.node(v).bytes, valueFirst[v.value], at);
  };
  auto freeGrad = [&](NodeId v) {
    gradPresent[v.value] = false;
    mem.grads -= g.node(v).bytes;
    if (record) lifetime(Kind::Grad, v, g.node(v).bytes, gradFirst[v.value], at);
  };

  result.timeline = MemoryTimeline{};
  for (std::size_t s = 0; s < schedule.size(); ++s) {
    const Step& step = schedule[s];
    const NodeId v = step.node;
    if (v.value >= n) return fail(s, "node index " + std::to_string(v.value) + " is not in the graph");
    if (!g.isOp(v))
      return fail(s, name(v) + " is an input or parameter: it is resident and has no forward or backward");
    const Node& node = g.node(v);
    MemoryBreakdown during = mem;
    at = s;

    switch (step.kind) {
      case StepKind::Forward: {
        if (alive[v.value]) return fail(s, "the value of " + name(v) + " is already in memory");
        for (NodeId u : g.opPredecessors(v))
          if (!alive[u.value]) return fail(s, "input " + name(u) + " is not in memory");
        const bool recompute = computed[v.value] > 0;
        ++computed[v.value];
        alive[v.value] = true;
        aliveIsRecompute[v.value] = recompute;
        if (record) valueFirst[v.value] = s;
        (recompute ? mem.recomputed : mem.values) += node.bytes;
        during = mem;
        during.workspace = node.workspace;
        clock += node.fwdTime;
        if (recompute) {
          result.overhead += node.fwdTime;
          ++result.recomputations;
        }
        break;
      }
      case StepKind::Backward: {
        if (bwdDone[v.value]) return fail(s, "the backward of " + name(v) + " already ran");
        if (pendingConsumers[v.value] > 0) {
          for (NodeId w : g.successors(v))
            if (!bwdDone[w.value])
              return fail(s, "the gradient of " + name(v) + " is incomplete: the backward of its consumer " +
                                 name(w) + " has not run");
        }
        if (g.successors(v).empty()) {
          if (computed[v.value] == 0) return fail(s, "output " + name(v) + " was never computed");
          gradPresent[v.value] = true;  // the seed gradient of an output
          mem.grads += node.bytes;
          if (record) gradFirst[v.value] = s;
        } else if (!gradPresent[v.value]) {
          return fail(s, "the gradient of " + name(v) + " is not in memory");
        }
        for (NodeId u : savedOpValues(g, v))
          if (!alive[u.value])
            return fail(s, u == v ? "its own output, which its backward keeps, is not in memory"
                                  : "the value of its input " + name(u) + ", which its backward keeps, is not in memory");
        for (NodeId u : g.opPredecessors(v))
          if (!gradPresent[u.value]) {
            gradPresent[u.value] = true;
            mem.grads += g.node(u).bytes;
            if (record) gradFirst[u.value] = s;
          }
        for (NodeId p : distinctParamInputs(g, v))
          if (!paramGrad[p.value]) {
            paramGrad[p.value] = true;
            mem.paramGrads += g.node(p).bytes;
            if (record) paramGradFirst[p.value] = s;
          }
        during = mem;
        during.workspace = node.workspace;
        clock += node.bwdTime;
        bwdDone[v.value] = true;
        for (NodeId u : g.opPredecessors(v)) --pendingConsumers[u.value];
        break;
      }
      case StepKind::Free:
        if (!alive[v.value]) {
          if (m_options.liveness) break;
          return fail(s, "the value of " + name(v) + " is not in memory");
        }
        freeValue(v);
        break;
      case StepKind::FreeGrad:
        if (!gradPresent[v.value]) {
          if (m_options.liveness) break;
          return fail(s, "the gradient of " + name(v) + " is not in memory");
        }
        if (!bwdDone[v.value]) return fail(s, "the gradient of " + name(v) + " is freed before its backward ran");
        freeGrad(v);
        break;
    }

    if (m_options.liveness) {
      for (NodeId u : freeAfter[s])
        if (alive[u.value]) freeValue(u);
      if (step.kind == StepKind::Backward && gradPresent[v.value]) freeGrad(v);
    }
    if (record && (step.kind == StepKind::Forward || step.kind == StepKind::Backward))
      lifetime(Kind::Workspace, v, node.workspace, s, s);
    result.timeline.push(TimelinePoint{during, mem.total(), clock});
  }
  if (record && !schedule.empty()) {
    // What is still allocated at the end lives to the last step; inputs and parameters throughout.
    const std::size_t last = schedule.size() - 1;
    for (std::uint32_t v = 0; v < n; ++v) {
      const NodeId id{v};
      const Node& node = g.node(id);
      if (node.kind == graph::NodeKind::Param) {
        lifetime(Kind::Param, id, node.bytes, 0, last);
        if (paramGrad[v]) lifetime(Kind::ParamGrad, id, node.bytes, paramGradFirst[v], last);
      } else if (node.kind == graph::NodeKind::Input) {
        lifetime(Kind::Input, id, node.bytes, 0, last);
      } else {
        if (alive[v]) lifetime(aliveIsRecompute[v] ? Kind::Recomputed : Kind::Value, id, node.bytes, valueFirst[v], last);
        if (gradPresent[v]) lifetime(Kind::Grad, id, node.bytes, gradFirst[v], last);
      }
    }
  }

  if (m_options.requireComplete) {
    const std::size_t end = schedule.size();
    // Report the latest node first: it is the next backward a truncated schedule should have run.
    for (auto v = static_cast<std::uint32_t>(n); v-- > g.firstOp();) {
      if (computed[v] == 0) {
        result.error = ScheduleError{end, "the schedule never computes '" + g.node(NodeId{v}).name + "'"};
        return result;
      }
      if (!bwdDone[v]) {
        result.error = ScheduleError{end, "the schedule ends before the backward of '" + g.node(NodeId{v}).name + "'"};
        return result;
      }
    }
  }
  for (std::uint32_t v = g.firstOp(); v < n; ++v)
    if (computed[v] > 1) ++result.recomputedNodes;
  result.peak = result.timeline.peak();
  result.peakStep = result.timeline.peakStep();
  result.totalTime = clock;
  return result;
}

}  // namespace remat::sim
