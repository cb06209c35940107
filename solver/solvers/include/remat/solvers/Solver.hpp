#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/NodeSet.hpp"
#include "remat/sim/Schedule.hpp"
#include "remat/sim/Simulator.hpp"
#include "remat/solvers/DpModelKind.hpp"
#include "remat/solvers/Pins.hpp"
#include "remat/solvers/TimeLimit.hpp"

namespace remat::solvers {

/// Whether a call worked, kept apart from what it answered (HiGHS's HighsStatus beside its model status):
/// Ok when the solver ran and its answer's SolveStatus is to be read; Error when it could not answer at
/// all: no graph, input the solver refuses, an exception, an internal fault (a schedule the simulator
/// rejects, a broken pin). The message says why; the answer's status is then NotSolved.
enum class CallStatus { Ok, Error };

/// The status of the answer of a call that worked.
/// `Limit`: the solver stopped at a size or memory limit of its own (too many lower sets, DP fronts
/// over their cap) before it could answer; the message says which and what to use instead.
/// `Bound`: the answer is a proven lower bound on the overhead (SolveResult::overheadLowerBound), not a
/// plan (`lp-bound`). `OverBudget`: the solver's plan meets the budget in its own model but peaks above
/// it in the simulator (the paper's DP model can; the message gives the bytes): never optimal or
/// feasible. `NotSolved`: no answer, because the call failed (CallStatus::Error).
enum class SolveStatus { Optimal, Feasible, Bound, Infeasible, OverBudget, TimeLimit, Limit, Cancelled, NotSolved };

/// Which of the paper's strategies a DP solver follows; baselines ignore it.
enum class Strategy { Time, Memory, Auto };

[[nodiscard]] std::string_view statusName(SolveStatus s);
[[nodiscard]] std::string_view callStatusName(CallStatus s);
/// One word for a table cell or a log line: "error" when the call failed, else the answer's status.
template <class Answer>
[[nodiscard]] std::string_view outcomeName(const Answer& a) {
  return a.call == CallStatus::Error ? callStatusName(a.call) : statusName(a.status);
}
[[nodiscard]] std::string_view strategyName(Strategy s);
[[nodiscard]] std::optional<Strategy> strategyFromName(std::string_view name);

/// Progress of a long solve: a fraction in [0, 1] and what is being done.
using ProgressSink = std::function<void(double fraction, std::string_view stage)>;

struct SolveRequest {
  const graph::ComputeGraph* graph = nullptr;
  std::optional<Bytes> budget;  ///< none means unconstrained
  Strategy strategy = Strategy::Time;
  std::stop_token stop;
  ProgressSink progress;
  /// Wall-clock limit from the call; none means none.
  std::optional<std::chrono::milliseconds> timeLimit;
  /// Limit on deterministic work (TimeLimit.hpp): the solver stops once it has counted more units than
  /// this, at the same point on every machine, with the answer a time limit gets (status TimeLimit). A
  /// unit is one step of the solver's own search (a lower set enumerated, a DP front point visited, a
  /// closure built, a DTR step, a chain-table cell, a CBC node); none means none.
  std::optional<std::uint64_t> workLimit;
  bool liveness = true;  ///< simulate with the framework's liveness analysis
  /// The memory model the DPs (and Chen's baselines, which lower chains as the DPs do) plan with: the
  /// simulator's, so that every plan they call feasible fits its budget in the simulator, or the
  /// paper's (`--model paper`), to reproduce the paper's tables.
  DpModelKind model = DpModelKind::Simulator;
  /// Whether a time limit lets a solver try graphs beyond its own size limit (milp and lp-bound refuse
  /// more than Milp::kMaxCombinedNodes combined nodes otherwise). A caller whose time limit is a default
  /// rather than the user's request (`remat compare`) sets false, so a large graph is refused at once
  /// instead of costing minutes and gigabytes (milp on Checkmate's 176-op ResNet-50: 0.9 GB, 144 s).
  bool timeLimitLiftsSizeLimit = true;
  /// The most memory the solve may take, in bytes (none: defaultMemoryLimit(), half the machine's).
  /// Held by the solvers' own accounting, not by the kernel: the DPs cap their fronts' points, milp and
  /// lp-bound run CBC/CLP in a child process stopped when its resident set passes it; the answer is then
  /// status Limit with the bytes.
  std::optional<Bytes> memoryLimit;
  /// Operations pinned by hand (Pins.hpp): honoured by the solvers whose SolverInfo::pins says so (the
  /// DPs restrict their transitions, DTR never evicts a kept value); the others ignore them and say so
  /// in their result's message.
  Pins pins;
  /// Seed of the randomized solvers (fastsa): the same request with the same seed gives the same plan.
  std::uint64_t seed = 0;
};

/// The limits of a command that runs several solves one after another (a sweep, a max-batch search, the
/// fronts of a figure): `time` is the whole run's, shared among its solves (SharedTime); `work` and
/// `memory` bound each solve.
struct RunLimits {
  std::optional<std::chrono::milliseconds> time;
  std::optional<std::uint64_t> work;
  std::optional<Bytes> memory;
};

/// The request's stop token, time limit and work limit as one TimeLimit, started now: what a solver
/// checks while it runs.
[[nodiscard]] inline TimeLimit startLimit(const SolveRequest& request) {
  return {request.stop, request.timeLimit, request.workLimit};
}

/// A plan: the schedule, and for canonical plans the lower-set sequence it was lowered from with the
/// model whose lowering made the schedule (sim::canonicalSchedule for the simulator's model,
/// sim::paperSchedule for the paper's).
struct Plan {
  sim::Schedule schedule;
  std::optional<std::vector<graph::NodeSet>> lowerSets;
  DpModelKind model = DpModelKind::Simulator;
};

/// The plan of a lower-set chain in a model: its lowering (canonicalSchedule or paperSchedule).
[[nodiscard]] Plan chainPlan(const graph::ComputeGraph& g, std::vector<graph::NodeSet> lowerSets, DpModelKind model);

/// The request with the pins its graph carries (ComputeGraph::pinnedKeep, pinnedRecompute) put before
/// its own: a graph's pins are part of the problem it states, so every entry point of a solver (solve,
/// minBudget, tradeOff, solveFromFront) plans under them. None, with `conflict` saying why, where the
/// request pins an operation the other way.
[[nodiscard]] std::optional<SolveRequest> withGraphPins(const SolveRequest& request, std::string& conflict);

/// Which figure a solver's budget constrains.
enum class BudgetMeasure { Simulated, DpModel };

/// What a solver returns before the common evaluation: a status, a plan when it has one, a message.
struct SolverOutput {
  /// A call that failed: status NotSolved, no plan, the message saying why.
  [[nodiscard]] static SolverOutput failed(std::string why);

  SolveStatus status = SolveStatus::NotSolved;
  std::optional<Plan> plan;
  std::string message;
  /// Overrides the solver's usual budget measure for this plan (a memory-centric fallback is judged
  /// by the simulator, not by the model it could not satisfy).
  std::optional<BudgetMeasure> budgetMeasure = std::nullopt;
  /// A proven lower bound on the overhead of every schedule of the solver's formulation at this budget
  /// (not necessarily of every schedule: a solver that restricts its schedules bounds only those).
  std::optional<Ticks> overheadLowerBound = std::nullopt;
  CallStatus call = CallStatus::Ok;
};

/// Figures of a plan: the DP model's (docs/architecture.md section 5.1, in the plan's model; canonical
/// plans only) and the simulator's.
struct PlanMetrics {
  std::optional<Bytes> modelPeak;
  std::optional<Ticks> modelOverhead;
  Bytes simulatedPeak{0};
  std::size_t peakStep = 0;
  Ticks overhead{0};
  Ticks totalTime{0};
  std::size_t recomputedNodes = 0;
  std::size_t recomputations = 0;
  double solveSeconds = 0.0;
};

/// A solver's answer after evaluation by the simulator.
struct SolveResult {
  std::string solver;
  Strategy strategy = Strategy::Time;
  CallStatus call = CallStatus::Ok;
  SolveStatus status = SolveStatus::NotSolved;
  std::optional<Bytes> budget;
  std::string message;
  std::optional<Plan> plan;
  /// SolverOutput::overheadLowerBound: set by `lp-bound` (status Bound) and by `milp` (its optimum when
  /// proven, CBC's best possible objective when a limit stopped it).
  std::optional<Ticks> overheadLowerBound;
  PlanMetrics metrics;
  sim::SimulationResult simulation;
  Pins pins;  ///< the request's pins, which the plan was made under
  /// The pins the solver did not honour ("keep", "recompute" or "keep and recompute"; empty when it
  /// honoured every one). Its plan answers another question than the one asked: it never wins a
  /// comparison (bestResult).
  std::string pinsIgnored;
  /// Answered by solveFromFront from a whole front computed before: metrics.solveSeconds is the look-up's,
  /// frontSeconds what computing the front took.
  bool fromFront = false;
  double frontSeconds = 0;
};

/// The schedules a solver searches among (what its optimality, when exact, is over).
enum class ScheduleClass {
  KeepAll,            ///< one forward and one backward, nothing recomputed
  LowerSetChain,      ///< increasing sequences of lower sets (the paper's section 3; Chen's segmentations)
  ChainSegments,      ///< checkpointing of a chain of segments (rotor, Revolve)
  MilpFormulation,    ///< Checkmate's: first computations in node order, each value once between backwards
  OnlineEviction,     ///< eviction decided while the step runs (DTR)
  SearchedEviction,   ///< a lower-set chain's schedule with values dropped and recomputed anywhere (dp-evict)
  RecomputeAnywhere,  ///< backwards in the plain order, each forward computed once or more anywhere before its reads
                      ///< (fastsa)
};
[[nodiscard]] std::string_view scheduleClassName(ScheduleClass c);

/// What the registry and the user see of a solver: who it is and what it can do. Front ends decide by
/// these fields, never by a solver's id.
struct SolverInfo {
  std::string id;            ///< stable kebab-case id
  std::string name;          ///< human name
  std::string citation;      ///< the paper it implements
  std::string problemClass;  ///< which graphs it applies to
  bool exact = false;        ///< optimal within its model
  BudgetMeasure budgetMeasure = BudgetMeasure::Simulated;
  PinSupport pins = PinSupport::None;  ///< which of SolveRequest::pins it honours
  ScheduleClass scheduleClass = ScheduleClass::LowerSetChain;
  /// Whether it answers with plans; false: only with a lower bound on the overhead (status Bound).
  bool makesPlans = true;
  /// Whether it is the framework's plain run (keeps every value, recomputes nothing): the baseline that
  /// comparisons, overhead ratios and measurements are taken against. The registry has exactly one.
  bool plainRun = false;
  /// Whether it follows SolveRequest::strategy (the paper's time-centric, memory-centric and auto
  /// strategies): the paper's DPs, which front ends select first.
  bool followsStrategy = false;
  /// Whether one solve may take minutes and wants a time limit (a MILP search): front ends leave it out
  /// of the fronts and sweeps they run unasked, where it would be solved at every budget.
  bool wantsTimeLimit = false;
  /// Whether it plans graphs computed as given (graph::ComputeGraph::asGiven: the file is the whole
  /// computation, no backward pass added): the plain run, fastsa, dp-evict (from the forward orders),
  /// milp and lp-bound (Checkmate's formulation of any DAG). The others plan training steps and answer
  /// such a graph with status Limit.
  bool asGiven = false;
  /// Its fixed style slot in figures (Theme::seriesStroke's index), so that a solver keeps one colour
  /// and dash in every figure and run; none: a slot after every fixed one (viz::solverStyle).
  std::optional<std::size_t> figureSlot;
};

/// A stateless planner. Implementations may run in parallel on different requests.
class Solver {
 public:
  virtual ~Solver() = default;
  [[nodiscard]] virtual const SolverInfo& info() const = 0;
  /// The plan search itself. Callers use solve(), which evaluates and guards this.
  [[nodiscard]] virtual SolverOutput plan(const SolveRequest& request) const = 0;

  /// Runs plan() behind an exception firewall (an exception becomes call Error), times it, simulates the
  /// plan (a schedule the simulator rejects becomes call Error, never a result), fills the metrics and
  /// applies the budget.
  [[nodiscard]] SolveResult solve(const SolveRequest& request) const;

  /// The least budget this solver can meet, in its budget measure, with the status of that answer
  /// (Optimal when found). The default solves without a budget and reports the measured peak of the
  /// plan; the DP solvers compute the least feasible budget of their model exactly.
  struct MinBudget {
    SolveStatus status = SolveStatus::NotSolved;
    std::optional<Bytes> bytes;
    std::string message;
    double seconds = 0.0;
    CallStatus call = CallStatus::Ok;
  };
  /// Guarded like solve(): a graph computed as given goes only to solvers that plan such graphs
  /// (SolverInfo::asGiven); the others answer status Limit saying so. Calls planMinBudget().
  [[nodiscard]] MinBudget minBudget(const SolveRequest& request) const;
  /// The least-budget search itself (callers use minBudget()).
  [[nodiscard]] virtual MinBudget planMinBudget(const SolveRequest& request) const;

  /// One plan of a trade-off: the budget it needs (in the solver's budget measure), the plan, and its
  /// figures as evaluatePlan gives them (the simulator's; the model's for canonical plans).
  struct FrontPlan {
    Bytes budget{0};
    Plan plan;
    PlanMetrics metrics;
  };
  /// The budget/overhead trade-off: plans with the budget each needs, by budget ascending, overhead
  /// descending, every one judged by the simulator as solve() judges its plan.
  struct TradeOff {
    SolveStatus status = SolveStatus::NotSolved;
    std::string message;
    std::vector<FrontPlan> plans;
    double seconds = 0.0;
    /// The plans are the solver's whole front, not a sample: for every budget, the last plan within it
    /// is the time-centric optimum there (solveFromFront answers budgets from it).
    bool whole = false;
    CallStatus call = CallStatus::Ok;
  };
  /// The trade-off of planTradeOff(), each plan simulated (with the request's liveness, as solve()) and its
  /// metrics filled. A plan the simulator rejects is dropped and makes the call Error naming it (a solver
  /// bug, never a point of a figure); the plans that simulated are kept, and the front is not whole.
  [[nodiscard]] TradeOff tradeOff(const SolveRequest& request, std::size_t points) const;
  /// The trade-off search itself (callers use tradeOff(), which evaluates it). The default solves at
  /// `points` budgets spread from minBudget() to the unconstrained plan's peak; the DP solvers return
  /// their whole Pareto front from one run (thinned to `points` when it is longer and `points` is at
  /// least 2, keeping both ends; points = 0 keeps it whole). Metrics are left to tradeOff().
  [[nodiscard]] virtual TradeOff planTradeOff(const SolveRequest& request, std::size_t points) const;

 protected:
  /// The default trade-off search from a given lower end: `points` budgets spread from `floor` (a least
  /// budget, or any budget known to be at most the least, such as the simulator's memory lower bound) to
  /// the unconstrained plan's peak, sharing the request's time limit; budgets below the solver's least
  /// answer Infeasible and are no points. A floor without bytes ends the search with its status.
  [[nodiscard]] TradeOff sweepFrom(const SolveRequest& request, std::size_t points, const MinBudget& floor) const;
};

/// Solves at the solver's own least feasible budget (minBudget, then solve there with that budget): the
/// paper's minimum-memory comparison. Without a least budget, a result without a plan whose status is
/// minBudget's (Cancelled when the request was stopped) and whose message says why.
[[nodiscard]] SolveResult solveAtLeastBudget(const Solver& solver, SolveRequest request);

/// Answers a request from a solver's whole trade-off front (TradeOff::whole) without solving again, for
/// budget scrubbing: the plan with the least overhead among those whose budget is at most the request's
/// (the last plan when there is no budget), evaluated like solve(). That is solve()'s answer for the
/// time-centric strategy (the same overhead; among plans of equal overhead possibly another one), and
/// for auto when some plan fits; below the least budget the time-centric answer is Infeasible, as
/// solve()'s. nullopt when the front cannot answer: not whole, empty, the memory-centric strategy, or
/// auto below the least budget (where solve() falls back to the memory-centric plan).
[[nodiscard]] std::optional<SolveResult> solveFromFront(const Solver& solver, const Solver::TradeOff& front,
                                                        const SolveRequest& request);

/// Simulates a plan on a graph and fills the metrics (model figures for canonical plans).
void evaluatePlan(const graph::ComputeGraph& g, const Plan& plan, bool liveness, PlanMetrics& metrics,
                  sim::SimulationResult& simulation);

/// A plan from elsewhere (a plan file, written by hand or by another tool) judged as a solver's answer
/// is: simulated with liveness, status Feasible when its simulated peak is within `budget` (or there is
/// none) and Infeasible naming both sizes when not, so that solvers::fitsBudget and bestResult treat it
/// like any other row. A schedule the simulator rejects is call Error without a plan, one whose time
/// cannot be counted status Limit. `label` names the row.
[[nodiscard]] SolveResult judgePlan(const graph::ComputeGraph& g, std::string label, Plan plan,
                                    std::optional<Bytes> budget);
/// judgePlan's verdict again at another budget, from the simulated figures a judged plan already has
/// (no new simulation): budget, status Feasible or Infeasible, and the message.
void judgeAtBudget(SolveResult& judged, std::optional<Bytes> budget);

}  // namespace remat::solvers
