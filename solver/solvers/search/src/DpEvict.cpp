#include "remat/solvers/DpEvict.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "remat/graph/ByteSize.hpp"
#include "remat/sim/CanonicalSchedule.hpp"
#include "remat/sim/Simulator.hpp"
#include "remat/solvers/Comparison.hpp"
#include "remat/solvers/FastSa.hpp"
#include "remat/solvers/Isolated.hpp"
#include "remat/solvers/SolverRegistry.hpp"

namespace remat::solvers {

const SolverInfo& DpEvict::info() const {
  static const SolverInfo kInfo{
      .id = "dp-evict",
      .name = "DP front refined by evictions (Remat)",
      .citation =
          "Remat's own: Kusumoto et al. (NeurIPS 2019)'s DP front, then evictions judged by the simulator, as "
          "DTR (Kirisame et al., ICLR 2021) evicts online",
      .problemClass =
          "any DAG (heuristic search from the DP's plans; from the forward orders on a graph computed as given)",
      .exact = false,
      .budgetMeasure = BudgetMeasure::Simulated,
      .pins = PinSupport::None,
      .scheduleClass = ScheduleClass::SearchedEviction,
      .asGiven = true,
      .figureSlot = 9,
  };
  return kInfo;
}

namespace {

using graph::NodeId;
using sim::Schedule;
using sim::SimulationResult;
using sim::StepKind;

// The op values each step reads, at 2v for `fwd v` (its operation inputs) and 2v + 1 for `bwd v` (what
// its saves keep).
std::vector<std::vector<std::uint32_t>> readsOf(const graph::ComputeGraph& g) {
  std::vector<std::vector<std::uint32_t>> out(2 * std::size_t{g.size()});
  for (std::uint32_t v = g.firstOp(); v < g.size(); ++v) {
    for (NodeId u : g.node(NodeId{v}).inputs)
      if (g.isOp(u)) out[2 * std::size_t{v}].push_back(u.value);
    for (NodeId u : sim::savedOpValues(g, NodeId{v})) out[2 * std::size_t{v} + 1].push_back(u.value);
  }
  return out;
}

const std::vector<std::uint32_t>& stepReads(const std::vector<std::vector<std::uint32_t>>& reads, const sim::Step& s) {
  static const std::vector<std::uint32_t> kNone;
  if (s.kind == StepKind::Forward) return reads[2 * std::size_t{s.node.value}];
  if (s.kind == StepKind::Backward) return reads[2 * std::size_t{s.node.value} + 1];
  return kNone;
}

SimulationResult simulate(const graph::ComputeGraph& g, const Schedule& schedule) {
  return sim::Simulator(g, {.liveness = true, .requireComplete = true, .recordLifetimes = true}).run(schedule);
}

// How high a result stands: its peak, then how many steps reach it (a move that lowers one of several
// equal peaks is progress).
std::pair<std::int64_t, std::size_t> height(const SimulationResult& r) {
  std::size_t atPeak = 0;
  for (const auto& p : r.timeline.points())
    if (p.during.total() == r.peak) ++atPeak;
  return {r.peak.value, atPeak};
}

// A candidate move: recompute `node` right before step `at`, after the ancestors it needs that are not
// in memory then (`chain`, in topological order, `node` last).
struct Move {
  std::uint32_t node;
  std::size_t at;
  double costPerByte;
  std::int64_t bytes;
  std::vector<std::uint32_t> chain;
};

// Where each op value lives in a simulated schedule: its instances' [first, last] steps, and the steps
// that read it, ascending. Built once per schedule, so that a candidate costs a few searches instead of
// scans over every lifetime and step (on the 10,000-op graph, thousands of candidates a step).
struct Residence {
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> instances;  // by node
  std::vector<std::vector<std::size_t>> readers;                            // by node

  Residence(const graph::ComputeGraph& g, const SimulationResult& r, const Schedule& schedule,
            const std::vector<std::vector<std::uint32_t>>& reads)
      : instances(g.size()), readers(g.size()) {
    using Kind = sim::TensorLifetime::Kind;
    for (const auto& life : r.lifetimes)
      if (life.kind == Kind::Value || life.kind == Kind::Recomputed)
        instances[life.node.value].emplace_back(life.first, life.last);
    for (std::size_t k = 0; k < schedule.size(); ++k)
      for (std::uint32_t v : stepReads(reads, schedule[k])) readers[v].push_back(k);
  }
  // Whether op value w is in memory when step `at` begins (an instance made before it and read at or
  // after it).
  [[nodiscard]] bool aliveAt(std::uint32_t w, std::size_t at) const {
    for (const auto& [first, last] : instances[w])
      if (first < at && last >= at) return true;
    return false;
  }
  // The first step after `s` that reads v (none: SIZE_MAX).
  [[nodiscard]] std::size_t nextRead(std::uint32_t v, std::size_t s) const {
    const auto& r = readers[v];
    const auto it = std::upper_bound(r.begin(), r.end(), s);
    return it == r.end() ? SIZE_MAX : *it;
  }
  [[nodiscard]] bool readAt(std::uint32_t v, std::size_t s) const {
    const auto& r = readers[v];
    return std::binary_search(r.begin(), r.end(), s);
  }
};

// The ops to compute, in order, so that v can be computed before step `at`: v and, first, every op
// input not in memory then, recursively (nullopt past `depth` levels).
std::optional<std::vector<std::uint32_t>> chainFor(const graph::ComputeGraph& g, const Residence& where,
                                                   std::uint32_t v, std::size_t at, int depth) {
  if (depth < 0) return std::nullopt;
  std::vector<std::uint32_t> out;
  for (NodeId u : g.node(NodeId{v}).inputs) {
    if (!g.isOp(u) || where.aliveAt(u.value, at) || std::find(out.begin(), out.end(), u.value) != out.end()) continue;
    auto sub = chainFor(g, where, u.value, at, depth - 1);
    if (!sub) return std::nullopt;
    for (std::uint32_t w : *sub)
      if (std::find(out.begin(), out.end(), w) == out.end()) out.push_back(w);
  }
  out.push_back(v);
  return out;
}

constexpr int kChainDepth = 4;

constexpr std::size_t kTriesPerStep = 16;

}  // namespace

namespace {

// Where a descent ended: the schedule, its simulation, and whether it reached the budget or was stopped
// by the limit (neither: no move lowered the peak further; the schedule is then the lowest reached).
struct Descent {
  Schedule schedule;
  SimulationResult simulated;
  bool reached = false;
  bool stopped = false;
  std::size_t moves = 0;
};

// The eviction search from `schedule` down to `budget` (Bytes{0}: as low as the moves go). Each move
// lowers the peak or the number of steps at it, so the last schedule holds the lowest peak of the way.
Descent descend(const graph::ComputeGraph& g, Schedule schedule, Bytes budget, TimeLimit& limit) {
  const auto allReads = readsOf(g);
  Descent out;
  out.simulated = simulate(g, schedule);
  out.schedule = std::move(schedule);
  if (!out.simulated.valid()) return out;
  while (out.simulated.peak > budget) {
    if (limit.charge()) {
      out.stopped = true;
      return out;
    }
    const SimulationResult& current = out.simulated;
    const std::size_t s = current.peakStep;
    const Residence where(g, current, out.schedule, allReads);
    std::vector<Move> candidates;
    std::size_t looked = 0;
    for (const sim::TensorLifetime& life : current.lifetimes) {
      using Kind = sim::TensorLifetime::Kind;
      if (life.kind != Kind::Value && life.kind != Kind::Recomputed) continue;
      if (life.first >= s || life.last <= s || life.bytes.value <= 0 || !g.isOp(life.node)) continue;
      if (++looked % 256 == 0 && limit.reached()) {
        out.stopped = true;
        return out;
      }
      const std::uint32_t v = life.node.value;
      if (where.readAt(v, s)) continue;
      // Its next read after the peak: the recomputation goes right before it.
      const std::size_t next = where.nextRead(v, s);
      if (next > life.last) continue;
      auto chain = chainFor(g, where, v, next, kChainDepth);
      if (!chain) continue;
      std::int64_t time = 0;
      for (std::uint32_t w : *chain) time += g.node(NodeId{w}).fwdTime.value;
      candidates.push_back({v, next, double(time) / double(life.bytes.value), life.bytes.value, std::move(*chain)});
    }
    std::sort(candidates.begin(), candidates.end(), [](const Move& a, const Move& b) {
      if (a.costPerByte != b.costPerByte) return a.costPerByte < b.costPerByte;
      if (a.bytes != b.bytes) return a.bytes > b.bytes;
      return a.node < b.node;
    });
    const auto before = height(current);
    bool moved = false;
    for (std::size_t k = 0; k < candidates.size() && k < kTriesPerStep && !moved; ++k) {
      if (limit.reached()) {
        out.stopped = true;
        return out;
      }
      Schedule trial = out.schedule;
      std::vector<sim::Step> steps;
      for (std::uint32_t w : candidates[k].chain) steps.push_back({StepKind::Forward, NodeId{w}});
      trial.insert(trial.begin() + static_cast<std::ptrdiff_t>(candidates[k].at), steps.begin(), steps.end());
      SimulationResult result = simulate(g, trial);
      if (!result.valid() || height(result) >= before) continue;
      out.schedule = std::move(trial);
      out.simulated = std::move(result);
      moved = true;
      ++out.moves;
    }
    if (!moved) return out;
  }
  out.reached = true;
  return out;
}

}  // namespace

std::optional<Schedule> evictToBudget(const graph::ComputeGraph& g, Schedule schedule, Bytes budget, TimeLimit& limit,
                                      std::size_t* moves) {
  Descent d = descend(g, std::move(schedule), budget, limit);
  if (!d.reached) return std::nullopt;
  if (moves) *moves = d.moves;
  return std::move(d.schedule);
}

namespace {

// The DP's front in the request's model: exact-dp's, or approx-dp's where exact-dp cannot answer. Its
// plans run by budget ascending and overhead descending, each with its simulated figures.
struct Backbone {
  Solver::TradeOff front;
  std::string id;
  std::vector<std::string> labels;  ///< what each plan of the front is, where not "<id>'s plan at <budget>"

  [[nodiscard]] std::string from(std::size_t k) const {
    if (k < labels.size()) return labels[k];
    return id + "'s plan at " + formatByteSizeExact(front.plans[k].budget);
  }
};

constexpr std::size_t kFrontPoints = 24;

Backbone dpFront(const SolveRequest& request, TimeLimit& limit, const SharedTime& shared) {
  const SolverRegistry& registry = SolverRegistry::builtin();
  SolveRequest open{.graph = request.graph, .stop = limit.token(), .model = request.model};
  open.memoryLimit = request.memoryLimit;
  open.timeLimit = shared.next(2);
  Backbone out{registry.find("exact-dp")->tradeOff(open, kFrontPoints), "exact-dp"};
  if (out.front.plans.empty() && !limit.reached()) {
    open.timeLimit = shared.next(2);
    out = {registry.find("approx-dp")->tradeOff(open, kFrontPoints), "approx-dp"};
  }
  return out;
}

// On a graph computed as given (no backward pass, so no DP): the forward orders fastsa anneals from, the
// file's and lowMemoryOrder's against `budget` (none where the beam would be narrower than 8), each
// simulated, by peak ascending. Both recompute nothing; the plan to beat is fastsa's (DpEvict::plan).
Backbone ordersFront(const graph::ComputeGraph& g, Bytes budget, TimeLimit& limit) {
  Backbone out;
  out.id = "the forward orders";
  std::vector<std::pair<Schedule, std::string>> orders;
  orders.emplace_back(sim::storeAllSchedule(g), "the file's order");
  if (const std::size_t width = lowMemoryOrderWidth(g); width > 0)
    if (auto order = lowMemoryOrder(g, budget, width, limit))
      orders.emplace_back(std::move(*order), "the low-memory order (a beam of " + std::to_string(width) + ")");
  std::vector<std::pair<Solver::FrontPlan, std::string>> plans;
  for (auto& [order, label] : orders) {
    const SimulationResult s = simulate(g, order);
    if (!s.valid()) throw std::logic_error("dp-evict: a forward order the simulator rejects: " + s.error->message);
    Solver::FrontPlan p{s.peak, Plan{std::move(order), std::nullopt, DpModelKind::Simulator}, {}};
    p.metrics.simulatedPeak = s.peak;
    p.metrics.overhead = s.overhead;
    plans.emplace_back(std::move(p), std::move(label));
  }
  std::stable_sort(plans.begin(), plans.end(),
                   [](const auto& a, const auto& b) { return a.first.budget < b.first.budget; });
  for (auto& [p, label] : plans) {
    out.front.plans.push_back(std::move(p));
    out.labels.push_back(std::move(label));
  }
  out.front.status = limit.reached() ? SolveStatus::TimeLimit : SolveStatus::Feasible;
  return out;
}

// The front to start from: the DP's, or on a graph computed as given the forward orders.
Backbone backbone(const SolveRequest& request, Bytes budget, TimeLimit& limit, const SharedTime& shared) {
  if (request.graph->asGiven()) return ordersFront(*request.graph, budget, limit);
  return dpFront(request, limit, shared);
}

SolverOutput noFront(const Backbone& b, const TimeLimit& limit) {
  if (limit.cancelled()) return {SolveStatus::Cancelled, std::nullopt, "cancelled"};
  // The front stopped at its share of the time limit is a time limit too, not a refusal.
  if (limit.expired() || b.front.status == SolveStatus::TimeLimit)
    return {SolveStatus::TimeLimit, std::nullopt,
            "the time limit ran out before the DP's front (" + b.id + ": " + b.front.message + ")"};
  return {SolveStatus::Limit, std::nullopt, "no DP front to start from: " + b.front.message};
}

// The search at one budget, from the plan to beat (the DP's at the budget, when it has one that fits):
// the front's plans of less overhead, least first, each refined by evictions; a refinement only adds
// overhead, so plans at or above the best found are skipped, and the first front plan that fits as it
// is ends the walk (the DP's plan at the budget is at least as good).
SolverOutput searchAt(const graph::ComputeGraph& g, const Backbone& b, Bytes budget, std::optional<Plan> best,
                      std::optional<Ticks> bestOverhead, std::string bestFrom, DpModelKind model, TimeLimit& limit) {
  std::size_t refined = 0;
  for (auto p = b.front.plans.rbegin(); p != b.front.plans.rend(); ++p) {
    const auto k = static_cast<std::size_t>(b.front.plans.rend() - p - 1);
    if (limit.reached()) break;
    if (bestOverhead && p->metrics.overhead >= *bestOverhead) break;
    if (p->metrics.simulatedPeak <= budget) break;
    // The descent's own simulation of where it ended says whether it fits and what it costs.
    Descent d = descend(g, p->plan.schedule, budget, limit);
    ++refined;
    if (!d.reached) continue;
    if (bestOverhead && d.simulated.overhead >= *bestOverhead) continue;
    best = Plan{std::move(d.schedule), std::nullopt, model};
    bestOverhead = d.simulated.overhead;
    bestFrom = b.from(k) + " with " + std::to_string(d.moves) + " evictions";
  }
  if (best) {
    const bool stopped = limit.reached() && !limit.cancelled();
    return {stopped ? SolveStatus::TimeLimit : SolveStatus::Feasible, std::move(best),
            bestFrom + " (" + std::to_string(refined) + " of the front's plans refined)"};
  }
  if (limit.cancelled()) return {SolveStatus::Cancelled, std::nullopt, "cancelled"};
  if (limit.expired()) return {SolveStatus::TimeLimit, std::nullopt, "the time limit ran out before a plan fitted"};
  const std::string what = b.labels.empty() ? "no plan of " + b.id + "'s front" : "none of " + b.id;
  return {SolveStatus::Infeasible, std::nullopt,
          what + " comes within the budget by evictions (" + std::to_string(refined) + " refined)"};
}

}  // namespace

namespace {

// DTR's plan at its single-op minimum (docs/dtr.md): every evictable value evicted and recomputed on
// demand, as often as the backward pass needs it, so it goes as low as the plain run's backward order
// allows, where the evictions from the DP's plans stop once no single eviction lowers the peak and the
// annealer's groups recompute at most 3 levels of inputs. Its peak (simulated) and schedule; none where
// DTR has no minimum (it thrashes past its step cap: status limit) or the limit ran out.
// On a graph computed as given, which DTR does not plan (it replays a backward pass), fastsa's plan at its
// least budget instead (the run against a budget of 0 from both forward orders).
std::optional<std::pair<Bytes, Schedule>> rivalLeast(const graph::ComputeGraph& g, TimeLimit& limit,
                                                     std::optional<std::chrono::milliseconds> time,
                                                     std::optional<Bytes> memoryLimit, std::uint64_t seed) {
  SolveRequest open{.graph = &g, .stop = limit.token()};
  open.timeLimit = time;
  open.memoryLimit = memoryLimit;
  open.seed = seed;
  SolveResult r = solveAtLeastBudget(*SolverRegistry::builtin().find(g.asGiven() ? "fastsa" : "dtr"), open);
  if (!r.plan || !fitsBudget(r) || limit.reached()) return std::nullopt;
  return std::pair{r.simulation.peak, std::move(r.plan->schedule)};
}

// The least budget the search reaches and the plan there: from every plan of the front (kFrontPoints),
// moves as low as they go; DTR's plan at its single-op minimum where that is lower; then annealing from
// the lowest (fastsa's moves, against a budget of 0: it lowers the peak where it can, and the overhead at
// that peak). The lowest simulated peak reached, or the DP's least if nothing lowers it.
struct Least {
  Solver::MinBudget answer;
  std::optional<Schedule> schedule;
};

Least leastReached(const graph::ComputeGraph& g, const Backbone& b, std::uint64_t seed, TimeLimit& limit,
                   std::optional<std::chrono::milliseconds> rivalTime, std::optional<Bytes> memoryLimit) {
  Least out;
  Bytes least = b.front.plans.front().metrics.simulatedPeak;
  out.schedule = b.front.plans.front().plan.schedule;
  std::string from = b.from(0) + " (no eviction lowers it)";
  for (std::size_t k = 0; k < b.front.plans.size(); ++k) {
    Descent d = descend(g, b.front.plans[k].plan.schedule, Bytes{0}, limit);
    if (d.stopped) break;
    if (d.simulated.valid() && d.simulated.peak < least) {
      least = d.simulated.peak;
      out.schedule = std::move(d.schedule);
      from = b.from(k) + " with " + std::to_string(d.moves) + " evictions";
    }
  }
  if (!limit.reached())
    if (auto rival = rivalLeast(g, limit, rivalTime, memoryLimit, seed); rival && rival->first < least) {
      least = rival->first;
      out.schedule = std::move(rival->second);
      from = g.asGiven() ? "fastsa's plan at its least budget (lower than the evictions reach)"
                         : "dtr's plan at its single-op minimum (lower than the evictions reach)";
    }
  if (!limit.reached() && annealMemory(g, &*out.schedule).value <= memoryLimitOr(memoryLimit)) {
    AnnealResult a = anneal(g, Bytes{0}, seed, std::nullopt, limit, &*out.schedule);
    if (a.schedule && !a.stopped) {
      const SimulationResult s = simulate(g, *a.schedule);
      if (s.valid() && s.peak < least) {
        least = s.peak;
        out.schedule = std::move(a.schedule);
        from += ", then annealed";
      }
    }
  }
  if (limit.reached()) {
    out.answer.status = limit.cancelled() ? SolveStatus::Cancelled : SolveStatus::TimeLimit;
    out.answer.message =
        limit.cancelled() ? "cancelled" : "the time limit ran out before the search went as low as it goes";
    out.schedule.reset();
    return out;
  }
  out.answer.status = SolveStatus::Optimal;
  out.answer.bytes = least;
  out.answer.message = "the least budget dp-evict's search reaches (a heuristic's, not a proven least): " + from;
  return out;
}

// The plan found refined by annealing (fastsa's moves, starting from it, cooler): taken where it fits
// the budget in the simulator with less overhead. `rounds` runs, each from the best plan so far with the
// next seed (seed, seed + 1, ...): where a run stalls in a local minimum, the next cools again from the
// start of its schedule, from the best plan rather than from that run's end state.
void annealFrom(const graph::ComputeGraph& g, Bytes budget, std::uint64_t seed, TimeLimit& limit, SolverOutput& out,
                std::optional<Bytes> memoryLimit, int rounds = 1) {
  if (!out.plan || limit.reached()) return;
  if (annealMemory(g, &out.plan->schedule).value > memoryLimitOr(memoryLimit)) return;  // too large to anneal
  const SimulationResult before = simulate(g, out.plan->schedule);
  if (before.overhead == Ticks{0}) return;  // nothing recomputed: no plan is better
  Ticks best = before.overhead;
  for (int r = 0; r < rounds && !limit.reached(); ++r) {
    AnnealResult a = anneal(g, budget, seed + std::uint64_t(r), std::nullopt, limit, &out.plan->schedule);
    if (!a.schedule) continue;
    const SimulationResult after = simulate(g, *a.schedule);
    if (!after.valid() || after.peak > budget || after.overhead >= best) continue;
    out.plan->schedule = std::move(*a.schedule);
    best = after.overhead;
  }
  if (best == before.overhead) return;
  // The schedule is no longer the chain's canonical one: a plan that kept the chain would be run as
  // the chain (remat.torch's apply runs `segments`) while reporting the annealed schedule's figures.
  out.plan->lowerSets.reset();
  out.message += ", then annealed (overhead " + std::to_string(before.overhead.value) + " -> " +
                 std::to_string(best.value) + (rounds > 1 ? ", " + std::to_string(rounds) + " rounds" : "") + ")";
}

// Rounds of annealing for a solve. On a graph computed as given there is no DP front: the plan annealed
// is fastsa's (or an order refined by evictions), a heuristic's, and the annealing is most of the search;
// on Moccasin's RL4 single runs from fastsa's plan stalled at its overhead or a little below in most of
// 8 seeds (solver/solvers/search/README.md). On training graphs the DP's plan is the start, and one run.
int annealRounds(const graph::ComputeGraph& g) { return g.asGiven() ? 4 : 1; }

}  // namespace

SolverOutput DpEvict::plan(const SolveRequest& request) const {
  const graph::ComputeGraph& g = *request.graph;
  const SolverRegistry& registry = SolverRegistry::builtin();
  // Without a budget nothing needs recomputing: the plain run.
  if (!request.budget) {
    SolverOutput plain = registry.plainRun().plan(request);
    if (plain.plan) plain.status = SolveStatus::Feasible;
    plain.message = "no budget: the plain run";
    return plain;
  }
  TimeLimit limit = startLimit(request);
  const SharedTime shared(request.timeLimit);
  const Backbone b = backbone(request, *request.budget, limit, shared);
  if (b.front.plans.empty()) return noFront(b, limit);
  // The plan to beat first: the DP's own answer at the budget, or on a graph computed as given fastsa's
  // (same seed), or a forward order that fits as it is (nothing recomputed: none is better).
  std::optional<Plan> best;
  std::optional<Ticks> bestOverhead;
  std::string bestFrom;
  if (g.asGiven())
    for (std::size_t k = 0; k < b.front.plans.size(); ++k)
      if (b.front.plans[k].metrics.simulatedPeak <= *request.budget) {
        best = b.front.plans[k].plan;
        bestOverhead = b.front.plans[k].metrics.overhead;
        bestFrom = b.from(k) + ", within the budget as it is";
        break;
      }
  if (!best) {
    const std::string rival = g.asGiven() ? "fastsa" : b.id;
    SolveRequest at{.graph = &g,
                    .budget = request.budget,
                    .strategy = Strategy::Time,
                    .stop = limit.token(),
                    .model = request.model};
    at.memoryLimit = request.memoryLimit;
    at.timeLimit = shared.next(2);
    at.seed = request.seed;
    SolveResult r = registry.find(rival)->solve(at);
    if (r.plan && fitsBudget(r)) {
      best = std::move(r.plan);
      bestOverhead = r.metrics.overhead;
      bestFrom = rival + "'s plan at the budget";
    }
  }
  SolverOutput out = searchAt(g, b, *request.budget, std::move(best), bestOverhead, bestFrom, request.model, limit);
  if (out.plan) {
    annealFrom(g, *request.budget, request.seed, limit, out, request.memoryLimit, annealRounds(g));
    if (limit.reached() && !limit.cancelled()) out.status = SolveStatus::TimeLimit;
    return out;
  }
  if (out.status != SolveStatus::Infeasible) return out;
  // Below what the evictions reach: the least budget's search (the one minBudget runs, so that a solve at
  // dp-evict's least budget finds its plan), then annealing from its plan against this budget.
  Least least = leastReached(g, b, request.seed, limit, shared.next(2), request.memoryLimit);
  if (!least.schedule || !least.answer.bytes) return out;
  if (*least.answer.bytes <= *request.budget) {
    SolverOutput found{SolveStatus::Feasible, Plan{std::move(*least.schedule), std::nullopt, request.model},
                       "the plan of its least budget (" + least.answer.message + ")"};
    annealFrom(g, *request.budget, request.seed, limit, found, request.memoryLimit, annealRounds(g));
    if (limit.reached() && !limit.cancelled()) found.status = SolveStatus::TimeLimit;
    return found;
  }
  out.message += "; its least budget is " + formatByteSizeExact(*least.answer.bytes);
  return out;
}

Solver::MinBudget DpEvict::planMinBudget(const SolveRequest& request) const {
  if (request.graph == nullptr) return {SolveStatus::NotSolved, std::nullopt, "no graph given", 0.0, CallStatus::Error};
  const auto start = std::chrono::steady_clock::now();
  TimeLimit limit = startLimit(request);
  const SharedTime shared(request.timeLimit);
  const Backbone b = backbone(request, Bytes{0}, limit, shared);
  MinBudget out;
  if (b.front.plans.empty()) {
    const SolverOutput none = noFront(b, limit);
    out.status = none.status;
    out.message = none.message;
  } else {
    out = leastReached(*request.graph, b, request.seed, limit, shared.next(2), request.memoryLimit).answer;
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

Solver::TradeOff DpEvict::planTradeOff(const SolveRequest& request, std::size_t points) const {
  TradeOff out;
  if (request.graph == nullptr) {
    out.call = CallStatus::Error;
    out.message = "no graph given";
    return out;
  }
  const graph::ComputeGraph& g = *request.graph;
  const auto start = std::chrono::steady_clock::now();
  TimeLimit limit = startLimit(request);
  const SharedTime shared(request.timeLimit);
  // One DP front for every budget of the sweep (a solve would compute it again at each); on a graph
  // computed as given the forward orders.
  const Backbone b = backbone(request, Bytes{0}, limit, shared);
  if (b.front.plans.empty()) {
    const SolverOutput none = noFront(b, limit);
    out.status = none.status;
    out.message = none.message;
    return out;
  }
  // Budgets from the least the search reaches to the plain run's peak; at each, the plan to beat is the
  // front's last within it (the DP's plan there when the front is whole, a thinned front's nearest below
  // otherwise).
  Least least = leastReached(g, b, request.seed, limit, shared.next(2), request.memoryLimit);
  if (!least.answer.bytes) {
    out.status = least.answer.status;
    out.message = least.answer.message;
    return out;
  }
  const Bytes low = *least.answer.bytes;
  const Bytes high = b.front.plans.back().metrics.simulatedPeak;
  const std::size_t steps = std::max<std::size_t>(points, 2);
  std::size_t unanswered = 0;
  std::optional<Ticks> previous;
  for (std::size_t k = 0; k < steps && !limit.reached(); ++k) {
    const Bytes budget{low.value + (high.value - low.value) * std::int64_t(k) / std::int64_t(steps - 1)};
    std::optional<Plan> base;
    std::optional<Ticks> baseOverhead;
    for (const auto& p : b.front.plans)
      if (p.metrics.simulatedPeak <= budget && (!baseOverhead || p.metrics.overhead < *baseOverhead)) {
        base = p.plan;
        baseOverhead = p.metrics.overhead;
      }
    SolverOutput r =
        searchAt(g, b, budget, std::move(base), baseOverhead, b.id + "'s front plan", request.model, limit);
    if (r.status == SolveStatus::Infeasible && least.schedule && low <= budget)  // as a solve there
      r = {SolveStatus::Feasible, Plan{*least.schedule, std::nullopt, request.model}, "the least budget's plan"};
    annealFrom(g, budget, request.seed, limit, r, request.memoryLimit);
    if (!r.plan || r.status != SolveStatus::Feasible || limit.reached()) {
      if (r.status != SolveStatus::Infeasible) ++unanswered;
      continue;
    }
    const SimulationResult simulated = simulate(g, r.plan->schedule);
    if (previous && simulated.overhead >= *previous) continue;  // not a new point of the trade-off
    previous = simulated.overhead;
    out.plans.push_back({budget, std::move(*r.plan), {}});
    if (request.progress) request.progress(double(k + 1) / double(steps), "budget sweep");
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (limit.reached() || unanswered > 0) {
    out.status = limit.cancelled() ? SolveStatus::Cancelled : SolveStatus::TimeLimit;
    out.message = "the time limit ran out before every budget of the sweep was searched: a partial front";
  } else if (out.plans.empty()) {
    out.status = SolveStatus::Infeasible;
    out.message = "no budget of the sweep gave a plan that fits";
  } else {
    out.status = SolveStatus::Optimal;  // every budget answered (a heuristic's front, not a proven one)
    out.message = "every budget searched from " + (b.labels.empty() ? b.id + "'s front" : b.id);
  }
  return out;
}

}  // namespace remat::solvers
