#pragma once

#include <string>
#include <string_view>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/Diagnostic.hpp"
#include "remat/solvers/Solver.hpp"

namespace remat::solvers {

/// Plan JSON (`"format": "remat-plan", "version": 1`): solver, strategy, status, budget, message,
/// metrics, for canonical plans the segments V_i and the lower sets L_i (the latter null when they
/// would list more than a million ids in all: they grow quadratically) and the checkpoints (the kept
/// boundaries), and the schedule, with node ids by name. Its keys are those of `remat solve --json`
/// (ARCHITECTURE.md section 7).
[[nodiscard]] std::string writePlanJson(const graph::ComputeGraph& g, const SolveResult& result);

/// A plan read back for a graph; every node name must belong to that graph.
struct LoadedPlan {
  std::string solver;
  std::string graphName;
  Plan plan;
};

/// Reads plan JSON for `g`. Errors name the file and the JSON path (for example "/schedule/12").
[[nodiscard]] Result<LoadedPlan> readPlanJson(std::string_view text, const std::string& fileName,
                                              const graph::ComputeGraph& g);

}  // namespace remat::solvers
