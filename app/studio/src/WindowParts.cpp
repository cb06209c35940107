#include "remat/studio/WindowParts.hpp"
#include "remat/studio/StudioText.hpp"

#include <QAction>
#include <QActionGroup>
#include <QCompleter>
#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QTableWidget>

#include <stdexcept>
#include <utility>

#include "remat/solvers/SolverRegistry.hpp"
#include "remat/studio/ComparisonModel.hpp"
#include "remat/viz/NodeLabel.hpp"
#include "remat/vizqt/SceneView.hpp"

namespace remat::studio {

namespace {

QString tr(const char* text) { return QObject::tr(text); }

QString viewTitle(viz::FigureKind kind) {
  switch (kind) {
    case viz::FigureKind::Timeline: return tr("Memory timeline");
    case viz::FigureKind::Graph: return tr("Checkpoints");
    case viz::FigureKind::Schedule: return tr("Schedule");
    case viz::FigureKind::Layout: return tr("Memory layout");
    case viz::FigureKind::Pareto: return tr("Pareto front");
  }
  return {};
}

const QString kRecentKey = QStringLiteral("recentFiles");

}  // namespace

void fillPinMenu(QMenu* menu, const StudioDocument& document, graph::NodeId node,
                 const std::function<void(StudioDocument::Pin)>& pin, const std::function<void()>& clear) {
  using Pin = StudioDocument::Pin;
  const graph::ComputeGraph& g = *document.graph();
  QAction* title = menu->addAction(QString::fromStdString(viz::displayName(g.node(node).name)));
  title->setEnabled(false);
  menu->addSeparator();
  if (!g.isOp(node)) {
    menu->addAction(tr("Inputs and parameters stay in memory: nothing to pin"))->setEnabled(false);
  } else if (const Pin fixed = document.graphPinOf(node); fixed != Pin::None) {
    menu->addAction(fixed == Pin::Keep ? tr("Pinned keep by the graph file: every plan is made under it")
                                       : tr("Pinned recompute by the graph file: every plan is made under it"))
        ->setEnabled(false);
  } else {
    auto* group = new QActionGroup(title);  // goes with the menu's actions when it is cleared
    const Pin now = document.pinOf(node);
    auto add = [&](const QString& text, const QString& tip, const char* objectName, Pin choice) {
      QAction* action = menu->addAction(text);
      action->setObjectName(QString::fromLatin1(objectName));
      action->setToolTip(tip);
      action->setCheckable(true);
      action->setChecked(now == choice);
      group->addAction(action);
      QObject::connect(action, &QAction::triggered, menu, [pin, choice] { pin(choice); });
    };
    add(tr("&Keep (never recompute)"), tr("Computed once, in the forward pass, and held until its backward"), "pinKeep",
        Pin::Keep);
    add(tr("&Recompute (never a checkpoint)"), tr("Never kept past its segment: recomputed for its backward"),
        "pinRecompute", Pin::Recompute);
    add(tr("&Not pinned"), tr("The solvers decide"), "pinNone", Pin::None);
  }
  menu->addSeparator();
  QAction* clearAll = menu->addAction(tr("&Clear all pins"));
  QObject::connect(clearAll, &QAction::triggered, menu, [clear] { clear(); });
  clearAll->setObjectName(QStringLiteral("clearPins"));
  clearAll->setEnabled(!document.pins().empty());
}

RecentFiles::RecentFiles(QMenu* menu, std::function<void(const QString&)> open, QObject* parent)
    : QObject(parent), m_menu(menu), m_open(std::move(open)) {
  show();
}

RecentFiles::~RecentFiles() = default;

void RecentFiles::useSettings(std::unique_ptr<QSettings> settings) {
  m_settings = std::move(settings);
  m_files.clear();
  if (m_settings) m_files = m_settings->value(kRecentKey).toStringList().mid(0, kMax);
  show();
}

void RecentFiles::remember(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  m_files.removeAll(absolute);
  m_files.prepend(absolute);
  while (m_files.size() > kMax) m_files.removeLast();
  if (m_settings) m_settings->setValue(kRecentKey, m_files);
  show();
}

void RecentFiles::show() {
  m_menu->clear();
  for (int k = 0; k < m_files.size(); ++k) {
    const QString path = m_files.at(k);
    QAction* action = m_menu->addAction(QStringLiteral("&%1 %2").arg(k + 1).arg(QFileInfo(path).fileName()), this,
                                        [this, path] { m_open(path); });
    action->setToolTip(path);
    action->setData(path);
  }
  m_menu->setEnabled(!m_files.isEmpty());
}

void fillDatasetMenu(QMenu* menu, const QString& dir, const std::function<void(const QString&)>& open) {
  menu->clear();
  const QFileInfoList files =
      QDir(dir).entryInfoList({QStringLiteral("*.json"), QStringLiteral("*.txt"), QStringLiteral("*.onnx")},
                              QDir::Files | QDir::Readable, QDir::Name);
  for (const QFileInfo& file : files) {
    if (file.fileName() == QStringLiteral("manifest.json")) continue;
    const QString path = file.absoluteFilePath();
    QAction* action = menu->addAction(file.completeBaseName(), menu, [open, path] { open(path); });
    action->setData(path);
    action->setToolTip(path);
  }
  menu->setEnabled(!menu->actions().isEmpty());
}

QTableWidget* makeBatchTable() {
  auto* table = new QTableWidget(0, 4);
  table->setObjectName(QStringLiteral("batchTable"));
  table->setHorizontalHeaderLabels({tr("solver"), tr("largest batch"), tr("status"), tr("why")});
  table->horizontalHeader()->setStretchLastSection(true);
  table->verticalHeader()->hide();
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  return table;
}

void showBatchAnswers(QTableWidget* table, const std::vector<BatchSearch::Answer>& answers) {
  table->setRowCount(static_cast<int>(answers.size()));
  for (std::size_t k = 0; k < answers.size(); ++k) {
    const BatchSearch::Answer& a = answers[k];
    const int row = static_cast<int>(k);
    auto* batch = new QTableWidgetItem;
    // A number to sort by; none when no batch fits or the solver could not answer.
    if (a.call == solvers::CallStatus::Ok && a.batch > 0)
      batch->setData(Qt::DisplayRole, QVariant::fromValue(a.batch));
    else
      batch->setText(QStringLiteral("-"));
    batch->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    table->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(a.solver)));
    table->setItem(row, 1, batch);
    table->setItem(
        row, 2,
        new QTableWidgetItem(a.call == solvers::CallStatus::Error ? tr("error") : qstr(solvers::statusName(a.status))));
    auto* why = new QTableWidgetItem(QString::fromStdString(a.message));
    why->setToolTip(QString::fromStdString(a.message));
    table->setItem(row, 3, why);
  }
  table->resizeColumnsToContents();
}

QString shortcutsText(const QMenuBar* menus) {
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
  for (const QAction* top : menus->actions())
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

QString aboutText(const QString& version) {
  QStringList lines;
  lines << tr("Remat Studio %1").arg(version)
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

PlanViews::PlanViews(const Prepare& prepare, QWidget* parent) : QTabWidget(parent) {
  setDocumentMode(true);
  for (viz::FigureKind kind : kKinds) {
    auto* view = new vizqt::SceneView;
    view->setPlaceholderText(tr("Open a graph: File > Open (Ctrl+O), or drop a graph file on the window."));
    // Figures are built on a worker thread: a Graphviz layout of a large graph must not stall the window.
    view->setAsyncSceneBuilder([prepare, kind](double w, double h) -> vizqt::SceneView::SceneJob {
      auto build = prepare(kind, w, h, viz::Theme::screen(), vizqt::SceneView::kMaxZoom);
      return [build = std::move(build)] {
        viz::FigureResult figure = build();
        if (!figure.scene) throw std::runtime_error(figure.error);  // the view shows it as its placeholder
        return std::move(*figure.scene);
      };
    });
    view->setToolTip(tr("Wheel: zoom; drag: pan; double click: fit"));
    view->setHoverHandler([this, kind](const viz::Hotspot* spot) { emit hovered(kind, spot); });
    view->setClickHandler([this](const viz::Hotspot& spot) { emit clicked(spot); });
    view->setContextMenuHandler([this](const viz::Hotspot& spot, QPoint at) { emit contextMenuRequested(spot, at); });
    m_views[kind] = view;
    addTab(view, viewTitle(kind));
  }
}

PlanViews::~PlanViews() {
  // A build in flight reads what the window copied for it; it ends before the views go.
  for (auto& [kind, view] : m_views) view->waitForBuild();
}

vizqt::SceneView* PlanViews::view(viz::FigureKind kind) const {
  const auto it = m_views.find(kind);
  return it == m_views.end() ? nullptr : it->second;
}

viz::FigureKind PlanViews::current() const {
  for (const auto& [kind, view] : m_views)
    if (view == currentWidget()) return kind;
  return viz::FigureKind::Timeline;
}

void PlanViews::invalidate(viz::FigureKind kind) { m_views.at(kind)->invalidate(); }

void PlanViews::invalidateAll() {
  for (auto& [kind, view] : m_views) view->invalidate();
}

void PlanViews::resetAll() {
  for (auto& [kind, view] : m_views) view->resetView();
}

void PlanViews::centreOn(graph::NodeId node) {
  vizqt::SceneView* drawing = m_views.at(viz::FigureKind::Graph);
  setCurrentWidget(drawing);
  for (const viz::Hotspot& spot : drawing->currentScene().hotspots)
    if (spot.kind == viz::Hotspot::Kind::Node && spot.index == node.value) {
      drawing->resetView();
      const QPointF centre(drawing->width() / 2.0, drawing->height() / 2.0);
      drawing->panBy(centre - drawing->mapFromScene(QPointF(spot.x + spot.w / 2, spot.y + spot.h / 2)));
      drawing->zoomAt(3.0, centre);
      return;
    }
}

ComparisonTable::ComparisonTable(ComparisonModel* model, QWidget* parent)
    : QTableView(parent), m_model(model), m_sorted(new QSortFilterProxyModel(this)) {
  m_sorted->setSourceModel(m_model);
  m_sorted->setSortRole(ComparisonModel::SortRole);
  setModel(m_sorted);
  horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
  setSortingEnabled(true);
  setSelectionBehavior(QAbstractItemView::SelectRows);
  setSelectionMode(QAbstractItemView::SingleSelection);
  horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  horizontalHeader()->setStretchLastSection(false);
  verticalHeader()->hide();
  setContextMenuPolicy(Qt::ActionsContextMenu);
  auto follow = [this] { setColumnHidden(ComparisonModel::OverBound, !m_model->bound()); };
  connect(m_model, &QAbstractItemModel::dataChanged, this, follow);
  connect(m_model, &QAbstractItemModel::modelReset, this, follow);
  setColumnHidden(ComparisonModel::OverBound, true);
}

bool ComparisonTable::selectLabel(const std::string& label) {
  const auto row = m_model->rowOf(label);
  if (!row) return false;
  const QModelIndex shown = m_sorted->mapFromSource(m_model->index(*row, 0));
  selectionModel()->setCurrentIndex(shown, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  scrollTo(shown);
  return true;
}

std::string ComparisonTable::selectedLabel() const {
  const QModelIndex current = m_sorted->mapToSource(selectionModel()->currentIndex());
  if (!current.isValid() || current.row() >= m_model->rowCount()) return {};
  return m_model->rows()[static_cast<std::size_t>(current.row())].solver;
}

FindBox::FindBox(QWidget* parent) : QLineEdit(parent) {
  setObjectName(QStringLiteral("findNode"));
  setPlaceholderText(tr("Find node (Ctrl+F)"));
  setClearButtonEnabled(true);
  setMaximumWidth(260);
  setToolTip(tr("A node's name, or part of it: shows its details and its place in the Checkpoints view"));
}

void FindBox::useGraph(const graph::ComputeGraph& g) {
  clear();
  QStringList names;
  names.reserve(static_cast<qsizetype>(g.size()));
  for (const graph::Node& node : g.nodes()) names << QString::fromStdString(node.name);
  auto* completer = new QCompleter(names, this);
  completer->setCaseSensitivity(Qt::CaseInsensitive);
  completer->setFilterMode(Qt::MatchContains);
  completer->setMaxVisibleItems(12);
  delete this->completer();
  setCompleter(completer);
}

}  // namespace remat::studio
