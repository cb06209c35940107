#pragma once

#include <cstddef>
#include <cstdint>

#include "remat/solvers/Solver.hpp"

namespace remat::solvers {

/// `chain-dp`: optimal checkpointing for heterogeneous chains, Beaumont, Eyraud-Dubois, Herrmann, Joly
/// and Shilova, "Optimal checkpointing for heterogeneous chains: how to train deep neural networks with
/// limited memory", arXiv:1911.13214, 2019 (rotor); on uniform chains its optimum is Griewank and
/// Walther's revolve (Algorithm 799, ACM TOMS 2000; see Revolve.hpp).
///
/// Problem class: chains, and DAGs linearised at their single-boundary cuts (GraphChain.hpp says how
/// each stage's model comes from its nodes); a graph without such cuts is a single stage, which stores
/// everything. Exact within its chain model (ChainDpTable.hpp), with memory discretised into `slots`
/// slots of ⌈M/slots⌉ bytes, M being the model's memory for storing everything.
///
/// The budget is the simulator's (BudgetMeasure::Simulated), which also counts inputs, parameters,
/// parameter gradients and liveness, so the chain model's memory limit is searched: one DP fills the
/// table for every limit up to M; the candidates are the least limits of each distinct chain optimum
/// (the breakpoints of the cost), each lowered and simulated from the cheapest down until one fits the
/// budget. The answer is thus the least chain cost among the candidates that fit, which makes the
/// overhead monotone in the budget. Status Optimal only when that plan has no recomputation (nothing
/// can beat it); otherwise Feasible, optimal for the chain model only. Infeasible, with the least
/// budget it reaches, when no candidate fits. The strategy is ignored (always the least overhead).
///
/// Complexity: the cuts O(|V|·(|V|+|E|)); the DP O(L³·S) time and O(L²·S) memory for L stages and S
/// slots; each candidate O(schedule) to lower and simulate. More than kMaxStages stages are merged to
/// kMaxStages (evenly spaced cuts), and the slots are reduced when the table would exceed
/// kMaxTableCells entries; the message says so.
class ChainDp final : public Solver {
 public:
  static constexpr std::int64_t kDefaultSlots = 500;
  static constexpr std::size_t kMaxStages = 256;
  static constexpr std::size_t kMaxTableCells = 24'000'000;  ///< 8 bytes each

  explicit ChainDp(std::int64_t slots = kDefaultSlots);
  [[nodiscard]] const SolverInfo& info() const override;
  [[nodiscard]] SolverOutput plan(const SolveRequest& request) const override;
  /// The least simulated peak among the candidates (every breakpoint is lowered and simulated).
  [[nodiscard]] MinBudget planMinBudget(const SolveRequest& request) const override;

 private:
  std::int64_t m_slots;
};

}  // namespace remat::solvers
