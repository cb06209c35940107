#pragma once

#include "remat/solvers/ChenCuts.hpp"
#include "remat/solvers/Solver.hpp"

namespace remat::solvers {

/// `chen-sqrtn`: about sqrt(|V|) segments with balanced activation memory (Chen et al., Section 4.1).
/// Heuristic; O(|V|·(|V|+|E|)) to find the cuts. Graphs: any DAG with single-boundary cuts.
class ChenSqrtN final : public Solver {
 public:
  [[nodiscard]] const SolverInfo& info() const override;
  [[nodiscard]] SolverOutput plan(const SolveRequest& request) const override;
};

}  // namespace remat::solvers
