#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/solvers/Solver.hpp"

namespace remat::solvers {

/// The answer of maxBatch. `status` is Optimal only when `batch` is proven the largest that fits;
/// Infeasible when batch 1 does not fit; the solver's own status (Limit, TimeLimit, ...) when it could
/// not answer at some batch (`refusedAt`), a refusal being never read as "does not fit".
struct MaxBatchResult {
  CallStatus call = CallStatus::Ok;             ///< Error when a solve failed (the message says where)
  SolveStatus status = SolveStatus::NotSolved;  ///< Optimal when a largest batch was found
  std::int64_t batch = 0;                       ///< the largest batch proven to fit (0 when none)
  /// The batch where the solver could not answer and the search stopped (0: none); `batch`, when not 0,
  /// is then below it and only proven to fit, not proven the largest.
  std::int64_t refusedAt = 0;
  std::optional<SolveResult> result;         ///< the solver's plan at that batch
  std::optional<graph::ComputeGraph> graph;  ///< the graph at that batch
  std::string message;
  std::size_t solves = 0;
};

/// The largest batch size at which `solver` plans a training step that fits in `memory` bytes of device
/// memory, everything counted (the simulator's peak: parameters, their gradients, inputs, activations,
/// gradients, workspace). Activations and inputs scale with the batch, parameters do not
/// (graph::scaleBatch). The DP solvers plan in `dpModel`: the simulator's counts everything, as the
/// memory does; in the paper's (activations only) they are given the memory left after parameters,
/// parameter gradients and inputs, with the auto strategy. Every plan must also fit in the simulator.
/// Workspace scales with the batch too, unless `workspaceModel` names a workspace model
/// (graph/WorkspaceModel.hpp) other than `file`: it then fills each scaled graph's workspace from its
/// own tensors, so a temporary the size of a weight stays that size. Doubling, then bisection; assumes
/// fitting is monotone in the batch. A batch fits when the solver's plan there is within the memory; it
/// does not when the solver answers Infeasible or OverBudget (or a plan above the memory); any other
/// answer (a size or memory limit of the solver's, a time limit without a plan, a graph whose sizes
/// overflow at that batch) is a refusal that proves nothing: bisection goes on below it, and when no
/// batch between the largest that fits and the refused one was shown not to fit, the answer carries the
/// refusal's status. `limits.time` is the whole search's (SharedTime): batch 1 may take all of it, each
/// later solve half of what is left; once spent the search ends with status TimeLimit and the largest batch
/// proven to fit by then. A solver that makes no plans (SolverInfo::makesPlans) is call Error at once.
[[nodiscard]] MaxBatchResult maxBatch(const Solver& solver, const graph::ComputeGraph& g, std::int64_t baseBatch,
                                      Bytes memory, std::stop_token stop = {}, const ProgressSink& progress = {},
                                      DpModelKind dpModel = DpModelKind::Simulator,
                                      std::string_view workspaceModel = "file", const RunLimits& limits = {});

}  // namespace remat::solvers
