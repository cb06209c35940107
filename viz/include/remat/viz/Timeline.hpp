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
  /// Its colour and dash (Theme::seriesStroke): the solver's own (solverStyle) when the plan is a
  /// solver's, so a solver looks the same in every figure and run; none: its position.
  std::optional<std::size_t> style;
  /// Per step, the bytes alive while it runs by MemoryCategory (the simulator's `during` breakdown).
  std::vector<std::array<std::int64_t, kMemoryCategories>> bytes;
  std::vector<std::int64_t> endTime;  ///< cumulative compute time at the end of each step
  std::vector<Phase> phase;           ///< per step; frees take the phase of the step before them
  /// Per step, what it does: "fwd conv3", "free-grad relu1", ...; the name as displayName shows it.
  std::vector<std::string> what;
  /// A tensor the hover names: "conv3 (gradient)" and its bytes.
  struct Held {
    std::string what;
    std::int64_t bytes = 0;
  };
  /// The simulation's tensors other than parameters and inputs (there for the whole step), when it
  /// recorded lifetimes; and per step the (up to) three largest of them alive, as indices into
  /// `tensors` (-1: none).
  std::vector<Held> tensors;
  std::vector<std::array<std::int32_t, 3>> largest;
  std::int64_t peak = 0;     ///< the simulator's peak
  std::size_t peakStep = 0;  ///< and the first step at which it happens
  std::string peakWhat;      ///< that step, e.g. "bwd conv3", the name as nodeLabel draws it

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
///
/// Hotspots: one of kind Step per drawn column (a step, or a pixel column of a thinned schedule), the
/// plot's full height, side by side across its width. The columns are those of the plan that runs
/// longest (the first of equally long ones), and `index` is the step its column draws. The tip reads
/// "step N", then per plan "label: fwd conv3 · 1.21 GiB" (the plan's step and its total bytes while it
/// runs) or "label: finished" when the plan is over by then; each plan's line is followed by lines
/// indented by two spaces: its bytes by category, and the largest tensors it holds (when the
/// simulation recorded lifetimes). On a steps axis every plan is at step N;
/// on a time axis with several plans each line names the plan's own step running at the column's
/// middle ("label: step 12, fwd conv3 · 1.21 GiB").
[[nodiscard]] Scene timelineScene(const TimelineData& data, const FigureStyle& style,
                                  TimelineAxis axis = TimelineAxis::Steps);

}  // namespace remat::viz
