#include "remat/solvers/DpSolvers.hpp"

#include <bit>
#include <cmath>
#include <cstdio>
#include <tuple>

#include "remat/graph/ByteSize.hpp"
#include "remat/graph/LowerSets.hpp"
#include "remat/sim/CanonicalSchedule.hpp"
#include "remat/solvers/DpModel.hpp"
#include "remat/solvers/Isolated.hpp"
#include "remat/solvers/ParetoDp.hpp"

namespace remat::solvers {
namespace {

// What a family of `sets` lower sets of g holds in memory, about: a bitset over the nodes per set, and
// as much again for the copies made while it is built and the per-set terms beside it (measured: 159 MB
// for the 20,001 closures of a 20,000-op chain, whose bitsets take 50 MB). Saturates.
std::int64_t familyBytes(const graph::ComputeGraph& g, std::uint64_t sets) {
  const auto perSet = static_cast<std::uint64_t>((g.size() + 63) / 64) * 8 * 2 + 256;
  const std::uint64_t cap = static_cast<std::uint64_t>(INT64_MAX);
  return static_cast<std::int64_t>(sets > cap / perSet ? cap : sets * perSet);
}

// Why the ancestor closures of g (one per operation, and both ends) do not fit in the request's memory
// limit, or nothing: they grow with the square of a deep graph (a 100,000-op chain: about 2.5 GB), and
// are refused before they are built rather than counted after.
std::optional<std::string> closuresTooLarge(const graph::ComputeGraph& g, const SolveRequest& request) {
  const std::int64_t need = familyBytes(g, g.opCount() + 2);
  const std::int64_t memory = memoryLimitOr(request.memoryLimit);
  if (need <= memory) return std::nullopt;
  return "its " + std::to_string(g.opCount() + 2) + " ancestor closures over " + std::to_string(g.size()) +
         " nodes take about " + formatByteSize(Bytes{need}) + ", more than the memory limit of " +
         formatByteSize(Bytes{memory}) + " (--memory-limit)";
}

// What exact-dp allows itself when the caller's time limit does not lift size limits (or there is none).
constexpr double kDefaultSeconds = 60;

// The seconds exact-dp may spend: the caller's time limit where it lifts size limits (one the user gave:
// SolveRequest::timeLimitLiftsSizeLimit), else the shorter of kDefaultSeconds and any time limit.
double allowedSeconds(const SolveRequest& request) {
  if (!request.timeLimit) return kDefaultSeconds;
  const double limit = std::chrono::duration<double>(*request.timeLimit).count();
  return request.timeLimitLiftsSizeLimit ? limit : std::min(limit, kDefaultSeconds);
}

// At most as many lower sets as the request's memory limit allows, and as `limit` for the default time
// (kDefaultSeconds); a longer time limit from the caller allows √(its ratio to that) times more, since
// the work grows with the square of the sets (a limit of 1,800 s: 5.5 times).
std::uint64_t setsForTime(const SolveRequest& request, std::uint64_t limit) {
  const double scale = std::sqrt(std::max(1.0, allowedSeconds(request) / kDefaultSeconds));
  return static_cast<std::uint64_t>(double(limit) * scale);
}
std::uint64_t setsWithin(const graph::ComputeGraph& g, const SolveRequest& request, std::uint64_t limit) {
  const std::int64_t perSet = familyBytes(g, 1);
  const auto memory = static_cast<std::uint64_t>(memoryLimitOr(request.memoryLimit) / perSet);
  return std::min<std::uint64_t>(setsForTime(request, limit), memory);
}

// Comparable pairs L ⊊ L' of an all-lower-sets family, estimated from 256 evenly spaced sets, each
// one's supersets counted exactly from the membership table: the bounds pass and the DP visit every
// such pair, so their number, not the sets', is exact-dp's work (the estimate is within 3% of the exact
// count on every dataset and paper graph small enough to count). O(256 · |max L| · |family| / 64).
double comparablePairs(const LowerSetFamily& f) {
  const std::size_t n = f.size();
  const std::size_t samples = std::min<std::size_t>(n, 256);
  std::vector<std::uint64_t> mask(f.maskWords());
  double supersets = 0;
  for (std::size_t k = 0; k < samples; ++k) {
    f.supersets(k * n / samples, mask.data());
    for (std::uint64_t w : mask) supersets += std::popcount(w);
  }
  return (supersets / double(samples) - 1.0) * double(n);  // each set counts itself among its supersets
}

// Why exact-dp does not run over the family in the time it may spend, or nothing: the cap on its work is
// measured in time (the family's comparable pairs at ExactDp::kSecondsPerPair), and in memory (setsWithin).
std::optional<std::string> overTime(std::uint64_t sets, double pairs, bool atLeast, std::size_t words,
                                    const SolveRequest& request, double secondsPerPair) {
  // On deep graphs a pair costs more: the sets' bitsets over the operations and their segments grow with
  // the graph (a chain of 10,000 ops, 157 words a set: 18 s for 5·10^7 pairs), so the rate is scaled by
  // the words a set takes beyond 8 (512 ops; every dataset takes 1 to 12, and runs at the plain rate).
  const double seconds = pairs * secondsPerPair * std::max(1.0, double(words) / 8.0);
  const double allowed = allowedSeconds(request);
  if (seconds <= allowed) return std::nullopt;
  char text[160];
  std::snprintf(text, sizeof text, "%llu lower sets with %s %.2g comparable pairs: some %.0f s of work or more",
                static_cast<unsigned long long>(sets), atLeast ? "at least" : "about", pairs, seconds);
  const bool given = request.timeLimit && request.timeLimitLiftsSizeLimit;
  return "the graph's " + std::string(text) + ", more than the " + std::to_string(static_cast<long>(allowed)) + " s " +
         (given ? "of the time limit" : "exact-dp allows without a longer time limit") +
         " (its work grows with the pairs of lower sets); give a longer time limit (--time-limit), or use approx-dp or "
         "dp-evict";
}
std::optional<std::string> overTime(const LowerSetFamily& f, const SolveRequest& request, double secondsPerPair) {
  return overTime(f.size(), comparablePairs(f), false, f.wordsPerSet(), request, secondsPerPair);
}

// The same before the family is stored (its bitsets and membership table grow with the square of a deep
// graph: 2.7 GB and 80 s for a 100,000-op chain), from a count of the lower sets (graph::countLowerSets,
// without storing them, up to `limit`) and a lower bound on their pairs: every lower set lies on a
// maximal chain of |V| + 1 sets, so n sets have at least n · |V| / 2 comparable pairs.
std::optional<std::string> overTimeByCount(const graph::ComputeGraph& g, const SolveRequest& request,
                                           std::uint64_t limit, double secondsPerPair) {
  const std::optional<std::uint64_t> sets = graph::countLowerSets(g, limit);
  if (!sets) return std::nullopt;  // the enumeration refuses them by count
  const double pairs = double(*sets) * double(g.opCount()) / 2.0;
  return overTime(*sets, pairs, true, (g.opCount() + 63) / 64, request, secondsPerPair);
}

// A family in the request's model; nullopt when stopped while computing its terms, as when stopped
// while enumerating.
std::optional<LowerSetFamily> inModel(std::optional<LowerSetFamily> family, const SolveRequest& request,
                                      TimeLimit& stop) {
  if (family && (!family->useModel(*request.graph, request.model, &stop) ||
                 !family->usePins(*request.graph, request.pins, &stop)))
    family.reset();
  return family;
}

Plan planFromPath(const graph::ComputeGraph& g, const LowerSetFamily& family, const std::vector<std::size_t>& path) {
  std::vector<graph::NodeSet> sets;
  sets.reserve(path.size());
  for (std::size_t i : path) sets.push_back(family.set(i));
  return chainPlan(g, std::move(sets), family.model());
}

// After a time limit, the best complete plan the finished fronts allow: from each finished set, one
// last transition straight to V.
std::optional<std::vector<std::size_t>> incumbent(const LowerSetFamily& f, const DpRun& run, std::int64_t budget) {
  const std::size_t last = f.size() - 1;
  std::optional<std::pair<std::int64_t, std::pair<std::size_t, std::size_t>>> best;
  for (std::size_t i = 0; i < run.processed; ++i) {
    const auto& front = run.fronts[i];
    if (front.empty() || !f.allowed(i, last)) continue;
    const Transition step = f.transition(i, last);
    const std::int64_t base = step.base;
    const std::int64_t dt = step.dt;
    for (std::size_t k = 0; k < front.size(); ++k) {
      if (saturatingAdd(front[k].m, base) > budget) continue;
      const std::int64_t t = front[k].t + dt;
      if (!best || t < best->first) best = {t, {i, k}};
    }
  }
  if (!best) return std::nullopt;
  std::vector<std::size_t> path = best->second.first == 0
                                      ? std::vector<std::size_t>{}
                                      : reconstructPath(run, best->second.first, best->second.second);
  path.push_back(last);
  return path;
}

// Why no chain of the family reaches V: only pins can forbid every one (without them, ∅ -> V is always a
// step), and in the simulator's model even they cannot (its last segment recomputes nothing and keeps
// no checkpoint); in the paper's, which recomputes the last segment too, an op pinned keep that no
// segment can end with as a checkpoint (one without consumers) can.
std::string pinsUnreachable(const LowerSetFamily& family, std::string_view what) {
  return "no lower-set chain of " + std::string(what) + " respects the pins in the " +
         std::string(dpModelName(family.model())) +
         "'s model (its lowering recomputes every segment member off the segment's boundary, the last "
         "segment's too, so an operation pinned keep must be a checkpoint: it needs a consumer)";
}

// Why there is no family: cancelled, out of time, or more lower sets than exact-dp accepts.
// `limit` the count the enumeration stopped at; `cap` exact-dp's own (when the memory limit allows fewer).
std::pair<SolveStatus, std::string> noFamily(const TimeLimit& guard, std::uint64_t limit, std::uint64_t cap = 0) {
  if (guard.cancelled()) return {SolveStatus::Cancelled, "cancelled"};
  if (guard.expired()) return {SolveStatus::TimeLimit, "time limit reached while preparing the lower sets"};
  if (cap > limit)
    return {SolveStatus::Limit, "the graph has more than " + std::to_string(limit) +
                                    " lower sets, all that the memory limit holds (--memory-limit); use approx-dp, "
                                    "or a higher limit"};
  return {SolveStatus::Limit, "the graph has more than " + std::to_string(limit) +
                                  " lower sets, more than exact-dp takes in its time (its work grows with the "
                                  "square of their number; a longer --time-limit allows more); use approx-dp, "
                                  "which is polynomial, or dp-evict"};
}

Solver::MinBudget leastBudgetOver(const std::optional<LowerSetFamily>& family,
                                  std::chrono::steady_clock::time_point start, std::uint64_t limit, TimeLimit& guard) {
  Solver::MinBudget out;
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  if (!family) {
    std::tie(out.status, out.message) = noFamily(guard, limit);
    out.seconds = seconds();
    return out;
  }
  const auto least = leastFeasibleBudget(*family, &guard);
  out.seconds = seconds();
  if (least == INT64_MAX) {
    out.status = SolveStatus::Infeasible;
    out.message = pinsUnreachable(*family, "the DP's family");
    return out;
  }
  if (!least) {
    const bool cancelled = guard.cancelled();
    out.status = cancelled ? SolveStatus::Cancelled : SolveStatus::TimeLimit;
    out.message = cancelled ? "cancelled" : "time limit reached";
    return out;
  }
  out.status = SolveStatus::Optimal;
  out.bytes = Bytes{*least};
  return out;
}

// Front points the request's memory limit allows, at most `cap`: a stored point takes 24 bytes, and
// the slack of the fronts' vectors and the per-set scratch about as much again.
std::size_t pointsWithin(const SolveRequest& request, std::size_t cap) {
  const std::int64_t memory = memoryLimitOr(request.memoryLimit);
  return std::min<std::size_t>(cap, static_cast<std::size_t>(std::max<std::int64_t>(1, memory / 48)));
}

// Points the trade-off fronts may hold (about 24 bytes each, so some 500 MB) before the sweep falls back
// to solving at a grid of budgets.
constexpr std::size_t kMaxTradeOffPoints = 20'000'000;

Solver::TradeOff tradeOffOver(const Solver& solver, const graph::ComputeGraph& g,
                              const std::optional<LowerSetFamily>& family, const SolveRequest& request,
                              std::size_t points, std::uint64_t limit, TimeLimit& guard) {
  const auto start = std::chrono::steady_clock::now();
  Solver::TradeOff out;
  if (!family) {
    std::tie(out.status, out.message) = noFamily(guard, limit);
    return out;
  }
  DpOptions options;
  options.limit = &guard;
  options.progress = request.progress;
  options.maxPoints = pointsWithin(request, kMaxTradeOffPoints);
  TradeOffRun run = tradeOffFront(*family, options);
  switch (run.outcome) {
    case DpOutcome::Cancelled:
      out.status = SolveStatus::Cancelled;
      out.message = "cancelled";
      return out;
    case DpOutcome::TimeLimit:
      out.status = SolveStatus::TimeLimit;
      out.message = "time limit reached";
      return out;
    case DpOutcome::MemoryLimit: {
      // Fronts too large for memory (deep graphs with a wide range of overheads): fall back to solving
      // at evenly spread budgets, each an exact time-centric solve, and say so.
      out = solver.Solver::planTradeOff(request, points);
      out.message = "the whole front is too large to compute in one run here, so these are exact solves at " +
                    std::to_string(points) + " budgets" + (out.message.empty() ? "" : "; " + out.message);
      out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      return out;
    }
    case DpOutcome::Complete: break;
  }
  // Thin a long front to `points`, evenly by position, keeping both ends.
  std::vector<std::size_t> keep;
  const std::size_t total = run.front.size();
  if (points >= 2 && total > points) {
    for (std::size_t k = 0; k < points; ++k) keep.push_back(k * (total - 1) / (points - 1));
    keep.erase(std::unique(keep.begin(), keep.end()), keep.end());
  } else {
    for (std::size_t k = 0; k < total; ++k) keep.push_back(k);
  }
  for (std::size_t k : keep)
    out.plans.push_back({Bytes{run.front[k].peak}, planFromPath(g, *family, run.front[k].path), {}});
  out.status = SolveStatus::Optimal;
  out.whole = keep.size() == total;
  out.message = "the front has " + std::to_string(total) + " points";
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace

namespace {

// solveOverFamily under a limit already running (`guard`: the request's, started with the solve), and
// the warm start's answer already computed where `warm` holds one.
SolverOutput solveFrom(const graph::ComputeGraph& g, const LowerSetFamily& family, const SolveRequest& request,
                       std::string_view what, const LowerSetFamily* warmStart, std::optional<SolverOutput> warm,
                       ThresholdSearch search, TimeLimit& guard) {
  const Strategy strategy = request.strategy == Strategy::Memory ? Strategy::Memory : Strategy::Time;
  DpOptions options;
  options.budget = request.budget ? request.budget->value : INT64_MAX;
  options.limit = &guard;
  options.progress = request.progress;
  options.strategy = strategy;
  options.maxPoints = pointsWithin(request, options.maxPoints);
  auto objective = [strategy](std::int64_t overhead, std::int64_t checkpoints) {
    return strategy == Strategy::Memory ? checkpoints : overhead;
  };
  // The optimum over the warm-start subfamily (exact-dp starts from approx-dp's answer): an incumbent
  // for the pruning below, and the answer should time run out before the full DP finishes.
  std::optional<SolverOutput> sub = std::move(warm);
  if (warmStart && !sub) {
    SolveRequest quick = request;
    quick.strategy = strategy;
    quick.progress = {};
    sub = solveFrom(g, *warmStart, quick, what, nullptr, std::nullopt, ThresholdSearch::Direct, guard);
  }
  if (sub && (sub->status != SolveStatus::Optimal || !sub->plan)) sub.reset();
  auto stopped = [&]() -> SolverOutput {
    if (guard.cancelled()) return {SolveStatus::Cancelled, std::nullopt, "cancelled"};
    if (sub)
      return {SolveStatus::TimeLimit, std::move(sub->plan),
              "time limit reached: approx-dp's plan (not proven optimal)"};
    return {SolveStatus::TimeLimit, std::nullopt, "time limit reached before any solution was found"};
  };
  // No plan worth finding recomputes more than one already found, so the time-centric bounds need
  // only hold for continuations within its overhead, and the bounds pass costs far less under a tight
  // cap. Plans before the bounds: the warm start's (its family is part of this one), and a beam's that
  // ranks points by their overhead so far (the beam after the bounds ranks them better, by their
  // bound on the finished overhead). On cg_googlenet at its least budget, approx-dp's overhead
  // (112) left 61% of the 121 million steps in the pass, the first beam's (37; the optimum is 36) 22%,
  // and the whole solve took 40% less time.
  std::optional<DpModelCost> subCost;
  if (sub) subCost = evaluateChainModel(g, *sub->plan->lowerSets, family.model());
  std::int64_t cap = subCost && strategy == Strategy::Time ? subCost->overhead.value : INT64_MAX;
  std::optional<DpRun> early;
  if (strategy == Strategy::Time) {
    DpOptions beam = options;
    beam.beamWidth = 16;
    beam.nearestSources = 32;
    beam.progress = {};
    early = runParetoDp(family, beam);
    if (early->outcome == DpOutcome::Complete && !early->fronts.back().empty())
      cap = std::min(cap, early->fronts.back().front().t);
    else
      early.reset();
  }
  // The multipliers of the Lagrangian bounds, refined where they matter by a coarse pass over the
  // smaller of the families at hand.
  auto lambdas =
      refinedLambdas(warmStart ? *warmStart : family, BoundTarget{options.budget, strategy, {}, cap}, &guard);
  if (!lambdas) return stopped();
  auto bounds = continuationBounds(family, &guard, 0, BoundTarget{options.budget, strategy, std::move(*lambdas), cap});
  if (!bounds) return stopped();
  options.bounds = &*bounds;
  if (bounds->minPeak[0] == INT64_MAX) return {SolveStatus::Infeasible, std::nullopt, pinsUnreachable(family, what)};

  // Where the budget is under the least feasible one: in the paper's model the bounds know it exactly;
  // in the simulator's they give a lower bound at once, and the DP itself proves the rest (its run
  // without an incumbent reaches V exactly when some plan fits).
  auto infeasible = [&](std::optional<std::int64_t> least) -> SolverOutput {
    std::string why = "no plan fits the budget in the DP model (" + std::string(dpModelName(family.model())) +
                      "'s); the least feasible budget for " + std::string(what) +
                      (request.pins.empty() ? "" : " under the pins") +
                      (least ? " is " + formatByteSize(Bytes{*least}) + " (" + std::to_string(*least) + " bytes)"
                             : " is higher (remat min-budget computes it)");
    if (request.strategy == Strategy::Auto) {
      // The paper's advice when the time-centric problem has no solution: the memory-centric plan, whose
      // liveness-aware real peak is the lowest; it is judged by the simulator against the budget.
      SolveRequest open = request;
      open.budget.reset();
      open.strategy = Strategy::Memory;
      SolverOutput fallback = solveFrom(g, family, open, what, warmStart, std::nullopt, search, guard);
      if (fallback.plan)
        return {SolveStatus::Feasible, std::move(fallback.plan), why + "; fell back to the memory-centric plan",
                BudgetMeasure::Simulated};
    }
    return {SolveStatus::Infeasible, std::nullopt, why};
  };
  if (bounds->minPeak[0] > options.budget) {
    std::optional<std::int64_t> least = bounds->minPeak[0];
    if (!family.quickIsExact()) least = exactLeastPeak(family, *bounds, &guard);
    if (!least) return stopped();
    return infeasible(least);
  }

  // An incumbent prunes every point that cannot beat it: the warm start's value, the first beam's, or
  // where neither reached a plan, the greedy walk's; the beam below may better it. Its plan is kept:
  // a run at its value that reaches no better plan proves it optimal.
  std::optional<Plan> incumbentPlan;
  std::int64_t incumbentOther = 0;  // its other coordinate: checkpoint memory, or overhead
  auto offer = [&](std::int64_t overhead, std::int64_t checkpoints, auto&& makePlan) {
    const std::int64_t value = objective(overhead, checkpoints);
    const std::int64_t other = strategy == Strategy::Memory ? overhead : checkpoints;
    if (options.incumbent && std::pair{*options.incumbent, incumbentOther} <= std::pair{value, other}) return;
    options.incumbent = value;
    incumbentOther = other;
    incumbentPlan = makePlan();
  };
  if (sub) offer(subCost->overhead.value, subCost->checkpointBytes.value, [&] { return *sub->plan; });
  if (early) {
    const DpPoint& best = early->fronts.back().front();
    offer(best.t, best.m, [&] { return planFromPath(g, family, reconstructPath(*early, family.size() - 1, 0)); });
  }
  if (!options.incumbent)
    if (auto greedy = greedyPath(family, *bounds, options.budget, strategy))
      offer(greedy->overhead, greedy->checkpoints, [&] { return planFromPath(g, family, greedy->path); });
  // A beam over the family itself: a few promising points per set, each set taking candidates from its
  // nearest sources only. Every path it keeps is a real plan, so its best one is an incumbent, usually
  // the optimum or close to it; a run at that value then finds the optimum at once.
  bool beamReached = false;
  // Not when the incumbent already meets the lower bound: no plan can beat it.
  if (!options.incumbent || *options.incumbent > bounds->remaining(0, 0)) {
    DpOptions beam = options;
    // 64 points a set: on the 10,000-op graph at 4x its least budget, 16 gave an incumbent 15% above
    // the optimum (40,705 against 35,271) and the run at it 44 million points; 64 gave 35,319 and 12
    // million, in half the time (instrumented build). Neither greedy walk nor beam found any plan there
    // before the beam also kept each front's leanest point.
    beam.beamWidth = 64;
    // The 64 nearest subsets of each set: on deep graphs most of the beam's time went to thousands of
    // far sources whose long steps its points never use (the 10,000-op graph at 32x: 2.6 s against
    // 0.13 s, same incumbent; instrumented build, beam of 16). On PSPNet's lower sets its plan is the
    // optimum at 1.1x and 1.5x its least budget and 0.7% above it at 2x.
    beam.nearestSources = 64;
    beam.progress = {};
    const DpRun quick = runParetoDp(family, beam);
    if (quick.outcome == DpOutcome::Complete && !quick.fronts.back().empty()) {
      beamReached = true;
      const auto& front = quick.fronts.back();
      const std::size_t point = strategy == Strategy::Memory ? front.size() - 1 : 0;
      offer(front[point].t, front[point].m,
            [&] { return planFromPath(g, family, reconstructPath(quick, family.size() - 1, point)); });
    }
  }
  const std::size_t last = family.size() - 1;
  // Pruning at a threshold keeps every path whose objective is at most the threshold. Where the beam
  // reached a plan, or with Direct, there is one run, at the incumbent. Otherwise Gallop climbs the
  // threshold from the continuation lower bound in doubling steps, never past the incumbent, until a
  // probe reaches V (a threshold below the optimum leaves V's front empty); that probe holds the
  // optimum, and its slack is at most the distance from the lower bound. The run at the incumbent
  // keeps only what could beat it: a strictly better objective, or the same one with less of the
  // other coordinate (the optimum the DP reports is the least of both, in that order). Where it
  // reaches no plan the incumbent is that optimum. A run that kept every path tying with it cost up
  // to three times as much (PSPNet at twice its least budget: 1.1 billion source points visited,
  // against 0.36 billion just under it; counted by an instrumented build).
  const std::int64_t low = bounds->remaining(0, 0);
  const std::optional<std::int64_t> high = options.incumbent;
  DpRun run;
  // Start the gallop at a 1/256 of the gap so that objectives in bytes do not take thirty probes.
  const std::int64_t firstStep = high && *high > low ? std::max<std::int64_t>(1, (*high - low) / 256) : 1;
  if (!high) {
    run = runParetoDp(family, options);  // pruned by the budget alone
  } else {
    std::int64_t step = firstStep;
    const bool direct = beamReached || search == ThresholdSearch::Direct;
    std::int64_t guess = direct ? *high : saturatingAdd(low, firstStep - 1);
    for (;;) {
      const bool atIncumbent = guess >= *high;
      options.incumbent = atIncumbent ? *high : guess;
      options.tieBreak = atIncumbent ? std::optional<std::int64_t>(incumbentOther) : std::nullopt;
      run = runParetoDp(family, options);
      if (run.outcome != DpOutcome::Complete || !run.fronts[last].empty()) break;
      if (atIncumbent) return {SolveStatus::Optimal, std::move(incumbentPlan), {}};  // nothing beats it
      step = saturatingAdd(step, step);
      guess = saturatingAdd(low, step - 1);
    }
  }

  switch (run.outcome) {
    case DpOutcome::Cancelled: return {SolveStatus::Cancelled, std::nullopt, "cancelled"};
    case DpOutcome::TimeLimit: {
      // The better of the incumbent and the best plan the finished fronts allow.
      std::optional<Plan> best;
      if (auto path = incumbent(family, run, options.budget)) best = planFromPath(g, family, *path);
      auto value = [&](const Plan& p) {
        const DpModelCost c = evaluateChainModel(g, *p.lowerSets, family.model());
        return objective(c.overhead.value, c.checkpointBytes.value);
      };
      if (incumbentPlan && (!best || value(*best) > *high)) best = std::move(incumbentPlan);
      if (!best) return {SolveStatus::TimeLimit, std::nullopt, "time limit reached before any solution was found"};
      return {SolveStatus::TimeLimit, std::move(best),
              "time limit reached: the best plan found so far (not proven optimal)"};
    }
    case DpOutcome::MemoryLimit:
      return {SolveStatus::Limit, std::nullopt,
              "the DP fronts outgrew their memory cap (" + std::to_string(run.points) + " points, more than the " +
                  std::to_string(options.maxPoints) +
                  " allowed: the memory limit at 48 bytes a point, at most 200 million); try approx-dp"};
    case DpOutcome::Complete: break;
  }

  const std::vector<DpPoint>& front = run.fronts[last];
  if (front.empty()) {
    // A run without an incumbent prunes only what cannot fit: nothing reached V, so no plan fits.
    if (!high) {
      const auto least = exactLeastPeak(family, *bounds, &guard);
      if (!least) return stopped();
      return infeasible(least);
    }
    // The incumbent's own path survives pruning, so this is a bug.
    return SolverOutput::failed("internal error: the DP lost every plan despite a feasible budget");
  }
  const std::size_t point = strategy == Strategy::Memory ? front.size() - 1 : 0;
  return {SolveStatus::Optimal, planFromPath(g, family, reconstructPath(run, last, point)), {}};
}

}  // namespace

SolverOutput solveOverFamily(const graph::ComputeGraph& g, const LowerSetFamily& family, const SolveRequest& request,
                             std::string_view what, const LowerSetFamily* warmStart, ThresholdSearch search) {
  TimeLimit limit = startLimit(request);
  return solveFrom(g, family, request, what, warmStart, std::nullopt, search, limit);
}

const SolverInfo& ExactDp::info() const {
  static const SolverInfo kInfo{
      .id = "exact-dp",
      .name = "Exact DP over all lower sets",
      .citation =
          "Kusumoto et al., A Graph Theoretic Framework of Recomputation Algorithms for Memory-Efficient "
          "Backpropagation, NeurIPS 2019",
      .problemClass = "any DAG (exponential in its width)",
      .exact = true,
      .budgetMeasure = BudgetMeasure::DpModel,
      .pins = PinSupport::KeepAndRecompute,
      .followsStrategy = true,
      .figureSlot = 0,
  };
  return kInfo;
}

SolverOutput ExactDp::plan(const SolveRequest& request) const {
  const graph::ComputeGraph& g = *request.graph;
  // One limit for the whole run: enumerating the lower sets and their terms takes seconds on families
  // near the limit, and counts against the time limit like the DP itself.
  TimeLimit limit = startLimit(request);
  // The DP's work grows with the square of the number of lower sets, so a family that takes half the
  // limit (time or work) to enumerate cannot be solved within it: the enumeration stops there, and the
  // answer is approx-dp's plan, computed in the other half.
  std::optional<LowerSetFamily> family;
  bool outOfTime = false;
  {
    const auto enumerating = limit.part(0.5);
    const std::uint64_t sets = setsWithin(g, request, m_limit);
    if (auto why = overTimeByCount(g, request, sets, m_secondsPerPair)) return {SolveStatus::Limit, std::nullopt, *why};
    family = LowerSetFamily::allLowerSets(g, sets, enumerating.get());
    if (!family) {
      auto [status, message] = noFamily(*enumerating, sets, setsForTime(request, m_limit));
      if (status != SolveStatus::TimeLimit) return {status, std::nullopt, message};
      outOfTime = true;
    }
  }
  if (family)
    if (auto why = overTime(*family, request, m_secondsPerPair)) return {SolveStatus::Limit, std::nullopt, *why};
  // approx-dp's optimum before the simulator's terms of every set: it is the DP's first incumbent, and
  // the answer should time run out before the DP runs.
  const std::optional<LowerSetFamily> closures = inModel(LowerSetFamily::ancestorClosures(g, &limit), request, limit);
  SolveRequest quick = request;
  quick.strategy = request.strategy == Strategy::Memory ? Strategy::Memory : Strategy::Time;
  quick.progress = {};
  SolverOutput warm =
      closures ? solveFrom(g, *closures, quick, "exact-dp", nullptr, std::nullopt, ThresholdSearch::Direct, limit)
               : SolverOutput{SolveStatus::TimeLimit, std::nullopt, {}};
  if (outOfTime || !closures || !family->useModel(g, request.model, &limit) ||
      !family->usePins(g, request.pins, &limit)) {
    if (limit.cancelled()) return {SolveStatus::Cancelled, std::nullopt, "cancelled"};
    const std::string why = outOfTime ? "time limit reached: the lower sets alone took half of it"
                                      : "time limit reached while preparing the lower sets";
    if (warm.status == SolveStatus::Optimal && warm.plan)
      return {SolveStatus::TimeLimit, std::move(warm.plan), why + "; approx-dp's plan (not proven optimal)"};
    return {SolveStatus::TimeLimit, std::nullopt, why};
  }
  return solveFrom(g, *family, request, "exact-dp", &*closures, std::move(warm), ThresholdSearch::Gallop, limit);
}

Solver::MinBudget ExactDp::planMinBudget(const SolveRequest& request) const {
  if (request.graph == nullptr) return {SolveStatus::NotSolved, std::nullopt, "no graph given", 0.0, CallStatus::Error};
  const auto start = std::chrono::steady_clock::now();
  TimeLimit limit = startLimit(request);
  const std::uint64_t sets = setsWithin(*request.graph, request, m_limit);
  auto why = overTimeByCount(*request.graph, request, sets, m_secondsPerPair);
  std::optional<LowerSetFamily> family;
  if (!why) family = LowerSetFamily::allLowerSets(*request.graph, sets, &limit);
  if (family && !why) why = overTime(*family, request, m_secondsPerPair);
  if (why)
    return {SolveStatus::Limit, std::nullopt, *why,
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
  return leastBudgetOver(inModel(std::move(family), request, limit), start, sets, limit);
}

Solver::MinBudget ApproxDp::planMinBudget(const SolveRequest& request) const {
  if (request.graph == nullptr) return {SolveStatus::NotSolved, std::nullopt, "no graph given", 0.0, CallStatus::Error};
  if (auto why = closuresTooLarge(*request.graph, request))
    return {SolveStatus::Limit, std::nullopt, "approx-dp: " + *why, 0.0, CallStatus::Ok};
  const auto start = std::chrono::steady_clock::now();
  TimeLimit limit = startLimit(request);
  return leastBudgetOver(inModel(LowerSetFamily::ancestorClosures(*request.graph, &limit), request, limit), start, 0,
                         limit);
}

Solver::TradeOff ExactDp::planTradeOff(const SolveRequest& request, std::size_t points) const {
  TimeLimit limit = startLimit(request);
  const std::uint64_t sets = setsWithin(*request.graph, request, m_limit);
  auto why = overTimeByCount(*request.graph, request, sets, m_secondsPerPair);
  std::optional<LowerSetFamily> family;
  if (!why) family = LowerSetFamily::allLowerSets(*request.graph, sets, &limit);
  if (family && !why) why = overTime(*family, request, m_secondsPerPair);
  if (why) {
    TradeOff out;
    out.status = SolveStatus::Limit;
    out.message = *why;
    return out;
  }
  return tradeOffOver(*this, *request.graph, inModel(std::move(family), request, limit), request, points, sets, limit);
}

Solver::TradeOff ApproxDp::planTradeOff(const SolveRequest& request, std::size_t points) const {
  if (auto why = closuresTooLarge(*request.graph, request)) {
    TradeOff out;
    out.status = SolveStatus::Limit;
    out.message = "approx-dp: " + *why;
    return out;
  }
  TimeLimit limit = startLimit(request);
  return tradeOffOver(*this, *request.graph,
                      inModel(LowerSetFamily::ancestorClosures(*request.graph, &limit), request, limit), request,
                      points, 0, limit);
}

const SolverInfo& ApproxDp::info() const {
  static const SolverInfo kInfo{
      .id = "approx-dp",
      .name = "Approximate DP over ancestor closures",
      .citation =
          "Kusumoto et al., A Graph Theoretic Framework of Recomputation Algorithms for Memory-Efficient "
          "Backpropagation, NeurIPS 2019",
      .problemClass = "any DAG",
      .exact = false,
      .budgetMeasure = BudgetMeasure::DpModel,
      .pins = PinSupport::KeepAndRecompute,
      .followsStrategy = true,
      .figureSlot = 3,
  };
  return kInfo;
}

SolverOutput ApproxDp::plan(const SolveRequest& request) const {
  const graph::ComputeGraph& g = *request.graph;
  if (auto why = closuresTooLarge(g, request)) return {SolveStatus::Limit, std::nullopt, "approx-dp: " + *why};
  // One limit for the whole run: on deep graphs the closures and their terms take a pass over the graph
  // each, quadratic in its size (minutes on a 100,000-op chain).
  TimeLimit limit = startLimit(request);
  const std::optional<LowerSetFamily> closures = inModel(LowerSetFamily::ancestorClosures(g, &limit), request, limit);
  if (!closures) {
    if (limit.cancelled()) return {SolveStatus::Cancelled, std::nullopt, "cancelled"};
    return {SolveStatus::TimeLimit, std::nullopt, "time limit reached while preparing the ancestor closures"};
  }
  return solveFrom(g, *closures, request, "approx-dp", nullptr, std::nullopt, ThresholdSearch::Direct, limit);
}

}  // namespace remat::solvers
