#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/sim/Schedule.hpp"
#include "remat/sim/Simulator.hpp"
#include "remat/viz/Figure.hpp"
#include "remat/viz/Scene.hpp"

namespace remat::viz {

/// What a schedule step is doing, for the shading of the timeline.
enum class Phase : std::uint8_t { Forward, Backward, Recompute };

/// One plan's memory over its schedule, as the simulator measured it.
struct TimelineSeries {
  std::string label;
  /// Per step, the bytes alive while it runs by MemoryCategory (the simulator's `during` breakdown).
  std::vector<std::array<std::int64_t, kMemoryCategories>> bytes;
  std::vector<std::int64_t> endTime;  ///< cumulative compute time at the end of each step
  std::vector<Phase> phase;           ///< per step; frees take the phase of the step before them
  std::int64_t peak = 0;              ///< the simulator's peak
  std::size_t peakStep = 0;           ///< and the first step at which it happens
  std::string peakWhat;               ///< that step, e.g. "bwd conv3"

  [[nodiscard]] std::int64_t total(std::size_t step) const;
};

/// A memory timeline figure: one or several plans, with an optional budget line.
struct TimelineData {
  std::vector<TimelineSeries> series;
  std::optional<std::int64_t> budget;
  std::string timeUnit;  ///< the graph's, for the time axis
};

/// The series of one simulated plan (the result must be valid).
[[nodiscard]] TimelineSeries timelineSeries(const graph::ComputeGraph& g, const sim::Schedule& schedule,
                                            const sim::SimulationResult& result, std::string label);

enum class TimelineAxis : std::uint8_t { Steps, Time };

/// One plan: its memory stacked by category over the steps (or over compute time), phases shaded, the
/// budget as a dashed line, the peak marked and labelled with the step that causes it. Several plans:
/// their totals overlaid as lines, each with its own peak marker. Long schedules are drawn at the
/// canvas's resolution, each pixel column showing its highest step, so no peak is lost.
[[nodiscard]] Scene timelineScene(const TimelineData& data, const FigureStyle& style,
                                  TimelineAxis axis = TimelineAxis::Steps);

}  // namespace remat::viz
