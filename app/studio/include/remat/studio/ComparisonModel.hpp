#pragma once

#include <QAbstractTableModel>
#include <QString>

#include <optional>
#include <string>
#include <vector>

#include "remat/solvers/Solver.hpp"

namespace remat::studio {

/// The side-by-side table of a run: one row per solver with its status and the figures of its plan
/// (the DP model's peak, the simulated peak, the simulated overhead also as a percentage of the plain
/// run's step time, recomputed nodes, solve time), whether it fits its budget in the simulator, and
/// the winner as `remat compare` judges it (solvers::bestResult), marked * in the best column.
class ComparisonModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    Solver,
    Best,
    Status,
    Fits,
    ModelPeak,
    SimulatedPeak,
    Overhead,
    OverheadPercent,
    Recomputed,
    SolveSeconds,
    ColumnCount
  };

  /// A row: the solver, and its result once it has one.
  struct Row {
    std::string solver;
    std::optional<solvers::SolveResult> result;
    bool running = false;
  };

  explicit ComparisonModel(QObject* parent = nullptr);

  /// New rows, all waiting for their result; `leastBudgets` when each solver runs at its own least
  /// budget (the winner is then the lowest simulated peak).
  void startRun(const std::vector<std::string>& solverIds, bool leastBudgets = false);
  /// The plain run's step time, the unit of the overhead percentages (none while zero).
  void setPlainStepTime(Ticks time);
  /// The winning row, if any plan fits.
  [[nodiscard]] std::optional<int> bestRow() const { return m_best; }
  /// The solver's result (a row is added if it has none).
  void setResult(const solvers::SolveResult& result);
  void clear();

  [[nodiscard]] const std::vector<Row>& rows() const { return m_rows; }
  [[nodiscard]] std::optional<int> rowOf(const std::string& solver) const;
  /// The status text of a row: "running" until it has a result, then the result's status.
  [[nodiscard]] QString statusText(int row) const;

  /// The table as shown, as a GitHub Markdown table (numbers right-aligned).
  [[nodiscard]] QString toMarkdown() const;
  /// The table as shown, as CSV (RFC 4180 quoting).
  [[nodiscard]] QString toCsv() const;

  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                    int role = Qt::DisplayRole) const override;

 private:
  [[nodiscard]] QString cellText(int row, int column) const;
  void judge();
  std::vector<Row> m_rows;
  bool m_leastBudgets = false;
  Ticks m_plainTime{0};
  std::optional<int> m_best;
};

}  // namespace remat::studio
