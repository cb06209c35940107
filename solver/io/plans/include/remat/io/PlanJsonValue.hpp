#pragma once

// The JSON values behind plan JSON, for front ends that embed them in larger documents (`compare
// --json`). Includes nlohmann/json: include it only where JSON is built.

#include <nlohmann/json.hpp>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/solvers/Solver.hpp"

namespace remat::io {

/// {model_peak_bytes, model_overhead, simulated_peak_bytes, peak_step, overhead, total_time,
///  recomputed_nodes, recomputations, solve_seconds}; model figures are null for non-canonical plans.
[[nodiscard]] nlohmann::json metricsToJson(const solvers::PlanMetrics& m, bool hasPlan);

/// The whole plan document.
[[nodiscard]] nlohmann::json planToJson(const graph::ComputeGraph& g, const solvers::SolveResult& result);

}  // namespace remat::io
