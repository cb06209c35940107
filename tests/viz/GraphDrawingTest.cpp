#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "Sanitized.hpp"
#include "TestGraphs.hpp"
#include "VizTestSupport.hpp"
#include "remat/viz/GraphDrawing.hpp"
#include "remat/viz/PlanFigures.hpp"

using namespace remat;
using namespace remat::viz;
using graph::ComputeGraph;
using graph::NodeId;

namespace {

// Marks as a canonical plan would give them: the ops cut into `segments` runs of the topological
// order (each prefix of it is a lower set), the last op of a run kept, the others recomputed or never
// freed in turn.
NodeMarks fakeMarks(const ComputeGraph& g, int segments) {
  NodeMarks m;
  m.role.assign(g.size(), NodeRole::Other);
  m.segment.assign(g.size(), -1);
  m.segments = segments;
  const std::size_t ops = g.opCount();
  for (std::size_t i = 0; i < ops; ++i) {
    const NodeId v = g.opNode(graph::OpIndex{static_cast<std::uint32_t>(i)});
    const auto s = static_cast<int>(i * static_cast<std::size_t>(segments) / ops);
    const auto next = static_cast<int>((i + 1) * static_cast<std::size_t>(segments) / ops);
    m.segment[v.value] = s;
    m.role[v.value] = next != s || i + 1 == ops ? NodeRole::Kept
                      : i % 4 == 0              ? NodeRole::NeverFreed
                                                : NodeRole::Recomputed;
  }
  return m;
}

double distance(const Point& p, const Box& b) {
  const double dx = std::max({b.x - p.x, 0.0, p.x - b.right()});
  const double dy = std::max({b.y - p.y, 0.0, p.y - b.bottom()});
  return std::hypot(dx, dy);
}

// Which drawn node holds each graph node; fails the test if one is held twice.
std::map<std::uint32_t, std::size_t> holder(const GraphDrawing& d) {
  std::map<std::uint32_t, std::size_t> out;
  for (std::size_t k = 0; k < d.nodes.size(); ++k)
    for (const NodeId id : d.nodes[k].members) {
      INFO("node " << id.value << " drawn twice");
      CHECK(out.emplace(id.value, k).second);
    }
  return out;
}

void checkPlacedAndApart(const GraphDrawing& d) {
  REQUIRE(std::isfinite(d.width));
  REQUIRE(std::isfinite(d.height));
  const Box drawing{0, 0, d.width, d.height};
  std::size_t outside = 0;
  for (const DrawnNode& n : d.nodes) {
    const bool finite =
        std::isfinite(n.box.x) && std::isfinite(n.box.y) && std::isfinite(n.box.w) && std::isfinite(n.box.h);
    if (!finite || n.box.w <= 0 || n.box.h <= 0 || !drawing.contains(n.box)) ++outside;
  }
  CHECK(outside == 0);
  std::size_t overlaps = 0;
  std::string first;
  for (std::size_t i = 0; i < d.nodes.size(); ++i)
    for (std::size_t j = i + 1; j < d.nodes.size(); ++j)
      if (test::boxesOverlap(d.nodes[i].box, d.nodes[j].box) && overlaps++ == 0)
        first = d.nodes[i].label + " and " + d.nodes[j].label;
  INFO("first overlap: " << first);
  CHECK(overlaps == 0);
}

void checkClusters(const GraphDrawing& d) {
  std::map<int, Box> clusterBox;
  for (const DrawnCluster& c : d.clusters) {
    CHECK(clusterBox.emplace(c.segment, c.box).second);  // one per segment
    CHECK(c.label == std::string("segment ").append(std::to_string(c.segment + 1)));
    CHECK(Box{0, 0, d.width, d.height}.contains(c.box));
  }
  for (const DrawnNode& n : d.nodes) {
    if (n.segment < 0) continue;
    const auto it = clusterBox.find(n.segment);
    REQUIRE(it != clusterBox.end());
    INFO(n.label << " in segment " << n.segment);
    CHECK(it->second.contains(n.box));
  }
  for (const DrawnNode& n : d.nodes)  // nodes of no segment stay out of every cluster
    if (n.segment < 0)
      for (const DrawnCluster& c : d.clusters) CHECK_FALSE(test::boxesOverlap(n.box, c.box));
  for (std::size_t i = 0; i < d.clusters.size(); ++i)
    for (std::size_t j = i + 1; j < d.clusters.size(); ++j)
      CHECK_FALSE(test::boxesOverlap(d.clusters[i].box, d.clusters[j].box));
}

// Every graph edge between two drawn boxes appears once, routed from the one box to the other.
void checkEdges(const ComputeGraph& g, const GraphDrawing& d) {
  const auto held = holder(d);
  std::set<std::pair<std::size_t, std::size_t>> expected;
  for (std::uint32_t v = 0; v < g.size(); ++v) {
    const auto to = held.find(v);
    if (to == held.end()) continue;
    for (const NodeId u : g.node(NodeId{v}).inputs) {
      const auto from = held.find(u.value);
      if (from != held.end() && from->second != to->second) expected.emplace(from->second, to->second);
    }
  }
  std::set<std::pair<std::size_t, std::size_t>> drawn;
  for (const DrawnEdge& e : d.edges) {
    CHECK(drawn.emplace(e.from, e.to).second);
    REQUIRE(e.spline.size() >= 4);
    CHECK((e.spline.size() - 1) % 3 == 0);
    INFO(d.nodes[e.from].label << " -> " << d.nodes[e.to].label);
    CHECK(distance(e.spline.front(), d.nodes[e.from].box) < 2.0);
    CHECK(distance(e.spline.back(), d.nodes[e.to].box) < 2.0);
    // Top to bottom: a producer's box lies above each consumer's (a shared rank would be a bug in
    // the ranking, as with clusters under dot's old ranking).
    if (e.routed) CHECK(d.nodes[e.from].box.bottom() < d.nodes[e.to].box.y);
  }
  CHECK(drawn == expected);
}

std::vector<std::uint32_t> opsOf(const ComputeGraph& g) {
  std::vector<std::uint32_t> ops;
  for (std::uint32_t v = g.firstOp(); v < g.size(); ++v) ops.push_back(v);
  return ops;
}

}  // namespace

TEST_CASE("graph drawing: random DAGs are laid out with every box placed and none overlapping") {
  for (const int n : {50, 120, 200})
    for (const std::uint32_t seed : {1u, 2u, 3u}) {
      // Under the sanitizers (Sanitized.hpp) one seed per size, each seed once: the same layout code,
      // a third of the 32 s this took under ASan in CI.
      if (test::kSanitized && seed != static_cast<std::uint32_t>(n == 50 ? 1 : n == 120 ? 2 : 3)) continue;
      DYNAMIC_SECTION("random DAG, " << n << " ops, seed " << seed) {
        const ComputeGraph g = test::makeRandomDag(n, seed);
        for (const bool plan : {false, true}) {
          INFO((plan ? "with" : "without") << " a plan");
          const NodeMarks marks = plan ? fakeMarks(g, 4) : NodeMarks{};
          const GraphDrawing d = layoutGraph(g, marks, {});
          checkPlacedAndApart(d);
          checkClusters(d);
          checkEdges(g, d);
          CHECK(d.clusters.size() == (plan ? 4u : 0u));
        }
      }
    }
}

TEST_CASE("graph drawing: past the routing budget the longest edges become plain curves") {
  const ComputeGraph g = test::makeRandomDag(150, 9);
  GraphDrawingOptions tight;
  tight.routeBudget = 300;
  const GraphDrawing d = layoutGraph(g, fakeMarks(g, 3), tight);
  checkPlacedAndApart(d);
  checkClusters(d);
  checkEdges(g, d);
  const auto unrouted = std::count_if(d.edges.begin(), d.edges.end(), [](const DrawnEdge& e) { return !e.routed; });
  CHECK(unrouted > 0);
  CHECK(static_cast<std::size_t>(unrouted) < d.edges.size());
  // Edges between neighbouring ranks cost nothing and are always routed.
  for (const DrawnEdge& e : d.edges)
    if (d.nodes[e.to].members.front().value == d.nodes[e.from].members.back().value + 1) CHECK(e.routed);

  GraphDrawingOptions loose;
  loose.routeBudget = std::numeric_limits<std::size_t>::max();
  const GraphDrawing all = layoutGraph(test::makeRandomDag(40, 9), {}, loose);
  CHECK(std::all_of(all.edges.begin(), all.edges.end(), [](const DrawnEdge& e) { return e.routed; }));
}

TEST_CASE("graph drawing: a 1,000-op random DAG lays out completely") {
  const ComputeGraph g = test::makeRandomDag(1000, 1);
  const GraphDrawing d = layoutGraph(g, fakeMarks(g, 8), {});
  CHECK(d.nodes.size() == 1001);  // and the input
  checkPlacedAndApart(d);
  checkClusters(d);
  checkEdges(g, d);
}

TEST_CASE("graph drawing: a U-Net with its skips and segments") {
  const ComputeGraph g = test::makeUNet(5);
  const NodeMarks marks = fakeMarks(g, 3);
  GraphDrawingOptions options;
  options.showParams = true;
  const GraphDrawing d = layoutGraph(g, marks, options);
  checkPlacedAndApart(d);
  checkClusters(d);
  checkEdges(g, d);
  CHECK(d.nodes.size() == g.size());  // inputs and parameters drawn too
  for (const DrawnNode& n : d.nodes) {
    REQUIRE(n.members.size() == 1);
    CHECK(n.role == marks.role[n.members[0].value]);
    CHECK(n.segment == marks.segment[n.members[0].value]);
    CHECK(n.label == g.node(n.members[0]).name);
    CHECK(n.bytes == g.node(n.members[0]).bytes);
  }
}

TEST_CASE("graph drawing: every op is drawn exactly once, inputs and parameters as asked") {
  const ComputeGraph g = test::makeRandomDag(80, 7);
  for (const bool inputs : {false, true})
    for (const bool params : {false, true}) {
      GraphDrawingOptions options;
      options.showInputs = inputs;
      options.showParams = params;
      const GraphDrawing d = layoutGraph(g, fakeMarks(g, 2), options);
      const auto held = holder(d);
      for (const std::uint32_t v : opsOf(g)) CHECK(held.count(v) == 1);
      for (std::uint32_t v = 0; v < g.firstOp(); ++v) {
        const bool shown = g.node(NodeId{v}).kind == graph::NodeKind::Input ? inputs : params;
        CHECK(held.count(v) == (shown ? 1u : 0u));
      }
    }
}

TEST_CASE("graph drawing: collapsing chains") {
  GraphDrawingOptions collapse;
  collapse.collapseChains = true;

  SECTION("a chain of 30 ops is one box") {
    const ComputeGraph g = test::makeChain(30, 10);
    const GraphDrawing d = layoutGraph(g, {}, collapse);
    REQUIRE(d.nodes.size() == 2);  // the input and the chain
    const auto chain =
        std::find_if(d.nodes.begin(), d.nodes.end(), [](const DrawnNode& n) { return n.members.size() > 1; });
    REQUIRE(chain != d.nodes.end());
    CHECK(chain->members.size() == 30);
    CHECK(chain->label == "a0 \u2026 a29 (30 ops)");
    CHECK(chain->bytes == Bytes{300});
    REQUIRE(d.edges.size() == 1);
    checkEdges(g, d);
    checkPlacedAndApart(d);
  }

  SECTION("chains break where the role or the segment changes") {
    const ComputeGraph g = test::makeChain(30, 10);
    NodeMarks marks;
    marks.role.assign(g.size(), NodeRole::Recomputed);
    marks.segment.assign(g.size(), -1);
    for (std::uint32_t v = g.firstOp(); v < g.size(); ++v) marks.segment[v] = v - g.firstOp() < 20 ? 0 : 1;
    marks.role[g.opNode(graph::OpIndex{9}).value] = NodeRole::Kept;
    marks.segments = 2;
    GraphDrawingOptions options = collapse;
    options.showInputs = false;
    const GraphDrawing d = layoutGraph(g, marks, options);
    std::vector<std::size_t> sizes;
    for (const DrawnNode& n : d.nodes) sizes.push_back(n.members.size());
    CHECK(sizes == std::vector<std::size_t>{9, 1, 10, 10});
    checkClusters(d);
    checkEdges(g, d);
  }

  SECTION("a U-Net collapses into fewer boxes whose members partition the ops") {
    const ComputeGraph g = test::makeUNet(6);
    const GraphDrawing d = layoutGraph(g, {}, collapse);
    std::size_t opBoxes = 0;
    std::vector<std::uint32_t> members;
    for (const DrawnNode& n : d.nodes) {
      if (!g.isOp(n.members.front())) continue;
      ++opBoxes;
      Bytes sum{0};
      for (std::size_t i = 0; i < n.members.size(); ++i) {
        members.push_back(n.members[i].value);
        sum += g.node(n.members[i]).bytes;
        if (i == 0) continue;
        // Each link of a collapsed chain is the only way from one member to the next.
        const auto preds = g.opPredecessors(n.members[i]);
        CHECK((preds.size() == 1 && preds[0] == n.members[i - 1]));
        CHECK(g.successors(n.members[i - 1]).size() == 1);
      }
      CHECK(n.bytes == sum);
    }
    CHECK(opBoxes < g.opCount());
    std::sort(members.begin(), members.end());
    CHECK(members == opsOf(g));
    checkPlacedAndApart(d);
    checkEdges(g, d);
  }
}

TEST_CASE("graph drawing: marks of another graph are refused") {
  const ComputeGraph g = test::makeChain(5);
  NodeMarks marks;
  marks.role.assign(g.size() + 1, NodeRole::Kept);
  CHECK_THROWS_AS(layoutGraph(g, marks, {}), std::invalid_argument);
}

namespace {

// Pointers into the scene: keep the scene alive while using it.
struct SceneCheck {
  std::size_t offCanvas = 0;
  std::vector<const RectItem*> rects;
  std::vector<const TextItem*> texts;
  std::size_t splines = 0;
  std::vector<const SplineItem*> splineItems;
};

SceneCheck inspect(const Scene& scene) {
  SceneCheck out;
  const double eps = 1e-6;
  const auto on = [&](double x, double y) {
    if (!(x >= -eps && y >= -eps && x <= scene.width + eps && y <= scene.height + eps)) ++out.offCanvas;
  };
  for (const Item& item : scene.items) {
    if (const auto* r = std::get_if<RectItem>(&item)) {
      on(r->x, r->y);
      on(r->x + r->w, r->y + r->h);
      out.rects.push_back(r);
    } else if (const auto* t = std::get_if<TextItem>(&item)) {
      on(t->at.x, t->at.y);
      out.texts.push_back(t);
    } else if (const auto* s = std::get_if<SplineItem>(&item)) {
      for (const Point& p : s->points) on(p.x, p.y);
      ++out.splines;
      out.splineItems.push_back(s);
    } else if (const auto* l = std::get_if<PolylineItem>(&item)) {
      for (const Point& p : l->points) on(p.x, p.y);
    } else if (const auto* e = std::get_if<EllipseItem>(&item)) {
      on(e->center.x - e->rx, e->center.y - e->ry);
      on(e->center.x + e->rx, e->center.y + e->ry);
    } else if (const auto* p = std::get_if<PolygonItem>(&item)) {
      for (const Point& q : p->points) on(q.x, q.y);
    }
  }
  return out;
}

bool sameBox(const RectItem& r, const Box& b) {
  return std::abs(r.x - b.x) < 1e-9 && std::abs(r.y - b.y) < 1e-9 && std::abs(r.w - b.w) < 1e-9 &&
         std::abs(r.h - b.h) < 1e-9;
}

bool near(const Point& a, const Point& b) { return std::hypot(a.x - b.x, a.y - b.y) < 1e-6; }

// Every edge drawn: a curve leaves its producer's box where the layout routed it, and one curve, with
// the edge's only arrowhead, ends on its consumer's box, each in its node's column. With one column
// each edge is one curve.
void checkEdgesDrawn(const GraphDrawing& d, const GraphSceneLayout& layout, const SceneCheck& c) {
  std::size_t arrows = 0;
  for (const SplineItem* s : c.splineItems) {
    REQUIRE(s->points.size() >= 4);
    CHECK((s->points.size() - 1) % 3 == 0);
    if (s->arrow) ++arrows;
  }
  CHECK(arrows == d.edges.size());
  if (layout.bands.size() == 1)
    CHECK(c.splines == d.edges.size());
  else
    CHECK(c.splines >= d.edges.size());
  for (const DrawnEdge& e : d.edges) {
    const Point start = layout.toScene(d.nodes[e.from], e.spline.front());
    const Point tip = layout.toScene(d.nodes[e.to], e.spline.back());
    INFO(d.nodes[e.from].label << " -> " << d.nodes[e.to].label);
    CHECK(std::any_of(c.splineItems.begin(), c.splineItems.end(),
                      [&](const SplineItem* s) { return near(s->points.front(), start); }));
    CHECK(std::count_if(c.splineItems.begin(), c.splineItems.end(),
                        [&](const SplineItem* s) { return s->arrow && near(s->points.back(), tip); }) == 1);
  }
}

}  // namespace

TEST_CASE("graph scene: everything on the canvas, a box of its role's colour per node, the legend on top") {
  for (const ThemeKind kind : {ThemeKind::Screen, ThemeKind::Paper}) {
    const ComputeGraph g = test::makeRandomDag(60, 4);
    const GraphDrawing d = layoutGraph(g, fakeMarks(g, 3), {});
    FigureStyle style;
    style.theme = Theme::of(kind);
    style.title = "Checkpoints";
    const Scene scene = graphScene(d, style);
    const GraphSceneLayout layout = graphSceneLayout(d, style);
    const SceneCheck c = inspect(scene);
    CHECK(c.offCanvas == 0);
    checkEdgesDrawn(d, layout, c);
    CHECK(layout.scale <= 1.0);
    CHECK(layout.scale > 0.0);
    for (const DrawnNode& n : d.nodes) {
      const Box b = layout.toScene(n.box);
      CHECK(layout.area.contains(b));
      const auto count = std::count_if(c.rects.begin(), c.rects.end(), [&](const RectItem* r) {
        return sameBox(*r, b) && r->fill && r->fill->color == style.theme.role(n.role);
      });
      INFO(n.label);
      CHECK(count == 1);
    }
    // The legend names exactly the roles present, above the drawing.
    std::set<NodeRole> present;
    for (const DrawnNode& n : d.nodes) present.insert(n.role);
    CHECK(std::set<NodeRole>(layout.legendRoles.begin(), layout.legendRoles.end()) == present);
    REQUIRE(layout.legendBoxes.size() == layout.legendRoles.size());
    for (std::size_t k = 0; k < layout.legendBoxes.size(); ++k) {
      CHECK(layout.legendBoxes[k].bottom() <= layout.area.y);
      const std::string name(roleName(layout.legendRoles[k]));
      CHECK(std::any_of(c.texts.begin(), c.texts.end(), [&](const TextItem* t) { return t->text == name; }));
    }
    CHECK(std::any_of(c.texts.begin(), c.texts.end(), [](const TextItem* t) { return t->text == "Checkpoints"; }));
  }
}

TEST_CASE("graph scene: small drawings keep their size and show labels, big ones hide them") {
  FigureStyle style;
  SECTION("small") {
    const ComputeGraph g = test::makeChain(3, 10);
    const GraphDrawing d = layoutGraph(g, fakeMarks(g, 1), {});
    const GraphSceneLayout layout = graphSceneLayout(d, style);
    CHECK(layout.scale == 1.0);  // never enlarged
    CHECK(layout.bands.size() == 1);
    const Scene scene = graphScene(d, style);
    const SceneCheck c = inspect(scene);
    CHECK(c.offCanvas == 0);
    for (const DrawnNode& n : d.nodes) {
      const Box b = layout.toScene(n.box);
      for (const std::string& text : {n.label, formatBytes(static_cast<double>(n.bytes.value))}) {
        INFO(n.label << ": " << text);
        CHECK(std::any_of(c.texts.begin(), c.texts.end(), [&](const TextItem* t) {
          return t->text == text && b.contains(Box{t->at.x, t->at.y, 0, 0});
        }));
      }
    }
    CHECK(std::any_of(c.texts.begin(), c.texts.end(), [](const TextItem* t) { return t->text == "segment 1"; }));
  }
  SECTION("big") {
    const ComputeGraph g = test::makeRandomDag(200, 5);
    const GraphDrawing d = layoutGraph(g, fakeMarks(g, 4), {});
    const GraphSceneLayout layout = graphSceneLayout(d, style);
    REQUIRE(layout.scale * d.fontSize < 5);
    const Scene scene = graphScene(d, style);
    const SceneCheck c = inspect(scene);
    CHECK(c.offCanvas == 0);
    for (const DrawnNode& n : d.nodes)
      CHECK_FALSE(std::any_of(c.texts.begin(), c.texts.end(), [&](const TextItem* t) { return t->text == n.label; }));

    // In a view that zooms in far enough to read them, the labels are kept, at the same place and size
    // as a smaller drawing would have them: the painter shows them once the zoom does.
    FigureStyle zoomable = style;
    zoomable.maxZoom = 50;
    REQUIRE(layout.scale * d.fontSize * zoomable.maxZoom >= kMinTextSize);
    const Scene zoomed = graphScene(d, zoomable);
    const SceneCheck z = inspect(zoomed);
    CHECK(z.offCanvas == 0);
    std::size_t named = 0;
    for (const DrawnNode& n : d.nodes) {
      const Box b = layout.toScene(n.box);
      named += std::any_of(z.texts.begin(), z.texts.end(), [&](const TextItem* t) {
        return t->text == n.label && b.contains(Box{t->at.x, t->at.y, 0, 0}) && t->size < kMinTextSize &&
               std::abs(t->size - layout.scale * d.fontSize) < 1e-9;
      });
    }
    CHECK(named == d.nodes.size());
    CHECK(zoomed.hotspots.size() == scene.hotspots.size());  // the same drawing otherwise
  }
}

TEST_CASE("graph scene: without a plan every node is Other, with no clusters and no legend") {
  const ComputeGraph g = test::makeUNet(3);
  const GraphDrawing d = layoutGraph(g, NodeMarks{}, {});
  CHECK(d.clusters.empty());
  for (const DrawnNode& n : d.nodes) {
    CHECK(n.role == NodeRole::Other);
    CHECK(n.segment == -1);
  }
  checkPlacedAndApart(d);
  FigureStyle style;
  const Scene scene = graphScene(d, style);
  const GraphSceneLayout layout = graphSceneLayout(d, style);
  CHECK(layout.legendRoles.empty());
  const SceneCheck c = inspect(scene);
  CHECK(c.offCanvas == 0);
  std::size_t filled = 0;
  for (const RectItem* r : c.rects)
    if (r->fill && r->fill->color == style.theme.role(NodeRole::Other)) ++filled;
  CHECK(filled == d.nodes.size());
}

TEST_CASE("graph scene: an empty drawing is an empty canvas") {
  const GraphDrawing d;
  FigureStyle style;
  const Scene scene = graphScene(d, style);
  CHECK(scene.width == style.width);
  CHECK(scene.items.empty());
}

namespace {

// The scale of the drawing as one column, fitted to the area as graphSceneLayout does it.
double oneColumnScale(const GraphDrawing& d, const GraphSceneLayout& layout) {
  return std::min({1.0, layout.area.w / d.width, layout.area.h / d.height});
}

// Where a text item lies, by the style's metrics, as the painter places it.
Box textBox(const TextItem& t, const TextMetrics& tm) {
  const double w = tm.width(t.text, t.size, t.bold);
  const double h = tm.height(t.size);
  const double x = t.anchor == Anchor::Start ? t.at.x : t.anchor == Anchor::Middle ? t.at.x - w / 2 : t.at.x - w;
  const double y = t.baseline == Baseline::Top ? t.at.y : t.baseline == Baseline::Middle ? t.at.y - h / 2 : t.at.y - h;
  return {x, y, w, h};
}

// The placement and the scene of a drawing wrapped into columns (or not): the bands partition the
// drawing between rows of nodes, every node lands inside the area and inside its own column's clip,
// apart from every other, and everything of the drawing is painted inside a column's clip.
void checkColumns(const GraphDrawing& d, const FigureStyle& style) {
  const GraphSceneLayout layout = graphSceneLayout(d, style);
  const auto& bands = layout.bands;
  REQUIRE(!bands.empty());
  CHECK(layout.scale > 0);
  CHECK(layout.scale <= 1);
  CHECK(layout.scale >= oneColumnScale(d, layout));  // never worse than one column

  // The bands partition [0, height), top to bottom, and no node box straddles a cut.
  CHECK(bands.front().y0 == 0);
  CHECK(bands.back().y1 == d.height);
  for (std::size_t k = 0; k < bands.size(); ++k) {
    CHECK(bands[k].y0 < bands[k].y1);
    if (k + 1 < bands.size()) CHECK(bands[k].y1 == bands[k + 1].y0);
  }
  std::size_t straddling = 0;
  for (const DrawnNode& n : d.nodes)
    for (std::size_t k = 1; k < bands.size(); ++k)
      if (n.box.y < bands[k].y0 && n.box.bottom() > bands[k].y0) ++straddling;
  CHECK(straddling == 0);

  // Columns side by side, left to right, apart, inside the canvas.
  const Box canvas{0, 0, style.width, style.height};
  for (std::size_t k = 0; k < bands.size(); ++k) {
    CHECK(canvas.contains(bands[k].clip));
    if (k + 1 < bands.size()) CHECK(bands[k].clip.right() < bands[k + 1].clip.x);
  }

  // Nodes: in the area, in their band's rows and clip, apart; found again by toDrawing.
  std::vector<Box> mapped;
  std::size_t outside = 0;
  for (const DrawnNode& n : d.nodes) {
    const std::size_t k = layout.bandOf(n.box);
    REQUIRE(k < bands.size());
    const Box b = layout.toScene(n.box);
    CHECK(sameBox(
        RectItem{b.x, b.y, b.w, b.h, {}, {}, 0},
        Box{layout.toScene(n, Point{n.box.x, n.box.y}).x, layout.toScene(n, Point{n.box.x, n.box.y}).y, b.w, b.h}));
    if (!layout.area.contains(b) || !bands[k].clip.contains(b) || n.box.y < bands[k].y0 || n.box.bottom() > bands[k].y1)
      ++outside;
    const Point centre{b.x + b.w / 2, b.y + b.h / 2};
    const std::optional<Point> back = layout.toDrawing(centre);
    REQUIRE(back.has_value());
    CHECK(std::abs(back->x - (n.box.x + n.box.w / 2)) < 1e-6);
    CHECK(std::abs(back->y - (n.box.y + n.box.h / 2)) < 1e-6);
    mapped.push_back(b);
  }
  CHECK(outside == 0);
  std::size_t overlaps = 0;
  for (std::size_t i = 0; i < mapped.size(); ++i)
    for (std::size_t j = i + 1; j < mapped.size(); ++j)
      if (test::boxesOverlap(mapped[i], mapped[j])) ++overlaps;
  CHECK(overlaps == 0);

  // The scene: on the canvas, every edge drawn, and every box and curve of the drawing inside a clip
  // of a column, each node's box inside its own column's.
  const Scene scene = graphScene(d, style);
  const SceneCheck c = inspect(scene);
  CHECK(c.offCanvas == 0);
  checkEdgesDrawn(d, layout, c);
  std::vector<const PushClipItem*> clips;
  std::size_t unclipped = 0;
  std::size_t nodesInOwnClip = 0;
  std::size_t separators = 0;
  for (const Item& item : scene.items) {
    if (const auto* push = std::get_if<PushClipItem>(&item)) {
      CHECK(clips.empty());  // columns are not nested
      clips.push_back(push);
    } else if (std::holds_alternative<PopClipItem>(item)) {
      REQUIRE(!clips.empty());
      clips.pop_back();
    } else if (std::holds_alternative<SplineItem>(item)) {
      if (clips.empty()) ++unclipped;
    } else if (const auto* r = std::get_if<RectItem>(&item)) {
      for (std::size_t n = 0; n < d.nodes.size(); ++n) {
        if (!sameBox(*r, mapped[n])) continue;
        if (clips.empty()) {
          ++unclipped;
          continue;
        }
        const Box& own = bands[layout.bandOf(d.nodes[n].box)].clip;
        const PushClipItem& clip = *clips.back();
        if (sameBox(RectItem{clip.x, clip.y, clip.w, clip.h, {}, {}, 0}, own) && own.contains(mapped[n]))
          ++nodesInOwnClip;
      }
    } else if (const auto* line = std::get_if<PolylineItem>(&item)) {
      // A separator: a vertical line between two neighbouring columns.
      if (line->points.size() == 2 && line->points[0].x == line->points[1].x && clips.empty()) {
        const double x = line->points[0].x;
        for (std::size_t k = 1; k < bands.size(); ++k)
          if (bands[k - 1].clip.right() < x && x < bands[k].clip.x) ++separators;
      }
    }
  }
  CHECK(clips.empty());
  CHECK(unclipped == 0);
  CHECK(nodesInOwnClip == d.nodes.size());
  CHECK(separators == bands.size() - 1);

  // One marker under each column that goes on and one over each that goes on from the one before,
  // in none of the nodes' way.
  std::size_t markers = 0;
  for (const TextItem* t : c.texts) {
    if (t->text.find("continue") == std::string::npos) continue;
    ++markers;
    const Box box = textBox(*t, style.text());
    CHECK(canvas.contains(box));
    for (const Box& b : mapped) CHECK_FALSE(test::boxesOverlap(box, b));
  }
  CHECK(markers == 2 * (bands.size() - 1));
}

// The bands are within one cut spacing of an even split: cut positions lie in the gaps between rows
// of nodes, so the bands can be no more even than that.
void checkEven(const GraphDrawing& d, const GraphSceneLayout& layout) {
  std::vector<std::pair<double, double>> rows;
  for (const DrawnNode& n : d.nodes) rows.emplace_back(n.box.y, n.box.bottom());
  std::sort(rows.begin(), rows.end());
  std::vector<std::pair<double, double>> merged;
  for (const auto& r : rows) {
    if (!merged.empty() && r.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, r.second);
    else
      merged.push_back(r);
  }
  REQUIRE(merged.size() >= 3);
  double spacing = std::max(merged[1].first, d.height - merged[merged.size() - 2].second);
  for (std::size_t i = 0; i + 2 < merged.size(); ++i)
    spacing = std::max(spacing, merged[i + 2].first - merged[i].second);
  double tallest = 0;
  double shortest = d.height;
  for (const auto& b : layout.bands) {
    tallest = std::max(tallest, b.y1 - b.y0);
    shortest = std::min(shortest, b.y1 - b.y0);
  }
  const double even = d.height / static_cast<double>(layout.bands.size());
  INFO("bands from " << shortest << " to " << tallest << " tall, even " << even << ", cut spacing up to " << spacing);
  CHECK(tallest <= even + spacing + 1e-9);
  CHECK(shortest >= even - spacing - 1e-9);
}

// A graph one rank deep and many wide: x feeds `n` ops side by side.
ComputeGraph makeFan(int n) {
  std::vector<test::OpSketch> ops;
  ops.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) ops.push_back({"f" + std::to_string(i), {"x"}, 10, 1, {0}, false});
  return test::makeGraph(ops, 10);
}

}  // namespace

TEST_CASE("graph scene: tall drawings wrap into columns and are drawn larger") {
  struct Case {
    std::string name;
    ComputeGraph graph;
    int segments;  // 0: no plan
  };
  std::vector<Case> cases;
  cases.push_back({"chain of 120 ops", test::makeChain(120, 10), 0});
  cases.push_back({"chain of 120 ops, 4 segments", test::makeChain(120, 10), 4});
  cases.push_back({"U-Net of depth 10", test::makeUNet(10), 0});
  cases.push_back({"U-Net of depth 12, 3 segments", test::makeUNet(12), 3});
  for (const Case& k : cases) {
    for (const auto& [w, h] : {std::pair{960.0, 540.0}, std::pair{1600.0, 900.0}}) {
      DYNAMIC_SECTION(k.name << " at " << w << " x " << h) {
        const GraphDrawing d = layoutGraph(k.graph, k.segments > 0 ? fakeMarks(k.graph, k.segments) : NodeMarks{}, {});
        FigureStyle style;
        style.width = w;
        style.height = h;
        style.title = "Checkpoints";
        const GraphSceneLayout layout = graphSceneLayout(d, style);
        INFO("drawing " << d.width << " x " << d.height << ", " << layout.bands.size() << " columns at scale "
                        << layout.scale);
        CHECK(layout.bands.size() > 1);
        CHECK(layout.scale > oneColumnScale(d, layout) * 1.5);
        checkColumns(d, style);
        checkEven(d, layout);
      }
    }
  }
}

TEST_CASE("graph scene: wide, small and random drawings") {
  FigureStyle style;
  SECTION("a wide drawing stays one column") {
    const ComputeGraph g = makeFan(40);
    const GraphDrawing d = layoutGraph(g, fakeMarks(g, 1), {});
    REQUIRE(d.width > d.height);
    const GraphSceneLayout layout = graphSceneLayout(d, style);
    CHECK(layout.bands.size() == 1);
    CHECK(layout.scale == oneColumnScale(d, layout));
    CHECK(layout.scale < 1);
    checkColumns(d, style);
  }
  SECTION("a small drawing stays one column at its own size") {
    const ComputeGraph g = test::makeChain(4, 10);
    const GraphDrawing d = layoutGraph(g, fakeMarks(g, 2), {});
    const GraphSceneLayout layout = graphSceneLayout(d, style);
    CHECK(layout.bands.size() == 1);
    CHECK(layout.scale == 1.0);
    checkColumns(d, style);
  }
  for (const std::uint32_t seed : {1u, 2u}) {
    DYNAMIC_SECTION("random DAG of 150 ops, seed " << seed) {
      const ComputeGraph g = test::makeRandomDag(150, seed);
      const GraphDrawing d = layoutGraph(g, fakeMarks(g, 3), {});
      checkColumns(d, style);
    }
  }
}

TEST_CASE("graph scene: pinned and found nodes are outlined, and the legend names the marks") {
  const ComputeGraph g = test::makeUNet(3);
  GraphDrawing d = layoutGraph(g, fakeMarks(g, 2));
  REQUIRE(d.nodes.size() >= 3);
  d.nodes[0].pin = PinMark::Keep;
  d.nodes[1].pin = PinMark::Recompute;
  d.nodes[2].found = true;
  const Scene scene = graphScene(d, FigureStyle{});
  std::set<std::string> texts;
  int keepOutlines = 0;
  int recomputeOutlines = 0;
  int rings = 0;
  const Theme th = Theme::screen();
  for (const Item& item : scene.items) {
    if (const auto* t = std::get_if<TextItem>(&item)) texts.insert(t->text);
    if (const auto* r = std::get_if<RectItem>(&item); r && !r->fill && r->stroke) {
      keepOutlines += r->stroke->dash == Dash::Solid && r->stroke->color == th.foreground;
      recomputeOutlines += r->stroke->dash == Dash::Dashed;
      rings += r->stroke->color == th.peak;
    }
  }
  CHECK(texts.count("pinned: keep") == 1);
  CHECK(texts.count("pinned: recompute") == 1);
  CHECK(texts.count("found") == 1);
  CHECK(keepOutlines == 1);
  CHECK(recomputeOutlines == 1);
  CHECK(rings == 1);
}

TEST_CASE("graph figure: node names too small to read are left out, and the figure says so") {
  const ComputeGraph g = test::makeUNet(5);
  FigureRequest request;
  request.kind = FigureKind::Graph;
  request.graph = &g;
  auto warned = [](const FigureResult& f) {
    return std::any_of(f.warnings.begin(), f.warnings.end(),
                       [](const std::string& w) { return w.find("node names left out") != std::string::npos; });
  };
  FigureStyle small;
  small.width = 200;
  small.height = 150;
  const FigureResult tiny = buildFigure(request, small);
  REQUIRE(tiny.scene);
  CHECK(warned(tiny));
  FigureStyle large;
  large.width = 4000;
  large.height = 4000;
  const FigureResult big = buildFigure(request, large);
  REQUIRE(big.scene);
  CHECK_FALSE(warned(big));
}
