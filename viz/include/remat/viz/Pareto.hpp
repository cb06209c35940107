#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "remat/viz/Figure.hpp"
#include "remat/viz/Scene.hpp"

namespace remat::viz {

/// A plan on the budget/overhead plane: the memory it needs and the recomputation it costs.
struct TradeOffPoint {
  double memory = 0;    ///< bytes
  double overhead = 0;  ///< in the graph's time unit
  bool operator==(const TradeOffPoint&) const = default;
};

/// One solver's front, from `remat sweep`.
struct ParetoSeries {
  std::string solver;
  std::vector<TradeOffPoint> points;
  std::optional<std::size_t> style;  ///< as TimelineSeries::style
};

/// The Pareto figure: several solvers' fronts, the plain run (no recomputation), the least feasible
/// budget, the memory lower bound and the budget at hand as vertical lines, and the lower convex hull
/// of all the points.
struct ParetoData {
  std::vector<ParetoSeries> series;
  std::optional<TradeOffPoint> vanilla;
  std::optional<double> leastBudget;
  std::optional<double> memoryLowerBound;
  std::optional<double> budget;  ///< the budget being planned for, drawn as the timeline draws it
  std::string timeUnit;
  std::string memoryLabel = "peak memory";  ///< what the x axis measures (DP model or simulated)
};

/// The lower convex hull of the points, from the leftmost (least memory, then least overhead) to the
/// lowest at the right: the trade-offs that mixing plans could reach at best. Computed with CGAL's
/// lower_hull_points_2 with exact predicates.
[[nodiscard]] std::vector<TradeOffPoint> lowerConvexHull(const std::vector<TradeOffPoint>& points);

/// Hotspot::series of the plain run's point (ParetoData::vanilla) on the Pareto figure: it belongs to no
/// series.
inline constexpr std::size_t kVanillaSeries = std::numeric_limits<std::size_t>::max();

/// Each solver's points joined as a staircase in its colour and marker, the hull dashed, the vanilla
/// point, and the two bounds as labelled vertical lines.
///
/// Hotspots: one of kind PlanPoint per point of every series, the marker's square around the point
/// (also for series of more than 200 points, whose markers are not drawn), with `series` and `index`
/// into data.series[series].points[index], and the tip "solver: peak 1.21 GiB, overhead 12 ms"; then,
/// when there is one, the vanilla point's square, with `series` kVanillaSeries and `index` 0.
[[nodiscard]] Scene paretoScene(const ParetoData& data, const FigureStyle& style);

}  // namespace remat::viz
