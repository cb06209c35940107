#include "remat/solvers/MaxBatch.hpp"

#include "remat/graph/BatchScaling.hpp"
#include "remat/graph/WorkspaceModel.hpp"

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

}  // namespace

MaxBatchResult maxBatch(const Solver& solver, const graph::ComputeGraph& g, std::int64_t baseBatch, Bytes memory,
                        std::stop_token stop, const ProgressSink& progress, DpModelKind dpModel,
                        std::string_view workspaceModel) {
  MaxBatchResult out;
  // Only the paper's model leaves resident memory out; the simulator's counts everything.
  const bool model = solver.info().budgetMeasure == BudgetMeasure::DpModel && dpModel == DpModelKind::Paper;
  // A solve whose call failed (a solver fault, not a batch that does not fit) ends the search.
  std::optional<std::string> fault;
  auto failed = [&] {
    out.call = CallStatus::Error;
    out.status = SolveStatus::NotSolved;
    out.message = *fault;
    return out;
  };
  // fits(b): the solver's plan at batch b, when it fits the memory.
  auto fits = [&](std::int64_t batch) -> std::optional<std::pair<SolveResult, graph::ComputeGraph>> {
    auto scaled = graph::scaleBatch(g, baseBatch, batch);
    if (!scaled.ok()) return std::nullopt;
    if (workspaceModel != "file") scaled = graph::applyWorkspaceModel(scaled.value(), workspaceModel);
    if (!scaled.ok()) return std::nullopt;
    graph::ComputeGraph gb = std::move(scaled).value();
    ++out.solves;
    SolveRequest request{.graph = &gb, .stop = stop, .model = dpModel};
    if (model) {
      const Bytes resident = residentBytes(gb);
      if (resident >= memory) return std::nullopt;
      request.budget = memory - resident;
      request.strategy = Strategy::Auto;
    } else {
      request.budget = memory;
    }
    SolveResult r = solver.solve(request);
    if (r.call == CallStatus::Error) {
      fault = solver.info().id + " at batch " + std::to_string(batch) + ": " + r.message;
      return std::nullopt;
    }
    const bool solved = r.status == SolveStatus::Optimal || r.status == SolveStatus::Feasible;
    if (!solved || !r.plan || r.metrics.simulatedPeak > memory) return std::nullopt;
    return std::pair{std::move(r), std::move(gb)};
  };
  auto record = [&](std::int64_t batch, std::pair<SolveResult, graph::ComputeGraph>&& found) {
    out.batch = batch;
    out.result = std::move(found.first);
    out.graph = std::move(found.second);
  };

  auto first = fits(1);
  if (fault) return failed();
  if (!first) {
    out.status = stop.stop_requested() ? SolveStatus::Cancelled : SolveStatus::Infeasible;
    out.message = stop.stop_requested() ? "cancelled" : "not even batch 1 fits in the memory with " + solver.info().id;
    return out;
  }
  record(1, std::move(*first));
  std::int64_t low = 1;   // fits
  std::int64_t high = 0;  // does not fit (0: not found yet)
  constexpr std::int64_t kMaxBatch = std::int64_t{1} << 40;
  while (high == 0) {
    if (stop.stop_requested()) break;
    const std::int64_t next = low * 2;
    if (next > kMaxBatch) {
      out.status = SolveStatus::Optimal;
      out.message = "stopped doubling at batch " + std::to_string(low) + ": the memory is practically unlimited";
      return out;
    }
    auto found = fits(next);
    if (fault) return failed();
    if (found) {
      record(next, std::move(*found));
      low = next;
    } else {
      high = next;
    }
    if (progress) progress(0.3, "doubling the batch");
  }
  while (high - low > 1 && !stop.stop_requested()) {
    const std::int64_t mid = low + (high - low) / 2;
    auto found = fits(mid);
    if (fault) return failed();
    if (found) {
      record(mid, std::move(*found));
      low = mid;
    } else {
      high = mid;
    }
    if (progress) progress(0.3 + 0.7 * (1.0 - double(high - low) / double(high)), "bisecting the batch");
  }
  if (stop.stop_requested()) {
    out.status = SolveStatus::Cancelled;
    out.message = "cancelled; the largest batch found so far is " + std::to_string(low);
    return out;
  }
  out.status = SolveStatus::Optimal;
  return out;
}

}  // namespace remat::solvers
