#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <stop_token>
#include <vector>

#include "remat/solvers/LowerSetFamily.hpp"
#include "remat/solvers/Solver.hpp"

namespace remat::solvers {

/// One Pareto-optimal way to reach a lower set: overhead t = Σ T(V_i \ ∂(L_i)) so far, checkpoint
/// memory m = M(U) so far, and where it came from (for reconstruction).
struct DpPoint {
  std::int64_t t = 0;
  std::int64_t m = 0;
  std::uint32_t prevSet = 0;
  std::uint32_t prevPoint = 0;
};

/// Lower bounds on what any continuation from a lower set to V must add, ignoring the budget (one
/// backward pass over all pairs): minPeak[i] = the least D over continuations, where D is the highest
/// model term relative to the checkpoint memory at L_i; minOverhead[i] = the least overhead still to
/// come; minCheckpoints[i] = the least checkpoint memory still to come. They let the forward DP drop
/// points that cannot reach V within the budget or cannot beat an incumbent, without losing optimality.
struct ContinuationBounds {
  std::vector<std::int64_t> minPeak;  ///< INT64_MIN for V itself (no term left)
  std::vector<std::int64_t> minOverhead;
  std::vector<std::int64_t> minCheckpoints;
};

/// Computes the bounds; nullopt when stopped.
[[nodiscard]] std::optional<ContinuationBounds> continuationBounds(const LowerSetFamily& family, std::stop_token stop = {},
                                                                  unsigned threads = 0);

struct DpOptions {
  std::int64_t budget = INT64_MAX;  ///< B of the model; INT64_MAX when unconstrained
  std::stop_token stop;
  ProgressSink progress;
  std::optional<std::chrono::steady_clock::time_point> deadline;
  std::size_t maxPoints = 200'000'000;  ///< cap on stored front points (about 24 bytes each)
  unsigned threads = 0;                 ///< 0: std::thread::hardware_concurrency()
  /// Optional pruning: with bounds, points that cannot reach V within the budget are dropped; with an
  /// incumbent as well, points whose every completion is worse than the incumbent are dropped
  /// (overhead for the time-centric strategy, checkpoint memory for the memory-centric one). The
  /// optimum of the chosen strategy is kept; other points of V's front may be lost.
  const ContinuationBounds* bounds = nullptr;
  Strategy strategy = Strategy::Time;
  std::optional<std::int64_t> incumbent;
};

enum class DpOutcome { Complete, Cancelled, TimeLimit, MemoryLimit };

/// The fronts of every lower set after a run; fronts[i] is sorted by t ascending, m strictly descending.
struct DpRun {
  DpOutcome outcome = DpOutcome::Complete;
  std::vector<std::vector<DpPoint>> fronts;
  std::size_t processed = 0;  ///< sets whose fronts are final (a prefix of the family)
  std::size_t points = 0;
};

/// The exact dynamic program of Kusumoto et al. 2019 over a family of lower sets (ARCHITECTURE.md
/// section 5.1): every pair L ⊊ L' of the family is a transition, allowed when
/// m + 2 M(L' \ L) + M(A') + M(B') ≤ B, and it adds T((L' \ L) \ ∂L') to t and M(∂L' \ L) to m.
/// Each lower set keeps the Pareto front of (t, m); sets are processed by size, and the sets of one
/// size in parallel (none contains another). O(Σ pairs · front size).
[[nodiscard]] DpRun runParetoDp(const LowerSetFamily& family, const DpOptions& options);

/// The lower sets L_1 ⊊ ... ⊊ L_k = V (family indices) of the path ending at point `point` of set `set`.
[[nodiscard]] std::vector<std::size_t> reconstructPath(const DpRun& run, std::size_t set, std::size_t point);

/// a + b, or INT64_MAX when that overflows.
[[nodiscard]] std::int64_t saturatingAdd(std::int64_t a, std::int64_t b);
/// 2 M(L_j \ L_i) + M(A_j) + M(B_j): the model term of the transition L_i -> L_j without M(U), saturated.
[[nodiscard]] std::int64_t transitionBase(const LowerSetFamily& f, std::size_t i, std::size_t j);

/// The least budget B for which the model has a solution over the family: the least peak over all
/// continuations from ∅, from one backward pass (continuationBounds). nullopt when stopped.
[[nodiscard]] std::optional<std::int64_t> leastFeasibleBudget(const LowerSetFamily& family, std::stop_token stop = {});

/// A feasible plan found greedily: from each set, the step to the superset with the best bound on the
/// strategy's objective, among steps that keep a continuation within the budget (so the walk reaches V
/// whenever any plan fits). Used as the incumbent that prunes the DP.
struct GreedyPath {
  std::vector<std::size_t> path;  ///< family indices of L_1..L_k
  std::int64_t overhead = 0;
  std::int64_t checkpoints = 0;
};
[[nodiscard]] std::optional<GreedyPath> greedyPath(const LowerSetFamily& family, const ContinuationBounds& bounds,
                                                   std::int64_t budget, Strategy strategy);

/// One point of the budget/overhead trade-off: the least overhead of any plan whose model peak is at
/// most `peak`, with that plan's lower sets (family indices).
struct TradeOffPoint {
  std::int64_t peak = 0;
  std::int64_t overhead = 0;
  std::vector<std::size_t> path;
};

struct TradeOffRun {
  DpOutcome outcome = DpOutcome::Complete;
  std::vector<TradeOffPoint> front;  ///< by peak ascending, overhead strictly descending
};

/// The whole budget/overhead Pareto front from one DP run: each lower set keeps the three-dimensional
/// Pareto front of (t, m, peak so far), and V's points, projected on (peak, t), are the front. A point
/// whose least possible final (peak, t) is dominated by a plan already known is dropped.
[[nodiscard]] TradeOffRun tradeOffFront(const LowerSetFamily& family, const ContinuationBounds& bounds,
                                        const DpOptions& options);

}  // namespace remat::solvers
