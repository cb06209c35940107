#include "remat/solvers/DpSolvers.hpp"

#include "remat/graph/ByteSize.hpp"
#include "remat/graph/LowerSets.hpp"
#include "remat/sim/CanonicalSchedule.hpp"
#include "remat/solvers/ParetoDp.hpp"

namespace remat::solvers {
namespace {

Plan planFromPath(const graph::ComputeGraph& g, const LowerSetFamily& family, const std::vector<std::size_t>& path) {
  std::vector<graph::NodeSet> sets;
  sets.reserve(path.size());
  for (std::size_t i : path) sets.push_back(family.set(i));
  Plan plan{sim::canonicalSchedule(g, sets), std::move(sets)};
  return plan;
}

// The point of V's front that a strategy picks: least overhead, or least checkpoint memory (greatest
// overhead) for the memory-centric strategy.
std::size_t pick(const std::vector<DpPoint>& front, Strategy strategy) {
  return strategy == Strategy::Memory ? front.size() - 1 : 0;
}

// After a time limit, the best complete plan the finished fronts allow: from each finished set, one
// last transition straight to V.
std::optional<std::vector<std::size_t>> incumbent(const LowerSetFamily& f, const DpRun& run, std::int64_t budget) {
  const std::size_t last = f.size() - 1;
  std::optional<std::pair<std::int64_t, std::pair<std::size_t, std::size_t>>> best;
  for (std::size_t i = 0; i < run.processed; ++i) {
    const auto& front = run.fronts[i];
    if (front.empty()) continue;
    const std::int64_t base = transitionBase(f, i, last);
    const std::int64_t dt = f.time(last) - f.time(i);  // ∂V is empty: everything left is recomputed
    for (std::size_t k = 0; k < front.size(); ++k) {
      if (saturatingAdd(front[k].m, base) > budget) continue;
      const std::int64_t t = front[k].t + dt;
      if (!best || t < best->first) best = {t, {i, k}};
    }
  }
  if (!best) return std::nullopt;
  std::vector<std::size_t> path = best->second.first == 0 ? std::vector<std::size_t>{}
                                                          : reconstructPath(run, best->second.first, best->second.second);
  path.push_back(last);
  return path;
}

}  // namespace

SolverOutput solveOverFamily(const graph::ComputeGraph& g, const LowerSetFamily& family, const SolveRequest& request,
                             std::string_view what) {
  DpOptions options;
  options.budget = request.budget ? request.budget->value : INT64_MAX;
  options.stop = request.stop;
  options.progress = request.progress;
  if (request.timeLimit) options.deadline = std::chrono::steady_clock::now() + *request.timeLimit;
  const Strategy strategy = request.strategy == Strategy::Memory ? Strategy::Memory : Strategy::Time;
  DpRun run = runParetoDp(family, options);
  const std::size_t last = family.size() - 1;

  switch (run.outcome) {
    case DpOutcome::Cancelled: return {SolveStatus::Cancelled, std::nullopt, "cancelled"};
    case DpOutcome::TimeLimit: {
      auto path = incumbent(family, run, options.budget);
      if (!path) return {SolveStatus::TimeLimit, std::nullopt, "time limit reached before any solution was found"};
      return {SolveStatus::TimeLimit, planFromPath(g, family, *path),
              "time limit reached: the best plan found so far (not proven optimal)"};
    }
    case DpOutcome::MemoryLimit:
      return {SolveStatus::Error, std::nullopt,
              "the DP fronts outgrew their memory cap (" + std::to_string(run.points) + " points); try approx-dp"};
    case DpOutcome::Complete: break;
  }

  const std::vector<DpPoint>& front = run.fronts[last];
  if (front.empty()) {
    const auto least = leastFeasibleBudget(family, request.stop);
    std::string why = "no plan fits the budget in the DP model";
    if (least) why += "; the least feasible budget for " + std::string(what) + " is " + formatByteSize(Bytes{*least}) +
                      " (" + std::to_string(*least) + " bytes)";
    if (request.strategy == Strategy::Auto && least) {
      // The paper's advice when the time-centric problem has no solution: the memory-centric plan, whose
      // liveness-aware real peak is the lowest; it is judged by the simulator against the budget.
      DpOptions open = options;
      open.budget = INT64_MAX;
      DpRun unconstrained = runParetoDp(family, open);
      if (unconstrained.outcome == DpOutcome::Complete && !unconstrained.fronts[last].empty()) {
        const auto& f = unconstrained.fronts[last];
        return {SolveStatus::Feasible, planFromPath(g, family, reconstructPath(unconstrained, last, f.size() - 1)),
                why + "; fell back to the memory-centric plan", BudgetMeasure::Simulated};
      }
    }
    return {SolveStatus::Infeasible, std::nullopt, why};
  }
  const std::size_t point = pick(front, strategy);
  return {SolveStatus::Optimal, planFromPath(g, family, reconstructPath(run, last, point)), {}};
}

const SolverInfo& ExactDp::info() const {
  static const SolverInfo kInfo{
      .id = "exact-dp",
      .name = "Exact DP over all lower sets",
      .citation = "Kusumoto et al., A Graph Theoretic Framework of Recomputation Algorithms for Memory-Efficient "
                  "Backpropagation, NeurIPS 2019",
      .problemClass = "any DAG (exponential in its width)",
      .exact = true,
      .budgetMeasure = BudgetMeasure::DpModel,
  };
  return kInfo;
}

SolverOutput ExactDp::plan(const SolveRequest& request) const {
  const graph::ComputeGraph& g = *request.graph;
  auto family = LowerSetFamily::allLowerSets(g, m_limit, request.stop);
  if (!family) {
    if (request.stop.stop_requested()) return {SolveStatus::Cancelled, std::nullopt, "cancelled"};
    return {SolveStatus::Error, std::nullopt,
            "the graph has more than " + std::to_string(m_limit) +
                " lower sets, too many for exact-dp; use approx-dp, which is polynomial"};
  }
  return solveOverFamily(g, *family, request, "exact-dp");
}

const SolverInfo& ApproxDp::info() const {
  static const SolverInfo kInfo{
      .id = "approx-dp",
      .name = "Approximate DP over ancestor closures",
      .citation = "Kusumoto et al., A Graph Theoretic Framework of Recomputation Algorithms for Memory-Efficient "
                  "Backpropagation, NeurIPS 2019",
      .problemClass = "any DAG",
      .exact = false,
      .budgetMeasure = BudgetMeasure::DpModel,
  };
  return kInfo;
}

SolverOutput ApproxDp::plan(const SolveRequest& request) const {
  const graph::ComputeGraph& g = *request.graph;
  return solveOverFamily(g, LowerSetFamily::ancestorClosures(g), request, "approx-dp");
}

}  // namespace remat::solvers
