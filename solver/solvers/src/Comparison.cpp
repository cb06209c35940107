#include "remat/solvers/Comparison.hpp"

#include "remat/solvers/SolverRegistry.hpp"

namespace remat::solvers {

bool fitsBudget(const SolveResult& r) {
  const bool claims =
      r.status == SolveStatus::Optimal || r.status == SolveStatus::Feasible || r.status == SolveStatus::TimeLimit;
  return r.plan && claims && (!r.budget || r.metrics.simulatedPeak <= *r.budget);
}

double overheadPercent(Ticks overhead, Ticks plainStepTime) {
  return plainStepTime.value > 0 ? 100.0 * double(overhead.value) / double(plainStepTime.value) : 0.0;
}

std::optional<double> peakChangePercent(Bytes peak, Bytes plainPeak) {
  if (plainPeak.value <= 0) return peak.value == plainPeak.value ? std::optional<double>(0.0) : std::nullopt;
  return 100.0 * (double(peak.value) - double(plainPeak.value)) / double(plainPeak.value);
}

std::optional<double> Comparison::peakChangePercent(const SolveResult& r) const {
  if (!r.plan) return std::nullopt;
  return solvers::peakChangePercent(r.metrics.simulatedPeak, vanilla.metrics.simulatedPeak);
}

double Comparison::overheadPercent(const SolveResult& r) const {
  return solvers::overheadPercent(r.metrics.overhead, vanilla.metrics.totalTime);
}

std::optional<std::size_t> bestResult(const std::vector<SolveResult>& rows, bool leastBudgets) {
  std::optional<std::size_t> best;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const SolveResult& r = rows[k];
    if (!fitsBudget(r) || !r.pinsIgnored.empty()) continue;  // it answers another question than the one asked
    if (!best) {
      best = k;
      continue;
    }
    if (beats(r.metrics, rows[*best].metrics, leastBudgets)) best = k;
  }
  return best;
}

bool beats(const PlanMetrics& a, const PlanMetrics& b, bool leastBudgets) {
  return leastBudgets ? std::pair{a.simulatedPeak, a.overhead} < std::pair{b.simulatedPeak, b.overhead}
                      : std::pair{a.overhead, a.simulatedPeak} < std::pair{b.overhead, b.simulatedPeak};
}

std::optional<OverheadBound> tightestBound(const std::vector<SolveResult>& rows, bool leastBudgets) {
  std::optional<OverheadBound> bound;
  if (leastBudgets) return bound;
  for (const SolveResult& r : rows)
    if (r.overheadLowerBound && (!bound || *r.overheadLowerBound > bound->overhead))
      bound = OverheadBound{*r.overheadLowerBound, r.solver};
  return bound;
}

Comparison compareSolvers(const std::vector<const Solver*>& solvers, const SolveRequest& request, bool leastBudgets,
                          const std::function<ProgressSink(const std::string& id)>& progressFor,
                          std::optional<std::chrono::milliseconds> total) {
  Comparison out;
  out.leastBudgets = leastBudgets;
  const SharedTime shared(total);
  out.vanilla = SolverRegistry::builtin().find("store-all")->solve({.graph = request.graph});
  for (std::size_t k = 0; k < solvers.size(); ++k) {
    const Solver* s = solvers[k];
    SolveRequest r = request;
    if (shared.spent()) {
      out.rowLimits.emplace_back(std::chrono::milliseconds(0));
      SolveResult skipped;
      skipped.solver = s->info().id;
      skipped.strategy = request.strategy;
      skipped.budget = leastBudgets ? std::nullopt : request.budget;
      skipped.status = SolveStatus::TimeLimit;
      skipped.message = "not run: the comparison's total time limit was spent";
      out.rows.push_back(std::move(skipped));
      continue;
    }
    r.timeLimit = shared.next(solvers.size() - k, request.timeLimit);
    out.rowLimits.push_back(r.timeLimit);
    if (progressFor) r.progress = progressFor(s->info().id);
    out.rows.push_back(leastBudgets ? solveAtLeastBudget(*s, r) : s->solve(r));
  }
  out.bound = tightestBound(out.rows, leastBudgets);
  out.best = bestResult(out.rows, leastBudgets);
  return out;
}

}  // namespace remat::solvers
