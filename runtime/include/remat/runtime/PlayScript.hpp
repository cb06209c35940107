#pragma once

#include <cstddef>
#include <vector>

#include "remat/runtime/GraphSpec.hpp"
#include "remat/runtime/PlanSpec.hpp"

namespace remat::runtime {

/// What the player does at one schedule step, worked out before any tensor exists.
struct ScriptStep {
  StepKind kind = StepKind::Forward;
  std::size_t node = 0;
  bool recompute = false;         ///< a forward of a node computed before
  bool seedsGradient = false;     ///< a backward of an output: its gradient is seeded (ones) here
  bool explicitFreeNoop = false;  ///< a free/free-grad of something liveness already dropped
  /// Values dropped after the step: their last use was here (liveness), in the simulator's order.
  std::vector<std::size_t> freeValuesAfter;
  bool freeOwnGradAfter = false;  ///< a backward drops its node's gradient when done (liveness)
};

/// The bookkeeping of a schedule, Torch-free: the same legality rules and the same liveness analysis as
/// the simulator (solver/sim/src/Simulator.cpp, docs/simulator.md), so that the tables the player keeps
/// hold exactly the tensors the simulator counts. Throws RunnerError (ExitCode::Schedule) naming the plan
/// file, the step index, the step and the reason when a step is illegal or the schedule is incomplete.
[[nodiscard]] std::vector<ScriptStep> makePlayScript(const GraphSpec& g, const PlanSpec& plan, bool liveness);

}  // namespace remat::runtime
