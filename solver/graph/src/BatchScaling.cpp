#include "remat/graph/BatchScaling.hpp"

namespace remat::graph {

std::optional<std::int64_t> inferBatchSize(const ComputeGraph& g) {
  std::optional<std::int64_t> batch;
  for (const Node& n : g.nodes()) {
    if (n.kind != NodeKind::Input || n.shape.empty()) continue;
    if (batch && *batch != n.shape.front()) return std::nullopt;  // inputs disagree: no single batch size
    batch = n.shape.front();
  }
  if (batch && *batch <= 0) return std::nullopt;
  return batch;
}

Result<ComputeGraph> scaleBatch(const ComputeGraph& g, std::int64_t fromBatch, std::int64_t toBatch) {
  if (fromBatch <= 0 || toBatch <= 0)
    return Result<ComputeGraph>::failure(Diagnostic{{}, "batch sizes must be positive"});
  bool overflow = false;
  auto scale = [&](std::int64_t v) -> std::int64_t {
    if (v == 0) return 0;
    std::int64_t product = 0;
    if (__builtin_mul_overflow(v, toBatch, &product) || product > INT64_MAX / 4) {
      overflow = true;
      return 0;
    }
    const std::int64_t scaled = (product + fromBatch / 2) / fromBatch;  // rounded to nearest
    return scaled == 0 ? 1 : scaled;
  };
  std::vector<Node> nodes = g.nodes();
  for (Node& n : nodes) {
    if (n.kind == NodeKind::Param) continue;
    n.bytes = Bytes{scale(n.bytes.value)};
    n.workspace = Bytes{scale(n.workspace.value)};
    n.bwdWorkspace = Bytes{scale(n.bwdWorkspace.value)};
    n.fwdTime = Ticks{scale(n.fwdTime.value)};
    n.bwdTime = Ticks{scale(n.bwdTime.value)};
    if (!n.shape.empty() && n.shape.front() == fromBatch) n.shape.front() = toBatch;
  }
  if (overflow)
    return Result<ComputeGraph>::failure(
        Diagnostic{{}, "at batch " + std::to_string(toBatch) + " the graph's sizes overflow 64 bits"});
  return g.withNodes(std::move(nodes), g.costModel());
}

}  // namespace remat::graph
