// Figures of graphs that are too large to draw or whose names are hostile: the checkpoint drawing's size
// guard, names elided before any text is measured, control characters escaped in every figure.

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <variant>
#include <vector>

#include "ControlBytes.hpp"
#include "TestGraphs.hpp"
#include "remat/sim/CanonicalSchedule.hpp"
#include "remat/viz/GraphDrawing.hpp"
#include "remat/viz/NodeLabel.hpp"
#include "remat/viz/PlanFigures.hpp"

using namespace remat;
using namespace remat::viz;
using remat::test::controlByte;

namespace {

// Code points in UTF-8 text.
std::size_t characters(const std::string& text) {
  std::size_t n = 0;
  for (const char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

std::vector<std::string> texts(const Scene& scene) {
  std::vector<std::string> out;
  for (const Item& item : scene.items)
    if (const auto* t = std::get_if<TextItem>(&item)) out.push_back(t->text);
  return out;
}

// Every figure of g with its plain run.
std::vector<std::pair<std::string, FigureResult>> allFigures(const graph::ComputeGraph& g) {
  std::vector<std::pair<std::string, FigureResult>> out;
  FigureStyle style;
  style.title = "figure";
  for (FigureKind kind : kAllFigures) {
    FigureRequest request;
    request.kind = kind;
    request.graph = &g;
    request.plans = {{"store-all", {sim::storeAllSchedule(g), std::nullopt}}};
    request.pareto.series.push_back({"exact-dp", {{100, 3}, {200, 0}}});
    out.emplace_back(std::string(figureName(kind)), buildFigure(request, style));
  }
  return out;
}

}  // namespace

TEST_CASE("graph drawing: a chain beyond the size limit is drawn with its chains collapsed, and says so") {
  const auto g = test::makeChain(6000);
  const GraphDrawing d = layoutGraph(g, {});
  CHECK(d.nodes.size() == 2);  // the input and one box for the chain (parameters are not drawn)
  std::size_t drawnOps = 0;
  for (const DrawnNode& n : d.nodes) drawnOps += n.members.size();
  CHECK(drawnOps == g.opCount() + 1);
  CHECK(d.note ==
        "chains of operations drawn as one box each: the graph drawing holds at most 5,000 boxes and "
        "10,000 edges, not 6,001 boxes and 6,000 edges");
  // Through buildFigure, the note is a warning and a line under the title.
  FigureRequest request;
  request.kind = FigureKind::Graph;
  request.graph = &g;
  const FigureResult r = buildFigure(request, FigureStyle{});
  REQUIRE(r.scene);
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0] == "graph figure: " + d.note);
  const auto shown = texts(*r.scene);
  CHECK(std::find(shown.begin(), shown.end(), d.note) != shown.end());
}

namespace {

// n ops, each reading the input and every op before it: no chain to collapse.
graph::ComputeGraph makeComplete(int n) {
  std::vector<test::OpSketch> ops;
  for (int i = 0; i < n; ++i) {
    test::OpSketch o{"d" + std::to_string(i), {"x"}};
    for (int j = 0; j < i; ++j) o.inputs.push_back("d" + std::to_string(j));
    ops.push_back(std::move(o));
  }
  return test::makeGraph(ops);
}

}  // namespace

TEST_CASE("graph drawing: a graph beyond the size limit even with chains collapsed is refused before Graphviz") {
  const auto g = makeComplete(150);  // 150 + 150 * 149 / 2 edges
  CHECK_THROWS_MATCHES(layoutGraph(g, {}), GraphTooLarge,
                       Catch::Message("the graph drawing holds at most 5,000 boxes and 10,000 edges; this graph needs "
                                      "151 boxes and 11,325 edges: Graphviz's layout would take minutes or fail at "
                                      "this size. The timeline, schedule and layout figures have no such limit"));
  FigureRequest request;
  request.kind = FigureKind::Graph;
  request.graph = &g;
  const FigureResult r = buildFigure(request, FigureStyle{});
  CHECK_FALSE(r.scene);
  CHECK(r.tooLarge);
  CHECK_THAT(r.error, Catch::StartsWith("the graph drawing holds at most 5,000 boxes"));
  // The same shape within the limits draws; with the limits lowered below it, it does not.
  const auto smaller = makeComplete(20);  // 210 edges
  CHECK(layoutGraph(smaller, {}).nodes.size() == 21);
  GraphDrawingOptions lowered;
  lowered.maxEdges = 200;
  CHECK_THROWS_AS(layoutGraph(smaller, {}, lowered), GraphTooLarge);
}

TEST_CASE("graph drawing: the limits are options, collapsing can be turned off, and counts what it leaves") {
  const auto g = test::makeChain(120);
  GraphDrawingOptions small;
  small.maxNodes = 100;
  CHECK_FALSE(layoutGraph(g, {}, small).note.empty());
  small.collapseWhenTooLarge = false;
  CHECK_THROWS_AS(layoutGraph(g, {}, small), GraphTooLarge);
  // 150 branches of two ops from the input: collapsing halves them, not enough, and the message says so.
  std::vector<test::OpSketch> ops;
  for (int i = 0; i < 150; ++i) {
    ops.push_back({"conv" + std::to_string(i), {"x"}});
    ops.push_back({"relu" + std::to_string(i), {"conv" + std::to_string(i)}});
  }
  const auto branches = test::makeGraph(ops);
  GraphDrawingOptions tight;
  tight.maxNodes = 100;
  CHECK_THROWS_WITH(layoutGraph(branches, {}, tight),
                    Catch::Contains("this graph needs 301 boxes and 300 edges (151 boxes and 150 edges with chains "
                                    "collapsed)"));
}

TEST_CASE("a node name of 100 KB: every figure draws an elided label and measures no more") {
  const std::string huge = "head_" + std::string(100000, 'x') + "_tail";
  const auto g = test::makeGraph({{"a", {"x"}, 10, 1, {0}}, {huge, {"a"}, 20, 1, {0}}, {"c", {huge}, 30, 1, {}, true}});
  const GraphDrawing d = layoutGraph(g, {});
  bool found = false;
  for (const DrawnNode& n : d.nodes) {
    CHECK(characters(n.label) <= kMaxLabelChars);
    CHECK(n.tip.size() < 1000);
    if (n.label.starts_with("head_xxx")) {
      found = true;
      CHECK(n.label.ends_with("xxx_tail"));
      CHECK(n.label.find("\u2026") != std::string::npos);
    }
  }
  CHECK(found);
  for (const auto& [name, figure] : allFigures(g)) {
    INFO(name << ": " << figure.error);
    REQUIRE(figure.scene);
    for (const std::string& text : texts(*figure.scene)) CHECK(text.size() < 300);
    for (const Hotspot& h : figure.scene->hotspots) CHECK(h.tip.size() < 1000);
  }
  // The schedule matrix names its rows, the timeline its steps in their tips: both with the elided name.
  const auto isElided = [](const std::string& text) {
    return text.find("head_xxx") != std::string::npos && text.find("xxx_tail") != std::string::npos &&
           text.find("\u2026") != std::string::npos;
  };
  for (const auto& [name, figure] : allFigures(g)) {
    INFO(name);
    bool elided = false;
    if (name == "schedule")
      for (const std::string& text : texts(*figure.scene)) elided |= isElided(text);
    else if (name == "timeline")
      for (const Hotspot& h : figure.scene->hotspots) elided |= isElided(h.tip);
    else
      continue;
    CHECK(elided);
  }
}

TEST_CASE("names with ESC, BEL, NUL, OSC and C1 controls reach no figure's text raw") {
  const std::string esc = std::string(
                              "esc\x1b[31mred\x07"
                              "bel") +
                          '\0' +
                          "nul\x1b]0;title\x07osc\xc2\x9b"
                          "2J";
  const auto g = test::makeGraph({{esc, {"x"}, 10, 1, {0}}, {"b", {esc}, 20, 1, {}, true}});
  const GraphDrawing d = layoutGraph(g, {});
  bool found = false;
  for (const DrawnNode& n : d.nodes) {
    CHECK(controlByte(n.label) == std::string::npos);
    CHECK(controlByte(n.tip, "\n") == std::string::npos);
    found |= n.label.find("esc\\x1B[31mred\\x07bel\\x00nul") == 0;
  }
  CHECK(found);
  for (const auto& [name, figure] : allFigures(g)) {
    INFO(name << ": " << figure.error);
    REQUIRE(figure.scene);
    for (const std::string& text : texts(*figure.scene)) CHECK(controlByte(text) == std::string::npos);
    for (const Hotspot& h : figure.scene->hotspots) CHECK(controlByte(h.tip, "\n") == std::string::npos);
  }
  CHECK(controlByte(nodeDetails(g, *g.find(esc), {}), "\n") == std::string::npos);
}
