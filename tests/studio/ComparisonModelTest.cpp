#include <catch2/catch.hpp>

#include <QFont>

#include "remat/graph/ByteSize.hpp"
#include "remat/studio/ComparisonModel.hpp"

using namespace remat;
using remat::studio::ComparisonModel;

namespace {
solvers::SolveResult result(const std::string& id, solvers::SolveStatus status, bool withPlan) {
  solvers::SolveResult r;
  r.solver = id;
  r.status = status;
  if (withPlan) {
    r.plan = solvers::Plan{};
    r.metrics.modelPeak = Bytes{3 << 20};
    r.metrics.simulatedPeak = Bytes{2 << 20};
    r.metrics.overhead = Ticks{42};
    r.metrics.recomputedNodes = 7;
  }
  r.metrics.solveSeconds = 0.25;
  return r;
}
}  // namespace

TEST_CASE("ComparisonModel shows running rows, then results", "[studio][table]") {
  ComparisonModel model;
  model.startRun({"approx-dp", "chen, \"greedy\""});
  REQUIRE(model.rowCount() == 2);
  CHECK(model.columnCount() == ComparisonModel::ColumnCount);
  CHECK(model.statusText(0) == QStringLiteral("running"));
  CHECK(model.data(model.index(0, ComparisonModel::SimulatedPeak)).toString().isEmpty());

  model.setResult(result("approx-dp", solvers::SolveStatus::Optimal, true));
  CHECK(model.statusText(0) == QStringLiteral("optimal"));
  CHECK(model.data(model.index(0, ComparisonModel::SimulatedPeak)).toString() == QStringLiteral("2.00 MiB"));
  CHECK(model.data(model.index(0, ComparisonModel::ModelPeak)).toString() == QStringLiteral("3.00 MiB"));
  CHECK(model.data(model.index(0, ComparisonModel::Overhead)).toString() == QStringLiteral("42"));
  CHECK(model.data(model.index(0, ComparisonModel::Recomputed)).toString() == QStringLiteral("7"));
  CHECK(model.data(model.index(0, ComparisonModel::SolveSeconds)).toString() == QStringLiteral("0.250"));

  model.setResult(result("chen, \"greedy\"", solvers::SolveStatus::Infeasible, false));
  CHECK(model.statusText(1) == QStringLiteral("infeasible"));
  CHECK(model.data(model.index(1, ComparisonModel::SimulatedPeak)).toString() == QStringLiteral("-"));

  // A result for a solver that has no row gets one.
  model.setResult(result("dtr", solvers::SolveStatus::Cancelled, false));
  CHECK(model.rowCount() == 3);
  CHECK(model.rowOf("dtr") == 2);

  // lp-bound's answer is a bound, not a plan: its overhead cell says what it proves, not in red.
  solvers::SolveResult bound = result("lp-bound", solvers::SolveStatus::Bound, false);
  bound.overheadLowerBound = Ticks{17};
  model.setResult(bound);
  CHECK(model.statusText(3) == QStringLiteral("bound"));
  CHECK(model.data(model.index(3, ComparisonModel::Overhead)).toString() == QStringLiteral(">= 17"));
  CHECK(model.data(model.index(3, ComparisonModel::SimulatedPeak)).toString() == QStringLiteral("-"));
  CHECK_FALSE(model.data(model.index(3, ComparisonModel::Status), Qt::ForegroundRole).isValid());
  CHECK(model.data(model.index(1, ComparisonModel::Status), Qt::ForegroundRole).isValid());
}

TEST_CASE("ComparisonModel copies as Markdown and CSV", "[studio][table]") {
  ComparisonModel model;
  model.startRun({"approx-dp", "a|b, \"c\""});
  model.setResult(result("approx-dp", solvers::SolveStatus::Optimal, true));
  model.setResult(result("a|b, \"c\"", solvers::SolveStatus::Infeasible, false));
  model.setPlainRun(Bytes{4 << 20}, Ticks{840}, QStringLiteral("ns"));
  CHECK(model.toMarkdown() ==
        QStringLiteral(
            "| solver | best | status | fits | budget | model peak | simulated peak | vs vanilla | overhead (ns) "
            "| overhead % | over bound | recomputed | solve s |\n"
            "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
            "| approx-dp | * | optimal | yes | - | 3.00 MiB | 2.00 MiB | -50.0% | 42 | 5.0% | - | 7 | 0.250 |\n"
            "| a\\|b, \"c\" |  | infeasible | - | - | - | - | - | - | - | - | - | 0.250 |\n"));
  // CSV is for spreadsheets and scripts: numbers without units (the units in the header), the budget
  // in bytes, yes/no, empty cells where there is no number.
  solvers::SolveResult budgeted = result("approx-dp", solvers::SolveStatus::Optimal, true);
  budgeted.budget = Bytes{3 << 20};
  model.setResult(budgeted);
  CHECK(
      model.toCsv() ==
      QStringLiteral("solver,best,status,fits,budget (bytes),model peak (bytes),simulated peak (bytes),vs vanilla (%),"
                     "overhead (ns),overhead (%),over bound (ns),recomputed (nodes),solve (s),"
                     "overhead lower bound (ns)\n"
                     "approx-dp,yes,optimal,yes,3145728,3145728,2097152,-50,42,5,,7,0.25,\n"
                     "\"a|b, \"\"c\"\"\",no,infeasible,,,,,,,,,,0.25,\n"));
}

// The winner by `remat compare`'s rule (solvers::bestResult): the least overhead among the plans that
// fit their budget in the simulator; a plan over its budget never wins, however cheap.
TEST_CASE("ComparisonModel marks the plan that fits with the least overhead as the best", "[studio][table]") {
  ComparisonModel model;
  model.startRun({"exact-dp", "dtr", "chen-sqrtn"});
  CHECK_FALSE(model.bestRow());
  auto withBudget = [](solvers::SolveResult r, std::int64_t budget, std::int64_t peak, std::int64_t overhead) {
    r.budget = Bytes{budget};
    r.metrics.simulatedPeak = Bytes{peak};
    r.metrics.overhead = Ticks{overhead};
    return r;
  };
  // Over its budget in the simulator: the cheapest, but it does not fit.
  model.setResult(withBudget(result("exact-dp", solvers::SolveStatus::OverBudget, true), 100, 120, 5));
  CHECK_FALSE(model.bestRow());
  CHECK(model.data(model.index(0, ComparisonModel::Fits)).toString() == QStringLiteral("no"));
  CHECK(model.data(model.index(0, ComparisonModel::Fits), Qt::ForegroundRole).isValid());
  model.setResult(withBudget(result("dtr", solvers::SolveStatus::Feasible, true), 100, 90, 30));
  CHECK(model.bestRow() == 1);
  model.setResult(withBudget(result("chen-sqrtn", solvers::SolveStatus::Feasible, true), 100, 60, 20));
  CHECK(model.bestRow() == 2);
  CHECK(model.data(model.index(2, ComparisonModel::Best)).toString() == QStringLiteral("*"));
  CHECK(model.data(model.index(1, ComparisonModel::Best)).toString().isEmpty());
  CHECK(model.data(model.index(2, ComparisonModel::Solver), Qt::FontRole).value<QFont>().bold());
  // Without the plain run's time there is no percentage.
  CHECK(model.data(model.index(2, ComparisonModel::OverheadPercent)).toString() == QStringLiteral("-"));
  model.setPlainRun(Bytes{100}, Ticks{400}, QStringLiteral("ticks"));
  CHECK(model.data(model.index(2, ComparisonModel::OverheadPercent)).toString() == QStringLiteral("5.0%"));
  CHECK(model.data(model.index(2, ComparisonModel::VsVanilla)).toString() == QStringLiteral("-40.0%"));
  // The winner is shaded as well as bold; the others are not.
  CHECK(model.data(model.index(2, ComparisonModel::Overhead), Qt::BackgroundRole).isValid());
  CHECK_FALSE(model.data(model.index(1, ComparisonModel::Overhead), Qt::BackgroundRole).isValid());
  CHECK(model.headerData(ComparisonModel::Overhead, Qt::Horizontal).toString() == QStringLiteral("overhead (ticks)"));
  for (int c = 0; c < ComparisonModel::ColumnCount; ++c)
    CHECK_FALSE(model.headerData(c, Qt::Horizontal, Qt::ToolTipRole).toString().isEmpty());

  // Each solver at its own least budget: the lowest simulated peak wins.
  model.startRun({"dtr", "chen-sqrtn"}, true);
  model.setResult(withBudget(result("dtr", solvers::SolveStatus::Feasible, true), 50, 50, 30));
  model.setResult(withBudget(result("chen-sqrtn", solvers::SolveStatus::Feasible, true), 70, 70, 10));
  CHECK(model.bestRow() == 0);
}

TEST_CASE("ComparisonModel shows each plan's gap to the tightest bound and sorts by value", "[studio][table]") {
  ComparisonModel model;
  model.startRun({"dtr", "lp-bound", "chen-sqrtn", "milp"});
  auto with = [](solvers::SolveResult r, std::int64_t peak, std::int64_t overhead) {
    r.budget = Bytes{100};
    r.metrics.simulatedPeak = Bytes{peak};
    r.metrics.overhead = Ticks{overhead};
    return r;
  };
  model.setResult(with(result("dtr", solvers::SolveStatus::Feasible, true), 90, 300));
  model.setResult(with(result("chen-sqrtn", solvers::SolveStatus::Feasible, true), 120, 20));  // over budget
  CHECK(model.data(model.index(0, ComparisonModel::OverBound)).toString() == QStringLiteral("-"));
  // lp-bound proves 250, milp (stopped) 200: the tighter one, 250, is the bound.
  solvers::SolveResult lp = result("lp-bound", solvers::SolveStatus::Bound, false);
  lp.overheadLowerBound = Ticks{250};
  model.setResult(lp);
  solvers::SolveResult milp = with(result("milp", solvers::SolveStatus::TimeLimit, true), 95, 280);
  milp.overheadLowerBound = Ticks{200};
  model.setResult(milp);
  REQUIRE(model.bound());
  CHECK(model.bound()->overhead == Ticks{250});
  CHECK(model.bound()->solver == "lp-bound");
  CHECK(model.data(model.index(0, ComparisonModel::OverBound)).toString() == QStringLiteral("50"));
  CHECK(model.data(model.index(3, ComparisonModel::OverBound)).toString() == QStringLiteral("30"));
  CHECK(model.data(model.index(2, ComparisonModel::OverBound)).toString() == QStringLiteral("-"));  // does not fit
  CHECK(model.bestRow() == 3);

  // Numbers sort by value, not by text ("300" after "20"), and cells without one last.
  const auto key = [&](int row, int column) {
    return model.data(model.index(row, column), ComparisonModel::SortRole).toDouble();
  };
  CHECK(key(2, ComparisonModel::Overhead) < key(0, ComparisonModel::Overhead));
  CHECK(key(1, ComparisonModel::Overhead) == 250.0);  // the bound, shown as ">= 250"
  CHECK(key(1, ComparisonModel::SimulatedPeak) > key(2, ComparisonModel::SimulatedPeak));
  CHECK(model.data(model.index(0, ComparisonModel::Solver), ComparisonModel::SortRole).toString() ==
        QStringLiteral("dtr"));
}
