#pragma once

#include "remat/solvers/Solver.hpp"

namespace remat::solvers {

/// `store-all`: no recomputation; the framework's plain run with liveness analysis.
/// Problem class: any DAG. Exact in time (zero overhead). Complexity O(|V| + |E|).
class StoreAll final : public Solver {
 public:
  [[nodiscard]] const SolverInfo& info() const override;
  [[nodiscard]] SolverOutput plan(const SolveRequest& request) const override;
};

}  // namespace remat::solvers
