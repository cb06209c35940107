#pragma once

#include <cstdint>
#include <vector>

#include "remat/solvers/ChainModel.hpp"

namespace remat::solvers {

/// Griewank and Walther, "Algorithm 799: Revolve: an implementation of checkpointing for the reverse or
/// adjoint mode of computational differentiation", ACM TOMS 26(1), 2000: binomial checkpointing of a
/// uniform chain of `steps` steps x_{i-1} -> x_i with `checkpoints` snapshots, x_0's included. The
/// reversal of step i starts from x_{i-1} and runs step i again itself (taped), so the forward steps
/// counted are the plain advances. Exact for uniform chains (the binomial bound is tight).

/// The least number of forward steps, t(l, c) = r·l − β(c + 1, r − 1), with β(s, t) = C(s + t, s) and
/// r the unique integer with β(c, r − 1) < l ≤ β(c, r) (β(c, −1) = 0). Needs steps, checkpoints ≥ 1.
/// O(r) arithmetic.
[[nodiscard]] std::uint64_t revolveForwardSteps(std::uint64_t steps, std::uint64_t checkpoints);

/// One action of a revolve schedule, on states x_0..x_l.
struct RevolveAction {
  enum class Kind : std::uint8_t {
    Advance,   ///< computes x_state from the current x_{state-1}, which it replaces unless stored
    Takeshot,  ///< stores the current x_state in a snapshot
    Restore,   ///< makes the snapshot x_state current
    Release,   ///< drops the snapshot x_state
    Reverse,   ///< the adjoint of step `state` from the current x_{state-1} (its taped forward included)
  };
  Kind kind = Kind::Advance;
  std::uint32_t state = 0;

  bool operator==(const RevolveAction&) const = default;
};

/// An optimal revolve schedule: t(l, c) advances, never more than c snapshots. Each split point m̂ of
/// l steps with c snapshots minimises m̂ + t(l − m̂, c − 1) + t(m̂, c) (Griewank's recursion, written
/// with the closed form above). O(l²) time for the splits plus the schedule's length.
[[nodiscard]] std::vector<RevolveAction> revolveSchedule(std::uint32_t steps, std::uint32_t checkpoints);

/// The same schedule as chain operations on a chain of `steps` stages (stage i is step i): an advance
/// is `ForwardCheck i` from a snapshot and `ForwardDrop i` otherwise, a reversal `ForwardAll i,
/// Backward i` (then `Discard i-1` unless x_{i-1} is a snapshot), a released snapshot `Discard i`.
/// x_0 is the chain's resident input.
[[nodiscard]] std::vector<ChainOp> revolveChainOps(const std::vector<RevolveAction>& actions);

}  // namespace remat::solvers
