#include "remat/solvers/Solver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <iterator>
#include <new>

#include "remat/graph/ByteSize.hpp"
#include "remat/sim/CanonicalSchedule.hpp"
#include "remat/solvers/DpModel.hpp"

namespace remat::solvers {

std::string_view statusName(SolveStatus s) {
  switch (s) {
    case SolveStatus::Optimal: return "optimal";
    case SolveStatus::Feasible: return "feasible";
    case SolveStatus::Bound: return "bound";
    case SolveStatus::Infeasible: return "infeasible";
    case SolveStatus::OverBudget: return "over-budget";
    case SolveStatus::TimeLimit: return "time-limit";
    case SolveStatus::Limit: return "limit";
    case SolveStatus::Cancelled: return "cancelled";
    case SolveStatus::NotSolved: return "not-solved";
  }
  return "not-solved";
}

std::string_view callStatusName(CallStatus s) { return s == CallStatus::Ok ? "ok" : "error"; }

SolverOutput SolverOutput::failed(std::string why) {
  SolverOutput out;
  out.call = CallStatus::Error;
  out.message = std::move(why);
  return out;
}

std::string_view strategyName(Strategy s) {
  switch (s) {
    case Strategy::Time: return "time";
    case Strategy::Memory: return "memory";
    case Strategy::Auto: return "auto";
  }
  return "time";
}

std::string_view scheduleClassName(ScheduleClass c) {
  switch (c) {
    case ScheduleClass::KeepAll: return "keep-all";
    case ScheduleClass::LowerSetChain: return "lower-set-chain";
    case ScheduleClass::ChainSegments: return "chain-segments";
    case ScheduleClass::MilpFormulation: return "milp-formulation";
    case ScheduleClass::OnlineEviction: return "online-eviction";
    case ScheduleClass::SearchedEviction: return "searched-eviction";
    case ScheduleClass::RecomputeAnywhere: return "recompute-anywhere";
  }
  return "?";
}

std::string_view dpModelName(DpModelKind m) { return m == DpModelKind::Paper ? "paper" : "simulator"; }

std::optional<DpModelKind> dpModelFromName(std::string_view name) {
  if (name == "simulator") return DpModelKind::Simulator;
  if (name == "paper") return DpModelKind::Paper;
  return std::nullopt;
}

std::optional<Strategy> strategyFromName(std::string_view name) {
  if (name == "time") return Strategy::Time;
  if (name == "memory") return Strategy::Memory;
  if (name == "auto") return Strategy::Auto;
  return std::nullopt;
}

Plan chainPlan(const graph::ComputeGraph& g, std::vector<graph::NodeSet> lowerSets, DpModelKind model) {
  sim::Schedule schedule =
      model == DpModelKind::Paper ? sim::paperSchedule(g, lowerSets) : sim::canonicalSchedule(g, lowerSets);
  return Plan{std::move(schedule), std::move(lowerSets), model};
}

void evaluatePlan(const graph::ComputeGraph& g, const Plan& plan, bool liveness, PlanMetrics& metrics,
                  sim::SimulationResult& simulation) {
  simulation = sim::Simulator(g, {.liveness = liveness, .requireComplete = true}).run(plan.schedule);
  metrics.simulatedPeak = simulation.peak;
  metrics.peakStep = simulation.peakStep;
  metrics.overhead = simulation.overhead;
  metrics.totalTime = simulation.totalTime;
  metrics.recomputedNodes = simulation.recomputedNodes;
  metrics.recomputations = simulation.recomputations;
  if (plan.lowerSets) {
    const DpModelCost cost = evaluateChainModel(g, *plan.lowerSets, plan.model);
    metrics.modelPeak = cost.peak;
    metrics.modelOverhead = cost.overhead;
  } else {
    metrics.modelPeak.reset();
    metrics.modelOverhead.reset();
  }
}

SolveResult judgePlan(const graph::ComputeGraph& g, std::string label, Plan plan, std::optional<Bytes> budget) {
  SolveResult result;
  result.solver = std::move(label);
  result.budget = budget;
  result.plan = std::move(plan);
  evaluatePlan(g, *result.plan, true, result.metrics, result.simulation);
  if (!result.simulation.valid()) {
    if (result.simulation.error->timeOverflow)
      result.status = SolveStatus::Limit;
    else
      result.call = CallStatus::Error;
    result.message = (result.simulation.error->timeOverflow ? "the plan's time cannot be counted: "
                                                            : "the schedule does not simulate: ") +
                     result.simulation.error->message;
    result.plan.reset();
    result.metrics = {};
    return result;
  }
  judgeAtBudget(result, budget);
  return result;
}

void judgeAtBudget(SolveResult& judged, std::optional<Bytes> budget) {
  judged.budget = budget;
  if (budget && judged.metrics.simulatedPeak > *budget) {
    judged.status = SolveStatus::Infeasible;
    judged.message = "the plan needs " + formatByteSizeExact(judged.metrics.simulatedPeak) +
                     ", more than the budget of " + formatByteSizeExact(*budget);
  } else {
    judged.status = SolveStatus::Feasible;
    judged.message = budget ? "within the budget of " + formatByteSizeExact(*budget) : "no budget to judge it by";
  }
}

namespace {

// The common half of solve() and solveFromFront(): times `produce` (the plan search) behind an exception
// firewall, simulates its plan (a schedule the simulator rejects becomes status Error, never a result),
// fills the metrics and applies the budget.
template <class Produce>
SolveResult evaluateOutput(const Solver& solver, const SolveRequest& request, Produce produce) {
  SolveResult result;
  result.solver = solver.info().id;
  result.strategy = request.strategy;
  result.budget = request.budget;
  result.pins = request.pins;
  const auto start = std::chrono::steady_clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  if (request.graph == nullptr) {
    result.call = CallStatus::Error;
    result.message = "no graph given";
    return result;
  }
  // The exception firewall: nothing a solver throws escapes as anything but an Error status.
  try {
    SolverOutput out = produce();
    result.metrics.solveSeconds = seconds();
    result.call = out.call;
    result.status = out.status;
    result.message = std::move(out.message);
    result.plan = std::move(out.plan);
    result.overheadLowerBound = out.overheadLowerBound;
    if (!result.plan) return result;
    evaluatePlan(*request.graph, *result.plan, request.liveness, result.metrics, result.simulation);
    if (!result.simulation.valid() && result.simulation.error->timeOverflow) {
      // A legal plan whose time cannot be counted: no figure of it would be true, so none is reported.
      result.status = SolveStatus::Limit;
      result.message = "the plan's time cannot be counted: " + result.simulation.error->message +
                       (result.message.empty() ? "" : "; " + result.message);
      result.plan.reset();
      result.metrics = {.solveSeconds = result.metrics.solveSeconds};
      return result;
    }
    if (!result.simulation.valid()) {
      result.call = CallStatus::Error;
      result.status = SolveStatus::NotSolved;
      result.message = "internal error: " + solver.info().id +
                       " produced a schedule the simulator rejects: " + result.simulation.error->message;
      return result;
    }
    if (!request.pins.empty()) {
      // A solver that honours pins must never break one (checked on its schedule, as a user would);
      // one that ignores them says so.
      const PinSupport support = solver.info().pins;
      const bool recompute = support == PinSupport::KeepAndRecompute;
      Pins honoured;
      if (support != PinSupport::None) honoured.keep = request.pins.keep;
      if (recompute) honoured.recompute = request.pins.recompute;
      const auto* sets = result.plan->lowerSets ? &*result.plan->lowerSets : nullptr;
      const std::vector<std::string> broken =
          pinViolations(*request.graph, result.plan->schedule, sets, honoured, recompute);
      if (!broken.empty()) {
        result.call = CallStatus::Error;
        result.status = SolveStatus::NotSolved;
        result.message = "internal error: " + solver.info().id + " broke a pin: " + broken.front();
        result.plan.reset();
        return result;
      }
      std::string ignored;
      if (support == PinSupport::None && !request.pins.keep.empty()) ignored = "keep";
      if (!recompute && !request.pins.recompute.empty()) ignored += ignored.empty() ? "recompute" : " and recompute";
      if (!ignored.empty())
        result.message += (result.message.empty() ? "" : "; ") + solver.info().id + " ignores " + ignored + " pins";
      result.pinsIgnored = ignored;
    }
    const bool solved = result.status == SolveStatus::Optimal || result.status == SolveStatus::Feasible ||
                        result.status == SolveStatus::TimeLimit;
    if (solved && request.budget) {
      const BudgetMeasure measure = out.budgetMeasure.value_or(solver.info().budgetMeasure);
      const Bytes measured = measure == BudgetMeasure::DpModel && result.metrics.modelPeak
                                 ? *result.metrics.modelPeak
                                 : result.metrics.simulatedPeak;
      if (measured > *request.budget) {
        result.status = SolveStatus::Infeasible;
        result.message = std::string(measure == BudgetMeasure::DpModel ? "in the DP model, " : "") + "the plan needs " +
                         formatByteSizeExact(measured) + ", more than the budget of " +
                         formatByteSizeExact(*request.budget) + (result.message.empty() ? "" : "; " + result.message);
      } else if (result.metrics.simulatedPeak > *request.budget) {
        // Within the budget in a model that undercounts (the paper's): the simulator is the authority.
        result.status = SolveStatus::OverBudget;
        result.message = "within the budget in the DP model (" + formatByteSizeExact(measured) +
                         "), but the simulated peak is " + formatByteSizeExact(result.metrics.simulatedPeak) +
                         ", over the budget of " + formatByteSizeExact(*request.budget) +
                         (result.message.empty() ? "" : "; " + result.message);
      }
    }
  } catch (const std::bad_alloc&) {
    // Memory ran out (an address-space cap, a full machine): a limit of this run, not a fault of the
    // solver; its own accounting (--memory-limit) would have stopped it sooner where it counts.
    result.call = CallStatus::Ok;
    result.status = SolveStatus::Limit;
    result.message = solver.info().id +
                     " ran out of memory (an allocation failed); a lower --memory-limit stops it "
                     "before the machine's memory runs out where the solver counts it";
    result.plan.reset();
    result.overheadLowerBound.reset();
    result.metrics.solveSeconds = seconds();
  } catch (const std::exception& e) {
    result.call = CallStatus::Error;
    result.status = SolveStatus::NotSolved;
    result.message = "internal error in " + solver.info().id + ": " + e.what();
    result.plan.reset();
    result.overheadLowerBound.reset();
    result.metrics.solveSeconds = seconds();
  }
  return result;
}

}  // namespace

namespace {

// What a solver that plans training steps answers a graph computed as given.
std::string asGivenRefusal(const SolverInfo& info) {
  return info.id +
         " plans training steps (a forward and a backward pass); this graph is computed as given, with no backward "
         "pass: plan it with dp-evict, fastsa, milp or store-all";
}

bool refusesAsGiven(const Solver& s, const SolveRequest& request) {
  return request.graph != nullptr && request.graph->asGiven() && !s.info().asGiven;
}

}  // namespace

std::optional<SolveRequest> withGraphPins(const SolveRequest& request, std::string& conflict) {
  SolveRequest out = request;
  if (request.graph == nullptr) return out;
  const Pins own = graphPins(*request.graph);
  if (own.empty()) return out;
  const auto has = [](const std::vector<graph::OpIndex>& list, graph::OpIndex op) {
    return std::find(list.begin(), list.end(), op) != list.end();
  };
  for (const bool keep : {true, false}) {
    const std::vector<graph::OpIndex>& graphs = keep ? own.keep : own.recompute;
    const std::vector<graph::OpIndex>& asked = keep ? request.pins.keep : request.pins.recompute;
    const std::vector<graph::OpIndex>& other = keep ? request.pins.recompute : request.pins.keep;
    std::vector<graph::OpIndex> merged = graphs;
    for (graph::OpIndex op : graphs)
      if (has(other, op)) {
        conflict = "'" + request.graph->node(request.graph->opNode(op)).name + "' is pinned " +
                   (keep ? "keep" : "recompute") + " by the graph and " + (keep ? "recompute" : "keep") +
                   " by the request (--no-graph-pins reads the graph without its pins)";
        return std::nullopt;
      }
    for (graph::OpIndex op : asked)
      if (!has(merged, op)) merged.push_back(op);
    (keep ? out.pins.keep : out.pins.recompute) = std::move(merged);
  }
  return out;
}

SolveResult Solver::solve(const SolveRequest& asked) const {
  std::string conflict;
  const std::optional<SolveRequest> request = withGraphPins(asked, conflict);
  if (!request) return evaluateOutput(*this, asked, [&] { return SolverOutput::failed(conflict); });
  if (refusesAsGiven(*this, *request))
    return evaluateOutput(*this, *request, [&] {
      return SolverOutput{SolveStatus::Limit, std::nullopt, asGivenRefusal(info())};
    });
  return evaluateOutput(*this, *request, [&] { return plan(*request); });
}

Solver::MinBudget Solver::minBudget(const SolveRequest& asked) const {
  std::string conflict;
  const std::optional<SolveRequest> request = withGraphPins(asked, conflict);
  if (!request) return {SolveStatus::NotSolved, std::nullopt, conflict, 0.0, CallStatus::Error};
  if (refusesAsGiven(*this, *request)) return {SolveStatus::Limit, std::nullopt, asGivenRefusal(info()), 0.0};
  return planMinBudget(*request);
}

std::optional<SolveResult> solveFromFront(const Solver& solver, const Solver::TradeOff& front,
                                          const SolveRequest& asked) {
  std::string conflict;
  const std::optional<SolveRequest> merged = withGraphPins(asked, conflict);
  if (!merged) return std::nullopt;  // solve() says why
  const SolveRequest& request = *merged;
  if (!front.whole || front.plans.empty() || request.strategy == Strategy::Memory) return std::nullopt;
  const auto& plans = front.plans;
  // By budget ascending and overhead descending: the last plan within the budget has the least overhead.
  const auto fits = request.budget ? std::upper_bound(plans.begin(), plans.end(), *request.budget,
                                                      [](Bytes b, const auto& p) { return b < p.budget; })
                                   : plans.end();
  if (fits == plans.begin() && request.strategy == Strategy::Auto) return std::nullopt;
  SolveResult answered = evaluateOutput(solver, request, [&]() -> SolverOutput {
    if (fits == plans.begin())
      return {SolveStatus::Infeasible, std::nullopt,
              "no plan fits the budget in the DP model; the least feasible budget for " + solver.info().id + " is " +
                  formatByteSizeExact(plans.front().budget)};
    return {SolveStatus::Optimal, std::prev(fits)->plan, {}};
  });
  answered.fromFront = true;
  answered.frontSeconds = front.seconds;
  return answered;
}

Solver::MinBudget Solver::planMinBudget(const SolveRequest& request) const {
  SolveRequest open = request;
  open.budget.reset();
  const SolveResult r = solve(open);
  MinBudget out;
  out.call = r.call;
  out.status = r.status;
  out.message = r.message;
  out.seconds = r.metrics.solveSeconds;
  if (r.plan && (r.status == SolveStatus::Optimal || r.status == SolveStatus::Feasible)) {
    out.status = SolveStatus::Optimal;
    out.bytes = info().budgetMeasure == BudgetMeasure::DpModel && r.metrics.modelPeak ? *r.metrics.modelPeak
                                                                                      : r.metrics.simulatedPeak;
  }
  return out;
}

Solver::TradeOff Solver::tradeOff(const SolveRequest& asked, std::size_t points) const {
  if (asked.graph == nullptr) {
    TradeOff none;
    none.call = CallStatus::Error;
    none.message = "no graph given";
    return none;
  }
  std::string conflict;
  const std::optional<SolveRequest> merged = withGraphPins(asked, conflict);
  if (!merged) {
    TradeOff none;
    none.call = CallStatus::Error;
    none.message = conflict;
    return none;
  }
  const SolveRequest& request = *merged;
  if (refusesAsGiven(*this, request)) {
    TradeOff none;
    none.status = SolveStatus::Limit;
    none.message = asGivenRefusal(info());
    return none;
  }
  TradeOff out = planTradeOff(request, points);
  std::vector<FrontPlan> judged;
  judged.reserve(out.plans.size());
  for (FrontPlan& p : out.plans) {
    if (request.stop.stop_requested()) {
      out.status = SolveStatus::Cancelled;
      out.message = "cancelled";
      out.plans.clear();
      out.whole = false;
      return out;
    }
    sim::SimulationResult simulation;
    evaluatePlan(*request.graph, p.plan, request.liveness, p.metrics, simulation);
    if (simulation.valid()) {
      judged.push_back(std::move(p));
      continue;
    }
    const std::string why = "the plan of the front at budget " + formatByteSizeExact(p.budget) +
                            " does not simulate: " + simulation.error->message;
    out.message = out.message.empty() ? why : out.message + "; " + why;
    out.call = CallStatus::Error;
    out.status = SolveStatus::NotSolved;
    out.whole = false;
  }
  out.plans = std::move(judged);
  // An answer with no point is no trade-off: never reported as optimal or feasible.
  if (out.call == CallStatus::Ok && out.plans.empty() &&
      (out.status == SolveStatus::Optimal || out.status == SolveStatus::Feasible)) {
    out.message = info().id + " answered " + std::string(statusName(out.status)) + " with no plan" +
                  (out.message.empty() ? std::string() : ": " + out.message);
    out.call = CallStatus::Error;
    out.status = SolveStatus::NotSolved;
  }
  return out;
}

Solver::TradeOff Solver::planTradeOff(const SolveRequest& request, std::size_t points) const {
  return sweepFrom(request, points, minBudget(request));
}

Solver::TradeOff Solver::sweepFrom(const SolveRequest& request, std::size_t points, const MinBudget& least) const {
  const auto start = std::chrono::steady_clock::now();
  TradeOff out;
  // The request's time limit is the whole sweep's, as every solver counts its whole run against it: the
  // least budget's search (done by the caller) took what it needed, each solve gets an equal share of
  // what is left.
  std::optional<std::chrono::milliseconds> rest = request.timeLimit;
  if (rest) {
    const auto spent = std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(least.seconds * 1000)));
    rest = std::max(std::chrono::milliseconds(0), *rest - spent);
  }
  const SharedTime shared(rest);
  if (!least.bytes) {
    out.call = least.call;
    out.status = least.status;
    out.message = least.message;
    return out;
  }
  SolveRequest open = request;
  open.budget.reset();
  open.timeLimit = shared.next(points + 1);
  const SolveResult loose = solve(open);
  if (!loose.plan) {
    out.call = loose.call;
    out.status = loose.status;
    out.message = loose.message;
    return out;
  }
  const bool model = info().budgetMeasure == BudgetMeasure::DpModel && loose.metrics.modelPeak;
  const Bytes high = model ? *loose.metrics.modelPeak : loose.metrics.simulatedPeak;
  const std::size_t steps = std::max<std::size_t>(points, 2);
  // Budgets whose solve could not answer (a time limit, a size limit of the solver's): the front is then
  // partial, and says so in its status, never Optimal.
  std::size_t refused = 0;
  std::optional<std::pair<SolveStatus, std::string>> firstRefusal;
  std::string lastNoFit;
  std::optional<Ticks> previous;
  for (std::size_t k = 0; k < steps; ++k) {
    if (request.stop.stop_requested()) {
      out.status = SolveStatus::Cancelled;
      out.message = "cancelled";
      return out;
    }
    const Bytes budget{least.bytes->value +
                       (high.value - least.bytes->value) * std::int64_t(k) / std::int64_t(steps - 1)};
    if (shared.spent()) {
      refused += steps - k;
      if (!firstRefusal) firstRefusal = {SolveStatus::TimeLimit, "time limit reached"};
      break;
    }
    SolveRequest at = request;
    at.budget = budget;
    at.timeLimit = shared.next(steps - k);
    SolveResult r = solve(at);
    if (r.call == CallStatus::Error) {
      out.call = CallStatus::Error;
      out.status = SolveStatus::NotSolved;
      out.message = "at budget " + formatByteSizeExact(budget) + ": " + r.message;
      out.plans.clear();
      return out;
    }
    const bool solved = r.status == SolveStatus::Optimal || r.status == SolveStatus::Feasible;
    if (!r.plan || !solved) {
      if (r.status == SolveStatus::Infeasible || r.status == SolveStatus::OverBudget) {
        lastNoFit = "at budget " + formatByteSizeExact(budget) + ": " + r.message;
      } else {
        ++refused;
        if (!firstRefusal)
          firstRefusal = {r.status, "at budget " + formatByteSizeExact(budget) + ": " +
                                        std::string(statusName(r.status)) +
                                        (r.message.empty() ? "" : ": " + r.message)};
      }
      continue;
    }
    if (previous && r.metrics.overhead >= *previous) continue;  // not a new point of the trade-off
    previous = r.metrics.overhead;
    out.plans.push_back({budget, std::move(*r.plan), {}});
    if (request.progress) request.progress(double(k + 1) / double(steps), "budget sweep");
  }
  out.seconds = least.seconds + std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (firstRefusal) {
    out.status = firstRefusal->first;
    out.message = std::to_string(refused) + " of the " + std::to_string(steps) + " budgets got no answer (" +
                  firstRefusal->second + ")" +
                  (out.plans.empty() ? std::string(": no point of the trade-off") : std::string(": a partial front"));
  } else if (out.plans.empty()) {
    out.status = SolveStatus::Infeasible;
    out.message = "no budget of the sweep gave a plan that fits (" + lastNoFit + ")";
  } else {
    out.status = SolveStatus::Optimal;
  }
  return out;
}

SolveResult solveAtLeastBudget(const Solver& solver, SolveRequest request) {
  // The limit is the whole answer's: finding the least budget and planning at it share it.
  const SharedTime shared(request.timeLimit);
  const Solver::MinBudget least = solver.minBudget(request);
  if (least.bytes && shared.spent()) {
    SolveResult late;
    late.solver = solver.info().id;
    late.strategy = request.strategy;
    late.budget = least.bytes;
    late.status = SolveStatus::TimeLimit;
    late.message = "the time limit was spent finding the least budget (" + std::to_string(least.bytes->value) +
                   " bytes); no plan at it";
    return late;
  }
  request.timeLimit = shared.next();
  if (!least.bytes) {
    SolveResult failed;
    failed.solver = solver.info().id;
    failed.strategy = request.strategy;
    failed.call = least.call;
    failed.status = least.status;
    if (request.stop.stop_requested()) {
      failed.call = CallStatus::Ok;
      failed.status = SolveStatus::Cancelled;
    }
    failed.message = "no least budget: " + least.message;
    return failed;
  }
  request.budget = least.bytes;
  return solver.solve(request);
}

}  // namespace remat::solvers
