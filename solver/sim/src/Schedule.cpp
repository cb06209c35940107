#include "remat/sim/Schedule.hpp"

#include "remat/graph/PrintableText.hpp"

namespace remat::sim {

std::string_view stepKindName(StepKind kind) {
  switch (kind) {
    case StepKind::Forward: return "fwd";
    case StepKind::Backward: return "bwd";
    case StepKind::Free: return "free";
    case StepKind::FreeGrad: return "free-grad";
  }
  return "?";
}

std::optional<StepKind> stepKindFromName(std::string_view name) {
  if (name == "fwd") return StepKind::Forward;
  if (name == "bwd") return StepKind::Backward;
  if (name == "free") return StepKind::Free;
  if (name == "free-grad") return StepKind::FreeGrad;
  return std::nullopt;
}

std::string describeStep(const graph::ComputeGraph& g, const Step& step) {
  std::string out(stepKindName(step.kind));
  out += ' ';
  out += step.node.value < g.size() ? graph::printableText(g.node(step.node).name, graph::kMessageNameChars)
                                    : "#" + std::to_string(step.node.value);
  return out;
}

}  // namespace remat::sim
