#pragma once

#include <optional>

#include "remat/sim/Schedule.hpp"
#include "remat/solvers/Solver.hpp"

namespace remat::solvers {

/// `dp-evict`: the paper's DP as the backbone, then a search over schedules judged by the simulator that
/// goes where the two-level class cannot. The DP's trade-off front (exact-dp's, approx-dp's where
/// exact-dp refuses the graph) gives plans at budgets from the request's up; each plan whose simulated
/// peak is over the budget is refined by evictions: at the peak step, a value held across it (a
/// checkpoint, or a value recomputed for a later backward) is dropped after its last use before the peak
/// and computed again right before its next use, the move with the least recomputation time per byte
/// that lowers the peak first, until the plan fits. A recomputation inside a segment's backward, or of a
/// checkpoint, is what the lower-set chains cannot express (DTR decides the same kind of move online, one
/// step at a time). The plan of least overhead among the DP's plan at the budget and the refined ones is
/// then annealed (fastsa's moves, FastSa.hpp, starting from it and cooler, seeded by SolveRequest::seed)
/// and the annealed plan taken where it fits with less overhead, so it is never worse than the DP's in
/// the simulator. Below every budget the evictions reach, the least budget's plan (below) answers where it
/// fits. On a graph computed as given (no backward pass, no DP) the front is the two forward orders
/// fastsa starts from (the file's and lowMemoryOrder's), one within the budget answers as it is, and
/// fastsa's plan at the budget (same seed) is the plan to beat; DTR's place in the least-budget search is
/// fastsa's plan at its least. Heuristic (not exact); any DAG; O(front · moves · k · |schedule|) for k
/// moves simulated per step of the search, plus one annealing run (and fastsa's solve on a graph computed
/// as given).
class DpEvict final : public Solver {
 public:
  [[nodiscard]] const SolverInfo& info() const override;
  [[nodiscard]] SolverOutput plan(const SolveRequest& request) const override;
  /// The least budget the search reaches: from every plan of the DP's front (24), evictions as
  /// low as they go, then annealing from the lowest against a budget of 0 (the lowest simulated peak
  /// reached; the DP's least where nothing lowers it). A heuristic's least, not a proven one; a solve at
  /// it finds that plan again (the search is deterministic, and a solve below what the evictions reach
  /// runs this search).
  [[nodiscard]] MinBudget planMinBudget(const SolveRequest& request) const override;
  /// A sweep from that least budget to the plain peak over one DP front (not a solve per budget): at
  /// each budget the front's plan within it is the plan to beat; budgets no refinement meets are no
  /// points. Status Optimal when every budget was searched (a heuristic's front).
  [[nodiscard]] TradeOff planTradeOff(const SolveRequest& request, std::size_t points) const override;
};

/// The eviction search on its own: `schedule` refined until its simulated peak (with liveness) is at
/// most `budget`, each move as DpEvict says; nullopt when no move lowers the peak further, or when
/// `limit` ends the search. `moves`, when given, counts the moves made.
[[nodiscard]] std::optional<sim::Schedule> evictToBudget(const graph::ComputeGraph& g, sim::Schedule schedule,
                                                         Bytes budget, TimeLimit& limit, std::size_t* moves = nullptr);

}  // namespace remat::solvers
