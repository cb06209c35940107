#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/Diagnostic.hpp"
#include "remat/solvers/Solver.hpp"

namespace remat::io {

/// Plan files sit with the other formats, in a library of their own above the solvers whose answers
/// they hold (remat_io, the graph formats, stays below them).
///
/// Plan JSON (`"format": "remat-plan", "version": 1`): solver, strategy, status, budget, message,
/// metrics, the pins it was made under (null for none), for canonical plans the segments V_i and the lower sets L_i
/// (the latter null when they would list more than a million ids in all: they grow quadratically) and the checkpoints
/// (the kept boundaries), and the schedule, with node ids by name. Its keys are those of `remat solve --json`
/// (docs/architecture.md section 7).
[[nodiscard]] std::string writePlanJson(const graph::ComputeGraph& g, const solvers::SolveResult& result);

/// A plan read back for a graph; every node name must belong to that graph.
struct LoadedPlan {
  std::string solver;
  std::string graphName;
  std::optional<Bytes> budget;  ///< `budget_bytes`; none when null or absent
  solvers::Pins pins;           ///< `pins`: what the plan was made under; none when null or absent
  solvers::Plan plan;
};

/// Plan files larger than this are refused before anything is read, as graph files are.
inline constexpr std::uintmax_t kMaxPlanFileBytes = std::uintmax_t{1} << 30;

/// Reads plan JSON for `g`, parsed as the graph readers parse JSON (nesting limit, error lines), and
/// simulates its schedule on `g` with liveness, as every command does: a plan comes back only when the
/// simulator accepts it. Every error names the file and the JSON path (for example "/schedule/12/1").
/// Checked: `format` and `version`; `solver` and `graph` strings when present; `budget_bytes` null or
/// a positive integer that fits in 64 bits; every step, segment and lower set; `model`; `pins` null or
/// absent, or lists of the graph's operations. The metrics are
/// not read (the simulation recomputes them). A plan whose nodes `g` lacks and whose `graph` names
/// another graph is refused at "/graph" with both names. Never throws.
[[nodiscard]] Result<LoadedPlan> readPlanJson(std::string_view text, const std::string& fileName,
                                              const graph::ComputeGraph& g);

/// Reads a plan file with readPlanJson: a missing file, a directory, one over kMaxPlanFileBytes, or one
/// that does not start as a JSON object (such as /dev/zero, refused at its first byte) is an error
/// naming the file. Never throws.
[[nodiscard]] Result<LoadedPlan> readPlanFile(const std::string& path, const graph::ComputeGraph& g);

}  // namespace remat::io
