#include "remat/studio/SolverPanel.hpp"
#include "remat/studio/StudioText.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string_view>

#include "remat/graph/CostModel.hpp"
#include "remat/graph/WorkspaceModel.hpp"
#include "remat/solvers/SolverRegistry.hpp"
#include "remat/studio/BudgetEditor.hpp"
#include "remat/studio/Session.hpp"

namespace remat::studio {

SolverPanel::SolverPanel(QWidget* parent) : QWidget(parent) {
  m_solverList = new QTreeWidget;
  m_solverList->setColumnCount(2);
  m_solverList->setHeaderLabels({tr("Solver"), tr("Progress")});
  m_solverList->setRootIsDecorated(false);
  m_solverList->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  m_solverList->header()->setStretchLastSection(true);
  for (const auto& solver : solvers::SolverRegistry::builtin().solvers()) {
    const solvers::SolverInfo& info = solver->info();
    auto* item = new QTreeWidgetItem(m_solverList);
    item->setText(0, QString::fromStdString(info.id));
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    const bool byDefault = info.followsStrategy;  // the paper's DPs
    item->setCheckState(0, byDefault ? Qt::Checked : Qt::Unchecked);
    item->setToolTip(0, QStringLiteral("<b>%1</b><br>%2<br><i>%3</i>")
                            .arg(QString::fromStdString(info.name).toHtmlEscaped(),
                                 QString::fromStdString(info.citation).toHtmlEscaped(),
                                 QString::fromStdString(info.problemClass).toHtmlEscaped()));
    auto* bar = new QProgressBar;
    bar->setRange(0, kProgressSteps);
    bar->setValue(0);
    bar->setTextVisible(true);
    bar->setFormat(QString());
    m_solverList->setItemWidget(item, 1, bar);
    m_solverItems[info.id] = item;
    m_progress[info.id] = bar;
  }

  m_strategy = new QComboBox;
  for (solvers::Strategy s : {solvers::Strategy::Time, solvers::Strategy::Memory, solvers::Strategy::Auto})
    m_strategy->addItem(qstr(solvers::strategyName(s)), static_cast<int>(s));
  m_strategy->setToolTip(tr("The DP solvers' strategy: least overhead (time), least memory, or auto"));

  m_dpModel = new QComboBox;
  for (solvers::DpModelKind m : {solvers::DpModelKind::Simulator, solvers::DpModelKind::Paper})
    m_dpModel->addItem(qstr(solvers::dpModelName(m)), static_cast<int>(m));
  m_dpModel->setToolTip(
      tr("The memory model the DP solvers (and Chen's, which lower chains alike) plan with: simulator (their "
         "plans fit the budget as the simulator counts it; the default) or paper (Kusumoto et al.'s, "
         "activations only, to reproduce the paper's tables)"));

  m_costModel = new QComboBox;
  for (const std::string& name : graph::costModelNames()) m_costModel->addItem(QString::fromStdString(name));
  m_costModel->setToolTip(
      tr("Operation times: file (as the graph file gives them), paper (10 for convolutions, "
         "1 otherwise, as Kusumoto et al.), flops (a roofline estimate)"));

  m_workspaceModel = new QComboBox;
  for (const std::string& name : graph::workspaceModelNames()) m_workspaceModel->addItem(QString::fromStdString(name));
  m_workspaceModel->setToolTip(
      tr("Temporaries inside each step, which the simulator counts beside the tensors: file (as the graph "
         "file gives them, e.g. measured by remat profile), none, or libtorch-cpu (rules of op and phase "
         "measured with LibTorch's CPU kernels: a convolution's reordered weight and input, the loss's "
         "log-probabilities, ...)"));

  m_timeLimit = new QDoubleSpinBox;
  m_timeLimit->setObjectName(QStringLiteral("timeLimit"));
  m_timeLimit->setRange(0, Session::kMaxTimeLimitSeconds);
  m_timeLimit->setDecimals(1);
  m_timeLimit->setSuffix(tr(" s"));
  m_timeLimit->setSpecialValueText(tr("none"));
  m_timeLimit->setToolTip(tr("Each solver's time limit; it answers 'time-limit' when it runs out"));

  m_budget = new BudgetEditor;
  m_liveBudget = new QCheckBox(tr("Re-solve as the budget moves"));
  m_liveBudget->setChecked(true);
  m_liveBudget->setToolTip(
      tr("After a run, each budget change re-solves the checked solvers. The DP solvers then compute "
         "their whole budget/overhead front once, in the background, and answer every later budget "
         "from it without running the DP again (time-centric and auto strategies)."));
  m_run = new QPushButton(tr("Run"));
  m_run->setDefault(true);
  m_cancel = new QPushButton(tr("Cancel"));

  auto* form = new QFormLayout;
  form->addRow(tr("Strategy"), m_strategy);
  form->addRow(tr("DP model"), m_dpModel);
  form->addRow(tr("Cost model"), m_costModel);
  form->addRow(tr("Workspace"), m_workspaceModel);
  form->addRow(tr("Time limit"), m_timeLimit);
  form->addRow(tr("Budget"), m_budget);
  form->addRow(QString(), m_liveBudget);
  m_pins = new QLabel;
  m_pins->setObjectName(QStringLiteral("pins"));
  m_pins->setWordWrap(true);
  m_pins->setTextFormat(Qt::PlainText);
  m_pins->setText(tr("none (right-click a node to pin it)"));
  form->addRow(tr("Pins"), m_pins);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_run);
  buttons->addWidget(m_cancel);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(m_solverList, 1);
  layout->addLayout(form);
  layout->addLayout(buttons);
}

QProgressBar* SolverPanel::progressBar(const std::string& id) const {
  const auto it = m_progress.find(id);
  return it == m_progress.end() ? nullptr : it->second;
}

bool SolverPanel::setChecked(const std::string& id, bool checked) {
  const auto it = m_solverItems.find(id);
  if (it == m_solverItems.end()) return false;
  it->second->setCheckState(0, checked ? Qt::Checked : Qt::Unchecked);
  return true;
}

std::vector<std::string> SolverPanel::checkedSolvers() const {
  std::vector<std::string> ids;
  for (int k = 0; k < m_solverList->topLevelItemCount(); ++k) {
    const QTreeWidgetItem* item = m_solverList->topLevelItem(k);
    if (item->checkState(0) == Qt::Checked) ids.push_back(item->text(0).toStdString());
  }
  return ids;
}

void SolverPanel::resetProgress(const std::vector<std::string>& running) {
  for (auto& [id, bar] : m_progress) {
    bar->setValue(0);
    const bool runs = std::find(running.begin(), running.end(), id) != running.end();
    bar->setFormat(runs ? QStringLiteral("%p%") : QString());
  }
}

void SolverPanel::showProgress(const std::string& id, double fraction, const QString& stage) {
  if (QProgressBar* bar = progressBar(id)) {
    bar->setValue(static_cast<int>(std::lround(std::clamp(fraction, 0.0, 1.0) * kProgressSteps)));
    bar->setToolTip(stage);
  }
}

void SolverPanel::showOutcome(const std::string& id, const QString& outcome) {
  if (QProgressBar* bar = progressBar(id)) {
    bar->setValue(kProgressSteps);
    bar->setFormat(outcome);
  }
}

solvers::Strategy SolverPanel::strategyChoice() const {
  return static_cast<solvers::Strategy>(m_strategy->currentData().toInt());
}

void SolverPanel::setStrategy(solvers::Strategy strategy) {
  m_strategy->setCurrentIndex(m_strategy->findData(static_cast<int>(strategy)));
}

solvers::DpModelKind SolverPanel::dpModelChoice() const {
  return static_cast<solvers::DpModelKind>(m_dpModel->currentData().toInt());
}

void SolverPanel::setDpModel(solvers::DpModelKind model) {
  m_dpModel->setCurrentIndex(m_dpModel->findData(static_cast<int>(model)));
}

SolveRunner::Settings SolverPanel::settings() const {
  SolveRunner::Settings s;
  s.budget = m_budget->budget();
  s.strategy = strategyChoice();
  s.model = dpModelChoice();
  if (m_timeLimit->value() > 0) s.timeLimit = std::chrono::milliseconds(std::llround(m_timeLimit->value() * 1000));
  return s;
}

void SolverPanel::saveTo(Session& session) const {
  session.solvers = checkedSolvers();
  session.strategy = strategyChoice();
  session.model = dpModelChoice();
  session.budget = m_budget->budget();  // exact bytes, not the field's rounded text
  session.timeLimitSeconds = m_timeLimit->value();
}

void SolverPanel::loadFrom(const Session& session) {
  for (const auto& [id, item] : m_solverItems) setChecked(id, false);
  for (const auto& id : session.solvers) setChecked(id, true);
  setStrategy(session.strategy);
  setDpModel(session.model);
  m_budget->setBudget(session.budget);
  m_timeLimit->setValue(session.timeLimitSeconds);
}

}  // namespace remat::studio
