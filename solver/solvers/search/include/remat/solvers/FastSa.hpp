#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "remat/sim/Schedule.hpp"
#include "remat/solvers/Solver.hpp"

namespace remat::solvers {

/// `fastsa`: simulated annealing over where each forward is computed, after FastSA (Imanishi, Xu, Takagi,
/// Wang, Castillo; "A fast heuristic to optimize time-space tradeoff for large models", NeurIPS 2023).
/// The backwards stay in the plain run's order; each operation's value is computed one or more times,
/// anywhere before the steps that read it, and every step reads the latest copy (the first copy may move
/// too, which reorders the forward pass). Time is a grid of slots, K before each step of the plain run;
/// each copy's lifetime runs from its slot to its last read before the next copy, and a segment tree over
/// the slots holds memory (range add, maximum at the root), so a move costs O(reads · log slots). Moves:
/// add a copy right before a read of the value (with the inputs not in memory there, up to 3 levels: a
/// group recomputed together), remove a copy, shift one. The objective is overhead + λ · the bytes over
/// the budget, λ rising and the temperature falling geometrically over the run; the best plan seen
/// (least excess, then least overhead) is kept. Its memory model is the simulator's without storage
/// sharing by views; each plan is simulated, and a plan over the budget in the simulator is annealed
/// again against a budget lowered by the difference. Seeded (SolveRequest::seed): the same request gives
/// the same plan. Heuristic (not exact); any DAG.
class FastSa final : public Solver {
 public:
  [[nodiscard]] const SolverInfo& info() const override;
  [[nodiscard]] SolverOutput plan(const SolveRequest& request) const override;
  /// The lowest simulated peak the annealing reaches against a budget of 0 (a heuristic's least, not a
  /// proven one).
  [[nodiscard]] MinBudget planMinBudget(const SolveRequest& request) const override;
};

/// What one annealing run found (FastSa's search on its own, for tests and benchmarks).
struct AnnealResult {
  std::optional<sim::Schedule> schedule;  ///< the best plan seen, as a schedule
  Bytes modelPeak{0};                     ///< its peak in the annealer's memory model
  Ticks modelOverhead{0};                 ///< its recomputation time
  std::uint64_t moves = 0;                ///< moves tried
  std::uint64_t accepted = 0;             ///< moves accepted
  bool stopped = false;                   ///< the limit ended the run early
};

/// What one annealing run holds in memory, about: its slots (K per step of the plain run, or of `from`),
/// their segment tree and each op's copies and reads. Solves whose runs would need more than the request's
/// memory limit answer status Limit (fastsa) or skip the annealing (dp-evict).
[[nodiscard]] Bytes annealMemory(const graph::ComputeGraph& g, const sim::Schedule* from = nullptr);

/// One annealing run against `budget` (0: as low as it goes) for `moves` moves (none: the default for
/// the graph's size, 2,000 per op within 20,000 to 16 million), from the plain run, or from `from` (a legal schedule:
/// its backward order is kept, its forwards are where the copies start; the run is then cooler, a refinement); the
/// limit is charged one unit per move.
[[nodiscard]] AnnealResult anneal(const graph::ComputeGraph& g, Bytes budget, std::uint64_t seed,
                                  std::optional<std::uint64_t> moves, TimeLimit& limit,
                                  const sim::Schedule* from = nullptr);

/// A forward order of a graph computed as given whose peak is low, by a beam search over topological
/// orders: `width` partial orders are kept at each length, ranked by (the larger of their peak so far and
/// `budget`, the bytes alive now), the same set of computed ops counted once (with its lowest peak); each
/// is extended by every op whose inputs are computed. Memory as the simulator counts it without views:
/// a value lives from its step to its last read (a value nothing reads, through its own step). fastsa
/// anneals from it as well as from the file's order on a graph computed as given, where the order is
/// free and most of what FastSA saves on Moccasin's layered DAGs is reordering. O(|V|² · width) time,
/// O(|V| · width) memory; charged to `limit` one unit per order extended; nullopt when stopped.
[[nodiscard]] std::optional<sim::Schedule> lowMemoryOrder(const graph::ComputeGraph& g, Bytes budget, std::size_t width,
                                                          TimeLimit& limit);

/// The beam's width for lowMemoryOrder on a graph computed as given: 256 partial orders (on Moccasin's
/// RL2, 100 reached 90.9% of the file order's peak, 1,000 79.7%, 10,000 79.2%), fewer where |V|² · width
/// would pass 4·10^9 (some seconds), 0 (no beam) under 8.
[[nodiscard]] std::size_t lowMemoryOrderWidth(const graph::ComputeGraph& g);

}  // namespace remat::solvers
