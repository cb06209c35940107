#include "remat/graph/CostModel.hpp"

#include <cmath>

#include "remat/graph/OpTable.hpp"

namespace remat::graph {

std::vector<std::string> costModelNames() {
  std::vector<std::string> names{"file", "paper", "flops"};
  for (const auto& p : deviceProfiles()) names.push_back("flops:" + std::string(p.name));
  return names;
}

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
  if (model == "flops" || model.starts_with("flops:")) {
    const std::string_view profile = model == "flops" ? deviceProfiles()[0].name : model.substr(6);
    const DeviceProfile* device = findDeviceProfile(profile);
    if (device) {
      std::vector<Node> nodes = g.nodes();
      for (std::uint32_t v = 0; v < nodes.size(); ++v) {
        Node& n = nodes[v];
        if (n.kind != NodeKind::Op) continue;
        n.fwdTime = Ticks{rooflineNs(g, NodeId{v}, *device)};
        const OpSpec* spec = findOpSpec(n.op);
        const double factor = (spec ? *spec : unknownOpSpec()).backwardFactor;
        n.bwdTime = Ticks{static_cast<std::int64_t>(std::llround(factor * double(n.fwdTime.value)))};
      }
      return g.withNodes(std::move(nodes), "flops:" + std::string(device->name), "ns");
    }
  }
  std::string known;
  for (const auto& m : costModelNames()) known += (known.empty() ? "" : ", ") + m;
  return Result<ComputeGraph>::failure(
      Diagnostic{{}, "unknown cost model '" + std::string(model) + "' (known: " + known + ")"});
}

}  // namespace remat::graph
