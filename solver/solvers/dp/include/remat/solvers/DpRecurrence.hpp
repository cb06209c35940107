#pragma once

#include <vector>

#include "remat/graph/Units.hpp"
#include "remat/solvers/LowerSetFamily.hpp"

namespace remat::solvers {

/// The paper's recurrence, plainly (Kusumoto et al. 2019, section 4; docs/architecture.md section 5.1): what
/// runParetoDp computes, as the same loop with its accelerations plugged in (sources, steps, pruning:
/// src/DpAccelerations.hpp; threads), and the oracle the tests hold it to. Change the recurrence here
/// first, then the loop (forwardRecurrence, src/ParetoDp.cpp); DpRecurrenceTest then says whether the
/// fast DP, with each plug-in, still agrees.

/// One way to reach a lower set: the overhead recomputed on the way and the checkpoint memory held there.
struct Reach {
  Ticks overhead{0};
  Bytes checkpoints{0};
  friend constexpr bool operator==(const Reach&, const Reach&) = default;
};

/// The step L_i -> L_j (LowerSetFamily::transition, in typed terms): its highest memory above the
/// checkpoints held on entry, the overhead it adds, and the checkpoint memory it adds.
struct Step {
  Bytes base{0};
  Ticks dt{0};
  Bytes dm{0};
};
[[nodiscard]] constexpr Step stepOf(const Transition& s) { return {Bytes{s.base}, Ticks{s.dt}, Bytes{s.dm}}; }

/// Whether a way may take the step within budget B: m + base <= B.
[[nodiscard]] constexpr bool stepFits(const Reach& from, const Step& s, Bytes budget) {
  return from.checkpoints + s.base <= budget;
}
/// Where the step takes it: (t + dt, m + dm).
[[nodiscard]] constexpr Reach stepTo(const Reach& from, const Step& s) {
  return {from.overhead + s.dt, from.checkpoints + s.dm};
}

/// By family index, the Pareto front of the ways to reach each lower set within `budget`, by overhead
/// ascending and checkpoints strictly descending:
///   F(∅) = {(0, 0)}
///   F(L_j) = Pareto front of { stepTo(p, L_i -> L_j) : L_i ⊊ L_j, allowed(i, j), p ∈ F(L_i), stepFits(p) }
/// with the family's exact transitions. The plans are F(V); the time-centric optimum is its first
/// point, the memory-centric its last. No bound, pruning, beam or thread: O(Σ pairs · front size), for
/// the tests and for reading.
[[nodiscard]] std::vector<std::vector<Reach>> recurrenceFronts(const LowerSetFamily& family, Bytes budget);

}  // namespace remat::solvers
