#include "remat/solvers/StoreAll.hpp"

#include "remat/sim/CanonicalSchedule.hpp"

namespace remat::solvers {

const SolverInfo& StoreAll::info() const {
  static const SolverInfo kInfo{
      .id = "store-all",
      .name = "Store all (no recomputation)",
      .citation = "the framework's plain run with liveness analysis",
      .problemClass = "any DAG",
      .exact = true,
      // It recomputes nothing, and keeps every value through its one segment, the whole step, as a
      // recompute pin allows (docs/pins.md).
      .pins = PinSupport::KeepAndRecompute,
      .scheduleClass = ScheduleClass::KeepAll,
      .plainRun = true,
      .asGiven = true,
      .figureSlot = 6,  // black
  };
  return kInfo;
}

SolverOutput StoreAll::plan(const SolveRequest& request) const {
  // Zero overhead cannot be beaten, so within the budget this plan is optimal.
  return {SolveStatus::Optimal, Plan{sim::storeAllSchedule(*request.graph), std::nullopt}, {}};
}

}  // namespace remat::solvers
