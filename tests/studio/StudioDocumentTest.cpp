// Studio's document, its jobs and its sentences, without widgets (so that the sanitizer build runs them):
// what every view, row, title and export of the window reads.
#include <catch2/catch.hpp>

#include <QSignalSpy>
#include <QTest>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "StudioCoreTestSupport.hpp"
#include "TestGraphs.hpp"
#include "remat/io/NativeJson.hpp"
#include "remat/solvers/Comparison.hpp"
#include "remat/solvers/SolverRegistry.hpp"
#include "remat/studio/JobRunner.hpp"
#include "remat/studio/StudioDocument.hpp"
#include "remat/studio/StudioJobs.hpp"
#include "remat/studio/StudioText.hpp"
#include "remat/viz/Pareto.hpp"

using remat::Bytes;
using remat::graph::NodeId;
using remat::studio::StudioDocument;

namespace {

using remat::test::kWaitMs;

const remat::solvers::Solver& solver(const std::string& id) {
  return *remat::solvers::SolverRegistry::builtin().find(id);
}

// A chain of eight ops opened under the file's costs.
StudioDocument openChain() {
  StudioDocument doc;
  REQUIRE_FALSE(doc.open(remat::test::makeChain(8, 100), "file", "file"));
  return doc;
}

remat::solvers::SolveResult solveAt(const StudioDocument& doc, const std::string& id, std::optional<Bytes> budget,
                                    const remat::solvers::Pins& pins = {}) {
  return solver(id).solve({.graph = doc.graph(), .budget = budget, .pins = pins});
}

}  // namespace

TEST_CASE("StudioDocument opens a graph under its models, or says why and keeps what it had", "[studio_core]") {
  StudioDocument doc;
  const auto error = doc.open(remat::test::makeChain(4), "no-such-model", "file");
  REQUIRE(error);
  CHECK(error->find("no-such-model") != std::string::npos);
  CHECK(doc.graph() == nullptr);
  REQUIRE_FALSE(doc.open(remat::test::makeChain(4), "file", "file"));
  REQUIRE(doc.graph());
  REQUIRE(doc.vanilla());
  CHECK(doc.vanilla()->plan);
  CHECK(doc.plainPlan());
  // Another bad open leaves the graph that is open.
  const remat::graph::ComputeGraph* before = doc.graph();
  CHECK(doc.open(remat::test::makeChain(6), "file", "no-such-workspace"));
  CHECK(doc.graph() == before);
}

TEST_CASE("StudioDocument pins operations by node and refuses inputs", "[studio_core]") {
  StudioDocument doc = openChain();
  const NodeId input = *doc.graph()->find("x");
  const NodeId a3 = *doc.graph()->find("a3");
  CHECK_FALSE(doc.pinsWith(input, StudioDocument::Pin::Keep));
  CHECK_FALSE(doc.pinsWith(NodeId{9999}, StudioDocument::Pin::Keep));
  CHECK(doc.pinOf(input) == StudioDocument::Pin::None);
  auto keep = doc.pinsWith(a3, StudioDocument::Pin::Keep);
  REQUIRE(keep);
  doc.setPins(*keep);
  CHECK(doc.pinOf(a3) == StudioDocument::Pin::Keep);
  // Another pin on the same node replaces the first; Pin::None removes it.
  doc.setPins(*doc.pinsWith(a3, StudioDocument::Pin::Recompute));
  CHECK(doc.pinOf(a3) == StudioDocument::Pin::Recompute);
  CHECK(doc.pins().keep.empty());
  doc.setPins(*doc.pinsWith(a3, StudioDocument::Pin::None));
  CHECK(doc.pins().empty());
}

TEST_CASE("StudioDocument starts from the pins the graph carries", "[studio_core]") {
  auto read = remat::io::readNativeJson(R"({"format": "remat-graph", "version": 1, "nodes": [
    {"id": "x", "kind": "input", "bytes": 8},
    {"id": "a", "kind": "op", "op": "Relu", "inputs": ["x"], "bytes": 8, "fwd_time": 1},
    {"id": "b", "kind": "op", "op": "Relu", "inputs": ["a"], "bytes": 8, "fwd_time": 1}],
    "pins": {"recompute": ["a"]}})",
                                        "pinned.json");
  REQUIRE(read.ok());
  StudioDocument doc;
  REQUIRE_FALSE(doc.open(read.value(), "file", "file"));
  // The graph's pins survive the cost and workspace models, and every solve is made under them; the
  // user's pins start empty, so no pinned rows are run twice.
  const remat::graph::OpIndex a = doc.graph()->opIndex(*doc.graph()->find("a"));
  CHECK(remat::solvers::graphPins(*doc.graph()).recompute == std::vector<remat::graph::OpIndex>{a});
  CHECK(doc.pins().empty());
  CHECK(doc.graphPinOf(*doc.graph()->find("a")) == StudioDocument::Pin::Recompute);
  CHECK(doc.graphPinOf(*doc.graph()->find("b")) == StudioDocument::Pin::None);
  CHECK(doc.graphPinOf(*doc.graph()->find("x")) == StudioDocument::Pin::None);
  const auto plain = solveAt(doc, "exact-dp", std::nullopt);
  CHECK(plain.pins.recompute == std::vector<remat::graph::OpIndex>{a});
  CHECK(plain.pinsIgnored.empty());
  CHECK(solveAt(doc, "dtr", std::nullopt).pinsIgnored == "recompute");
  QString tip;
  CHECK(remat::studio::pinsSummary(*doc.graph(), doc.pins(), tip) == QStringLiteral("the graph's: recompute a"));
  // A pinned row is made under the graph's pins and the user's: a change of the user's pins drops it.
  const NodeId b = *doc.graph()->find("b");
  const remat::solvers::Pins mine = *doc.pinsWith(b, StudioDocument::Pin::Keep);
  doc.setPins(mine);
  doc.startRun(std::nullopt, false);
  remat::solvers::SolveResult pinned = solveAt(doc, "exact-dp", std::nullopt, mine);
  pinned.solver = remat::viz::pinnedLabel("exact-dp");
  doc.setResult(pinned);
  CHECK(doc.setPins(mine).empty());
  CHECK(doc.setPins({}).size() == 1);
  // Another graph starts from its own pins: none.
  REQUIRE_FALSE(doc.open(remat::test::makeChain(4), "file", "file"));
  CHECK(doc.pins().empty());
  CHECK(remat::solvers::graphPins(*doc.graph()).empty());
}

TEST_CASE("StudioDocument drops the rows made under other pins", "[studio_core]") {
  StudioDocument doc = openChain();
  const NodeId a2 = *doc.graph()->find("a2");
  const remat::solvers::Pins pins = *doc.pinsWith(a2, StudioDocument::Pin::Keep);
  doc.setPins(pins);
  doc.startRun(std::nullopt, false);
  doc.setResult(solveAt(doc, "exact-dp", std::nullopt));
  remat::solvers::SolveResult pinned = solveAt(doc, "exact-dp", std::nullopt, pins);
  pinned.solver = remat::viz::pinnedLabel("exact-dp");
  doc.setResult(pinned);
  REQUIRE(doc.result(remat::viz::pinnedLabel("exact-dp")));
  // The same pins again change nothing.
  CHECK(doc.setPins(pins).empty());
  const std::vector<std::string> dropped = doc.setPins({});
  REQUIRE(dropped.size() == 1);
  CHECK(dropped[0] == remat::viz::pinnedLabel("exact-dp"));
  CHECK_FALSE(doc.result(remat::viz::pinnedLabel("exact-dp")));
  CHECK(doc.result("exact-dp"));
}

TEST_CASE("A plan picked on a Pareto front is judged at the budget at hand, again at every run", "[studio_core]") {
  StudioDocument doc = openChain();
  const std::vector<const remat::solvers::Solver*> chosen{&solver("exact-dp")};
  remat::viz::ParetoInputs inputs = remat::viz::paretoInputs(*doc.graph(), chosen, 6);
  REQUIRE(inputs.data.series.size() == 1);
  const auto& points = inputs.data.series[0].points;
  REQUIRE(points.size() >= 2);
  doc.setPareto(std::move(inputs.data), std::move(inputs.plans), {});
  // The point with the largest peak, under a budget below it: a row of its own that does not fit.
  const auto largest = static_cast<std::size_t>(
      std::max_element(points.begin(), points.end(), [](auto& a, auto& b) { return a.memory < b.memory; }) -
      points.begin());
  const Bytes peak{static_cast<std::int64_t>(doc.pareto()->series[0].points[largest].memory)};
  doc.startRun(Bytes{peak.value - 1}, false);
  const auto picked = doc.pickFromPareto(0, largest);
  REQUIRE(picked);
  CHECK(picked->solver == StudioDocument::pickLabel("exact-dp", peak));
  CHECK_FALSE(remat::solvers::fitsBudget(*picked));
  CHECK(picked->message.find("Pareto front") != std::string::npos);
  CHECK(doc.origin(picked->solver) == StudioDocument::Origin::ParetoPick);
  CHECK(remat::studio::planTitle(doc, doc.result(picked->solver), false, {}).contains(QStringLiteral("does not fit")));
  // A run at a budget above its peak: the same row, now fitting, still saying where it came from.
  const std::vector<remat::solvers::SolveResult> kept = doc.startRun(Bytes{peak.value + 1}, false);
  REQUIRE(kept.size() == 1);
  CHECK(remat::solvers::fitsBudget(kept[0]));
  CHECK(kept[0].message.find("Pareto front") != std::string::npos);
  CHECK_FALSE(doc.pickFromPareto(0, points.size() + 3));
  CHECK_FALSE(doc.pickFromPareto(4, 0));
}

TEST_CASE("StudioDocument's figure requests carry the plans, budget, fronts and marks of each figure",
          "[studio_core]") {
  StudioDocument doc = openChain();
  const Bytes budget{doc.vanilla()->metrics.simulatedPeak.value * 3 / 4};
  doc.startRun(budget, false);
  for (const char* id : {"store-all", "exact-dp", "chen-sqrtn"}) doc.setResult(solveAt(doc, id, budget));
  StudioDocument::ViewChoice view;
  view.rows = {"chen-sqrtn", "store-all", "exact-dp", "not-a-row"};
  view.focused = "exact-dp";
  view.found = *doc.graph()->find("a1");
  doc.setPins(*doc.pinsWith(*doc.graph()->find("a4"), StudioDocument::Pin::Keep));

  auto timeline = doc.figureRequest(remat::viz::FigureKind::Timeline, view);
  REQUIRE(timeline);
  std::vector<std::string> labels;
  for (const auto& p : timeline->plans) labels.push_back(p.label);
  // The plain run first, once; then the rows in the table's order, those without a plan left out.
  CHECK(labels == std::vector<std::string>{"store-all", "chen-sqrtn", "exact-dp"});
  CHECK(timeline->budget == budget);
  for (const auto& p : timeline->plans) CHECK(p.simulation);  // simulated once, in the document

  view.timelineByCategory = true;
  timeline = doc.figureRequest(remat::viz::FigureKind::Timeline, view);
  REQUIRE(timeline);
  REQUIRE(timeline->plans.size() == 1);
  CHECK(timeline->plans[0].label == "exact-dp");

  auto drawing = doc.figureRequest(remat::viz::FigureKind::Graph, view);
  REQUIRE(drawing);
  REQUIRE(drawing->plans.size() == 1);
  CHECK(drawing->plans[0].label == "exact-dp");
  CHECK(drawing->pins.keep.size() == 1);
  CHECK(drawing->found == view.found);
  const auto layout = doc.figureRequest(remat::viz::FigureKind::Layout, view);
  REQUIRE(layout);
  CHECK(layout->pins.empty());
  CHECK_FALSE(layout->found);
  view.focused.clear();  // the plain run
  drawing = doc.figureRequest(remat::viz::FigureKind::Graph, view);
  REQUIRE(drawing);
  CHECK(drawing->plans.at(0).label == "store-all");

  CHECK_FALSE(doc.figureRequest(remat::viz::FigureKind::Pareto, view));
  CHECK_FALSE(StudioDocument().figureRequest(remat::viz::FigureKind::Timeline, view));
}

TEST_CASE("Studio's sentences: pins, stale rows, titles, runs and largest batches", "[studio_core]") {
  using remat::solvers::DpModelKind;
  using remat::solvers::Strategy;
  using remat::studio::RunSettings;
  StudioDocument doc = openChain();
  const remat::graph::ComputeGraph& g = *doc.graph();
  QString tip;
  CHECK(remat::studio::pinsSummary(g, {}, tip).startsWith(QStringLiteral("none")));
  CHECK(tip.isEmpty());
  remat::solvers::Pins pins;
  for (const char* name : {"a1", "a2", "a3"}) pins.keep.push_back(g.opIndex(*g.find(name)));
  pins.recompute.push_back(g.opIndex(*g.find("a5")));
  const QString summary = remat::studio::pinsSummary(g, pins, tip);
  // Two names say more than a count; three are counted, and every name is in the tooltip.
  CHECK(summary == QStringLiteral("keep 3 node(s); recompute a5"));
  for (const char* name : {"a1", "a2", "a3", "a5"}) CHECK(tip.contains(QString::fromLatin1(name)));

  const RunSettings run{Strategy::Time, DpModelKind::Simulator};
  CHECK(remat::studio::staleText(run, run).isEmpty());
  const QString stale = remat::studio::staleText(run, {Strategy::Memory, DpModelKind::Simulator});
  CHECK(stale.contains(QStringLiteral("strategy time")));
  CHECK_FALSE(stale.contains(QStringLiteral("DP model")));
  CHECK(remat::studio::staleText(run, {Strategy::Memory, DpModelKind::Paper}).contains(QStringLiteral(" and ")));

  CHECK(remat::studio::planTitle(doc, nullptr, false, {}).contains(QStringLiteral("run the solvers")));
  CHECK(remat::studio::planTitle(doc, &*doc.vanilla(), false, {}).contains(QStringLiteral("plain run")));
  doc.startRun(std::nullopt, true);
  remat::solvers::SolveResult least = solveAt(doc, "exact-dp", std::nullopt);
  doc.setResult(least);
  const QString title = remat::studio::planTitle(doc, doc.result("exact-dp"), true, {});
  CHECK(title.contains(QStringLiteral("(the winner)")));
  CHECK(title.contains(QStringLiteral("each solver at its own")));
  CHECK(remat::studio::planTitle(doc, doc.result("exact-dp"), true, stale).contains(stale));

  remat::studio::SolveRunner::Settings settings;
  settings.budget = {remat::studio::BudgetChoice::Kind::Fixed, Bytes{2048}};
  settings.pins = pins;
  const QString running = remat::studio::runDescription({"exact-dp", "dtr"}, settings);
  CHECK(running.contains(QStringLiteral("exact-dp, dtr")));
  CHECK(running.contains(QStringLiteral("2048 bytes")));
  CHECK(running.contains(QStringLiteral("pins: keep 3, recompute 1")));

  remat::studio::BatchSearch::Answer answer{
      "dtr", remat::solvers::CallStatus::Ok, remat::solvers::SolveStatus::Optimal, 12, {}};
  CHECK(remat::studio::batchAnswerText(answer, Bytes{1 << 20}).contains(QStringLiteral("largest batch 12")));
  answer.batch = 0;
  answer.status = remat::solvers::SolveStatus::Infeasible;
  answer.message = "too small";
  CHECK(remat::studio::batchAnswerText(answer, Bytes{1 << 20}).contains(QStringLiteral("no batch fits")));
  // A solver that cannot answer (a cap, a limit) never reads as "no batch fits"; a batch found before it
  // stopped is not called the largest.
  answer.status = remat::solvers::SolveStatus::Limit;
  CHECK(remat::studio::batchAnswerText(answer, Bytes{1 << 20}).contains(QStringLiteral("dtr: cannot answer (limit")));
  answer.batch = 15;
  CHECK(remat::studio::batchAnswerText(answer, Bytes{1 << 20}).contains(QStringLiteral("not proven the largest")));
  answer.call = remat::solvers::CallStatus::Error;
  CHECK(remat::studio::batchAnswerText(answer, Bytes{1 << 20}).contains(QStringLiteral("error: too small")));
}

TEST_CASE("Studio's jobs: budget fronts kept per solver, Pareto fronts into the document", "[studio_core]") {
  remat::test::ensureGuiApplication();
  StudioDocument doc = openChain();
  const auto graph = doc.sharedGraph();
  remat::studio::JobRunner jobs;
  remat::studio::BudgetFronts fronts(jobs);
  QSignalSpy done(&fronts, &remat::studio::BudgetFronts::finished);
  QSignalSpy each(&fronts, &remat::studio::BudgetFronts::frontDone);
  REQUIRE(fronts.compute(graph, {&solver("exact-dp"), &solver("approx-dp")}, remat::solvers::DpModelKind::Simulator));
  CHECK(fronts.running());
  REQUIRE(done.wait(kWaitMs));
  CHECK_FALSE(fronts.running());
  CHECK(each.count() == 2);
  REQUIRE(fronts.front("exact-dp"));
  CHECK(fronts.front("exact-dp")->whole);
  CHECK_FALSE(fronts.front("dtr"));
  // What it has is not computed again; clear forgets it.
  CHECK_FALSE(fronts.compute(graph, {&solver("exact-dp")}, remat::solvers::DpModelKind::Simulator));
  fronts.clear();
  CHECK(fronts.fronts().empty());

  remat::studio::ParetoJob pareto(jobs, doc);
  QSignalSpy paretoDone(&pareto, &remat::studio::ParetoJob::finished);
  pareto.start(graph, {&solver("exact-dp"), &solver("chen-sqrtn")}, remat::solvers::DpModelKind::Simulator, {});
  CHECK(pareto.running());
  REQUIRE(paretoDone.wait(kWaitMs));
  CHECK_FALSE(pareto.running());
  REQUIRE(doc.pareto());
  CHECK(doc.pareto()->series.size() == 2);
  // Started again and stopped: the document's fronts are gone (they were another run's) and stay gone.
  pareto.start(graph, {&solver("exact-dp")}, remat::solvers::DpModelKind::Simulator, {});
  CHECK_FALSE(doc.pareto());
  pareto.stop();
  CHECK_FALSE(pareto.running());
  QTest::qWait(50);
  CHECK_FALSE(doc.pareto());
}
