#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

#include "remat/solvers/Solver.hpp"

namespace remat::solvers {

/// Size of the training graph the MILP schedules: forward ops, then their backwards in reverse
/// topological order (docs/architecture.md section 5, docs/milp.md); the ops alone for a graph computed
/// as given (ComputeGraph::asGiven), which has no backward pass.
[[nodiscard]] std::size_t milpCombinedNodes(const graph::ComputeGraph& g);

/// What the LP relaxation of the Checkmate formulation says at a budget (none: unconstrained).
struct LpBound {
  SolveStatus status = SolveStatus::NotSolved;  ///< Optimal (bound found), Infeasible (no schedule fits), TimeLimit
  double cost = 0.0;      ///< the relaxation's objective: total compute time, in the graph's time unit
  double overhead = 0.0;  ///< cost minus the time of every forward and backward once
  std::string message;
  CallStatus call = CallStatus::Ok;  ///< Error: no operations, or CLP failed without an answer
};
/// `timeLimit` caps CLP's run, `iterationLimit` its simplex iterations (SolveRequest::workLimit): status
/// TimeLimit when either ends it.
[[nodiscard]] LpBound lpRelaxation(const graph::ComputeGraph& g, std::optional<Bytes> budget,
                                   std::optional<std::chrono::milliseconds> timeLimit = std::nullopt,
                                   std::optional<std::uint64_t> iterationLimit = std::nullopt);

/// The LP relaxation's objective (total compute time) as a lower bound on the MILP optimum's total time at
/// `budget`; +infinity when the relaxation is infeasible (no schedule of the formulation fits).
[[nodiscard]] double lpLowerBound(const graph::ComputeGraph& g, std::optional<Bytes> budget);

/// `milp`: the Checkmate MILP (binary R compute / S keep over frontier-advancing stages of the combined
/// forward+backward graph, memory U with FREE variables, objective total compute time, budget on every
/// step), solved by COIN-OR CBC with the request's time limit; the decoded schedule is judged by the
/// simulator. Returns the incumbent with status TimeLimit when not proven optimal. Sets
/// overheadLowerBound: the optimum's overhead when proven, else CBC's best possible objective (the gap).
/// Problem class: small DAGs (refuses more than kMaxCombinedNodes combined nodes without a time limit).
/// Exact over the formulation's schedules (first computations in the graph's topological order, backwards in
/// the reverse order; at most one computation of a node per stage); see docs/milp.md. Complexity:
/// O(n^2) binaries and O(n·(n+|E|)) rows for n ops; branch and bound is exponential in the worst case.
/// Citation: Jain, Jain, Nrusimha, Gholami, Abbeel, Keutzer, Stoica, Gonzalez, Checkmate: Breaking the
/// Memory Wall with Optimal Tensor Rematerialization, MLSys 2020.
class Milp final : public Solver {
 public:
  static constexpr std::size_t kMaxCombinedNodes = 200;
  [[nodiscard]] const SolverInfo& info() const override;
  [[nodiscard]] SolverOutput plan(const SolveRequest& request) const override;
  /// Status Limit: the formulation minimises the overhead at a given budget; its least budget would be a
  /// MILP of its own (the budget as the objective), which Remat does not solve. Solving without a budget
  /// gives the plain run, whose peak is no least budget.
  [[nodiscard]] MinBudget planMinBudget(const SolveRequest& request) const override;
  /// The default sweep from the simulator's memory lower bound (sim::memoryLowerBound) up: budgets
  /// below milp's least answer Infeasible and are no points.
  [[nodiscard]] TradeOff planTradeOff(const SolveRequest& request, std::size_t points) const override;
};

/// `lp-bound`: the LP relaxation of the same formulation. Answers with no plan: status Bound with
/// overheadLowerBound (the relaxation's overhead rounded up, with a margin for floating error) and the
/// bound in the message; Infeasible when even the relaxation has no solution. A lower bound on the
/// formulation's schedules (so on milp's optimum), not on every schedule (docs/milp.md).
/// Problem class: small DAGs (same limit as milp, for the same reason: the LP grows as n^2). Not exact (a bound, not a
/// plan). Complexity: one LP (polynomial in practice). Citation: Jain et al., MLSys 2020 (Section 4's LP relaxation).
class LpBoundSolver final : public Solver {
 public:
  [[nodiscard]] const SolverInfo& info() const override;
  [[nodiscard]] SolverOutput plan(const SolveRequest& request) const override;
  /// Status Limit: a bound is not a plan, so there is no least budget to report (nor a trade-off).
  [[nodiscard]] MinBudget planMinBudget(const SolveRequest& request) const override;
};

}  // namespace remat::solvers
