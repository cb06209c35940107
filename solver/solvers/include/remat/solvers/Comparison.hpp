#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "remat/solvers/Solver.hpp"

namespace remat::solvers {

/// Whether a result is a plan that fits its budget in the simulator: a plan, an answer status that
/// claims one (optimal, feasible, or the best so far at a time limit) and a simulated peak within the
/// budget (any, without one).
[[nodiscard]] bool fitsBudget(const SolveResult& r);

/// An overhead as a percentage of the plain run's step time (0 when that time is not positive).
[[nodiscard]] double overheadPercent(Ticks overhead, Ticks plainStepTime);

/// A simulated peak's change against the plain run's, as a percentage of it (negative: less memory).
/// A graph whose plain run needs no memory at all (every value 0 bytes) has no percentage of it: 0 for
/// a peak of 0 too, nullopt for any other. Never NaN or infinite.
[[nodiscard]] std::optional<double> peakChangePercent(Bytes peak, Bytes plainPeak);

/// The tightest proven lower bound on the overhead among the results (lp-bound's LP value, milp's
/// optimum or gap), with the solver that proves it.
struct OverheadBound {
  Ticks overhead{0};
  std::string solver;
};

/// Solvers side by side on one graph (what `remat compare`, Remat Studio's table and the compare figures
/// show): the plain run, every solver's simulated result, the best bound and the winner.
struct Comparison {
  SolveResult vanilla;  ///< store-all without a budget: the framework's plain run
  std::vector<SolveResult> rows;
  /// Each row's time limit: the request's, or its share of the comparison's total (compareSolvers).
  std::vector<std::optional<std::chrono::milliseconds>> rowLimits;
  bool leastBudgets = false;           ///< each solver at its own least feasible budget
  std::optional<OverheadBound> bound;  ///< only when every row has the same budget
  /// The winner, an index into rows: at one budget, the least simulated overhead among the plans that
  /// fit it (ties: the lower simulated peak, then the earlier row); with each solver at its own least
  /// budget, the lowest simulated peak (ties: the lower overhead). Under pins, only among the plans
  /// whose solvers honour them all (SolveResult::pinsIgnored empty). None when no such plan fits.
  std::optional<std::size_t> best;

  /// The overhead of a row as a percentage of the plain run's step time.
  [[nodiscard]] double overheadPercent(const SolveResult& r) const;
  /// The simulated peak of a row against the plain run's (peakChangePercent); nullopt without a plan.
  [[nodiscard]] std::optional<double> peakChangePercent(const SolveResult& r) const;
};

/// Runs every solver on `request` (each at its own least budget when `leastBudgets`; the request's
/// budget is then ignored) and judges the results. `progressFor` gives each solver's progress sink.
/// The request's time limit is each solver's; `total`, when given, bounds the whole comparison
/// (SharedTime: each solver gets at most an equal share of what is left, never more than its own limit),
/// and a solver not begun when it is spent gets the status TimeLimit and says it did not run.
[[nodiscard]] Comparison compareSolvers(const std::vector<const Solver*>& solvers, const SolveRequest& request,
                                        bool leastBudgets,
                                        const std::function<ProgressSink(const std::string& id)>& progressFor = {},
                                        std::optional<std::chrono::milliseconds> total = {});

/// The winner among results already at hand (Comparison::best's rule).
[[nodiscard]] std::optional<std::size_t> bestResult(const std::vector<SolveResult>& rows, bool leastBudgets);

/// Whether plan figures `a` beat `b` by Comparison::best's rule (both plans fit their budgets): the lower
/// simulated overhead, then the lower peak; with each solver at its own least budget, the lower peak,
/// then the lower overhead. A tie is no win (the earlier row stays the winner).
[[nodiscard]] bool beats(const PlanMetrics& a, const PlanMetrics& b, bool leastBudgets);

/// The tightest overhead bound among results already at hand (Comparison::bound's rule): none when each
/// solver ran at its own least budget, since the bounds are then at different budgets.
[[nodiscard]] std::optional<OverheadBound> tightestBound(const std::vector<SolveResult>& rows, bool leastBudgets);

}  // namespace remat::solvers
