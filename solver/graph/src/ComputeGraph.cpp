#include "remat/graph/ComputeGraph.hpp"

#include <algorithm>

#include "remat/graph/BoostTopology.hpp"

namespace remat::graph {

std::optional<NodeId> ComputeGraph::find(std::string_view name) const {
  auto it = m_byName.find(std::string(name));
  if (it == m_byName.end()) return std::nullopt;
  return it->second;
}

void ComputeGraph::index() {
  const std::size_t n = m_nodes.size();
  m_firstOp = 0;
  while (m_firstOp < n && m_nodes[m_firstOp].kind != NodeKind::Op) ++m_firstOp;

  std::vector<std::vector<NodeId>> succ(n);
  std::vector<std::vector<NodeId>> opPred(n);
  for (std::uint32_t v = 0; v < n; ++v) {
    for (NodeId u : m_nodes[v].inputs) {
      succ[u.value].push_back(NodeId{v});
      if (isOp(u)) opPred[v].push_back(u);
    }
  }
  auto flatten = [n](std::vector<std::vector<NodeId>>& lists, std::vector<std::uint32_t>& offsets,
                     std::vector<NodeId>& flat) {
    offsets.assign(n + 1, 0);
    flat.clear();
    for (std::size_t v = 0; v < n; ++v) {
      auto& l = lists[v];
      std::sort(l.begin(), l.end());
      l.erase(std::unique(l.begin(), l.end()), l.end());
      flat.insert(flat.end(), l.begin(), l.end());
      offsets[v + 1] = static_cast<std::uint32_t>(flat.size());
    }
  };
  flatten(succ, m_succOffsets, m_succ);
  flatten(opPred, m_opPredOffsets, m_opPred);

  m_outputs.clear();
  m_byName.clear();
  m_paramBytes = m_inputBytes = m_opBytes = Bytes{0};
  m_fwdTime = Ticks{0};
  auto topology = std::make_shared<detail::Topology>();
  topology->graph = detail::BoostGraph(n);
  for (std::uint32_t v = 0; v < n; ++v) {
    const Node& node = m_nodes[v];
    m_byName.emplace(node.name, NodeId{v});
    switch (node.kind) {
      case NodeKind::Input: m_inputBytes += node.bytes; break;
      case NodeKind::Param: m_paramBytes += node.bytes; break;
      case NodeKind::Op:
        m_opBytes += node.bytes;
        m_fwdTime += node.fwdTime;
        if (const NodeId id{v}; successors(id).empty()) m_outputs.push_back(id);
        break;
    }
    for (NodeId w : successors(NodeId{v})) boost::add_edge(v, w.value, topology->graph);
  }
  m_topology = std::move(topology);
}

bool ComputeGraph::sameAs(const ComputeGraph& other) const {
  if (size() != other.size() || m_backward.size() != other.m_backward.size()) return false;
  if (m_name != other.m_name || m_timeUnit != other.m_timeUnit || m_costModel != other.m_costModel) return false;
  if (m_asGiven != other.m_asGiven) return false;
  const auto sameNames = [this, &other](const std::vector<NodeId>& x, const std::vector<NodeId>& y) {
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (node(x[i]).name != other.node(y[i]).name) return false;
    return true;
  };
  if (!sameNames(m_pinnedKeep, other.m_pinnedKeep) || !sameNames(m_pinnedRecompute, other.m_pinnedRecompute))
    return false;
  for (const Node& a : m_nodes) {
    auto id = other.find(a.name);
    if (!id) return false;
    const Node& b = other.node(*id);
    if (a.kind != b.kind || a.op != b.op || a.bytes != b.bytes || a.shape != b.shape || a.dtype != b.dtype ||
        a.fwdTime != b.fwdTime || a.bwdTime != b.bwdTime || a.saves != b.saves || a.workspace != b.workspace ||
        a.bwdWorkspace != b.bwdWorkspace || a.attrs != b.attrs || a.inputs.size() != b.inputs.size())
      return false;
    for (std::size_t i = 0; i < a.inputs.size(); ++i)
      if (node(a.inputs[i]).name != other.node(b.inputs[i]).name) return false;
  }
  for (std::size_t i = 0; i < m_backward.size(); ++i) {
    const BackwardNode& a = m_backward[i];
    const BackwardNode& b = other.m_backward[i];
    if (a.name != b.name || a.time != b.time || a.bytes != b.bytes || a.inputs.size() != b.inputs.size() ||
        a.gradientOf.valid() != b.gradientOf.valid())
      return false;
    if (a.gradientOf.valid() && node(a.gradientOf).name != other.node(b.gradientOf).name) return false;
    for (std::size_t k = 0; k < a.inputs.size(); ++k) {
      const BackwardRef& x = a.inputs[k];
      const BackwardRef& y = b.inputs[k];
      if (x.side != y.side) return false;
      if (x.side == BackwardRef::Side::Forward ? node(NodeId{x.index}).name != other.node(NodeId{y.index}).name
                                               : x.index != y.index)
        return false;
    }
  }
  return true;
}

ComputeGraph ComputeGraph::computedAsGiven() const {
  ComputeGraph g = *this;
  g.m_asGiven = true;
  g.m_backward.clear();
  return g;
}

ComputeGraph ComputeGraph::withoutPins() const {
  ComputeGraph g = *this;
  g.m_pinnedKeep.clear();
  g.m_pinnedRecompute.clear();
  return g;
}

ComputeGraph ComputeGraph::withNodes(std::vector<Node> nodes, std::string costModel,
                                     std::optional<std::string> timeUnit) const {
  ComputeGraph g = *this;
  g.m_nodes = std::move(nodes);
  g.m_costModel = std::move(costModel);
  if (timeUnit) g.m_timeUnit = std::move(*timeUnit);
  g.index();
  return g;
}

}  // namespace remat::graph
