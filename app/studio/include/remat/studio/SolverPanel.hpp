#pragma once

#include <QWidget>

#include <map>
#include <string>
#include <vector>

#include "remat/studio/SolveRunner.hpp"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace remat::studio {

class BudgetEditor;
struct Session;

/// Studio's Solvers dock: the registry's solvers with a check box and a progress bar each (the paper's
/// DPs checked), the strategy, DP model, cost and workspace models, time limit, budget (BudgetEditor)
/// and live budget, the pins, Run and Cancel. Widgets only: the window connects them to what they do.
class SolverPanel : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kProgressSteps = 1000;  ///< a progress bar's range

  explicit SolverPanel(QWidget* parent = nullptr);

  [[nodiscard]] QTreeWidget* solverList() const { return m_solverList; }
  [[nodiscard]] const std::map<std::string, QTreeWidgetItem*>& solverItems() const { return m_solverItems; }
  /// The solver's progress bar; null for an unknown id.
  [[nodiscard]] QProgressBar* progressBar(const std::string& id) const;
  [[nodiscard]] const std::map<std::string, QProgressBar*>& progressBars() const { return m_progress; }
  /// Checks or unchecks a solver; false when no solver has that id.
  bool setChecked(const std::string& id, bool checked);
  /// The checked solvers' ids, in the registry's order.
  [[nodiscard]] std::vector<std::string> checkedSolvers() const;
  /// Every bar empty, then the given solvers' showing a percentage (a run starts).
  void resetProgress(const std::vector<std::string>& running = {});
  /// A solver's bar at `fraction`, its tooltip the stage it is in.
  void showProgress(const std::string& id, double fraction, const QString& stage);
  /// A solver's bar full, showing how it ended.
  void showOutcome(const std::string& id, const QString& outcome);

  [[nodiscard]] solvers::Strategy strategyChoice() const;
  void setStrategy(solvers::Strategy strategy);
  [[nodiscard]] solvers::DpModelKind dpModelChoice() const;
  void setDpModel(solvers::DpModelKind model);
  /// What a run under the panel's settings asks for: its budget (as last committed), strategy, DP model
  /// and time limit per solver (none at 0).
  [[nodiscard]] SolveRunner::Settings settings() const;
  /// The panel's part of a session: solvers, strategy, DP model, budget, time limit (the cost and
  /// workspace models go with the graph, which the window opens).
  void saveTo(Session& session) const;
  void loadFrom(const Session& session);

  [[nodiscard]] QComboBox* strategy() const { return m_strategy; }
  [[nodiscard]] QComboBox* dpModel() const { return m_dpModel; }
  [[nodiscard]] QComboBox* costModel() const { return m_costModel; }
  [[nodiscard]] QComboBox* workspaceModel() const { return m_workspaceModel; }
  [[nodiscard]] QDoubleSpinBox* timeLimit() const { return m_timeLimit; }
  [[nodiscard]] BudgetEditor* budget() const { return m_budget; }
  [[nodiscard]] QCheckBox* liveBudget() const { return m_liveBudget; }
  [[nodiscard]] QLabel* pins() const { return m_pins; }
  [[nodiscard]] QPushButton* runButton() const { return m_run; }
  [[nodiscard]] QPushButton* cancelButton() const { return m_cancel; }

 private:
  QTreeWidget* m_solverList = nullptr;
  std::map<std::string, QTreeWidgetItem*> m_solverItems;
  std::map<std::string, QProgressBar*> m_progress;
  QComboBox* m_strategy = nullptr;
  QComboBox* m_dpModel = nullptr;
  QComboBox* m_costModel = nullptr;
  QComboBox* m_workspaceModel = nullptr;
  QDoubleSpinBox* m_timeLimit = nullptr;
  BudgetEditor* m_budget = nullptr;
  QCheckBox* m_liveBudget = nullptr;
  QLabel* m_pins = nullptr;
  QPushButton* m_run = nullptr;
  QPushButton* m_cancel = nullptr;
};

}  // namespace remat::studio
