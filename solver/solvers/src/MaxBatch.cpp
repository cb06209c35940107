#include "remat/solvers/MaxBatch.hpp"

#include "remat/graph/BatchScaling.hpp"
#include "remat/graph/WorkspaceModel.hpp"
#include "remat/solvers/TimeLimit.hpp"

namespace remat::solvers {

namespace {

// Parameters with a consumer get a gradient of their own size that lives to the end of the step.
Bytes residentBytes(const graph::ComputeGraph& g) {
  Bytes gradients{0};
  std::vector<bool> used(g.size(), false);
  for (const graph::Node& n : g.nodes())
    for (graph::NodeId u : n.inputs) used[u.value] = true;
  for (std::uint32_t p = 0; p < g.firstOp(); ++p)
    if (g.node(graph::NodeId{p}).hasGradient() && used[p]) gradients += g.node(graph::NodeId{p}).bytes;
  return g.paramBytes() + gradients + g.inputBytes();
}

// What one batch's solve proved. A solver that cannot answer (its own size limit, a time limit without a
// plan, a lower bound instead of a plan) proves nothing about the batch: reading that as "does not fit"
// is what made a refusal look like an answer.
enum class Verdict { Fits, DoesNotFit, Refused };

}  // namespace

MaxBatchResult maxBatch(const Solver& solver, const graph::ComputeGraph& g, std::int64_t baseBatch, Bytes memory,
                        std::stop_token stop, const ProgressSink& progress, DpModelKind dpModel,
                        std::string_view workspaceModel, const RunLimits& limits) {
  MaxBatchResult out;
  const SharedTime shared(limits.time);
  // Batch 1 may take all the time (no answer without it); every later solve half of what is left, so one
  // slow probe never leaves the bisection nothing.
  std::size_t solvesAhead = 1;
  const std::string& id = solver.info().id;
  if (!solver.info().makesPlans) {
    out.call = CallStatus::Error;
    out.message = id + " makes no plans (it bounds the overhead), so it cannot tell whether a batch fits";
    return out;
  }
  // Only the paper's model leaves resident memory out; the simulator's counts everything.
  const bool model = solver.info().budgetMeasure == BudgetMeasure::DpModel && dpModel == DpModelKind::Paper;
  // A solve whose call failed (a solver fault, not a batch that does not fit) ends the search.
  std::optional<std::string> fault;
  // The last refusal: its status and why.
  SolveStatus refusal = SolveStatus::Limit;
  std::string refusalWhy;
  // The solver's message where batch 1 does not fit (the least budget it can meet, say).
  std::string firstWhy;
  std::optional<std::pair<SolveResult, graph::ComputeGraph>> found;
  auto refused = [&](SolveStatus status, std::string why) {
    refusal = status;
    refusalWhy = std::move(why);
    return Verdict::Refused;
  };
  // What batch b proves; when it fits, `found` holds the solver's plan there.
  auto judge = [&](std::int64_t batch) -> Verdict {
    found.reset();
    auto scaled = graph::scaleBatch(g, baseBatch, batch);
    if (scaled.ok() && workspaceModel != "file") scaled = graph::applyWorkspaceModel(scaled.value(), workspaceModel);
    if (!scaled.ok()) return refused(SolveStatus::Limit, scaled.errorText());
    graph::ComputeGraph gb = std::move(scaled).value();
    ++out.solves;
    SolveRequest request{.graph = &gb, .stop = stop, .model = dpModel};
    request.timeLimit = shared.next(solvesAhead);
    solvesAhead = 2;
    request.workLimit = limits.work;
    request.memoryLimit = limits.memory;
    if (model) {
      const Bytes resident = residentBytes(gb);
      if (resident >= memory) return Verdict::DoesNotFit;
      request.budget = memory - resident;
      request.strategy = Strategy::Auto;
    } else {
      request.budget = memory;
    }
    SolveResult r = solver.solve(request);
    if (r.call == CallStatus::Error) {
      fault = id + " at batch " + std::to_string(batch) + ": " + r.message;
      return Verdict::Refused;
    }
    // A plan within the memory proves the batch fits, whatever stopped the search for a better one.
    const bool noFit = r.status == SolveStatus::Infeasible || r.status == SolveStatus::OverBudget;
    if (r.plan && !noFit && r.metrics.simulatedPeak <= memory) {
      found = std::pair{std::move(r), std::move(gb)};
      return Verdict::Fits;
    }
    const bool answered = r.status == SolveStatus::Optimal || r.status == SolveStatus::Feasible;
    if (noFit || (answered && r.plan)) {
      if (batch == 1) firstWhy = r.message;
      return Verdict::DoesNotFit;
    }
    return refused(r.status, r.message.empty() ? std::string(statusName(r.status)) : r.message);
  };
  auto record = [&](std::int64_t batch) {
    out.batch = batch;
    out.result = std::move(found->first);
    out.graph = std::move(found->second);
  };
  auto failed = [&] {
    out.call = CallStatus::Error;
    out.status = SolveStatus::NotSolved;
    out.message = *fault;
    if (out.batch > 0) out.message += "; batch " + std::to_string(out.batch) + " was the largest found to fit";
    return out;
  };

  const Verdict first = judge(1);
  if (fault) return failed();
  if (stop.stop_requested()) {
    out.status = SolveStatus::Cancelled;
    out.message = "cancelled";
    return out;
  }
  if (first == Verdict::DoesNotFit) {
    out.status = SolveStatus::Infeasible;
    out.message = "not even batch 1 fits in the memory with " + id + (firstWhy.empty() ? "" : ": " + firstWhy);
    return out;
  }
  if (first == Verdict::Refused) {
    out.status = refusal;
    out.refusedAt = 1;
    out.message = id + " cannot answer at batch 1 (" + std::string(statusName(refusal)) + "): " + refusalWhy +
                  "; whether any batch fits is unknown";
    return out;
  }
  record(1);
  std::int64_t low = 1;   // fits
  std::int64_t high = 0;  // does not fit, or refused when refusedHigh (0: not found yet)
  bool refusedHigh = false;
  auto probe = [&](std::int64_t batch) {
    switch (judge(batch)) {
      case Verdict::Fits:
        record(batch);
        low = batch;
        break;
      case Verdict::DoesNotFit:
        high = batch;
        refusedHigh = false;
        break;
      case Verdict::Refused:
        high = batch;
        refusedHigh = true;
        break;
    }
  };
  // The time limit spent: the largest batch proven to fit so far, never claimed the largest.
  auto outOfTime = [&](std::int64_t next) {
    out.status = SolveStatus::TimeLimit;
    out.refusedAt = next;
    out.message = "the time limit ran out before batch " + std::to_string(next) + " was tried; batch " +
                  std::to_string(low) + " is the largest proven to fit, not proven the largest";
    return out;
  };
  constexpr std::int64_t kMaxBatch = std::int64_t{1} << 40;
  while (high == 0) {
    if (stop.stop_requested()) break;
    const std::int64_t next = low * 2;
    if (next > kMaxBatch) {
      out.status = SolveStatus::Optimal;
      out.message = "stopped doubling at batch " + std::to_string(low) + ": the memory is practically unlimited";
      return out;
    }
    if (shared.spent()) return outOfTime(next);
    probe(next);
    if (fault) return failed();
    if (progress) progress(0.3, "doubling the batch");
  }
  // Between a batch that fits and one refused, bisection goes on: a batch in between that does not fit
  // still proves the largest one (fitting is monotone in the batch).
  while (high - low > 1 && !stop.stop_requested()) {
    if (shared.spent()) return outOfTime(low + (high - low) / 2);
    probe(low + (high - low) / 2);
    if (fault) return failed();
    if (progress) progress(0.3 + 0.7 * (1.0 - double(high - low) / double(high)), "bisecting the batch");
  }
  if (stop.stop_requested()) {
    out.status = SolveStatus::Cancelled;
    out.message = "cancelled; the largest batch found so far is " + std::to_string(low);
    return out;
  }
  if (refusedHigh) {
    out.status = refusal;
    out.refusedAt = high;
    out.message = "the search stopped at batch " + std::to_string(high) + ", where " + id + " cannot answer (" +
                  std::string(statusName(refusal)) + "): " + refusalWhy + "; batch " + std::to_string(low) +
                  " is the largest proven to fit, not proven the largest";
    return out;
  }
  out.status = SolveStatus::Optimal;
  return out;
}

}  // namespace remat::solvers
