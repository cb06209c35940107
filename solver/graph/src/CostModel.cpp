#include "remat/graph/CostModel.hpp"

namespace remat::graph {

std::vector<std::string> costModelNames() { return {"file", "paper"}; }

Ticks paperForwardTime(std::string_view opType) { return Ticks{opType.starts_with("Conv") ? 10 : 1}; }

Result<ComputeGraph> applyCostModel(const ComputeGraph& g, std::string_view model) {
  if (model == "file") return g;
  if (model == "paper") {
    std::vector<Node> nodes = g.nodes();
    for (Node& n : nodes) {
      if (n.kind != NodeKind::Op) continue;
      n.fwdTime = paperForwardTime(n.op);
      n.bwdTime = n.fwdTime;
    }
    return g.withNodes(std::move(nodes), "paper");
  }
  std::string known;
  for (const auto& m : costModelNames()) known += (known.empty() ? "" : ", ") + m;
  return Result<ComputeGraph>::failure(
      Diagnostic{{}, "unknown cost model '" + std::string(model) + "' (known: " + known + ")"});
}

}  // namespace remat::graph
