#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/NodeSet.hpp"
#include "remat/solvers/Pins.hpp"
#include "remat/solvers/SimulatedDpModel.hpp"
#include "remat/solvers/TimeLimit.hpp"

namespace remat::solvers {

/// A family of lower sets of a graph's operations, ordered by size (so that a set comes after all of its
/// subsets), with ∅ first and V last, and the per-set quantities of the DP model of Kusumoto et al.
/// (docs/architecture.md section 5.1) precomputed: M(L), T(L), ∂(L) with its M and T, and M(A) + M(B) where
/// A = δ+(L) \ L and B = δ−(A) \ L. The sets are stored as one flat array of 64-bit words, W per set,
/// so that the DP's subset tests run over contiguous memory.
class LowerSetFamily {
 public:
  /// Every lower set of g; nullopt when there are more than `limit` or when `stop` ends the run (a unit
  /// of its work is a lower set counted or stored).
  [[nodiscard]] static std::optional<LowerSetFamily> allLowerSets(const graph::ComputeGraph& g, std::uint64_t limit,
                                                                  TimeLimit* stop = nullptr);
  /// The approximate DP's family: ∅, the ancestor closure of every operation (ancestors plus itself), and V.
  [[nodiscard]] static LowerSetFamily ancestorClosures(const graph::ComputeGraph& g);
  /// The same, nullopt when stopped: each closure costs a pass over the graph, so a graph of 100,000
  /// ops takes minutes and gigabytes to enumerate, and a stop is honoured between closures (a unit of
  /// work each).
  [[nodiscard]] static std::optional<LowerSetFamily> ancestorClosures(const graph::ComputeGraph& g, TimeLimit* stop);

  /// Makes the family's transitions those of `kind`'s model of g (docs/architecture.md section 5.1): the
  /// paper's, from the per-set quantities below (the default of a new family), or the simulator's
  /// (SimulatedDpModel), which needs the terms each set shares. Computing those takes a pass over every
  /// set (seconds on families of millions of sets), so a stop is honoured between sets (a unit of work
  /// each): false when stopped, and the family keeps its previous model.
  bool useModel(const graph::ComputeGraph& g, DpModelKind kind, TimeLimit* stop = nullptr);
  [[nodiscard]] DpModelKind model() const { return m_model ? DpModelKind::Simulator : DpModelKind::Paper; }

  /// Restricts the transitions to those whose lowering in the family's model (call after useModel)
  /// respects `pins` (Pins.hpp; docs/pins.md): a `keep` op of the segment L_j \ L_i must not be among
  /// what the segment's backward recomputes, a `recompute` op of it not among its checkpoints ∂(L_j).
  /// Both facts depend on L_j alone (every consumer of a segment member inside L_j is in the segment),
  /// so each set keeps the few pinned ops that may not lie in a segment ending at it, and allowed()
  /// tests the source for each. Empty pins lift the restriction. False when stopped (then unchanged; a
  /// unit of work a set).
  bool usePins(const graph::ComputeGraph& g, const Pins& pins, TimeLimit* stop = nullptr);
  /// Whether the transition from set i to set j ⊋ i respects the pins (always, without pins).
  [[nodiscard]] bool allowed(std::size_t i, std::size_t j) const {
    if (m_forbidFrom.empty()) return true;
    const std::uint64_t* prev = words(i);
    for (std::uint32_t k = m_forbidFrom[j]; k < m_forbidFrom[j + 1]; ++k) {
      const std::uint32_t u = m_forbid[k];
      if (!((prev[u >> 6] >> (u & 63)) & 1U)) return false;
    }
    return true;
  }

  /// What the transition from set i to set j ⊋ i costs: base (its highest memory above the checkpoint
  /// memory m held on entry; it fits budget B when m + base <= B), dt and dm. The paper's model:
  /// base = 2 M(L_j \ L_i) + M(A_j) + M(B_j), dt = T((L_j \ L_i) \ ∂L_j), dm = M(∂L_j \ L_i).
  [[nodiscard]] Transition transition(std::size_t i, std::size_t j) const {
    return m_model ? simulatedTransition(i, j) : paperTransition(i, j);
  }
  /// The same dt and dm, and a lower bound on base, in O(|∂L_j|): transition() itself in the paper's
  /// model; SimulatedDpModel::quickTransition in the simulator's, whose exact base costs a pass over the
  /// segment (so the DP asks for it only where the bound leaves a point that might fit).
  /// `saved` (the simulator's model only) receives what SimulatedDpModel::quickTransition reports.
  [[nodiscard]] Transition quickTransition(std::size_t i, std::size_t j, std::int64_t* saved = nullptr) const {
    return m_model ? m_model->quickTransition(words(i), m_sources[i], m_count[j] == m_universe, m_terms[j], saved)
                   : paperTransition(i, j);
  }
  /// A lower bound on transition()'s dt in O(1) for the simulator's model (SimulatedDpModel::dtFloor);
  /// 0 in the paper's, whose quickTransition is itself O(1).
  [[nodiscard]] std::int64_t dtFloor(std::size_t i, std::size_t j) const {
    return m_model ? SimulatedDpModel::dtFloor(m_sources[i], m_count[j] == m_universe, m_terms[j]) : 0;
  }
  /// An upper bound on transition()'s base in O(1): the base itself in the paper's model,
  /// SimulatedDpModel::baseCeiling in the simulator's.
  [[nodiscard]] std::int64_t baseCeiling(std::size_t i, std::size_t j) const {
    return m_model ? m_model->baseCeiling(m_terms[i], m_terms[j]) : paperTransition(i, j).base;
  }
  /// The simulator's model only, for j ≠ V: SimulatedDpModel::segmentCeilingTerms of set j, and the
  /// ceiling of the transition i -> j from its quick figures and those terms.
  void segmentCeilingTerms(std::size_t j, SegmentCeilingTerms& out) const {
    m_model->segmentCeilingTerms(words(j), out);
  }
  [[nodiscard]] std::int64_t segmentCeiling(std::size_t i, std::size_t j, const Transition& quick, std::int64_t saved,
                                            const SegmentCeilingTerms& shared) const {
    return m_model->segmentCeiling(words(i), words(j), quick, saved, m_terms[j], shared);
  }
  /// A lower bound on the base of every transition k -> j with set k ⊆ set i, from the quick figures of
  /// i -> j (and, in the simulator's model, the `saved` they report): the paper's base itself, which
  /// only grows as the segment does; SimulatedDpModel::subsetFloor in the simulator's.
  [[nodiscard]] std::int64_t subsetFloor(std::size_t j, const Transition& quick, std::int64_t saved) const {
    return m_model ? m_model->subsetFloor(quick, saved, m_terms[j]) : quick.base;
  }
  /// Whether set j is all of V.
  [[nodiscard]] bool isUniverse(std::size_t j) const { return m_count[j] == m_universe; }
  /// Whether the family is the ancestor closures (approx-dp's), not every lower set.
  [[nodiscard]] bool isClosures() const { return m_generator.size() > 1 && m_generator[1] != kNoGenerator; }
  /// Whether quickTransition's base is exact.
  [[nodiscard]] bool quickIsExact() const { return !m_model; }

  [[nodiscard]] std::size_t size() const { return m_count.size(); }
  [[nodiscard]] std::size_t wordsPerSet() const { return m_words; }
  [[nodiscard]] const std::uint64_t* words(std::size_t i) const { return m_bits.data() + i * m_words; }
  [[nodiscard]] graph::NodeSet set(std::size_t i) const;

  /// |L|
  [[nodiscard]] std::uint32_t count(std::size_t i) const { return m_count[i]; }
  /// M(L), T(L)
  [[nodiscard]] std::int64_t bytes(std::size_t i) const { return m_bytes[i]; }
  [[nodiscard]] std::int64_t time(std::size_t i) const { return m_time[i]; }
  /// M(∂L), T(∂L)
  [[nodiscard]] std::int64_t boundaryBytes(std::size_t i) const { return m_boundaryBytes[i]; }
  [[nodiscard]] std::int64_t boundaryTime(std::size_t i) const { return m_boundaryTime[i]; }
  /// M(A) + M(B) of L
  [[nodiscard]] std::int64_t frontierBytes(std::size_t i) const { return m_frontierBytes[i]; }
  /// The members of ∂(L), as op indices, with their M and T.
  struct BoundaryNode {
    std::uint32_t op;
    std::int64_t bytes;
    std::int64_t time;
  };
  [[nodiscard]] const std::vector<BoundaryNode>& boundary(std::size_t i) const { return m_boundary[i]; }

  /// Words of a bitset over the family's indices (bit k of word k / 64 stands for set k).
  [[nodiscard]] std::size_t maskWords() const { return (size() + 63) / 64; }
  /// Writes into out[0, maskWords()) the sets that contain set i (i itself among them). A superset of
  /// a lower set is one holding its maximal elements, so this is the intersection of those elements'
  /// columns of the family's membership table: O(|max L_i| · |family| / 64), against a subset test per
  /// set for a scan (ancestor closures, whose test is O(1), are scanned).
  void supersets(std::size_t i, std::uint64_t* out) const;
  /// Writes the sets contained in set j (j itself among them): those holding none of the minimal
  /// elements of V \ L_j (a lower set with an op outside L_j holds one of them below it).
  void subsets(std::size_t j, std::uint64_t* out) const;

  /// A P such that every set of index below P is a subset of set i (size() for V): the walk over a
  /// target's sources, which runs by index descending, leaves out every source below P once set i
  /// proves too far. O(P) for closures, O(|min V \ L_i| · P / 64) otherwise.
  [[nodiscard]] std::size_t subsetPrefix(std::size_t i) const;
  /// True when set i ⊆ set j. Ancestor closures compare in O(1): L_u ⊆ L_v exactly when u ∈ L_v.
  [[nodiscard]] bool subset(std::size_t i, std::size_t j) const {
    if (m_generator[i] != kNoGenerator) {
      const std::uint32_t u = m_generator[i];
      return (words(j)[u >> 6] >> (u & 63)) & 1U;
    }
    const std::uint64_t* a = words(i);
    const std::uint64_t* b = words(j);
    for (std::size_t k = 0; k < m_words; ++k)
      if (a[k] & ~b[k]) return false;
    return true;
  }

 private:
  static constexpr std::uint32_t kNoGenerator = UINT32_MAX;
  [[nodiscard]] Transition paperTransition(std::size_t i, std::size_t j) const;
  [[nodiscard]] Transition simulatedTransition(std::size_t i, std::size_t j) const;

  void add(const graph::ComputeGraph& g, const graph::NodeSet& s, std::uint32_t generator = kNoGenerator);
  void sortBySize();
  /// The membership table and each set's maximal and outside-minimal elements (not for closures).
  void buildIndex(const graph::ComputeGraph& g);

  std::size_t m_universe = 0;
  std::size_t m_words = 0;
  std::vector<std::uint64_t> m_bits;
  std::vector<std::uint32_t> m_count;
  std::vector<std::uint32_t> m_generator;  ///< the op whose ancestor closure the set is, or kNoGenerator
  std::vector<std::int64_t> m_bytes;
  std::vector<std::int64_t> m_time;
  std::vector<std::int64_t> m_boundaryBytes;
  std::vector<std::int64_t> m_boundaryTime;
  std::vector<std::int64_t> m_frontierBytes;
  std::vector<std::vector<BoundaryNode>> m_boundary;
  /// By op u: the bitset (maskWords() words) of the sets holding u; empty for closure families.
  std::vector<std::uint64_t> m_members;
  /// Per set, flat with offsets: its maximal elements, and the minimal elements of V \ L.
  std::vector<std::uint32_t> m_maximal, m_maximalFrom, m_outside, m_outsideFrom;
  std::shared_ptr<const SimulatedDpModel> m_model;  ///< null: the paper's model
  std::vector<TargetTerms> m_terms;                 ///< by set, for the simulator's model
  std::vector<SourceTerms> m_sources;               ///< by set: m_terms[i].source()
  /// By set j, flat with offsets (empty without pins): the pinned ops a segment ending at j may not hold.
  std::vector<std::uint32_t> m_forbid, m_forbidFrom;
};

}  // namespace remat::solvers
