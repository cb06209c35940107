#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "TestGraphs.hpp"
#include "remat/viz/GraphDrawing.hpp"

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

bool overlap(const Box& a, const Box& b) {
  return a.x < b.right() && b.x < a.right() && a.y < b.bottom() && b.y < a.bottom();
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
      if (overlap(d.nodes[i].box, d.nodes[j].box) && overlaps++ == 0)
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
      for (const DrawnCluster& c : d.clusters) CHECK_FALSE(overlap(n.box, c.box));
  for (std::size_t i = 0; i < d.clusters.size(); ++i)
    for (std::size_t j = i + 1; j < d.clusters.size(); ++j) CHECK_FALSE(overlap(d.clusters[i].box, d.clusters[j].box));
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
    CHECK(c.splines == d.edges.size());
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
