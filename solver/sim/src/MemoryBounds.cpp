#include "remat/sim/MemoryBounds.hpp"

#include <algorithm>
#include <vector>

#include "remat/sim/Simulator.hpp"

namespace remat::sim {

Bytes memoryLowerBound(const graph::ComputeGraph& g) {
  using graph::NodeId;
  if (g.asGiven()) {
    // No backward pass: each forward needs its inputs, its output and its workspace at once.
    Bytes worst{0};
    for (std::uint32_t v = g.firstOp(); v < g.size(); ++v) {
      const NodeId id{v};
      Bytes need = g.node(id).bytes + g.node(id).workspace;
      for (NodeId u : g.opPredecessors(id)) need += g.node(u).bytes;
      worst = std::max(worst, need);
    }
    return g.paramBytes() + g.inputBytes() + worst;
  }
  Bytes paramGrads{0};
  std::vector<bool> hasConsumer(g.size(), false);
  for (std::uint32_t v = g.firstOp(); v < g.size(); ++v)
    for (NodeId u : g.node(NodeId{v}).inputs) hasConsumer[u.value] = true;
  for (std::uint32_t p = 0; p < g.firstOp(); ++p)
    if (g.node(NodeId{p}).hasGradient() && hasConsumer[p]) paramGrads += g.node(NodeId{p}).bytes;

  const ViewInfo views = viewInfo(g);
  Bytes worst = paramGrads;  // the last step, when every parameter gradient exists
  for (std::uint32_t v = g.firstOp(); v < g.size(); ++v) {
    const NodeId id{v};
    const graph::Node& n = g.node(id);
    Bytes inputs{0};
    Bytes inputGrads{0};
    Bytes paramInputs{0};
    for (NodeId u : g.opPredecessors(id)) {
      inputs += g.node(u).bytes;
      inputGrads += views.gradBytes[u.value];
    }
    for (NodeId p : distinctParamInputs(g, id)) paramInputs += g.node(p).bytes;
    Bytes saved{0};  // the operation values the backward keeps, v itself included when it keeps its output
    for (NodeId u : savedOpValues(g, id)) saved += g.node(u).bytes;
    const Bytes forward = n.bytes + inputs + n.workspace;
    const Bytes backward = views.gradBytes[v] + saved + inputGrads + paramInputs + n.bwdWorkspace;
    worst = std::max({worst, forward, backward});
  }
  return g.paramBytes() + g.inputBytes() + worst;
}

}  // namespace remat::sim
