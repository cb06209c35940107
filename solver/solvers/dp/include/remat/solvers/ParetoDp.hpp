#pragma once

#include <cstdint>
#include <optional>
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
/// backward pass over all pairs, with the family's quick transitions: exact in the paper's model, a
/// lower bound on the memory in the simulator's): minPeak[i] = the least D over continuations, where D is the highest
/// model term relative to the checkpoint memory at L_i; minOverhead[i] = the least overhead still to
/// come; minCheckpoints[i] = the least checkpoint memory still to come. They let the forward DP drop
/// points that cannot reach V within the budget or cannot beat an incumbent, without losing optimality.
///
/// With a budget, the same pass also bounds the strategy's objective still to come under that budget,
/// by Lagrangian relaxation: every continuation from L_i holding checkpoint memory m adds checkpoint
/// memory Δm <= budget - m (the last step, into V, must still fit), so for any λ >= 0 its objective is
/// at least (objective + λ Δm) - λ (budget - m) >= H_λ(i) - λ (budget - m), where H_λ(i) is the
/// cheapest continuation under the weights objective + λ Δm over the steps the budget allows (one
/// shortest-path pass per λ, all in the same sweep). remaining(i, m) takes the best λ of a geometric
/// grid (for the memory-centric objective, λ = 0 alone: the least checkpoint memory over the steps
/// the budget allows). The budget-free bounds above are near zero on long chains; these are not.
struct ContinuationBounds {
  std::vector<std::int64_t> minPeak;  ///< INT64_MIN for V itself (no term left)
  std::vector<std::int64_t> minOverhead;
  std::vector<std::int64_t> minCheckpoints;

  std::int64_t budget = INT64_MAX;  ///< the budget of the Lagrangian bounds (none when lambdas is empty)
  Strategy strategy = Strategy::Time;
  std::vector<double> lambdas;  ///< λ_0 = 0 < λ_1 < ...
  std::vector<double> paths;    ///< H_λk(i) at [i * lambdas.size() + k]; +inf where no continuation fits
  /// BoundTarget::overheadCap: every figure bounds only the continuations whose overhead is at most
  /// this, and so holds only for runs whose threshold (incumbent) is at most this.
  std::int64_t overheadCap = INT64_MAX;

  /// A lower bound on the objective still to come from set i holding checkpoint memory m (at most the
  /// budget); INT64_MAX when no continuation fits. The budget-free bound when there are no lambdas.
  [[nodiscard]] std::int64_t remaining(std::size_t i, std::int64_t m) const;
};

/// What the budget-aware part of continuationBounds needs: the budget and the strategy's objective.
struct BoundTarget {
  std::int64_t budget = INT64_MAX;
  Strategy strategy = Strategy::Time;
  /// The multipliers λ > 0 for the time-centric bounds, ascending; empty: a coarse geometric grid
  /// (refinedLambdas gives a better one).
  std::vector<double> lambdas = {};
  /// An overhead some plan already reaches (an incumbent's), or INT64_MAX. Where it is finite, the
  /// bounds leave out every step that no continuation of at most this overhead can take (its dt, with
  /// the least overhead of what follows it, exceeds the cap), so they hold for those continuations
  /// only: enough for runs that prune at this threshold or below, and far cheaper under a tight one.
  std::int64_t overheadCap = INT64_MAX;
};

/// Computes the bounds; nullopt when stopped. With a finite target budget, the Lagrangian bounds too.
[[nodiscard]] std::optional<ContinuationBounds> continuationBounds(const LowerSetFamily& family,
                                                                   TimeLimit* stop = nullptr, unsigned threads = 0,
                                                                   std::optional<BoundTarget> target = std::nullopt);

/// Multipliers for the time-centric bounds of `target`: the coarse grid, and a fine one around the
/// multiplier that gives the best bound at ∅ in a coarse pass over `probe` (the family itself, or a
/// small subfamily of it). The bound at each set is a maximum over the grid, so a grid too coarse near
/// the best multiplier loses much of it. nullopt when stopped.
[[nodiscard]] std::optional<std::vector<double>> refinedLambdas(const LowerSetFamily& probe, const BoundTarget& target,
                                                                TimeLimit* stop = nullptr);

/// Which subsets L_i a set L_j takes steps from (the forward DP's source plug-in, src/DpAccelerations.hpp):
/// every proper subset, as the recurrence is written; or only those whose fronts are not empty, largest
/// first, skipping every subset of a source found too far from L_j to fit the budget. Both give every
/// set's front (DpRecurrenceTest); Live is the fast one.
enum class DpSources { Every, Live };
/// How a step is costed (the step plug-in): the family's exact transition for every pair; or its O(1)
/// quick bound first and the segment's exact walk only where the bound and the segment's ceilings cannot
/// tell which points take the step. Both give every set's front; Quick is the fast one.
enum class DpSteps { Exact, Quick };

struct DpOptions {
  std::int64_t budget = INT64_MAX;  ///< B of the model; INT64_MAX when unconstrained
  /// When to stop (a cancel, the deadline, the work limit; none: never). A unit of work is a set's front
  /// built plus one per point it keeps; a layer during which the run stops is dropped whole, so the
  /// finished fronts are the same whichever thread saw the limit first.
  TimeLimit* limit = nullptr;
  ProgressSink progress;
  std::size_t maxPoints = 200'000'000;  ///< cap on stored front points (about 24 bytes each)
  unsigned threads = 0;                 ///< 0: std::thread::hardware_concurrency()
  /// Optional pruning: with bounds, points that cannot reach V within the budget are dropped; with an
  /// incumbent as well, points whose every completion is worse than the incumbent are dropped
  /// (overhead for the time-centric strategy, checkpoint memory for the memory-centric one). The
  /// optimum of the chosen strategy is kept; other points of V's front may be lost.
  const ContinuationBounds* bounds = nullptr;
  Strategy strategy = Strategy::Time;
  std::optional<std::int64_t> incumbent;
  /// With an incumbent: its other coordinate (checkpoint memory for the time-centric strategy,
  /// overhead for the memory-centric one). A point that can at best tie the incumbent's objective then
  /// goes as well unless it might finish with less of this one, so V's front holds only plans better
  /// than the incumbent in (objective, other) order.
  std::optional<std::int64_t> tieBreak;
  /// A heuristic when > 0: each set keeps only this many points, those with the best bound on the
  /// finished objective (without bounds: the best objective so far). Every path kept is still a real
  /// plan, so V's best point is feasible, but not necessarily optimal: a close incumbent for the exact
  /// run.
  std::size_t beamWidth = 0;
  /// A heuristic when > 0: each set takes candidates only from this many of the nearest (largest)
  /// sources (with DpSources::Live, sets before it whose fronts are not empty). Every path kept is still
  /// a real plan.
  std::size_t nearestSources = 0;
  /// The exact accelerations plugged into the recurrence's loop (the defaults), or the plain plug-ins
  /// they are tested against.
  DpSources sources = DpSources::Live;
  DpSteps steps = DpSteps::Quick;
};

enum class DpOutcome { Complete, Cancelled, TimeLimit, MemoryLimit };

/// The fronts of every lower set after a run; fronts[i] is sorted by t ascending, m strictly descending.
struct DpRun {
  DpOutcome outcome = DpOutcome::Complete;
  std::vector<std::vector<DpPoint>> fronts;
  std::size_t processed = 0;  ///< sets whose fronts are final (a prefix of the family)
  std::size_t points = 0;
};

/// The exact dynamic program of Kusumoto et al. 2019 over a family of lower sets (docs/architecture.md
/// section 5.1): every pair L ⊊ L' of the family is a transition, allowed when
/// m + 2 M(L' \ L) + M(A') + M(B') ≤ B, and it adds T((L' \ L) \ ∂L') to t and M(∂L' \ L) to m.
/// Each lower set keeps the Pareto front of (t, m); sets are processed by size, and the sets of one
/// size in parallel (none contains another). O(Σ pairs · front size). The loop is the recurrence's
/// (recurrenceFronts, DpRecurrence.hpp); which sources it tries (`sources`, `nearestSources`), how it
/// costs a step (`steps`) and how it prunes a front (`bounds`, `incumbent`, `beamWidth`) are plug-ins
/// (src/DpAccelerations.hpp).
[[nodiscard]] DpRun runParetoDp(const LowerSetFamily& family, const DpOptions& options);

/// The lower sets L_1 ⊊ ... ⊊ L_k = V (family indices) of the path ending at point `point` of set `set`.
[[nodiscard]] std::vector<std::size_t> reconstructPath(const DpRun& run, std::size_t set, std::size_t point);

/// a + b, or INT64_MAX when that overflows.
[[nodiscard]] std::int64_t saturatingAdd(std::int64_t a, std::int64_t b);

/// The least budget B for which the model has a solution over the family: the least peak over all
/// continuations from ∅, from one backward pass (continuationBounds) and, where the family's quick
/// transitions only bound the memory (the simulator's model), a second backward pass over exact
/// transitions (exactLeastPeak): largest sets first, each set's candidate steps in the order of their
/// quick bounds, simulated only until a bound reaches the best value found. nullopt when stopped.
[[nodiscard]] std::optional<std::int64_t> exactLeastPeak(const LowerSetFamily& family, const ContinuationBounds& bounds,
                                                         TimeLimit* stop = nullptr);
[[nodiscard]] std::optional<std::int64_t> leastFeasibleBudget(const LowerSetFamily& family, TimeLimit* stop = nullptr);

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

/// The whole budget/overhead Pareto front from one DP run. The DP runs backward from V: each lower set
/// keeps the two-dimensional Pareto front of its continuations to V as (overhead, peak relative to the
/// checkpoint memory held on entry), since memory held on entry raises every later term alike. The
/// fronts of ∅ are the plans. Only `budget` (steps whose own term exceeds it are skipped), `limit`,
/// `progress`, `maxPoints` and `threads` of the options apply.
[[nodiscard]] TradeOffRun tradeOffFront(const LowerSetFamily& family, const DpOptions& options);

}  // namespace remat::solvers
