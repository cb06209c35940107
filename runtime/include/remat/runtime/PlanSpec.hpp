#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "remat/runtime/GraphSpec.hpp"

namespace remat::runtime {

enum class StepKind { Forward, Backward, Free, FreeGrad };

[[nodiscard]] std::string_view stepKindName(StepKind k);  ///< "fwd", "bwd", "free", "free-grad"

struct PlanStep {
  StepKind kind = StepKind::Forward;
  std::size_t node = 0;  ///< index into GraphSpec::nodes
};

/// A plan JSON (`"format": "remat-plan"`) as the runner sees it: its graph, solver and lowered schedule.
struct PlanSpec {
  std::string file;
  std::string graphName;
  std::string solver;
  std::vector<PlanStep> schedule;
};

/// Reads a plan for `g`. Throws RunnerError: ExitCode::Input for a file that is not a plan, and
/// ExitCode::PlanMismatch for a plan of another graph (its `graph` name, or a step naming a node `g`
/// does not have).
[[nodiscard]] PlanSpec readPlanSpec(const std::string& path, const GraphSpec& g);
[[nodiscard]] PlanSpec parsePlanSpec(std::string_view text, const std::string& fileName, const GraphSpec& g);

}  // namespace remat::runtime
