// The `dtr` solver (Dtr.hpp): the executor's run as a plan, its least budget, its messages.

#include "remat/solvers/Dtr.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>

#include "remat/graph/ByteSize.hpp"
#include "remat/graph/PrintableText.hpp"

namespace remat::solvers {

using graph::ComputeGraph;

const SolverInfo& Dtr::info() const {
  static const SolverInfo kInfo{
      .id = "dtr",
      .name = "Dynamic Tensor Rematerialization (h_DTR-eq)",
      .citation =
          "Kirisame, Lyubomirsky, Haan, Brennan, He, Roesch, Chen, Tatlock, Dynamic Tensor "
          "Rematerialization, ICLR 2021",
      .problemClass = "any DAG (online heuristic)",
      .exact = false,
      .budgetMeasure = BudgetMeasure::Simulated,
      .pins = PinSupport::Keep,
      .scheduleClass = ScheduleClass::OnlineEviction,
      .figureSlot = 1,
  };
  return kInfo;
}

namespace {

SolverOutput stoppedOutput(const TimeLimit& limit) {
  if (limit.cancelled()) return {SolveStatus::Cancelled, std::nullopt, "cancelled"};
  return {SolveStatus::TimeLimit, std::nullopt, "the time limit ran out before DTR's run finished"};
}

std::string outgrewText() {
  return "DTR's run passed " + std::to_string(kMaxDtrSteps) +
         " steps (it thrashes: with little evictable, each rematerialization recomputes a long ancestry, "
         "shared ancestors once per path)";
}

}  // namespace

SolverOutput Dtr::plan(const SolveRequest& request) const {
  const ComputeGraph& g = *request.graph;
  TimeLimit limit = startLimit(request);
  // The run at the budget first: where it fits, it is the answer. The single-op minimum (below) is needed
  // only where it does not, to tell an infeasible budget from one DTR's greedy run got stuck at; its run
  // with everything evictable evicted thrashes (inception_v3: 4 million steps, 5 s, for a run at the
  // budget that takes a tenth of that).
  auto belowMinimum = [&]() -> std::optional<SolverOutput> {
    const DtrMinimum least = dtrSingleOpMinimum(g, &limit, request.pins.keep);
    if (least.stopped) return stoppedOutput(limit);
    // Unknown when its own run outgrew the cap: the budget is then tried as it is.
    if (least.bytes && *request.budget < *least.bytes)
      return SolverOutput{SolveStatus::Infeasible, std::nullopt,
                          "the budget of " + formatByteSizeExact(*request.budget) +
                              " is below the single-op minimum of " + formatByteSizeExact(*least.bytes) +
                              ": some step needs that much with everything evictable evicted"};
    return std::nullopt;
  };
  DtrRun run = runDtr(g, request.budget, &limit, request.pins.keep);
  if (run.stopped) return stoppedOutput(limit);
  if (run.outgrew) {
    if (request.budget)
      if (auto refused = belowMinimum()) return *refused;
    return {SolveStatus::Limit, std::nullopt, outgrewText()};
  }
  SolverOutput out{SolveStatus::Feasible, std::nullopt, {}};
  const sim::Simulator simulator(g, {.liveness = request.liveness, .requireComplete = true});
  const bool fits = !request.budget || !run.stuck || simulator.run(run.schedule).peak <= *request.budget;
  if (run.stuck && fits)
    out.message = "DTR's own count went over the budget " + *run.stuck + "; the simulator's liveness fits it";
  if (!fits) {
    if (auto refused = belowMinimum()) return *refused;
    // DTR is not monotone in its budget: at this one its greedy run reached a step with nothing evictable
    // left (a deep rematerialization holding its callers' operands). Run it again with a lower eviction
    // threshold, the largest of B·7/8, ..., B/8, 0 whose run fits B; the last one always does, since its
    // booked peak is part of the single-op minimum, which is at most B.
    const std::string stuck = *run.stuck;
    for (int k = 7; k >= 0; --k) {
      const Bytes threshold{request.budget->value / 8 * k};
      DtrRun retry = runDtr(g, threshold, &limit, request.pins.keep);
      if (retry.stopped) return stoppedOutput(limit);
      if (retry.outgrew) return {SolveStatus::Limit, std::nullopt, outgrewText() + " at a lower eviction threshold"};
      if (retry.bookedPeak > *request.budget && k > 0) continue;
      run = std::move(retry);
      out.message = "DTR's own run at this budget got stuck " + stuck +
                    "; this plan is its run with the eviction threshold at " + formatByteSizeExact(threshold) +
                    " (DTR is not monotone in its budget)";
      break;
    }
  }
  out.plan = Plan{std::move(run.schedule), std::nullopt};
  return out;
}

Solver::MinBudget Dtr::planMinBudget(const SolveRequest& request) const {
  if (request.graph == nullptr) return {SolveStatus::NotSolved, std::nullopt, "no graph given", 0.0, CallStatus::Error};
  // plan() meets every budget from the single-op minimum up (with a lower eviction threshold where DTR's
  // greedy run would get stuck) and refuses every budget below it.
  const auto start = std::chrono::steady_clock::now();
  MinBudget out;
  TimeLimit limit = startLimit(request);
  const DtrMinimum least = dtrSingleOpMinimum(*request.graph, &limit, request.pins.keep);
  if (least.bytes) {
    out.status = SolveStatus::Optimal;
    out.bytes = least.bytes;
  } else if (least.stopped) {
    const bool cancelled = limit.cancelled();
    out.status = cancelled ? SolveStatus::Cancelled : SolveStatus::TimeLimit;
    out.message = cancelled ? "cancelled" : "time limit reached";
  } else {
    out.status = SolveStatus::Limit;
    out.message = outgrewText();
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace remat::solvers
