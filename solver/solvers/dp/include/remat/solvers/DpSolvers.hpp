#pragma once

#include <cstdint>

#include "remat/solvers/LowerSetFamily.hpp"
#include "remat/solvers/Solver.hpp"

namespace remat::solvers {

/// `exact-dp`: the exact dynamic program of Kusumoto et al., "A Graph Theoretic Framework of
/// Recomputation Algorithms for Memory-Efficient Backpropagation", NeurIPS 2019, over all lower sets
/// and every pair L ⊊ L' (docs/architecture.md section 5.1). Exact for its model, the simulator's by default
/// (SimulatedDpModel: a plan within the budget fits it in the simulator) or the paper's
/// (SolveRequest::model): the time-centric strategy returns the least overhead under the budget, the
/// memory-centric one the least checkpoint memory. Any DAG; exponential in the graph's width (the
/// number of lower sets), O(Σ pairs · front), each pair's memory O(1) in the paper's model and a pass
/// over the segment in the simulator's where its O(|boundary|) bound does not decide.
class ExactDp final : public Solver {
 public:
  /// The cap on its work is measured in time and memory: a family whose comparable pairs (L ⊊ L',
  /// which the bounds pass and the DP each visit; estimated from 256 of its sets) would take more than
  /// the time it may spend (the caller's --time-limit, or 60 s without one) at 10 ns a pair (scaled by
  /// the words a set takes past 8), or where a count of the sets bounds the pairs already past it, or more
  /// sets than the memory limit holds, is refused (status `limit`) with the estimate and a message naming
  /// approx-dp and dp-evict. Before the pairs can be counted, the enumeration stops at this many sets
  /// (times √(limit / 60 s) for a longer limit the caller gave; and at half of any time limit): a
  /// million sets take about 2 s and 0.5 GB,
  /// and have some 10^10 pairs or more on every graph measured (GoogLeNet's 539,229: 4·10^10).
  static constexpr std::uint64_t kDefaultLowerSetLimit = 1'000'000;

  /// Seconds its passes take a comparable pair, at least, on the 2-core machine of BENCHMARKS.md
  /// (release build, time-centric solves at 50-80% of the plain peak): 12 ns on the paper's GoogLeNet
  /// (1.2·10^8 pairs, 1.5 s), 24 ns on Inception-v3 (1.9·10^10 pairs, 450-550 s at 80%), 300 ns on the
  /// PSPNet of datasets/ (costs in nanoseconds, wide fronts): the fastest, so that only families that
  /// cannot finish in time are refused.
  static constexpr double kSecondsPerPair = 1e-8;

  explicit ExactDp(std::uint64_t lowerSetLimit = kDefaultLowerSetLimit, double secondsPerPair = kSecondsPerPair)
      : m_limit(lowerSetLimit), m_secondsPerPair(secondsPerPair) {}
  [[nodiscard]] const SolverInfo& info() const override;
  [[nodiscard]] SolverOutput plan(const SolveRequest& request) const override;
  [[nodiscard]] MinBudget planMinBudget(const SolveRequest& request) const override;
  [[nodiscard]] TradeOff planTradeOff(const SolveRequest& request, std::size_t points) const override;

 private:
  std::uint64_t m_limit;
  double m_secondsPerPair;
};

/// `approx-dp`: the same DP restricted to {∅} ∪ {ancestors of v plus v : v ∈ V} (and V), Kusumoto et al.
/// 2019, Section 4. Heuristic for the model (optimal over that family); any DAG; polynomial:
/// O(|V|^2 · front) transitions, subset tests in O(1).
class ApproxDp final : public Solver {
 public:
  [[nodiscard]] const SolverInfo& info() const override;
  [[nodiscard]] SolverOutput plan(const SolveRequest& request) const override;
  [[nodiscard]] MinBudget planMinBudget(const SolveRequest& request) const override;
  [[nodiscard]] TradeOff planTradeOff(const SolveRequest& request, std::size_t points) const override;
};

/// How the DP finds its pruning threshold (the optimum is the same either way). Both first run a beam
/// over the family (64 points per set, 64 nearest sources); when it reaches a plan, one run at its value
/// finds the optimum. When it reaches none:
///  - `Gallop`: thresholds climb from the lower bound in doubling steps until one reaches V, never past
///    the greedy incumbent. Best when that incumbent may be far off and probes under the optimum are
///    cheap (exact-dp on wide graphs).
///  - `Direct`: one run at the greedy incumbent. Best when a probe costs about the same at any threshold
///    (approx-dp on deep chains).
enum class ThresholdSearch { Gallop, Direct };

/// The DP over a given family, as both solvers run it. A `warmStart` subfamily (the ancestor closures,
/// for exact-dp) is solved first: its optimum is an incumbent that prunes the full family's fronts.
[[nodiscard]] SolverOutput solveOverFamily(const graph::ComputeGraph& g, const LowerSetFamily& family,
                                           const SolveRequest& request, std::string_view what,
                                           const LowerSetFamily* warmStart, ThresholdSearch search);

}  // namespace remat::solvers
