#include "remat/studio/StudioText.hpp"

#include <QObject>
#include <QStringList>

#include "remat/graph/ByteSize.hpp"
#include "remat/solvers/Comparison.hpp"
#include "remat/studio/StudioDocument.hpp"
#include "remat/viz/NodeLabel.hpp"

namespace remat::studio {

namespace {

QString tr(const char* text) { return QObject::tr(text); }
QString bytes(Bytes b) { return QString::fromStdString(formatByteSize(b)); }

}  // namespace

QString pinsSummary(const graph::ComputeGraph& g, const solvers::Pins& pins, QString& tooltip) {
  tooltip.clear();
  const solvers::Pins own = solvers::graphPins(g);
  if (pins.empty() && own.empty()) return tr("none (right-click a node to pin it)");
  auto names = [&g](const std::vector<graph::OpIndex>& ops) {
    QStringList out;
    for (graph::OpIndex op : ops) out << QString::fromStdString(viz::displayName(g.node(g.opNode(op)).name));
    return out;
  };
  // Two names say more than a count; more are counted, and named in the tooltip.
  auto brief = [](const QStringList& list) {
    return list.size() <= 2 ? list.join(QStringLiteral(", "))
                            : QObject::tr("%n node(s)", nullptr, static_cast<int>(list.size()));
  };
  auto listed = [](const QStringList& list) { return list.isEmpty() ? tr("none") : list.join(QStringLiteral(", ")); };
  auto summary = [&](const solvers::Pins& p) {
    QStringList parts;
    if (!p.keep.empty()) parts << tr("keep %1").arg(brief(names(p.keep)));
    if (!p.recompute.empty()) parts << tr("recompute %1").arg(brief(names(p.recompute)));
    return parts.join(QStringLiteral("; "));
  };
  QStringList text;
  if (!own.empty()) {
    text << tr("the graph's: %1").arg(summary(own));
    tooltip = tr("The graph's own pins (its file's \"pins\"; every plan is made under them):\nKeep: %1\nRecompute: %2")
                  .arg(listed(names(own.keep)), listed(names(own.recompute)));
  }
  if (!pins.empty()) {
    text << summary(pins);
    if (!tooltip.isEmpty()) tooltip += QStringLiteral("\n\n");
    tooltip += tr("Keep: %1\nRecompute: %2\nEach run also solves the solvers that honour these pins under them, in "
                  "rows of their own (\"· pinned\")")
                   .arg(listed(names(pins.keep)), listed(names(pins.recompute)));
  }
  return text.join(QStringLiteral("; "));
}

QString staleText(const RunSettings& run, const RunSettings& panel) {
  QStringList changed;
  if (run.strategy != panel.strategy) changed << tr("strategy %1").arg(qstr(solvers::strategyName(run.strategy)));
  if (run.model != panel.model) changed << tr("DP model %1").arg(qstr(solvers::dpModelName(run.model)));
  if (changed.isEmpty()) return {};
  return tr("the rows were made under %1, not the panel's: Run (Ctrl+R) to update").arg(changed.join(tr(" and ")));
}

QString planTitle(const StudioDocument& document, const solvers::SolveResult* shown, bool winner,
                  const QString& stale) {
  const graph::ComputeGraph* g = document.graph();
  if (!g) return {};
  if (!shown) return tr("Plan views: run the solvers to see a plan");
  if (document.vanilla() && shown == &*document.vanilla())
    return tr("Plan views: the plain run (store-all, no budget)");
  const solvers::SolveResult& r = *shown;
  if (!stale.isEmpty()) return tr("Plan views: %1 \u2014 %2").arg(QString::fromStdString(r.solver), stale);
  // The budget at hand, as every row is judged at it; in least mode each row's own least budget.
  const QString budget = document.leastBudgets()
                             ? tr("its least budget %1, each solver at its own (the winner: the lowest peak)")
                                   .arg(r.budget ? bytes(*r.budget) : tr("none"))
                         : document.budget() ? tr("budget %1").arg(bytes(*document.budget()))
                                             : tr("no budget");
  return tr("Plan views: %1, %2%3%4; %5; strategy %6; simulated peak %7, overhead %8 %9")
      .arg(QString::fromStdString(r.solver), qstr(solvers::outcomeName(r)), winner ? tr(" (the winner)") : QString(),
           r.plan && !solvers::fitsBudget(r) ? tr(", does not fit") : QString(), budget,
           qstr(solvers::strategyName(r.strategy)), bytes(r.metrics.simulatedPeak))
      .arg(r.metrics.overhead.value)
      .arg(QString::fromStdString(g->timeUnit()));
}

QString runDescription(const std::vector<std::string>& ids, const SolveRunner::Settings& settings) {
  QStringList solvers;
  for (const auto& id : ids) solvers << QString::fromStdString(id);
  const BudgetChoice& b = settings.budget;
  const QString budget = b.kind == BudgetChoice::Kind::Fixed
                             ? tr("%1 (%2 bytes)").arg(bytes(b.bytes)).arg(b.bytes.value)
                         : b.kind == BudgetChoice::Kind::Least ? tr("least")
                                                               : tr("none");
  const QString pins =
      settings.pins.empty()
          ? QString()
          : tr(", pins: keep %1, recompute %2").arg(settings.pins.keep.size()).arg(settings.pins.recompute.size());
  const QString limit =
      settings.timeLimit ? tr(", time limit %1 s").arg(double(settings.timeLimit->count()) / 1000) : QString();
  return tr("Running %1 (strategy %2, DP model %3, budget %4%5%6)")
      .arg(solvers.join(QStringLiteral(", ")), qstr(solvers::strategyName(settings.strategy)),
           qstr(solvers::dpModelName(settings.model)), budget, limit, pins);
}

QString batchAnswerText(const BatchSearch::Answer& a, Bytes memory) {
  const QString solver = QString::fromStdString(a.solver);
  if (a.call == solvers::CallStatus::Error) return tr("%1: error: %2").arg(solver, QString::fromStdString(a.message));
  // solvers::maxBatch proves a largest batch (Optimal), or stops where the solver cannot answer (a limit):
  // then the batch found fits but is not proven the largest, and with none found nothing is known.
  const bool proven = a.status == solvers::SolveStatus::Optimal;
  const bool noneFits = a.status == solvers::SolveStatus::Infeasible || a.status == solvers::SolveStatus::OverBudget;
  if (a.batch > 0 && proven) return tr("%1: largest batch %2 in %3").arg(solver).arg(a.batch).arg(bytes(memory));
  if (a.batch > 0)
    return tr("%1: batch %2 fits in %3, not proven the largest (%4: %5)")
        .arg(solver)
        .arg(a.batch)
        .arg(bytes(memory), qstr(solvers::statusName(a.status)), QString::fromStdString(a.message));
  if (noneFits)
    return tr("%1: no batch fits (%2: %3)")
        .arg(solver, qstr(solvers::statusName(a.status)), QString::fromStdString(a.message));
  return tr("%1: cannot answer (%2: %3)")
      .arg(solver, qstr(solvers::statusName(a.status)), QString::fromStdString(a.message));
}

}  // namespace remat::studio
