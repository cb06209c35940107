#include "remat/solvers/Milp.hpp"

#include "remat/sim/MemoryBounds.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <vector>

// CBC and CLP stay inside this file: their headers are heavy and warn under our flags.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wdeprecated-copy"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <coin/CbcEventHandler.hpp>
#include <coin/CbcModel.hpp>
#include <coin/CbcSolver.hpp>
#include <coin/CoinPackedMatrix.hpp>
#include <coin/OsiClpSolverInterface.hpp>
#pragma GCC diagnostic pop

#include "remat/graph/ByteSize.hpp"
#include "remat/sim/Simulator.hpp"
#include "remat/solvers/Isolated.hpp"

#include "MilpFormulation.hpp"

namespace remat::solvers {
namespace {

using graph::ComputeGraph;
using graph::NodeId;

using milp_detail::decode;
using milp_detail::formulate;
using milp_detail::Formulation;

void loadInto(OsiClpSolverInterface& solver, const Formulation& f, bool integers) {
  const CoinPackedMatrix matrix(false, f.rowIdx.data(), f.colIdx.data(), f.elems.data(),
                                static_cast<CoinBigIndex>(f.elems.size()));
  CoinPackedMatrix m = matrix;
  m.setDimensions(static_cast<int>(f.rowLo.size()), static_cast<int>(f.colLo.size()));
  solver.loadProblem(m, f.colLo.data(), f.colUp.data(), f.obj.data(), f.rowLo.data(), f.rowUp.data());
  if (integers)
    for (std::size_t c = 0; c < f.integer.size(); ++c)
      if (f.integer[c]) solver.setInteger(static_cast<int>(c));
  solver.messageHandler()->setLogLevel(0);
  solver.setHintParam(OsiDoReducePrint, true, OsiHintTry);
}

class StopHandler final : public CbcEventHandler {
 public:
  explicit StopHandler(std::stop_token token) : m_stop(std::move(token)) {}
  CbcAction event(CbcEvent) override { return m_stop.stop_requested() ? CbcEventHandler::stop : noAction; }
  CbcEventHandler* clone() const override { return new StopHandler(*this); }

 private:
  std::stop_token m_stop;
};

std::string formatTime(double t, const ComputeGraph& g) {
  std::string s = std::to_string(t);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s + " " + g.timeUnit();
}

// A proven lower bound on an integral overhead from a floating one: the solvers' tolerances could put a
// value a hair above the integer it stands for, which ceil would then push one tick above the true optimum;
// a margin relative to the magnitude of the objective (1e-7, CLP's default feasibility tolerance) keeps
// the bound safe at the price of at most a tick or so on objectives of 1e7.
Ticks ceilBound(double overhead, double magnitude) {
  const double margin = 1e-7 * std::max(1.0, std::abs(magnitude));
  return Ticks{static_cast<std::int64_t>(std::max(0.0, std::ceil(overhead - margin)))};
}

std::optional<SolverOutput> refuse(const SolveRequest& request) {
  const std::size_t combined = milpCombinedNodes(*request.graph);
  if (combined > Milp::kMaxCombinedNodes && !(request.timeLimit && request.timeLimitLiftsSizeLimit))
    return SolverOutput{SolveStatus::Limit, std::nullopt,
                        "the MILP is for small graphs: " + std::to_string(combined) +
                            (request.graph->asGiven() ? " nodes (computed as given), more than "
                                                      : " combined forward and backward nodes, more than ") +
                            std::to_string(Milp::kMaxCombinedNodes) + "; give a time limit to try anyway"};
  if (request.graph->opCount() == 0) return SolverOutput::failed("the graph has no operations");
  // The formulation has about 3n^2 variables (R and S over 2n stages; n^2 over the n stages of a graph
  // computed as given), each at least 44 bytes in our arrays alone (bounds, cost, index, one matrix entry)
  // before CBC copies them: where that already passes the memory limit, refusing at once beats building
  // until the limit stops the child.
  const double n = static_cast<double>(request.graph->opCount());
  const double variables = (request.graph->asGiven() ? 1.0 : 3.0) * n * n;
  const double floorBytes = variables * 44.0;
  const std::int64_t memory = memoryLimitOr(request.memoryLimit);
  if (floorBytes > static_cast<double>(memory))
    return SolverOutput{SolveStatus::Limit, std::nullopt,
                        "the MILP of " + std::to_string(request.graph->opCount()) + " ops has about " +
                            std::to_string(static_cast<std::int64_t>(variables)) + " variables, at least " +
                            formatByteSize(Bytes{static_cast<std::int64_t>(std::min(floorBytes, 9e18))}) +
                            ", more than the memory limit of " + formatByteSize(Bytes{memory}) +
                            " (--memory-limit sets it)"};
  return std::nullopt;
}

// A SolverOutput as bytes, for the answer of the child process that runs CBC or CLP (runIsolated): the
// status, the message, the schedule and the bound (MILP plans have no lower sets).
class Writer {
 public:
  template <class T>
  void pod(const T& v) {
    m_out.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void text(const std::string& s) {
    pod(static_cast<std::uint64_t>(s.size()));
    m_out += s;
  }
  std::string take() { return std::move(m_out); }

 private:
  std::string m_out;
};

class Reader {
 public:
  explicit Reader(const std::string& in) : m_in(in) {}
  template <class T>
  T pod() {
    T v{};
    if (m_at + sizeof v > m_in.size()) throw std::runtime_error("truncated answer from the solver process");
    std::memcpy(&v, m_in.data() + m_at, sizeof v);
    m_at += sizeof v;
    return v;
  }
  std::string text() {
    const auto size = pod<std::uint64_t>();
    if (size > m_in.size() - m_at) throw std::runtime_error("truncated answer from the solver process");
    std::string s = m_in.substr(m_at, size);
    m_at += size;
    return s;
  }

 private:
  const std::string& m_in;
  std::size_t m_at = 0;
};

std::string encodeOutput(const SolverOutput& o) {
  Writer w;
  w.pod(static_cast<std::int32_t>(o.call));
  w.pod(static_cast<std::int32_t>(o.status));
  w.text(o.message);
  w.pod(static_cast<std::uint8_t>(o.plan.has_value()));
  if (o.plan) {
    w.pod(static_cast<std::uint64_t>(o.plan->schedule.size()));
    for (const sim::Step& step : o.plan->schedule) {
      w.pod(static_cast<std::uint8_t>(step.kind));
      w.pod(step.node.value);
    }
  }
  w.pod(static_cast<std::uint8_t>(o.overheadLowerBound.has_value()));
  if (o.overheadLowerBound) w.pod(o.overheadLowerBound->value);
  return w.take();
}

SolverOutput decodeOutput(const std::string& bytes) {
  Reader r(bytes);
  SolverOutput o;
  o.call = static_cast<CallStatus>(r.pod<std::int32_t>());
  o.status = static_cast<SolveStatus>(r.pod<std::int32_t>());
  o.message = r.text();
  if (r.pod<std::uint8_t>()) {
    Plan p;
    const auto steps = r.pod<std::uint64_t>();
    p.schedule.reserve(std::min<std::uint64_t>(steps, bytes.size()));
    for (std::uint64_t k = 0; k < steps; ++k) {
      const auto kind = static_cast<sim::StepKind>(r.pod<std::uint8_t>());
      const auto node = r.pod<decltype(graph::NodeId{}.value)>();
      p.schedule.push_back({kind, NodeId{node}});
    }
    o.plan = std::move(p);
  }
  if (r.pod<std::uint8_t>()) o.overheadLowerBound = Ticks{r.pod<std::int64_t>()};
  return o;
}

// CBC and CLP check no clock and no allocation budget while they build and presolve a model (the
// 334-op inception_v3 with a 2 s limit: minutes and gigabytes in CBC's preprocessing), so they run in a
// child process that is stopped at the deadline, half a second after the limit they were given
// themselves (CBC then stops its branch and bound and answers with its incumbent), or when its
// resident memory passes the request's memory limit. `solve` runs in the child.
SolverOutput isolated(const SolveRequest& request, std::chrono::steady_clock::time_point started,
                      const std::function<SolverOutput()>& solve, const std::string& what, const std::string& product) {
  std::optional<std::chrono::steady_clock::time_point> killAt;
  if (request.timeLimit) killAt = started + *request.timeLimit + std::chrono::milliseconds(500);
  const std::int64_t memory = memoryLimitOr(request.memoryLimit);
  const IsolatedOutcome o = runIsolated([&] { return encodeOutput(solve()); }, killAt, memory, request.stop);
  switch (o.kind) {
    case IsolatedOutcome::Kind::Finished: try { return decodeOutput(o.bytes);
      } catch (const std::exception& e) {
        return SolverOutput::failed(e.what());
      }
    case IsolatedOutcome::Kind::Deadline:
      return {SolveStatus::TimeLimit, std::nullopt,
              what +
                  " did not finish within the time limit: stopped at the deadline while still building or "
                  "presolving the model, with no " +
                  product + " found"};
    case IsolatedOutcome::Kind::MemoryLimit:
      return {SolveStatus::Limit, std::nullopt,
              what + " needed more than the memory limit of " + formatByteSize(Bytes{memory}) + " (" +
                  std::to_string(memory) + " bytes; --memory-limit sets it): stopped"};
    case IsolatedOutcome::Kind::Cancelled: return {SolveStatus::Cancelled, std::nullopt, "cancelled"};
    case IsolatedOutcome::Kind::Failed: break;
  }
  return SolverOutput::failed(what + " failed: " + o.why);
}

}  // namespace

std::size_t milpCombinedNodes(const ComputeGraph& g) { return g.asGiven() ? g.opCount() : 2 * g.opCount(); }

LpBound lpRelaxation(const ComputeGraph& g, std::optional<Bytes> budget,
                     std::optional<std::chrono::milliseconds> timeLimit, std::optional<std::uint64_t> iterationLimit) {
  LpBound out;
  if (g.opCount() == 0) {
    out.call = CallStatus::Error;
    out.message = "the graph has no operations";
    return out;
  }
  const Formulation f = formulate(g, budget);
  if (f.infeasibleConstants) {
    out.status = SolveStatus::Infeasible;
    out.cost = std::numeric_limits<double>::infinity();
    out.overhead = out.cost;
    out.message = "the resident tensors and gradients alone exceed the budget";
    return out;
  }
  const auto started = std::chrono::steady_clock::now();
  OsiClpSolverInterface lp;
  loadInto(lp, f, false);
  if (timeLimit) lp.getModelPtr()->setMaximumSeconds(std::max(1e-3, static_cast<double>(timeLimit->count()) / 1e3));
  if (iterationLimit)
    lp.getModelPtr()->setMaximumIterations(static_cast<int>(std::min<std::uint64_t>(*iterationLimit, INT32_MAX)));
  lp.initialSolve();
  if (lp.isProvenOptimal()) {
    out.status = SolveStatus::Optimal;
    out.cost = lp.getObjValue() + f.fixedTime;
    out.overhead = std::max(0.0, out.cost - f.constantTime);
  } else if (lp.isProvenPrimalInfeasible()) {
    out.status = SolveStatus::Infeasible;
    out.cost = std::numeric_limits<double>::infinity();
    out.overhead = out.cost;
    out.message = "the LP relaxation is infeasible: no schedule of the formulation fits the budget";
  } else if ((timeLimit || iterationLimit) &&
             (lp.isIterationLimitReached() ||
              (timeLimit && std::chrono::steady_clock::now() - started >= *timeLimit))) {
    // CLP stopped by its clock does not always say so (shufflenet_v2 from torchvision, 5 s: "not solved").
    out.status = SolveStatus::TimeLimit;
    out.message = iterationLimit ? "CLP did not solve the LP relaxation within the iteration limit"
                                 : "CLP did not solve the LP relaxation within the time limit";
  } else {
    out.call = CallStatus::Error;
    out.message = "CLP did not solve the LP relaxation";
  }
  return out;
}

double lpLowerBound(const ComputeGraph& g, std::optional<Bytes> budget) {
  const LpBound b = lpRelaxation(g, budget, std::nullopt);
  if (b.status == SolveStatus::Optimal) return b.cost;
  if (b.status == SolveStatus::Infeasible) return std::numeric_limits<double>::infinity();
  return 0.0;  // no information: 0 is still a lower bound
}

const SolverInfo& Milp::info() const {
  static const SolverInfo kInfo{
      .id = "milp",
      .name = "Checkmate MILP (COIN-OR CBC)",
      .citation = "Jain et al., Checkmate: Breaking the Memory Wall with Optimal Tensor Rematerialization, MLSys 2020",
      .problemClass = "small DAGs (at most 200 forward+backward nodes, or ops computed as given, without a time limit)",
      .exact = true,
      .budgetMeasure = BudgetMeasure::Simulated,
      .pins = PinSupport::KeepAndRecompute,
      .scheduleClass = ScheduleClass::MilpFormulation,
      .wantsTimeLimit = true,
      .asGiven = true,
      .figureSlot = 7,
  };
  return kInfo;
}

namespace {

// The MILP solved in this process (the child of Milp::plan): `started` is when the solve began, so that
// CBC is given what is left of the time limit.
SolverOutput solveMilp(const SolveRequest& request, std::chrono::steady_clock::time_point started) {
  const ComputeGraph& g = *request.graph;
  const Formulation f = formulate(g, request.budget, request.pins);
  if (f.infeasibleConstants)
    return {SolveStatus::Infeasible, std::nullopt,
            "the resident inputs, parameters and gradients alone exceed the budget at some step"};
  if (!request.budget && request.pins.recompute.empty()) {
    // Without a budget, computing every forward once at its own stage and keeping every value is feasible
    // and costs no overhead, which nothing beats: no search needed (CBC took 6 s to say so on a 59-op U-Net).
    std::vector<double> x(f.colLo.size(), 0.0);
    for (std::size_t t = 0; t < f.stages; ++t) {
      if (t < f.n) x[static_cast<std::size_t>(f.R[t][t])] = 1.0;
      for (int c : f.S[t])
        if (c >= 0) x[static_cast<std::size_t>(c)] = 1.0;
    }
    return {SolveStatus::Optimal, Plan{decode(g, f, x.data()), std::nullopt},
            "no budget: every value kept, no recomputation", std::nullopt, Ticks{0}};
  }
  OsiClpSolverInterface solver;
  loadInto(solver, f, true);
  CbcModel model(solver);
  CbcSolverUsefulData data;
  CbcMain0(model, data);
  StopHandler handler(request.stop);
  model.passInEventHandler(&handler);
  model.setLogLevel(0);
  model.messageHandler()->setLogLevel(0);
  std::vector<std::string> args{"remat-milp", "-log", "0", "-slog", "0"};
  if (request.timeLimit) {
    // What is left of the limit after building the model.
    const double left =
        std::chrono::duration<double>(started + *request.timeLimit - std::chrono::steady_clock::now()).count();
    args.insert(args.end(), {"-sec", std::to_string(std::max(1e-3, left))});
  }
  // Work: branch-and-bound nodes, which single-threaded CBC explores in the same order on every machine.
  if (request.workLimit)
    args.insert(args.end(), {"-maxNodes", std::to_string(std::min<std::uint64_t>(*request.workLimit, INT32_MAX))});
  args.insert(args.end(), {"-solve", "-quit"});
  std::vector<const char*> argv;
  argv.reserve(args.size());
  for (const auto& a : args) argv.push_back(a.c_str());
  CbcMain1(
      static_cast<int>(argv.size()), argv.data(), model, [](CbcModel*, int) { return 0; }, data);

  const double* x = model.bestSolution();
  const bool proven = model.isProvenOptimal();
  const bool stopped = request.stop.stop_requested();
  // CBC checks its limit only in branch and bound; a run that outlasted the limit (in preprocessing, on a
  // large graph) and then says "infeasible" has not been seen to prove it, so it is not reported as proven.
  const bool overTime = request.timeLimit && std::chrono::steady_clock::now() - started >= *request.timeLimit;
  const bool limited = model.status() == 1 || overTime;
  if ((model.isProvenInfeasible() || (proven && x == nullptr)) && !(limited && x == nullptr && !proven))
    return {SolveStatus::Infeasible, std::nullopt, "CBC proved that no schedule of the formulation fits the budget"};
  if (x == nullptr) {
    if (stopped) return {SolveStatus::Cancelled, std::nullopt, "cancelled before CBC found a schedule"};
    const double bestPossible = model.getBestPossibleObjValue() + f.fixedTime;
    std::optional<Ticks> bound;
    if (std::isfinite(bestPossible) && std::abs(bestPossible) < 1e29)
      bound = ceilBound(bestPossible - f.constantTime, bestPossible);
    return {SolveStatus::TimeLimit, std::nullopt,
            request.workLimit ? "CBC found no schedule within the node limit"
                              : "CBC found no schedule within the time limit",
            std::nullopt, bound};
  }
  const double cost = model.getObjValue() + f.fixedTime;
  const double bestPossible = model.getBestPossibleObjValue() + f.fixedTime;
  Plan p{decode(g, f, x), std::nullopt};
  std::string msg = "MILP total time " + formatTime(cost, g) + ", overhead " +
                    formatTime(std::max(0.0, cost - f.constantTime), g) + "; best bound " + formatTime(bestPossible, g);
  // A proven optimum is its own bound, counted exactly from the rounded solution (the objective carries
  // CBC's integrality tolerance); otherwise CBC's best possible objective, never above the incumbent.
  Ticks computed{0};  // saturating: ops are recomputed up to n times
  for (std::size_t t = 0; t < f.stages; ++t)
    for (std::size_t i = 0; i < f.forwardSlots(t); ++i)
      if (x[f.R[t][i]] > 0.5) computed += g.node(g.opNode(graph::OpIndex{static_cast<std::uint32_t>(i)})).fwdTime;
  const Ticks incumbent = computed - Ticks{std::llround(f.fwdOnce)};
  if (proven) return {SolveStatus::Optimal, std::move(p), msg, std::nullopt, incumbent};
  std::optional<Ticks> bound;
  if (std::isfinite(bestPossible) && std::abs(bestPossible) < 1e29)
    bound = std::min(incumbent, ceilBound(bestPossible - f.constantTime, bestPossible));
  if (stopped) return {SolveStatus::Cancelled, std::move(p), "cancelled; incumbent: " + msg, std::nullopt, bound};
  return {SolveStatus::TimeLimit, std::move(p),
          std::string(request.workLimit ? "not proven optimal within the node limit; incumbent: "
                                        : "not proven optimal within the time limit; incumbent: ") +
              msg,
          std::nullopt, bound};
}

}  // namespace

SolverOutput Milp::plan(const SolveRequest& request) const {
  if (auto r = refuse(request)) return *r;
  if (request.stop.stop_requested()) return {SolveStatus::Cancelled, std::nullopt, "cancelled"};
  const auto started = std::chrono::steady_clock::now();
  if (request.progress) request.progress(0.0, "building the MILP and branch and bound (CBC)");
  SolverOutput out = isolated(
      request, started, [&] { return solveMilp(request, started); }, "CBC", "schedule");
  if (request.progress) request.progress(1.0, "done");
  return out;
}

const SolverInfo& LpBoundSolver::info() const {
  static const SolverInfo kInfo{
      .id = "lp-bound",
      .name = "LP relaxation of the Checkmate MILP (lower bound)",
      .citation = "Jain et al., Checkmate: Breaking the Memory Wall with Optimal Tensor Rematerialization, MLSys 2020",
      .problemClass = "small DAGs (at most 200 forward+backward nodes, or ops computed as given, without a time limit)",
      .exact = false,
      .budgetMeasure = BudgetMeasure::Simulated,
      .scheduleClass = ScheduleClass::MilpFormulation,
      .makesPlans = false,
      .wantsTimeLimit = true,
      .asGiven = true,
      .figureSlot = 8,
  };
  return kInfo;
}

namespace {

SolverOutput lpBoundOutput(const SolveRequest& request) {
  const LpBound b = lpRelaxation(*request.graph, request.budget, request.timeLimit, request.workLimit);
  if (b.status == SolveStatus::Optimal) {
    const Ticks bound = ceilBound(b.overhead, b.cost);
    return {SolveStatus::Bound, std::nullopt,
            "lower bound: total time >= " + formatTime(b.cost, *request.graph) +
                ", overhead >= " + std::to_string(bound.value) + " " + request.graph->timeUnit() +
                " (LP relaxation of the Checkmate formulation; no plan)",
            std::nullopt, bound};
  }
  if (b.call == CallStatus::Error) return SolverOutput::failed(b.message);
  return {b.status, std::nullopt, b.message};
}

}  // namespace

SolverOutput LpBoundSolver::plan(const SolveRequest& request) const {
  if (auto r = refuse(request)) return *r;
  if (request.stop.stop_requested()) return {SolveStatus::Cancelled, std::nullopt, "cancelled"};
  const auto started = std::chrono::steady_clock::now();
  return isolated(
      request, started, [&] { return lpBoundOutput(request); }, "CLP", "bound");
}

Solver::MinBudget Milp::planMinBudget(const SolveRequest& request) const {
  if (request.graph == nullptr) return {SolveStatus::NotSolved, std::nullopt, "no graph given", 0.0, CallStatus::Error};
  return {SolveStatus::Limit, std::nullopt,
          "milp minimises the overhead at a given budget and has no search for its least budget (solving "
          "without a budget gives the plain run): give a budget, or take a DP's least budget",
          0.0};
}

Solver::TradeOff Milp::planTradeOff(const SolveRequest& request, std::size_t points) const {
  if (request.graph == nullptr) return Solver::planTradeOff(request, points);
  return sweepFrom(request, points, {SolveStatus::Optimal, sim::memoryLowerBound(*request.graph), {}, 0.0});
}

Solver::MinBudget LpBoundSolver::planMinBudget(const SolveRequest& request) const {
  if (request.graph == nullptr) return {SolveStatus::NotSolved, std::nullopt, "no graph given", 0.0, CallStatus::Error};
  return {SolveStatus::Limit, std::nullopt,
          "lp-bound bounds the overhead at a given budget and makes no plans, so it has no least budget", 0.0};
}

}  // namespace remat::solvers
