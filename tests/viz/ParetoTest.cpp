#include <catch2/catch.hpp>

#include <cmath>

#include <random>

#include "TestGraphs.hpp"
#include "remat/solvers/SolverRegistry.hpp"
#include "remat/viz/Pareto.hpp"
#include "remat/viz/PlanFigures.hpp"

using namespace remat;
using namespace remat::viz;

namespace {

// The hull's value at memory x (linear between its vertices).
double hullAt(const std::vector<TradeOffPoint>& hull, double x) {
  for (std::size_t k = 1; k < hull.size(); ++k)
    if (x <= hull[k].memory) {
      const TradeOffPoint& a = hull[k - 1];
      const TradeOffPoint& b = hull[k];
      if (b.memory == a.memory) return std::min(a.overhead, b.overhead);
      return a.overhead + (b.overhead - a.overhead) * (x - a.memory) / (b.memory - a.memory);
    }
  return hull.back().overhead;
}

}  // namespace

TEST_CASE("the lower convex hull is convex, spans the points and lies below every one") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<TradeOffPoint> pts;
    std::uniform_real_distribution<double> mem(1e8, 4e9);
    std::uniform_int_distribution<int> over(0, 5000);
    const int count = 2 + trial * 3;
    pts.reserve(static_cast<std::size_t>(count));
    for (int k = 0; k < count; ++k) pts.push_back({std::round(mem(rng)), double(over(rng))});
    const auto hull = lowerConvexHull(pts);
    REQUIRE(hull.size() >= 2);
    double minX = 1e300, maxX = -1e300;
    for (const auto& p : pts) minX = std::min(minX, p.memory), maxX = std::max(maxX, p.memory);
    CHECK(hull.front().memory == minX);
    CHECK(hull.back().memory == maxX);
    for (std::size_t k = 1; k < hull.size(); ++k) CHECK(hull[k].memory >= hull[k - 1].memory);
    // Convex: every turn is to the left (counterclockwise) going right along the bottom.
    for (std::size_t k = 2; k < hull.size(); ++k) {
      const double ax = hull[k - 1].memory - hull[k - 2].memory, ay = hull[k - 1].overhead - hull[k - 2].overhead;
      const double bx = hull[k].memory - hull[k - 1].memory, by = hull[k].overhead - hull[k - 1].overhead;
      CHECK(ax * by - ay * bx >= -1e-6 * std::abs(ax * by));
    }
    for (const auto& p : pts) CHECK(hullAt(hull, p.memory) <= p.overhead + 1e-6);
  }
}

TEST_CASE("the hull of a convex front is the front, of a concave one, its ends") {
  const std::vector<TradeOffPoint> convex{{1, 100}, {2, 40}, {3, 15}, {4, 5}, {5, 0}};
  CHECK(lowerConvexHull(convex) == convex);
  const std::vector<TradeOffPoint> concave{{1, 100}, {2, 95}, {3, 85}, {4, 60}, {5, 0}};
  CHECK(lowerConvexHull(concave) == std::vector<TradeOffPoint>{{1, 100}, {5, 0}});
}

TEST_CASE("pareto scene: markers of every series, bounds as lines, nothing off the canvas") {
  ParetoData data;
  data.series.push_back({"exact-dp", {{1e9, 300}, {1.5e9, 100}, {2e9, 0}}});
  data.series.push_back({"chen", {{1.6e9, 200}}});
  data.vanilla = TradeOffPoint{2.4e9, 0};
  data.leastBudget = 0.9e9;
  data.memoryLowerBound = 0.5e9;
  data.timeUnit = "ms";
  FigureStyle style;
  const Scene scene = paretoScene(data, style);
  int markers = 0;
  // exact-dp's markers are circles, chen's (the second style) squares: Theme::seriesMarker.
  for (const Item& item : scene.items) {
    if (const auto* e = std::get_if<EllipseItem>(&item)) {
      if (e->rx == 3) ++markers;
      CHECK(e->center.x >= 0);
      CHECK(e->center.x <= style.width);
    }
    if (const auto* r = std::get_if<RectItem>(&item); r && std::abs(r->w - 5.4) < 1e-9) ++markers;
  }
  CHECK(markers == 4);
  // The overhead reads in seconds' units ("200 ms"), not in the graph's raw unit.
  bool axisTitle = false;
  bool msTick = false;
  for (const Item& item : scene.items)
    if (const auto* t = std::get_if<TextItem>(&item)) {
      axisTitle |= t->text == "recomputation overhead";
      msTick |= t->text.size() > 3 && t->text.ends_with(" ms");
    }
  CHECK(axisTitle);
  CHECK(msTick);
}

TEST_CASE("pareto staircase only steps down, even through plans another plan beats") {
  ParetoData data;
  // (2e9, 150) is beaten by (1.5e9, 100): it keeps a marker but the staircase skips it.
  data.series.push_back({"exact-dp", {{1e9, 300}, {2e9, 150}, {1.5e9, 100}, {2.5e9, 0}, {2.5e9, 40}}});
  FigureStyle style;
  const Scene scene = paretoScene(data, style);
  const PolylineItem* stairs = nullptr;
  for (const Item& item : scene.items)
    if (const auto* l = std::get_if<PolylineItem>(&item); l && l->stroke.color == style.theme.seriesColor(0))
      if (!stairs || l->points.size() > stairs->points.size()) stairs = l;  // not the legend's symbol
  REQUIRE(stairs != nullptr);
  CHECK(stairs->points.size() == 5);  // (1e9,300) (1.5e9,100) (2.5e9,0) as a staircase: 3 + 2 corners
  for (std::size_t k = 1; k < stairs->points.size(); ++k) {
    CHECK(stairs->points[k].x >= stairs->points[k - 1].x);
    CHECK(stairs->points[k].y >= stairs->points[k - 1].y);  // scene y grows downwards: overhead falls
  }
  int markers = 0;
  for (const Item& item : scene.items)
    if (const auto* e = std::get_if<EllipseItem>(&item); e && e->rx == 3) ++markers;
  CHECK(markers == 5);
}

TEST_CASE("a solver has one colour and dash in every figure, whatever its place among the plans") {
  // The style comes from the registry, not from the plan's position: exact-dp drawn after dtr in one
  // timeline, first in another, and in a Pareto front looks the same, and no two solvers look alike.
  const auto g = test::makeChain(12);
  const auto& registry = remat::solvers::SolverRegistry::builtin();
  auto planOf = [&](const std::string& id) {
    const auto r = registry.find(id)->solve({.graph = &g});
    REQUIRE(r.plan);
    return LabeledPlan{id, *r.plan};
  };
  FigureStyle style;
  auto strokeIn = [&](const Scene& scene, std::size_t want) {
    const Stroke expected = style.theme.seriesStroke(want, 1.6);
    int lines = 0;
    for (const Item& item : scene.items)
      if (const auto* l = std::get_if<PolylineItem>(&item); l && l->points.size() > 2 && l->stroke == expected) ++lines;
    return lines;
  };
  const std::size_t exact = *solverStyle("exact-dp");
  const std::size_t dtr = *solverStyle("dtr");
  CHECK(exact != dtr);
  CHECK_FALSE(solverStyle("a-file.json"));
  for (const auto& order : {std::vector<std::string>{"dtr", "exact-dp"}, std::vector<std::string>{"exact-dp", "dtr"}}) {
    FigureRequest request{.kind = FigureKind::Timeline, .graph = &g};
    for (const auto& id : order) request.plans.push_back(planOf(id));
    const FigureResult figure = buildFigure(request, style);
    REQUIRE(figure.scene);
    CHECK(strokeIn(*figure.scene, exact) == 1);
    CHECK(strokeIn(*figure.scene, dtr) == 1);
  }
  // Every registry solver has a style, and its stroke differs from every other's, in both themes.
  std::vector<std::size_t> styles;
  for (const auto& s : registry.solvers()) {
    REQUIRE(solverStyle(s->info().id));
    styles.push_back(*solverStyle(s->info().id));
  }
  for (const Theme& theme : {Theme::screen(), Theme::paper()})
    for (std::size_t a = 0; a < styles.size(); ++a)
      for (std::size_t b = a + 1; b < styles.size(); ++b)
        CHECK_FALSE(theme.seriesStroke(styles[a]) == theme.seriesStroke(styles[b]));
  // The Pareto front of exact-dp alone takes exact-dp's colour, not the first one.
  ParetoData data;
  data.series.push_back({"exact-dp", {{1e3, 5}, {2e3, 0}}, solverStyle("exact-dp")});
  const Scene pareto = paretoScene(data, style);
  bool coloured = false;
  for (const Item& item : pareto.items)
    if (const auto* l = std::get_if<PolylineItem>(&item); l && l->stroke.color == style.theme.seriesColor(exact))
      coloured = true;
  CHECK(coloured);
}

TEST_CASE("pareto scene: the budget at hand is a dashed vertical line in the budget's colour, with its legend") {
  ParetoData data;
  data.series.push_back({"exact-dp", {{1e9, 300}, {1.5e9, 100}, {2e9, 0}}});
  data.timeUnit = "ms";
  FigureStyle style;
  auto budgetLines = [&](const Scene& scene) {
    std::vector<const PolylineItem*> lines;
    for (const Item& item : scene.items)
      if (const auto* p = std::get_if<PolylineItem>(&item); p && p->stroke.color == style.theme.budget &&
                                                            p->stroke.dash == Dash::Dashed && p->points.size() == 2 &&
                                                            p->points[0].x == p->points[1].x)
        lines.push_back(p);
    return lines;
  };
  auto legendSays = [](const Scene& scene, const std::string& prefix) {
    for (const Item& item : scene.items)
      if (const auto* t = std::get_if<TextItem>(&item); t && t->text.rfind(prefix, 0) == 0) return true;
    return false;
  };
  CHECK(budgetLines(paretoScene(data, style)).empty());
  CHECK_FALSE(legendSays(paretoScene(data, style), "budget "));
  // Outside the fronts' range the axis widens to show it.
  data.budget = 0.6e9;
  const Scene scene = paretoScene(data, style);
  const auto lines = budgetLines(scene);
  REQUIRE(lines.size() == 1);
  CHECK(lines.front()->points[0].x > 0);
  CHECK(legendSays(scene, "budget "));
  // Every front's point lies to its right: 0.6 GB is left of 1 GB.
  for (const Item& item : scene.items)
    if (const auto* e = std::get_if<EllipseItem>(&item); e && e->rx == 3)
      CHECK(e->center.x > lines.front()->points[0].x);
}
