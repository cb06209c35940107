#pragma once

#include "remat/solvers/ChenCuts.hpp"
#include "remat/solvers/Solver.hpp"

namespace remat::solvers {

/// `chen-sqrtn`: about sqrt(n) segments with balanced activation memory (Chen et al., Section 4.1), where
/// n - 1 is the number of cuts in the chain (the graph seen as a sequence of n layers).
/// Heuristic; O(|V|·(|V|+|E|)) to find the cuts. Graphs: any DAG with single-boundary cuts.
class ChenSqrtN final : public Solver {
 public:
  [[nodiscard]] const SolverInfo& info() const override;
  [[nodiscard]] SolverOutput plan(const SolveRequest& request) const override;
};

}  // namespace remat::solvers
