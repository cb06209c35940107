#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/NodeSet.hpp"
#include "remat/solvers/DpModelKind.hpp"

namespace remat::solvers {

/// What one transition L ⊊ L' of a lower-set chain costs in the simulator's model (docs/dp.md, "The
/// simulator's model"): `base` is the highest memory of its segment's forward phase and of its
/// backward phase (recomputation, then the backward) above the checkpoint memory m held on entry,
/// resident inputs and parameters included; `dt` the time it recomputes; `dm` the bytes of the
/// storages it adds to the checkpoints. The transition fits budget B when m + base ≤ B.
struct Transition {
  std::int64_t base = 0;
  std::int64_t dt = 0;
  std::int64_t dm = 0;
};

/// What quickTransition reads of the set a transition leaves, apart from its op bits: a few words,
/// kept together by the DP (one cache line for many sets, where the whole TargetTerms would be one
/// or more lines of its own for each).
struct SourceTerms {
  std::int64_t savedBytes = 0;  ///< TargetTerms::savedBytes
  std::int64_t neededTime = 0;  ///< TargetTerms::neededTime
  std::int64_t lastStep = 0;    ///< TargetTerms::boundaryGrads + paramGradsOutside
  std::uint32_t wordEnd = 0;    ///< TargetTerms::wordEnd
};

/// Terms of a lower set L that the transitions into and out of it share. Two are in memory whenever
/// the backward of a segment ending at L runs: the parameter gradients made by the backward of V \ L,
/// and the gradients of ∂(L). The rest give the recomputation time and checkpoint bytes of a
/// transition L_i -> L exactly, and a lower bound on its memory, in O(|∂L| + |exceptions|) (see
/// SimulatedDpModel::quickTransition).
struct TargetTerms {
  std::int64_t paramGradsOutside = 0;
  std::int64_t boundaryGrads = 0;
  std::int64_t neededTime = 0;        ///< Σ T(u), u ∈ L recomputed if no checkpoint stopped it (N∅)
  std::int64_t savedBytes = 0;        ///< Σ M(u), u ∈ L kept by some backward
  std::int64_t savedInsideBytes = 0;  ///< the same over L \ ∂L
  std::int64_t valueBytes = 0;        ///< Σ M(u), u ∈ L
  std::int64_t gradTotal = 0;         ///< Σ of the gradients' bytes over L
  /// One past the last nonzero word of L's op bitset: as a source, L holds no op of a later word, so
  /// quickTransition skips the groups there (most of them on deep graphs, whose far sources are small).
  std::uint32_t wordEnd = 0;
  struct BoundaryEntry {
    std::uint32_t op;
    std::uint32_t rootOp;  ///< the op whose storage it holds (itself unless a view)
    std::int64_t bytes;
    std::int64_t time;
    std::int64_t rootBytes;  ///< that storage's bytes, on the first entry holding it (0 on the others, or resident)
    std::uint8_t flags;      ///< kNeededAlone, kSavedByAny, kSavedWithin
  };
  std::vector<BoundaryEntry> boundary;  ///< ∂L, ascending
  /// Members of L \ ∂L in N∅ that a transition into L does not recompute after all (every path to a
  /// value some backward keeps runs through ∂L): (op, time).
  std::vector<std::pair<std::uint32_t, std::int64_t>> exceptions;
  /// The last members of L by index, the last first (at most kFirstSteps), each with what the backward
  /// step of that op adds to the memory of a segment's first backward step when it is the segment's
  /// last member: its workspace, the gradients it makes for its predecessors off ∂L, its parameter
  /// gradients that no op beyond L made, and an output's seed gradient.
  struct FirstStep {
    std::uint32_t op;
    std::int64_t extra;
  };
  static constexpr std::size_t kFirstSteps = 4;
  std::vector<FirstStep> firstSteps;

  /// The boundary and exception terms of quickTransition, arranged so that a source set costs only
  /// what it holds of them. The sums are those of a source that holds none of ∂L and none of the
  /// exceptions; `held` corrects them for each boundary member a source holds, and `viewRoots` for
  /// the storages ∂L's views hold (by their root, which is not on ∂L).
  struct Sums {
    std::int64_t dm = 0;     ///< Σ bytes of the storages ∂L holds
    std::int64_t saved = 0;  ///< Σ M(u), u ∈ ∂L kept by its own backward or a consumer's within L
    std::int64_t dt = 0;     ///< −Σ T(u) over ∂L ∩ N∅ and over the exceptions
  };
  Sums sums;
  std::vector<Sums> held;  ///< by boundary entry: what holding it changes
  /// The ops of ∂L (or of the exceptions) that lie in one word of an op bitset: that word's index, its
  /// bits, and the index (in boundary, or exceptions) of the lowest of them.
  struct Group {
    std::uint32_t word;
    std::uint32_t first;
    std::uint64_t bits;
  };
  std::vector<Group> boundaryGroups;
  std::vector<Group> exceptionGroups;
  std::vector<std::pair<std::uint32_t, std::int64_t>> viewRoots;  ///< (root op, its storage's bytes)
  /// The opening of a segment's backward when the source holds none of L's last members: topOps are
  /// L's highest members, the highest first (at most kTopSteps), which are then the segment's first
  /// backward steps in that order; topPeak[k] is the most that the steps of topOps[0..k] hold beyond
  /// the gradients of ∂L, the parameter gradients of V \ L and the values the segment's backwards
  /// keep, those already read for the last time subtracted (as if every such value were the
  /// segment's). Segments open with gradients piling up faster than values are freed (a concat's
  /// backward makes one per branch), so the first step alone left most of the gap to the exact base.
  static constexpr std::size_t kTopSteps = 32;
  std::vector<std::uint32_t> topOps;
  std::vector<std::int64_t> topPeak;
  /// topOps by word of an op bitset, the highest word first; `first` counts the top members in the
  /// words above.
  std::vector<Group> topGroups;

  [[nodiscard]] SourceTerms source() const {
    return {savedBytes, neededTime, boundaryGrads + paramGradsOutside, wordEnd};
  }

  static constexpr std::uint8_t kNeededAlone = 1;
  static constexpr std::uint8_t kSavedByAny = 2;
  static constexpr std::uint8_t kSavedWithin = 4;  ///< kept by its own backward or a consumer's within L
};

/// What segmentCeiling reads of a target set L, shared by every transition into it: by op p up to L's
/// highest member, the largest over L's members q >= p of what the segment's forward step of q can
/// hold beyond the checkpoints it adds, and the same for the recomputation and backward steps of q
/// beyond the values its backwards keep and the gradients in memory from the start. Built in
/// O(|L| + its edges + parameters' users); the vectors are reused.
struct SegmentCeilingTerms {
  std::vector<std::int64_t> forward;
  std::vector<std::int64_t> backward;
  /// By op p: the bytes of recomputed storages at p or above that a backward keeps through a view only.
  std::vector<std::int64_t> viewKept;
  std::vector<std::int64_t> recompute;  // scratch: the recomputation steps' terms before the maxima
  std::vector<std::int32_t> end;        // scratch: by op, the last step its storage is read at
  std::vector<std::int32_t> store;      // scratch: by op, the storage a recomputed value holds
  std::vector<std::uint8_t> flags;      // scratch: by op, kept, needed, a kept holder's root, ...
};

/// The simulator's memory and time of a lower-set chain's canonical schedule (sim::canonicalSchedule),
/// transition by transition, with one relaxation that keeps every term local to its transition: the
/// storages of the checkpoints ∂(L_i) ∩ V_i count as held from their forward until the backward of their
/// own segment begins (the simulator frees one earlier when nothing reads it later). Everything else is
/// what the simulator counts, step by step: resident inputs and parameters, the segment's values under
/// liveness analysis (views share their base's storage), what its backward recomputes, activation
/// gradients as they are made and freed, parameter gradients as they accumulate, and workspace. The
/// chain's model peak, max_i [m_{i-1} + base_i], is therefore never below its simulated peak, and equal
/// to it unless a checkpoint dies before its own segment's backward; the overhead equals the simulated
/// one exactly. O(|L' \ L| + its edges) per transition.
class SimulatedDpModel {
 public:
  explicit SimulatedDpModel(const graph::ComputeGraph& g);

  /// The shared terms of the lower set with these words.
  [[nodiscard]] TargetTerms targetTerms(const std::uint64_t* next) const;

  /// Scratch memory of one thread's evaluations (reused: an evaluation allocates nothing once warm).
  struct Scratch {
    std::uint32_t stamp = 0;
    std::vector<std::uint32_t> seen;  ///< by op: stamp of the evaluation that placed it in the segment
    std::vector<std::uint32_t> pos;   ///< by op: its position in the segment
    std::vector<std::uint8_t> flags;  ///< by op: kept, needed, gradient present, ...
    std::vector<std::uint32_t> mark;  ///< by op: stamp of a lookup outside the segment
    std::vector<std::uint8_t> markValue;
    std::vector<std::int32_t> last;        ///< by op: last use position of a storage
    std::vector<std::int32_t> store;       ///< by op: the storage a recomputed value holds
    std::vector<std::uint32_t> paramSeen;  ///< by parameter
    std::vector<std::uint32_t> members;
    std::vector<std::uint32_t> recompute;
    std::vector<std::int64_t> diff;
  };

  /// The transition from the lower set `prev` to the lower set `next` ⊋ prev (words of op bits);
  /// `last` when next = V.
  [[nodiscard]] Transition transition(const std::uint64_t* prev, const std::uint64_t* next, bool last,
                                      const TargetTerms& terms, Scratch& scratch) const;

  /// The same dt and dm as transition(), exactly, and a lower bound on its base: the memory at the
  /// first step of the segment's backward (every value a backward of the segment keeps is in memory,
  /// with the gradients of ∂(next) and the parameter gradients of V \ next), at its last (every gradient
  /// of ∂(prev) and parameter gradient of V \ prev), or at the end of its forward (its checkpoints).
  /// O(|∂next| + |exceptions|) from the terms of both sets.
  /// `saved`, when given, receives the bytes of the segment's values that one of its backwards keeps.
  [[nodiscard]] Transition quickTransition(const std::uint64_t* prev, const SourceTerms& prevTerms, bool last,
                                           const TargetTerms& terms, std::int64_t* saved = nullptr) const;

  /// A lower bound on quickTransition's dt (which is transition()'s) in O(1): its sums are those of a
  /// source holding none of ∂(next) and none of the exceptions, and holding one only adds its time back.
  [[nodiscard]] static std::int64_t dtFloor(const SourceTerms& prevTerms, bool last, const TargetTerms& terms) {
    return last ? 0 : terms.sums.dt + terms.neededTime - prevTerms.neededTime;
  }

  /// A lower bound on the base of every transition into `next` from a subset of `prev`, from the
  /// quickTransition prev -> next and the `saved` it reports: the checkpoints it adds and the values its
  /// backwards keep only grow as the segment grows.
  [[nodiscard]] std::int64_t subsetFloor(const Transition& quick, std::int64_t saved, const TargetTerms& terms) const {
    return m_resident + std::max(quick.dm, terms.boundaryGrads + terms.paramGradsOutside + saved);
  }

  /// An upper bound on transition()'s base, in O(1): every value of the segment at once (a value holds
  /// one storage at a time, kept or recomputed), every gradient the segment's backward can make (its
  /// members' and those of ∂(prev)) with those of ∂(next), the parameter gradients of V \ prev, and
  /// the largest workspace. Where the base's lower and upper bounds lead the DP to the same decision,
  /// it need not simulate the segment.
  [[nodiscard]] std::int64_t baseCeiling(const TargetTerms& prevTerms, const TargetTerms& terms) const {
    return m_resident + (terms.valueBytes - prevTerms.valueBytes) + (terms.gradTotal - prevTerms.gradTotal) +
           terms.boundaryGrads + prevTerms.boundaryGrads + prevTerms.paramGradsOutside + m_maxWorkspace;
  }

  /// The terms segmentCeiling shares among the transitions into the lower set `next` (not V).
  void segmentCeilingTerms(const std::uint64_t* next, SegmentCeilingTerms& out) const;

  /// An upper bound on transition()'s base for prev ⊊ next ≠ V, tighter than baseCeiling where the
  /// segment is long, in O(words) from quickTransition's result and the `saved` it reports: every
  /// value the segment's backwards keep and every checkpoint it adds held throughout, with, at the
  /// segment's lowest member a and above, the worst step's own terms as segmentCeilingTerms counts
  /// them over all of next (a superset of the segment's members from a on: docs/dp.md).
  [[nodiscard]] std::int64_t segmentCeiling(const std::uint64_t* prev, const std::uint64_t* next,
                                            const Transition& quick, std::int64_t saved, const TargetTerms& terms,
                                            const SegmentCeilingTerms& shared) const;

  /// The same for NodeSets (tests and plan evaluation).
  [[nodiscard]] Transition transition(const graph::NodeSet& prev, const graph::NodeSet& next) const;
  [[nodiscard]] Transition quickTransition(const graph::NodeSet& prev, const graph::NodeSet& next) const;
  [[nodiscard]] std::int64_t baseCeiling(const graph::NodeSet& prev, const graph::NodeSet& next) const;
  [[nodiscard]] std::int64_t segmentCeiling(const graph::NodeSet& prev, const graph::NodeSet& next) const;

 private:
  struct Range {
    std::uint32_t begin;
    std::uint32_t end;
  };
  std::size_t m_ops = 0;
  std::size_t m_words = 0;
  std::int64_t m_resident = 0;
  std::int64_t m_maxWorkspace = 0;
  std::vector<std::int64_t> m_bytes, m_time, m_workspace, m_bwdWorkspace, m_gradBytes;
  std::vector<std::int32_t> m_root;      ///< the op whose storage a value holds (itself unless a view); -1: resident
  std::vector<std::int32_t> m_viewBase;  ///< a view's first input as an op, -1 when resident or not a view
  std::vector<std::uint8_t> m_isView, m_savedByAny, m_neededAlone;
  std::vector<std::uint32_t> m_adj;  ///< CSR arrays below index into it
  std::vector<Range> m_preds, m_succs, m_saved, m_params;
  std::vector<std::int64_t> m_paramBytes;
  std::vector<Range> m_paramUsers;

  [[nodiscard]] bool inSet(const std::uint64_t* s, std::uint32_t op) const { return (s[op >> 6] >> (op & 63)) & 1U; }
  /// Whether some op outside the set uses the parameter (its gradient then accumulates before the set's
  /// backward begins).
  [[nodiscard]] bool usedOutside(std::uint32_t param, const std::uint64_t* set) const;
  /// Fills t.topOps and t.topPeak (see TargetTerms) for the lower set `next`.
  void topSteps(const std::uint64_t* next, const std::vector<std::uint8_t>& onBoundary, TargetTerms& t) const;
};

/// The simulator's model of a whole chain: its peak max_i [m_{i-1} + base_i], its overhead and its
/// checkpoint bytes. Throws sim::InvalidLowerSetSequence for a bad chain.
struct SimulatedChainCost {
  std::int64_t peak = 0;
  std::int64_t overhead = 0;
  std::int64_t checkpointBytes = 0;
  std::size_t peakSegment = 0;
};
[[nodiscard]] SimulatedChainCost evaluateSimulatedModel(const graph::ComputeGraph& g,
                                                        const std::vector<graph::NodeSet>& lowerSets);

}  // namespace remat::solvers
