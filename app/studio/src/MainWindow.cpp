#include "remat/studio/MainWindow.hpp"
#include "remat/studio/StudioText.hpp"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
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
#include <QPushButton>
#include <QSettings>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <cmath>
#include <exception>
#include <limits>

#include "remat/graph/BatchScaling.hpp"
#include "remat/graph/ByteSize.hpp"
#include "remat/io/GraphReader.hpp"
#include "remat/io/OutputFile.hpp"
#include "remat/io/PlanJson.hpp"
#include "remat/solvers/SolverRegistry.hpp"
#include "remat/studio/BudgetEditor.hpp"
#include "remat/studio/ComparisonModel.hpp"
#include "remat/studio/ExportDialog.hpp"
#include "remat/studio/JobRunner.hpp"
#include "remat/studio/Session.hpp"
#include "remat/studio/SolveRunner.hpp"
#include "remat/studio/SolverPanel.hpp"
#include "remat/studio/WindowParts.hpp"
#include "remat/viz/NodeLabel.hpp"
#include "remat/vizqt/Export.hpp"
#include "remat/vizqt/QtTextMetrics.hpp"
#include "remat/vizqt/SceneView.hpp"

namespace remat::studio {

namespace {

QString bytes(Bytes b) { return QString::fromStdString(formatByteSize(b)); }
QString fileName(const QString& path) { return QFileInfo(path).fileName(); }

// Writes a file the one way Remat writes files (whole or not at all, never over a device or folder),
// refusing the open graph's own file. Returns why it could not, or an empty string.
QString writeOutput(const QString& path, std::string_view content, const QString& graphPath) {
  const std::string target = QFile::encodeName(path).toStdString();
  std::vector<std::string> inputs;
  if (!graphPath.isEmpty()) inputs.push_back(QFile::encodeName(graphPath).toStdString());
  auto error = io::checkOutputPath(target, inputs);
  if (!error) error = io::writeFileAtomically(target, content);
  return error ? QString::fromStdString(error->message) : QString();
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(tr("Remat Studio"));
  setAcceptDrops(true);
  m_screenMetrics = std::make_shared<const vizqt::QtTextMetrics>(viz::Theme::screen().fontFamily);
  m_paperMetrics = std::make_shared<const vizqt::QtTextMetrics>(viz::Theme::paper().fontFamily);
  m_jobs = std::make_unique<JobRunner>();
  m_runner = new SolveRunner(*m_jobs, this);
  m_paretoJob = new ParetoJob(*m_jobs, m_doc, this);
  m_fronts = new BudgetFronts(*m_jobs, this);
  m_batch = new BatchSearch(*m_jobs, this);
  m_read = new GraphRead(*m_jobs, this);
  m_model = new ComparisonModel(this);
  connect(m_runner, &SolveRunner::progressed, this,
          [this](const QString& solver, double fraction, const QString& stage) {
            m_panel->showProgress(solver.toStdString(), fraction, stage);
          });
  connect(m_runner, &SolveRunner::finished, this, &MainWindow::onFinished);
  connect(m_runner, &SolveRunner::runFinished, this, &MainWindow::onRunFinished);

  // The long jobs: their progress in the status bar and the views, their answers in the document.
  connect(m_paretoJob, &ParetoJob::progressed, this, [this](double fraction, const QString& stage) {
    showJobProgress(tr("Computing the Pareto front"), fraction, stage);
    m_views->invalidate(viz::FigureKind::Pareto);
  });
  connect(m_paretoJob, &ParetoJob::progressed, this, &MainWindow::paretoProgressed);
  connect(m_paretoJob, &ParetoJob::skipped, this,
          [this](const QString& what) { logMessage(tr("no front from %1").arg(what)); });
  connect(m_paretoJob, &ParetoJob::finished, this, [this] {
    statusBar()->showMessage(tr("Pareto front ready"), 5000);
    m_views->invalidate(viz::FigureKind::Pareto);
  });
  connect(m_paretoJob, &ParetoJob::failed, this,
          [this](const QString& error) { reportError(tr("No Pareto front"), error); });
  connect(m_paretoJob, &ParetoJob::finished, this, &MainWindow::paretoFinished);
  connect(m_paretoJob, &ParetoJob::failed, this, &MainWindow::paretoFinished);
  connect(m_fronts, &BudgetFronts::progressed, this, [this](double fraction, const QString& stage) {
    showJobProgress(tr("Computing the budget fronts"), fraction, stage);
  });
  connect(m_fronts, &BudgetFronts::progressed, this, &MainWindow::frontsProgressed);
  connect(m_fronts, &BudgetFronts::frontDone, this, &MainWindow::onFrontDone);
  connect(m_fronts, &BudgetFronts::finished, this,
          [this] { statusBar()->showMessage(tr("Budget fronts ready"), 3000); });
  connect(m_fronts, &BudgetFronts::finished, this, &MainWindow::frontsFinished);
  connect(m_batch, &BatchSearch::progressed, this,
          [this](double fraction, const QString& stage) { showJobProgress(tr("Largest batch"), fraction, stage); });
  connect(m_batch, &BatchSearch::progressed, this, &MainWindow::maxBatchProgressed);
  connect(m_batch, &BatchSearch::finished, this, &MainWindow::onBatchFinished);
  connect(m_batch, &BatchSearch::failed, this, [this](const QString& error) {
    reportError(tr("No largest batch"), error);
    updateActions();
  });
  m_openTicker = new QTimer(this);
  m_openTicker->setInterval(250);
  connect(m_openTicker, &QTimer::timeout, this, [this] {
    statusBar()->showMessage(
        tr("Reading %1... %2 s (Esc cancels)").arg(fileName(m_read->path())).arg(m_read->seconds(), 0, 'f', 1));
  });
  // A read ends: the graph installed or its error reported; a cancelled read says nothing.
  auto readEnded = [this] {
    m_openTicker->stop();
    statusBar()->clearMessage();
  };
  connect(m_read, &GraphRead::read, this, [this, readEnded](const QString& path, Result<graph::ComputeGraph>& read) {
    readEnded();
    const bool opened = openRead(path, std::move(read));
    asGivenReadEnded(opened);
    updateActions();
    emit fileOpened(opened);
  });
  connect(m_read, &GraphRead::failed, this, [this, readEnded](const QString& path, const QString& error) {
    readEnded();
    reportError(tr("Cannot open %1").arg(fileName(path)), error);
    asGivenReadEnded(false);
    updateActions();
    emit fileOpened(false);
  });

  m_views = new PlanViews([this](viz::FigureKind kind, double w, double h, const viz::Theme& theme, double maxZoom) {
    return prepareView(kind, w, h, theme, maxZoom);
  });
  // What lies under the mouse: its tip shows as a tooltip, and for the timeline the step and each plan's
  // total in the status bar (the details, categories and largest tensors, are in the tooltip).
  connect(m_views, &PlanViews::hovered, this, [this](viz::FigureKind kind, const viz::Hotspot* spot) {
    if (kind != viz::FigureKind::Timeline) return;
    if (!spot) return statusBar()->clearMessage();
    QStringList lines = QString::fromStdString(spot->tip).split(QLatin1Char('\n'));
    lines.removeIf([](const QString& line) { return line.startsWith(QStringLiteral("  ")); });
    statusBar()->showMessage(lines.join(QStringLiteral("  |  ")));
  });
  // A click on a node shows its details, on a Pareto point adds that plan as a row of its own.
  connect(m_views, &PlanViews::clicked, this, [this](const viz::Hotspot& spot) {
    if (spot.kind == viz::Hotspot::Kind::Node)
      showNodeDetails(graph::NodeId{static_cast<std::uint32_t>(spot.index)});
    else if (spot.kind == viz::Hotspot::Kind::PlanPoint && spot.series != viz::kVanillaSeries)
      loadParetoPlan(spot.series, spot.index);
  });
  // A right click on a node (of the checkpoint drawing, or a row of the schedule) pins it.
  connect(m_views, &PlanViews::contextMenuRequested, this, [this](const viz::Hotspot& spot, QPoint at) {
    if (spot.kind != viz::Hotspot::Kind::Node || !m_graph || spot.index >= m_graph->size()) return;
    nodeMenu(graph::NodeId{static_cast<std::uint32_t>(spot.index)})->popup(at);
  });

  m_table = new ComparisonTable(m_model);
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
    for (viz::FigureKind kind : {viz::FigureKind::Graph, viz::FigureKind::Schedule, viz::FigureKind::Layout})
      m_views->invalidate(kind);
    if (m_timelineByCategory && m_timelineByCategory->isChecked()) m_views->invalidate(viz::FigureKind::Timeline);
    updatePlanTitle();
  });
  // The row's figures change as results arrive (and the winner with them): the title follows.
  connect(m_model, &QAbstractItemModel::dataChanged, this, &MainWindow::updatePlanTitle);
  connect(m_model, &QAbstractItemModel::modelReset, this, &MainWindow::updatePlanTitle);

  // Which plan the plan views show, above them (the timeline shows every plan), and a search box that
  // finds a node by name (Ctrl+F): its details and its place in the checkpoint drawing.
  m_planTitle = new QLabel;
  m_planTitle->setObjectName(QStringLiteral("planTitle"));
  m_planTitle->setTextFormat(Qt::PlainText);
  m_planTitle->setContentsMargins(6, 2, 6, 2);
  m_planTitle->setToolTip(
      tr("The plan the Checkpoints, Schedule and Memory layout views show: select a row of the table to show another"));
  m_findNode = new FindBox;
  m_findNode->installEventFilter(this);
  connect(m_findNode, &QLineEdit::returnPressed, this, [this] { findNode(m_findNode->text()); });
  auto* top = new QWidget;
  auto* topLayout = new QVBoxLayout(top);
  topLayout->setContentsMargins(0, 0, 0, 0);
  topLayout->setSpacing(0);
  auto* heading = new QHBoxLayout;
  heading->setContentsMargins(0, 0, 4, 0);
  heading->addWidget(m_planTitle, 1);
  heading->addWidget(m_findNode);
  topLayout->addLayout(heading);
  topLayout->addWidget(m_views, 1);

  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(top);
  split->addWidget(m_table);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 0);
  // The figures get the room; the table shows about seven rows (every default solver and a plan file
  // or two) at 1280x800.
  split->setSizes({520, 240});
  setCentralWidget(split);
  buildDocks();

  m_graphLabel = new QLabel(tr("no graph"));
  statusBar()->addPermanentWidget(m_graphLabel);
  buildMenus();
  updateActions();
}

MainWindow::~MainWindow() {
  // The solvers' runner leaves its slot first; then every job is asked to stop and joined, before the
  // widgets they report to go away, and nothing they report after is delivered.
  delete m_runner;
  m_runner = nullptr;
  m_jobs.reset();
  for (viz::FigureKind kind : PlanViews::kKinds) m_views->view(kind)->waitForBuild();
}

void MainWindow::buildDocks() {
  auto dock = [this](const QString& title, const char* name, QWidget* widget) {
    auto* d = new QDockWidget(title, this);
    d->setObjectName(QString::fromLatin1(name));
    d->setWidget(widget);
    addDockWidget(Qt::LeftDockWidgetArea, d);
    return d;
  };
  m_solverDock = dock(tr("Solvers"), "solvers", buildSolverPanel());
  m_solverDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
  m_log = new QPlainTextEdit;
  m_log->setObjectName(QStringLiteral("log"));
  m_log->setReadOnly(true);
  m_log->setMaximumBlockCount(2000);
  // Below the solver panel, so that the figures keep the window's full height.
  m_logDock = dock(tr("Messages"), "messages", m_log);
  resizeDocks({m_solverDock, m_logDock}, {3, 1}, Qt::Vertical);
  m_nodeDetails = new QPlainTextEdit;
  m_nodeDetails->setReadOnly(true);
  m_nodeDetails->setPlaceholderText(
      tr("Click a node in the Checkpoints view to see its bytes, times and part in each plan."));
  m_nodeDock = dock(tr("Node"), "node", m_nodeDetails);
  tabifyDockWidget(m_logDock, m_nodeDock);
  m_batchTable = makeBatchTable();  // Solve > Largest batch's answers, a row per solver
  m_batchDock = dock(tr("Largest batch"), "largestBatch", m_batchTable);
  tabifyDockWidget(m_logDock, m_batchDock);
  m_logDock->raise();
}

QString MainWindow::shortcutsText() const { return studio::shortcutsText(menuBar()); }

QString MainWindow::aboutText() const { return studio::aboutText(QStringLiteral(REMAT_VERSION)); }

const QStringList& MainWindow::recentFiles() const { return m_recent->files(); }

QTabWidget* MainWindow::views() const { return m_views; }

QTableView* MainWindow::table() const { return m_table; }

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open graph..."), this, &MainWindow::onOpen)->setShortcut(QKeySequence::Open);
  m_recent = new RecentFiles(
      file->addMenu(tr("Open &recent")), [this](const QString& path) { openFileInBackground(path); }, this);
  m_datasetMenu = file->addMenu(tr("Open &dataset"));
  m_datasetMenu->setEnabled(false);
  m_asGivenAction = file->addAction(tr("Plan graphs as &given (no backward pass)"));
  m_asGivenAction->setObjectName(QStringLiteral("readAsGiven"));
  m_asGivenAction->setCheckable(true);
  m_asGivenAction->setStatusTip(
      tr("Read graphs as the whole computation, with no backward pass added (remat's --as-given): a Checkmate "
         "training graph's backward nodes become operations, as Checkmate, Moccasin and FastSA plan them. "
         "Re-reads the open graph."));
  connect(m_asGivenAction, &QAction::triggered, this, [this](bool checked) {
    // The click has already toggled it: back as it was, and setReadAsGiven checks it where the graph
    // reads under the new setting.
    m_asGivenAction->setChecked(!checked);
    setReadAsGiven(checked);
  });
  m_exportAction = file->addAction(tr("&Export figure..."), this, [this] { openExportDialog(); });
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
  m_runAction = solve->addAction(tr("&Run"), this, &MainWindow::runSolvers);
  m_runAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  solve->addAction(tr("&Cancel"), this, &MainWindow::cancelSolvers)->setShortcut(QKeySequence(Qt::Key_Escape));
  solve->addSeparator();
  m_paretoAction = solve->addAction(tr("Compute &Pareto front"), this, &MainWindow::computePareto);
  m_paretoAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
  m_batchAction = solve->addAction(tr("Largest &batch in the budget"), this, [this] { computeMaxBatch(); });
  m_batchAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
  m_batchAction->setToolTip(
      tr("The largest batch each checked solver fits in the budget field's memory, everything counted"));

  // The pins of the node the Node panel shows (a click on it, or Find node), as the views' context
  // menu offers them; filled each time it opens.
  m_pinMenu = menuBar()->addMenu(tr("&Pins"));
  m_pinMenu->setObjectName(QStringLiteral("pinMenu"));
  connect(m_pinMenu, &QMenu::aboutToShow, this, [this] {
    m_pinMenu->clear();
    if (m_graph && m_detailNode)
      return fillPinMenu(
          m_pinMenu, m_doc, *m_detailNode, [this, node = *m_detailNode](Pin pin) { setPin(node, pin); },
          [this] { clearPins(); });
    m_pinMenu->addAction(tr("Click a node, or find one (Ctrl+F), to pin it"))->setEnabled(false);
    m_pinMenu->addSeparator();
    m_pinMenu->addAction(tr("&Clear all pins"), this, &MainWindow::clearPins)->setEnabled(!m_pins.empty());
  });

  QMenu* viewMenu = menuBar()->addMenu(tr("&View"));
  for (QDockWidget* d : {m_solverDock, m_logDock, m_nodeDock, m_batchDock}) viewMenu->addAction(d->toggleViewAction());
  viewMenu->addSeparator();
  // Over compute time, plans compare by length: a schedule step counts frees as much as a convolution.
  m_timeAxis = viewMenu->addAction(tr("Timeline over compute &time"));
  m_timeAxis->setCheckable(true);
  m_timeAxis->setChecked(true);
  m_timeAxis->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
  m_timeAxis->setToolTip(tr("The memory timeline's x axis: compute time (on) or schedule steps, frees included (off)"));
  connect(m_timeAxis, &QAction::toggled, this, [this] { m_views->invalidate(viz::FigureKind::Timeline); });
  // One plan's memory stacked by what holds it (kept values, recomputed ones, gradients, workspace...).
  m_timelineByCategory = viewMenu->addAction(tr("Timeline of the selected plan by &category"));
  m_timelineByCategory->setCheckable(true);
  m_timelineByCategory->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));
  m_timelineByCategory->setToolTip(
      tr("The memory timeline shows the selected plan alone, stacked by category, instead of every plan's total"));
  connect(m_timelineByCategory, &QAction::toggled, this, [this] { m_views->invalidate(viz::FigureKind::Timeline); });

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QAction* keys = help->addAction(tr("&Keyboard shortcuts"), this, [this] {
    if (m_interactive) QMessageBox::information(this, tr("Keyboard shortcuts"), shortcutsText());
  });
  keys->setShortcut(QKeySequence::HelpContents);
  help->addAction(tr("&About Remat Studio"), this, [this] {
    if (m_interactive) QMessageBox::about(this, tr("About Remat Studio"), aboutText());
  });
}

QMenu* MainWindow::nodeMenu(graph::NodeId node) {
  if (!m_nodeMenu) {
    m_nodeMenu = new QMenu(this);
    m_nodeMenu->setObjectName(QStringLiteral("nodeMenu"));
  }
  m_nodeMenu->clear();
  if (m_graph && node.value < m_graph->size())
    fillPinMenu(
        m_nodeMenu, m_doc, node, [this, node](Pin pin) { setPin(node, pin); }, [this] { clearPins(); });
  return m_nodeMenu;
}

bool MainWindow::setPin(graph::NodeId node, Pin pin) {
  if (!m_graph || node.value >= m_graph->size()) return false;
  const QString name = QString::fromStdString(m_graph->node(node).name);
  std::optional<solvers::Pins> pins = m_doc.pinsWith(node, pin);
  if (!pins) {
    statusBar()->showMessage(
        tr("%1 is an input or a parameter: always in memory and never recomputed, so it cannot be pinned").arg(name),
        5000);
    return false;
  }
  if (pinOf(node) == pin) return true;
  if (m_doc.graphPinOf(node) != Pin::None) {
    statusBar()->showMessage(tr("%1 is pinned by the graph file: every plan is made under that pin (remat convert "
                                "--no-graph-pins writes the graph without its pins)")
                                 .arg(name),
                             5000);
    return false;
  }
  applyPins(std::move(*pins));
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
  if (hadPinnedFronts)
    logMessage(tr("The pinned Pareto fronts were made under other pins: dropped (Ctrl+P computes them again)"));
  pinsChanged();
  refreshViews();
}

void MainWindow::pinsChanged() {
  QString tooltip;
  m_panel->pins()->setText(m_graph ? pinsSummary(*m_graph, m_pins, tooltip) : QString());
  m_panel->pins()->setToolTip(tooltip);
  refreshNodeDetails();
  scheduleResolve();  // the solvers re-plan under the new pins at once
}

void MainWindow::scheduleResolve() {
  if (m_graph && !m_model->rows().empty() && m_panel->liveBudget()->isChecked()) m_scrubTimer->start();
}

QWidget* MainWindow::buildSolverPanel() {
  m_panel = new SolverPanel;
  m_budget = m_panel->budget();
  connect(m_panel->strategy(), &QComboBox::currentIndexChanged, this, [this] {
    settingsChanged();
    scheduleResolve();
  });
  connect(m_panel->dpModel(), &QComboBox::currentIndexChanged, this, [this] {
    // The fronts and plans at hand were planned in the other model.
    m_fronts->clear();
    stopPareto();
    m_doc.clearPareto();
    if (m_views) m_views->invalidate(viz::FigureKind::Pareto);
    settingsChanged();
    scheduleResolve();
  });
  connect(m_panel->costModel(), &QComboBox::currentIndexChanged, this, [this](int index) {
    reinstallUnder(m_panel->costModel(), m_appliedCostModel, index, tr("Cannot apply the cost model"));
  });
  connect(m_panel->workspaceModel(), &QComboBox::currentIndexChanged, this, [this](int index) {
    reinstallUnder(m_panel->workspaceModel(), m_appliedWorkspaceModel, index, tr("Cannot apply the workspace model"));
  });
  m_budget->field()->installEventFilter(this);
  m_scrubTimer = new QTimer(this);
  m_scrubTimer->setSingleShot(true);
  m_scrubTimer->setInterval(kScrubDelayMs);
  connect(m_scrubTimer, &QTimer::timeout, this, [this] {
    computeFronts();
    runSolvers();
  });
  connect(m_budget, &BudgetEditor::budgetChanged, this, [this] {
    if (m_doc.pareto()) m_views->invalidate(viz::FigureKind::Pareto);  // its budget line follows the field
    // Only after a run on this graph: before it, the budget is being set up for the first Run.
    if (m_budget->errorText().isEmpty()) scheduleResolve();
  });
  connect(m_panel->runButton(), &QPushButton::clicked, this, &MainWindow::runSolvers);
  connect(m_panel->cancelButton(), &QPushButton::clicked, this, &MainWindow::cancelSolvers);
  return m_panel;
}

vizqt::SceneView* MainWindow::view(viz::FigureKind kind) const { return m_views->view(kind); }

QProgressBar* MainWindow::progressBar(const std::string& id) const { return m_panel->progressBar(id); }

bool MainWindow::setSolverChecked(const std::string& id, bool checked) { return m_panel->setChecked(id, checked); }

std::vector<std::string> MainWindow::checkedSolvers() const { return m_panel->checkedSolvers(); }

std::vector<const solvers::Solver*> MainWindow::chosenSolvers(bool withPlainRun) const {
  std::vector<const solvers::Solver*> chosen;
  for (const auto& id : checkedSolvers())
    if (const solvers::Solver* s = solvers::SolverRegistry::builtin().find(id);
        s && (withPlainRun || !s->info().plainRun))
      chosen.push_back(s);
  return chosen;
}

void MainWindow::setDpModel(solvers::DpModelKind model) { m_panel->setDpModel(model); }

solvers::DpModelKind MainWindow::dpModel() const { return m_panel->dpModelChoice(); }

void MainWindow::setStrategy(solvers::Strategy strategy) { m_panel->setStrategy(strategy); }

solvers::Strategy MainWindow::strategy() const { return m_panel->strategyChoice(); }

double MainWindow::timeLimit() const { return m_panel->timeLimit()->value(); }

void MainWindow::setTimeLimit(double seconds) { m_panel->timeLimit()->setValue(seconds); }

void MainWindow::setLiveBudget(bool live) { m_panel->liveBudget()->setChecked(live); }

bool MainWindow::liveBudget() const { return m_panel->liveBudget()->isChecked(); }

void MainWindow::reportError(const QString& title, const QString& text) {
  m_lastError = text;
  logMessage(title + QStringLiteral(": ") + text);
  statusBar()->showMessage(title, 5000);
  if (m_interactive) QMessageBox::critical(this, title, text);
}

void MainWindow::logMessage(const QString& text) { m_log->appendPlainText(text); }

void MainWindow::showJobProgress(const QString& what, double fraction, const QString& stage) {
  statusBar()->showMessage(tr("%1: %2, %3% (Esc cancels)").arg(what, stage).arg(std::lround(100 * fraction)));
}

bool MainWindow::readAsGiven() const { return m_asGivenAction->isChecked(); }

void MainWindow::setReadAsGiven(bool asGiven) {
  if (asGiven == readAsGiven()) return;
  const bool before = readAsGiven();
  m_asGivenAction->setChecked(asGiven);
  const bool reading = opening();
  if (!reading && (!m_graph || m_path.isEmpty())) return;
  // Where a graph is open, the setting it was read with comes back if the read under the new one fails,
  // also when that read is one already in progress (File > Open of another file), restarted under it.
  if (m_graph && !m_asGivenBefore) m_asGivenBefore = before;
  const QString path = reading ? m_read->path() : m_path;
  openFileInBackground(path);
}

void MainWindow::asGivenReadEnded(bool opened) {
  if (!m_asGivenBefore) return;
  if (!opened) m_asGivenAction->setChecked(*m_asGivenBefore);  // the open graph stays, read as it was
  m_asGivenBefore.reset();
}

bool MainWindow::openFile(const QString& path) {
  try {
    return openRead(path, io::readGraphFile(path.toStdString(), io::GraphFormat::Auto, {.asGiven = readAsGiven()}));
  } catch (const std::exception& e) {
    reportError(tr("Cannot open %1").arg(fileName(path)), QString::fromUtf8(e.what()));
    return false;
  }
}

void MainWindow::openFileInBackground(const QString& path) {
  m_read->start(path, readAsGiven());
  statusBar()->showMessage(tr("Reading %1... (Esc cancels)").arg(fileName(path)));
  m_openTicker->start();
  updateActions();
}

bool MainWindow::cancelOpen() {
  if (!m_read->cancel()) return false;
  asGivenReadEnded(false);
  m_openTicker->stop();
  statusBar()->showMessage(tr("Stopped reading %1: the open graph is unchanged").arg(fileName(m_read->path())), 5000);
  updateActions();
  return true;
}

bool MainWindow::computeMaxBatch(std::int64_t baseBatch) {
  const QString title = tr("No largest batch");
  try {
    if (!m_graph) {
      reportError(title, tr("Open a graph first (File > Open)."));
      return false;
    }
    std::vector<const solvers::Solver*> chosen = chosenSolvers(true);
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
    const Bytes memory = m_budget->budget().bytes;
    logMessage(tr("Largest batch in %1 (%2 bytes), from batch %3").arg(bytes(memory)).arg(memory.value).arg(baseBatch));
    statusBar()->showMessage(tr("Finding the largest batch... (Esc cancels)"));
    m_batch->start(m_graph, std::move(chosen), baseBatch, memory, dpModel());  // replaces a search running
    updateActions();
    return true;
  } catch (const std::exception& e) {
    m_batch->cancel();
    reportError(title, QString::fromUtf8(e.what()));
    return false;
  }
}

void MainWindow::onBatchFinished() {
  for (const BatchAnswer& a : m_batch->answers()) logMessage(batchAnswerText(a, m_batch->memory()));
  showBatchAnswers(m_batchTable, m_batch->answers());
  m_batchDock->setWindowTitle(tr("Largest batch in %1").arg(bytes(m_batch->memory())));
  m_batchDock->show();
  m_batchDock->raise();
  statusBar()->showMessage(tr("Largest batch: see its table"), 5000);
  updateActions();
  emit maxBatchFinished();
}

bool MainWindow::openRead(const QString& path, Result<graph::ComputeGraph> read) {
  try {
    if (!read.ok()) {
      reportError(tr("Cannot open %1").arg(fileName(path)), QString::fromStdString(read.errorText()));
      return false;
    }
    QStringList warnings;
    for (const auto& w : read.warnings()) warnings << QString::fromStdString(w.toString());
    return installGraph(std::make_shared<const graph::ComputeGraph>(std::move(read).value()), path, warnings);
  } catch (const std::exception& e) {
    reportError(tr("Cannot open %1").arg(fileName(path)), QString::fromUtf8(e.what()));
    return false;
  }
}

bool MainWindow::installGraph(std::shared_ptr<const graph::ComputeGraph> raw, const QString& path,
                              const QStringList& warnings) {
  // The document keeps what it has until the new graph is made.
  if (const auto error = m_doc.open(*raw, costModel().toStdString(), workspaceModel().toStdString())) {
    reportError(tr("Cannot open %1").arg(fileName(path)), QString::fromStdString(*error));
    return false;
  }
  m_runner->abandon();
  m_scrubTimer->stop();
  stopPareto();
  m_fronts->clear();
  m_nodeDetails->clear();
  m_detailNode.reset();
  // A new graph starts with fitted views and an empty search, not the last graph's zoom and query.
  m_findNode->useGraph(*m_graph);
  m_views->resetAll();
  m_rawGraph = std::move(raw);
  m_runSettings.reset();
  m_model->setStale(false);
  m_path = path;
  m_recent->remember(path);
  m_importWarnings = warnings;
  m_model->clear();
  pinsChanged();
  m_panel->resetProgress();
  m_budget->setBudget({});
  m_budget->setVanillaPeak(m_vanilla->metrics.simulatedPeak);
  m_model->setPlainRun(m_vanilla->metrics.simulatedPeak, m_vanilla->metrics.totalTime,
                       QString::fromStdString(m_graph->timeUnit()));
  m_lastError.clear();

  const QString summary = tr("%1: %2 operations%3, plain-run peak %4, times: %5, workspace: %6")
                              .arg(QString::fromStdString(m_graph->name()))
                              .arg(m_graph->opCount())
                              .arg(m_graph->asGiven() ? tr(" computed as given") : QString())
                              .arg(bytes(m_vanilla->metrics.simulatedPeak), costModel(), workspaceModel());
  m_graphLabel->setText(summary);
  setWindowTitle(tr("%1 - Remat Studio").arg(fileName(path)));
  logMessage(tr("Opened %1 (%2)").arg(path, summary));
  for (const QString& w : m_importWarnings) logMessage(tr("warning: %1").arg(w));
  if (const auto own = solvers::graphPins(*m_graph); !own.empty())
    logMessage(tr("The graph carries pins (keep %1, recompute %2 operations): every plan is made under them, and the "
                  "solvers that ignore them cannot win (`remat convert --no-graph-pins` writes the graph without them)")
                   .arg(own.keep.size())
                   .arg(own.recompute.size()));
  statusBar()->showMessage(m_importWarnings.isEmpty() ? tr("Opened %1").arg(fileName(path))
                                                      : tr("Opened %1 with %n import warning(s); see Messages", nullptr,
                                                           static_cast<int>(m_importWarnings.size()))
                                                            .arg(fileName(path)),
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

bool MainWindow::setCostModel(const QString& model) {
  return selectModel(m_panel->costModel(), model, tr("cost model"));
}

QString MainWindow::costModel() const { return m_panel->costModel()->currentText(); }

bool MainWindow::setWorkspaceModel(const QString& model) {
  return selectModel(m_panel->workspaceModel(), model, tr("workspace model"));
}

QString MainWindow::workspaceModel() const { return m_panel->workspaceModel()->currentText(); }

void MainWindow::copyTableAsMarkdown() {
  QApplication::clipboard()->setText(m_model->toMarkdown());
  statusBar()->showMessage(tr("Copied the table as Markdown"), 3000);
}

void MainWindow::copyTableAsCsv() {
  QApplication::clipboard()->setText(m_model->toCsv());
  statusBar()->showMessage(tr("Copied the table as CSV"), 3000);
}

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
  session.costModel = costModel().toStdString();
  session.workspace = workspaceModel().toStdString();
  session.asGiven = readAsGiven();
  m_panel->saveTo(session);
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
  const QString title = tr("Cannot open session %1").arg(fileName(path));
  auto read = readSession(path);
  if (!read.ok()) {
    reportError(title, QString::fromStdString(read.errorText()));
    return false;
  }
  const Session& s = read.value();
  QComboBox* costs = m_panel->costModel();
  QComboBox* workspaces = m_panel->workspaceModel();
  const int costModel = costs->findText(QString::fromStdString(s.costModel));
  const int workspaceModel = workspaces->findText(QString::fromStdString(s.workspace));
  if (costModel < 0 || workspaceModel < 0 || s.timeLimitSeconds > m_panel->timeLimit()->maximum()) {
    reportError(title, tr("%1: settings this Studio does not offer").arg(path));
    return false;
  }
  // The cost and workspace models first, so that the graph is opened under them once; back as they
  // were when it does not open.
  auto selectModels = [&](int cost, int workspace) {
    const QSignalBlocker block(costs);
    const QSignalBlocker blockWorkspace(workspaces);
    costs->setCurrentIndex(cost);
    workspaces->setCurrentIndex(workspace);
  };
  selectModels(costModel, workspaceModel);
  const bool wasAsGiven = readAsGiven();
  m_asGivenAction->setChecked(s.asGiven);
  if (!openFile(s.graph)) {
    selectModels(m_appliedCostModel, m_appliedWorkspaceModel);
    m_asGivenAction->setChecked(wasAsGiven);
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
  m_panel->loadFrom(s);
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

void MainWindow::useSettings(std::unique_ptr<QSettings> settings) { m_recent->useSettings(std::move(settings)); }

void MainWindow::setDatasetDirectory(const QString& dir) {
  fillDatasetMenu(m_datasetMenu, dir, [this](const QString& path) { openFileInBackground(path); });
}

QStringList MainWindow::datasetFiles() const {
  QStringList out;
  for (const QAction* action : m_datasetMenu->actions()) out << action->data().toString();
  return out;
}

bool MainWindow::openPlan(const QString& path) {
  const QString title = tr("Cannot open plan %1").arg(fileName(path));
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
    const std::string label = fileName(path).toStdString() + (loaded.solver.empty() ? "" : " (" + loaded.solver + ")");
    // Judged before it joins the table: readPlanFile simulated it, so only a time that cannot be
    // counted is left to refuse.
    const solvers::SolveResult judged = m_doc.addPlan(label, std::move(loaded.plan), StudioDocument::Origin::PlanFile);
    if (!judged.plan) {
      reportError(title, QString::fromStdString(judged.message));
      return false;
    }
    m_model->setResult(judged);
    selectSolver(label);
    logMessage(
        tr("Opened plan %1: %2, simulated peak %3, overhead %4 %5")
            .arg(QString::fromStdString(label), qstr(solvers::outcomeName(judged)), bytes(judged.metrics.simulatedPeak))
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
  if (kind == viz::FigureKind::Pareto && !m_doc.pareto()) {
    why = (m_paretoJob->running() ? tr("Computing the Pareto fronts: %1, %2% done (Esc cancels)")
                                        .arg(m_paretoJob->stage())
                                        .arg(std::lround(100 * m_paretoJob->fraction()))
                                  : tr("No Pareto front yet: check the solvers and choose Solve > Compute Pareto "
                                       "front (Ctrl+P)."))
              .toStdString();
    return std::nullopt;
  }
  StudioDocument::ViewChoice choice;
  choice.rows = rowLabels();
  choice.focused = focusedLabel();
  choice.timelineByCategory = m_timelineByCategory->isChecked();
  choice.timelineAxis = timelineOverTime() ? viz::TimelineAxis::Time : viz::TimelineAxis::Steps;
  // Where the budget in the field falls among the fronts (it moves with the slider).
  if (const BudgetChoice& budget = m_budget->budget(); budget.kind == BudgetChoice::Kind::Fixed)
    choice.paretoBudget = budget.bytes;
  choice.found = m_detailNode;
  return m_doc.figureRequest(kind, choice);
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

std::vector<std::string> MainWindow::rowLabels() const {
  std::vector<std::string> labels;
  for (const auto& row : m_model->rows()) labels.push_back(row.solver);
  return labels;
}

std::string MainWindow::focusedLabel() const {
  std::string selected = selectedLabel();
  if (!selected.empty() && m_doc.result(selected)) return selected;
  // Nothing selected: the winner's plan, as `remat compare` draws it.
  if (const auto best = m_model->bestRow())
    if (const std::string& label = m_model->rows()[static_cast<std::size_t>(*best)].solver; m_doc.result(label))
      return label;
  for (const auto& row : m_model->rows())
    if (m_doc.result(row.solver)) return row.solver;
  return {};
}

const solvers::SolveResult* MainWindow::focusedResult() const {
  const std::string label = focusedLabel();
  if (!label.empty()) return m_doc.result(label);
  return m_vanilla && m_vanilla->plan ? &*m_vanilla : nullptr;
}

std::string MainWindow::focusedSolver() const {
  const solvers::SolveResult* r = focusedResult();
  return r ? r->solver : std::string();
}

bool MainWindow::selectSolver(const std::string& id) { return m_table->selectLabel(id); }

std::string MainWindow::selectedLabel() const { return m_table->selectedLabel(); }

QString MainWindow::planTitle() const { return m_planTitle->text(); }

bool MainWindow::timelineOverTime() const { return m_timeAxis->isChecked(); }

void MainWindow::setTimelineOverTime(bool overTime) { m_timeAxis->setChecked(overTime); }

void MainWindow::setTimelineByCategory(bool byCategory) { m_timelineByCategory->setChecked(byCategory); }

QString MainWindow::staleText() const {
  if (!m_runSettings || m_model->rows().empty()) return {};
  return studio::staleText(*m_runSettings, {strategy(), dpModel()});
}

void MainWindow::settingsChanged() {
  // Rows made under other settings are shown as such (greyed, and said in the title) until the next run.
  m_model->setStale(!staleText().isEmpty());
  updatePlanTitle();
}

void MainWindow::updatePlanTitle() {
  const solvers::SolveResult* shown = m_graph ? focusedResult() : nullptr;
  const auto best = m_model->bestRow();
  const bool winner = shown && best && m_model->rows()[static_cast<std::size_t>(*best)].solver == shown->solver;
  m_planTitle->setText(studio::planTitle(m_doc, shown, winner, staleText()));
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
  m_views->invalidateAll();
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

viz::FigureKind MainWindow::currentFigure() const { return m_views->current(); }

QString MainWindow::exportFigure(viz::FigureKind kind, const QString& path, const vizqt::FigureOptions& options,
                                 bool collapseChains) {
  try {
    const auto format = vizqt::formatFromPath(path.toStdString());
    if (!format) return tr("cannot tell the format of '%1': use .pdf, .svg or .png").arg(path);
    std::string why;
    std::optional<viz::FigureRequest> request = figureRequest(kind, why);
    if (!request) return QString::fromStdString(why);
    request->graphOptions.collapseChains = collapseChains;
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
  const QString suggested = QFileInfo(m_path).absoluteDir().filePath(
      QFileInfo(m_path).completeBaseName() + QLatin1Char('-') + QString::fromUtf8(viz::figureName(kind).data()) +
      QStringLiteral(".pdf"));
  delete m_exportDialog;
  m_exportDialog = new ExportDialog(
      m_views->tabText(m_views->currentIndex()), suggested,
      [this, kind](const QString& path, const vizqt::FigureOptions& options, bool collapse) {
        return exportFigure(kind, path, options, collapse);
      },
      [this, kind](std::string& why) { return figureRequest(kind, why); }, kind == viz::FigureKind::Graph, this);
  m_exportDialog->open();
  return m_exportDialog;
}

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
    const std::vector<const solvers::Solver*> chosen = chosenSolvers(true);
    if (chosen.empty()) {
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
    SolveRunner::Settings settings = m_panel->settings();
    if (settings.strategy != solvers::Strategy::Memory) settings.fronts = m_fronts->fronts();
    settings.pins = m_pins;
    m_scrubTimer->stop();
    // The row the user is looking at stays selected through the re-solve, when it comes back.
    const std::string selected = selectedLabel();
    const bool least = settings.budget.kind == BudgetChoice::Kind::Least;
    const std::vector<solvers::SolveResult> kept = m_doc.startRun(
        settings.budget.kind == BudgetChoice::Kind::Fixed ? std::optional<Bytes>(settings.budget.bytes) : std::nullopt,
        least);
    m_model->startRun(SolveRunner::labels(chosen, m_pins), least);
    for (const solvers::SolveResult& r : kept) m_model->setResult(r);
    // A row the user chose stays chosen; the winner the window chose is chosen afresh at the end.
    if (!selected.empty() && selected != m_autoSelected) selectSolver(selected);
    const std::vector<std::string> ids = checkedSolvers();
    m_panel->resetProgress(ids);
    logMessage(runDescription(ids, settings));
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
    std::vector<const solvers::Solver*> chosen = chosenSolvers(false);
    if (chosen.empty()) {
      reportError(tr("No Pareto front"),
                  tr("Check at least one solver other than %1, the plain run.")
                      .arg(QString::fromStdString(solvers::SolverRegistry::builtin().plainRun().info().id)));
      return;
    }
    m_paretoJob->start(m_graph, std::move(chosen), dpModel(), m_pins);
    statusBar()->showMessage(tr("Computing the Pareto front..."));
    m_views->invalidate(viz::FigureKind::Pareto);
  } catch (const std::exception& e) {
    reportError(tr("No Pareto front"), QString::fromUtf8(e.what()));
  }
}

void MainWindow::stopPareto() {
  m_paretoJob->stop();
  if (!m_doc.pareto() && m_views) m_views->invalidate(viz::FigureKind::Pareto);
}

bool MainWindow::findNode(const QString& text) {
  const std::string wanted = text.trimmed().toStdString();
  if (!m_graph || wanted.empty()) return false;
  // The node of that name, else the first whose name contains it (any case).
  std::optional<graph::NodeId> found = m_graph->find(wanted);
  const QString needle = text.trimmed();
  for (std::uint32_t v = 0; v < m_graph->size() && !found; ++v)
    if (QString::fromStdString(m_graph->node(graph::NodeId{v}).name).contains(needle, Qt::CaseInsensitive))
      found = graph::NodeId{v};
  if (!found) {
    statusBar()->showMessage(tr("No node's name contains '%1'").arg(needle), 5000);
    return false;
  }
  showNodeDetails(*found);
  m_views->centreOn(*found);  // its place in the checkpoint drawing, zoomed in
  statusBar()->showMessage(tr("Found %1").arg(QString::fromStdString(m_graph->node(*found).name)), 5000);
  return true;
}

bool MainWindow::showNodeDetails(graph::NodeId node) {
  if (!m_graph || node.value >= m_graph->size()) return false;
  m_detailNode = node;
  refreshNodeDetails();
  // Its ring in the drawing and the schedule moves to this node.
  m_views->invalidate(viz::FigureKind::Graph);
  m_views->invalidate(viz::FigureKind::Schedule);
  m_nodeDock->show();
  m_nodeDock->raise();
  return true;
}

QString MainWindow::nodeDetailsText() const { return m_nodeDetails->toPlainText(); }

void MainWindow::refreshNodeDetails() {
  // The node's part in each plan, again: the plans it was shown for have been replaced.
  if (!m_detailNode || !m_graph || m_detailNode->value >= m_graph->size()) return;
  QString text = QString::fromStdString(viz::nodeDetails(*m_graph, *m_detailNode, m_doc.plans(rowLabels())));
  if (const Pin pin = m_doc.graphPinOf(*m_detailNode); pin != Pin::None)
    text += pin == Pin::Keep ? tr("\npinned by the graph file: keep (never recomputed)")
                             : tr("\npinned by the graph file: recompute (never a checkpoint)");
  if (const Pin pin = pinOf(*m_detailNode); pin != Pin::None)
    text += pin == Pin::Keep ? tr("\npinned: keep (never recomputed)") : tr("\npinned: recompute (never a checkpoint)");
  m_nodeDetails->setPlainText(text);
}

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

void MainWindow::computeFronts() {
  try {
    if (!m_graph || m_fronts->running() || strategy() == solvers::Strategy::Memory) return;
    std::vector<const solvers::Solver*> wanted = chosenSolvers(false);
    std::erase_if(wanted,
                  [](const solvers::Solver* s) { return s->info().budgetMeasure != solvers::BudgetMeasure::DpModel; });
    if (m_fronts->compute(m_graph, std::move(wanted), dpModel()))
      statusBar()->showMessage(tr("Computing the budget fronts... (Esc cancels)"));
  } catch (const std::exception& e) {
    m_fronts->stop();
    reportError(tr("No budget fronts"), QString::fromUtf8(e.what()));
  }
}

void MainWindow::onFrontDone(const QString& solver, const BudgetFronts::Front& front) {
  if (!front->whole) {
    logMessage(
        tr("%1: no whole front (%2); budget changes re-solve it").arg(solver, QString::fromStdString(front->message)));
    return;
  }
  if (!front->plans.empty()) m_budget->extendScale(front->plans.back().budget);
  logMessage(tr("%1: its whole budget/overhead front (%n plan(s), %2 s) now answers every budget", nullptr,
                static_cast<int>(front->plans.size()))
                 .arg(solver)
                 .arg(front->seconds, 0, 'f', 2));
}

void MainWindow::cancelSolvers() {
  m_scrubTimer->stop();
  cancelOpen();
  if (m_batch->cancel()) {
    statusBar()->showMessage(tr("Largest batch cancelled"), 3000);
    updateActions();
  }
  if (m_fronts->running()) {
    m_fronts->stop();
    statusBar()->showMessage(tr("Budget fronts cancelled"), 3000);
  }
  if (m_paretoJob->running()) {
    stopPareto();
    statusBar()->showMessage(tr("Pareto front cancelled"), 3000);
  }
  if (!m_runner->running()) return;
  m_runner->cancel();
  statusBar()->showMessage(tr("Cancelling..."), 3000);
}

bool MainWindow::solving() const { return m_runner->running(); }

void MainWindow::onFinished(const QString& solver, const solvers::SolveResult& result) {
  // The document first: the table's change redraws the title, which reads the plan from it.
  m_doc.setResult(result);
  m_model->setResult(result);
  // The DP model's budgets can pass the plain run's simulated peak: the slider must reach them.
  if (result.metrics.modelPeak) m_budget->extendScale(*result.metrics.modelPeak);
  m_panel->showOutcome(solver.toStdString(), qstr(solvers::outcomeName(result)));
  logMessage(
      QStringLiteral("%1: %2%3")
          .arg(solver, qstr(solvers::outcomeName(result)),
               result.message.empty() ? QString() : QStringLiteral(": ") + QString::fromStdString(result.message)));
  refreshViews();
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
  const bool busy = m_runner->running() || m_read->running() || m_batch->running();
  m_panel->runButton()->setEnabled(m_graph != nullptr);
  m_panel->cancelButton()->setEnabled(busy);
  for (QAction* action : {m_exportAction, m_savePlanAction, m_openPlanAction}) action->setEnabled(m_graph != nullptr);
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
  m_fronts->stop();
  QMainWindow::closeEvent(event);
}

}  // namespace remat::studio
