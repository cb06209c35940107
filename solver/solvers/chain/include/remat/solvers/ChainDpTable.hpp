#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "remat/solvers/ChainModel.hpp"

namespace remat::solvers {

/// The dynamic program of Beaumont et al. 2019 (rotor) over a ChainModel, for every memory limit
/// 0..maxMemory at once. C(s, t, m) is the least time to back-propagate stages s..t starting with
/// a^{s-1} held by the caller (not counted in m) and δ^t held (counted in m), ending with δ^{s-1} held
/// and a^{s-1} still there, never using more than m:
///
///   C(s, t, m) = min( uf_s + C(s+1, t, m - x̄^s) + ub_s                          [F_all^s, then B^s]
///                     if m ≥ δ^t + peak(F_all^s) and m ≥ peak(B^s),
///                     min over s < s' ≤ t of Σ_{s≤j<s'} uf_j + C(s', t, m - x^{s'-1}) + C(s, s'-1, m)
///                     if m ≥ δ^t + [j > s]·x^{j-1} + peak(F^j) for s ≤ j < s' )   [F_ck^s, F_∅.., keep a^{s'-1}]
///
/// with C(t+1, t, m) = 0. Exact within the model: the optimum over all persistent operation sequences
/// (ChainModel.hpp; the tests check it against an exhaustive search). Ties prefer F_all, then the nearest checkpoint.
/// Time O(L³·M) (vectorised over m), memory O(L²·M) 64-bit integers, M = maxMemory + 1. Only the
/// values are stored; a schedule is rebuilt by re-deriving the argmin along its path, O(L²).
class ChainDpTable {
 public:
  /// Polled once per interval: `interrupted` returning true stops the fill (complete() false);
  /// `progress` hears the fraction of interval lengths done.
  struct Hooks {
    std::function<bool()> interrupted;
    std::function<void(double)> progress;
  };

  /// Fills the table for memory limits 0..maxMemory.
  ChainDpTable(const ChainModel& model, std::int64_t maxMemory, const Hooks& hooks = {});

  /// Where costs saturate: 2^61. Stage times are at most 2^60 (the readers' cap on a graph's total),
  /// but a schedule recomputes stages up to L times; a saturated cost only loses to a true one.
  static constexpr std::int64_t kSaturated = std::int64_t{1} << 61;

  [[nodiscard]] bool complete() const { return m_complete; }
  [[nodiscard]] std::int64_t maxMemory() const { return m_maxMemory; }
  /// The least time of the whole chain within `memory` (at most kSaturated), nullopt when nothing fits.
  [[nodiscard]] std::optional<std::int64_t> cost(std::int64_t memory) const;
  /// The least memory with a schedule, nullopt when even maxMemory is too little.
  [[nodiscard]] std::optional<std::int64_t> leastMemory() const;
  /// An optimal operation sequence within `memory`. Precondition: cost(memory) has a value.
  [[nodiscard]] std::vector<ChainOp> ops(std::int64_t memory) const;

  /// What the table holds for an interval (1 ≤ s ≤ t ≤ L), for tests.
  [[nodiscard]] std::optional<std::int64_t> cost(std::size_t s, std::size_t t, std::int64_t memory) const;

 private:
  [[nodiscard]] std::size_t index(std::size_t s, std::size_t t) const;
  [[nodiscard]] std::int64_t at(std::size_t s, std::size_t t, std::int64_t m) const;
  void build(std::size_t s, std::size_t t, std::int64_t m, std::vector<ChainOp>& out) const;

  ChainModel m_model;
  std::int64_t m_maxMemory = 0;
  std::size_t m_width = 0;  ///< maxMemory + 1 entries per interval
  std::vector<std::int64_t> m_values;
  std::vector<std::int64_t> m_least;  ///< per interval, the least memory with a finite value (or width)
  bool m_complete = false;
};

}  // namespace remat::solvers
