// The sequences a new user went through that put wrong numbers on screen, replayed as that user did
// them (typing in the budget field, clicking a Pareto point, the menus' shortcuts), and the figures
// exported from Studio as a paper needs them: the size chosen, text of at least 7 pt, and the same bytes
// as `remat render` with the same options.
#include <zlib.h>
#include <catch2/catch.hpp>

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QTabWidget>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "ProgramRun.hpp"
#include "StudioTestSupport.hpp"
#include "remat/graph/ByteSize.hpp"
#include "remat/solvers/Comparison.hpp"
#include "remat/solvers/SolverRegistry.hpp"
#include "remat/studio/BudgetEditor.hpp"
#include "remat/studio/ComparisonModel.hpp"
#include "remat/studio/ExportDialog.hpp"
#include "remat/studio/MainWindow.hpp"
#include "remat/studio/StudioDocument.hpp"
#include "remat/vizqt/SceneView.hpp"

using namespace remat;
using remat::studio::ComparisonModel;
using remat::studio::MainWindow;

namespace {

namespace fs = std::filesystem;

using remat::test::kUnet;
const QString kMobileNet = QStringLiteral(REMAT_SOURCE_DIR "/datasets/mobilenet_v2.json");
constexpr int kTimeoutMs = 120'000;

using remat::test::scratch;

// The width in points of a PDF's (first) page, from its MediaBox.
double pdfPageWidth(const std::string& pdf) {
  const std::size_t box = pdf.find("/MediaBox");
  REQUIRE(box != std::string::npos);
  std::istringstream media(pdf.substr(pdf.find('[', box) + 1, 80));
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  media >> x0 >> y0 >> x1 >> y1;
  return x1 - x0;
}

// A window a user types into and clicks, its keys going to the active window.
struct TypingWindow {
  MainWindow w;
  TypingWindow() {
    w.setInteractive(false);
    w.setLiveBudget(false);
    w.resize(1280, 800);
    w.show();
    // Keys go to the active window, as they do for a user.
    w.activateWindow();
    REQUIRE(QTest::qWaitForWindowActive(&w));
  }
  void only(std::initializer_list<const char*> ids) {
    for (const auto& id : solvers::SolverRegistry::builtin().ids()) w.setSolverChecked(id, false);
    for (const char* id : ids) REQUIRE(w.setSolverChecked(id, true));
  }
  // Types a budget into the field as a user does, then Ctrl+R.
  void typeBudgetAndRun(const QString& text) {
    QLineEdit* field = w.budgetEditor()->field();
    field->setFocus();
    field->selectAll();
    QTest::keyClick(field, Qt::Key_Backspace);
    QTest::keyClicks(field, text);
    QTest::keyClick(field, Qt::Key_R, Qt::ControlModifier);
    INFO(w.lastError().toStdString());
    REQUIRE(w.solving());
    REQUIRE(QTest::qWaitFor([&] { return !w.solving(); }, kTimeoutMs));
  }
  void paretoAndWait() {
    QTest::keyClick(&w, Qt::Key_P, Qt::ControlModifier);
    REQUIRE(QTest::qWaitFor([&] { return !w.computingPareto(); }, kTimeoutMs));
    REQUIRE(w.pareto());
  }
  // Clicks a Pareto point on screen, as a user does.
  void clickParetoPoint(std::size_t series, std::size_t index) {
    vizqt::SceneView* view = w.view(viz::FigureKind::Pareto);
    w.views()->setCurrentWidget(view);
    REQUIRE(QTest::qWaitFor([&] { return !view->currentScene().hotspots.empty(); }, 10000));
    const auto& spots = view->currentScene().hotspots;
    const auto spot = std::find_if(spots.begin(), spots.end(), [&](const viz::Hotspot& h) {
      return h.kind == viz::Hotspot::Kind::PlanPoint && h.series == series && h.index == index;
    });
    REQUIRE(spot != spots.end());
    const std::size_t before = static_cast<std::size_t>(w.comparisonModel()->rowCount());
    QTest::mouseClick(view, Qt::LeftButton, {},
                      view->mapFromScene(QPointF(spot->x + spot->w / 2, spot->y + spot->h / 2)).toPoint());
    REQUIRE(QTest::qWaitFor([&] { return static_cast<std::size_t>(w.comparisonModel()->rowCount()) > before; }, 5000));
  }
  const solvers::SolveResult& row(const std::string& label) {
    const auto r = w.comparisonModel()->rowOf(label);
    REQUIRE(r);
    const auto& result = w.comparisonModel()->rows()[static_cast<std::size_t>(*r)].result;
    REQUIRE(result);
    return *result;
  }
  QString cell(const std::string& label, int column) {
    const auto r = w.comparisonModel()->rowOf(label);
    REQUIRE(r);
    return w.comparisonModel()->data(w.comparisonModel()->index(*r, column)).toString();
  }
};

// The CSV's line of a row, split at commas (the labels here have none).
QStringList csvRow(const QString& csv, const std::string& label) {
  for (const QString& line : csv.split(QLatin1Char('\n')))
    if (line.startsWith(QString::fromStdString(label) + QLatin1Char(','))) return line.split(QLatin1Char(','));
  return {};
}

}  // namespace

TEST_CASE("A plan picked on a Pareto front over the budget at hand neither fits nor wins", "[studio][sequences]") {
  test::ensureWidgetApplication();
  TypingWindow win;
  MainWindow& w = win.w;
  REQUIRE(w.openFile(kUnet));
  win.only({"exact-dp", "approx-dp"});
  const Bytes plain = w.vanilla()->metrics.simulatedPeak;
  const Bytes budget{plain.value * 6 / 10};
  win.typeBudgetAndRun(QString::number(budget.value));
  const solvers::SolveResult exact = win.row("exact-dp");
  REQUIRE(solvers::fitsBudget(exact));
  win.paretoAndWait();
  // exact-dp's cheapest point over the budget at hand (the plan of least overhead at a larger budget).
  std::size_t series = 0;
  while (w.pareto()->series[series].solver != "exact-dp") ++series;
  const auto& points = w.pareto()->series[series].points;
  std::size_t over = points.size();
  for (std::size_t k = 0; k < points.size(); ++k)
    if (points[k].memory > 1.05 * double(budget.value) &&
        (over == points.size() || points[k].memory < points[over].memory))
      over = k;
  REQUIRE(over < points.size());
  CHECK(points[over].overhead < double(exact.metrics.overhead.value));  // cheaper: it would win if judged alone
  win.clickParetoPoint(series, over);

  const std::string label =
      studio::StudioDocument::pickLabel("exact-dp", Bytes{static_cast<std::int64_t>(points[over].memory)});
  const solvers::SolveResult& picked = win.row(label);
  // Its own row, judged at the budget at hand: it does not fit, and is not the winner.
  CHECK_FALSE(solvers::fitsBudget(picked));
  CHECK(win.cell(label, ComparisonModel::Fits) == QStringLiteral("no"));
  CHECK(win.cell(label, ComparisonModel::Best).isEmpty());
  CHECK(win.cell(label, ComparisonModel::Budget) == QString::fromStdString(formatByteSize(budget)));
  // exact-dp's own row is as the run left it, and a plan that fits still wins.
  CHECK(win.row("exact-dp").metrics.overhead == exact.metrics.overhead);
  CHECK(win.row("exact-dp").metrics.simulatedPeak == exact.metrics.simulatedPeak);
  REQUIRE(w.comparisonModel()->bestRow());
  CHECK(w.comparisonModel()->rows()[static_cast<std::size_t>(*w.comparisonModel()->bestRow())].solver != label);
  // The title speaks of the budget at hand and says the picked plan does not fit it.
  CHECK(w.focusedSolver() == label);
  CHECK(w.planTitle().contains(QStringLiteral("budget %1").arg(QString::fromStdString(formatByteSize(budget)))));
  CHECK(w.planTitle().contains(QStringLiteral("does not fit")));
  // Copy as CSV says the same, in numbers.
  w.copyTableAsCsv();
  const QStringList cells = csvRow(QApplication::clipboard()->text(), label);
  REQUIRE(cells.size() >= 5);
  CHECK(cells[1] == QStringLiteral("no"));
  CHECK(cells[3] == QStringLiteral("no"));
  CHECK(cells[4] == QString::number(budget.value));
  // The next run judges it again, at its own budget: with none, it fits.
  win.typeBudgetAndRun(QString());
  CHECK(solvers::fitsBudget(win.row(label)));
}

TEST_CASE("Clearing the pins drops the pinned rows and the pinned Pareto fronts", "[studio][sequences]") {
  test::ensureWidgetApplication();
  TypingWindow win;
  MainWindow& w = win.w;
  REQUIRE(w.openFile(kUnet));
  win.only({"exact-dp"});
  // A node half way through the forward pass, kept.
  const graph::NodeId node = w.graph()->opNode(graph::OpIndex{static_cast<std::uint32_t>(w.graph()->opCount() / 2)});
  REQUIRE(w.setPin(node, MainWindow::Pin::Keep));
  win.typeBudgetAndRun(QString());
  CHECK(w.comparisonModel()->rowOf(viz::pinnedLabel("exact-dp")));
  win.paretoAndWait();
  REQUIRE(w.pareto()->series.size() == 2);
  // The checkpoint drawing marks the pinned node, and says so in its legend; the found one too.
  REQUIRE(w.showNodeDetails(node));
  auto legend = [&](const std::string& text, viz::FigureKind kind = viz::FigureKind::Graph) {
    const viz::FigureResult figure = w.buildView(kind, 960, 540, viz::Theme::paper());
    REQUIRE(figure.scene);
    return std::any_of(figure.scene->items.begin(), figure.scene->items.end(), [&](const viz::Item& item) {
      const auto* t = std::get_if<viz::TextItem>(&item);
      return t && t->text == text;
    });
  };
  CHECK(legend("pinned: keep"));
  CHECK(legend("found"));
  CHECK(legend("pinned: keep", viz::FigureKind::Schedule));
  CHECK(legend("found", viz::FigureKind::Schedule));
  // Pins > Clear all pins, from the menu bar.
  auto* pinMenu = w.findChild<QMenu*>(QStringLiteral("pinMenu"));
  REQUIRE(pinMenu);
  pinMenu->popup(QPoint(0, 0));
  auto* clear = pinMenu->findChild<QAction*>(QStringLiteral("clearPins"));
  REQUIRE(clear);
  REQUIRE(clear->isEnabled());
  clear->trigger();
  pinMenu->close();
  CHECK(w.pins().empty());
  CHECK_FALSE(w.comparisonModel()->rowOf(viz::pinnedLabel("exact-dp")));
  CHECK_FALSE(legend("pinned: keep"));
  REQUIRE(w.pareto());
  REQUIRE(w.pareto()->series.size() == 1);
  CHECK(w.pareto()->series[0].solver == "exact-dp");
  // The export draws what the view draws: no pinned front.
  std::string why;
  const auto request = w.figureRequest(viz::FigureKind::Pareto, why);
  REQUIRE(request);
  CHECK(request->pareto.series.size() == 1);
}

TEST_CASE("Opening another graph resets the views' zoom and the search", "[studio][sequences]") {
  test::ensureWidgetApplication();
  TypingWindow win;
  MainWindow& w = win.w;
  REQUIRE(w.openFile(kUnet));
  vizqt::SceneView* drawing = w.view(viz::FigureKind::Graph);
  w.views()->setCurrentWidget(drawing);
  REQUIRE(QTest::qWaitFor([&] { return drawing->currentScene().width > 0; }, 20000));
  auto* find = w.findChild<QLineEdit*>(QStringLiteral("findNode"));
  REQUIRE(find);
  find->setFocus();
  QTest::keyClicks(find, QString::fromStdString(w.graph()->node(w.graph()->opNode(graph::OpIndex{3})).name));
  QTest::keyClick(find, Qt::Key_Return);
  CHECK(drawing->zoom() > 1.0);
  REQUIRE(w.openFile(kMobileNet));
  CHECK(drawing->zoom() == 1.0);
  CHECK(find->text().isEmpty());
}

TEST_CASE("'least' gives each solver's least budget a column and says its rule", "[studio][sequences]") {
  test::ensureWidgetApplication();
  TypingWindow win;
  MainWindow& w = win.w;
  REQUIRE(w.openFile(kUnet));
  win.only({"exact-dp", "chen-sqrtn"});
  win.typeBudgetAndRun(QStringLiteral("least"));
  const ComparisonModel& model = *w.comparisonModel();
  CHECK(model.headerData(ComparisonModel::Budget, Qt::Horizontal).toString() == QStringLiteral("least budget"));
  for (const char* id : {"exact-dp", "chen-sqrtn"}) {
    const solvers::SolveResult& r = win.row(id);
    REQUIRE(r.budget);
    CHECK(win.cell(id, ComparisonModel::Budget) == QString::fromStdString(formatByteSize(*r.budget)));
  }
  CHECK(w.planTitle().contains(QStringLiteral("its least budget")));
  CHECK(w.planTitle().contains(QStringLiteral("each solver at its own")));
  REQUIRE(model.bestRow());
  CHECK(model.data(model.index(*model.bestRow(), ComparisonModel::Best), Qt::ToolTipRole)
            .toString()
            .contains(QStringLiteral("lowest simulated peak")));
  // Every status says what it means; optimal says over which class.
  const QString tip =
      model.data(model.index(*model.rowOf("exact-dp"), ComparisonModel::Status), Qt::ToolTipRole).toString();
  CHECK(tip.contains(QStringLiteral("within its class")));
  CHECK(tip.contains(QStringLiteral("lower-set-chain")));
}

TEST_CASE("A row the user picked stays picked through a re-solve, Ctrl+E exports from the budget field",
          "[studio][sequences]") {
  test::ensureWidgetApplication();
  TypingWindow win;
  MainWindow& w = win.w;
  REQUIRE(w.openFile(kUnet));
  win.only({"exact-dp", "approx-dp", "chen-sqrtn"});
  const Bytes plain = w.vanilla()->metrics.simulatedPeak;
  win.typeBudgetAndRun(QString::number(plain.value * 7 / 10));
  REQUIRE(w.selectSolver("chen-sqrtn"));
  win.typeBudgetAndRun(QString::number(plain.value * 8 / 10));
  CHECK(w.focusedSolver() == "chen-sqrtn");
  // Another strategy in the panel: the rows were made under the old one, and say so until the next run.
  w.setLiveBudget(false);
  w.setStrategy(solvers::Strategy::Memory);
  CHECK(w.comparisonModel()->stale());
  CHECK(w.planTitle().contains(QStringLiteral("strategy time")));
  w.setStrategy(solvers::Strategy::Time);
  CHECK_FALSE(w.comparisonModel()->stale());
  // Hovering the timeline tells, for every plan drawn, its bytes by category and its largest tensors.
  vizqt::SceneView* timeline = w.view(viz::FigureKind::Timeline);
  w.views()->setCurrentWidget(timeline);
  REQUIRE(QTest::qWaitFor([&] { return !timeline->currentScene().hotspots.empty(); }, 10000));
  const std::string tip = timeline->currentScene().hotspots[timeline->currentScene().hotspots.size() / 3].tip;
  for (const char* id : {"store-all", "exact-dp", "approx-dp", "chen-sqrtn"}) CHECK(tip.find(id) != std::string::npos);
  std::size_t largest = 0;
  for (std::size_t at = tip.find("largest:"); at != std::string::npos; at = tip.find("largest:", at + 1)) ++largest;
  CHECK(largest == 4);
  // Focus is in the budget field after typing: Ctrl+E still opens the export dialog.
  QLineEdit* field = w.budgetEditor()->field();
  field->setFocus();
  QTest::keyClick(field, Qt::Key_E, Qt::ControlModifier);
  studio::ExportDialog* dialog = w.exportDialog();
  REQUIRE(dialog);
  CHECK(dialog->isVisible());
  CHECK(dialog->previewText().contains(QStringLiteral("3.30")));
  // In the dialog as a user: two columns from the size list, 8 pt typed, a file name typed, Export.
  auto* size = dialog->findChild<QComboBox*>(QStringLiteral("exportSize"));
  REQUIRE(size);
  size->setCurrentIndex(size->findData(QStringLiteral("two-columns")));
  auto* font = dialog->findChild<QDoubleSpinBox*>(QStringLiteral("exportFontSize"));
  REQUIRE(font);
  font->selectAll();
  QTest::keyClicks(font, QStringLiteral("8"));
  QTest::keyClick(font, Qt::Key_Tab);
  CHECK(dialog->options().fontSize == 8);
  CHECK(dialog->previewText().contains(QStringLiteral("7.00")));
  CHECK(dialog->commandLine().contains(QStringLiteral("--size two-columns --font-size 8 --theme paper")));
  auto* path = dialog->findChild<QLineEdit*>(QStringLiteral("exportPath"));
  REQUIRE(path);
  const fs::path file = scratch() / "two-columns.pdf";
  path->selectAll();
  QTest::keyClicks(path, QString::fromStdString(file.string()));
  auto* button = dialog->findChild<QPushButton*>(QStringLiteral("exportButton"));
  REQUIRE(button);
  QTest::mouseClick(button, Qt::LeftButton);
  REQUIRE(fs::exists(file));
  CHECK_FALSE(dialog->isVisible());
  CHECK(std::abs(pdfPageWidth(test::slurp(file)) - 7 * 72.0) <= 0.01 * 7 * 72.0);
  // The timeline has no chains to collapse; the checkpoint drawing's dialog offers it, as render does.
  CHECK_FALSE(dialog->findChild<QCheckBox*>(QStringLiteral("exportCollapseChains")));
  w.views()->setCurrentWidget(w.view(viz::FigureKind::Graph));
  QTest::keyClick(&w, Qt::Key_E, Qt::ControlModifier);
  dialog = w.exportDialog();
  REQUIRE(dialog);
  auto* collapse = dialog->findChild<QCheckBox*>(QStringLiteral("exportCollapseChains"));
  REQUIRE(collapse);
  CHECK_FALSE(dialog->commandLine().contains(QStringLiteral("--collapse-chains")));
  QTest::mouseClick(collapse, Qt::LeftButton, {}, QPoint(4, collapse->height() / 2));
  CHECK(dialog->collapseChains());
  CHECK(dialog->commandLine().contains(QStringLiteral("--collapse-chains")));
  dialog->reject();
}

namespace {

// Every stream of a PDF, inflated when it is Flate-compressed (Qt's are).
std::vector<std::string> pdfStreams(const std::string& pdf) {
  std::vector<std::string> out;
  for (std::size_t at = pdf.find("stream"); at != std::string::npos; at = pdf.find("stream", at + 6)) {
    if (at >= 3 && pdf.compare(at - 3, 3, "end") == 0) continue;
    std::size_t begin = at + 6;
    if (pdf[begin] == '\r') ++begin;
    if (pdf[begin] == '\n') ++begin;
    const std::size_t end = pdf.find("endstream", begin);
    if (end == std::string::npos) break;
    z_stream z{};
    if (inflateInit(&z) != Z_OK) continue;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(pdf.data() + begin));
    z.avail_in = static_cast<uInt>(end - begin);
    std::string text;
    char buffer[65536];
    int rc = Z_OK;
    do {
      z.next_out = reinterpret_cast<Bytef*>(buffer);
      z.avail_out = sizeof buffer;
      rc = inflate(&z, Z_NO_FLUSH);
      text.append(buffer, sizeof buffer - z.avail_out);
    } while (rc == Z_OK);
    inflateEnd(&z);
    if (rc == Z_STREAM_END) out.push_back(std::move(text));
  }
  return out;
}

// The size in points of every piece of text a page draws: the font size of Tf scaled by the current
// transformation (cm, through q/Q) and the text matrix (Tm).
std::vector<double> textSizes(const std::string& content) {
  std::vector<double> sizes;
  std::vector<double> operands;
  std::vector<double> stack{1.0};
  double font = 0;
  double textScale = 1;
  std::istringstream in(content);
  std::string token;
  auto scaleOf = [&](std::size_t n) {  // sqrt|det| of the last six operands' matrix
    const double* m = operands.data() + operands.size() - n;
    return std::sqrt(std::abs(m[0] * m[3] - m[1] * m[2]));
  };
  char c = 0;
  while (in.get(c)) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    if (c == '<' || c == '(') {  // a string: skipped
      const char close = c == '<' ? '>' : ')';
      while (in.get(c) && c != close)
        if (c == '\\') in.get(c);
      continue;
    }
    if (c == '[' || c == ']') continue;
    token.assign(1, c);
    while (in.peek() != EOF && !std::isspace(in.peek()) && in.peek() != '<' && in.peek() != '(' && in.peek() != '[' &&
           in.peek() != ']' && in.peek() != '/')
      token += static_cast<char>(in.get());
    char* end = nullptr;
    const double v = std::strtod(token.c_str(), &end);
    if (end && *end == '\0') {
      operands.push_back(v);
      continue;
    }
    if (token == "q") stack.push_back(stack.back());
    if (token == "Q" && stack.size() > 1) stack.pop_back();
    if (token == "cm" && operands.size() >= 6) stack.back() *= scaleOf(6);
    if (token == "Tf" && !operands.empty()) font = operands.back();
    if (token == "Tm" && operands.size() >= 6) textScale = scaleOf(6);
    if (token == "Tj" || token == "TJ") sizes.push_back(font * textScale * stack.back());
    if (token[0] != '/') operands.clear();
  }
  return sizes;
}

}  // namespace

TEST_CASE("Studio exports each figure for one column of a paper, byte-equal to remat render", "[studio][sequences]") {
  test::ensureWidgetApplication();
  TypingWindow win;
  MainWindow& w = win.w;
  REQUIRE(w.openFile(kUnet));
  win.only({"exact-dp", "approx-dp"});
  const Bytes budget{w.vanilla()->metrics.simulatedPeak.value * 7 / 10};
  win.typeBudgetAndRun(QString::number(budget.value));
  win.paretoAndWait();
  const std::string winner =
      w.comparisonModel()->rows()[static_cast<std::size_t>(*w.comparisonModel()->bestRow())].solver;
  // The plans and fronts in the order Studio shows them (the table's rows, the checked solvers').
  std::string rows;
  for (const auto& r : w.comparisonModel()->rows()) rows += "," + r.solver;
  std::string fronts;
  for (const auto& s : w.pareto()->series) fronts += (fronts.empty() ? "" : ",") + s.solver;

  vizqt::FigureOptions options = MainWindow::defaultExportOptions();
  const fs::path dir = scratch();
  for (viz::FigureKind kind : viz::kAllFigures) {
    const std::string name(viz::figureName(kind));
    INFO(name);
    const fs::path studio = dir / ("studio-" + name + ".pdf");
    const fs::path cli = dir / ("cli-" + name + ".pdf");
    REQUIRE(w.exportFigure(kind, QString::fromStdString(studio.string()), options).isEmpty());
    // The same figure through the command line, with the same options.
    std::vector<std::string> args = {"render",      std::string(REMAT_SOURCE_DIR) + "/datasets/unet.json",
                                     "--figure",    name,
                                     "--size",      "column",
                                     "--font-size", "9",
                                     "--theme",     "paper",
                                     "--budget",    std::to_string(budget.value),
                                     "-o",          cli.string()};
    if (kind == viz::FigureKind::Timeline)
      args.insert(args.end(), {"--time-axis", "--solvers", "store-all" + rows});
    else if (kind == viz::FigureKind::Pareto)
      args.insert(args.end(), {"--solvers", fronts});
    else
      args.insert(args.end(), {"--solvers", winner});
    const test::ProgramRun render = test::runProgram(REMAT_CLI, args, dir);
    INFO(render.err);
    REQUIRE(render.code == 0);
    const std::string bytes = test::slurp(studio);
    CHECK(bytes == test::slurp(cli));
    // The page is one column wide (3.3 in = 237.6 pt), and no text is under 7 pt.
    CHECK(std::abs(pdfPageWidth(bytes) - 237.6) <= 0.01 * 237.6);
    std::vector<double> sizes;
    for (const std::string& stream : pdfStreams(bytes)) {
      const auto more = textSizes(stream);
      sizes.insert(sizes.end(), more.begin(), more.end());
    }
    REQUIRE_FALSE(sizes.empty());
    CHECK(*std::min_element(sizes.begin(), sizes.end()) >= 7.0 - 1e-6);
    if (kind == viz::FigureKind::Graph) {
      // Chains collapsed, as the export dialog offers for the checkpoint drawing: --collapse-chains.
      REQUIRE(w.exportFigure(kind, QString::fromStdString(studio.string()), options, true).isEmpty());
      args.emplace_back("--collapse-chains");
      REQUIRE(test::runProgram(REMAT_CLI, args, dir).code == 0);
      const std::string collapsed = test::slurp(studio);
      CHECK(collapsed == test::slurp(cli));
      CHECK(collapsed != bytes);
    }
  }
}
