#pragma once

// What the figure tests share: boxes that overlap, and a simulation with the lifetimes the layout and
// matrix figures are drawn from.

#include "remat/graph/ComputeGraph.hpp"
#include "remat/sim/Simulator.hpp"
#include "remat/viz/Chart.hpp"

namespace remat::test {

/// Whether two boxes share an area (touching edges do not).
inline bool boxesOverlap(const viz::Box& a, const viz::Box& b) {
  return a.x < b.right() && b.x < a.right() && a.y < b.bottom() && b.y < a.bottom();
}

/// `schedule` run in the simulator, every tensor's lifetime recorded unless `lifetimes` is false.
inline sim::SimulationResult simulateWithLifetimes(const graph::ComputeGraph& g, const sim::Schedule& schedule,
                                                   bool lifetimes = true) {
  sim::SimulatorOptions options;
  options.recordLifetimes = lifetimes;
  return sim::Simulator(g, options).run(schedule);
}

}  // namespace remat::test
