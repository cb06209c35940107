#pragma once

#include <QLineEdit>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTabWidget>
#include <QTableView>

#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/studio/StudioDocument.hpp"
#include "remat/studio/StudioJobs.hpp"
#include "remat/viz/PlanFigures.hpp"
#include "remat/viz/Scene.hpp"
#include "remat/viz/Theme.hpp"

class QMenu;
class QMenuBar;
class QSettings;
class QSortFilterProxyModel;
class QTableWidget;

namespace remat::vizqt {
class SceneView;
}

namespace remat::studio {

class ComparisonModel;

/// The parts of Studio's window that hold no state of the document: menus filled from it, the
/// Largest batch table, the help texts and the tabs of figure views. The window wires them.

/// Fills a menu with the pin actions for a node: its name, then Keep / Recompute / Not pinned (checked
/// as it is pinned) and Clear all pins; `pin` and `clear` are what they do.
void fillPinMenu(QMenu* menu, const StudioDocument& document, graph::NodeId node,
                 const std::function<void(StudioDocument::Pin)>& pin, const std::function<void()>& clear);

/// The graph files opened lately, the latest first, kept in QSettings when given, shown in a menu whose
/// actions ask `open` for the file.
class RecentFiles : public QObject {
  Q_OBJECT

 public:
  static constexpr int kMax = 8;
  RecentFiles(QMenu* menu, std::function<void(const QString&)> open, QObject* parent = nullptr);
  ~RecentFiles() override;
  RecentFiles(const RecentFiles&) = delete;
  RecentFiles& operator=(const RecentFiles&) = delete;
  /// Where the list is remembered between runs (owned); without settings it lives as long as this.
  void useSettings(std::unique_ptr<QSettings> settings);
  void remember(const QString& path);
  [[nodiscard]] const QStringList& files() const { return m_files; }

 private:
  void show();
  QMenu* m_menu;
  std::function<void(const QString&)> m_open;
  QStringList m_files;
  std::unique_ptr<QSettings> m_settings;
};

/// Fills File > Open dataset with a folder's graphs (native, Checkmate and PFN files and ONNX models;
/// not its manifest), each asking `open` for its file.
void fillDatasetMenu(QMenu* menu, const QString& dir, const std::function<void(const QString&)>& open);

/// The Largest batch table: a row per solver (solver, largest batch, status, why).
QTableWidget* makeBatchTable();
void showBatchAnswers(QTableWidget* table, const std::vector<BatchSearch::Answer>& answers);

/// Help > Keyboard shortcuts: every menu action's shortcut, and the views' mouse gestures.
[[nodiscard]] QString shortcutsText(const QMenuBar* menus);
/// Help > About: the version, what Remat does, and the citation of every method in the registry.
[[nodiscard]] QString aboutText(const QString& version);

/// The tabs of figure views (timeline, checkpoints, schedule, memory layout, Pareto), each a SceneView
/// whose figure is built on a worker thread from what `prepare` copies on the GUI thread.
class PlanViews : public QTabWidget {
  Q_OBJECT

 public:
  /// Copies a figure's inputs and returns the work that builds it (MainWindow::prepareView).
  using Prepare = std::function<std::function<viz::FigureResult()>(viz::FigureKind, double width, double height,
                                                                   const viz::Theme&, double maxZoom)>;
  static constexpr viz::FigureKind kKinds[] = {viz::FigureKind::Timeline, viz::FigureKind::Graph,
                                               viz::FigureKind::Schedule, viz::FigureKind::Layout,
                                               viz::FigureKind::Pareto};

  explicit PlanViews(const Prepare& prepare, QWidget* parent = nullptr);
  ~PlanViews() override;
  PlanViews(const PlanViews&) = delete;
  PlanViews& operator=(const PlanViews&) = delete;
  [[nodiscard]] vizqt::SceneView* view(viz::FigureKind kind) const;
  [[nodiscard]] viz::FigureKind current() const;
  void invalidate(viz::FigureKind kind);
  void invalidateAll();
  /// Every view fitted again (a new graph).
  void resetAll();
  /// Shows the checkpoint drawing centred on a node, zoomed in, when it draws the node.
  void centreOn(graph::NodeId node);

 signals:
  /// The mouse is over a hotspot of a view (or left it: null).
  void hovered(viz::FigureKind kind, const viz::Hotspot* spot);
  void clicked(const viz::Hotspot& spot);
  void contextMenuRequested(const viz::Hotspot& spot, QPoint at);

 private:
  std::map<viz::FigureKind, vizqt::SceneView*> m_views;
};

/// The comparison table: the model's rows, sortable by any column (numbers by value; cells without one
/// last), unsorted in run order until a header is clicked; one row selected at a time; the gap to the
/// bound shown only when some result proves one.
class ComparisonTable : public QTableView {
  Q_OBJECT

 public:
  explicit ComparisonTable(ComparisonModel* model, QWidget* parent = nullptr);
  /// Selects a row by its label, whatever the sorting; false when there is none.
  bool selectLabel(const std::string& label);
  /// The selected row's label; empty when none is.
  [[nodiscard]] std::string selectedLabel() const;

 private:
  ComparisonModel* m_model;
  QSortFilterProxyModel* m_sorted;
};

/// The search box over the views: finds a node by name (Ctrl+F), completing the open graph's node names
/// (any part of them, any case).
class FindBox : public QLineEdit {
  Q_OBJECT

 public:
  explicit FindBox(QWidget* parent = nullptr);
  /// Empties the box and completes `g`'s names from now on.
  void useGraph(const graph::ComputeGraph& g);
};

}  // namespace remat::studio
