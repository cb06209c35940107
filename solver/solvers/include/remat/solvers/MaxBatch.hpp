#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/solvers/Solver.hpp"

namespace remat::solvers {

struct MaxBatchResult {
  CallStatus call = CallStatus::Ok;             ///< Error when a solve failed (the message says where)
  SolveStatus status = SolveStatus::NotSolved;  ///< Optimal when a largest batch was found
  std::int64_t batch = 0;                       ///< the largest batch that fits (0 when none)
  std::optional<SolveResult> result;            ///< the solver's plan at that batch
  std::optional<graph::ComputeGraph> graph;     ///< the graph at that batch
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
/// fitting is monotone in the batch.
[[nodiscard]] MaxBatchResult maxBatch(const Solver& solver, const graph::ComputeGraph& g, std::int64_t baseBatch,
                                      Bytes memory, std::stop_token stop = {}, const ProgressSink& progress = {},
                                      DpModelKind dpModel = DpModelKind::Simulator,
                                      std::string_view workspaceModel = "file");

}  // namespace remat::solvers
