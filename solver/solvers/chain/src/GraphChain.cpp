#include "remat/solvers/GraphChain.hpp"

#include <algorithm>
#include <stdexcept>

#include "remat/graph/LowerSets.hpp"
#include "remat/sim/Simulator.hpp"
#include "remat/solvers/ChenCuts.hpp"

namespace remat::solvers {
namespace {

using graph::ComputeGraph;
using graph::NodeId;

// Fills one stage's lowering lists and its model figures.
// `position` and `hasGrad` are scratch arrays over the graph's nodes, -1 and false on entry and exit.
ChainStage describeStage(const ComputeGraph& g, const sim::ViewInfo& views, GraphChain::Stage& stage,
                         std::vector<std::int32_t>& position, std::vector<bool>& hasGrad) {
  const std::vector<NodeId>& nodes = stage.nodes;
  const std::size_t n = nodes.size();
  for (std::size_t p = 0; p < n; ++p) position[nodes[p].value] = std::int32_t(p);
  auto inStage = [&](NodeId u) { return g.isOp(u) && position[u.value] >= 0; };
  auto bytes = [&](NodeId u) { return g.node(u).bytes.value; };

  // Last consumer inside the stage, in forward order; first keeper, in backward order.
  std::vector<std::size_t> lastConsumer(n);
  std::vector<std::int64_t> lastKeeper(n, -1);
  stage.tape.assign(n, false);
  for (std::size_t p = 0; p < n; ++p) {
    lastConsumer[p] = p;
    for (NodeId w : g.successors(nodes[p]))
      if (inStage(w)) lastConsumer[p] = std::max(lastConsumer[p], std::size_t(position[w.value]));
  }
  for (std::size_t p = n; p-- > 0;) {
    for (NodeId u : sim::savedOpValues(g, nodes[p])) {
      if (!inStage(u)) continue;  // b_{i-1}: held by the caller during B^i
      const auto q = std::size_t(position[u.value]);
      stage.tape[q] = true;
      if (lastKeeper[q] < 0) lastKeeper[q] = std::int64_t(p);
      lastKeeper[q] = std::min<std::int64_t>(lastKeeper[q], std::int64_t(p));
    }
  }
  std::optional<std::size_t> outputPos;
  if (stage.output) {
    outputPos = std::size_t(position[stage.output->value]);
    stage.tape[*outputPos] = true;
  }
  stage.forwardFrees.assign(n, {});
  stage.backwardFrees.assign(n, {});
  stage.backwardUnused.clear();
  for (std::size_t p = 0; p < n; ++p) {
    const auto at = static_cast<std::uint32_t>(p);
    if (p != outputPos) stage.forwardFrees[lastConsumer[p]].push_back(at);
    if (!stage.tape[p]) continue;
    if (lastKeeper[p] < 0)
      stage.backwardUnused.push_back(at);
    else
      stage.backwardFrees[std::size_t(lastKeeper[p])].push_back(at);
  }

  ChainStage out;
  for (NodeId v : nodes) {
    out.forwardTime += g.node(v).fwdTime.value;
    out.backwardTime += g.node(v).bwdTime.value;
  }
  if (stage.output) {
    out.output = bytes(*stage.output);
    out.outputGrad = views.gradBytes[stage.output->value].value;
  }
  for (std::size_t p = 0; p < n; ++p)
    if (stage.tape[p]) out.tape += bytes(nodes[p]);

  auto forwardPeak = [&](bool keepTape) {
    std::int64_t live = 0;
    std::int64_t peak = 0;
    for (std::size_t p = 0; p < n; ++p) {
      live += bytes(nodes[p]);
      peak = std::max(peak, live + g.node(nodes[p]).workspace.value);
      for (std::uint32_t q : stage.forwardFrees[p])
        if (!(keepTape && stage.tape[q])) live -= bytes(nodes[q]);
    }
    return peak;
  };
  out.forwardPeak = forwardPeak(false);
  out.forwardAllPeak = forwardPeak(true);

  // B^i from the tape and δ^i; gradients of stage nodes and of b_{i-1} appear as backwards produce them.
  std::int64_t values = out.tape;
  for (std::uint32_t q : stage.backwardUnused) values -= bytes(nodes[q]);
  std::int64_t grads = out.outputGrad;
  std::vector<NodeId> produced;  // gradients allocated, to clear the marks after
  auto produce = [&](NodeId u) {
    if (hasGrad[u.value]) return;
    hasGrad[u.value] = true;
    produced.push_back(u);
    grads += views.gradBytes[u.value].value;
  };
  if (stage.output) {
    hasGrad[stage.output->value] = true;  // δ^i, counted above
    produced.push_back(*stage.output);
  }
  std::int64_t peak = out.tape + out.outputGrad;
  for (std::size_t p = n; p-- > 0;) {
    const NodeId v = nodes[p];
    if (g.successors(v).empty()) produce(v);  // an output's seed
    for (NodeId u : g.opPredecessors(v)) produce(u);
    peak = std::max(peak, values + grads + g.node(v).bwdWorkspace.value);
    grads -= views.gradBytes[v.value].value;
    for (std::uint32_t q : stage.backwardFrees[p]) values -= bytes(nodes[q]);
  }
  out.backwardPeak = peak;
  for (NodeId v : produced) hasGrad[v.value] = false;
  for (NodeId v : nodes) position[v.value] = -1;
  return out;
}

}  // namespace

GraphChain linearizeGraph(const ComputeGraph& g, std::size_t maxStages) {
  return *linearizeGraph(g, maxStages, [] { return false; });
}

std::optional<GraphChain> linearizeGraph(const ComputeGraph& g, std::size_t maxStages,
                                         const std::function<bool()>& stopped) {
  GraphChain chain;
  auto found = chenCutChain(g, stopped);
  if (!found) return std::nullopt;
  std::vector<graph::NodeSet> cuts = std::move(*found);
  chain.cuts = cuts.size();
  maxStages = std::max<std::size_t>(maxStages, 1);
  if (cuts.size() + 1 > maxStages) {
    // Evenly spaced cuts: index floor(k·(C+1)/maxStages) - 1 for k = 1..maxStages-1, strictly increasing.
    std::vector<graph::NodeSet> kept;
    const std::size_t count = cuts.size();
    for (std::size_t k = 1; k < maxStages; ++k) kept.push_back(std::move(cuts[k * (count + 1) / maxStages - 1]));
    cuts = std::move(kept);
  }
  cuts.push_back(graph::fullSet(g));

  const sim::ViewInfo views = sim::viewInfo(g);
  std::vector<std::int32_t> position(g.size(), -1);
  std::vector<bool> hasGrad(g.size(), false);
  graph::NodeSet previous = graph::emptySet(g);
  for (std::size_t i = 0; i < cuts.size(); ++i) {
    GraphChain::Stage stage;
    (cuts[i] - previous).forEach([&](graph::OpIndex v) { stage.nodes.push_back(g.opNode(v)); });
    if (i + 1 < cuts.size()) {
      const graph::NodeSet border = graph::boundary(g, cuts[i]);
      if (border.count() != 1) throw std::logic_error("chain-dp: a cut of the chain has more than one boundary node");
      stage.output = g.opNode(border.members().front());
    }
    chain.model.stages.push_back(describeStage(g, views, stage, position, hasGrad));
    chain.stages.push_back(std::move(stage));
    previous = cuts[i];
  }
  return chain;
}

ChainModel discretise(const ChainModel& bytes, std::int64_t slotBytes) {
  if (slotBytes < 1) throw std::invalid_argument("chain-dp: a slot must hold at least one byte");
  auto up = [slotBytes](std::int64_t b) { return (b + slotBytes - 1) / slotBytes; };
  ChainModel out = bytes;
  for (ChainStage& s : out.stages) {
    s.output = up(s.output);
    s.tape = up(s.tape);
    s.outputGrad = up(s.outputGrad);
    s.forwardPeak = up(s.forwardPeak);
    s.forwardAllPeak = up(s.forwardAllPeak);
    s.backwardPeak = up(s.backwardPeak);
  }
  return out;
}

std::int64_t storeAllMemory(const ChainModel& model) {
  std::vector<ChainOp> ops;
  const auto length = static_cast<std::uint32_t>(model.length());
  for (std::uint32_t i = 1; i <= length; ++i) ops.push_back({ChainOpKind::ForwardAll, i});
  for (std::uint32_t i = length; i >= 1; --i) ops.push_back({ChainOpKind::Backward, i});
  return runChainOps(model, ops).peak;
}

sim::Schedule lowerChainOps(const GraphChain& chain, const std::vector<ChainOp>& ops) {
  sim::Schedule s;
  std::vector<bool> heldAll(chain.stages.size() + 1, false);  // by stage: held as a tape
  for (const ChainOp& op : ops) {
    const GraphChain::Stage& stage = chain.stages.at(op.stage - 1);
    const std::size_t n = stage.nodes.size();
    switch (op.kind) {
      case ChainOpKind::ForwardDrop:
      case ChainOpKind::ForwardCheck:
      case ChainOpKind::ForwardAll: {
        const bool all = op.kind == ChainOpKind::ForwardAll;
        heldAll[op.stage] = all;
        for (std::size_t p = 0; p < n; ++p) {
          s.push_back({sim::StepKind::Forward, stage.nodes[p]});
          for (std::uint32_t q : stage.forwardFrees[p])
            if (!(all && stage.tape[q])) s.push_back({sim::StepKind::Free, stage.nodes[q]});
        }
        if (op.kind == ChainOpKind::ForwardDrop && op.stage > 1)
          s.push_back({sim::StepKind::Free, *chain.stages[op.stage - 2].output});
        break;
      }
      case ChainOpKind::Backward:
        for (std::uint32_t q : stage.backwardUnused) s.push_back({sim::StepKind::Free, stage.nodes[q]});
        for (std::size_t p = n; p-- > 0;) {
          s.push_back({sim::StepKind::Backward, stage.nodes[p]});
          s.push_back({sim::StepKind::FreeGrad, stage.nodes[p]});
          for (std::uint32_t q : stage.backwardFrees[p]) s.push_back({sim::StepKind::Free, stage.nodes[q]});
        }
        heldAll[op.stage] = false;
        break;
      case ChainOpKind::Discard:
        if (heldAll[op.stage]) {
          for (std::size_t p = 0; p < n; ++p)
            if (stage.tape[p]) s.push_back({sim::StepKind::Free, stage.nodes[p]});
        } else if (stage.output) {
          s.push_back({sim::StepKind::Free, *stage.output});
        }
        heldAll[op.stage] = false;
        break;
    }
  }
  return s;
}

}  // namespace remat::solvers
