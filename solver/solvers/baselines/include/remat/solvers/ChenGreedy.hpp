#pragma once

#include "remat/solvers/ChenCuts.hpp"
#include "remat/solvers/Solver.hpp"

namespace remat::solvers {

/// `chen-greedy`: Chen et al.'s greedy segmentation (their Algorithm 3): walking in topological order,
/// close a segment at the next cut once the memory since the last cut exceeds a threshold b; b is
/// searched over a geometric grid, and the plan with least overhead within the budget (or, without a
/// budget, the least simulated peak) is returned. Heuristic; O(G·|V|·(|V|+|E|)) for G grid points.
class ChenGreedy final : public Solver {
 public:
  [[nodiscard]] const SolverInfo& info() const override;
  [[nodiscard]] SolverOutput plan(const SolveRequest& request) const override;
};

}  // namespace remat::solvers
