#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "remat/graph/ByteSize.hpp"
#include "remat/viz/Chart.hpp"
#include "remat/viz/Pareto.hpp"

namespace remat::viz {

namespace {

constexpr double kMarkerRadius = 3;  // a series point's marker
constexpr double kVanillaHalf = 4;   // half the side of the plain run's square

std::string formatNumber(double v) {
  char buf[32];
  if (v == std::round(v) && std::abs(v) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

Hotspot pointHotspot(const Chart& chart, const TradeOffPoint& p, double half, std::size_t series, std::size_t index,
                     const std::string& name, const std::string& unit) {
  std::string tip = name + ": peak " + formatByteSize(Bytes{std::llround(p.memory)}) + ", overhead " +
                    formatNumber(p.overhead) + " " + unit;
  return {Hotspot::Kind::PlanPoint,
          chart.x(p.memory) - half,
          chart.y(p.overhead) - half,
          2 * half,
          2 * half,
          index,
          series,
          std::move(tip)};
}

}  // namespace

Scene paretoScene(const ParetoData& data, const FigureStyle& style) {
  Scene scene = makeScene(style);
  const Theme& th = style.theme;
  std::vector<TradeOffPoint> all;
  for (const ParetoSeries& s : data.series) all.insert(all.end(), s.points.begin(), s.points.end());
  if (data.vanilla) all.push_back(*data.vanilla);
  double xMin = INFINITY;
  double xMax = -INFINITY;
  double yMax = 0;
  for (const TradeOffPoint& p : all) {
    xMin = std::min(xMin, p.memory);
    xMax = std::max(xMax, p.memory);
    yMax = std::max(yMax, p.overhead);
  }
  for (const std::optional<double>& bound : {data.leastBudget, data.memoryLowerBound, data.budget})
    if (bound) {
      xMin = std::min(xMin, *bound);
      xMax = std::max(xMax, *bound);
    }
  if (!std::isfinite(xMin)) xMin = 0, xMax = 1;
  const double margin = std::max(1.0, (xMax - xMin) * 0.04);
  xMin = std::max(0.0, xMin - margin);
  xMax += margin;
  yMax = yMax > 0 ? yMax * 1.08 : 1;

  const Stroke hullStroke{{0x66, 0x66, 0x66}, 1.0, Dash::Dashed};
  const Stroke leastStroke{th.foreground, 1.0, Dash::Dotted};
  const Stroke boundStroke{{0x88, 0x88, 0x88}, 1.0, Dash::Dotted};
  std::vector<LegendEntry> legend;
  for (std::size_t k = 0; k < data.series.size(); ++k) {
    const std::size_t st = data.series[k].style.value_or(k);
    legend.push_back({data.series[k].solver, LegendEntry::Kind::Line, Fill{th.seriesColor(st)},
                      th.seriesStroke(st, 1.4), th.seriesMarker(st), th.background});
  }
  const std::vector<TradeOffPoint> hull = lowerConvexHull(all);
  // A narrow figure (a paper's column) gets the short names, so that its legend leaves the plot room.
  const bool compact = style.width < 520;
  if (hull.size() >= 2)
    legend.push_back({compact ? "convex hull" : "lower convex hull", LegendEntry::Kind::Line, {}, hullStroke});
  if (data.vanilla)
    legend.push_back(
        {compact ? "store-all" : "store-all (no recomputation)", LegendEntry::Kind::Swatch, Fill{th.foreground}, {}});
  if (data.leastBudget)
    legend.push_back({(compact ? "least " : "least budget (DP model) ") + formatBytes(*data.leastBudget),
                      LegendEntry::Kind::Line,
                      {},
                      leastStroke});
  if (data.memoryLowerBound)
    legend.push_back({(compact ? "bound " : "memory lower bound ") + formatBytes(*data.memoryLowerBound),
                      LegendEntry::Kind::Line,
                      {},
                      boundStroke});
  const Stroke budgetStroke{th.budget, 1.2, Dash::Dashed};
  if (data.budget) legend.push_back({"budget " + formatBytes(*data.budget), LegendEntry::Kind::Line, {}, budgetStroke});

  const std::string unit = data.timeUnit.empty() ? "ticks" : data.timeUnit;
  Axis yAxis = durationAxis(0, yMax, "recomputation overhead", data.timeUnit);
  yAxis.shortTitle = "overhead";
  Chart chart(scene, style, Axis{xMin, xMax, data.memoryLabel, AxisFormat::Bytes}, yAxis, legend);
  chart.background();
  chart.pushClip();
  const Box& plot = chart.plot();
  for (const std::optional<double>& bound : {data.memoryLowerBound, data.leastBudget})
    if (bound)
      scene.add(PolylineItem{{{chart.x(*bound), plot.y}, {chart.x(*bound), plot.bottom()}},
                             bound == data.leastBudget ? leastStroke : boundStroke});
  if (data.budget)
    scene.add(PolylineItem{{{chart.x(*data.budget), plot.y}, {chart.x(*data.budget), plot.bottom()}}, budgetStroke});
  if (hull.size() >= 2) {
    std::vector<Point> line;
    line.reserve(hull.size());
    for (const TradeOffPoint& p : hull) line.push_back({chart.x(p.memory), chart.y(p.overhead)});
    scene.add(PolylineItem{std::move(line), hullStroke});
  }
  std::vector<Hotspot> hotspots;
  for (std::size_t k = 0; k < data.series.size(); ++k) {
    const std::vector<TradeOffPoint>& points = data.series[k].points;
    // Sorted by position through indices, so that each hotspot keeps its point's index in the series.
    std::vector<std::size_t> order(points.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) {
      const TradeOffPoint& a = points[i];
      const TradeOffPoint& b = points[j];
      return a.memory < b.memory || (a.memory == b.memory && a.overhead < b.overhead);
    });
    std::vector<TradeOffPoint> pts;
    pts.reserve(points.size());
    for (const std::size_t i : order) pts.push_back(points[i]);
    // A staircase through the plans no other plan of the series beats in both measures (a DP front is
    // Pareto-optimal in its model; in simulated memory some plans may be beaten): with a budget between
    // two of them, the one needing less memory is what one gets. Every plan keeps its marker.
    std::vector<TradeOffPoint> front;
    for (const TradeOffPoint& p : pts)
      if (front.empty() || p.overhead < front.back().overhead) front.push_back(p);
    std::vector<Point> stairs;
    for (std::size_t i = 0; i < front.size(); ++i) {
      if (i > 0) stairs.push_back({chart.x(front[i].memory), chart.y(front[i - 1].overhead)});
      stairs.push_back({chart.x(front[i].memory), chart.y(front[i].overhead)});
    }
    const std::size_t st = data.series[k].style.value_or(k);
    if (stairs.size() >= 2) scene.add(PolylineItem{std::move(stairs), th.seriesStroke(st, 1.4)});
    // Few points get markers, in the series' shape and fill (Theme::seriesMarker), so that series differ
    // in grey too; the legend shows each.
    if (pts.size() <= 200)
      for (const TradeOffPoint& p : pts)
        drawMarker(scene, {chart.x(p.memory), chart.y(p.overhead)}, th.seriesMarker(st), kMarkerRadius,
                   th.seriesColor(st), th.background);
    for (const std::size_t i : order)
      hotspots.push_back(pointHotspot(chart, points[i], kMarkerRadius, k, i, data.series[k].solver, unit));
  }
  chart.popClip();
  if (data.vanilla) {
    scene.add(RectItem{chart.x(data.vanilla->memory) - kVanillaHalf, chart.y(data.vanilla->overhead) - kVanillaHalf,
                       2 * kVanillaHalf, 2 * kVanillaHalf, Fill{th.foreground}, std::nullopt});
    hotspots.push_back(pointHotspot(chart, *data.vanilla, kVanillaHalf, kVanillaSeries, 0, "no recomputation", unit));
  }
  chart.foreground();
  scene.hotspots = std::move(hotspots);
  return scene;
}

}  // namespace remat::viz
