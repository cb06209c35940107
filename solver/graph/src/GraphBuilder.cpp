#include "remat/graph/GraphBuilder.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <unordered_map>

#include "remat/graph/PrintableText.hpp"

namespace remat::graph {
namespace {

bool addChecked(std::int64_t& total, std::int64_t v) { return !__builtin_add_overflow(total, v, &total); }

// A cycle among the nodes Kahn's algorithm could not order, as "a -> b -> ... -> a".
std::string describeCycle(const std::vector<NodeSpec>& specs, const std::vector<std::vector<std::uint32_t>>& preds,
                          const std::vector<bool>& stuck) {
  // Every stuck node has a stuck predecessor, so walking predecessors must revisit a node.
  std::uint32_t start = 0;
  while (!stuck[start]) ++start;
  std::vector<int> seenAt(specs.size(), -1);
  std::vector<std::uint32_t> walk;
  std::uint32_t v = start;
  while (seenAt[v] < 0) {
    seenAt[v] = static_cast<int>(walk.size());
    walk.push_back(v);
    for (std::uint32_t u : preds[v])
      if (stuck[u]) {
        v = u;
        break;
      }
  }
  std::vector<std::uint32_t> cycle(walk.begin() + seenAt[v], walk.end());
  std::reverse(cycle.begin(), cycle.end());  // predecessor walk, so reverse into data-flow order
  // Start at the node defined first in the file, so the message is stable.
  std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
  std::string out;
  for (std::uint32_t c : cycle) out += quotedName(specs[c].name) + " -> ";
  out += quotedName(specs[cycle.front()].name);
  return out;
}

}  // namespace

Result<ComputeGraph> GraphBuilder::build() {
  std::vector<Diagnostic> errors;
  auto fail = [&errors](const SourceLocation& where, std::string message) {
    errors.push_back({where, std::move(message)});
  };
  const std::size_t n = m_specs.size();
  if (n >= std::numeric_limits<std::uint32_t>::max() - 1) {
    fail(m_source, "too many nodes (" + std::to_string(n) + ")");
    return Result<ComputeGraph>::failure(std::move(errors));
  }

  std::unordered_map<std::string, std::uint32_t> byName;
  byName.reserve(n);
  std::size_t ops = 0;
  std::int64_t totalBytes = 0;
  std::int64_t totalTime = 0;
  bool overflowReported = false;
  for (std::uint32_t i = 0; i < n; ++i) {
    NodeSpec& s = m_specs[i];
    // Built only for a message: escaping every name of a large graph up front would cost for nothing.
    const auto who = [&s] { return "node " + quotedName(s.name); };
    if (s.name.empty())
      fail(s.where, "node id is empty");
    else if (auto [it, fresh] = byName.emplace(s.name, i); !fresh)
      fail(s.where, "duplicate node id " + quotedName(s.name) + " (first defined at " +
                        m_specs[it->second].where.toString() + ")");
    if (s.kind == NodeKind::Op)
      ++ops;
    else if (!s.inputs.empty())
      fail(s.where, who() + ": a " + std::string(nodeKindName(s.kind)) + " node cannot have inputs");
    if (s.bytes < 0) fail(s.where, who() + ": negative size " + std::to_string(s.bytes) + " bytes");
    if (s.workspace < 0) fail(s.where, who() + ": negative workspace " + std::to_string(s.workspace) + " bytes");
    if (s.bwdWorkspace && *s.bwdWorkspace < 0)
      fail(s.where, who() + ": negative bwd_workspace " + std::to_string(*s.bwdWorkspace) + " bytes");
    if (s.fwdTime < 0) fail(s.where, who() + ": negative fwd_time " + std::to_string(s.fwdTime));
    if (s.bwdTime < 0) fail(s.where, who() + ": negative bwd_time " + std::to_string(s.bwdTime));
    for (std::int64_t d : s.shape)
      if (d < 0) {
        fail(s.where, who() + ": negative dimension " + std::to_string(d) + " in shape");
        break;
      }
    // A shape is a tensor's: its element count (the product, checked) is at most what a graph may hold.
    std::int64_t elements = 1;
    for (std::int64_t d : s.shape)
      if (d > 0 && (__builtin_mul_overflow(elements, d, &elements) || elements > kMaxGraphTotal)) {
        fail(s.where, who() + ": the shape holds more than 2^60 elements");
        break;
      }
    std::sort(s.saves.inputs.begin(), s.saves.inputs.end());
    s.saves.inputs.erase(std::unique(s.saves.inputs.begin(), s.saves.inputs.end()), s.saves.inputs.end());
    if (!s.saves.inputs.empty() && s.saves.inputs.back() >= s.inputs.size())
      fail(s.where, who() + ": saves input #" + std::to_string(s.saves.inputs.back()) + " but the node has " +
                        std::to_string(s.inputs.size()) + " input(s)");
    if (s.kind != NodeKind::Op && (s.saves.output || !s.saves.inputs.empty()))
      fail(s.where, who() + ": only operation nodes have saves");
    if (s.kind == NodeKind::Op && s.constant) fail(s.where, who() + ": only inputs and parameters can be constants");
    const std::int64_t bwdWorkspace = s.bwdWorkspace.value_or(s.workspace);
    if (!overflowReported &&
        (s.bytes >= 0 && s.workspace >= 0 && bwdWorkspace >= 0 && s.fwdTime >= 0 && s.bwdTime >= 0) &&
        (!addChecked(totalBytes, s.bytes) || !addChecked(totalBytes, s.workspace) ||
         !addChecked(totalBytes, bwdWorkspace) || !addChecked(totalTime, s.fwdTime) ||
         !addChecked(totalTime, s.bwdTime) || totalBytes > kMaxGraphTotal || totalTime > kMaxGraphTotal)) {
      fail(s.where, who() + ": the graph's total size or time passes 2^60 here (" + std::to_string(kMaxGraphTotal) +
                        "), beyond what its sums with gradients and recomputations can hold in 64 bits");
      overflowReported = true;
    }
  }
  if (n == 0)
    fail(m_source, "graph has no nodes");
  else if (ops == 0)
    fail(m_source, "graph has no operation nodes (only inputs and parameters)");

  // Resolve inputs by name.
  std::vector<std::vector<std::uint32_t>> inputIdx(n);
  std::vector<std::vector<std::uint32_t>> preds(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    const NodeSpec& s = m_specs[i];
    inputIdx[i].reserve(s.inputs.size());
    for (std::size_t k = 0; k < s.inputs.size(); ++k) {
      auto it = byName.find(s.inputs[k]);
      if (it == byName.end()) {
        fail(s.where, "node " + quotedName(s.name) + ": input #" + std::to_string(k) + " " + quotedName(s.inputs[k]) +
                          " is not a node of this graph");
        continue;
      }
      if (it->second == i) {
        fail(s.where, "node " + quotedName(s.name) + " uses itself as an input (cycle)");
        continue;
      }
      inputIdx[i].push_back(it->second);
      preds[i].push_back(it->second);
    }
    std::sort(preds[i].begin(), preds[i].end());
    preds[i].erase(std::unique(preds[i].begin(), preds[i].end()), preds[i].end());
  }
  if (!errors.empty()) return Result<ComputeGraph>::failure(std::move(errors));

  // Topological order: inputs and parameters first in file order, then operations by Kahn's algorithm,
  // preferring file order among ready nodes so that an already sorted file keeps its order.
  std::vector<std::uint32_t> order;
  order.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i)
    if (m_specs[i].kind != NodeKind::Op) order.push_back(i);
  std::vector<std::uint32_t> missing(n, 0);
  std::vector<std::vector<std::uint32_t>> succ(n);
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t u : preds[i])
      if (m_specs[u].kind == NodeKind::Op) {
        ++missing[i];
        succ[u].push_back(i);
      }
  std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> ready;
  for (std::uint32_t i = 0; i < n; ++i)
    if (m_specs[i].kind == NodeKind::Op && missing[i] == 0) ready.push(i);
  while (!ready.empty()) {
    std::uint32_t v = ready.top();
    ready.pop();
    order.push_back(v);
    for (std::uint32_t w : succ[v])
      if (--missing[w] == 0) ready.push(w);
  }
  if (order.size() != n) {
    std::vector<bool> stuck(n, false);
    std::size_t first = n;
    for (std::uint32_t i = 0; i < n; ++i)
      if (m_specs[i].kind == NodeKind::Op && missing[i] > 0) {
        stuck[i] = true;
        first = std::min<std::size_t>(first, i);
      }
    // Nodes downstream of a cycle are stuck too; describe a real cycle among them.
    std::vector<std::vector<std::uint32_t>> opPreds(n);
    for (std::uint32_t i = 0; i < n; ++i)
      for (std::uint32_t u : preds[i])
        if (stuck[u]) opPreds[i].push_back(u);
    fail(m_specs[first].where, "graph has a cycle: " + describeCycle(m_specs, opPreds, stuck));
    return Result<ComputeGraph>::failure(std::move(errors));
  }

  std::vector<std::uint32_t> newIndex(n);
  for (std::uint32_t k = 0; k < n; ++k) newIndex[order[k]] = k;

  ComputeGraph g;
  g.m_name = std::move(m_name);
  g.m_timeUnit = std::move(m_timeUnit);
  g.m_costModel = std::move(m_costModel);
  g.m_asGiven = m_asGiven;
  g.m_nodes.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    NodeSpec& s = m_specs[i];
    Node& node = g.m_nodes[newIndex[i]];
    node.name = std::move(s.name);
    node.kind = s.kind;
    node.op = std::move(s.op);
    node.inputs.reserve(inputIdx[i].size());
    for (std::uint32_t u : inputIdx[i]) node.inputs.emplace_back(newIndex[u]);
    node.bytes = Bytes{s.bytes};
    node.shape = std::move(s.shape);
    node.dtype = std::move(s.dtype);
    node.fwdTime = Ticks{s.fwdTime};
    node.bwdTime = Ticks{s.bwdTime};
    node.saves = std::move(s.saves);
    node.workspace = Bytes{s.workspace};
    node.bwdWorkspace = Bytes{s.bwdWorkspace.value_or(s.workspace)};
    node.attrs = std::move(s.attrs);
    node.constant = s.constant;
  }
  g.index();

  // Pins by name: operations only, each pinned one way (the phrasing of solvers::pinsFromNames).
  for (const PinSpec& p : m_pins) {
    const std::string how = p.keep ? " as keep" : " as recompute";
    const auto it = byName.find(p.name);
    if (it == byName.end()) {
      fail(p.where, "cannot pin " + quotedName(p.name) + how + ": the graph has no node of that name");
      continue;
    }
    const NodeId id{newIndex[it->second]};
    if (!g.isOp(id)) {
      fail(p.where, "cannot pin " + quotedName(p.name) + how +
                        ": it is an input or a parameter, always in memory and never recomputed");
      continue;
    }
    std::vector<NodeId>& same = p.keep ? g.m_pinnedKeep : g.m_pinnedRecompute;
    const std::vector<NodeId>& other = p.keep ? g.m_pinnedRecompute : g.m_pinnedKeep;
    if (std::find(other.begin(), other.end(), id) != other.end())
      fail(p.where, quotedName(p.name) + " is pinned both as keep and as recompute");
    else if (std::find(same.begin(), same.end(), id) == same.end())
      same.push_back(id);
  }

  // Explicit backward nodes: inputs name a forward node or another backward node.
  std::unordered_map<std::string, std::uint32_t> bwdByName;
  for (std::uint32_t i = 0; i < m_backward.size(); ++i) {
    const BackwardSpec& b = m_backward[i];
    if (b.name.empty())
      fail(b.where, "backward node id is empty");
    else if (!bwdByName.emplace(b.name, i).second)
      fail(b.where, "duplicate backward node id " + quotedName(b.name));
    else if (g.find(b.name))
      fail(b.where, "backward node id " + quotedName(b.name) + " is also a forward node id");
    if (b.time < 0) fail(b.where, "backward node " + quotedName(b.name) + ": negative time");
    if (b.bytes < 0) fail(b.where, "backward node " + quotedName(b.name) + ": negative size");
  }
  std::vector<std::uint32_t> bwdMissing(m_backward.size(), 0);
  std::vector<std::vector<std::uint32_t>> bwdSucc(m_backward.size());
  for (std::uint32_t i = 0; i < m_backward.size(); ++i) {
    const BackwardSpec& b = m_backward[i];
    BackwardNode node;
    node.name = b.name;
    node.time = Ticks{b.time};
    node.bytes = Bytes{b.bytes};
    for (const std::string& in : b.inputs) {
      if (auto f = g.find(in))
        node.inputs.push_back({BackwardRef::Side::Forward, f->value});
      else if (auto it = bwdByName.find(in); it != bwdByName.end()) {
        node.inputs.push_back({BackwardRef::Side::Backward, it->second});
        ++bwdMissing[i];
        bwdSucc[it->second].push_back(i);
      } else
        fail(b.where,
             "backward node " + quotedName(b.name) + ": input " + quotedName(in) + " is not a node of this graph");
    }
    if (!b.gradientOf.empty()) {
      if (auto f = g.find(b.gradientOf))
        node.gradientOf = *f;
      else
        fail(b.where, "backward node " + quotedName(b.name) + ": gradient of unknown node " + quotedName(b.gradientOf));
    }
    g.m_backward.push_back(std::move(node));
  }
  if (errors.empty() && !m_backward.empty()) {
    std::vector<std::uint32_t> stack;
    for (std::uint32_t i = 0; i < m_backward.size(); ++i)
      if (bwdMissing[i] == 0) stack.push_back(i);
    std::size_t seen = 0;
    while (!stack.empty()) {
      std::uint32_t v = stack.back();
      stack.pop_back();
      ++seen;
      for (std::uint32_t w : bwdSucc[v])
        if (--bwdMissing[w] == 0) stack.push_back(w);
    }
    if (seen != m_backward.size()) {
      for (std::uint32_t i = 0; i < m_backward.size(); ++i)
        if (bwdMissing[i] > 0) {
          fail(m_backward[i].where,
               "backward node " + quotedName(m_backward[i].name) + " lies on a cycle of backward nodes");
          break;
        }
    }
  }
  if (!errors.empty()) return Result<ComputeGraph>::failure(std::move(errors));
  m_specs.clear();
  m_backward.clear();
  m_pins.clear();
  return g;
}

}  // namespace remat::graph
