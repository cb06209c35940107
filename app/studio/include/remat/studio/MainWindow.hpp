#pragma once

#include <QMainWindow>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/solvers/Pins.hpp"
#include "remat/solvers/Solver.hpp"
#include "remat/studio/StudioDocument.hpp"
#include "remat/studio/StudioJobs.hpp"
#include "remat/studio/StudioText.hpp"
#include "remat/viz/PlanFigures.hpp"
#include "remat/viz/Theme.hpp"
#include "remat/vizqt/FigureFile.hpp"

class QAction;
class QCheckBox;
class QComboBox;
class QDockWidget;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QMenu;
class QSettings;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QTimer;
class QTableView;
class QTableWidget;
class QSortFilterProxyModel;
class QTreeWidget;
class QTreeWidgetItem;

namespace remat::vizqt {
class QtTextMetrics;
class SceneView;
}  // namespace remat::vizqt

namespace remat::studio {

class BudgetEditor;
class ComparisonModel;
class ExportDialog;
class ComparisonTable;
class FindBox;
class JobRunner;
class PlanViews;
class RecentFiles;
class SolveRunner;
class SolverPanel;

/// Remat Studio's window: open a graph, run solvers side by side on worker threads, compare their
/// plans in a table and in figures (memory timeline, checkpoints on the graph, schedule, memory layout),
/// export a figure. Every number and picture comes from the engine and viz libraries. Every long job
/// (solves, budget fronts, Pareto fronts, imports, largest batches) runs on the window's one JobRunner.
class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  /// The JobRunner slots of the window's long jobs; the solvers run in SolveRunner::kSlot.
  static constexpr std::string_view kImportJob = GraphRead::kSlot;
  static constexpr std::string_view kMaxBatchJob = BatchSearch::kSlot;
  static constexpr std::string_view kParetoJob = ParetoJob::kSlot;
  static constexpr std::string_view kFrontJob = BudgetFronts::kSlot;

  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;
  MainWindow(const MainWindow&) = delete;
  MainWindow& operator=(const MainWindow&) = delete;

  /// Reads a graph file in any format readGraphFile reads; a bad file is reported (a dialog, or only
  /// recorded when not interactive) and leaves the open graph as it was. Returns whether it opened.
  bool openFile(const QString& path);
  /// openFile with the reading on a worker thread, so that a large file (an ONNX model with its
  /// weights) never freezes the window: the status bar says what is being read and for how long, Esc
  /// (Cancel) drops the read at once (the file keeps being read on the worker, its answer ignored) and
  /// leaves the open graph as it was. What File > Open, Open recent, Open dataset and a drop do;
  /// fileOpened says how it ended.
  void openFileInBackground(const QString& path);
  /// Whether a background read is in progress.
  [[nodiscard]] bool opening() const { return m_read->running(); }
  /// File > Plan graphs as given: graphs are read as the whole computation, with no backward pass added
  /// (io::ReadOptions::asGiven, the CLI's --as-given): a Checkmate training graph's backward nodes become
  /// operations, as Checkmate, Moccasin and FastSA plan them; a graph of another format keeps its
  /// operations. A file that says it is computed as given is read so either way. Changing it re-reads the
  /// open graph on a worker, as File > Open reads (pins are by op, so they go; fileOpened says how it
  /// ended), and restarts a read in progress under it; where the re-read fails or is cancelled, the
  /// setting goes back to what the open graph was read with.
  void setReadAsGiven(bool asGiven);
  [[nodiscard]] bool readAsGiven() const;
  /// Writes the session: the graph file and the solver settings (solvers, strategy, cost model, budget,
  /// time limit, pins by node name) as JSON (`"format": "remat-studio-session"`); a path without an extension gets
  /// `.remat-session.json`. Returns whether it was written.
  bool saveSession(const QString& path);
  /// Help > Keyboard shortcuts: every menu action's shortcut, and the views' mouse gestures.
  [[nodiscard]] QString shortcutsText() const;
  /// Help > About: the version, what Remat does, and the citation of every method in the registry.
  [[nodiscard]] QString aboutText() const;
  /// Opens a session written by saveSession: its graph (a relative path is taken from the session's
  /// folder) under its settings. A bad session is reported like a bad graph. Returns whether it opened.
  bool openSession(const QString& path);
  [[nodiscard]] solvers::Strategy strategy() const;
  /// The memory model the DP solvers plan with (the "DP model" setting).
  [[nodiscard]] solvers::DpModelKind dpModel() const;
  [[nodiscard]] double timeLimit() const;

  /// Where the recent files are remembered between runs; without settings the list lives only as long
  /// as the window. The window owns them.
  void useSettings(std::unique_ptr<QSettings> settings);
  /// The graph files opened lately, the latest first (File > Open recent).
  [[nodiscard]] const QStringList& recentFiles() const;
  static constexpr int kMaxRecentFiles = 8;

  /// Lists the graph files of a folder (the project's datasets/) under File > Open dataset.
  void setDatasetDirectory(const QString& dir);
  /// The files that menu opens, as absolute paths, by name.
  [[nodiscard]] QStringList datasetFiles() const;

  /// What File > Export figure starts from: one column of a paper (3.3 x 2.2 in), 9-pt text, the paper
  /// theme, 300 dpi for PNG.
  [[nodiscard]] static vizqt::FigureOptions defaultExportOptions();
  /// Writes a view's figure as PDF, SVG or PNG by the extension, with the options of `remat render`
  /// (vizqt::FigureOptions) and its code path (vizqt::encodeFigure): the same request and options give
  /// the same bytes. Returns the error, or an empty string once written.
  /// `collapseChains`: the checkpoint drawing's chains as one box each (`remat render --collapse-chains`).
  QString exportFigure(viz::FigureKind kind, const QString& path, const vizqt::FigureOptions& options,
                       bool collapseChains = false);
  /// exportFigure for the view shown; failures are reported like openFile's.
  bool exportCurrentView(const QString& path, const vizqt::FigureOptions& options = defaultExportOptions());
  /// File > Export figure (Ctrl+E): the export dialog for the view shown, opened (window-modal, not
  /// blocking); null without a graph.
  ExportDialog* openExportDialog();
  [[nodiscard]] ExportDialog* exportDialog() const;
  /// The figure the view shown draws.
  [[nodiscard]] viz::FigureKind currentFigure() const;
  /// What a figure of the view draws (the document's plans, budget and fronts), or why there is none.
  [[nodiscard]] std::optional<viz::FigureRequest> figureRequest(viz::FigureKind kind, std::string& why) const;

  /// Writes the plan the graph, schedule and layout views show as plan JSON (`remat solve -o`'s format).
  /// Returns whether it was written; failures are reported like openFile's.
  bool savePlan(const QString& path);
  /// Reads a plan JSON file (any solver's, `remat solve -o`'s, or one written by hand or by another
  /// tool) onto the open graph and adds its row, judged at the run's budget as the solvers' are (and
  /// again at every later run's), named by the file and the solver it says made it; selected, so the
  /// plan views show it. A plan for another graph, or one the simulator rejects, is refused with the
  /// reason (reported like openFile's errors). Opening another graph forgets it.
  bool openPlan(const QString& path);
  /// The solver whose plan the graph, schedule and layout views show (see focusedLabel): the selected
  /// row's, and after each run the winner's (selected when the run ends).
  [[nodiscard]] std::string focusedSolver() const;
  /// The title over the views: which solver's plan the checkpoint, schedule and layout views show, at
  /// which budget and strategy, with its status.
  [[nodiscard]] QString planTitle() const;
  /// Finds a node by its name, or else the first whose name contains the text (any case): shows its
  /// details, switches to the Checkpoints view and centres it there, zoomed in. False when none matches.
  bool findNode(const QString& text);
  /// Whether the memory timeline runs over compute time (the default, View > Timeline over compute
  /// time) rather than schedule steps.
  [[nodiscard]] bool timelineOverTime() const;
  void setTimelineOverTime(bool overTime);
  /// View > Timeline of the selected plan by category: the timeline shows the selected plan alone, its
  /// memory stacked by category, instead of every plan's total.
  void setTimelineByCategory(bool byCategory);
  /// Selects a solver's row in the table (whatever its sorting); false when it has none.
  bool selectSolver(const std::string& id);

  /// Replaces the open graph's times by a cost model (graph::costModelNames(): "file" keeps the file's);
  /// results so far are dropped. Returns false, with the error reported, for an unknown model.
  bool setCostModel(const QString& model);
  [[nodiscard]] QString costModel() const;
  /// Replaces the open graph's workspace by a workspace model (graph::workspaceModelNames(): "file"
  /// keeps the file's, "libtorch-cpu" fills it from rules); results so far are dropped. Returns false,
  /// with the error reported, for an unknown model.
  bool setWorkspaceModel(const QString& model);
  [[nodiscard]] QString workspaceModel() const;
  /// The time limit of each solver in seconds; 0 for none.
  void setTimeLimit(double seconds);

  /// Starts every checked solver at the panel's budget and strategy (cancelling a run in progress).
  void runSolvers();
  /// Asks the running solvers to stop.
  void cancelSolvers();
  [[nodiscard]] bool solving() const;

  /// Computes the budget/overhead fronts of the checked solvers (all but store-all) on a worker
  /// thread for the Pareto view (viz::paretoInputs: one DP run for the DP solvers); the pane and the
  /// status bar say what it computes and how far it is (paretoProgressed); Cancel (Esc) stops it at
  /// once: the worker is told to stop and left to finish on its own, its answer dropped.
  void computePareto();
  [[nodiscard]] bool computingPareto() const { return m_paretoJob->running(); }
  /// How far the Pareto job is (0 to 1) and what it runs, while it runs.
  [[nodiscard]] double paretoProgress() const { return m_paretoJob->fraction(); }
  [[nodiscard]] const QString& paretoStage() const { return m_paretoJob->stage(); }
  /// The last computed fronts, if any.
  [[nodiscard]] const std::optional<viz::ParetoData>& pareto() const { return m_doc.pareto(); }

  /// Budget scrubbing: with the live budget on (the default), every change of the budget (slider or
  /// field) re-solves the checked solvers once the user pauses (kScrubDelayMs), provided they ran
  /// before on this graph. The first change also starts computing the whole budget/overhead fronts of
  /// the checked DP solvers in the background (one DP run each, solvers::Solver::tradeOff); once a
  /// front is in, that solver answers every budget from it (solvers::solveFromFront) instead of running
  /// its DP again. The memory-centric strategy has no such front and always solves.
  void setLiveBudget(bool live);
  [[nodiscard]] bool liveBudget() const;
  static constexpr int kScrubDelayMs = 120;
  /// Starts computing the fronts of the checked DP solvers that have none yet (see setLiveBudget).
  void computeFronts();
  [[nodiscard]] bool computingFronts() const { return m_fronts->running(); }
  /// How far the budget fronts' job is (0 to 1, each solver an equal share) and what it runs ("exact-dp:
  /// DP over lower sets"), while it runs; the status bar shows both (Esc cancels).
  [[nodiscard]] double frontsProgress() const { return m_fronts->fraction(); }
  [[nodiscard]] const QString& frontsStage() const { return m_fronts->stage(); }
  /// The whole front of a solver on the open graph, if computed.
  [[nodiscard]] BudgetFronts::Front front(const std::string& id) const { return m_fronts->front(id); }

  /// How a node is pinned (docs/pins.md): Keep, never recomputed; Recompute, never kept past its
  /// segment (never a checkpoint).
  using Pin = StudioDocument::Pin;
  /// Pins an operation, or unpins it (Pin::None); inputs and parameters cannot be pinned (false, with
  /// the reason in the status bar). Once a node is pinned, each run also solves every checked solver that
  /// honours the pins (solvers::honoursAll) under them, in a row of its own named viz::pinnedLabel
  /// ("exact-dp · pinned") next to its unpinned plan, in the table, the timeline and the Node panel;
  /// Compute Pareto front draws their pinned fronts too. A pin that makes the budget unreachable gives
  /// that row an infeasible status with the solver's reason.
  bool setPin(graph::NodeId node, Pin pin);
  [[nodiscard]] Pin pinOf(graph::NodeId node) const { return m_doc.pinOf(node); }
  /// Unpins every node.
  void clearPins();
  [[nodiscard]] const solvers::Pins& pins() const { return m_doc.pins(); }
  /// The menu a right click on a node of the checkpoint drawing (or a step of the schedule) opens:
  /// the node's name, then Keep / Recompute / Not pinned (checked as it is pinned) and Clear all pins.
  /// The same actions are in the Pins menu for the node the Node panel shows (a click, or Find node).
  QMenu* nodeMenu(graph::NodeId node);

  /// One checked solver's answer to Solve > Largest batch.
  using BatchAnswer = BatchSearch::Answer;
  /// Solve > Largest batch (Ctrl+B): for each checked solver, the largest batch at which it plans a
  /// training step within the budget field's bytes, taken as the device's memory with everything counted
  /// (solvers::maxBatch, what `remat max-batch` runs), from the batch the graph was built for:
  /// `baseBatch`, or when 0 graph::inferBatchSize (asked for when the graph does not say and the window
  /// is interactive). Runs on a worker: the status bar says which solver and how far
  /// (maxBatchProgressed), Esc cancels at once (the worker is told to stop and left to finish, its answer
  /// dropped). The answers go to the Largest batch table, Messages and maxBatchAnswers(), then
  /// maxBatchFinished. False, with the
  /// reason reported, without a graph, a budget in bytes or a batch size.
  bool computeMaxBatch(std::int64_t baseBatch = 0);
  [[nodiscard]] bool computingMaxBatch() const { return m_batch->running(); }
  [[nodiscard]] const std::vector<BatchAnswer>& maxBatchAnswers() const { return m_batch->answers(); }
  /// The Largest batch dock's table: a row per solver (solver, largest batch, status, why).
  [[nodiscard]] QTableWidget* maxBatchTable() const { return m_batchTable; }

  /// Shows a node's details (viz::nodeDetails over every finished plan) in the Node dock; what a click
  /// on a node of the checkpoint drawing does. False for a node the graph does not have.
  bool showNodeDetails(graph::NodeId node);
  [[nodiscard]] QString nodeDetailsText() const;
  /// Adds the plan of a Pareto point (a series, the point's index in it) as a row of its own
  /// (StudioDocument::pickFromPareto: "exact-dp @ 2.05 GiB", judged at the budget at hand), selected and
  /// shown in every view; what a click on a Pareto point does. False when there is no such point, or
  /// while solvers run (their results would replace the rows).
  bool loadParetoPlan(std::size_t series, std::size_t index);

  /// The table copied to the clipboard as Markdown or CSV (Edit menu, and the table's context menu).
  void copyTableAsMarkdown();
  void copyTableAsCsv();

  /// Checks or unchecks a solver in the panel; false when no solver has that id.
  bool setSolverChecked(const std::string& id, bool checked);
  [[nodiscard]] std::vector<std::string> checkedSolvers() const;
  /// The strategy the panel selects.
  void setStrategy(solvers::Strategy strategy);
  void setDpModel(solvers::DpModelKind model);

  /// Off: errors are recorded (lastError) instead of shown in a modal dialog, for tests and scripts.
  void setInteractive(bool interactive) { m_interactive = interactive; }
  [[nodiscard]] const QString& lastError() const { return m_lastError; }
  /// The open graph's import warnings.
  [[nodiscard]] const QStringList& importWarnings() const { return m_importWarnings; }
  [[nodiscard]] const graph::ComputeGraph* graph() const { return m_doc.graph(); }
  /// The plain run (store-all) of the open graph: the timeline's baseline and the slider's scale.
  [[nodiscard]] const std::optional<solvers::SolveResult>& vanilla() const { return m_doc.vanilla(); }
  /// Everything shown: the graph, the budget at hand, pins, plans and fronts (StudioDocument).
  [[nodiscard]] const StudioDocument& document() const { return m_doc; }

  /// The runner of every long job of the window: what a test watches of a job (JobRunner::latest).
  [[nodiscard]] const JobRunner& jobs() const { return *m_jobs; }
  [[nodiscard]] ComparisonModel* comparisonModel() const { return m_model; }
  [[nodiscard]] BudgetEditor* budgetEditor() const { return m_budget; }
  [[nodiscard]] QTabWidget* views() const;
  [[nodiscard]] QTableView* table() const;
  /// The view of a figure kind (timeline, graph, schedule, layout); null for others.
  [[nodiscard]] vizqt::SceneView* view(viz::FigureKind kind) const;
  /// The solver's progress bar in the panel; null for an unknown id.
  [[nodiscard]] QProgressBar* progressBar(const std::string& id) const;

  /// Builds a view's figure at a size with a theme, from the open graph and the finished plans.
  [[nodiscard]] viz::FigureResult buildView(viz::FigureKind kind, double width, double height,
                                            const viz::Theme& theme) const;
  /// buildView in two halves: this part copies the figure's inputs (on the GUI thread); the returned
  /// work builds the figure from those copies alone, so it may run on a worker thread. The views pass
  /// their greatest zoom as `maxZoom` (viz::FigureStyle::maxZoom: node names show once zoomed in).
  [[nodiscard]] std::function<viz::FigureResult()> prepareView(viz::FigureKind kind, double width, double height,
                                                               const viz::Theme& theme, double maxZoom = 1) const;

 signals:
  /// Every solver of a run has reported its result.
  void solversFinished();
  /// The Pareto fronts are computed (or failed; see lastError).
  void paretoFinished();
  /// The Pareto job's progress (see paretoProgress).
  void paretoProgressed(double fraction, const QString& stage);
  /// The budget fronts of a computeFronts() call are in (or could not be computed; see Messages).
  void frontsFinished();
  /// The budget fronts' progress (see frontsProgress).
  void frontsProgressed(double fraction, const QString& stage);
  /// A background read (openFileInBackground) ended: the graph opened (true) or could not be (false,
  /// reported like openFile's errors). Not emitted for a cancelled read.
  void fileOpened(bool opened);
  /// The largest batches of a computeMaxBatch() call are in (see maxBatchAnswers).
  void maxBatchFinished();
  /// The largest-batch job's progress: the fraction done (each solver an equal share) and what it runs.
  void maxBatchProgressed(double fraction, const QString& stage);

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;
  void closeEvent(QCloseEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void buildMenus();
  void buildDocks();
  QWidget* buildSolverPanel();
  void reportError(const QString& title, const QString& text);
  void onOpen();
  /// Installs what a read of `path` gave: the graph, or the error reported.
  bool openRead(const QString& path, Result<graph::ComputeGraph> read);
  /// Drops a background read in progress (its worker is left to finish, joined once done).
  bool cancelOpen();
  /// A background read ended (opened, or failed or cancelled): where it was the re-read under a changed
  /// File > Plan graphs as given, the setting stays, or goes back to what the open graph was read with.
  void asGivenReadEnded(bool opened);
  void onSavePlan();
  void onOpenSession();
  void onOpenPlan();
  void onSaveSession();
  /// Makes `raw` (a graph as read from its file) the open graph under the panel's cost model.
  bool installGraph(std::shared_ptr<const graph::ComputeGraph> raw, const QString& path, const QStringList& warnings);
  /// After `combo` (the cost or workspace model) moved to `index`: the open graph again under the models
  /// chosen; `applied` follows, or the combo goes back to it when the graph does not install.
  void reinstallUnder(QComboBox* combo, int& applied, int index, const QString& errorTitle);
  /// Selects `model` in `combo` (a `kind` of model), reporting an unknown name; false on any error.
  bool selectModel(QComboBox* combo, const QString& model, const QString& kind);
  void onFinished(const QString& solver, const solvers::SolveResult& result);
  void onRunFinished();
  void onBatchFinished();
  void onFrontDone(const QString& solver, const BudgetFronts::Front& front);
  /// The status bar shows a job's progress ("Computing the Pareto front: exact-dp: ..., 40% (Esc cancels)").
  void showJobProgress(const QString& what, double fraction, const QString& stage);
  void stopPareto();
  /// Re-solves once the user pauses, when the budget is live and the solvers ran on this graph.
  void scheduleResolve();
  void refreshViews();
  void updateActions();
  /// The row the plan views show: the table's selected row's, else the winner's, else the first with a
  /// plan; empty for the plain run.
  [[nodiscard]] std::string focusedLabel() const;
  [[nodiscard]] const solvers::SolveResult* focusedResult() const;
  [[nodiscard]] std::vector<std::string> rowLabels() const;
  void updatePlanTitle();
  void refreshNodeDetails();
  void logMessage(const QString& text);
  /// The pins changed: the label in the solver panel, the Node panel, a re-solve when live.
  void pinsChanged();
  /// Makes `pins` the pins, dropping the rows and fronts made under the old ones (StudioDocument::setPins).
  void applyPins(solvers::Pins pins);
  /// Why the rows do not answer the panel's settings, or an empty string (studio::staleText).
  [[nodiscard]] QString staleText() const;
  /// The strategy or DP model moved: the rows and title say whether they are stale.
  void settingsChanged();
  /// The label of the table's selected row; empty when none is.
  [[nodiscard]] std::string selectedLabel() const;
  /// The solvers checked in the panel, from the registry.
  [[nodiscard]] std::vector<const solvers::Solver*> chosenSolvers(bool withPlainRun) const;

  std::shared_ptr<const graph::ComputeGraph> m_rawGraph;  ///< as read, before the cost model
  StudioDocument m_doc;
  // Read-only names for the document's parts that the window reads most.
  const std::shared_ptr<const graph::ComputeGraph>& m_graph = m_doc.sharedGraph();
  const std::optional<solvers::SolveResult>& m_vanilla = m_doc.vanilla();
  const solvers::Pins& m_pins = m_doc.pins();
  QString m_path;
  QStringList m_importWarnings;

  bool m_interactive = true;
  QString m_lastError;

  // Shared with the view builds on worker threads (QtTextMetrics keeps no state).
  std::shared_ptr<const vizqt::QtTextMetrics> m_screenMetrics;
  std::shared_ptr<const vizqt::QtTextMetrics> m_paperMetrics;
  /// Runs every long job; made first and destroyed first (it joins the jobs before the widgets go).
  std::unique_ptr<JobRunner> m_jobs;
  SolveRunner* m_runner = nullptr;
  ParetoJob* m_paretoJob = nullptr;
  BudgetFronts* m_fronts = nullptr;
  BatchSearch* m_batch = nullptr;
  GraphRead* m_read = nullptr;
  QTimer* m_openTicker = nullptr;  ///< refreshes the status bar's "Reading ... 3 s" while a read runs
  ComparisonModel* m_model = nullptr;
  BudgetEditor* m_budget = nullptr;
  SolverPanel* m_panel = nullptr;
  int m_appliedCostModel = 0;       ///< the combo index the open graph's times come from
  int m_appliedWorkspaceModel = 0;  ///< the combo index the open graph's workspace comes from
  QTimer* m_scrubTimer = nullptr;
  PlanViews* m_views = nullptr;
  ComparisonTable* m_table = nullptr;
  QLabel* m_planTitle = nullptr;
  FindBox* m_findNode = nullptr;
  std::optional<graph::NodeId> m_detailNode;  ///< the node the Node panel shows, kept up to date
  QPlainTextEdit* m_log = nullptr;
  QPlainTextEdit* m_nodeDetails = nullptr;
  QDockWidget* m_solverDock = nullptr;
  QDockWidget* m_logDock = nullptr;
  QDockWidget* m_nodeDock = nullptr;
  QDockWidget* m_batchDock = nullptr;
  QTableWidget* m_batchTable = nullptr;
  QLabel* m_graphLabel = nullptr;
  QAction* m_asGivenAction = nullptr;
  /// While the open graph is read again under a changed File > Plan graphs as given: the setting it was
  /// read with, restored where the read fails or is cancelled.
  std::optional<bool> m_asGivenBefore;
  QAction* m_exportAction = nullptr;
  QAction* m_runAction = nullptr;
  QAction* m_paretoAction = nullptr;
  QAction* m_batchAction = nullptr;
  QPointer<ExportDialog> m_exportDialog;
  std::optional<RunSettings> m_runSettings;  ///< the settings of the last run, to tell when the panel's differ
  std::string m_autoSelected;  ///< the winner the window selected after the last run (not the user's pick)
  QAction* m_savePlanAction = nullptr;
  QAction* m_openPlanAction = nullptr;
  QAction* m_timeAxis = nullptr;
  QAction* m_timelineByCategory = nullptr;
  QMenu* m_datasetMenu = nullptr;
  RecentFiles* m_recent = nullptr;
  QAction* m_copyMarkdown = nullptr;
  QAction* m_copyCsv = nullptr;
  QMenu* m_pinMenu = nullptr;   ///< the menu bar's, for the Node panel's node
  QMenu* m_nodeMenu = nullptr;  ///< the views' context menu, refilled for each node
};

}  // namespace remat::studio
