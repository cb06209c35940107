#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "remat/solvers/Solver.hpp"

namespace remat::solvers {

/// What one run of the DTR executor produced (exposed for tests and docs/dtr.md).
struct DtrRun {
  sim::Schedule schedule;              ///< complete: fwd/bwd/free/free-grad steps
  Bytes bookedPeak{0};                 ///< the executor's own peak; the simulator's is never higher
  std::vector<graph::NodeId> evicted;  ///< values evicted by the heuristic, in order (not liveness frees)
  std::optional<std::string> stuck;    ///< the first step at which nothing evictable was left to fit the budget
  bool stopped = false;                ///< the limit (TimeLimit) ended the run; the schedule is incomplete
  bool outgrew = false;                ///< the schedule passed kMaxDtrSteps; the schedule is incomplete
};

/// The most steps one DTR run may execute: 4 million, some 400 times a plain step of a 10,000-op
/// network, and about 400 MB of the executor's state (its schedule and its record of every storage;
/// measured on inception_v3's run with everything evicted, which reached the cap in about 2 s).
/// Under a tight budget DTR can thrash: with everything evicted, a value's rematerialization
/// recomputes its whole ancestry, and in a graph of merging branches the same ancestors once per
/// path, exponentially often.
inline constexpr std::size_t kMaxDtrSteps = std::size_t{1} << 22;

/// Runs the program order of a plain training step (every forward in topological order, then every
/// backward in reverse) through DTR's online executor under `budget` (none: no eviction), with the
/// simulator's accounting (values by storage as views share them, gradients, parameter gradients,
/// resident inputs and parameters, workspace). O(S·R·d) for S executed steps, R resident values, degree d.
/// The ops in `keep` (pinned keep) are never evicted: freed only once nothing reads them, never recomputed.
/// `limit` ends the run (a unit of work: a step of the program order, or a computation inside a
/// rematerialization, counted 1,024 at a time).
[[nodiscard]] DtrRun runDtr(const graph::ComputeGraph& g, std::optional<Bytes> budget, TimeLimit* limit = nullptr,
                            const std::vector<graph::OpIndex>& keep = {});

/// The largest memory a single step of the plain program order needs when everything evictable is
/// evicted: inputs, parameters, the gradients and parameter gradients that exist at that step (never
/// evicted), the step's own operands and outputs, and its workspace, and DTR's run with everything
/// evicted before every allocation (the ops in `keep` never evicted). No budget below it can be met. `bytes` is empty
/// when that run was stopped (`stopped`) or outgrew kMaxDtrSteps.
struct DtrMinimum {
  std::optional<Bytes> bytes;
  bool stopped = false;
};
[[nodiscard]] DtrMinimum dtrSingleOpMinimum(const graph::ComputeGraph& g, TimeLimit* limit = nullptr,
                                            const std::vector<graph::OpIndex>& keep = {});

/// DTR's eviction score h_DTR = c / (m · s): cost c (for h_DTR-eq, of the tensor and its evicted
/// neighborhood), size m in bytes, staleness s in steps since the last access (at least 1).
[[nodiscard]] double dtrScore(double cost, double bytes, double staleness);

/// `dtr`: Dynamic Tensor Rematerialization, simulated. An online greedy heuristic: before each step,
/// while its allocations would exceed the budget, evict the resident value (a storage with all its
/// view holders) that is not needed by the pending step and has the least h_DTR-eq; rematerialize an
/// evicted value, recursively, when a step needs it. The equivalence-class variant keeps evicted
/// values in union-find components whose summed forward time is the neighborhood cost.
/// DTR is not monotone in its budget: where its run at budget B gets stuck above B (nothing evictable
/// during a deep rematerialization), plan() runs it again with the eviction threshold at B·7/8, ...,
/// B/8, 0 and keeps the first run that fits B (the last always does); the message says so. So every
/// budget from dtrSingleOpMinimum up is met, and minBudget is that minimum; plan() measures the minimum
/// only where its run at the budget does not fit (to answer `infeasible` below it). Every run obeys the
/// request's stop token and time limit (checked between program steps and every 1,024 computations
/// inside a rematerialization) and stops at kMaxDtrSteps, answering `time-limit` or `limit`.
/// Problem class: any DAG (online heuristic). Heuristic (not exact). Complexity: one run is
/// O(S·R·d) (S executed steps, R resident values, d the degree); at most 9 runs and one simulation.
/// Citation: Kirisame, Lyubomirsky, Haan, Brennan, He, Roesch, Chen, Tatlock, Dynamic Tensor
/// Rematerialization, ICLR 2021.
class Dtr final : public Solver {
 public:
  [[nodiscard]] const SolverInfo& info() const override;
  [[nodiscard]] SolverOutput plan(const SolveRequest& request) const override;
  [[nodiscard]] MinBudget planMinBudget(const SolveRequest& request) const override;
};

}  // namespace remat::solvers
