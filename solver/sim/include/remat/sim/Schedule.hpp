#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/NodeId.hpp"

namespace remat::sim {

/// One step of a training-step schedule (docs/architecture.md section 4).
enum class StepKind : std::uint8_t {
  Forward,   ///< `fwd v`: compute the value of v from its inputs (a second one is a recomputation)
  Backward,  ///< `bwd v`: run v's backward, producing gradients of its inputs
  Free,      ///< `free v`: drop the value of v
  FreeGrad,  ///< `free-grad v`: drop the gradient of v
};

struct Step {
  StepKind kind = StepKind::Forward;
  graph::NodeId node;

  bool operator==(const Step&) const = default;
};

/// A schedule is the sequence of steps of one training step.
using Schedule = std::vector<Step>;

/// "fwd", "bwd", "free", "free-grad".
[[nodiscard]] std::string_view stepKindName(StepKind kind);
[[nodiscard]] std::optional<StepKind> stepKindFromName(std::string_view name);

/// "fwd conv1", the name escaped and cut as messages quote names (graph::printableText)
[[nodiscard]] std::string describeStep(const graph::ComputeGraph& g, const Step& step);

}  // namespace remat::sim
