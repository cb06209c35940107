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

struct DpOptions {
  std::int64_t budget = INT64_MAX;  ///< B of the model; INT64_MAX when unconstrained
  std::stop_token stop;
  ProgressSink progress;
  std::optional<std::chrono::steady_clock::time_point> deadline;
  std::size_t maxPoints = 200'000'000;  ///< cap on stored front points (about 24 bytes each)
  unsigned threads = 0;                 ///< 0: std::thread::hardware_concurrency()
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

/// The least budget B for which the model has a solution over the family: min over sequences of the
/// model peak. One pass keeping, per set, the Pareto front of (checkpoint memory, peak so far).
/// nullopt when stopped.
[[nodiscard]] std::optional<std::int64_t> leastFeasibleBudget(const LowerSetFamily& family, std::stop_token stop = {},
                                                              const ProgressSink& progress = {});

}  // namespace remat::solvers
