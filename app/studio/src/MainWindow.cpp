#include "remat/studio/MainWindow.hpp"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QCompleter>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QItemSelectionModel>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <exception>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "remat/graph/BatchScaling.hpp"
#include "remat/graph/ByteSize.hpp"
#include "remat/graph/CostModel.hpp"
#include "remat/graph/WorkspaceModel.hpp"
#include "remat/io/GraphReader.hpp"
#include "remat/io/OutputFile.hpp"
#include "remat/io/PlanJson.hpp"
#include "remat/solvers/MaxBatch.hpp"
#include "remat/solvers/Pins.hpp"
#include "remat/solvers/SolverRegistry.hpp"
#include "remat/studio/BudgetEditor.hpp"
#include "remat/studio/ComparisonModel.hpp"
#include "remat/studio/ExportDialog.hpp"
#include "remat/studio/JobRunner.hpp"
#include "remat/studio/Session.hpp"
#include "remat/studio/SolveRunner.hpp"
#include "remat/studio/SolverPanel.hpp"
#include "remat/viz/NodeLabel.hpp"
#include "remat/vizqt/Export.hpp"
#include "remat/vizqt/FigureFile.hpp"
#include "remat/vizqt/QtTextMetrics.hpp"
#include "remat/vizqt/SceneView.hpp"

namespace remat::studio {

namespace {

constexpr viz::FigureKind kViews[] = {viz::FigureKind::Timeline, viz::FigureKind::Graph, viz::FigureKind::Schedule,
                                      viz::FigureKind::Layout, viz::FigureKind::Pareto};
constexpr std::size_t kParetoPoints = 20;

QString qstr(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

QString viewTitle(viz::FigureKind kind) {
  switch (kind) {
    case viz::FigureKind::Timeline: return QObject::tr("Memory timeline");
    case viz::FigureKind::Graph: return QObject::tr("Checkpoints");
    case viz::FigureKind::Schedule: return QObject::tr("Schedule");
    case viz::FigureKind::Layout: return QObject::tr("Memory layout");
    case viz::FigureKind::Pareto: return QObject::tr("Pareto front");
  }
  return {};
}

// Writes a file the one way Remat writes files (whole or not at all, never over a device or folder),
// refusing the open graph's own file. Returns why it could not, or an empty string.
QString writeOutput(const QString& path, std::string_view bytes, const QString& graphPath) {
  const std::string target = QFile::encodeName(path).toStdString();
  std::vector<std::string> inputs;
  if (!graphPath.isEmpty()) inputs.push_back(QFile::encodeName(graphPath).toStdString());
  auto error = io::checkOutputPath(target, inputs);
  if (!error) error = io::writeFileAtomically(target, bytes);
  return error ? QString::fromStdString(error->message) : QString();
}

// Progress from a job to the window at most every percent or on a new stage: a DP reports thousands
// of times a second.
class ProgressGate {
 public:
  bool due(double fraction, const std::string& stage) {
    if (fraction - m_fraction < 0.01 && stage == m_stage) return false;
    m_fraction = fraction;
    m_stage = stage;
    return true;
  }

 private:
  double m_fraction = -1.0;
  std::string m_stage;
};

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(tr("Remat Studio"));
  setAcceptDrops(true);
  m_screenMetrics = std::make_shared<const vizqt::QtTextMetrics>(viz::Theme::screen().fontFamily);
  m_paperMetrics = std::make_shared<const vizqt::QtTextMetrics>(viz::Theme::paper().fontFamily);
  m_jobs = std::make_unique<JobRunner>();
  m_runner = new SolveRunner(*m_jobs, this);
  m_model = new ComparisonModel(this);
  connect(m_runner, &SolveRunner::progressed, this, &MainWindow::onProgress);
  connect(m_runner, &SolveRunner::finished, this, &MainWindow::onFinished);
  connect(m_runner, &SolveRunner::runFinished, this, &MainWindow::onRunFinished);
  m_openTicker = new QTimer(this);
  m_openTicker->setInterval(250);
  connect(m_openTicker, &QTimer::timeout, this, [this] {
    const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_openStarted).count();
    statusBar()->showMessage(
        tr("Reading %1... %2 s (Esc cancels)").arg(QFileInfo(m_openPath).fileName()).arg(seconds, 0, 'f', 1));
  });

  m_tabs = new QTabWidget;
  m_tabs->setDocumentMode(true);
  for (viz::FigureKind kind : kViews) {
    auto* view = new vizqt::SceneView;
    view->setPlaceholderText(tr("Open a graph: File > Open (Ctrl+O), or drop a graph file on the window."));
    // Figures are built on a worker thread: a Graphviz layout of a large graph must not stall the window.
    view->setAsyncSceneBuilder([this, kind](double w, double h) -> vizqt::SceneView::SceneJob {
      auto build = prepareView(kind, w, h, viz::Theme::screen(), vizqt::SceneView::kMaxZoom);
      return [build = std::move(build)] {
        viz::FigureResult figure = build();
        if (!figure.scene) throw std::runtime_error(figure.error);  // the view shows it as its placeholder
        return std::move(*figure.scene);
      };
    });
    view->setToolTip(tr("Wheel: zoom; drag: pan; double click: fit"));
    // What lies under the mouse: its tip shows as a tooltip, and in the status bar for the timeline;
    // a click on a node shows its details, on a Pareto point adds that plan as a row of its own.
    view->setHoverHandler([this, kind](const viz::Hotspot* spot) {
      if (kind != viz::FigureKind::Timeline) return;
      if (spot) {
        // The step and each plan's total on one line; the details (categories, largest tensors) are in
        // the tooltip, which has the room.
        QStringList lines = QString::fromStdString(spot->tip).split(QLatin1Char('\n'));
        lines.removeIf([](const QString& line) { return line.startsWith(QStringLiteral("  ")); });
        statusBar()->showMessage(lines.join(QStringLiteral("  |  ")));
      } else
        statusBar()->clearMessage();
    });
    view->setClickHandler([this](const viz::Hotspot& spot) {
      if (spot.kind == viz::Hotspot::Kind::Node)
        showNodeDetails(graph::NodeId{static_cast<std::uint32_t>(spot.index)});
      else if (spot.kind == viz::Hotspot::Kind::PlanPoint && spot.series != viz::kVanillaSeries)
        loadParetoPlan(spot.series, spot.index);
    });
    // A right click on a node (of the checkpoint drawing, or a row of the schedule) pins it.
    view->setContextMenuHandler([this](const viz::Hotspot& spot, QPoint at) {
      if (spot.kind != viz::Hotspot::Kind::Node || !m_graph || spot.index >= m_graph->size()) return;
      nodeMenu(graph::NodeId{static_cast<std::uint32_t>(spot.index)})->popup(at);
    });
    m_views[kind] = view;
    m_tabs->addTab(view, viewTitle(kind));
  }

  m_table = new QTableView;
  // Sortable by any column (numbers by value; cells without one last); unsorted, in run order, until
  // a header is clicked.
  m_sorted = new QSortFilterProxyModel(this);
  m_sorted->setSourceModel(m_model);
  m_sorted->setSortRole(ComparisonModel::SortRole);
  m_table->setModel(m_sorted);
  m_table->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
  m_table->setSortingEnabled(true);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_table->horizontalHeader()->setStretchLastSection(false);
  m_table->verticalHeader()->hide();
  m_table->setContextMenuPolicy(Qt::ActionsContextMenu);
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
    for (viz::FigureKind kind : {viz::FigureKind::Graph, viz::FigureKind::Schedule, viz::FigureKind::Layout})
      m_views[kind]->invalidate();
    if (m_timelineByCategory && m_timelineByCategory->isChecked()) m_views[viz::FigureKind::Timeline]->invalidate();
    updatePlanTitle();
  });
  // The row's figures change as results arrive (and the winner with them): the title follows, and the
  // gap to the bound shows only when some result proves one.
  auto follow = [this] {
    m_table->setColumnHidden(ComparisonModel::OverBound, !m_model->bound());
    updatePlanTitle();
  };
  connect(m_model, &QAbstractItemModel::dataChanged, this, follow);
  connect(m_model, &QAbstractItemModel::modelReset, this, follow);
  m_table->setColumnHidden(ComparisonModel::OverBound, true);

  // Which plan the plan views show, above them (the timeline shows every plan).
  m_planTitle = new QLabel;
  m_planTitle->setObjectName(QStringLiteral("planTitle"));
  m_planTitle->setTextFormat(Qt::PlainText);
  m_planTitle->setContentsMargins(6, 2, 6, 2);
  m_planTitle->setToolTip(
      tr("The plan the Checkpoints, Schedule and Memory layout views show: select a row of "
         "the table to show another"));
  auto* top = new QWidget;
  auto* topLayout = new QVBoxLayout(top);
  topLayout->setContentsMargins(0, 0, 0, 0);
  topLayout->setSpacing(0);
  // The title, and a search box that finds a node by name (Ctrl+F): its details and its place in the
  // checkpoint drawing.
  m_findNode = new QLineEdit;
  m_findNode->setObjectName(QStringLiteral("findNode"));
  m_findNode->setPlaceholderText(tr("Find node (Ctrl+F)"));
  m_findNode->setClearButtonEnabled(true);
  m_findNode->installEventFilter(this);
  m_findNode->setMaximumWidth(260);
  m_findNode->setToolTip(tr("A node's name, or part of it: shows its details and its place in the Checkpoints view"));
  connect(m_findNode, &QLineEdit::returnPressed, this, [this] { findNode(m_findNode->text()); });
  auto* heading = new QHBoxLayout;
  heading->setContentsMargins(0, 0, 4, 0);
  heading->addWidget(m_planTitle, 1);
  heading->addWidget(m_findNode);
  topLayout->addLayout(heading);
  topLayout->addWidget(m_tabs, 1);

  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(top);
  split->addWidget(m_table);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 0);
  // The figures get the room; the table shows about seven rows (every default solver and a plan file
  // or two) at 1280x800.
  split->setSizes({520, 240});
  setCentralWidget(split);

  auto* solverDock = new QDockWidget(tr("Solvers"), this);
  solverDock->setObjectName(QStringLiteral("solvers"));
  solverDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
  solverDock->setWidget(buildSolverPanel());
  addDockWidget(Qt::LeftDockWidgetArea, solverDock);

  m_log = new QPlainTextEdit;
  m_log->setObjectName(QStringLiteral("log"));
  m_log->setReadOnly(true);
  m_log->setMaximumBlockCount(2000);
  auto* logDock = new QDockWidget(tr("Messages"), this);
  logDock->setObjectName(QStringLiteral("messages"));
  logDock->setWidget(m_log);
  // Below the solver panel, so that the figures keep the window's full height.
  addDockWidget(Qt::LeftDockWidgetArea, logDock);
  resizeDocks({solverDock, logDock}, {3, 1}, Qt::Vertical);
  m_nodeDetails = new QPlainTextEdit;
  m_nodeDetails->setReadOnly(true);
  m_nodeDetails->setPlaceholderText(
      tr("Click a node in the Checkpoints view to see its bytes, times and part in each plan."));
  m_nodeDock = new QDockWidget(tr("Node"), this);
  m_nodeDock->setObjectName(QStringLiteral("node"));
  m_nodeDock->setWidget(m_nodeDetails);
  addDockWidget(Qt::LeftDockWidgetArea, m_nodeDock);
  tabifyDockWidget(logDock, m_nodeDock);
  // Solve > Largest batch's answers, a row per solver.
  m_batchTable = new QTableWidget(0, 4);
  m_batchTable->setObjectName(QStringLiteral("batchTable"));
  m_batchTable->setHorizontalHeaderLabels({tr("solver"), tr("largest batch"), tr("status"), tr("why")});
  m_batchTable->horizontalHeader()->setStretchLastSection(true);
  m_batchTable->verticalHeader()->hide();
  m_batchTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_batchDock = new QDockWidget(tr("Largest batch"), this);
  m_batchDock->setObjectName(QStringLiteral("largestBatch"));
  m_batchDock->setWidget(m_batchTable);
  addDockWidget(Qt::LeftDockWidgetArea, m_batchDock);
  tabifyDockWidget(logDock, m_batchDock);
  logDock->raise();

  m_graphLabel = new QLabel(tr("no graph"));
  statusBar()->addPermanentWidget(m_graphLabel);
  buildMenus();
  auto* viewMenu = menuBar()->addMenu(tr("&View"));
  viewMenu->addAction(solverDock->toggleViewAction());
  viewMenu->addAction(logDock->toggleViewAction());
  viewMenu->addAction(m_nodeDock->toggleViewAction());
  viewMenu->addAction(m_batchDock->toggleViewAction());
  viewMenu->addSeparator();
  // Over compute time, plans compare by length: a schedule step counts frees as much as a convolution.
  m_timeAxis = viewMenu->addAction(tr("Timeline over compute &time"));
  m_timeAxis->setCheckable(true);
  m_timeAxis->setChecked(true);
  m_timeAxis->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
  m_timeAxis->setToolTip(
      tr("The memory timeline's x axis: compute time (on) or schedule steps, frees "
         "included (off)"));
  connect(m_timeAxis, &QAction::toggled, this, [this] { m_views[viz::FigureKind::Timeline]->invalidate(); });
  // One plan's memory stacked by what holds it (kept values, recomputed ones, gradients, workspace...).
  m_timelineByCategory = viewMenu->addAction(tr("Timeline of the selected plan by &category"));
  m_timelineByCategory->setCheckable(true);
  m_timelineByCategory->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));
  m_timelineByCategory->setToolTip(
      tr("The memory timeline shows the selected plan alone, stacked by category, instead of every plan's total"));
  connect(m_timelineByCategory, &QAction::toggled, this, [this] { m_views[viz::FigureKind::Timeline]->invalidate(); });
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QAction* keys = help->addAction(tr("&Keyboard shortcuts"), this, [this] {
    if (m_interactive) QMessageBox::information(this, tr("Keyboard shortcuts"), shortcutsText());
  });
  keys->setShortcut(QKeySequence::HelpContents);
  help->addAction(tr("&About Remat Studio"), this, [this] {
    if (m_interactive) QMessageBox::about(this, tr("About Remat Studio"), aboutText());
  });
  updateActions();
}

MainWindow::~MainWindow() {
  // The solvers' runner leaves its slot first; then every job is asked to stop and joined, before the
  // widgets they report to go away, and nothing they report after is delivered.
  delete m_runner;
  m_runner = nullptr;
  m_jobs.reset();
  for (auto& [kind, view] : m_views) view->waitForBuild();
}

QString MainWindow::shortcutsText() const {
  QStringList lines;
  // Every menu action that has a shortcut, menu by menu, as the menus show them.
  std::function<void(const QMenu*, const QString&)> walk = [&](const QMenu* menu, const QString& path) {
    for (const QAction* action : menu->actions()) {
      const QString name = path + action->text().remove(QLatin1Char('&'));
      if (action->menu()) {
        walk(action->menu(), name + QStringLiteral(" > "));
        continue;
      }
      if (!action->shortcut().isEmpty())
        lines << action->shortcut().toString(QKeySequence::NativeText) + QStringLiteral("\t") + name;
    }
  };
  for (const QAction* top : menuBar()->actions())
    if (top->menu()) walk(top->menu(), top->text().remove(QLatin1Char('&')) + QStringLiteral(" > "));
  lines << QString() << tr("In every view: wheel to zoom about the cursor, drag to pan, double click to fit.")
        << tr("Timeline: hover for a step's node and bytes. Checkpoints and Schedule: click a node for its "
              "part in every plan, right-click it to pin it (keep or recompute; the Pins menu does the same "
              "for the Node panel's node). Pareto front: click a point to add its plan as a row of its own, judged at "
              "the budget at hand.")
        << tr("Budget field: the text is the budget when Run is pressed, Enter or not (sizes with units, "
              "'least', or empty for none).");
  return lines.join(QLatin1Char('\n'));
}

QString MainWindow::aboutText() const {
  QStringList lines;
  lines << tr("Remat Studio %1").arg(QStringLiteral(REMAT_VERSION))
        << tr("Plans activation recomputation for training: which values to keep and which to recompute in "
              "the backward pass, so that a network fits its memory at the least cost in time. Every plan is "
              "judged by Remat's simulator.")
        << QString() << tr("Methods:");
  for (const std::string& id : solvers::SolverRegistry::builtin().ids()) {
    const solvers::Solver* solver = solvers::SolverRegistry::builtin().find(id);
    lines << QStringLiteral("%1: %2").arg(QString::fromStdString(id), QString::fromStdString(solver->info().citation));
  }
  return lines.join(QLatin1Char('\n'));
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(tr("&Open graph..."), this, &MainWindow::onOpen);
  open->setShortcut(QKeySequence::Open);
  m_recentMenu = file->addMenu(tr("Open &recent"));
  m_recentMenu->setEnabled(false);
  m_datasetMenu = file->addMenu(tr("Open &dataset"));
  m_datasetMenu->setEnabled(false);
  m_exportAction = file->addAction(tr("&Export figure..."), this, &MainWindow::onExport);
  m_exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  m_openPlanAction = file->addAction(tr("Open &plan..."), this, &MainWindow::onOpenPlan);
  m_openPlanAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  m_savePlanAction = file->addAction(tr("&Save plan..."), this, &MainWindow::onSavePlan);
  m_savePlanAction->setShortcut(QKeySequence::Save);
  file->addSeparator();
  file->addAction(tr("Open session..."), this, &MainWindow::onOpenSession);
  file->addAction(tr("Save session..."), this, &MainWindow::onSaveSession);
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);
  quit->setMenuRole(QAction::QuitRole);

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  QAction* find = edit->addAction(tr("&Find node..."), this, [this] {
    m_findNode->setFocus();
    m_findNode->selectAll();
  });
  find->setShortcut(QKeySequence::Find);
  m_copyMarkdown = edit->addAction(tr("Copy table as &Markdown"), this, &MainWindow::copyTableAsMarkdown);
  m_copyCsv = edit->addAction(tr("Copy table as &CSV"), this, &MainWindow::copyTableAsCsv);
  m_table->addAction(m_copyMarkdown);
  m_table->addAction(m_copyCsv);

  QMenu* solve = menuBar()->addMenu(tr("&Solve"));
  QAction* run = solve->addAction(tr("&Run"), this, &MainWindow::runSolvers);
  run->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  m_runAction = run;
  QAction* cancel = solve->addAction(tr("&Cancel"), this, &MainWindow::cancelSolvers);
  cancel->setShortcut(QKeySequence(Qt::Key_Escape));
  solve->addSeparator();
  QAction* pareto = solve->addAction(tr("Compute &Pareto front"), this, &MainWindow::computePareto);
  pareto->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
  m_paretoAction = pareto;
  QAction* batch = solve->addAction(tr("Largest &batch in the budget"), this, [this] { computeMaxBatch(); });
  batch->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
  m_batchAction = batch;
  batch->setToolTip(tr("The largest batch each checked solver fits in the budget field's memory, everything counted"));

  // The pins of the node the Node panel shows (a click on it, or Find node), as the views' context
  // menu offers them; filled each time it opens.
  m_pinMenu = menuBar()->addMenu(tr("&Pins"));
  m_pinMenu->setObjectName(QStringLiteral("pinMenu"));
  connect(m_pinMenu, &QMenu::aboutToShow, this, [this] {
    m_pinMenu->clear();
    if (m_graph && m_detailNode) {
      fillPinMenu(m_pinMenu, *m_detailNode);
    } else {
      m_pinMenu->addAction(tr("Click a node, or find one (Ctrl+F), to pin it"))->setEnabled(false);
      m_pinMenu->addSeparator();
      QAction* clear = m_pinMenu->addAction(tr("&Clear all pins"), this, &MainWindow::clearPins);
      clear->setEnabled(!m_pins.empty());
    }
  });
}

QMenu* MainWindow::nodeMenu(graph::NodeId node) {
  if (!m_nodeMenu) {
    m_nodeMenu = new QMenu(this);
    m_nodeMenu->setObjectName(QStringLiteral("nodeMenu"));
  }
  m_nodeMenu->clear();
  if (m_graph && node.value < m_graph->size()) fillPinMenu(m_nodeMenu, node);
  return m_nodeMenu;
}

void MainWindow::fillPinMenu(QMenu* menu, graph::NodeId node) {
  const QString name = QString::fromStdString(viz::displayName(m_graph->node(node).name));
  QAction* title = menu->addAction(name);
  title->setEnabled(false);
  menu->addSeparator();
  if (!m_graph->isOp(node)) {
    menu->addAction(tr("Inputs and parameters stay in memory: nothing to pin"))->setEnabled(false);
  } else {
    auto* group = new QActionGroup(title);  // goes with the menu's actions when it is cleared
    const Pin now = pinOf(node);
    auto add = [&](const QString& text, const QString& tip, const char* objectName, Pin pin) {
      QAction* action = menu->addAction(text);
      action->setObjectName(QString::fromLatin1(objectName));
      action->setToolTip(tip);
      action->setCheckable(true);
      action->setChecked(now == pin);
      group->addAction(action);
      connect(action, &QAction::triggered, this, [this, node, pin] { setPin(node, pin); });
    };
    add(tr("&Keep (never recompute)"), tr("Computed once, in the forward pass, and held until its backward"), "pinKeep",
        Pin::Keep);
    add(tr("&Recompute (never a checkpoint)"), tr("Never kept past its segment: recomputed for its backward"),
        "pinRecompute", Pin::Recompute);
    add(tr("&Not pinned"), tr("The solvers decide"), "pinNone", Pin::None);
  }
  menu->addSeparator();
  QAction* clear = menu->addAction(tr("&Clear all pins"), this, &MainWindow::clearPins);
  clear->setObjectName(QStringLiteral("clearPins"));
  clear->setEnabled(!m_pins.empty());
}

MainWindow::Pin MainWindow::pinOf(graph::NodeId node) const {
  if (!m_graph || node.value >= m_graph->size() || !m_graph->isOp(node)) return Pin::None;
  const graph::OpIndex op = m_graph->opIndex(node);
  if (std::find(m_pins.keep.begin(), m_pins.keep.end(), op) != m_pins.keep.end()) return Pin::Keep;
  if (std::find(m_pins.recompute.begin(), m_pins.recompute.end(), op) != m_pins.recompute.end()) return Pin::Recompute;
  return Pin::None;
}

bool MainWindow::setPin(graph::NodeId node, Pin pin) {
  if (!m_graph || node.value >= m_graph->size()) return false;
  const QString name = QString::fromStdString(m_graph->node(node).name);
  if (!m_graph->isOp(node)) {
    statusBar()->showMessage(
        tr("%1 is an input or a parameter: always in memory and never recomputed, so it cannot be pinned").arg(name),
        5000);
    return false;
  }
  if (pinOf(node) == pin) return true;
  const graph::OpIndex op = m_graph->opIndex(node);
  solvers::Pins pins = m_pins;
  std::erase(pins.keep, op);
  std::erase(pins.recompute, op);
  if (pin == Pin::Keep) pins.keep.push_back(op);
  if (pin == Pin::Recompute) pins.recompute.push_back(op);
  applyPins(std::move(pins));
  logMessage(pin == Pin::Keep        ? tr("Pinned %1: keep (never recomputed)").arg(name)
             : pin == Pin::Recompute ? tr("Pinned %1: recompute (never a checkpoint)").arg(name)
                                     : tr("Unpinned %1").arg(name));
  return true;
}

void MainWindow::clearPins() {
  if (m_pins.empty()) return;
  applyPins({});
  logMessage(tr("Cleared every pin"));
}

void MainWindow::applyPins(solvers::Pins pins) {
  // What was made under the old pins goes: the pinned rows, and the pinned fronts of the Pareto view.
  const bool hadPinnedFronts =
      m_doc.pareto() && std::any_of(m_doc.pareto()->series.begin(), m_doc.pareto()->series.end(),
                                    [](const auto& s) { return viz::pinnedSolver(s.solver).has_value(); });
  for (const std::string& label : m_doc.setPins(std::move(pins))) {
    m_model->removeRow(label);
    logMessage(tr("%1: dropped, made under other pins").arg(QString::fromStdString(label)));
  }
  if (hadPinnedFronts) {
    logMessage(tr("The pinned Pareto fronts were made under other pins: dropped (Ctrl+P computes them again)"));
    m_views[viz::FigureKind::Pareto]->invalidate();
  }
  pinsChanged();
  refreshViews();
}

void MainWindow::pinsChanged() {
  if (m_pins.empty()) {
    m_pinsLabel->setText(tr("none (right-click a node to pin it)"));
    m_pinsLabel->setToolTip(QString());
  } else {
    auto names = [this](const std::vector<graph::OpIndex>& ops) {
      QStringList out;
      for (graph::OpIndex op : ops)
        out << QString::fromStdString(viz::displayName(m_graph->node(m_graph->opNode(op)).name));
      return out;
    };
    const QStringList keep = names(m_pins.keep);
    const QStringList recompute = names(m_pins.recompute);
    QStringList parts;
    if (!keep.isEmpty())
      parts << tr("keep %1").arg(keep.size() <= 2 ? keep.join(QStringLiteral(", "))
                                                  : tr("%n node(s)", nullptr, static_cast<int>(keep.size())));
    if (!recompute.isEmpty())
      parts << tr("recompute %1")
                   .arg(recompute.size() <= 2 ? recompute.join(QStringLiteral(", "))
                                              : tr("%n node(s)", nullptr, static_cast<int>(recompute.size())));
    m_pinsLabel->setText(parts.join(QStringLiteral("; ")));
    m_pinsLabel->setToolTip(tr("Keep: %1\nRecompute: %2\nEach run also solves the solvers that honour these pins "
                               "under them, in rows of their own (\"· pinned\")")
                                .arg(keep.isEmpty() ? tr("none") : keep.join(QStringLiteral(", ")),
                                     recompute.isEmpty() ? tr("none") : recompute.join(QStringLiteral(", "))));
  }
  refreshNodeDetails();
  // The solvers re-plan under the new pins at once when the budget is live and they ran before.
  if (m_graph && !m_model->rows().empty() && m_liveBudget->isChecked()) m_scrubTimer->start();
}

QWidget* MainWindow::buildSolverPanel() {
  m_panel = new SolverPanel;
  // The window reads and sets these often; the panel owns them.
  m_strategy = m_panel->strategy();
  m_dpModel = m_panel->dpModel();
  m_costModel = m_panel->costModel();
  m_workspaceModel = m_panel->workspaceModel();
  m_timeLimit = m_panel->timeLimit();
  m_budget = m_panel->budget();
  m_liveBudget = m_panel->liveBudget();
  m_pinsLabel = m_panel->pins();
  m_runButton = m_panel->runButton();
  m_cancelButton = m_panel->cancelButton();

  connect(m_strategy, &QComboBox::currentIndexChanged, this, [this] {
    settingsChanged();
    if (m_graph && !m_model->rows().empty() && m_liveBudget->isChecked()) m_scrubTimer->start();
  });
  connect(m_dpModel, &QComboBox::currentIndexChanged, this, [this] {
    // The fronts and plans at hand were planned in the other model.
    stopFronts();
    m_fronts.clear();
    stopPareto();
    m_doc.clearPareto();
    if (m_views.contains(viz::FigureKind::Pareto)) m_views[viz::FigureKind::Pareto]->invalidate();
    settingsChanged();
    if (m_graph && !m_model->rows().empty() && m_liveBudget->isChecked()) m_scrubTimer->start();
  });
  connect(m_costModel, &QComboBox::currentIndexChanged, this, [this](int index) {
    reinstallUnder(m_costModel, m_appliedCostModel, index, tr("Cannot apply the cost model"));
  });
  connect(m_workspaceModel, &QComboBox::currentIndexChanged, this, [this](int index) {
    reinstallUnder(m_workspaceModel, m_appliedWorkspaceModel, index, tr("Cannot apply the workspace model"));
  });
  m_budget->field()->installEventFilter(this);
  m_scrubTimer = new QTimer(this);
  m_scrubTimer->setSingleShot(true);
  m_scrubTimer->setInterval(kScrubDelayMs);
  connect(m_scrubTimer, &QTimer::timeout, this, [this] {
    computeFronts();
    runSolvers();
  });
  connect(m_budget, &BudgetEditor::budgetChanged, this, &MainWindow::onBudgetChanged);
  connect(m_runButton, &QPushButton::clicked, this, &MainWindow::runSolvers);
  connect(m_cancelButton, &QPushButton::clicked, this, &MainWindow::cancelSolvers);
  return m_panel;
}

vizqt::SceneView* MainWindow::view(viz::FigureKind kind) const {
  const auto it = m_views.find(kind);
  return it == m_views.end() ? nullptr : it->second;
}

QProgressBar* MainWindow::progressBar(const std::string& id) const { return m_panel->progressBar(id); }

bool MainWindow::setSolverChecked(const std::string& id, bool checked) { return m_panel->setChecked(id, checked); }

std::vector<std::string> MainWindow::checkedSolvers() const { return m_panel->checkedSolvers(); }

void MainWindow::setDpModel(solvers::DpModelKind model) {
  m_dpModel->setCurrentIndex(m_dpModel->findData(static_cast<int>(model)));
}

solvers::DpModelKind MainWindow::dpModel() const {
  return static_cast<solvers::DpModelKind>(m_dpModel->currentData().toInt());
}

void MainWindow::setStrategy(solvers::Strategy strategy) {
  m_strategy->setCurrentIndex(m_strategy->findData(static_cast<int>(strategy)));
}

void MainWindow::reportError(const QString& title, const QString& text) {
  m_lastError = text;
  logMessage(title + QStringLiteral(": ") + text);
  statusBar()->showMessage(title, 5000);
  if (m_interactive) QMessageBox::critical(this, title, text);
}

void MainWindow::logMessage(const QString& text) { m_log->appendPlainText(text); }

bool MainWindow::openFile(const QString& path) {
  try {
    return openRead(path, io::readGraphFile(path.toStdString()));
  } catch (const std::exception& e) {
    reportError(tr("Cannot open %1").arg(QFileInfo(path).fileName()), QString::fromUtf8(e.what()));
    return false;
  }
}

void MainWindow::openFileInBackground(const QString& path) {
  cancelOpen();
  m_opening = true;
  m_openPath = path;
  m_openStarted = std::chrono::steady_clock::now();
  statusBar()->showMessage(tr("Reading %1... (Esc cancels)").arg(QFileInfo(path).fileName()));
  m_openTicker->start();
  updateActions();
  // A read cannot stop half way: a cancel drops its answer, the file read to the end on the job.
  auto ended = [this] {
    m_opening = false;
    m_openTicker->stop();
    statusBar()->clearMessage();
  };
  m_jobs->start(kImportJob,
                [path](std::stop_token, const JobProgress&) { return io::readGraphFile(path.toStdString()); },
                {.progress = {},
                 .done =
                     [this, path, ended](Result<graph::ComputeGraph> read) {
                       ended();
                       bool opened = false;
                       try {
                         opened = openRead(path, std::move(read));
                       } catch (const std::exception& e) {
                         reportError(tr("Cannot open %1").arg(QFileInfo(path).fileName()), QString::fromUtf8(e.what()));
                       }
                       updateActions();
                       emit fileOpened(opened);
                     },
                 .failed =
                     [this, path, ended](const QString& error) {
                       ended();
                       reportError(tr("Cannot open %1").arg(QFileInfo(path).fileName()), error);
                       updateActions();
                       emit fileOpened(false);
                     }});
}

bool MainWindow::computeMaxBatch(std::int64_t baseBatch) {
  const QString title = tr("No largest batch");
  try {
    if (!m_graph) {
      reportError(title, tr("Open a graph first (File > Open)."));
      return false;
    }
    std::vector<const solvers::Solver*> chosen;
    for (const auto& id : checkedSolvers()) chosen.push_back(solvers::SolverRegistry::builtin().find(id));
    if (chosen.empty()) {
      reportError(title, tr("Check at least one solver."));
      return false;
    }
    if (!m_budget->commit() || m_budget->budget().kind != BudgetChoice::Kind::Fixed) {
      m_budget->field()->setFocus();
      reportError(title, m_budget->errorText().isEmpty()
                             ? tr("Set the budget to the device's memory in bytes (e.g. 80GiB): the largest batch "
                                  "fits in it.")
                             : m_budget->errorText());
      return false;
    }
    if (baseBatch <= 0) {
      if (const auto inferred = graph::inferBatchSize(*m_graph)) {
        baseBatch = *inferred;
      } else if (m_interactive) {
        bool ok = false;
        baseBatch = QInputDialog::getInt(this, tr("Largest batch"),
                                         tr("The graph does not state its batch size. The batch it was built for:"), 1,
                                         1, std::numeric_limits<int>::max(), 1, &ok);
        if (!ok) return false;
      } else {
        reportError(title, tr("The graph does not state its batch size (no input shapes): give it."));
        return false;
      }
    }
    // A new job replaces the one running.
    m_batchRunning = true;
    m_batchAnswers.clear();
    const Bytes memory = m_budget->budget().bytes;
    logMessage(tr("Largest batch in %1 (%2 bytes), from batch %3")
                   .arg(QString::fromStdString(formatByteSize(memory)))
                   .arg(memory.value)
                   .arg(baseBatch));
    statusBar()->showMessage(tr("Finding the largest batch... (Esc cancels)"));
    updateActions();
    auto work = [graph = m_graph, chosen, baseBatch, memory, model = dpModel()](std::stop_token stop,
                                                                                const JobProgress& report) {
      std::vector<BatchAnswer> answers;
      ProgressGate gate;
      for (std::size_t k = 0; k < chosen.size() && !stop.stop_requested(); ++k) {
        const std::string id = chosen[k]->info().id;
        auto progress = [&, k](double f, std::string_view stage) {
          const double fraction = (double(k) + std::clamp(f, 0.0, 1.0)) / double(chosen.size());
          const std::string what = id + ": " + std::string(stage);
          if (stop.stop_requested() || !gate.due(fraction, what)) return;
          report(fraction, what);
        };
        progress(0.0, "starting");
        BatchAnswer answer{id, solvers::CallStatus::Error, solvers::SolveStatus::NotSolved, 0, {}};
        try {
          const solvers::MaxBatchResult r =
              solvers::maxBatch(*chosen[k], *graph, baseBatch, memory, stop, progress, model);
          answer.call = r.call;
          answer.status = r.status;
          answer.batch = r.batch;
          answer.message = r.message;
        } catch (const std::exception& e) {
          answer.message = e.what();
        }
        answers.push_back(std::move(answer));
      }
      return answers;
    };
    m_jobs->start(
        kMaxBatchJob, std::move(work),
        {.progress =
             [this](double fraction, const QString& text) {
               statusBar()->showMessage(
                   tr("Largest batch: %1, %2% (Esc cancels)").arg(text).arg(std::lround(100 * fraction)));
               emit maxBatchProgressed(fraction, text);
             },
         .done =
             [this, memory](std::vector<BatchAnswer> answers) {
               m_batchRunning = false;
               m_batchAnswers = std::move(answers);
               for (const BatchAnswer& a : m_batchAnswers) {
                 const QString solver = QString::fromStdString(a.solver);
                 if (a.call == solvers::CallStatus::Error)
                   logMessage(tr("%1: error: %2").arg(solver, QString::fromStdString(a.message)));
                 else if (a.batch > 0)
                   logMessage(tr("%1: largest batch %2 in %3")
                                  .arg(solver)
                                  .arg(a.batch)
                                  .arg(QString::fromStdString(formatByteSize(memory))));
                 else
                   logMessage(tr("%1: no batch fits (%2: %3)")
                                  .arg(solver, qstr(solvers::statusName(a.status)), QString::fromStdString(a.message)));
               }
               showBatchAnswers(memory);
               statusBar()->showMessage(tr("Largest batch: see its table"), 5000);
               updateActions();
               emit maxBatchFinished();
             },
         .failed =
             [this, title](const QString& error) {
               m_batchRunning = false;
               reportError(title, error);
               updateActions();
             }});
    return true;
  } catch (const std::exception& e) {
    m_batchRunning = false;
    reportError(title, QString::fromUtf8(e.what()));
    return false;
  }
}

void MainWindow::showBatchAnswers(Bytes memory) {
  m_batchTable->setRowCount(static_cast<int>(m_batchAnswers.size()));
  m_batchDock->setWindowTitle(tr("Largest batch in %1").arg(QString::fromStdString(formatByteSize(memory))));
  for (std::size_t k = 0; k < m_batchAnswers.size(); ++k) {
    const BatchAnswer& a = m_batchAnswers[k];
    const int row = static_cast<int>(k);
    auto* batch = new QTableWidgetItem;
    // A number to sort by; none when no batch fits or the solver could not answer.
    if (a.call == solvers::CallStatus::Ok && a.batch > 0)
      batch->setData(Qt::DisplayRole, QVariant::fromValue(a.batch));
    else
      batch->setText(QStringLiteral("-"));
    batch->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_batchTable->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(a.solver)));
    m_batchTable->setItem(row, 1, batch);
    m_batchTable->setItem(
        row, 2,
        new QTableWidgetItem(a.call == solvers::CallStatus::Error ? tr("error") : qstr(solvers::statusName(a.status))));
    auto* why = new QTableWidgetItem(QString::fromStdString(a.message));
    why->setToolTip(QString::fromStdString(a.message));
    m_batchTable->setItem(row, 3, why);
  }
  m_batchTable->resizeColumnsToContents();
  m_batchDock->show();
  m_batchDock->raise();
}

bool MainWindow::cancelOpen() {
  if (!m_opening) return false;
  m_jobs->cancel(kImportJob);  // the read goes on to its end on the job; its answer is dropped
  m_opening = false;
  m_openTicker->stop();
  statusBar()->showMessage(tr("Stopped reading %1: the open graph is unchanged").arg(QFileInfo(m_openPath).fileName()),
                           5000);
  updateActions();
  return true;
}

bool MainWindow::openRead(const QString& path, Result<graph::ComputeGraph> read) {
  try {
    if (!read.ok()) {
      reportError(tr("Cannot open %1").arg(QFileInfo(path).fileName()), QString::fromStdString(read.errorText()));
      return false;
    }
    QStringList warnings;
    for (const auto& w : read.warnings()) warnings << QString::fromStdString(w.toString());
    return installGraph(std::make_shared<const graph::ComputeGraph>(std::move(read).value()), path, warnings);
  } catch (const std::exception& e) {
    reportError(tr("Cannot open %1").arg(QFileInfo(path).fileName()), QString::fromUtf8(e.what()));
    return false;
  }
}

bool MainWindow::installGraph(std::shared_ptr<const graph::ComputeGraph> raw, const QString& path,
                              const QStringList& warnings) {
  const QString title = tr("Cannot open %1").arg(QFileInfo(path).fileName());
  auto costed = graph::applyCostModel(*raw, m_costModel->currentText().toStdString());
  if (!costed.ok()) {
    reportError(title, QString::fromStdString(costed.errorText()));
    return false;
  }
  auto withWorkspace = graph::applyWorkspaceModel(costed.value(), m_workspaceModel->currentText().toStdString());
  if (!withWorkspace.ok()) {
    reportError(title, QString::fromStdString(withWorkspace.errorText()));
    return false;
  }
  auto g = std::make_shared<const graph::ComputeGraph>(std::move(withWorkspace).value());
  // The plain run is the timeline's baseline and the budget slider's full scale.
  solvers::SolveResult vanilla = solvers::SolverRegistry::builtin().plainRun().solve({.graph = g.get()});
  if (!vanilla.plan) {
    reportError(title, tr("the plain run does not simulate: %1").arg(QString::fromStdString(vanilla.message)));
    return false;
  }
  m_runner->abandon();
  m_scrubTimer->stop();
  stopPareto();
  m_nodeDetails->clear();
  m_detailNode.reset();
  // A new graph starts with fitted views and an empty search, not the last graph's zoom and query.
  m_findNode->clear();
  for (auto& [kind, view] : m_views) view->resetView();
  {
    // The search box completes the new graph's node names (any part of them, any case).
    QStringList names;
    names.reserve(static_cast<qsizetype>(g->size()));
    for (const graph::Node& node : g->nodes()) names << QString::fromStdString(node.name);
    auto* completer = new QCompleter(names, m_findNode);
    completer->setCaseSensitivity(Qt::CaseInsensitive);
    completer->setFilterMode(Qt::MatchContains);
    completer->setMaxVisibleItems(12);
    delete m_findNode->completer();
    m_findNode->setCompleter(completer);
  }
  stopFronts();
  m_fronts.clear();
  m_rawGraph = std::move(raw);
  // Pins are by op index: they belong to the graph they were made on, and go with it.
  m_doc.setGraph(std::move(g), std::move(vanilla));
  m_runSettings.reset();
  m_model->setStale(false);
  m_path = path;
  rememberRecent(path);
  m_importWarnings = warnings;
  m_model->clear();
  pinsChanged();
  m_panel->resetProgress();
  m_budget->setBudget({});
  m_budget->setVanillaPeak(m_vanilla->metrics.simulatedPeak);
  m_model->setPlainRun(m_vanilla->metrics.simulatedPeak, m_vanilla->metrics.totalTime,
                       QString::fromStdString(m_graph->timeUnit()));
  m_lastError.clear();

  const QString summary = tr("%1: %2 operations, plain-run peak %3, times: %4, workspace: %5")
                              .arg(QString::fromStdString(m_graph->name()))
                              .arg(m_graph->opCount())
                              .arg(QString::fromStdString(formatByteSize(m_vanilla->metrics.simulatedPeak)),
                                   m_costModel->currentText(), m_workspaceModel->currentText());
  m_graphLabel->setText(summary);
  setWindowTitle(tr("%1 - Remat Studio").arg(QFileInfo(path).fileName()));
  logMessage(tr("Opened %1 (%2)").arg(path, summary));
  for (const QString& w : m_importWarnings) logMessage(tr("warning: %1").arg(w));
  statusBar()->showMessage(m_importWarnings.isEmpty() ? tr("Opened %1").arg(QFileInfo(path).fileName())
                                                      : tr("Opened %1 with %n import warning(s); see Messages", nullptr,
                                                           static_cast<int>(m_importWarnings.size()))
                                                            .arg(QFileInfo(path).fileName()),
                           8000);
  refreshViews();
  updateActions();
  return true;
}

void MainWindow::reinstallUnder(QComboBox* combo, int& applied, int index, const QString& errorTitle) {
  bool installed = true;
  try {
    installed = !m_rawGraph || installGraph(m_rawGraph, m_path, m_importWarnings);
  } catch (const std::exception& e) {
    reportError(errorTitle, QString::fromUtf8(e.what()));
    installed = false;
  }
  if (!installed) {
    // The open graph keeps what it has, so the combo goes back to the model it came from.
    const QSignalBlocker block(combo);
    combo->setCurrentIndex(applied);
    return;
  }
  applied = index;
}

bool MainWindow::selectModel(QComboBox* combo, const QString& model, const QString& kind) {
  const int index = combo->findText(model);
  if (index < 0) {
    reportError(tr("Unknown %1").arg(kind), tr("'%1' is not a %2").arg(model, kind));
    return false;
  }
  m_lastError.clear();
  combo->setCurrentIndex(index);  // re-applies through the combo's signal
  return m_lastError.isEmpty();
}

bool MainWindow::setCostModel(const QString& model) { return selectModel(m_costModel, model, tr("cost model")); }

QString MainWindow::costModel() const { return m_costModel->currentText(); }

bool MainWindow::setWorkspaceModel(const QString& model) {
  return selectModel(m_workspaceModel, model, tr("workspace model"));
}

QString MainWindow::workspaceModel() const { return m_workspaceModel->currentText(); }

void MainWindow::setTimeLimit(double seconds) { m_timeLimit->setValue(seconds); }

void MainWindow::copyTableAsMarkdown() {
  QApplication::clipboard()->setText(m_model->toMarkdown());
  statusBar()->showMessage(tr("Copied the table as Markdown"), 3000);
}

void MainWindow::copyTableAsCsv() {
  QApplication::clipboard()->setText(m_model->toCsv());
  statusBar()->showMessage(tr("Copied the table as CSV"), 3000);
}

solvers::Strategy MainWindow::strategy() const {
  return static_cast<solvers::Strategy>(m_strategy->currentData().toInt());
}

double MainWindow::timeLimit() const { return m_timeLimit->value(); }

bool MainWindow::saveSession(const QString& givenPath) {
  // A name typed without an extension gets the sessions' own, so that the file dialog offers it again.
  const QString path =
      QFileInfo(givenPath).suffix().isEmpty() ? givenPath + QStringLiteral(".remat-session.json") : givenPath;
  if (!m_graph) {
    reportError(tr("Cannot save the session"), tr("Open a graph first (File > Open)."));
    return false;
  }
  Session session;
  session.graph = QFileInfo(m_path).absoluteFilePath();
  session.costModel = m_costModel->currentText().toStdString();
  session.workspace = m_workspaceModel->currentText().toStdString();
  session.solvers = checkedSolvers();
  session.strategy = strategy();
  session.model = dpModel();
  session.budget = m_budget->budget();  // exact bytes, not the field's rounded text
  session.timeLimitSeconds = m_timeLimit->value();
  // By name, as a pins file has them (solvers::readPinNames), so that they survive a re-export.
  for (graph::OpIndex op : m_pins.keep) session.keep.push_back(m_graph->node(m_graph->opNode(op)).name);
  for (graph::OpIndex op : m_pins.recompute) session.recompute.push_back(m_graph->node(m_graph->opNode(op)).name);
  if (const auto error = writeSession(path, session, {QFile::encodeName(m_path).toStdString()})) {
    reportError(tr("Cannot save the session"), QString::fromStdString(error->message));
    return false;
  }
  statusBar()->showMessage(tr("Wrote %1").arg(path), 5000);
  return true;
}

bool MainWindow::openSession(const QString& path) {
  const QString title = tr("Cannot open session %1").arg(QFileInfo(path).fileName());
  auto read = readSession(path);
  if (!read.ok()) {
    reportError(title, QString::fromStdString(read.errorText()));
    return false;
  }
  const Session& s = read.value();
  const int costModel = m_costModel->findText(QString::fromStdString(s.costModel));
  const int workspaceModel = m_workspaceModel->findText(QString::fromStdString(s.workspace));
  if (costModel < 0 || workspaceModel < 0 || s.timeLimitSeconds > m_timeLimit->maximum()) {
    reportError(title, tr("%1: settings this Studio does not offer").arg(path));
    return false;
  }

  // The cost and workspace models first, so that the graph is opened under them once.
  const int previousModel = m_appliedCostModel;
  const int previousWorkspace = m_appliedWorkspaceModel;
  {
    const QSignalBlocker block(m_costModel);
    const QSignalBlocker blockWorkspace(m_workspaceModel);
    m_costModel->setCurrentIndex(costModel);
    m_workspaceModel->setCurrentIndex(workspaceModel);
  }
  if (!openFile(s.graph)) {
    const QSignalBlocker block(m_costModel);
    const QSignalBlocker blockWorkspace(m_workspaceModel);
    m_costModel->setCurrentIndex(previousModel);
    m_workspaceModel->setCurrentIndex(previousWorkspace);
    return false;
  }
  m_appliedCostModel = costModel;
  m_appliedWorkspaceModel = workspaceModel;
  if (!s.keep.empty() || !s.recompute.empty()) {
    auto pins = solvers::pinsFromNames(*m_graph, s.keep, s.recompute, SourceLocation{path.toStdString(), 0, "/pins"});
    if (!pins.ok()) {
      reportError(title, tr("%1: %2").arg(path, QString::fromStdString(pins.errorText())));
      return false;
    }
    applyPins(std::move(pins).value());
  }
  for (const auto& [id, item] : m_panel->solverItems()) setSolverChecked(id, false);
  for (const auto& id : s.solvers) setSolverChecked(id, true);
  setStrategy(s.strategy);
  setDpModel(s.model);
  m_budget->setBudget(s.budget);
  m_timeLimit->setValue(s.timeLimitSeconds);
  logMessage(tr("Opened session %1").arg(path));
  return true;
}

void MainWindow::onOpenSession() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open session"), QString(),
                                                    tr("Remat Studio sessions (*.remat-session.json *.json)"));
  if (!path.isEmpty()) openSession(path);
}

void MainWindow::onSaveSession() {
  if (!m_graph) return;
  const QString suggested = QFileInfo(m_path).completeBaseName() + QStringLiteral(".remat-session.json");
  const QString path = QFileDialog::getSaveFileName(this, tr("Save session"), suggested,
                                                    tr("Remat Studio sessions (*.remat-session.json *.json)"));
  if (!path.isEmpty()) saveSession(path);
}

namespace {
const QString kRecentKey = QStringLiteral("recentFiles");
}  // namespace

void MainWindow::useSettings(std::unique_ptr<QSettings> settings) {
  m_settings = std::move(settings);
  m_recent.clear();
  if (m_settings) m_recent = m_settings->value(kRecentKey).toStringList().mid(0, kMaxRecentFiles);
  showRecent();
}

void MainWindow::rememberRecent(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  m_recent.removeAll(absolute);
  m_recent.prepend(absolute);
  while (m_recent.size() > kMaxRecentFiles) m_recent.removeLast();
  if (m_settings) m_settings->setValue(kRecentKey, m_recent);
  showRecent();
}

void MainWindow::showRecent() {
  m_recentMenu->clear();
  for (int k = 0; k < m_recent.size(); ++k) {
    const QString path = m_recent.at(k);
    QAction* action = m_recentMenu->addAction(QStringLiteral("&%1 %2").arg(k + 1).arg(QFileInfo(path).fileName()), this,
                                              [this, path] { openFileInBackground(path); });
    action->setToolTip(path);
    action->setData(path);
  }
  m_recentMenu->setEnabled(!m_recent.isEmpty());
}

void MainWindow::setDatasetDirectory(const QString& dir) {
  m_datasetMenu->clear();
  // The folder's graphs: native, Checkmate and PFN files and ONNX models; its manifest is no graph.
  const QFileInfoList files =
      QDir(dir).entryInfoList({QStringLiteral("*.json"), QStringLiteral("*.txt"), QStringLiteral("*.onnx")},
                              QDir::Files | QDir::Readable, QDir::Name);
  for (const QFileInfo& file : files) {
    if (file.fileName() == QStringLiteral("manifest.json")) continue;
    const QString path = file.absoluteFilePath();
    QAction* action =
        m_datasetMenu->addAction(file.completeBaseName(), this, [this, path] { openFileInBackground(path); });
    action->setData(path);
    action->setToolTip(path);
  }
  m_datasetMenu->setEnabled(!m_datasetMenu->actions().isEmpty());
}

QStringList MainWindow::datasetFiles() const {
  QStringList out;
  for (const QAction* action : m_datasetMenu->actions()) out << action->data().toString();
  return out;
}

bool MainWindow::openPlan(const QString& path) {
  const QString title = tr("Cannot open plan %1").arg(QFileInfo(path).fileName());
  try {
    if (!m_graph) {
      reportError(title, tr("open a graph first: a plan is read onto the graph it was made for"));
      return false;
    }
    auto read = io::readPlanFile(path.toStdString(), *m_graph);
    if (!read.ok()) {
      reportError(title, QString::fromStdString(read.errorText()));
      return false;
    }
    io::LoadedPlan loaded = std::move(read).value();
    const std::string label =
        QFileInfo(path).fileName().toStdString() + (loaded.solver.empty() ? "" : " (" + loaded.solver + ")");
    // Judged before it joins the table: readPlanFile simulated it, so only a time that cannot be
    // counted is left to refuse.
    const solvers::SolveResult judged = m_doc.addPlan(label, std::move(loaded.plan), StudioDocument::Origin::PlanFile);
    if (!judged.plan) {
      reportError(title, QString::fromStdString(judged.message));
      return false;
    }
    m_model->setResult(judged);
    selectSolver(label);
    logMessage(tr("Opened plan %1: %2, simulated peak %3, overhead %4 %5")
                   .arg(QString::fromStdString(label), qstr(solvers::outcomeName(judged)),
                        QString::fromStdString(formatByteSize(judged.metrics.simulatedPeak)))
                   .arg(judged.metrics.overhead.value)
                   .arg(QString::fromStdString(m_graph->timeUnit())));
    refreshViews();
    return true;
  } catch (const std::exception& e) {
    reportError(title, QString::fromUtf8(e.what()));
    return false;
  }
}

void MainWindow::onOpenPlan() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open plan"),
                                                    m_path.isEmpty() ? QString() : QFileInfo(m_path).absolutePath(),
                                                    tr("Plans (*.json);;All files (*)"));
  if (!path.isEmpty()) openPlan(path);
}

void MainWindow::onOpen() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open graph"),
                                                    m_path.isEmpty() ? QString() : QFileInfo(m_path).absolutePath(),
                                                    tr("Graphs (*.json *.txt *.onnx);;All files (*)"));
  if (!path.isEmpty()) openFileInBackground(path);
}

viz::FigureResult MainWindow::buildView(viz::FigureKind kind, double width, double height,
                                        const viz::Theme& theme) const {
  return prepareView(kind, width, height, theme)();
}

std::optional<viz::FigureRequest> MainWindow::figureRequest(viz::FigureKind kind, std::string& why) const {
  if (!m_graph) {
    why = tr("Open a graph: File > Open (Ctrl+O), or drop a graph file on the window.").toStdString();
    return std::nullopt;
  }
  viz::FigureRequest request;
  request.kind = kind;
  request.graph = m_graph.get();
  if (kind == viz::FigureKind::Timeline) {
    if (m_timelineByCategory->isChecked()) {
      if (auto plan = focusedPlan()) request.plans.push_back(std::move(*plan));
    } else {
      request.plans = allPlans();
    }
    request.budget = m_doc.budget();
    request.timelineAxis = timelineOverTime() ? viz::TimelineAxis::Time : viz::TimelineAxis::Steps;
  } else if (kind == viz::FigureKind::Pareto) {
    if (!m_pareto && m_paretoRunning) {
      why = tr("Computing the Pareto fronts: %1, %2% done (Esc cancels)")
                .arg(m_paretoStage)
                .arg(std::lround(100 * m_paretoFraction))
                .toStdString();
      return std::nullopt;
    }
    if (!m_pareto) {
      why =
          tr("No Pareto front yet: check the solvers and choose Solve > Compute Pareto front (Ctrl+P).").toStdString();
      return std::nullopt;
    }
    request.pareto = *m_pareto;
    // Where the budget in the field falls among the fronts (it moves with the slider).
    if (const BudgetChoice& budget = m_budget->budget(); budget.kind == BudgetChoice::Kind::Fixed)
      request.budget = budget.bytes;
  } else if (auto plan = focusedPlan()) {
    request.plans.push_back(std::move(*plan));
  }
  if (kind == viz::FigureKind::Graph || kind == viz::FigureKind::Schedule) {
    // The user's marks: the pins, and the node found or clicked (the Node panel's).
    request.pins = m_pins;
    request.found = m_detailNode;
  }
  return request;
}

std::function<viz::FigureResult()> MainWindow::prepareView(viz::FigureKind kind, double width, double height,
                                                           const viz::Theme& theme, double maxZoom) const {
  using Result = viz::FigureResult;
  try {
    std::string why;
    std::optional<viz::FigureRequest> request = figureRequest(kind, why);
    if (!request) return [why] { return Result{std::nullopt, why}; };
    viz::FigureStyle style;
    style.width = width;
    style.height = height;
    style.theme = theme;
    style.maxZoom = maxZoom;
    auto metrics = theme.kind == viz::ThemeKind::Paper ? m_paperMetrics : m_screenMetrics;
    // The work owns its copies: the request's plans (their simulations shared, never run again), the
    // graph (kept alive by the shared pointer) and the metrics.
    return [request = std::move(*request), style, metrics = std::move(metrics), graph = m_graph]() mutable {
      try {
        style.metrics = metrics.get();
        return viz::buildFigure(request, style);
      } catch (const std::exception& e) {
        return Result{std::nullopt, e.what()};
      }
    };
  } catch (const std::exception& e) {
    return [message = std::string(e.what())] { return Result{std::nullopt, message}; };
  }
}

const solvers::SolveResult* MainWindow::focusedResult() const {
  const QModelIndex current = m_sorted->mapToSource(m_table->selectionModel()->currentIndex());
  if (current.isValid() && current.row() < m_model->rowCount()) {
    const std::string& id = m_model->rows()[static_cast<std::size_t>(current.row())].solver;
    if (const solvers::SolveResult* r = m_doc.result(id)) return r;
  }
  // Nothing selected: the winner's plan, as `remat compare` draws it.
  if (const auto best = m_model->bestRow())
    if (const solvers::SolveResult* r = m_doc.result(m_model->rows()[static_cast<std::size_t>(*best)].solver)) return r;
  for (const auto& row : m_model->rows())
    if (const solvers::SolveResult* r = m_doc.result(row.solver)) return r;
  if (m_vanilla && m_vanilla->plan) return &*m_vanilla;
  return nullptr;
}

bool MainWindow::selectSolver(const std::string& id) {
  const auto row = m_model->rowOf(id);
  if (!row) return false;
  const QModelIndex shown = m_sorted->mapFromSource(m_model->index(*row, 0));
  m_table->selectionModel()->setCurrentIndex(shown, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  m_table->scrollTo(shown);
  return true;
}

QString MainWindow::planTitle() const { return m_planTitle->text(); }

bool MainWindow::timelineOverTime() const { return m_timeAxis->isChecked(); }

void MainWindow::setTimelineOverTime(bool overTime) { m_timeAxis->setChecked(overTime); }

void MainWindow::setTimelineByCategory(bool byCategory) { m_timelineByCategory->setChecked(byCategory); }

QString MainWindow::staleText() const {
  if (!m_runSettings || m_model->rows().empty()) return {};
  QStringList changed;
  if (m_runSettings->strategy != strategy())
    changed << tr("strategy %1").arg(qstr(solvers::strategyName(m_runSettings->strategy)));
  if (m_runSettings->model != dpModel())
    changed << tr("DP model %1").arg(qstr(solvers::dpModelName(m_runSettings->model)));
  if (changed.isEmpty()) return {};
  return tr("the rows were made under %1, not the panel's: Run (Ctrl+R) to update").arg(changed.join(tr(" and ")));
}

void MainWindow::settingsChanged() {
  // Rows made under other settings are shown as such (greyed, and said in the title) until the next run.
  m_model->setStale(!staleText().isEmpty());
  updatePlanTitle();
}

void MainWindow::updatePlanTitle() {
  const solvers::SolveResult* r = m_graph ? focusedResult() : nullptr;
  if (!r) {
    m_planTitle->setText(m_graph ? tr("Plan views: run the solvers to see a plan") : QString());
    return;
  }
  if (m_vanilla && r == &*m_vanilla) {
    m_planTitle->setText(tr("Plan views: the plain run (store-all, no budget)"));
    return;
  }
  const auto best = m_model->bestRow();
  const bool winner = best && m_model->rows()[static_cast<std::size_t>(*best)].solver == r->solver;
  // The budget at hand, as every row is judged at it; in least mode each row's own least budget.
  const QString budget = m_doc.leastBudgets()
                             ? tr("its least budget %1, each solver at its own (the winner: the lowest peak)")
                                   .arg(r->budget ? QString::fromStdString(formatByteSize(*r->budget)) : tr("none"))
                         : m_doc.budget() ? tr("budget %1").arg(QString::fromStdString(formatByteSize(*m_doc.budget())))
                                          : tr("no budget");
  const bool fits = solvers::fitsBudget(*r);
  if (const QString stale = staleText(); !stale.isEmpty()) {
    m_planTitle->setText(tr("Plan views: %1 \u2014 %2").arg(QString::fromStdString(r->solver), stale));
    return;
  }
  m_planTitle->setText(tr("Plan views: %1, %2%3%4; %5; strategy %6; simulated peak %7, overhead %8 %9")
                           .arg(QString::fromStdString(r->solver), qstr(solvers::outcomeName(*r)),
                                winner ? tr(" (the winner)") : QString(),
                                r->plan && !fits ? tr(", does not fit") : QString(), budget,
                                qstr(solvers::strategyName(r->strategy)),
                                QString::fromStdString(formatByteSize(r->metrics.simulatedPeak)))
                           .arg(r->metrics.overhead.value)
                           .arg(QString::fromStdString(m_graph->timeUnit())));
}

std::string MainWindow::focusedSolver() const {
  const solvers::SolveResult* r = focusedResult();
  return r ? r->solver : std::string();
}

std::optional<viz::LabeledPlan> MainWindow::focusedPlan() const {
  const solvers::SolveResult* r = focusedResult();
  if (!r) return std::nullopt;
  if (m_doc.vanilla() && r == &*m_doc.vanilla()) return m_doc.plainPlan();
  return m_doc.plan(r->solver);
}

bool MainWindow::savePlan(const QString& path) {
  try {
    const solvers::SolveResult* r = m_graph ? focusedResult() : nullptr;
    if (!r) {
      reportError(tr("Cannot save the plan"), tr("There is no plan: open a graph and run a solver."));
      return false;
    }
    if (const QString error = writeOutput(path, io::writePlanJson(*m_graph, *r), m_path); !error.isEmpty()) {
      reportError(tr("Cannot save the plan"), error);
      return false;
    }
    statusBar()->showMessage(tr("Wrote %1").arg(path), 5000);
    logMessage(tr("Wrote the %1 plan to %2").arg(QString::fromStdString(r->solver), path));
    return true;
  } catch (const std::exception& e) {
    reportError(tr("Cannot save the plan"), QString::fromUtf8(e.what()));
    return false;
  }
}

void MainWindow::onSavePlan() {
  if (!m_graph) return;
  const QString suggested = QFileInfo(m_path).completeBaseName() + QLatin1Char('-') +
                            QString::fromStdString(focusedSolver()) + QStringLiteral(".plan.json");
  const QString path = QFileDialog::getSaveFileName(this, tr("Save plan"), suggested, tr("Plan JSON (*.json)"));
  if (!path.isEmpty()) savePlan(path);
}

void MainWindow::refreshViews() {
  for (auto& [kind, view] : m_views) view->invalidate();
  refreshNodeDetails();
}

vizqt::FigureOptions MainWindow::defaultExportOptions() {
  vizqt::FigureOptions o;
  const auto column = vizqt::figureSizeFromName("column");
  o.width = column->width;
  o.height = column->height;
  o.fontSize = 9;
  o.theme = "paper";
  o.dpi = 300;
  return o;
}

viz::FigureKind MainWindow::currentFigure() const {
  for (const auto& [kind, view] : m_views)
    if (view == m_tabs->currentWidget()) return kind;
  return viz::FigureKind::Timeline;
}

QString MainWindow::exportFigure(viz::FigureKind kind, const QString& path, const vizqt::FigureOptions& options) {
  try {
    const auto format = vizqt::formatFromPath(path.toStdString());
    if (!format) return tr("cannot tell the format of '%1': use .pdf, .svg or .png").arg(path);
    std::string why;
    const std::optional<viz::FigureRequest> request = figureRequest(kind, why);
    if (!request) return QString::fromStdString(why);
    // What `remat render` does with the same options: the same style, figure and encoding.
    const vizqt::PreparedStyle style = vizqt::prepareStyle(options);
    for (const auto& w : style.warnings) logMessage(tr("warning: %1").arg(QString::fromStdString(w)));
    const vizqt::EncodedFigure figure = vizqt::encodeFigure(*request, style, *format, options.dpi);
    for (const auto& w : figure.warnings) logMessage(tr("warning: %1").arg(QString::fromStdString(w)));
    if (!figure.error.empty()) return QString::fromStdString(figure.error);
    if (QString error = writeOutput(path, figure.bytes, m_path); !error.isEmpty()) return error;
    statusBar()->showMessage(tr("Wrote %1").arg(path), 5000);
    logMessage(tr("Wrote %1").arg(path));
    return {};
  } catch (const std::exception& e) {
    return QString::fromUtf8(e.what());
  }
}

bool MainWindow::exportCurrentView(const QString& path, const vizqt::FigureOptions& options) {
  const QString error = exportFigure(currentFigure(), path, options);
  if (error.isEmpty()) return true;
  reportError(tr("Cannot export"), error);
  return false;
}

ExportDialog* MainWindow::openExportDialog() {
  if (!m_graph) return nullptr;
  const viz::FigureKind kind = currentFigure();
  const QString figure = m_tabs->tabText(m_tabs->currentIndex());
  const QString suggested = QFileInfo(m_path).absoluteDir().filePath(
      QFileInfo(m_path).completeBaseName() + QLatin1Char('-') + QString::fromUtf8(viz::figureName(kind).data()) +
      QStringLiteral(".pdf"));
  delete m_exportDialog;
  m_exportDialog = new ExportDialog(
      figure, suggested,
      [this, kind](const QString& path, const vizqt::FigureOptions& options) {
        return exportFigure(kind, path, options);
      },
      [this, kind](const vizqt::FigureOptions& options, double dpi, QString& error) {
        std::string why;
        const std::optional<viz::FigureRequest> request = figureRequest(kind, why);
        if (!request) {
          error = QString::fromStdString(why);
          return std::string();
        }
        try {
          const vizqt::EncodedFigure png =
              vizqt::encodeFigure(*request, vizqt::prepareStyle(options), vizqt::ImageFormat::Png, dpi);
          error = QString::fromStdString(png.error);
          // With a figure, what it leaves out (node names too small to read) is said under the preview.
          for (const std::string& w : png.warnings)
            if (png.error.empty())
              error += (error.isEmpty() ? QString() : QStringLiteral("\n")) + QString::fromStdString(w);
          return png.bytes;
        } catch (const std::exception& e) {
          error = QString::fromUtf8(e.what());
          return std::string();
        }
      },
      this);
  m_exportDialog->open();
  return m_exportDialog;
}

void MainWindow::onExport() { openExportDialog(); }

ExportDialog* MainWindow::exportDialog() const { return m_exportDialog; }

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
  // A line edit takes Ctrl+E (end of line) and other keys the menus use: the menus' shortcuts win, so
  // that Ctrl+E exports right after a budget is typed.
  if (event->type() == QEvent::ShortcutOverride) {
    const auto* key = static_cast<QKeyEvent*>(event);
    const QKeySequence pressed(key->keyCombination());
    for (const QAction* action : {m_exportAction, m_runAction, m_paretoAction, m_batchAction})
      if (action && action->shortcut() == pressed) return true;  // not accepted: the shortcut runs
  }
  return QMainWindow::eventFilter(watched, event);
}

void MainWindow::runSolvers() {
  try {
    if (!m_graph) {
      reportError(tr("Nothing to solve"), tr("Open a graph first (File > Open)."));
      return;
    }
    const std::vector<std::string> ids = checkedSolvers();
    if (ids.empty()) {
      reportError(tr("Nothing to solve"), tr("Check at least one solver."));
      return;
    }
    // The text in the budget field is the budget, Enter pressed or not; one that does not parse stops
    // the run rather than running under the previous budget.
    if (!m_budget->commit()) {
      m_budget->field()->setFocus();
      reportError(tr("Cannot run"), m_budget->errorText());
      return;
    }
    std::vector<const solvers::Solver*> chosen;
    chosen.reserve(ids.size());
    for (const auto& id : ids) chosen.push_back(solvers::SolverRegistry::builtin().find(id));
    SolveRunner::Settings settings;
    settings.budget = m_budget->budget();
    settings.strategy = strategy();
    settings.model = dpModel();
    if (m_timeLimit->value() > 0)
      settings.timeLimit = std::chrono::milliseconds(std::llround(m_timeLimit->value() * 1000));
    if (settings.strategy != solvers::Strategy::Memory) settings.fronts = m_fronts;
    settings.pins = m_pins;
    m_scrubTimer->stop();
    // The row the user is looking at stays selected through the re-solve, when it comes back.
    const std::string selected = selectedLabel();
    const std::vector<solvers::SolveResult> kept = m_doc.startRun(
        settings.budget.kind == BudgetChoice::Kind::Fixed ? std::optional<Bytes>(settings.budget.bytes) : std::nullopt,
        settings.budget.kind == BudgetChoice::Kind::Least);
    m_model->startRun(SolveRunner::labels(chosen, m_pins), settings.budget.kind == BudgetChoice::Kind::Least);
    for (const solvers::SolveResult& r : kept) m_model->setResult(r);
    // A row the user chose stays chosen; the winner the window chose is chosen afresh at the end.
    if (!selected.empty() && selected != m_autoSelected) selectSolver(selected);
    m_panel->resetProgress(ids);
    const QString budgetText = settings.budget.kind == BudgetChoice::Kind::Fixed
                                   ? tr("%1 (%2 bytes)")
                                         .arg(QString::fromStdString(formatByteSize(settings.budget.bytes)))
                                         .arg(settings.budget.bytes.value)
                               : settings.budget.kind == BudgetChoice::Kind::Least ? tr("least")
                                                                                   : tr("none");
    const QString pinsText =
        m_pins.empty() ? QString()
                       : tr(", pins: keep %1, recompute %2").arg(m_pins.keep.size()).arg(m_pins.recompute.size());
    const QString limitText =
        settings.timeLimit ? tr(", time limit %1 s").arg(double(settings.timeLimit->count()) / 1000) : QString();
    logMessage(tr("Running %1 (strategy %2, DP model %3, budget %4%5%6)")
                   .arg(QString::fromStdString([&] {
                     std::string all;
                     for (const auto& id : ids) all += (all.empty() ? "" : ", ") + id;
                     return all;
                   }()))
                   .arg(m_strategy->currentText(), m_dpModel->currentText(), budgetText, limitText, pinsText));
    m_runSettings = RunSettings{settings.strategy, settings.model};
    m_model->setStale(false);
    m_runner->start(m_graph, chosen, settings);
    refreshViews();
    updateActions();
  } catch (const std::exception& e) {
    reportError(tr("Cannot run"), QString::fromUtf8(e.what()));
  }
}

void MainWindow::computePareto() {
  try {
    if (!m_graph) {
      reportError(tr("No Pareto front"), tr("Open a graph first (File > Open)."));
      return;
    }
    std::vector<const solvers::Solver*> chosen;
    const auto& registry = solvers::SolverRegistry::builtin();
    for (const auto& id : checkedSolvers())
      if (const solvers::Solver* s = registry.find(id); s && !s->info().plainRun) chosen.push_back(s);
    if (chosen.empty()) {
      reportError(tr("No Pareto front"), tr("Check at least one solver other than %1, the plain run.")
                                             .arg(QString::fromStdString(registry.plainRun().info().id)));
      return;
    }
    stopPareto();
    m_paretoRunning = true;
    m_doc.clearPareto();  // the fronts of other settings; the pane says what is being computed instead
    m_paretoFraction = 0.0;
    m_paretoStage = tr("starting");
    statusBar()->showMessage(tr("Computing the Pareto front..."));
    m_views[viz::FigureKind::Pareto]->invalidate();
    auto work = [graph = m_graph, chosen, model = dpModel(), pins = m_pins](std::stop_token stop,
                                                                            const JobProgress& report) {
      // Progress to the window at most every percent or on a new stage.
      ProgressGate gate;
      auto progress = [&](double fraction, std::string_view stage) {
        if (stop.stop_requested() || !gate.due(fraction, std::string(stage))) return;
        report(fraction, stage);
      };
      return viz::paretoInputs(*graph, chosen, kParetoPoints, stop, model, progress, pins);
    };
    m_jobs->start(
        kParetoJob, std::move(work),
        {.progress =
             [this](double fraction, const QString& text) {
               m_paretoFraction = fraction;
               m_paretoStage = text;
               statusBar()->showMessage(
                   tr("Computing the Pareto front: %1, %2% (Esc cancels)").arg(text).arg(std::lround(100 * fraction)));
               m_views[viz::FigureKind::Pareto]->invalidate();
               emit paretoProgressed(fraction, text);
             },
         .done =
             [this, pins = m_pins](viz::ParetoInputs out) {
               m_paretoRunning = false;
               for (const auto& skipped : out.skipped)
                 logMessage(tr("no front from %1").arg(QString::fromStdString(skipped)));
               // Made under the pins of its start: the document drops its pinned fronts if they moved since.
               m_doc.setPareto(std::move(out.data), std::move(out.plans), pins);
               statusBar()->showMessage(tr("Pareto front ready"), 5000);
               m_views[viz::FigureKind::Pareto]->invalidate();
               emit paretoFinished();
             },
         .failed =
             [this](const QString& error) {
               m_paretoRunning = false;
               reportError(tr("No Pareto front"), error);
               emit paretoFinished();
             }});
  } catch (const std::exception& e) {
    reportError(tr("No Pareto front"), QString::fromUtf8(e.what()));
  }
}

void MainWindow::stopPareto() {
  // The job is told to stop and left to finish on its own, its answer dropped: the DP notices the stop
  // within one lower set's work, which on a large graph can be longer than a cancel may take.
  m_jobs->cancel(kParetoJob);
  m_paretoRunning = false;
  if (m_pareto) return;
  m_paretoStage.clear();
  m_views[viz::FigureKind::Pareto]->invalidate();
}

bool MainWindow::findNode(const QString& text) {
  const std::string wanted = text.trimmed().toStdString();
  if (!m_graph || wanted.empty()) return false;
  // The node of that name, else the first whose name contains it (any case).
  std::optional<graph::NodeId> found = m_graph->find(wanted);
  if (!found) {
    const QString needle = text.trimmed();
    for (std::uint32_t v = 0; v < m_graph->size() && !found; ++v)
      if (QString::fromStdString(m_graph->node(graph::NodeId{v}).name).contains(needle, Qt::CaseInsensitive))
        found = graph::NodeId{v};
  }
  if (!found) {
    statusBar()->showMessage(tr("No node's name contains '%1'").arg(text.trimmed()), 5000);
    return false;
  }
  showNodeDetails(*found);
  // Its place in the checkpoint drawing, zoomed in, when the drawing shows it.
  vizqt::SceneView* drawing = m_views[viz::FigureKind::Graph];
  m_tabs->setCurrentWidget(drawing);
  for (const viz::Hotspot& spot : drawing->currentScene().hotspots)
    if (spot.kind == viz::Hotspot::Kind::Node && spot.index == found->value) {
      drawing->resetView();
      const QPointF centre(drawing->width() / 2.0, drawing->height() / 2.0);
      drawing->panBy(centre - drawing->mapFromScene(QPointF(spot.x + spot.w / 2, spot.y + spot.h / 2)));
      drawing->zoomAt(3.0, centre);
      break;
    }
  statusBar()->showMessage(tr("Found %1").arg(QString::fromStdString(m_graph->node(*found).name)), 5000);
  return true;
}

bool MainWindow::showNodeDetails(graph::NodeId node) {
  if (!m_graph || node.value >= m_graph->size()) return false;
  m_detailNode = node;
  refreshNodeDetails();
  // Its ring in the drawing and the schedule moves to this node.
  m_views[viz::FigureKind::Graph]->invalidate();
  m_views[viz::FigureKind::Schedule]->invalidate();
  m_nodeDock->show();
  m_nodeDock->raise();
  return true;
}

QString MainWindow::nodeDetailsText() const { return m_nodeDetails->toPlainText(); }

bool MainWindow::loadParetoPlan(std::size_t series, std::size_t index) {
  if (!m_graph) return false;
  if (m_runner->running()) {
    // A run replaces the rows as its results come in.
    statusBar()->showMessage(tr("Solvers are running: wait for them or cancel (Esc), then pick the plan"), 5000);
    return false;
  }
  // A row of its own, named by its series and peak, judged against the budget at hand: a plan over it
  // neither fits nor wins, whatever budget it was optimal for.
  const std::optional<solvers::SolveResult> picked = m_doc.pickFromPareto(series, index);
  if (!picked) return false;
  m_scrubTimer->stop();
  m_model->setResult(*picked);
  selectSolver(picked->solver);
  logMessage(tr("%1: %2 (overhead %3 %4)")
                 .arg(QString::fromStdString(picked->solver), qstr(solvers::outcomeName(*picked)))
                 .arg(picked->metrics.overhead.value)
                 .arg(QString::fromStdString(m_graph->timeUnit())));
  statusBar()->showMessage(tr("Picked %1 from the Pareto front: a row of its own, judged at the budget at hand")
                               .arg(QString::fromStdString(picked->solver)),
                           5000);
  refreshViews();
  updateActions();
  return true;
}

void MainWindow::setLiveBudget(bool live) { m_liveBudget->setChecked(live); }

bool MainWindow::liveBudget() const { return m_liveBudget->isChecked(); }

std::shared_ptr<const solvers::Solver::TradeOff> MainWindow::front(const std::string& id) const {
  const auto it = m_fronts.find(id);
  return it == m_fronts.end() ? nullptr : it->second;
}

void MainWindow::onBudgetChanged() {
  if (m_pareto) m_views[viz::FigureKind::Pareto]->invalidate();  // its budget line follows the field
  // Only after a run on this graph: before it, the budget is being set up for the first Run.
  if (!m_liveBudget->isChecked() || !m_graph || m_model->rows().empty() || !m_budget->errorText().isEmpty()) return;
  m_scrubTimer->start();
}

void MainWindow::computeFronts() {
  try {
    if (!m_graph || m_frontsRunning || strategy() == solvers::Strategy::Memory) return;
    std::vector<const solvers::Solver*> wanted;
    for (const auto& id : checkedSolvers()) {
      const solvers::Solver* s = solvers::SolverRegistry::builtin().find(id);
      if (s->info().budgetMeasure == solvers::BudgetMeasure::DpModel && !m_fronts.contains(id)) wanted.push_back(s);
    }
    if (wanted.empty()) return;
    stopFronts();
    m_frontsRunning = true;
    m_frontsFraction = 0.0;
    m_frontsStage = tr("starting");
    statusBar()->showMessage(tr("Computing the budget fronts... (Esc cancels)"));
    computeFront(m_graph, wanted, 0, dpModel());
  } catch (const std::exception& e) {
    m_frontsRunning = false;
    reportError(tr("No budget fronts"), QString::fromUtf8(e.what()));
  }
}

void MainWindow::computeFront(const std::shared_ptr<const graph::ComputeGraph>& graph,
                              const std::vector<const solvers::Solver*>& wanted, std::size_t k,
                              solvers::DpModelKind model) {
  if (k == wanted.size()) {
    m_frontsRunning = false;
    m_frontsFraction = 1.0;
    statusBar()->showMessage(tr("Budget fronts ready"), 3000);
    emit frontsFinished();
    return;
  }
  const solvers::Solver* s = wanted[k];
  const std::string id = s->info().id;
  // Each solver an equal share of the progress.
  auto work = [graph, s, id, k, count = wanted.size(), model](std::stop_token stop, const JobProgress& report) {
    ProgressGate gate;
    auto progress = [&](double f, std::string_view stage) {
      const double fraction = (double(k) + std::clamp(f, 0.0, 1.0)) / double(count);
      const std::string what = id + ": " + std::string(stage);
      if (stop.stop_requested() || !gate.due(fraction, what)) return;
      report(fraction, what);
    };
    progress(0.0, "starting");
    auto front = std::make_shared<solvers::Solver::TradeOff>();
    try {
      *front = s->tradeOff({.graph = graph.get(), .stop = stop, .progress = progress, .model = model}, 0);
    } catch (const std::exception& e) {
      front->call = solvers::CallStatus::Error;
      front->status = solvers::SolveStatus::NotSolved;
      front->message = e.what();
    }
    return std::shared_ptr<const solvers::Solver::TradeOff>(std::move(front));
  };
  m_jobs->start(
      kFrontJob, std::move(work),
      {.progress =
           [this](double fraction, const QString& text) {
             m_frontsFraction = fraction;
             m_frontsStage = text;
             statusBar()->showMessage(
                 tr("Computing the budget fronts: %1, %2% (Esc cancels)").arg(text).arg(std::lround(100 * fraction)));
             emit frontsProgressed(fraction, text);
           },
       .done =
           [this, graph, wanted, k, model, id](const std::shared_ptr<const solvers::Solver::TradeOff>& front) {
             if (front->whole) {
               m_fronts[id] = front;
               if (!front->plans.empty()) m_budget->extendScale(front->plans.back().budget);
               logMessage(tr("%1: its whole budget/overhead front (%n plan(s), %2 s) now answers every "
                             "budget",
                             nullptr, static_cast<int>(front->plans.size()))
                              .arg(QString::fromStdString(id))
                              .arg(front->seconds, 0, 'f', 2));
             } else if (front->status != solvers::SolveStatus::Cancelled) {
               logMessage(tr("%1: no whole front (%2); budget changes re-solve it")
                              .arg(QString::fromStdString(id), QString::fromStdString(front->message)));
             }
             computeFront(graph, wanted, k + 1, model);
           },
       .failed = {}});
}

void MainWindow::stopFronts() {
  m_jobs->cancel(kFrontJob);  // never waits: the job is left to notice its stop, its answer dropped
  m_frontsRunning = false;
}

void MainWindow::cancelSolvers() {
  m_scrubTimer->stop();
  cancelOpen();
  if (m_batchRunning) {
    m_jobs->cancel(kMaxBatchJob);  // the job stops at its next check; its answer is dropped
    m_batchRunning = false;
    statusBar()->showMessage(tr("Largest batch cancelled"), 3000);
    updateActions();
  }
  if (m_frontsRunning) {
    stopFronts();
    statusBar()->showMessage(tr("Budget fronts cancelled"), 3000);
  }
  if (m_paretoRunning) {
    stopPareto();
    statusBar()->showMessage(tr("Pareto front cancelled"), 3000);
  }
  if (!m_runner->running()) return;
  m_runner->cancel();
  statusBar()->showMessage(tr("Cancelling..."), 3000);
}

bool MainWindow::solving() const { return m_runner->running(); }

void MainWindow::onProgress(const QString& solver, double fraction, const QString& stage) {
  if (QProgressBar* bar = progressBar(solver.toStdString())) {
    bar->setValue(static_cast<int>(std::lround(std::clamp(fraction, 0.0, 1.0) * SolverPanel::kProgressSteps)));
    bar->setToolTip(stage);
  }
}

void MainWindow::onFinished(const QString& solver, const solvers::SolveResult& result) {
  const std::string id = solver.toStdString();
  // The document first: the table's change redraws the title, which reads the plan from it.
  m_doc.setResult(result);
  m_model->setResult(result);
  // The DP model's budgets can pass the plain run's simulated peak: the slider must reach them.
  if (result.metrics.modelPeak) m_budget->extendScale(*result.metrics.modelPeak);
  if (QProgressBar* bar = progressBar(id)) {
    bar->setValue(SolverPanel::kProgressSteps);
    bar->setFormat(qstr(solvers::outcomeName(result)));
  }
  logMessage(
      QStringLiteral("%1: %2%3")
          .arg(solver, qstr(solvers::outcomeName(result)),
               result.message.empty() ? QString() : QStringLiteral(": ") + QString::fromStdString(result.message)));
  refreshViews();
}

void MainWindow::refreshNodeDetails() {
  // The node's part in each plan, again: the plans it was shown for have been replaced.
  if (!m_detailNode || !m_graph || m_detailNode->value >= m_graph->size()) return;
  QString text = QString::fromStdString(viz::nodeDetails(*m_graph, *m_detailNode, allPlans()));
  if (const Pin pin = pinOf(*m_detailNode); pin != Pin::None)
    text += pin == Pin::Keep ? tr("\npinned: keep (never recomputed)") : tr("\npinned: recompute (never a checkpoint)");
  m_nodeDetails->setPlainText(text);
}

std::vector<viz::LabeledPlan> MainWindow::allPlans() const {
  std::vector<viz::LabeledPlan> plans;
  const auto& registry = solvers::SolverRegistry::builtin();
  if (auto plain = m_doc.plainPlan()) plans.push_back(std::move(*plain));
  for (const auto& row : m_model->rows())
    if (!registry.isPlainRun(row.solver))
      if (auto p = m_doc.plan(row.solver)) plans.push_back(std::move(*p));
  return plans;
}

std::string MainWindow::selectedLabel() const {
  const QModelIndex current = m_sorted->mapToSource(m_table->selectionModel()->currentIndex());
  if (!current.isValid() || current.row() >= m_model->rowCount()) return {};
  return m_model->rows()[static_cast<std::size_t>(current.row())].solver;
}

void MainWindow::onRunFinished() {
  refreshNodeDetails();
  // The plan views show the winner unless the user picked a row while the solvers ran.
  if (!m_table->selectionModel()->currentIndex().isValid())
    if (const auto best = m_model->bestRow()) {
      m_autoSelected = m_model->rows()[static_cast<std::size_t>(*best)].solver;
      selectSolver(m_autoSelected);
    }
  updatePlanTitle();
  updateActions();
  statusBar()->showMessage(tr("Solvers finished"), 5000);
  emit solversFinished();
}

void MainWindow::updateActions() {
  const bool busy = m_runner->running() || m_opening || m_batchRunning;
  m_runButton->setEnabled(m_graph != nullptr);
  m_cancelButton->setEnabled(busy);
  m_exportAction->setEnabled(m_graph != nullptr);
  m_savePlanAction->setEnabled(m_graph != nullptr);
  m_openPlanAction->setEnabled(m_graph != nullptr);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  const QMimeData* mime = event->mimeData();
  if (mime->hasUrls() && !mime->urls().isEmpty() && mime->urls().front().isLocalFile()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const QMimeData* mime = event->mimeData();
  if (!mime->hasUrls() || mime->urls().isEmpty() || !mime->urls().front().isLocalFile()) return;
  event->acceptProposedAction();
  openFileInBackground(mime->urls().front().toLocalFile());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  m_runner->abandon();
  stopPareto();
  stopFronts();
  QMainWindow::closeEvent(event);
}

}  // namespace remat::studio
