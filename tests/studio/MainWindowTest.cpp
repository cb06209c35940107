#include <sys/stat.h>
#include <catch2/catch.hpp>

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "ProgramRun.hpp"
#include "StudioTestSupport.hpp"
#include "TestGraphs.hpp"
#include "remat/graph/ByteSize.hpp"
#include "remat/graph/CostModel.hpp"
#include "remat/graph/WorkspaceModel.hpp"
#include "remat/io/NativeJson.hpp"
#include "remat/io/PlanJson.hpp"
#include "remat/solvers/Comparison.hpp"
#include "remat/solvers/MaxBatch.hpp"
#include "remat/solvers/Pins.hpp"
#include "remat/solvers/SolverRegistry.hpp"
#include "remat/studio/BudgetEditor.hpp"
#include "remat/studio/ComparisonModel.hpp"
#include "remat/studio/JobRunner.hpp"
#include "remat/studio/MainWindow.hpp"
#include "remat/studio/StudioDocument.hpp"
#include "remat/viz/Theme.hpp"
#include "remat/vizqt/SceneView.hpp"

using namespace remat;
using remat::studio::BudgetChoice;
using remat::studio::JobRunner;
using remat::studio::MainWindow;

namespace {

namespace fs = std::filesystem;

using remat::test::kUnet;
constexpr int kSolveTimeoutMs = 60'000;

using remat::test::scratch;

// A window as a user gets it, except that errors are recorded instead of shown in a modal dialog.
struct Window {
  MainWindow w;
  Window() {
    w.setInteractive(false);
    w.resize(1280, 720);
    w.show();
  }
  void only(std::initializer_list<const char*> ids) {
    for (const auto& id : solvers::SolverRegistry::builtin().ids()) w.setSolverChecked(id, false);
    for (const char* id : ids) REQUIRE(w.setSolverChecked(id, true));
  }
  bool runAndWait() {
    w.runSolvers();
    return QTest::qWaitFor([&] { return !w.solving(); }, kSolveTimeoutMs);
  }
};

}  // namespace

TEST_CASE("Studio's solver panel offers milp and lp-bound, unchecked, and shows lp-bound's bound", "[studio][window]") {
  test::ensureWidgetApplication();
  Window win;
  MainWindow& w = win.w;
  REQUIRE(w.openFile(kUnet));
  // Every registered solver is listed; only the DPs run by default (CBC may take minutes on a budget).
  for (const auto& id : solvers::SolverRegistry::builtin().ids()) CHECK(w.progressBar(id) != nullptr);
  std::vector<std::string> byDefault = w.checkedSolvers();
  std::sort(byDefault.begin(), byDefault.end());
  CHECK(byDefault == std::vector<std::string>{"approx-dp", "exact-dp"});
  // Without a budget milp answers at once (nothing to search) and lp-bound proves an overhead of at least 0.
  win.only({"milp", "lp-bound"});
  REQUIRE(win.runAndWait());
  const studio::ComparisonModel& model = *w.comparisonModel();
  REQUIRE(model.rowCount() == 2);
  const auto milp = model.rowOf("milp");
  const auto lp = model.rowOf("lp-bound");
  REQUIRE(milp);
  REQUIRE(lp);
  const auto& milpResult = model.rows()[static_cast<std::size_t>(*milp)].result;
  const auto& lpResult = model.rows()[static_cast<std::size_t>(*lp)].result;
  REQUIRE(milpResult);
  REQUIRE(lpResult);
  CHECK(milpResult->status == solvers::SolveStatus::Optimal);
  CHECK(lpResult->status == solvers::SolveStatus::Bound);
  CHECK(model.data(model.index(*lp, studio::ComparisonModel::Overhead)).toString() == QStringLiteral(">= 0"));
  CHECK(model.data(model.index(*lp, studio::ComparisonModel::Status)).toString() == QStringLiteral("bound"));
  // A bound is proven: the gap column shows, and milp's optimum lies 0 above it.
  CHECK_FALSE(w.table()->isColumnHidden(studio::ComparisonModel::OverBound));
  CHECK(model.data(model.index(*milp, studio::ComparisonModel::OverBound)).toString() == QStringLiteral("0"));
}

TEST_CASE("Studio opens a dataset and runs two solvers side by side", "[studio][window]") {
  test::ensureWidgetApplication();
  Window win;
  MainWindow& w = win.w;
  REQUIRE(w.openFile(kUnet));
  REQUIRE(w.graph() != nullptr);
  REQUIRE(w.vanilla());
  CHECK(w.vanilla()->metrics.simulatedPeak.value > 0);
  CHECK(w.lastError().isEmpty());

  win.only({"approx-dp", "chen-greedy"});
  std::vector<std::string> checked = w.checkedSolvers();
  std::sort(checked.begin(), checked.end());
  CHECK(checked == std::vector<std::string>{"approx-dp", "chen-greedy"});
  QSignalSpy finished(&w, &MainWindow::solversFinished);
  REQUIRE(win.runAndWait());
  CHECK(finished.count() == 1);

  const studio::ComparisonModel& model = *w.comparisonModel();
  REQUIRE(model.rowCount() == 2);
  for (const char* id : {"approx-dp", "chen-greedy"}) {
    INFO(id);
    const auto row = model.rowOf(id);
    REQUIRE(row);
    const auto& r = model.rows()[static_cast<std::size_t>(*row)];
    REQUIRE(r.result);
    CHECK((r.result->status == solvers::SolveStatus::Optimal || r.result->status == solvers::SolveStatus::Feasible));
    REQUIRE(r.result->plan);
    CHECK(r.result->metrics.simulatedPeak.value > 0);
    REQUIRE(r.result->metrics.modelPeak);
    CHECK(r.result->metrics.modelPeak->value > 0);
    CHECK(model.data(model.index(*row, studio::ComparisonModel::Status)).toString() ==
          QString::fromStdString(std::string(solvers::statusName(r.result->status))));
    // The same numbers as the engine gives for the same request.
    const solvers::SolveResult direct = solvers::SolverRegistry::builtin().find(id)->solve({.graph = w.graph()});
    CHECK(r.result->metrics.simulatedPeak == direct.metrics.simulatedPeak);
    REQUIRE(w.progressBar(id));
    CHECK(w.progressBar(id)->value() == w.progressBar(id)->maximum());
  }
  CHECK(model.toMarkdown().contains(QStringLiteral("| chen-greedy |")));
  w.copyTableAsMarkdown();
  CHECK(QApplication::clipboard()->text() == model.toMarkdown());
  w.copyTableAsCsv();
  CHECK(QApplication::clipboard()->text() == model.toCsv());

  // Every view draws a figure of the open graph and the finished plans.
  for (viz::FigureKind kind :
       {viz::FigureKind::Timeline, viz::FigureKind::Graph, viz::FigureKind::Schedule, viz::FigureKind::Layout}) {
    INFO(viz::figureName(kind));
    vizqt::SceneView* view = w.view(kind);
    REQUIRE(view);
    w.views()->setCurrentWidget(view);
    const viz::Scene& scene = view->currentScene();
    CHECK(scene.width == Approx(view->width()));
    CHECK(scene.height == Approx(view->height()));
    CHECK_FALSE(scene.items.empty());
  }

  // Hover on the timeline: the step under the mouse, its node and bytes, in the status bar.
  {
    vizqt::SceneView* timeline = w.view(viz::FigureKind::Timeline);
    w.views()->setCurrentWidget(timeline);
    const viz::Scene& scene = timeline->currentScene();
    const auto step = std::find_if(scene.hotspots.begin(), scene.hotspots.end(),
                                   [](const viz::Hotspot& h) { return h.kind == viz::Hotspot::Kind::Step; });
    REQUIRE(step != scene.hotspots.end());
    const QPoint at = timeline->mapFromScene(QPointF(step->x + step->w / 2, step->y + step->h / 2)).toPoint();
    QTest::mouseMove(timeline, at);
    REQUIRE(timeline->hoveredHotspot());
    CHECK(w.statusBar()->currentMessage().startsWith(QStringLiteral("step ")));
    CHECK(w.statusBar()->currentMessage().contains(QStringLiteral("approx-dp: ")));
  }
  // A click on a node of the checkpoint drawing: its details in every plan.
  {
    vizqt::SceneView* drawing = w.view(viz::FigureKind::Graph);
    w.views()->setCurrentWidget(drawing);
    const viz::Scene& scene = drawing->currentScene();
    const auto node = std::find_if(scene.hotspots.begin(), scene.hotspots.end(), [&](const viz::Hotspot& h) {
      return h.kind == viz::Hotspot::Kind::Node &&
             w.graph()->node(graph::NodeId{static_cast<std::uint32_t>(h.index)}).kind == graph::NodeKind::Op;
    });
    REQUIRE(node != scene.hotspots.end());
    const QPoint at = drawing->mapFromScene(QPointF(node->x + node->w / 2, node->y + node->h / 2)).toPoint();
    QTest::mouseClick(drawing, Qt::LeftButton, {}, at);
    // The click is reported once the double-click interval has passed.
    const QString name =
        QString::fromStdString(w.graph()->node(graph::NodeId{static_cast<std::uint32_t>(node->index)}).name);
    CHECK(QTest::qWaitFor([&] { return w.nodeDetailsText().startsWith(name); }, 5000));
    const QString details = w.nodeDetailsText();
    CHECK(details.contains(QStringLiteral("\nstore-all: ")));
    CHECK(details.contains(QStringLiteral("\napprox-dp: ")));
    CHECK(details.contains(QStringLiteral("\nchen-greedy: ")));
    CHECK_FALSE(w.showNodeDetails(graph::NodeId{static_cast<std::uint32_t>(w.graph()->size())}));
  }

  // The layout holds at a small laptop's size and at 4K: the figures are drawn again at the new size.
  for (const QSize size : {QSize(1280, 720), QSize(3840, 2160)}) {
    w.resize(size);
    QApplication::processEvents();
    vizqt::SceneView* timeline = w.view(viz::FigureKind::Timeline);
    w.views()->setCurrentWidget(timeline);
    CHECK(timeline->width() >= 400);
    CHECK(timeline->height() >= 200);
    CHECK(timeline->currentScene().width == Approx(timeline->width()));
  }
}

// ISSUE 16: Studio plans in the DP model chosen (the simulator's by default) and names the winner as
// `remat compare` does: ResNet-50 at 2 GiB, where exact-dp wins in the simulator's model and DTR in the
// paper's.
TEST_CASE("Studio plans in the chosen DP model and names the winner as remat compare does", "[studio][window]") {
  test::ensureWidgetApplication();
  Window win;
  MainWindow& w = win.w;
  REQUIRE(w.openFile(QStringLiteral(REMAT_SOURCE_DIR "/datasets/resnet50.json")));
  CHECK(w.dpModel() == solvers::DpModelKind::Simulator);
  win.only({"exact-dp", "dtr"});
  const Bytes budget{std::int64_t{2} << 30};
  w.budgetEditor()->setBudget({BudgetChoice::Kind::Fixed, budget});
  const std::vector<const solvers::Solver*> chosen{solvers::SolverRegistry::builtin().find("exact-dp"),
                                                   solvers::SolverRegistry::builtin().find("dtr")};
  for (const solvers::DpModelKind model : {solvers::DpModelKind::Simulator, solvers::DpModelKind::Paper}) {
    INFO(solvers::dpModelName(model));
    w.setDpModel(model);
    REQUIRE(win.runAndWait());
    const studio::ComparisonModel& table = *w.comparisonModel();
    const auto exact = table.rowOf("exact-dp");
    REQUIRE(exact);
    const auto& result = table.rows()[static_cast<std::size_t>(*exact)].result;
    REQUIRE(result);
    REQUIRE(result->plan);
    CHECK(result->plan->model == model);
    // The library's comparison of the same request: the same winner, the same figures.
    const solvers::Comparison direct =
        solvers::compareSolvers(chosen, {.graph = w.graph(), .budget = budget, .model = model}, false);
    REQUIRE(direct.best);
    const std::string winner = direct.rows[*direct.best].solver;
    CHECK(winner == (model == solvers::DpModelKind::Simulator ? "exact-dp" : "dtr"));
    REQUIRE(table.bestRow());
    CHECK(table.rows()[static_cast<std::size_t>(*table.bestRow())].solver == winner);
    CHECK(table.data(table.index(*table.bestRow(), studio::ComparisonModel::Best)).toString() == QStringLiteral("*"));
    CHECK(table.data(table.index(*table.bestRow(), studio::ComparisonModel::Fits)).toString() == QStringLiteral("yes"));
    CHECK(w.focusedSolver() == winner);  // the views show the winner's plan
    // The winner's row is selected when the run ends, shaded, and the title over the views says so.
    const QModelIndex current = w.table()->selectionModel()->currentIndex();
    REQUIRE(current.isValid());
    CHECK(current.siblingAtColumn(studio::ComparisonModel::Solver).data().toString() == QString::fromStdString(winner));
    CHECK(current.data(Qt::BackgroundRole).isValid());
    CHECK(w.planTitle().contains(QString::fromStdString(winner)));
    CHECK(w.planTitle().contains(QStringLiteral("(the winner)")));
    CHECK(w.planTitle().contains(QString::fromStdString(formatByteSize(budget))));
    CHECK(w.table()->isColumnHidden(studio::ComparisonModel::OverBound));  // no solver proves a bound here
    const auto row = *table.rowOf(winner);
    const solvers::SolveResult& mine = *table.rows()[static_cast<std::size_t>(row)].result;
    CHECK(mine.metrics.overhead == direct.rows[*direct.best].metrics.overhead);
    char percent[32];
    std::snprintf(percent, sizeof percent, "%.1f%%", direct.overheadPercent(direct.rows[*direct.best]));
    CHECK(table.data(table.index(row, studio::ComparisonModel::OverheadPercent)).toString() ==
          QString::fromLatin1(percent));
    // Whether exact-dp's plan fits its budget in the simulator, as the library judges it.
    CHECK(table.data(table.index(*exact, studio::ComparisonModel::Fits)).toString() ==
          (solvers::fitsBudget(*result) ? QStringLiteral("yes") : QStringLiteral("no")));
  }
  // Sorted by overhead, most first: the rows are shown in that order, and selecting the other solver's
  // row shows its plan, whatever the order.
  const studio::ComparisonModel& table = *w.comparisonModel();
  w.table()->sortByColumn(studio::ComparisonModel::Overhead, Qt::DescendingOrder);
  const QAbstractItemModel& shown = *w.table()->model();
  REQUIRE(shown.rowCount() == 2);
  auto overheadOf = [&](int row) { return shown.index(row, studio::ComparisonModel::Overhead).data().toLongLong(); };
  CHECK(overheadOf(0) >= overheadOf(1));
  const std::string loser = table.rows()[static_cast<std::size_t>(1 - *table.bestRow())].solver;
  REQUIRE(w.selectSolver(loser));
  CHECK(w.focusedSolver() == loser);
  CHECK(w.planTitle().contains(QString::fromStdString(loser)));
  CHECK_FALSE(w.planTitle().contains(QStringLiteral("(the winner)")));
}

TEST_CASE("Studio offers the project's datasets", "[studio][window]") {
  test::ensureWidgetApplication();
  Window win;
  MainWindow& w = win.w;
  CHECK(w.datasetFiles().isEmpty());
  w.setDatasetDirectory(QStringLiteral(REMAT_SOURCE_DIR "/datasets"));
  const QStringList files = w.datasetFiles();
  CHECK(files.contains(QFileInfo(kUnet).absoluteFilePath()));
  CHECK_FALSE(files.contains(QFileInfo(QStringLiteral(REMAT_SOURCE_DIR "/datasets/manifest.json")).absoluteFilePath()));
  // Every entry is a graph the readers take.
  for (const QString& file : files) {
    INFO(file.toStdString());
    CHECK(w.openFile(file));
  }
}

TEST_CASE("Studio remembers the files opened lately", "[studio][window]") {
  test::ensureWidgetApplication();
  const QString ini = QString::fromStdString((scratch() / "recent.ini").string());
  QFile::remove(ini);
  const QString small = QFileInfo(QStringLiteral(REMAT_SOURCE_DIR "/datasets/unet-small.json")).absoluteFilePath();
  const QString unet = QFileInfo(kUnet).absoluteFilePath();
  {
    Window win;
    MainWindow& w = win.w;
    w.useSettings(std::make_unique<QSettings>(ini, QSettings::IniFormat));
    CHECK(w.recentFiles().isEmpty());
    REQUIRE(w.openFile(kUnet));
    REQUIRE(w.openFile(small));
    REQUIRE(w.openFile(kUnet));
    CHECK(w.recentFiles() == QStringList{unet, small});  // latest first, once each
    CHECK_FALSE(w.openFile(QStringLiteral("/no/such/graph.json")));
    CHECK(w.recentFiles().size() == 2);  // files that do not open are not remembered
  }
  Window win;
  MainWindow& w = win.w;
  w.useSettings(std::make_unique<QSettings>(ini, QSettings::IniFormat));
  CHECK(w.recentFiles() == QStringList{unet, small});
}

TEST_CASE("Studio reports a file it cannot read and keeps going", "[studio][window]") {
  test::ensureWidgetApplication();
  Window win;
  MainWindow& w = win.w;
  const fs::path garbage = scratch() / "garbage.json";
  {
    std::ofstream out(garbage);
    out << "{ this is \x01 not a graph ]]";
  }
  CHECK_FALSE(w.openFile(QString::fromStdString(garbage.string())));
  CHECK_FALSE(w.lastError().isEmpty());
  CHECK(w.graph() == nullptr);

  CHECK_FALSE(w.openFile(QString::fromStdString((scratch() / "missing.json").string())));
  CHECK(w.lastError().contains(QStringLiteral("missing.json")));

  // A good file after a bad one opens, and a bad one after it leaves the open graph alone.
  REQUIRE(w.openFile(kUnet));
  CHECK(w.lastError().isEmpty());
  const graph::ComputeGraph* open = w.graph();
  CHECK_FALSE(w.openFile(QString::fromStdString(garbage.string())));
  CHECK(w.graph() == open);

  // Running with nothing checked is an error, not a crash.
  win.only({});
  w.runSolvers();
  CHECK_FALSE(w.solving());
  CHECK(w.lastError().contains(QStringLiteral("solver")));
}

TEST_CASE("Studio exports the timeline view as SVG", "[studio][window]") {
  test::ensureWidgetApplication();
  Window win;
  MainWindow& w = win.w;
  REQUIRE(w.openFile(kUnet));
  win.only({"approx-dp"});
  REQUIRE(win.runAndWait());
  w.views()->setCurrentWidget(w.view(viz::FigureKind::Timeline));
  const fs::path svg = scratch() / "timeline.svg";
  fs::remove(svg);
  REQUIRE(w.exportCurrentView(QString::fromStdString(svg.string())));
  REQUIRE(fs::exists(svg));
  std::ifstream in(svg);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.find("<svg") != std::string::npos);
  CHECK(text.find("approx-dp") != std::string::npos);  // the legend names the plans
  CHECK(text.find("store-all") != std::string::npos);

  CHECK_FALSE(w.exportCurrentView(QString::fromStdString((scratch() / "timeline.bmp").string())));
  CHECK(w.lastError().contains(QStringLiteral(".svg")));
}

TEST_CASE("Studio's budget field follows the slider over the plain run's peak", "[studio][window]") {
  test::ensureWidgetApplication();
  Window win;
  MainWindow& w = win.w;
  REQUIRE(w.openFile(kUnet));
  studio::BudgetEditor& budget = *w.budgetEditor();
  const Bytes peak = w.vanilla()->metrics.simulatedPeak;
  CHECK(budget.vanillaPeak() == peak);
  CHECK(budget.budget().kind == BudgetChoice::Kind::None);

  budget.slider()->setValue(900);
  const Bytes expected{static_cast<std::int64_t>(std::llround(0.9 * static_cast<double>(peak.value)))};
  CHECK(budget.budget() == BudgetChoice{BudgetChoice::Kind::Fixed, expected});
  CHECK(budget.field()->text() == QString::fromStdString(formatByteSize(expected)));

  // The solvers run under it: chen-greedy's plan (4.56 GiB of 5.58 GiB) fits 90% by the simulator.
  win.only({"chen-greedy"});
  REQUIRE(win.runAndWait());
  const auto& rows = w.comparisonModel()->rows();
  REQUIRE(rows.size() == 1);
  REQUIRE(rows[0].result);
  CHECK(rows[0].result->budget == expected);
  CHECK(rows[0].result->status == solvers::SolveStatus::Feasible);
  REQUIRE(rows[0].result->plan);
  CHECK(rows[0].result->metrics.simulatedPeak <= expected);

  // Below what it can do, the run still reports, as infeasible.
  budget.slider()->setValue(500);
  REQUIRE(win.runAndWait());
  REQUIRE(w.comparisonModel()->rows()[0].result);
  CHECK(w.comparisonModel()->rows()[0].result->status == solvers::SolveStatus::Infeasible);
}

// ISSUE 18: "a typed budget is ignored unless Enter is pressed". Run takes the text in the field as it
// stands; text that is not a budget stops the run, in red at the field, instead of running under the
// previous budget.
TEST_CASE("Studio runs under the budget typed in the field, Enter pressed or not", "[studio][window]") {
  test::ensureWidgetApplication();
  Window win;
  MainWindow& w = win.w;
  REQUIRE(w.openFile(kUnet));
  win.only({"chen-greedy"});
  studio::BudgetEditor& budget = *w.budgetEditor();
  budget.slider()->setValue(900);  // an earlier budget, which the typed text must replace
  const Bytes peak = w.vanilla()->metrics.simulatedPeak;
  const Bytes typed{peak.value / 2};
  QLineEdit* field = budget.field();
  field->setFocus();
  field->selectAll();
  QTest::keyClicks(field, QString::number(typed.value));  // no Enter
  CHECK(budget.errorText().isEmpty());
  REQUIRE(win.runAndWait());
  REQUIRE(w.comparisonModel()->rows().size() == 1);
  REQUIRE(w.comparisonModel()->rows()[0].result);
  CHECK(w.comparisonModel()->rows()[0].result->budget == typed);
  CHECK(budget.budget() == BudgetChoice{BudgetChoice::Kind::Fixed, typed});

  // A size with units, still without Enter.
  field->selectAll();
  QTest::keyClicks(field, QStringLiteral("3GiB"));
  REQUIRE(win.runAndWait());
  CHECK(w.comparisonModel()->rows()[0].result->budget == Bytes{std::int64_t{3} << 30});

  // Not a budget: marked at once, and Run refuses with the reason; the last results stay.
  field->selectAll();
  QTest::keyClicks(field, QStringLiteral("abc"));
  CHECK_FALSE(budget.errorText().isEmpty());
  w.runSolvers();
  CHECK_FALSE(w.solving());
  CHECK(w.lastError().contains(QStringLiteral("abc")));
  CHECK(budget.budget() == BudgetChoice{BudgetChoice::Kind::Fixed, Bytes{std::int64_t{3} << 30}});
  CHECK(w.comparisonModel()->rows()[0].result->budget == Bytes{std::int64_t{3} << 30});
  // Fixed by hand, it runs again.
  field->selectAll();
  QTest::keyClicks(field, QStringLiteral("least"));
  CHECK(budget.errorText().isEmpty());
  REQUIRE(win.runAndWait());
  CHECK(budget.budget().kind == BudgetChoice::Kind::Least);
}

TEST_CASE("Studio scrubs the budget from each DP's whole front", "[studio][window]") {
  test::ensureWidgetApplication();
  Window win;
  MainWindow& w = win.w;
  REQUIRE(w.openFile(kUnet));
  REQUIRE(w.liveBudget());
  win.only({"exact-dp", "approx-dp", "chen-greedy"});
  studio::BudgetEditor& budget = *w.budgetEditor();
  // Before any run, moving the budget only sets it up.
  budget.slider()->setValue(800);
  QTest::qWait(MainWindow::kScrubDelayMs * 3);
  CHECK_FALSE(w.solving());
  CHECK(w.comparisonModel()->rows().empty());
  REQUIRE(win.runAndWait());

  // The first move starts the fronts (one DP run per DP solver) and re-solves at the new budget.
  QSignalSpy fronts(&w, &MainWindow::frontsFinished);
  QSignalSpy frontsProgress(&w, &MainWindow::frontsProgressed);
  QSignalSpy runs(&w, &MainWindow::solversFinished);
  budget.slider()->setValue(700);
  REQUIRE(QTest::qWaitFor([&] { return runs.count() == 1 && !w.solving() && fronts.count() == 1; }, kSolveTimeoutMs));
  // The fronts' job said how far it was and what it ran, solver by solver, in order.
  REQUIRE(frontsProgress.count() >= 2);
  double last = -1;
  bool named = false;
  for (const QList<QVariant>& args : frontsProgress) {
    const double fraction = args.at(0).toDouble();
    CHECK(fraction >= last);
    CHECK(fraction <= 1.0);
    last = fraction;
    named = named || args.at(1).toString().startsWith(QStringLiteral("approx-dp: "));
  }
  CHECK(named);
  CHECK_FALSE(w.computingFronts());
  // Each front was a job of the window's one runner, the last delivered as the others were.
  const std::optional<JobRunner::Watch> lastFront = w.jobs().latest(MainWindow::kFrontJob);
  REQUIRE(lastFront);
  CHECK(lastFront->outcome() == JobRunner::Outcome::Delivered);
  CHECK(lastFront->progressDelivered() > 0);
  REQUIRE(w.front("exact-dp"));
  REQUIRE(w.front("approx-dp"));
  CHECK(w.front("exact-dp")->whole);
  CHECK_FALSE(w.front("chen-greedy"));
  const auto exactFront = w.front("exact-dp");

  // The slider now reaches the DP model's budgets, which pass the plain run's simulated peak here.
  CHECK(budget.fullScale() >= exactFront->plans.back().budget);

  // Every later budget is answered from the fronts: the DPs' answers equal a direct solve's optimum.
  std::vector<Bytes> budgets;
  for (const std::size_t k : {std::size_t{0}, exactFront->plans.size() / 3, exactFront->plans.size() - 1})
    budgets.push_back(exactFront->plans[k].budget);
  budgets.emplace_back(exactFront->plans.front().budget.value - 1);  // below exact-dp's least: infeasible
  for (const Bytes b : budgets) {
    INFO("budget " << b.value);
    const int before = static_cast<int>(runs.count());
    budget.setBudget({BudgetChoice::Kind::Fixed, b});
    REQUIRE(QTest::qWaitFor([&] { return runs.count() == before + 1 && !w.solving(); }, kSolveTimeoutMs));
    for (const char* id : {"exact-dp", "approx-dp"}) {
      INFO(id);
      const auto row = w.comparisonModel()->rowOf(id);
      REQUIRE(row);
      const auto& answered = w.comparisonModel()->rows()[static_cast<std::size_t>(*row)].result;
      REQUIRE(answered);
      const solvers::SolveResult direct = solvers::SolverRegistry::builtin().find(id)->solve(
          {.graph = w.graph(), .budget = b, .strategy = w.strategy()});
      CHECK(answered->status == direct.status);
      CHECK(answered->metrics.modelOverhead == direct.metrics.modelOverhead);
      CHECK(answered->budget == b);
      if (answered->plan) CHECK(answered->message == "answered from its whole budget/overhead front");
      // The table says so: its solve time is the look-up's, not a DP's.
      CHECK(w.comparisonModel()
                ->data(w.comparisonModel()->index(*row, studio::ComparisonModel::SolveSeconds))
                .toString() == QStringLiteral("front"));
    }
  }
  CHECK(fronts.count() == 1);  // computed once
  CHECK(w.front("exact-dp") == exactFront);

  // Off: the budget waits for Run.
  w.setLiveBudget(false);
  const auto before = runs.count();
  budget.slider()->setValue(750);
  QTest::qWait(MainWindow::kScrubDelayMs * 3);
  CHECK(runs.count() == before);
  CHECK_FALSE(w.solving());

  // A new cost model changes every time: the fronts are dropped.
  REQUIRE(w.setCostModel(QStringLiteral("paper")));
  CHECK_FALSE(w.front("exact-dp"));
}

TEST_CASE("Studio computes the Pareto fronts on a worker and draws them", "[studio][window]") {
  test::ensureWidgetApplication();
  Window win;
  MainWindow& w = win.w;
  REQUIRE(w.openFile(kUnet));
  vizqt::SceneView* view = w.view(viz::FigureKind::Pareto);
  REQUIRE(view);
  w.views()->setCurrentWidget(view);
  CHECK(view->currentScene().width == 0);  // nothing computed yet: the view says how to get it
  CHECK(view->placeholderText().contains(QStringLiteral("Pareto")));

  win.only({"approx-dp", "chen-greedy"});
  QSignalSpy done(&w, &MainWindow::paretoFinished);
  w.computePareto();
  REQUIRE(QTest::qWaitFor([&] { return !w.computingPareto(); }, kSolveTimeoutMs));
  CHECK(done.count() == 1);
  CHECK(w.lastError().isEmpty());
  REQUIRE(w.pareto());
  REQUIRE_FALSE(w.pareto()->series.empty());
  bool approx = false;
  for (const auto& series : w.pareto()->series) {
    approx |= series.solver == "approx-dp";
    CHECK_FALSE(series.points.empty());
  }
  CHECK(approx);
  CHECK(view->currentScene().width > 0);
  CHECK_FALSE(view->currentScene().items.empty());
  // A click on a point adds that plan as a row of its own, its simulated peak the point's.
  {
    const viz::Scene& scene = view->currentScene();
    std::size_t approxSeries = 0;
    while (w.pareto()->series[approxSeries].solver != "approx-dp") ++approxSeries;
    const auto point = std::find_if(scene.hotspots.begin(), scene.hotspots.end(), [&](const viz::Hotspot& h) {
      return h.kind == viz::Hotspot::Kind::PlanPoint && h.series == approxSeries && h.index == 1;
    });
    REQUIRE(point != scene.hotspots.end());
    QTest::mouseClick(view, Qt::LeftButton, {},
                      view->mapFromScene(QPointF(point->x + point->w / 2, point->y + point->h / 2)).toPoint());
    // The click is reported once the double-click interval has passed. The plan is a row of its own,
    // named by its series and peak, next to approx-dp's own.
    const std::string label = studio::StudioDocument::pickLabel(
        "approx-dp", Bytes{static_cast<std::int64_t>(w.pareto()->series[approxSeries].points[1].memory)});
    CHECK(QTest::qWaitFor([&] { return w.comparisonModel()->rowOf(label).has_value(); }, 5000));
    const auto row = w.comparisonModel()->rowOf(label);
    REQUIRE(row);
    const auto& loaded = w.comparisonModel()->rows()[static_cast<std::size_t>(*row)].result;
    REQUIRE(loaded);
    REQUIRE(loaded->plan);
    CHECK(loaded->message.rfind("picked on approx-dp's Pareto front", 0) == 0);
    CHECK(double(loaded->metrics.simulatedPeak.value) == w.pareto()->series[approxSeries].points[1].memory);
    CHECK(double(loaded->metrics.overhead.value) == w.pareto()->series[approxSeries].points[1].overhead);
    CHECK(w.focusedSolver() == label);
    CHECK_FALSE(w.loadParetoPlan(approxSeries, 100000));
  }
  const fs::path pdf = scratch() / "pareto.pdf";
  REQUIRE(w.exportCurrentView(QString::fromStdString(pdf.string())));
  CHECK(fs::file_size(pdf) > 0);

  // Only store-all checked: there is no front to compute.
  win.only({"store-all"});
  w.computePareto();
  CHECK_FALSE(w.computingPareto());
  CHECK(w.lastError().contains(QStringLiteral("store-all")));
}

TEST_CASE("Studio draws each solver in one colour in the timeline and the Pareto front, run after run",
          "[studio][window]") {
  // The colour comes from the registry (viz::solverStyle), never from a plan's place in the table:
  // approx-dp and chen-greedy look the same in both scenes, and chen-greedy keeps its colour in a
  // second run where it is the first and only solver besides store-all.
  test::ensureWidgetApplication();
  Window win;
  MainWindow& w = win.w;
  REQUIRE(w.openFile(kUnet));
  const viz::Theme theme = viz::Theme::screen();
  auto colourOf = [&](const char* id) {
    const auto style = viz::solverStyle(id);
    REQUIRE(style);
    return theme.seriesColor(*style);
  };
  // Whether a curve of the scene (a polyline of more than two points: not an axis, tick or budget line)
  // has the colour.
  auto drawn = [](const viz::Scene& scene, const viz::Color& colour) {
    return std::any_of(scene.items.begin(), scene.items.end(), [&](const viz::Item& item) {
      const auto* line = std::get_if<viz::PolylineItem>(&item);
      return line && line->points.size() > 2 && line->stroke.color == colour;
    });
  };
  const viz::Color approx = colourOf("approx-dp");
  const viz::Color greedy = colourOf("chen-greedy");
  REQUIRE_FALSE(approx == greedy);

  win.only({"approx-dp", "chen-greedy"});
  REQUIRE(win.runAndWait());
  vizqt::SceneView* timeline = w.view(viz::FigureKind::Timeline);
  w.views()->setCurrentWidget(timeline);
  CHECK(drawn(timeline->currentScene(), approx));
  CHECK(drawn(timeline->currentScene(), greedy));

  w.computePareto();
  REQUIRE(QTest::qWaitFor([&] { return !w.computingPareto(); }, kSolveTimeoutMs));
  vizqt::SceneView* pareto = w.view(viz::FigureKind::Pareto);
  w.views()->setCurrentWidget(pareto);
  REQUIRE(w.pareto());
  for (const auto& series : w.pareto()->series)
    if (series.points.size() > 2) CHECK(drawn(pareto->currentScene(), colourOf(series.solver.c_str())));
  CHECK(drawn(pareto->currentScene(), approx));

  win.only({"chen-greedy"});
  REQUIRE(win.runAndWait());
  w.views()->setCurrentWidget(timeline);
  CHECK(drawn(timeline->currentScene(), greedy));
  CHECK_FALSE(drawn(timeline->currentScene(), approx));
}

TEST_CASE("Studio's Pareto job reports progress, says what it computes, and cancels without waiting for it",
          "[studio][window]") {
  test::ensureWidgetApplication();
  Window win;
  MainWindow& w = win.w;
  // GPT-2 small: its DP fronts take tens of seconds here, time enough to watch and cancel.
  REQUIRE(w.openFile(QStringLiteral(REMAT_SOURCE_DIR "/datasets/gpt2_small.json")));
  vizqt::SceneView* view = w.view(viz::FigureKind::Pareto);
  w.views()->setCurrentWidget(view);
  win.only({"approx-dp", "chen-greedy"});
  QSignalSpy progressed(&w, &MainWindow::paretoProgressed);
  QSignalSpy done(&w, &MainWindow::paretoFinished);
  w.computePareto();
  REQUIRE(w.computingPareto());
  // Progress arrives with what runs, and the pane says so instead of "no front yet".
  REQUIRE(QTest::qWaitFor([&] { return w.paretoProgress() > 0.0 || !w.computingPareto(); }, kSolveTimeoutMs));
  REQUIRE(w.computingPareto());  // still at work: the cancel below has something to stop
  CHECK(progressed.count() > 0);
  // The stage names the solver at work (chen-greedy's front comes first, in the registry's order).
  INFO(w.paretoStage().toStdString());
  CHECK((w.paretoStage().startsWith(QStringLiteral("chen-greedy")) ||
         w.paretoStage().startsWith(QStringLiteral("approx-dp"))));
  CHECK(QTest::qWaitFor(
      [&] {
        const QString text = view->placeholderText();
        return text.contains(QStringLiteral("Computing the Pareto fronts")) &&
               (text.contains(QStringLiteral("chen-greedy")) || text.contains(QStringLiteral("approx-dp")));
      },
      5000));

  // Cancel asks the job to stop and returns: it never waits for the DP to notice (JobRunner's tests show
  // a cancel returning while its job is held). Whatever the job still answers is dropped.
  const std::optional<JobRunner::Watch> job = w.jobs().latest(MainWindow::kParetoJob);
  REQUIRE(job);
  CHECK_FALSE(job->stopRequested());
  w.cancelSolvers();
  CHECK(job->stopRequested());
  CHECK_FALSE(w.computingPareto());
  REQUIRE(QTest::qWaitFor([&] { return job->outcome() != JobRunner::Outcome::Pending; }, kSolveTimeoutMs));
  CHECK(job->outcome() == JobRunner::Outcome::Dropped);
  // The cancelled job answers nothing, and the pane is back to how to compute a front.
  CHECK(done.count() == 0);
  CHECK_FALSE(w.pareto());
  CHECK(QTest::qWaitFor([&] { return view->placeholderText().contains(QStringLiteral("No Pareto front yet")); }, 5000));
}

TEST_CASE("Studio saves the shown plan as plan JSON that reads back", "[studio][window]") {
  test::ensureWidgetApplication();
  Window win;
  MainWindow& w = win.w;
  const fs::path out = scratch() / "unet.plan.json";
  CHECK_FALSE(w.savePlan(QString::fromStdString(out.string())));  // no graph, no plan
  REQUIRE(w.openFile(kUnet));
  CHECK(w.focusedSolver() == "store-all");  // before any run the views show the plain run
  win.only({"approx-dp"});
  REQUIRE(win.runAndWait());
  REQUIRE(w.focusedSolver() == "approx-dp");
  REQUIRE(w.savePlan(QString::fromStdString(out.string())));
  std::ifstream in(out);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto plan = io::readPlanJson(text, out.string(), *w.graph());
  REQUIRE(plan.ok());
  CHECK(plan.value().solver == "approx-dp");
  const auto& row = w.comparisonModel()->rows().front();
  REQUIRE(row.result);
  CHECK(plan.value().plan.schedule.size() == row.result->plan->schedule.size());
}

TEST_CASE("Studio opens a plan file onto the graph and compares it with the solvers' plans", "[studio][window]") {
  test::ensureWidgetApplication();
  Window win;
  MainWindow& w = win.w;
  const fs::path out = scratch() / "unet-dtr.json";
  const QString path = QString::fromStdString(out.string());
  CHECK_FALSE(w.openPlan(path));  // no graph yet
  CHECK(w.lastError().contains(QStringLiteral("open a graph first")));
  REQUIRE(w.openFile(kUnet));
  const Bytes budget{w.vanilla()->metrics.simulatedPeak.value * 7 / 10};
  w.budgetEditor()->setBudget({BudgetChoice::Kind::Fixed, budget});
  win.only({"dtr"});
  REQUIRE(win.runAndWait());
  REQUIRE(w.focusedSolver() == "dtr");
  REQUIRE(w.savePlan(path));
  const solvers::SolveResult dtr = *w.comparisonModel()->rows().front().result;

  // Opened: a row of its own, named by the file and its solver, with the simulated figures of the plan
  // it holds, judged at the run's budget; selected, and the title says so.
  REQUIRE(w.openPlan(path));
  const studio::ComparisonModel& table = *w.comparisonModel();
  const std::string label = "unet-dtr.json (dtr)";
  const auto row = table.rowOf(label);
  REQUIRE(row);
  const solvers::SolveResult& opened = *table.rows()[static_cast<std::size_t>(*row)].result;
  CHECK(opened.status == solvers::SolveStatus::Feasible);
  CHECK(opened.budget == budget);
  CHECK(opened.metrics.simulatedPeak == dtr.metrics.simulatedPeak);
  CHECK(opened.metrics.overhead == dtr.metrics.overhead);
  CHECK(table.data(table.index(*row, studio::ComparisonModel::Fits)).toString() == QStringLiteral("yes"));
  CHECK(w.focusedSolver() == label);
  CHECK(w.planTitle().contains(QString::fromStdString(label)));

  // A run at a budget under its peak keeps the row and judges it again: it no longer fits.
  w.budgetEditor()->setBudget({BudgetChoice::Kind::Fixed, Bytes{dtr.metrics.simulatedPeak.value - 1}});
  REQUIRE(win.runAndWait());
  const auto again = table.rowOf(label);
  REQUIRE(again);
  CHECK(table.rows()[static_cast<std::size_t>(*again)].result->status == solvers::SolveStatus::Infeasible);
  CHECK(table.data(table.index(*again, studio::ComparisonModel::Fits)).toString() == QStringLiteral("no"));

  // A plan for another graph is refused with the reason, and adds nothing.
  REQUIRE(w.openFile(QStringLiteral(REMAT_SOURCE_DIR "/datasets/resnet50.json")));
  CHECK_FALSE(w.openPlan(path));
  CHECK(w.lastError().contains(QStringLiteral("unet-dtr.json")));
  CHECK(w.lastError().contains(QStringLiteral("/graph")));
  CHECK(w.comparisonModel()->rowCount() == 0);
}

TEST_CASE("Studio never saves over the open graph nor onto a FIFO", "[studio][window]") {
  test::ensureWidgetApplication();
  Window win;
  MainWindow& w = win.w;
  const fs::path dir = scratch() / "outputs";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path graph = dir / "chain3.json";
  fs::copy_file(REMAT_FIXTURES_DIR "/cli/chain3.json", graph);
  std::ifstream original(graph);
  const std::string text((std::istreambuf_iterator<char>(original)), std::istreambuf_iterator<char>());
  REQUIRE(w.openFile(QString::fromStdString(graph.string())));
  CHECK_FALSE(w.savePlan(QString::fromStdString(graph.string())));
  CHECK(w.lastError().contains(QStringLiteral("it is the input file")));
  CHECK_FALSE(w.saveSession(QString::fromStdString(graph.string())));
  REQUIRE(::mkfifo((dir / "view.svg").c_str(), 0644) == 0);
  CHECK_FALSE(w.exportCurrentView(QString::fromStdString((dir / "view.svg").string())));
  CHECK(w.lastError().contains(QStringLiteral("FIFO")));
  CHECK(fs::is_fifo(dir / "view.svg"));
  std::ifstream after(graph);
  CHECK(std::string((std::istreambuf_iterator<char>(after)), std::istreambuf_iterator<char>()) == text);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"chain3.json", "view.svg"});
  fs::remove_all(dir);
}

TEST_CASE("Studio applies a cost model to the open graph", "[studio][window]") {
  test::ensureWidgetApplication();
  Window win;
  MainWindow& w = win.w;
  REQUIRE(w.openFile(kUnet));
  CHECK(w.costModel() == QStringLiteral("file"));
  REQUIRE(w.setCostModel(QStringLiteral("paper")));
  CHECK(w.costModel() == QStringLiteral("paper"));
  std::size_t ops = 0;
  for (const auto& node : w.graph()->nodes()) {
    if (node.kind != graph::NodeKind::Op) continue;
    ++ops;
    CHECK(node.fwdTime == graph::paperForwardTime(node.op));
  }
  CHECK(ops > 0);
  CHECK_FALSE(w.setCostModel(QStringLiteral("guesswork")));
  CHECK(w.costModel() == QStringLiteral("paper"));
}

TEST_CASE("Studio applies a workspace model to the open graph", "[studio][window]") {
  test::ensureWidgetApplication();
  Window win;
  MainWindow& w = win.w;
  REQUIRE(w.openFile(QStringLiteral(REMAT_SOURCE_DIR "/datasets/small/resnet18-64px.json")));
  CHECK(w.workspaceModel() == QStringLiteral("file"));
  const Bytes plain = w.vanilla()->metrics.simulatedPeak;
  REQUIRE(w.setWorkspaceModel(QStringLiteral("libtorch-cpu")));
  CHECK(w.workspaceModel() == QStringLiteral("libtorch-cpu"));
  // The rules depend on the tensors' sizes only, so applying them again changes nothing.
  const auto ruled = graph::applyWorkspaceModel(*w.graph(), "libtorch-cpu");
  REQUIRE(ruled.ok());
  std::int64_t most = 0;
  for (const auto& node : w.graph()->nodes()) {
    const auto& expected = ruled.value().node(*ruled.value().find(node.name));
    CHECK(node.workspace == expected.workspace);
    CHECK(node.bwdWorkspace == expected.bwdWorkspace);
    most = std::max(most, node.bwdWorkspace.value);
  }
  CHECK(most >= std::int64_t{512} * 512 * 3 * 3 * 4);  // layer4's reordered 3x3 weight
  // The temporaries count: the plain run's peak grows (a convolution's reordered weight at least).
  CHECK(w.vanilla()->metrics.simulatedPeak > plain);
  CHECK_FALSE(w.setWorkspaceModel(QStringLiteral("cudnn")));
  CHECK(w.workspaceModel() == QStringLiteral("libtorch-cpu"));
  REQUIRE(w.setWorkspaceModel(QStringLiteral("file")));
  CHECK(w.vanilla()->metrics.simulatedPeak == plain);
}

TEST_CASE("Studio saves a session and opens it again", "[studio][window]") {
  test::ensureWidgetApplication();
  const fs::path file = scratch() / "unet.remat-session.json";
  BudgetChoice budget;
  {
    Window win;
    MainWindow& w = win.w;
    CHECK_FALSE(w.saveSession(QString::fromStdString(file.string())));  // no graph yet
    REQUIRE(w.openFile(kUnet));
    REQUIRE(w.setCostModel(QStringLiteral("paper")));
    REQUIRE(w.setWorkspaceModel(QStringLiteral("none")));
    win.only({"approx-dp", "chen-greedy"});
    w.setStrategy(solvers::Strategy::Memory);
    w.setDpModel(solvers::DpModelKind::Paper);
    w.budgetEditor()->slider()->setValue(700);
    budget = w.budgetEditor()->budget();
    w.setTimeLimit(12.5);
    REQUIRE(w.saveSession(QString::fromStdString(file.string())));
  }
  Window win;
  MainWindow& w = win.w;
  REQUIRE(w.openSession(QString::fromStdString(file.string())));
  REQUIRE(w.graph());
  CHECK(w.graph()->name() == "unet");
  CHECK(w.costModel() == QStringLiteral("paper"));
  CHECK(w.workspaceModel() == QStringLiteral("none"));
  std::vector<std::string> checked = w.checkedSolvers();
  std::sort(checked.begin(), checked.end());
  CHECK(checked == std::vector<std::string>{"approx-dp", "chen-greedy"});
  CHECK(w.strategy() == solvers::Strategy::Memory);
  CHECK(w.dpModel() == solvers::DpModelKind::Paper);
  CHECK(w.budgetEditor()->budget() == budget);  // the exact bytes, not the field's rounding
  CHECK(w.timeLimit() == 12.5);

  // A session that is not one, or names an unknown solver, is an error and changes nothing.
  const fs::path bad = scratch() / "bad.remat-session.json";
  for (const char* text :
       {"[1, 2]", R"({"format": "remat-graph", "version": 1})",
        R"({"format": "remat-studio-session", "version": 1, "graph": "unet.json", "solvers": ["magic"]})"}) {
    INFO(text);
    std::ofstream(bad) << text;
    CHECK_FALSE(w.openSession(QString::fromStdString(bad.string())));
    CHECK(w.lastError().contains(QString::fromStdString(bad.string())));  // readSession's error, naming the file
    CHECK(w.costModel() == QStringLiteral("paper"));
  }
}

TEST_CASE("Studio cancels a long exact-DP run, and runs under the time limit typed in its panel", "[studio][window]") {
  // Eight independent chains of three: 65,536 lower sets, seconds of exact-dp (tests/solvers'
  // chainsOfThree). The cancel comes at once after the start, so the run is stopped in its middle on any
  // machine; no clock decides the outcome.
  std::vector<test::OpSketch> ops;
  for (int c = 0; c < 8; ++c)
    for (int k = 0; k < 3; ++k)
      ops.push_back({"c" + std::to_string(c) + "_" + std::to_string(k),
                     {k == 0 ? "x" : "c" + std::to_string(c) + "_" + std::to_string(k - 1)},
                     10 + c,
                     1,
                     {0}});
  const fs::path file = scratch() / "chains-of-three.json";
  std::ofstream(file) << io::writeNativeJson(test::makeGraph(ops));
  test::ensureWidgetApplication();
  Window win;
  MainWindow& w = win.w;
  REQUIRE(w.openFile(QString::fromStdString(file.string())));
  win.only({"exact-dp"});
  // A time limit typed as a user types it: it is in the run's log line, and the run's requests.
  auto* limit = w.findChild<QDoubleSpinBox*>(QStringLiteral("timeLimit"));
  REQUIRE(limit != nullptr);
  limit->selectAll();
  QTest::keyClicks(limit, QStringLiteral("2.5"));
  CHECK(w.timeLimit() == 2.5);
  w.runSolvers();
  REQUIRE(w.solving());
  w.cancelSolvers();
  REQUIRE(QTest::qWaitFor([&] { return !w.solving(); }, kSolveTimeoutMs));
  const auto& rows = w.comparisonModel()->rows();
  REQUIRE(rows.size() == 1);
  REQUIRE(rows[0].result);
  CHECK(rows[0].result->status == solvers::SolveStatus::Cancelled);
  CHECK(w.comparisonModel()->statusText(0) == QStringLiteral("cancelled"));
  auto* log = w.findChild<QPlainTextEdit*>(QStringLiteral("log"));
  REQUIRE(log != nullptr);
  CHECK(log->toPlainText().contains(QStringLiteral("time limit 2.5 s")));
}

TEST_CASE("Studio's Help, sessions named without an extension, and a Node panel that follows the runs",
          "[studio][window]") {
  test::ensureWidgetApplication();
  Window win;
  MainWindow& w = win.w;
  // Help > Keyboard shortcuts lists the menus' shortcuts; About names the version and every method.
  const QString keys = w.shortcutsText();
  CHECK(keys.contains(QKeySequence(Qt::CTRL | Qt::Key_R).toString(QKeySequence::NativeText) +
                      QStringLiteral("\tSolve > Run")));
  CHECK(keys.contains(QStringLiteral("File > Open plan...")));
  CHECK(keys.contains(QStringLiteral("double click to fit")));
  const QString about = w.aboutText();
  CHECK(about.contains(QStringLiteral(REMAT_VERSION)));
  for (const auto& id : solvers::SolverRegistry::builtin().ids())
    CHECK(about.contains(QString::fromStdString(solvers::SolverRegistry::builtin().find(id)->info().citation)));

  REQUIRE(w.openFile(kUnet));
  // A session saved as a bare name gets the sessions' extension.
  const fs::path bare = scratch() / "bare-session";
  fs::remove(bare);
  fs::remove(fs::path(bare.string() + ".remat-session.json"));
  REQUIRE(w.saveSession(QString::fromStdString(bare.string())));
  CHECK_FALSE(fs::exists(bare));
  CHECK(fs::exists(fs::path(bare.string() + ".remat-session.json")));

  // The Node panel shows a node's part in the plans of the last run, after every run.
  win.only({"chen-sqrtn"});
  REQUIRE(win.runAndWait());
  const graph::NodeId node = w.graph()->opNode(graph::OpIndex{0});
  REQUIRE(w.showNodeDetails(node));
  CHECK(w.nodeDetailsText().contains(QStringLiteral("\nchen-sqrtn: ")));
  CHECK_FALSE(w.nodeDetailsText().contains(QStringLiteral("\ndtr: ")));
  win.only({"dtr"});
  REQUIRE(win.runAndWait());
  CHECK(w.nodeDetailsText().contains(QStringLiteral("\ndtr: ")));
  CHECK_FALSE(w.nodeDetailsText().contains(QStringLiteral("\nchen-sqrtn: ")));
}

TEST_CASE("Studio's timeline runs over compute time, or over schedule steps when asked", "[studio][window]") {
  test::ensureWidgetApplication();
  Window win;
  MainWindow& w = win.w;
  REQUIRE(w.openFile(kUnet));
  win.only({"chen-sqrtn"});
  REQUIRE(win.runAndWait());
  vizqt::SceneView* view = w.view(viz::FigureKind::Timeline);
  w.views()->setCurrentWidget(view);
  auto shows = [&](const std::string& title) {
    return QTest::qWaitFor(
        [&] {
          for (const viz::Item& item : view->currentScene().items)
            if (const auto* t = std::get_if<viz::TextItem>(&item); t && t->text == title) return true;
          return false;
        },
        10000);
  };
  // View > Timeline of the selected plan by category: one plan, stacked by what holds its memory.
  w.setTimelineByCategory(true);
  CHECK(shows(std::string(viz::categoryName(viz::MemoryCategory::Values))));
  w.setTimelineByCategory(false);
  CHECK(w.timelineOverTime());
  // unet's times are in ns: the axis reads in ms.
  CHECK(shows("compute time"));
  w.setTimelineOverTime(false);
  CHECK(shows("schedule step"));
}

TEST_CASE("Studio finds a node by name: its details, and the checkpoint drawing centred on it", "[studio][window]") {
  test::ensureWidgetApplication();
  Window win;
  MainWindow& w = win.w;
  CHECK_FALSE(w.findNode(QStringLiteral("conv")));  // no graph
  REQUIRE(w.openFile(kUnet));
  const graph::Node& op = w.graph()->node(w.graph()->opNode(graph::OpIndex{3}));
  const QString name = QString::fromStdString(op.name);
  // The checkpoint drawing, built, so that the search can centre on the node.
  vizqt::SceneView* drawing = w.view(viz::FigureKind::Graph);
  w.views()->setCurrentWidget(drawing);
  REQUIRE(QTest::qWaitFor([&] { return !drawing->currentScene().hotspots.empty(); }, 20000));
  REQUIRE(w.findNode(name));
  CHECK(w.nodeDetailsText().startsWith(name));
  CHECK(w.views()->currentWidget() == drawing);
  CHECK(drawing->zoom() > 1.0);
  // Part of a name, in another case, finds the first node that contains it.
  REQUIRE(w.findNode(name.right(3).toUpper()));
  CHECK_FALSE(w.nodeDetailsText().isEmpty());
  CHECK_FALSE(w.findNode(QStringLiteral("no node is called this")));

  // As a user does it: Ctrl+F, type the name, Enter.
  w.activateWindow();
  const bool active = QTest::qWaitForWindowActive(&w, 2000);
  QTest::keyClick(&w, Qt::Key_F, Qt::ControlModifier);
  auto* box = w.findChild<QLineEdit*>(QStringLiteral("findNode"));
  REQUIRE(box);
  if (active) CHECK(box->hasFocus());  // focus needs an active window, which not every platform gives
  const QString other = QString::fromStdString(w.graph()->node(w.graph()->opNode(graph::OpIndex{5})).name);
  QTest::keyClicks(box, other);
  QTest::keyClick(box, Qt::Key_Return);
  CHECK(w.nodeDetailsText().startsWith(other));
}

namespace {

// How many times a plan computes a node in its forward pass and recomputations.
std::size_t forwardsOf(const solvers::Plan& plan, graph::NodeId node) {
  return static_cast<std::size_t>(std::count_if(plan.schedule.begin(), plan.schedule.end(), [&](const sim::Step& s) {
    return s.kind == sim::StepKind::Forward && s.node == node;
  }));
}

const solvers::SolveResult* resultOf(const MainWindow& w, const std::string& label) {
  const auto row = w.comparisonModel()->rowOf(label);
  if (!row) return nullptr;
  const auto& result = w.comparisonModel()->rows()[static_cast<std::size_t>(*row)].result;
  return result ? &*result : nullptr;
}

}  // namespace

TEST_CASE("Studio plans a graph file's own pins into every row, and says so", "[studio][window][pins]") {
  // A chain whose file pins one op recompute, as a graph captured from PyTorch pins its in-place writes.
  std::vector<test::OpSketch> ops;
  ops.reserve(12);
  for (int k = 0; k < 12; ++k)
    ops.push_back({"c" + std::to_string(k), {k == 0 ? "x" : "c" + std::to_string(k - 1)}, 10, 1, {}, true});
  nlohmann::json doc = nlohmann::json::parse(io::writeNativeJson(test::makeGraph(ops)));
  doc["pins"] = {{"recompute", {"c4"}}};
  const fs::path file = scratch() / "graph-pins.json";
  std::ofstream(file) << doc.dump();
  test::ensureWidgetApplication();
  Window win;
  MainWindow& w = win.w;
  REQUIRE(w.openFile(QString::fromStdString(file.string())));
  const graph::NodeId pinned = *w.graph()->find("c4");
  auto* log = w.findChild<QPlainTextEdit*>(QStringLiteral("log"));
  REQUIRE(log != nullptr);
  CHECK(log->toPlainText().contains(QStringLiteral("The graph carries pins (keep 0, recompute 1 operations)")));
  CHECK(w.findChild<QLabel*>(QStringLiteral("pins"))->text() == QStringLiteral("the graph's: recompute c4"));
  // The graph's pin is fixed: a pin by hand on it is refused, the user's pins stay empty.
  CHECK_FALSE(w.setPin(pinned, MainWindow::Pin::Keep));
  CHECK(w.pins().empty());
  CHECK_THAT(w.statusBar()->currentMessage().toStdString(), Catch::Contains("pinned by the graph file"));
  REQUIRE(w.showNodeDetails(pinned));
  CHECK(w.nodeDetailsText().contains(QStringLiteral("pinned by the graph file: recompute")));
  // Every row is made under it; DTR, which ignores recompute pins, says so and cannot win.
  win.only({"exact-dp", "dtr"});
  w.setLiveBudget(false);
  w.budgetEditor()->slider()->setValue(700);
  REQUIRE(win.runAndWait());
  const solvers::SolveResult* dp = resultOf(w, "exact-dp");
  REQUIRE(dp);
  CHECK(dp->pins.recompute == std::vector<graph::OpIndex>{w.graph()->opIndex(pinned)});
  CHECK(dp->pinsIgnored.empty());
  CHECK_FALSE(resultOf(w, viz::pinnedLabel("exact-dp")));  // no pins by hand: no second row
  const solvers::SolveResult* dtr = resultOf(w, "dtr");
  REQUIRE(dtr);
  REQUIRE(dtr->plan);
  CHECK(dtr->pinsIgnored == "recompute");
  const auto& table = *w.comparisonModel();
  REQUIRE(table.bestRow());
  CHECK(table.rows()[static_cast<std::size_t>(*table.bestRow())].solver == "exact-dp");
  for (int row = 0; row < table.rowCount(); ++row)
    if (table.rows()[static_cast<std::size_t>(row)].solver == "dtr")
      CHECK(table.data(table.index(row, studio::ComparisonModel::Best)).toString() ==
            QStringLiteral("ignores recompute pins"));
}

TEST_CASE("Studio pins a node from the drawing's context menu and re-plans next to the unpinned plan",
          "[studio][window][pins]") {
  test::ensureWidgetApplication();
  Window win;
  MainWindow& w = win.w;
  REQUIRE(w.openFile(kUnet));
  w.setLiveBudget(false);
  // Every solver that honours keep pins, and one that does not.
  const std::vector<std::string> honour{"exact-dp", "approx-dp", "dtr", "store-all"};
  win.only({"exact-dp", "approx-dp", "dtr", "store-all", "chen-sqrtn"});
  w.budgetEditor()->slider()->setValue(600);
  REQUIRE(win.runAndWait());
  const graph::ComputeGraph& g = *w.graph();
  // An operation the unpinned exact DP recomputes: the pin has something to change.
  const solvers::SolveResult* unpinned = resultOf(w, "exact-dp");
  REQUIRE(unpinned);
  REQUIRE(unpinned->plan);
  std::optional<graph::NodeId> target;
  for (std::uint32_t v = g.firstOp(); v < g.size() && !target; ++v)
    if (forwardsOf(*unpinned->plan, graph::NodeId{v}) > 1) target = graph::NodeId{v};
  REQUIRE(target);
  const QString name = QString::fromStdString(g.node(*target).name);

  // As a user does it: find the node, right-click it in the checkpoint drawing, choose Keep.
  vizqt::SceneView* drawing = w.view(viz::FigureKind::Graph);
  w.views()->setCurrentWidget(drawing);
  REQUIRE(QTest::qWaitFor([&] { return !drawing->currentScene().hotspots.empty(); }, 20000));
  REQUIRE(w.findNode(name));
  std::optional<QPoint> at;
  for (const viz::Hotspot& spot : drawing->currentScene().hotspots)
    if (spot.kind == viz::Hotspot::Kind::Node && spot.index == target->value)
      at = drawing->mapFromScene(QPointF(spot.x + spot.w / 2, spot.y + spot.h / 2)).toPoint();
  REQUIRE(at);
  QContextMenuEvent click(QContextMenuEvent::Mouse, *at, drawing->mapToGlobal(*at));
  QApplication::sendEvent(drawing, &click);
  auto* menu = w.findChild<QMenu*>(QStringLiteral("nodeMenu"));
  REQUIRE(menu);
  CHECK(menu->isVisible());
  auto* keep = menu->findChild<QAction*>(QStringLiteral("pinKeep"));
  REQUIRE(keep);
  CHECK_FALSE(keep->isChecked());
  keep->trigger();
  menu->close();
  CHECK(w.pinOf(*target) == MainWindow::Pin::Keep);
  CHECK(w.pins().keep == std::vector<graph::OpIndex>{g.opIndex(*target)});
  CHECK(w.nodeDetailsText().contains(QStringLiteral("pinned: keep")));
  CHECK(w.findChild<QLabel*>(QStringLiteral("pins"))->text().contains(QStringLiteral("keep")));
  // An input cannot be pinned.
  CHECK_FALSE(w.setPin(graph::NodeId{0}, MainWindow::Pin::Keep));

  REQUIRE(win.runAndWait());
  for (const std::string& id : honour) {
    INFO(id);
    const solvers::SolveResult* plain = resultOf(w, id);
    const solvers::SolveResult* pinned = resultOf(w, viz::pinnedLabel(id));
    REQUIRE(plain);
    REQUIRE(pinned);
    INFO(solvers::statusName(pinned->status) << ": " << pinned->message);
    if (!pinned->plan) {
      // The pin can take a budget out of a class's reach (approx-dp's ancestor closures): said so.
      CHECK(pinned->status == solvers::SolveStatus::Infeasible);
      CHECK(pinned->message.find("under the pins") != std::string::npos);
      CHECK(id == "approx-dp");
      continue;
    }
    // Never recomputed, checked in the plan's own schedule, and simulated like any other.
    CHECK(forwardsOf(*pinned->plan, *target) == 1);
    CHECK(solvers::pinViolations(g, pinned->plan->schedule,
                                 pinned->plan->lowerSets ? &*pinned->plan->lowerSets : nullptr, w.pins(), true)
              .empty());
    CHECK(pinned->simulation.valid());
    CHECK(pinned->pins.keep == w.pins().keep);
  }
  CHECK(forwardsOf(*resultOf(w, "exact-dp")->plan, *target) > 1);           // the unpinned plan is still there
  CHECK_FALSE(w.comparisonModel()->rowOf(viz::pinnedLabel("chen-sqrtn")));  // it ignores pins
  // The timeline draws both, the pinned one in its solver's colour with another dash.
  CHECK(viz::solverStyle(viz::pinnedLabel("exact-dp")) == *viz::solverStyle("exact-dp") + viz::Theme::kPinnedStyle);

  // The Pins menu pins the Node panel's node: here as recompute.
  const graph::NodeId other{static_cast<std::uint32_t>(g.size() - 2)};
  REQUIRE(g.isOp(other));
  REQUIRE(w.findNode(QString::fromStdString(g.node(other).name)));
  auto* pinMenu = w.findChild<QMenu*>(QStringLiteral("pinMenu"));
  REQUIRE(pinMenu);
  pinMenu->popup(QPoint(0, 0));
  auto* recompute = pinMenu->findChild<QAction*>(QStringLiteral("pinRecompute"));
  REQUIRE(recompute);
  recompute->trigger();
  pinMenu->close();
  CHECK(w.pinOf(other) == MainWindow::Pin::Recompute);

  // Sessions keep the pins, by name.
  const fs::path file = scratch() / "pinned.remat-session.json";
  REQUIRE(w.saveSession(QString::fromStdString(file.string())));
  {
    Window again;
    REQUIRE(again.w.openSession(QString::fromStdString(file.string())));
    CHECK(again.w.pinOf(*target) == MainWindow::Pin::Keep);
    CHECK(again.w.pinOf(other) == MainWindow::Pin::Recompute);
  }
  // A session pinning a node the graph lacks is refused with the name.
  const fs::path bad = scratch() / "bad-pins.remat-session.json";
  std::ofstream(bad) << R"({"format": "remat-studio-session", "version": 1, "graph": ")" << kUnet.toStdString()
                     << R"(", "pins": {"keep": ["no such node"]}})";
  {
    Window again;
    CHECK_FALSE(again.w.openSession(QString::fromStdString(bad.string())));
    CHECK(again.w.lastError().contains(QStringLiteral("no such node")));
  }

  // The Pareto fronts: each solver's, and under the pins.
  win.only({"exact-dp"});
  w.computePareto();
  REQUIRE(QTest::qWaitFor([&] { return !w.computingPareto(); }, kSolveTimeoutMs));
  REQUIRE(w.pareto());
  std::vector<std::string> series;
  for (const auto& s : w.pareto()->series) series.push_back(s.solver);
  CHECK(series == std::vector<std::string>{"exact-dp", viz::pinnedLabel("exact-dp")});
  // A pinned front's point loads as the pinned row, with its pins.
  REQUIRE(w.loadParetoPlan(1, 0));
  const solvers::SolveResult* loaded = resultOf(
      w, studio::StudioDocument::pickLabel(viz::pinnedLabel("exact-dp"),
                                           Bytes{static_cast<std::int64_t>(w.pareto()->series[1].points[0].memory)}));
  REQUIRE(loaded);
  CHECK(loaded->pins.keep == w.pins().keep);
  CHECK(forwardsOf(*loaded->plan, *target) == 1);

  w.clearPins();
  CHECK(w.pins().empty());
  CHECK(w.pinOf(*target) == MainWindow::Pin::None);
}

TEST_CASE("Studio reads a graph file on a worker, and Esc drops the read leaving the open graph as it was",
          "[studio][window]") {
  test::ensureWidgetApplication();
  Window win;
  MainWindow& w = win.w;
  QSignalSpy opened(&w, &MainWindow::fileOpened);
  w.openFileInBackground(kUnet);
  CHECK(w.opening());
  CHECK_FALSE(w.graph());  // not before the event loop has the worker's answer
  REQUIRE(QTest::qWaitFor([&] { return opened.count() == 1; }, 20000));
  CHECK(opened.at(0).at(0).toBool());
  CHECK_FALSE(w.opening());
  REQUIRE(w.graph());
  CHECK(w.graph()->name() == "unet");

  // Cancelled at once: the answer, whenever it comes, is dropped.
  w.openFileInBackground(QStringLiteral(REMAT_SOURCE_DIR "/datasets/resnet50.json"));
  CHECK(w.opening());
  const std::optional<JobRunner::Watch> read = w.jobs().latest(MainWindow::kImportJob);
  REQUIRE(read);
  w.cancelSolvers();  // what Esc does
  CHECK(read->stopRequested());
  CHECK_FALSE(w.opening());
  REQUIRE(QTest::qWaitFor([&] { return read->outcome() != JobRunner::Outcome::Pending; }, 20000));
  CHECK(read->outcome() == JobRunner::Outcome::Dropped);
  CHECK(opened.count() == 1);
  CHECK(w.graph()->name() == "unet");

  // A file that cannot be read is reported, and the open graph stays.
  w.openFileInBackground(QString::fromStdString((scratch() / "missing.onnx").string()));
  REQUIRE(QTest::qWaitFor([&] { return opened.count() == 2; }, 20000));
  CHECK_FALSE(opened.at(1).at(0).toBool());
  CHECK(w.lastError().contains(QStringLiteral("missing.onnx")));
  CHECK(w.graph()->name() == "unet");

  // File > Open dataset reads this way too.
  w.setDatasetDirectory(QStringLiteral(REMAT_SOURCE_DIR "/datasets"));
  const QStringList files = w.datasetFiles();
  const auto vgg = std::find_if(files.begin(), files.end(), [](const QString& f) { return f.endsWith("vgg19.json"); });
  REQUIRE(vgg != files.end());
  QAction* action = nullptr;
  for (QAction* a : w.findChildren<QAction*>())
    if (a->data().toString() == *vgg) action = a;
  REQUIRE(action);
  action->trigger();
  CHECK(w.opening());
  REQUIRE(QTest::qWaitFor([&] { return opened.count() == 3; }, 20000));
  CHECK(w.graph()->name() == "vgg19");
}

TEST_CASE("Studio finds the largest batch each solver fits in the budget, on a worker, and cancels at once",
          "[studio][window]") {
  test::ensureWidgetApplication();
  Window win;
  MainWindow& w = win.w;
  CHECK_FALSE(w.computeMaxBatch(1));  // no graph
  REQUIRE(w.openFile(kUnet));
  win.only({"exact-dp", "store-all"});
  w.budgetEditor()->setBudget({});
  CHECK_FALSE(w.computeMaxBatch(1));  // no budget: nothing to fit in
  CHECK(w.lastError().contains(QStringLiteral("device's memory")));

  // Three times the plain run's peak at the graph's own batch: a larger batch fits.
  const Bytes memory{w.vanilla()->metrics.simulatedPeak.value * 3};
  w.budgetEditor()->setBudget({BudgetChoice::Kind::Fixed, memory});
  QSignalSpy finished(&w, &MainWindow::maxBatchFinished);
  QSignalSpy progress(&w, &MainWindow::maxBatchProgressed);
  REQUIRE(w.computeMaxBatch(4));
  CHECK(w.computingMaxBatch());
  REQUIRE(QTest::qWaitFor([&] { return finished.count() == 1; }, kSolveTimeoutMs));
  CHECK_FALSE(w.computingMaxBatch());
  CHECK(progress.count() >= 2);
  REQUIRE(w.maxBatchAnswers().size() == 2);
  for (const MainWindow::BatchAnswer& a : w.maxBatchAnswers()) {
    INFO(a.solver);
    // The library's answer, as `remat max-batch` gives it.
    const solvers::MaxBatchResult direct =
        solvers::maxBatch(*solvers::SolverRegistry::builtin().find(a.solver), *w.graph(), 4, memory);
    CHECK(a.batch == direct.batch);
    CHECK(a.status == direct.status);
    CHECK(a.batch >= 4);
  }
  // Recomputation fits more than the plain run (as `remat max-batch` says: 25 against 12).
  auto batchOf = [&](const std::string& id) {
    for (const MainWindow::BatchAnswer& a : w.maxBatchAnswers())
      if (a.solver == id) return a.batch;
    return std::int64_t{-1};
  };
  CHECK(batchOf("exact-dp") > batchOf("store-all"));
  CHECK(batchOf("store-all") > 4);
  // The answers as a table: a row per solver, its largest batch a number.
  const QTableWidget* table = w.maxBatchTable();
  REQUIRE(table->rowCount() == 2);
  for (int r = 0; r < table->rowCount(); ++r) {
    const std::string id = table->item(r, 0)->text().toStdString();
    CHECK(table->item(r, 1)->data(Qt::DisplayRole).toLongLong() == batchOf(id));
  }

  // Esc asks the job to stop without waiting for it; its answer never comes.
  REQUIRE(w.computeMaxBatch(4));
  const std::optional<JobRunner::Watch> job = w.jobs().latest(MainWindow::kMaxBatchJob);
  REQUIRE(job);
  w.cancelSolvers();
  CHECK(job->stopRequested());
  CHECK_FALSE(w.computingMaxBatch());
  REQUIRE(QTest::qWaitFor([&] { return job->outcome() != JobRunner::Outcome::Pending; }, kSolveTimeoutMs));
  CHECK(job->outcome() == JobRunner::Outcome::Dropped);
  CHECK(finished.count() == 1);
}

TEST_CASE("Studio plans a Checkmate training graph as given from the File menu, and a session keeps it",
          "[studio][window]") {
  test::ensureWidgetApplication();
  // A copy, so that the graph can be taken away under the open window.
  const fs::path file = scratch() / "train_chain.json";
  fs::copy_file(REMAT_SOURCE_DIR "/tests/fixtures/checkmate/valid/train_chain.json", file,
                fs::copy_options::overwrite_existing);
  const QString path = QString::fromStdString(file.string());
  const fs::path session = scratch() / "as-given.remat-session.json";
  {
    Window win;
    MainWindow& w = win.w;
    REQUIRE(w.openFile(path));
    // Read as a training graph: the forward nodes are the operations, the backward is derived.
    CHECK_FALSE(w.readAsGiven());
    CHECK_FALSE(w.graph()->asGiven());
    CHECK(w.graph()->opCount() == 4);
    // File > Plan graphs as given, clicked as a user clicks it: the graph is read again on the worker,
    // its backward nodes operations.
    auto* asGiven = w.findChild<QAction*>(QStringLiteral("readAsGiven"));
    REQUIRE(asGiven);
    REQUIRE(asGiven->isCheckable());
    QSignalSpy opened(&w, &MainWindow::fileOpened);
    auto click = [&] {
      const qsizetype before = opened.count();
      asGiven->trigger();
      return QTest::qWaitFor([&] { return opened.count() == before + 1; }, 20000);
    };
    REQUIRE(click());
    CHECK(opened.last().at(0).toBool());
    CHECK(asGiven->isChecked());
    CHECK(w.readAsGiven());
    REQUIRE(w.graph());
    CHECK(w.graph()->asGiven());
    CHECK(w.graph()->opCount() == 9);
    auto* log = w.findChild<QPlainTextEdit*>(QStringLiteral("log"));
    REQUIRE(log);
    CHECK(log->toPlainText().contains(QStringLiteral("computed as given")));
    // The DP plans training steps and says so; fastsa plans any DAG as given.
    win.only({"exact-dp", "fastsa"});
    REQUIRE(win.runAndWait());
    const studio::ComparisonModel& model = *w.comparisonModel();
    const auto dp = model.rowOf("exact-dp");
    const auto sa = model.rowOf("fastsa");
    REQUIRE(dp);
    REQUIRE(sa);
    const auto& dpResult = model.rows()[static_cast<std::size_t>(*dp)].result;
    const auto& saResult = model.rows()[static_cast<std::size_t>(*sa)].result;
    REQUIRE(dpResult);
    REQUIRE(saResult);
    CHECK(dpResult->status == solvers::SolveStatus::Limit);
    CHECK(dpResult->message.find("computed as given") != std::string::npos);
    CHECK(saResult->plan);
    REQUIRE(w.saveSession(QString::fromStdString(session.string())));
    // Off again: the training graph.
    REQUIRE(click());
    CHECK_FALSE(w.readAsGiven());
    CHECK(w.graph()->opCount() == 4);
    // Clicked and cancelled at once (Esc): the setting goes back with the graph.
    asGiven->trigger();
    CHECK(w.readAsGiven());
    w.cancelSolvers();  // what Esc does
    CHECK_FALSE(w.readAsGiven());
    CHECK(w.graph()->opCount() == 4);
    // A file gone from under the window: the setting and the graph stay as they were, with the error.
    fs::remove(file);
    REQUIRE(click());
    CHECK_FALSE(opened.last().at(0).toBool());
    CHECK_FALSE(asGiven->isChecked());
    CHECK(w.graph()->opCount() == 4);
    CHECK(w.lastError().contains(QStringLiteral("train_chain.json")));
  }
  // The session opens the graph as given again.
  fs::copy_file(REMAT_SOURCE_DIR "/tests/fixtures/checkmate/valid/train_chain.json", file,
                fs::copy_options::overwrite_existing);
  Window win;
  MainWindow& w = win.w;
  REQUIRE(w.openSession(QString::fromStdString(session.string())));
  CHECK(w.readAsGiven());
  REQUIRE(w.graph());
  CHECK(w.graph()->asGiven());
  CHECK(w.graph()->opCount() == 9);
}
