#include "remat/studio/ComparisonModel.hpp"

#include <QColor>

#include "remat/graph/ByteSize.hpp"

namespace remat::studio {

namespace {

const char* const kHeaders[] = {"solver",   "status",     "model peak", "simulated peak",
                                "overhead", "recomputed", "solve s"};

QString csvCell(const QString& cell) {
  if (!cell.contains(QLatin1Char(',')) && !cell.contains(QLatin1Char('"')) && !cell.contains(QLatin1Char('\n')))
    return cell;
  QString quoted = cell;
  quoted.replace(QStringLiteral("\""), QStringLiteral("\"\""));
  return QLatin1Char('"') + quoted + QLatin1Char('"');
}

bool numeric(int column) { return column >= ComparisonModel::ModelPeak; }

}  // namespace

ComparisonModel::ComparisonModel(QObject* parent) : QAbstractTableModel(parent) {}

void ComparisonModel::startRun(const std::vector<std::string>& solverIds) {
  beginResetModel();
  m_rows.clear();
  for (const auto& id : solverIds) m_rows.push_back({id, std::nullopt, true});
  endResetModel();
}

void ComparisonModel::setResult(const solvers::SolveResult& result) {
  if (const auto row = rowOf(result.solver)) {
    m_rows[static_cast<std::size_t>(*row)].result = result;
    m_rows[static_cast<std::size_t>(*row)].running = false;
    emit dataChanged(index(*row, 0), index(*row, ColumnCount - 1));
    return;
  }
  const int row = static_cast<int>(m_rows.size());
  beginInsertRows({}, row, row);
  m_rows.push_back({result.solver, result, false});
  endInsertRows();
}

void ComparisonModel::clear() {
  beginResetModel();
  m_rows.clear();
  endResetModel();
}

std::optional<int> ComparisonModel::rowOf(const std::string& solver) const {
  for (std::size_t k = 0; k < m_rows.size(); ++k)
    if (m_rows[k].solver == solver) return static_cast<int>(k);
  return std::nullopt;
}

QString ComparisonModel::statusText(int row) const {
  const Row& r = m_rows.at(static_cast<std::size_t>(row));
  if (r.result)
    return QString::fromUtf8(solvers::statusName(r.result->status).data(),
                             static_cast<qsizetype>(solvers::statusName(r.result->status).size()));
  return r.running ? tr("running") : tr("waiting");
}

QString ComparisonModel::cellText(int row, int column) const {
  const Row& r = m_rows.at(static_cast<std::size_t>(row));
  if (column == Solver) return QString::fromStdString(r.solver);
  if (column == Status) return statusText(row);
  if (!r.result) return {};
  const solvers::PlanMetrics& m = r.result->metrics;
  if (column == SolveSeconds) return QString::number(m.solveSeconds, 'f', 3);
  // A bound without a plan (lp-bound) shows what it proves: the overhead is at least this.
  if (!r.result->plan && column == Overhead && r.result->overheadLowerBound)
    return QStringLiteral(">= %1").arg(r.result->overheadLowerBound->value);
  if (!r.result->plan) return QStringLiteral("-");
  switch (column) {
    case ModelPeak:
      return m.modelPeak ? QString::fromStdString(formatByteSize(*m.modelPeak)) : QStringLiteral("-");
    case SimulatedPeak:
      return QString::fromStdString(formatByteSize(m.simulatedPeak));
    case Overhead:
      return QString::number(m.overhead.value);
    case Recomputed:
      return QString::number(m.recomputedNodes);
    default:
      return {};
  }
}

int ComparisonModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ComparisonModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ComparisonModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
  const Row& r = m_rows[static_cast<std::size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole:
      return cellText(index.row(), index.column());
    case Qt::TextAlignmentRole:
      return QVariant::fromValue(numeric(index.column()) ? Qt::AlignRight | Qt::AlignVCenter
                                                         : Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ToolTipRole:
      if (r.result && !r.result->message.empty()) return QString::fromStdString(r.result->message);
      return {};
    case Qt::ForegroundRole:
      if (index.column() == Status && r.result && !r.result->plan && r.result->status != solvers::SolveStatus::Bound)
        return QColor(0xc0, 0x39, 0x2b);
      return {};
    default:
      return {};
  }
}

QVariant ComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
  return QString::fromLatin1(kHeaders[section]);
}

QString ComparisonModel::toMarkdown() const {
  QString out = QStringLiteral("|");
  QString rule = QStringLiteral("|");
  for (int c = 0; c < ColumnCount; ++c) {
    out += QLatin1Char(' ') + QString::fromLatin1(kHeaders[c]) + QStringLiteral(" |");
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
  QString out;
  for (int c = 0; c < ColumnCount; ++c) out += (c ? QStringLiteral(",") : QString()) + QString::fromLatin1(kHeaders[c]);
  out += QLatin1Char('\n');
  for (int r = 0; r < rowCount(); ++r) {
    for (int c = 0; c < ColumnCount; ++c) out += (c ? QStringLiteral(",") : QString()) + csvCell(cellText(r, c));
    out += QLatin1Char('\n');
  }
  return out;
}

}  // namespace remat::studio
