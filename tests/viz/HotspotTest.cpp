// Hotspots: Scene::hotspotAt, and the hover and click regions the figure builders leave in their scenes.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "TestGraphs.hpp"
#include "VizTestSupport.hpp"
#include "remat/graph/ByteSize.hpp"
#include "remat/sim/CanonicalSchedule.hpp"
#include "remat/sim/Simulator.hpp"
#include "remat/solvers/Pins.hpp"
#include "remat/solvers/SolverRegistry.hpp"
#include "remat/viz/GraphDrawing.hpp"
#include "remat/viz/NodeLabel.hpp"
#include "remat/viz/Pareto.hpp"
#include "remat/viz/PlanFigures.hpp"
#include "remat/viz/PlanMarks.hpp"
#include "remat/viz/Theme.hpp"
#include "remat/viz/Timeline.hpp"

using namespace remat;
using namespace remat::viz;
using graph::ComputeGraph;
using graph::NodeId;

namespace {

Hotspot spot(double x, double y, double w, double h, std::size_t index) {
  return {Hotspot::Kind::Step, x, y, w, h, index, 0, "#" + std::to_string(index)};
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// A timeline tip's lines without the indented ones (each plan's bytes by category and largest tensors).
std::vector<std::string> planLines(const std::string& text) {
  std::vector<std::string> out;
  for (std::string& line : lines(text))
    if (line.rfind("  ", 0) != 0) out.push_back(std::move(line));
  return out;
}

std::vector<const Hotspot*> ofKind(const Scene& scene, Hotspot::Kind kind) {
  std::vector<const Hotspot*> out;
  for (const Hotspot& h : scene.hotspots)
    if (h.kind == kind) out.push_back(&h);
  return out;
}

Box boxOf(const Hotspot& h) { return {h.x, h.y, h.w, h.h}; }
Point centreOf(const Hotspot& h) { return {h.x + h.w / 2, h.y + h.h / 2}; }

bool same(double a, double b) { return std::abs(a - b) < 1e-9; }

// The chart's plot box: the rectangle its data is clipped to.
Box plotOf(const Scene& scene) {
  for (const Item& item : scene.items)
    if (const auto* c = std::get_if<PushClipItem>(&item)) return {c->x, c->y, c->w, c->h};
  FAIL("no clip in the scene");
  return {};
}

// The Step hotspots, left to right, are columns of the plot's full height that do not overlap and
// together cover its width.
void checkColumnsCoverPlot(const Scene& scene) {
  const Box plot = plotOf(scene);
  std::vector<const Hotspot*> columns = ofKind(scene, Hotspot::Kind::Step);
  REQUIRE(columns.size() == scene.hotspots.size());
  REQUIRE(!columns.empty());
  std::sort(columns.begin(), columns.end(), [](const Hotspot* a, const Hotspot* b) { return a->x < b->x; });
  CHECK(std::abs(columns.front()->x - plot.x) < 1e-6);
  CHECK(std::abs(columns.back()->x + columns.back()->w - plot.right()) < 1e-6);
  std::size_t gaps = 0;
  std::size_t overlaps = 0;
  std::size_t offPlot = 0;
  for (std::size_t k = 0; k < columns.size(); ++k) {
    const Hotspot& c = *columns[k];
    if (!(c.w > 0) || !same(c.y, plot.y) || !same(c.h, plot.h)) ++offPlot;
    if (k + 1 < columns.size()) {
      const double next = columns[k + 1]->x;
      if (next > c.x + c.w + 1e-6) ++gaps;
      if (next < c.x + c.w - 1e-6) ++overlaps;
    }
  }
  CHECK(gaps == 0);
  CHECK(overlaps == 0);
  CHECK(offPlot == 0);
}

struct Simulated {
  sim::Schedule schedule;
  sim::SimulationResult result;
};

Simulated simulatedPlan(const ComputeGraph& g, sim::Schedule schedule) {
  sim::SimulationResult r = sim::Simulator(g).run(schedule);
  REQUIRE(r.valid());
  return {std::move(schedule), std::move(r)};
}

std::string stepLine(const TimelineSeries& s, std::size_t k) {
  return s.label + ": " + s.what[k] + " \u00b7 " + formatByteSize(Bytes{s.total(k)});
}

}  // namespace

TEST_CASE("hotspotAt: containment, the last added on top, the nearest within the tolerance") {
  Scene scene;
  CHECK(scene.hotspotAt({0, 0}, 10) == nullptr);
  scene.hotspots = {spot(0, 0, 10, 10, 0), spot(5, 5, 10, 10, 1), spot(30, 0, 10, 10, 2), spot(50, 0, 10, 10, 3),
                    spot(11, 20, 10, 10, 4)};
  const auto at = [&](Point p, double tolerance = 0) {
    const Hotspot* h = scene.hotspotAt(p, tolerance);
    return h ? static_cast<int>(h->index) : -1;
  };
  CHECK(at({2, 2}) == 0);
  CHECK(at({0, 0}) == 0);    // edges belong to the rectangle
  CHECK(at({7, 7}) == 1);    // in both: the last added
  CHECK(at({10, 10}) == 1);  // on both edges: the last added
  CHECK(at({14, 14}) == 1);
  CHECK(at({20, 5}) == -1);
  CHECK(at({20, 5}, 4) == -1);  // 5 from the nearest
  CHECK(at({20, 5}, 6) == 1);   // 5 from 1, 10 from 2
  CHECK(at({27, 5}, 4) == 2);
  CHECK(at({44, 5}, 6) == 2);  // 4 from 2, 6 from 3
  CHECK(at({45, 5}, 6) == 3);  // 5 from each: the last added
  CHECK(at({61, 5}, 4) == 3);
  CHECK(at({55, -3}, 4) == 3);  // above it, within the tolerance
  CHECK(at({55, -5}, 4) == -1);
  // A rectangle containing the point beats a nearer one grown by the tolerance, even added later.
  CHECK(at({9, 22}, 4) == 4);  // only 4, grown, holds it
  CHECK(at({3, 3}, 4) == 0);   // 0 holds it; 1, added later, only grown
  // Grown by the tolerance on each side: corners included.
  CHECK(at({16, 16}, 1) == 1);
  CHECK(at({16.5, 16}, 1) == -1);
}

TEST_CASE("timeline hotspots: a column per step, covering the plot, with each plan's step and bytes") {
  const ComputeGraph g = test::makeUNet(3);
  const Simulated all = simulatedPlan(g, sim::storeAllSchedule(g));
  const Simulated thirds = simulatedPlan(g, sim::canonicalSchedule(g, test::evenLowerSets(g, 3)));
  REQUIRE(thirds.schedule.size() > all.schedule.size());  // it recomputes

  SECTION("one plan, steps axis") {
    TimelineData data;
    data.series.push_back(timelineSeries(g, thirds.schedule, thirds.result, "thirds"));
    const TimelineSeries& s = data.series.front();
    REQUIRE(s.what.size() == thirds.schedule.size());
    for (std::size_t k = 0; k < s.what.size(); ++k) CHECK(s.what[k] == sim::describeStep(g, thirds.schedule[k]));
    const Scene scene = timelineScene(data, FigureStyle{});
    checkColumnsCoverPlot(scene);
    REQUIRE(scene.hotspots.size() == thirds.schedule.size());
    std::vector<const Hotspot*> columns = ofKind(scene, Hotspot::Kind::Step);
    std::sort(columns.begin(), columns.end(), [](const Hotspot* a, const Hotspot* b) { return a->x < b->x; });
    for (std::size_t k = 0; k < columns.size(); ++k) {
      INFO("step " << k << ": " << columns[k]->tip);
      CHECK(columns[k]->index == k);
      CHECK(planLines(columns[k]->tip) == std::vector<std::string>{"step " + std::to_string(k), stepLine(s, k)});
      CHECK(scene.hotspotAt(centreOf(*columns[k])) == columns[k]);
    }
  }

  SECTION("two plans, steps axis: the same step in each, the shorter one finished") {
    TimelineData data;
    data.series.push_back(timelineSeries(g, all.schedule, all.result, "store all"));
    data.series.push_back(timelineSeries(g, thirds.schedule, thirds.result, "thirds"));
    const Scene scene = timelineScene(data, FigureStyle{});
    checkColumnsCoverPlot(scene);
    REQUIRE(scene.hotspots.size() == thirds.schedule.size());
    std::set<std::size_t> steps;
    for (const Hotspot& h : scene.hotspots) {
      INFO(h.tip);
      steps.insert(h.index);
      const std::vector<std::string> tip = planLines(h.tip);
      REQUIRE(tip.size() == 3);
      CHECK(tip[0] == "step " + std::to_string(h.index));
      CHECK(tip[1] == (h.index < all.schedule.size() ? stepLine(data.series[0], h.index) : "store all: finished"));
      CHECK(tip[2] == stepLine(data.series[1], h.index));
    }
    CHECK(steps.size() == thirds.schedule.size());
  }

  SECTION("two plans, time axis: each plan's own step at that time") {
    TimelineData data;
    data.series.push_back(timelineSeries(g, all.schedule, all.result, "store all"));
    data.series.push_back(timelineSeries(g, thirds.schedule, thirds.result, "thirds"));
    const Scene scene = timelineScene(data, FigureStyle{}, TimelineAxis::Time);
    checkColumnsCoverPlot(scene);
    const TimelineSeries& longer = data.series[1];
    for (const Hotspot& h : scene.hotspots) {
      INFO(h.tip);
      REQUIRE(h.index < longer.bytes.size());
      const std::vector<std::string> tip = planLines(h.tip);
      REQUIRE(tip.size() == 3);
      CHECK(tip[0] == "step " + std::to_string(h.index));
      CHECK(tip[2] == "thirds: step " + std::to_string(h.index) + ", " + longer.what[h.index] + " \u00b7 " +
                          formatByteSize(Bytes{longer.total(h.index)}));
      CHECK(tip[1].rfind("store all: ", 0) == 0);
    }
  }

  SECTION("a long schedule, thinned to pixel columns") {
    const ComputeGraph chain = test::makeChain(3000);
    const Simulated plan = simulatedPlan(chain, sim::canonicalSchedule(chain, test::evenLowerSets(chain, 3)));
    TimelineData data;
    data.series.push_back(timelineSeries(chain, plan.schedule, plan.result, "thirds"));
    const TimelineSeries& s = data.series.front();
    for (TimelineAxis axis : {TimelineAxis::Steps, TimelineAxis::Time}) {
      const Scene scene = timelineScene(data, FigureStyle{}, axis);
      checkColumnsCoverPlot(scene);
      CHECK(scene.hotspots.size() < plan.schedule.size() / 4);  // thinned
      std::int64_t highest = 0;
      std::size_t invalid = 0;
      for (const Hotspot& h : scene.hotspots) {
        if (h.index >= plan.schedule.size()) {
          ++invalid;
          continue;
        }
        highest = std::max(highest, s.total(h.index));
        CHECK(planLines(h.tip).back() == stepLine(s, h.index));
      }
      CHECK(invalid == 0);
      CHECK(highest == s.peak);  // each column shows its highest step: the peak is one of them
    }
  }
}

TEST_CASE("graph drawing hotspots: one per node box, on its box, found at its centre, apart") {
  struct Case {
    std::string name;
    ComputeGraph graph;
    std::uint32_t segments;
    GraphDrawingOptions options;
  };
  GraphDrawingOptions collapse;
  collapse.collapseChains = true;
  GraphDrawingOptions everything;
  everything.showParams = true;
  std::vector<Case> cases;
  cases.push_back({"random DAG of 30 ops, 3 segments", test::makeRandomDag(30, 3), 3, everything});
  cases.push_back({"chain of 120 ops (wrapped into columns)", test::makeChain(120), 4, {}});
  cases.push_back({"U-Net, chains collapsed", test::makeUNet(4), 2, collapse});
  cases.push_back({"chain of 12 ops, chains collapsed", test::makeChain(12), 3, collapse});
  cases.push_back({"U-Net without a plan", test::makeUNet(3), 0, {}});
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const ComputeGraph& g = c.graph;
      NodeMarks marks;
      if (c.segments > 0) {
        const auto sets = test::evenLowerSets(g, c.segments);
        marks = planMarks(g, sim::canonicalSchedule(g, sets), sets);
      }
      const GraphDrawing d = layoutGraph(g, marks, c.options);
      FigureStyle style;
      const Scene scene = graphScene(d, style);
      const GraphSceneLayout layout = graphSceneLayout(d, style);
      const std::vector<const Hotspot*> spots = ofKind(scene, Hotspot::Kind::Node);
      CHECK(spots.size() == scene.hotspots.size());
      REQUIRE(spots.size() == d.nodes.size());
      std::vector<const RectItem*> rects;
      for (const Item& item : scene.items)
        if (const auto* r = std::get_if<RectItem>(&item)) rects.push_back(r);
      for (const DrawnNode& n : d.nodes) {
        INFO(n.label);
        const auto it = std::find_if(spots.begin(), spots.end(),
                                     [&](const Hotspot* h) { return h->index == n.members.front().value; });
        REQUIRE(it != spots.end());
        const Hotspot& h = **it;
        const Box b = layout.toScene(n.box);
        CHECK((same(h.x, b.x) && same(h.y, b.y) && same(h.w, b.w) && same(h.h, b.h)));
        CHECK(std::any_of(rects.begin(), rects.end(), [&](const RectItem* r) {
          return same(r->x, h.x) && same(r->y, h.y) && same(r->w, h.w) && same(r->h, h.h) && r->fill &&
                 r->fill->color == style.theme.role(n.role);
        }));
        CHECK(scene.hotspotAt(centreOf(h)) == &h);
        CHECK(h.tip == n.tip);
        const std::vector<std::string> tip = lines(h.tip);
        REQUIRE(!tip.empty());
        if (n.members.size() == 1) {
          const graph::Node& node = g.node(n.members.front());
          CHECK(tip[0] == node.name);
          CHECK(h.tip.find(formatByteSize(node.bytes)) != std::string::npos);
          if (node.kind == graph::NodeKind::Op)
            CHECK(h.tip.find("forward " + std::to_string(node.fwdTime.value) + " " + g.timeUnit()) !=
                  std::string::npos);
        } else {
          CHECK(tip[0] == "chain of " + std::to_string(n.members.size()) + " ops:");
          for (std::size_t k = 0; k < std::min<std::size_t>(n.members.size(), 12); ++k) {
            const graph::Node& member = g.node(n.members[k]);
            CHECK(tip[k + 1] == "  " + member.name + " (" + member.op + ")");
          }
        }
        if (c.segments == 0) CHECK(tip.back().find("segment") == std::string::npos);
        if (n.role == NodeRole::Recomputed && n.members.size() == 1) {
          const std::uint32_t again = marks.computations[n.members.front().value] - 1;
          CHECK(tip.back().rfind("recomputed " + std::to_string(again) + (again == 1 ? " time" : " times"), 0) == 0);
        }
        if (n.role == NodeRole::Kept) CHECK(tip.back().rfind("checkpoint", 0) == 0);
      }
      std::size_t overlaps = 0;
      for (std::size_t i = 0; i < spots.size(); ++i)
        for (std::size_t j = i + 1; j < spots.size(); ++j)
          overlaps += test::boxesOverlap(boxOf(*spots[i]), boxOf(*spots[j])) ? 1 : 0;
      CHECK(overlaps == 0);
      if (c.name.find("columns") != std::string::npos) CHECK(layout.bands.size() > 1);
      if (c.name.find("chain of 12 ops") != std::string::npos)
        CHECK(std::any_of(d.nodes.begin(), d.nodes.end(), [](const DrawnNode& n) { return n.members.size() > 1; }));
    }
  }
}

TEST_CASE("graph drawing hotspots: a plan's recomputed and collapsed boxes say so") {
  const ComputeGraph g = test::makeChain(12);
  const auto sets = test::evenLowerSets(g, 3);
  const NodeMarks marks = planMarks(g, sim::canonicalSchedule(g, sets), sets);
  REQUIRE(marks.computations.size() == g.size());
  GraphDrawingOptions collapse;
  collapse.collapseChains = true;
  for (const GraphDrawingOptions& options : {GraphDrawingOptions{}, collapse}) {
    const GraphDrawing d = layoutGraph(g, marks, options);
    std::size_t recomputed = 0;
    std::size_t chains = 0;
    for (const DrawnNode& n : d.nodes) {
      INFO(n.tip);
      if (n.members.size() > 1) {
        ++chains;
        CHECK(n.tip.rfind("chain of " + std::to_string(n.members.size()) + " ops:", 0) == 0);
      }
      if (n.role != NodeRole::Recomputed) continue;
      ++recomputed;
      std::uint32_t again = 0;
      for (const NodeId v : n.members) again = std::max(again, marks.computations[v.value] - 1);
      CHECK(n.tip.find("recomputed") != std::string::npos);
      CHECK(n.tip.find(std::to_string(again) + (again == 1 ? " time" : " times")) != std::string::npos);
      CHECK(n.tip.find("segment " + std::to_string(n.segment + 1)) != std::string::npos);
    }
    CHECK(recomputed > 0);
    CHECK((chains > 0) == options.collapseChains);
  }
}

TEST_CASE("pareto hotspots: one per point, indexed as the data, found at the marker's centre") {
  ParetoData data;
  // Out of order on purpose: the figure sorts the points for its staircase, the hotspots keep indices.
  data.series.push_back({"exact-dp", {{2e9, 150}, {1e9, 300}, {2.5e9, 0}, {1.5e9, 100}, {2.5e9, 40}}});
  data.series.push_back({"chen", {{1.6e9, 200}, {1.2e9, 250.5}}});
  data.vanilla = TradeOffPoint{2.4e9, 0};
  data.timeUnit = "ms";
  const Scene scene = paretoScene(data, FigureStyle{});
  const std::vector<const Hotspot*> spots = ofKind(scene, Hotspot::Kind::PlanPoint);
  REQUIRE(spots.size() == scene.hotspots.size());
  REQUIRE(spots.size() == 5 + 2 + 1);
  std::set<std::pair<std::size_t, std::size_t>> seen;
  // Circles for the first series, squares for the second (Theme::seriesMarker): their centres.
  std::vector<Point> centres;
  for (const Item& item : scene.items) {
    if (const auto* e = std::get_if<EllipseItem>(&item); e && e->rx == 3) centres.push_back(e->center);
    if (const auto* r = std::get_if<RectItem>(&item); r && std::abs(r->w - 5.4) < 1e-9)
      centres.push_back({r->x + r->w / 2, r->y + r->h / 2});
  }
  for (const Hotspot* h : spots) {
    INFO(h->tip);
    if (h->series == kVanillaSeries) {
      CHECK(h->index == 0);
      CHECK(h->tip == "no recomputation: peak " + formatByteSize(Bytes{2'400'000'000}) + ", overhead 0 ms");
      continue;
    }
    REQUIRE(h->series < data.series.size());
    REQUIRE(h->index < data.series[h->series].points.size());
    CHECK(seen.emplace(h->series, h->index).second);
    const TradeOffPoint& p = data.series[h->series].points[h->index];
    std::ostringstream overhead;
    overhead << p.overhead;
    CHECK(h->tip == data.series[h->series].solver + ": peak " + formatByteSize(Bytes{std::llround(p.memory)}) +
                        ", overhead " + overhead.str() + " ms");
    CHECK(h->w == 6);
    CHECK(h->h == 6);
    const Point c = centreOf(*h);
    CHECK(
        std::any_of(centres.begin(), centres.end(), [&](const Point& e) { return same(e.x, c.x) && same(e.y, c.y); }));
    // Equal points overlap: the one found is one of them, at that point.
    const Hotspot* found = scene.hotspotAt(c);
    REQUIRE(found != nullptr);
    CHECK(found->series == h->series);
    CHECK(data.series[found->series].points[found->index] == p);
  }
  CHECK(seen.size() == 7);
  // The position follows the point: more memory further right, more overhead higher up.
  for (const Hotspot* a : spots)
    for (const Hotspot* b : spots) {
      if (a->series == kVanillaSeries || b->series == kVanillaSeries) continue;
      const TradeOffPoint& p = data.series[a->series].points[a->index];
      const TradeOffPoint& q = data.series[b->series].points[b->index];
      if (p.memory < q.memory) CHECK(a->x < b->x);
      if (p.overhead < q.overhead) CHECK(a->y > b->y);
    }
}

TEST_CASE("pareto inputs: the plan of every drawn point, aligned with the points") {
  const ComputeGraph g = test::makeUNet(3);
  const auto& registry = solvers::SolverRegistry::builtin();
  std::vector<const solvers::Solver*> chosen;
  for (const char* id : {"exact-dp", "chen-greedy"})
    if (const solvers::Solver* s = registry.find(id)) chosen.push_back(s);
  REQUIRE(!chosen.empty());
  const ParetoInputs inputs = paretoInputs(g, chosen, 6);
  REQUIRE(!inputs.data.series.empty());
  REQUIRE(inputs.plans.size() == inputs.data.series.size());
  for (std::size_t i = 0; i < inputs.plans.size(); ++i) {
    const ParetoSeries& series = inputs.data.series[i];
    INFO(series.solver);
    REQUIRE(inputs.plans[i].size() == series.points.size());
    CHECK(!series.points.empty());
    for (std::size_t j = 0; j < series.points.size(); ++j) {
      solvers::PlanMetrics metrics;
      sim::SimulationResult simulation;
      solvers::evaluatePlan(g, inputs.plans[i][j], true, metrics, simulation);
      REQUIRE(simulation.valid());
      CHECK(double(metrics.simulatedPeak.value) == series.points[j].memory);
      CHECK(double(metrics.overhead.value) == series.points[j].overhead);
    }
  }
}

TEST_CASE("schedule matrix hotspots: one per row, its node, stacked top to bottom and found at their centre") {
  const ComputeGraph g = test::makeUNet(3);
  FigureRequest request;
  request.kind = FigureKind::Schedule;
  request.graph = &g;
  request.plans = {{"store-all", {sim::storeAllSchedule(g), std::nullopt}}};
  const FigureResult figure = buildFigure(request, FigureStyle{});
  REQUIRE(figure.scene);
  const Scene& scene = *figure.scene;
  const std::vector<const Hotspot*> rows = ofKind(scene, Hotspot::Kind::Node);
  REQUIRE(rows.size() == scene.hotspots.size());
  REQUIRE(rows.size() == g.opCount());  // the plain run computes every operation
  std::set<std::size_t> nodes;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const Hotspot& h = *rows[k];
    INFO(k);
    REQUIRE(h.index < g.size());
    CHECK(g.isOp(NodeId{static_cast<std::uint32_t>(h.index)}));
    nodes.insert(h.index);
    CHECK(h.tip == displayName(g.node(NodeId{static_cast<std::uint32_t>(h.index)}).name));
    if (k > 0) CHECK(same(h.y, rows[k - 1]->y + rows[k - 1]->h));
    const Hotspot* found = scene.hotspotAt(centreOf(h), 0);
    REQUIRE(found);
    CHECK(found->index == h.index);
  }
  CHECK(nodes.size() == rows.size());
}

TEST_CASE("pareto inputs under pins: a pinned front for each solver that honours them, every plan pinned") {
  const ComputeGraph g = test::makeUNet(3);
  const auto& registry = solvers::SolverRegistry::builtin();
  std::vector<const solvers::Solver*> chosen{registry.find("exact-dp"), registry.find("chen-greedy")};
  REQUIRE(chosen[0]);
  REQUIRE(chosen[1]);
  solvers::Pins pins;
  pins.keep.emplace_back(static_cast<std::uint32_t>(g.opCount() / 3));
  const ParetoInputs inputs = paretoInputs(g, chosen, 6, {}, solvers::DpModelKind::Simulator, {}, pins);
  std::vector<std::string> labels;
  for (const ParetoSeries& s : inputs.data.series) labels.push_back(s.solver);
  // chen-greedy ignores pins: no front under them.
  CHECK(labels == std::vector<std::string>{"exact-dp", "chen-greedy", pinnedLabel("exact-dp")});
  REQUIRE(inputs.plans.size() == 3);
  CHECK(inputs.data.series[2].style == solverStyle(pinnedLabel("exact-dp")));
  CHECK(*inputs.data.series[2].style == *solverStyle("exact-dp") + Theme::kPinnedStyle);
  REQUIRE_FALSE(inputs.plans[2].empty());
  for (const solvers::Plan& plan : inputs.plans[2])
    CHECK(solvers::pinViolations(g, plan.schedule, plan.lowerSets ? &*plan.lowerSets : nullptr, pins, true).empty());
  CHECK(pinnedSolver(pinnedLabel("dtr")) == std::optional<std::string_view>("dtr"));
  CHECK_FALSE(pinnedSolver("dtr"));
}

TEST_CASE("timeline hover: each plan's bytes by category and its largest tensors, as the simulator holds them") {
  const ComputeGraph g = test::makeUNet(3);
  const sim::Schedule schedule = sim::canonicalSchedule(g, test::evenLowerSets(g, 3));
  const sim::SimulationResult r = test::simulateWithLifetimes(g, schedule);
  REQUIRE(r.valid());
  TimelineData data;
  data.series.push_back(timelineSeries(g, schedule, r, "thirds"));
  const TimelineSeries& s = data.series.front();
  REQUIRE(s.largest.size() == schedule.size());
  for (std::size_t k = 0; k < schedule.size(); ++k) {
    // The largest tensor alive at step k that is not a parameter or input, by brute force.
    std::int64_t biggest = -1;
    for (const sim::TensorLifetime& t : r.lifetimes)
      if (t.kind != sim::TensorLifetime::Kind::Param && t.kind != sim::TensorLifetime::Kind::Input && t.first <= k &&
          k <= t.last)
        biggest = std::max(biggest, t.bytes.value);
    if (biggest < 0) {
      CHECK(s.largest[k][0] == -1);
      continue;
    }
    REQUIRE(s.largest[k][0] >= 0);
    CHECK(s.tensors[static_cast<std::size_t>(s.largest[k][0])].bytes == biggest);
    if (s.largest[k][1] >= 0) CHECK(s.tensors[static_cast<std::size_t>(s.largest[k][1])].bytes <= biggest);
  }
  const Scene scene = timelineScene(data, FigureStyle{});
  const Hotspot* atPeak = nullptr;
  for (const Hotspot& h : scene.hotspots)
    if (h.index == s.peakStep) atPeak = &h;
  REQUIRE(atPeak);
  const std::vector<std::string> tip = lines(atPeak->tip);
  REQUIRE(tip.size() == 4);
  CHECK(tip[2].rfind("  ", 0) == 0);
  CHECK(tip[2].find(std::string(categoryName(MemoryCategory::Values))) != std::string::npos);
  CHECK(tip[3].rfind("  largest: ", 0) == 0);
  CHECK(tip[3].find(s.tensors[static_cast<std::size_t>(s.largest[s.peakStep][0])].what) != std::string::npos);
}
