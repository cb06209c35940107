#pragma once

#include <QAbstractTableModel>
#include <QString>

#include <optional>
#include <string>
#include <vector>

#include "remat/solvers/Comparison.hpp"
#include "remat/solvers/Solver.hpp"

namespace remat::studio {

/// The side-by-side table of a run, the columns of `remat compare`: one row per solver with its status
/// and the figures of its plan (the DP model's peak, the simulated peak and its change against the plain
/// run, the simulated overhead in the graph's time unit and as a percentage of the plain run's step
/// time, how far it lies above the tightest proven bound, recomputed nodes, solve time), whether it fits
/// its budget in the simulator, and the winner as `remat compare` judges it (solvers::bestResult),
/// marked * in the best column, bold and shaded. SortRole gives every cell a value to sort by.
class ComparisonModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    Solver,
    Best,
    Status,
    Fits,
    Budget,
    ModelPeak,
    SimulatedPeak,
    VsVanilla,
    Overhead,
    OverheadPercent,
    OverBound,
    Recomputed,
    SolveSeconds,
    ColumnCount
  };

  /// The role that sorts a column: numbers for the numeric columns (a cell without one sorts after every
  /// number), the text otherwise.
  static constexpr int SortRole = Qt::UserRole + 1;

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
  /// The plain run: its simulated peak and step time, what the percentages are of (none while zero),
  /// and the graph's time unit, shown in the overhead's header.
  void setPlainRun(Bytes peak, Ticks stepTime, const QString& timeUnit);
  /// The winning row, if any plan fits.
  [[nodiscard]] std::optional<int> bestRow() const { return m_best; }
  /// The tightest proven overhead bound among the results (solvers::tightestBound), if any.
  [[nodiscard]] const std::optional<solvers::OverheadBound>& bound() const { return m_bound; }
  /// The solver's result (a row is added if it has none).
  void setResult(const solvers::SolveResult& result);
  /// Removes a row (a plan made under pins that are gone); false when there is none of that label.
  bool removeRow(const std::string& solver);
  [[nodiscard]] bool leastBudgets() const { return m_leastBudgets; }
  /// Rows made under other settings than the panel's now: greyed until the next run.
  void setStale(bool stale);
  [[nodiscard]] bool stale() const { return m_stale; }
  /// Why a row has its status: what its solver's optimality is over (SolverInfo::scheduleClass and
  /// model), what feasible, bound, infeasible, ... mean, and the row's own message.
  [[nodiscard]] QString statusTip(int row) const;
  /// How the winner was chosen (the rule of `remat compare`), and the rows it ties with, if any.
  [[nodiscard]] QString bestTip() const;
  void clear();

  [[nodiscard]] const std::vector<Row>& rows() const { return m_rows; }
  [[nodiscard]] std::optional<int> rowOf(const std::string& solver) const;
  /// The status text of a row: "running" until it has a result, then the result's status.
  [[nodiscard]] QString statusText(int row) const;

  /// The table as shown, as a GitHub Markdown table (numbers right-aligned).
  [[nodiscard]] QString toMarkdown() const;
  /// The table as CSV (RFC 4180 quoting) for a spreadsheet or a script: numbers as plain numbers with
  /// the unit in the header ("simulated peak (bytes)", "overhead (ns)", "solve (s)"), the budget each row
  /// was judged at in bytes, "yes"/"no" for best and fits, empty cells where there is no number.
  [[nodiscard]] QString toCsv() const;

  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                    int role = Qt::DisplayRole) const override;

 private:
  [[nodiscard]] QString cellText(int row, int column) const;
  [[nodiscard]] QVariant sortValue(int row, int column) const;
  [[nodiscard]] QString headerText(int column) const;
  void judge();
  std::vector<Row> m_rows;
  bool m_leastBudgets = false;
  bool m_stale = false;
  Bytes m_plainPeak{0};
  Ticks m_plainTime{0};
  QString m_timeUnit;
  std::optional<int> m_best;
  std::optional<solvers::OverheadBound> m_bound;
};

}  // namespace remat::studio
