#include "remat/studio/ComparisonModel.hpp"

#include <QColor>
#include <QFont>
#include <QStringList>

#include <iterator>
#include <limits>

#include "remat/graph/ByteSize.hpp"
#include "remat/solvers/Comparison.hpp"
#include "remat/solvers/SolverRegistry.hpp"
#include "remat/viz/PlanFigures.hpp"

namespace remat::studio {

namespace {

const char* const kHeaders[] = {"solver",     "best",           "status",     "fits",     "budget",
                                "model peak", "simulated peak", "vs vanilla", "overhead", "overhead %",
                                "over bound", "recomputed",     "solve s"};
static_assert(std::size(kHeaders) == ComparisonModel::ColumnCount);

// What each column means, as its header's tooltip. Long tips are literals joined on purpose; the
// static_assert below counts them.
// NOLINTBEGIN(bugprone-suspicious-missing-comma)
const char* const kHeaderTips[] = {
    "the solver (hover a row for its message)",
    "* marks the winner: the least simulated overhead among the plans that fit the budget in the simulator "
    "(with each solver at its own least budget: the lowest simulated peak), among the plans whose solvers honour "
    "every pin; 'ignores ... pins' marks a plan whose solver ignored some (a graph's own pins count): it answers "
    "another question and cannot win",
    "the solver's answer: optimal, feasible, infeasible, over-budget, time-limit, limit, ...; error when the "
    "call itself failed",
    "whether the plan's simulated peak is within the budget",
    "the budget the row is judged at: the run's (a plan file or a plan picked on a Pareto front is judged at "
    "the run's too); with each solver at its own least budget, that solver's least budget",
    "the peak in the DP model the plan was optimized in (DP solvers only)",
    "the plan's peak in the simulator, the authority on memory",
    "the simulated peak against the plain run's (store-all with liveness)",
    "the forward time spent on recomputations, in the simulator",
    "the overhead as a percentage of the plain run's step time",
    "the overhead minus the tightest proven lower bound among the results (lp-bound's or milp's), for plans "
    "that fit; the bound holds for the Checkmate MILP's formulation",
    "nodes computed more than once",
    "the solver's wall-clock time; 'front' when the answer was looked up in the solver's whole budget/overhead "
    "front, computed once before (its tooltip says how long that took)",
};
// NOLINTEND(bugprone-suspicious-missing-comma)
static_assert(std::size(kHeaderTips) == ComparisonModel::ColumnCount);

QString percentText(double value) {
  return (value > 0 ? QStringLiteral("+") : QString()) + QString::number(value, 'f', 1) + QStringLiteral("%");
}

QString csvCell(const QString& cell) {
  if (!cell.contains(QLatin1Char(',')) && !cell.contains(QLatin1Char('"')) && !cell.contains(QLatin1Char('\n')))
    return cell;
  QString quoted = cell;
  quoted.replace(QStringLiteral("\""), QStringLiteral("\"\""));
  return QLatin1Char('"') + quoted + QLatin1Char('"');
}

bool numeric(int column) { return column >= ComparisonModel::Budget; }

}  // namespace

ComparisonModel::ComparisonModel(QObject* parent) : QAbstractTableModel(parent) {}

void ComparisonModel::startRun(const std::vector<std::string>& solverIds, bool leastBudgets) {
  beginResetModel();
  m_rows.clear();
  m_leastBudgets = leastBudgets;
  m_best.reset();
  for (const auto& id : solverIds) m_rows.push_back({id, std::nullopt, true});
  endResetModel();
}

void ComparisonModel::setPlainRun(Bytes peak, Ticks stepTime, const QString& timeUnit) {
  m_plainPeak = peak;
  m_plainTime = stepTime;
  m_timeUnit = timeUnit;
  emit headerDataChanged(Qt::Horizontal, Overhead, Overhead);
  if (!m_rows.empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

void ComparisonModel::setResult(const solvers::SolveResult& result) {
  if (const auto row = rowOf(result.solver)) {
    m_rows[static_cast<std::size_t>(*row)].result = result;
    m_rows[static_cast<std::size_t>(*row)].running = false;
    emit dataChanged(index(*row, 0), index(*row, ColumnCount - 1));
  } else {
    const int added = static_cast<int>(m_rows.size());
    beginInsertRows({}, added, added);
    m_rows.push_back({result.solver, result, false});
    endInsertRows();
  }
  judge();
}

void ComparisonModel::judge() {
  // The rule of `remat compare`, over the rows that have a result.
  std::vector<solvers::SolveResult> results;
  std::vector<int> rowOfResult;
  for (std::size_t k = 0; k < m_rows.size(); ++k)
    if (m_rows[k].result) {
      results.push_back(*m_rows[k].result);
      rowOfResult.push_back(static_cast<int>(k));
    }
  const auto best = solvers::bestResult(results, m_leastBudgets);
  const std::optional<int> next = best ? std::optional<int>(rowOfResult[*best]) : std::nullopt;
  auto bound = solvers::tightestBound(results, m_leastBudgets);
  const bool sameBound = bound.has_value() == m_bound.has_value() && (!bound || bound->overhead == m_bound->overhead);
  if (next == m_best && sameBound) return;
  m_best = next;
  m_bound = std::move(bound);
  // The mark, the shading and the gaps to the bound move: every row may change.
  emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

void ComparisonModel::setStale(bool stale) {
  if (stale == m_stale) return;
  m_stale = stale;
  if (!m_rows.empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

bool ComparisonModel::removeRow(const std::string& solver) {
  const auto row = rowOf(solver);
  if (!row) return false;
  beginRemoveRows({}, *row, *row);
  m_rows.erase(m_rows.begin() + *row);
  endRemoveRows();
  m_best.reset();
  m_bound.reset();
  judge();
  if (rowCount() > 0) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
  return true;
}

QString ComparisonModel::statusTip(int row) const {
  const Row& r = m_rows.at(static_cast<std::size_t>(row));
  if (!r.result) return r.running ? tr("the solver is running") : tr("waiting for its turn");
  const solvers::SolveResult& res = *r.result;
  const auto pinnedOf = viz::pinnedSolver(res.solver);
  const solvers::Solver* solver =
      solvers::SolverRegistry::builtin().find(pinnedOf ? std::string(*pinnedOf) : res.solver);
  QString what;
  if (res.call != solvers::CallStatus::Ok) {
    what = tr("error: the solver could not run on this graph or these settings");
  } else {
    switch (res.status) {
      case solvers::SolveStatus::Optimal:
        what = solver ? tr("optimal within its class: the least overhead over %1 schedules, in %2, at this "
                           "budget; another class (another solver) may do better")
                            .arg(QString::fromUtf8(solvers::scheduleClassName(solver->info().scheduleClass).data()),
                                 solver->info().budgetMeasure == solvers::BudgetMeasure::DpModel
                                     ? tr("its DP model's memory")
                                     : tr("the simulator's memory"))
                      : tr("optimal within its solver's class");
        break;
      case solvers::SolveStatus::Feasible:
        what = solver ? tr("feasible: a plan within the budget, no claim that it is the least overhead")
                      : tr("feasible: a plan from elsewhere (a file, or picked on a Pareto front) whose simulated "
                           "peak is within the budget at hand");
        break;
      case solvers::SolveStatus::Bound: what = tr("bound: no plan, a proven lower bound on the overhead"); break;
      case solvers::SolveStatus::Infeasible:
        what = solver ? tr("infeasible: no plan of its class fits the budget")
                      : tr("does not fit: the plan's simulated peak is over the budget at hand");
        break;
      case solvers::SolveStatus::OverBudget:
        what =
            tr("over-budget: the plan meets the budget in the solver's own memory model but peaks above it in "
               "the simulator, the authority on memory");
        break;
      case solvers::SolveStatus::TimeLimit:
        what = res.plan ? tr("time-limit: the best plan found before the time limit, not proven optimal")
                        : tr("time-limit: the time limit ran out before any plan was found");
        break;
      default:
        what = tr("%1: the solver stopped without proving an answer")
                   .arg(QString::fromUtf8(solvers::outcomeName(res).data()));
        break;
    }
  }
  if (!res.message.empty()) what += QStringLiteral("\n") + QString::fromStdString(res.message);
  return what;
}

QString ComparisonModel::bestTip() const {
  if (!m_best) return {};
  QString tip = m_leastBudgets ? tr("the lowest simulated peak, each solver at its own least budget (ties: the "
                                    "lower overhead, then the earlier row)")
                               : tr("the least simulated overhead among the plans that fit the budget in the "
                                    "simulator (ties: the lower peak, then the earlier row)");
  const solvers::PlanMetrics& win = m_rows[static_cast<std::size_t>(*m_best)].result->metrics;
  QStringList ties;
  for (std::size_t k = 0; k < m_rows.size(); ++k) {
    const auto& res = m_rows[k].result;
    if (static_cast<int>(k) == *m_best || !res || !solvers::fitsBudget(*res)) continue;
    if (res->metrics.overhead == win.overhead && res->metrics.simulatedPeak == win.simulatedPeak)
      ties << QString::fromStdString(m_rows[k].solver);
  }
  if (!ties.isEmpty()) tip += tr("\ntied with %1: the same overhead and peak").arg(ties.join(QStringLiteral(", ")));
  return tip;
}

void ComparisonModel::clear() {
  beginResetModel();
  m_rows.clear();
  m_best.reset();
  m_bound.reset();
  endResetModel();
}

std::optional<int> ComparisonModel::rowOf(const std::string& solver) const {
  for (std::size_t k = 0; k < m_rows.size(); ++k)
    if (m_rows[k].solver == solver) return static_cast<int>(k);
  return std::nullopt;
}

QString ComparisonModel::statusText(int row) const {
  const Row& r = m_rows.at(static_cast<std::size_t>(row));
  if (r.result) {
    const std::string_view name = solvers::outcomeName(*r.result);
    return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
  }
  return r.running ? tr("running") : tr("waiting");
}

QString ComparisonModel::cellText(int row, int column) const {
  const Row& r = m_rows.at(static_cast<std::size_t>(row));
  if (column == Solver) return QString::fromStdString(r.solver);
  if (column == Status) return statusText(row);
  if (column == Best) {
    if (m_best == row) return QStringLiteral("*");
    // Such a plan answers another question than the one asked, so it never wins (solvers::bestResult).
    if (r.result && r.result->plan && !r.result->pinsIgnored.empty())
      return tr("ignores %1 pins").arg(QString::fromStdString(r.result->pinsIgnored));
    return {};
  }
  if (!r.result) return {};
  if (column == Fits) {
    if (!r.result->plan) return QStringLiteral("-");
    return solvers::fitsBudget(*r.result) ? tr("yes") : tr("no");
  }
  const solvers::PlanMetrics& m = r.result->metrics;
  if (column == SolveSeconds) return r.result->fromFront ? tr("front") : QString::number(m.solveSeconds, 'f', 3);
  if (column == Budget)
    return r.result->budget ? QString::fromStdString(formatByteSize(*r.result->budget)) : QStringLiteral("-");
  // A bound without a plan (lp-bound) shows what it proves: the overhead is at least this.
  if (!r.result->plan && column == Overhead && r.result->overheadLowerBound)
    return QStringLiteral(">= %1").arg(r.result->overheadLowerBound->value);
  if (!r.result->plan) return QStringLiteral("-");
  switch (column) {
    case ModelPeak: return m.modelPeak ? QString::fromStdString(formatByteSize(*m.modelPeak)) : QStringLiteral("-");
    case SimulatedPeak: return QString::fromStdString(formatByteSize(m.simulatedPeak));
    case VsVanilla:
      if (m_plainPeak.value <= 0) return QStringLiteral("-");
      return percentText(100.0 * double(m.simulatedPeak.value - m_plainPeak.value) / double(m_plainPeak.value));
    case Overhead: return QString::number(m.overhead.value);
    case OverheadPercent:
      if (m_plainTime.value <= 0) return QStringLiteral("-");
      return QString::number(solvers::overheadPercent(m.overhead, m_plainTime), 'f', 1) + QStringLiteral("%");
    case OverBound:
      if (!m_bound || !solvers::fitsBudget(*r.result)) return QStringLiteral("-");
      return QString::number((m.overhead - m_bound->overhead).value);
    case Recomputed: return QString::number(m.recomputedNodes);
    default: return {};
  }
}

QVariant ComparisonModel::sortValue(int row, int column) const {
  if (!numeric(column)) return cellText(row, column);
  const Row& r = m_rows.at(static_cast<std::size_t>(row));
  // Cells without a number sort after every number.
  constexpr double kNone = std::numeric_limits<double>::max();
  if (!r.result) return kNone;
  const solvers::PlanMetrics& m = r.result->metrics;
  if (column == SolveSeconds) return m.solveSeconds;
  if (column == Budget) return r.result->budget ? double(r.result->budget->value) : kNone;
  if (!r.result->plan)
    return column == Overhead && r.result->overheadLowerBound ? double(r.result->overheadLowerBound->value) : kNone;
  switch (column) {
    case ModelPeak: return m.modelPeak ? double(m.modelPeak->value) : kNone;
    case SimulatedPeak:
    case VsVanilla: return double(m.simulatedPeak.value);
    case Overhead:
    case OverheadPercent: return double(m.overhead.value);
    case OverBound:
      return m_bound && solvers::fitsBudget(*r.result) ? double((m.overhead - m_bound->overhead).value) : kNone;
    case Recomputed: return double(m.recomputedNodes);
    default: return kNone;
  }
}

QString ComparisonModel::headerText(int column) const {
  if (column == Overhead && !m_timeUnit.isEmpty()) return QStringLiteral("overhead (%1)").arg(m_timeUnit);
  if (column == Budget && m_leastBudgets) return tr("least budget");
  return QString::fromLatin1(kHeaders[column]);
}

int ComparisonModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ComparisonModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ComparisonModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
  const Row& r = m_rows[static_cast<std::size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole: return cellText(index.row(), index.column());
    case SortRole: return sortValue(index.row(), index.column());
    case Qt::TextAlignmentRole:
      return QVariant::fromValue(numeric(index.column()) ? Qt::AlignRight | Qt::AlignVCenter
                                                         : Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ToolTipRole:
      if (index.column() == Best && m_best == index.row()) return bestTip();
      if (index.column() == Status && r.result) return statusTip(index.row());
      if (index.column() == SolveSeconds && r.result && r.result->fromFront)
        return tr("looked up in its whole budget/overhead front, which took %1 s to compute once")
            .arg(r.result->frontSeconds, 0, 'f', 2);
      if (r.result && !r.result->message.empty()) return QString::fromStdString(r.result->message);
      return {};
    case Qt::ForegroundRole:
      if (m_stale) return QColor(0x99, 0x99, 0x99);
      if (index.column() == Status && r.result && !r.result->plan && r.result->status != solvers::SolveStatus::Bound)
        return QColor(0xc0, 0x39, 0x2b);
      if (index.column() == Fits && r.result && r.result->plan && !solvers::fitsBudget(*r.result))
        return QColor(0xc0, 0x39, 0x2b);
      return {};
    case Qt::FontRole:
      if (m_best == index.row()) {
        QFont bold;
        bold.setBold(true);
        return bold;
      }
      return {};
    case Qt::BackgroundRole:
      // The winner stands out at a glance (a pale green that keeps dark text legible).
      if (m_best == index.row()) return QColor(0xd5, 0xf0, 0xdc);
      return {};
    default: return {};
  }
}

QVariant ComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
  if (role == Qt::DisplayRole) return headerText(section);
  if (role == Qt::ToolTipRole) return tr(kHeaderTips[section]);
  return {};
}

QString ComparisonModel::toMarkdown() const {
  QString out = QStringLiteral("|");
  QString rule = QStringLiteral("|");
  for (int c = 0; c < ColumnCount; ++c) {
    out += QLatin1Char(' ') + headerText(c) + QStringLiteral(" |");
    rule += numeric(c) ? QStringLiteral("---:|") : QStringLiteral("---|");
  }
  out += QLatin1Char('\n') + rule + QLatin1Char('\n');
  for (int r = 0; r < rowCount(); ++r) {
    out += QLatin1Char('|');
    for (int c = 0; c < ColumnCount; ++c) {
      QString cell = cellText(r, c);
      cell.replace(QStringLiteral("|"), QStringLiteral("\\|"));
      out += QLatin1Char(' ') + cell + QStringLiteral(" |");
    }
    out += QLatin1Char('\n');
  }
  return out;
}

QString ComparisonModel::toCsv() const {
  const QString unit = m_timeUnit.isEmpty() ? QStringLiteral("ticks") : m_timeUnit;
  const QStringList header = {
      QStringLiteral("solver"),
      QStringLiteral("best"),
      QStringLiteral("status"),
      QStringLiteral("fits"),
      m_leastBudgets ? QStringLiteral("least budget (bytes)") : QStringLiteral("budget (bytes)"),
      QStringLiteral("model peak (bytes)"),
      QStringLiteral("simulated peak (bytes)"),
      QStringLiteral("vs vanilla (%)"),
      QStringLiteral("overhead (%1)").arg(unit),
      QStringLiteral("overhead (%)"),
      QStringLiteral("over bound (%1)").arg(unit),
      QStringLiteral("recomputed (nodes)"),
      QStringLiteral("solve (s)"),
      QStringLiteral("overhead lower bound (%1)").arg(unit)};
  QString out;
  for (qsizetype c = 0; c < header.size(); ++c) out += (c ? QStringLiteral(",") : QString()) + csvCell(header[c]);
  out += QLatin1Char('\n');
  auto num = [](std::int64_t v) { return QString::number(v); };
  auto real = [](double v) { return QString::number(v, 'g', 10); };
  for (int r = 0; r < rowCount(); ++r) {
    const Row& row = m_rows[static_cast<std::size_t>(r)];
    QStringList cells(header.size());
    cells[0] = QString::fromStdString(row.solver);
    cells[1] = m_best == r ? QStringLiteral("yes") : QStringLiteral("no");
    cells[2] = statusText(r);
    if (const auto& res = row.result) {
      const solvers::PlanMetrics& m = res->metrics;
      cells[3] = res->plan ? (solvers::fitsBudget(*res) ? QStringLiteral("yes") : QStringLiteral("no")) : QString();
      if (res->budget) cells[4] = num(res->budget->value);
      if (res->plan) {
        if (m.modelPeak) cells[5] = num(m.modelPeak->value);
        cells[6] = num(m.simulatedPeak.value);
        if (m_plainPeak.value > 0)
          cells[7] = real(100.0 * double(m.simulatedPeak.value - m_plainPeak.value) / double(m_plainPeak.value));
        cells[8] = num(m.overhead.value);
        if (m_plainTime.value > 0) cells[9] = real(solvers::overheadPercent(m.overhead, m_plainTime));
        if (m_bound && solvers::fitsBudget(*res)) cells[10] = num((m.overhead - m_bound->overhead).value);
        cells[11] = num(m.recomputedNodes);
      }
      cells[12] = real(m.solveSeconds);
      if (res->overheadLowerBound) cells[13] = num(res->overheadLowerBound->value);
    }
    for (qsizetype c = 0; c < cells.size(); ++c) out += (c ? QStringLiteral(",") : QString()) + csvCell(cells[c]);
    out += QLatin1Char('\n');
  }
  return out;
}

}  // namespace remat::studio
