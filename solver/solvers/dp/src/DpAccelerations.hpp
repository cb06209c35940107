#pragma once

// The accelerations of the forward DP, each a small class plugged into the recurrence's loop
// (forwardRecurrence in ParetoDp.cpp; the recurrence itself, plainly, in DpRecurrence.hpp):
//
//   F(∅) = {(0, 0)}
//   F(L_j) = Pareto front of { p + step(L_i -> L_j) : L_i a source of L_j, allowed(i, j), p ∈ F(L_i),
//                              p fits the step within the budget, p + step within L_j's limits }
//
// - Sources (which L_i to try for L_j): EverySource, every proper subset, as the recurrence is written;
//   LiveSources, only subsets whose fronts are not empty, largest first, skipping every subset of a
//   source found too far from L_j to fit the budget (exact), and optionally only the nearest few (a
//   heuristic, DpOptions::nearestSources).
// - Steps (what a step adds and which points of F(L_i) take it): ExactSteps, the family's exact
//   transition for every pair; QuickSteps, its O(1) quick bound first and the exact walk of the segment
//   only where the bound and the segment ceilings cannot tell which points take the step (exact).
// - FrontPruning (which points arrive at L_j and which of its front are kept): the time cap T(L_j) alone
//   (exact), the continuation bounds and an incumbent (exact for the chosen strategy's optimum), the
//   beam (a heuristic).
//
// Each is tested against the plain recurrence (tests/solvers/DpRecurrenceTest.cpp): the exact sources and
// steps give every set's front, the bounds V's optimum, the heuristics plans the recurrence reaches too.
// Private to dp/.

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "DpEngine.hpp"

namespace remat::solvers::dp_detail {

/// What a step's attempt says about its source: tried (taken, or not by any point), or too far: the
/// source and every subset of it are too far from the target to fit the budget, so LiveSources skips them.
enum class Offer { Tried, TooFar };

/// Limits on a way arriving at a set (FrontPruning::limits): its overhead at most tMax and its checkpoint
/// memory at most mMax.
struct ArrivalLimits {
  std::int64_t tMax;
  std::int64_t mMax;
};

/// The points of a front (t ascending, m strictly descending) that may take a step of base `base` adding
/// (dt, dm) within the budget and the limits: m + base <= budget, m + dm <= mMax and t + dt <= tMax. A
/// contiguous run [first, last).
[[gnu::always_inline]] inline std::pair<const DpPoint*, const DpPoint*> runWithin(const DpPoint* begin,
                                                                                  const DpPoint* end, std::int64_t base,
                                                                                  std::int64_t dt, std::int64_t dm,
                                                                                  std::int64_t budget,
                                                                                  const ArrivalLimits& lim) {
  const std::int64_t mCap = std::min(budget - base, lim.mMax - dm);
  const std::int64_t tCap = lim.tMax - dt;
  const DpPoint* first = std::partition_point(begin, end, [mCap](const DpPoint& p) { return p.m > mCap; });
  return {first, std::partition_point(first, end, [tCap](const DpPoint& p) { return p.t <= tCap; })};
}

// ---------------------------------------------------------------------------------------------------
// Sources

/// Every proper subset of L_j, largest first: the recurrence as written (empty fronts are tried too and
/// give nothing). `nearest` > 0 walks only the first that many.
class EverySource {
 public:
  EverySource(const LowerSetFamily& f, std::size_t nearest) : m_f(f), m_nearest(nearest) {}

  /// Calls offer(i) for each source of j that shard `shard` of `shards` takes.
  template <class OfferFn>
  void walk(std::size_t j, unsigned shard, unsigned shards, OfferFn&& offer) const {
    thread_local std::vector<std::uint64_t> mask;
    mask.resize(m_f.maskWords());
    m_f.subsets(j, mask.data());
    std::size_t ordinal = 0;
    forEachSetDown(mask.data(), 0, j, [&](std::size_t i) {
      if (m_nearest > 0 && ordinal >= m_nearest) return false;
      if (ordinal++ % shards == shard) offer(i);
      return true;
    });
  }
  /// The sets of [begin, end) have their fronts.
  void layerDone(std::size_t, std::size_t, const std::vector<std::vector<DpPoint>>&) {}
  /// How many sources a set of the next layer may have, at most (whether to share them among threads).
  [[nodiscard]] std::size_t count(std::size_t begin) const {
    return m_nearest > 0 ? std::min(begin, m_nearest) : begin;
  }

 private:
  const LowerSetFamily& m_f;
  std::size_t m_nearest;
};

/// The subsets of L_j whose fronts are not empty (the others are sources of nothing: under a tight
/// threshold most fronts are empty, and this spares the scan over all pairs), largest first (their steps
/// are short, and their runs tend to dominate those of far ones), skipping every subset of the last few
/// sources found too far from L_j to fit the budget (on deep chains most sources are: the 10,000-op graph
/// at 4x its least budget has 50 million pairs, 4.7 million within the budget). `nearest` > 0 walks only
/// the first that many live subsets: a heuristic. Exact otherwise: a source is skipped only where no
/// point of it can take the step.
class LiveSources {
 public:
  LiveSources(const LowerSetFamily& f, std::size_t nearest)
      : m_f(f), m_nearest(nearest), m_prefixes(f.size()), m_aliveMask(f.maskWords(), 0) {
    m_alive.push_back(0);  // ∅'s front is {(0, 0)}
    m_aliveMask[0] = 1;
  }

  template <class OfferFn>
  void walk(std::size_t j, unsigned shard, unsigned shards, OfferFn&& offer) {
    thread_local std::vector<std::uint64_t> mask;
    mask.resize(m_f.maskWords());
    m_f.subsets(j, mask.data());
    for (std::size_t x = 0; x < mask.size(); ++x) mask[x] &= m_aliveMask[x];
    std::size_t ordinal = 0;
    // The last few sources whose every subset is too far from j: a source inside one of them is skipped.
    std::array<std::size_t, 4> tooFar{};
    std::size_t tooFarCount = 0;
    std::size_t tooFarAdded = 0;
    // Every source below this index lies inside one found too far: the walk, descending, ends there (on
    // the 10,000-op graph at 4x, the tail of far sources was most of its 50 million steps).
    std::size_t farBelow = 0;
    forEachSetDown(mask.data(), 0, j, [&](std::size_t i) {
      if (i < farBelow) return false;
      if (m_nearest > 0 && ordinal >= m_nearest) return false;
      if (ordinal++ % shards != shard) return true;
      for (std::size_t k = 0; k < tooFarCount; ++k)
        if (m_f.subset(i, tooFar[k])) return true;
      if (offer(i) == Offer::TooFar) {
        tooFar[tooFarAdded++ % tooFar.size()] = i;  // the oldest gives way
        tooFarCount = std::min(tooFarAdded, tooFar.size());
        farBelow = std::max(farBelow, subsetPrefix(i));
      }
      return true;
    });
  }
  void layerDone(std::size_t begin, std::size_t end, const std::vector<std::vector<DpPoint>>& fronts) {
    for (std::size_t j = begin; j < end; ++j)
      if (!fronts[j].empty()) {
        m_alive.push_back(static_cast<std::uint32_t>(j));
        m_aliveMask[j / 64] |= std::uint64_t{1} << (j % 64);
      }
  }
  [[nodiscard]] std::size_t count(std::size_t) const {
    return m_nearest > 0 ? std::min(m_alive.size(), m_nearest) : m_alive.size();
  }

 private:
  // 1 + f.subsetPrefix(i) once some target found i too far (0 before): a set is found too far from many
  // targets, and the prefix costs a scan. Threads that race store the same value.
  std::size_t subsetPrefix(std::size_t i) {
    std::uint32_t known = m_prefixes[i].load(std::memory_order_relaxed);
    if (known == 0) {
      known = static_cast<std::uint32_t>(m_f.subsetPrefix(i)) + 1;
      m_prefixes[i].store(known, std::memory_order_relaxed);
    }
    return known - 1;
  }

  const LowerSetFamily& m_f;
  std::size_t m_nearest;
  std::vector<std::atomic<std::uint32_t>> m_prefixes;
  std::vector<std::uint32_t> m_alive;      // finished sets with a front, by index
  std::vector<std::uint64_t> m_aliveMask;  // the same as a bitset
};

// ---------------------------------------------------------------------------------------------------
// Steps. Each has a Target(j, builder): offer(i, lim) adds to the builder of F(L_j) the points of F(L_i)
// that take the step L_i -> L_j, shifted by it.

/// What the steps read: the family, the budget, the fronts so far and each front's least overhead.
struct StepContext {
  const LowerSetFamily& f;
  std::int64_t budget;
  const std::vector<std::vector<DpPoint>>& fronts;
  const std::vector<std::int64_t>& leastT;  ///< by set, its front's least t (INT64_MAX when empty)
};

/// Every step costed by the family's exact transition: the recurrence as written.
class ExactSteps {
 public:
  explicit ExactSteps(const StepContext& c) : m_c(c) {}
  class Target {
   public:
    Target(const StepContext& c, std::size_t j, FrontBuilder<DpPoint>& builder) : m_c(c), m_j(j), m_builder(builder) {}
    [[gnu::always_inline]] Offer offer(std::size_t i, const ArrivalLimits& lim) {
      const std::vector<DpPoint>& source = m_c.fronts[i];
      if (source.empty()) return Offer::Tried;
      const Transition s = m_c.f.transition(i, m_j);
      if (s.base > m_c.budget) return Offer::Tried;
      const DpPoint* begin = source.data();
      const auto [first, last] = runWithin(begin, begin + source.size(), s.base, s.dt, s.dm, m_c.budget, lim);
      m_builder.addRun(first, last, begin, s.dt, s.dm, static_cast<std::uint32_t>(i));
      return Offer::Tried;
    }

   private:
    const StepContext& m_c;
    std::size_t m_j;
    FrontBuilder<DpPoint>& m_builder;
  };
  [[nodiscard]] Target target(std::size_t j, FrontBuilder<DpPoint>& builder) const { return {m_c, j, builder}; }

 private:
  const StepContext& m_c;
};

/// The quick transition first (O(1); exact in the paper's model, a lower bound on the base in the
/// simulator's), the segment's exact walk only where needed: a floor on dt against the source's least
/// overhead skips sources no point of which can arrive; a quick base over the budget skips the source,
/// and with the subset floor finds it too far; a run the builder already dominates at the quick base
/// needs no walk (a higher base only drops points); and where the segment's base ceilings keep the same
/// run, neither does it. Exact: the same points are added as with ExactSteps.
class QuickSteps {
 public:
  explicit QuickSteps(const StepContext& c) : m_c(c), m_exactQuick(c.f.quickIsExact()) {}
  class Target {
   public:
    Target(const QuickSteps& s, std::size_t j, FrontBuilder<DpPoint>& builder)
        : m_f(s.m_c.f),
          m_budget(s.m_c.budget),
          m_fronts(s.m_c.fronts.data()),
          m_leastT(s.m_c.leastT.data()),
          m_exactQuick(s.m_exactQuick),
          m_j(j),
          m_builder(builder) {}

    [[gnu::always_inline]] Offer offer(std::size_t i, const ArrivalLimits& lim) {
      const LowerSetFamily& f = m_f;
      const std::int64_t budget = m_budget;
      // Time-centric under a tight cap, most sources cannot arrive: the segment alone recomputes more
      // than the cap leaves to the source's quickest point (cg_googlenet at its least budget, run at the
      // beam's value: 90 million of 94 million pairs), which an O(1) floor on dt tells, from arrays read
      // in order rather than each source's front.
      if (!m_exactQuick && saturatingAdd(m_leastT[i], f.dtFloor(i, m_j)) > lim.tMax) return Offer::Tried;
      const std::vector<DpPoint>& source = m_fronts[i];
      const DpPoint* begin = source.data();
      const DpPoint* end = begin + source.size();
      std::int64_t saved = 0;
      Transition s = f.quickTransition(i, m_j, &saved);
      if (s.base > budget) return f.subsetFloor(m_j, s, saved) > budget ? Offer::TooFar : Offer::Tried;
      const DpPoint* first = nullptr;
      const DpPoint* last = nullptr;
      auto within = [&](std::int64_t base) __attribute__((always_inline)) {
        return runWithin(begin, end, base, s.dt, s.dm, budget, lim);
      };
      std::tie(first, last) = within(s.base);
      if (!m_exactQuick) {
        // The bound's run holds the exact one (a higher base only drops points of larger m): where it is
        // empty or dominated, so is the exact run, and the segment need not be simulated.
        if (m_builder.runDominated(first, last, s.dt, s.dm)) return Offer::Tried;
        // The exact base lies between the bound and the ceiling: where the ceiling keeps the same run (a
        // generous budget, where j's own limits cap the run), so does the exact base.
        auto sameRun = [&](std::int64_t ceiling) {
          return ceiling <= budget && within(ceiling) == std::pair{first, last};
        };
        // The O(1) ceiling first; then the one from j's ceiling terms (O(|L_j|) to build), once the
        // segments simulated for j add up to a quarter as many ops: a simulation costs more per op than
        // the build (on the 10,000-op graph at 16x, waiting for as many ops left 510,000 simulations
        // taking 30% of the time), and a target with a few short segments needs neither.
        std::int64_t ceiling = f.baseCeiling(i, m_j);
        bool same = sameRun(ceiling);
        const std::size_t length = f.count(m_j) - f.count(i);
        if (!same && !f.isUniverse(m_j) && (m_ceilingTermsBuilt || 4 * (m_simulated + length) > f.count(m_j))) {
          if (!m_ceilingTermsBuilt) {
            f.segmentCeilingTerms(m_j, ceilingTerms());
            m_ceilingTermsBuilt = true;
          }
          ceiling = std::min(ceiling, f.segmentCeiling(i, m_j, s, saved, ceilingTerms()));
          same = sameRun(ceiling);
        }
        if (!same && ceiling <= budget) {
          // The points within the ceiling's run fit whatever the exact base; the others of the bound's
          // run (those of the most checkpoint memory) need it only where the stored candidates do not
          // already dominate them.
          const DpPoint* certain = within(ceiling).first;
          if (certain <= last && m_builder.runDominated(first, certain, s.dt, s.dm)) {
            first = certain;
            same = true;
          }
        }
        if (!same) {
          m_simulated += length;
          s = f.transition(i, m_j);
          if (s.base > budget) return Offer::Tried;
          std::tie(first, last) = within(s.base);
        }
      }
      m_builder.addRun(first, last, begin, s.dt, s.dm, static_cast<std::uint32_t>(i));
      return Offer::Tried;
    }

   private:
    // The terms of j's segment ceilings, common to its sources (one copy per thread).
    static SegmentCeilingTerms& ceilingTerms() {
      thread_local SegmentCeilingTerms terms;
      return terms;
    }
    // What the step reads, copied here from the context: the hot loop then loads each once.
    const LowerSetFamily& m_f;
    std::int64_t m_budget;
    const std::vector<DpPoint>* m_fronts;
    const std::int64_t* m_leastT;
    bool m_exactQuick;
    std::size_t m_j;
    FrontBuilder<DpPoint>& m_builder;
    bool m_ceilingTermsBuilt = false;
    std::size_t m_simulated = 0;  // ops of the segments into j simulated so far
  };
  [[nodiscard]] Target target(std::size_t j, FrontBuilder<DpPoint>& builder) const { return {*this, j, builder}; }

 private:
  const StepContext& m_c;
  bool m_exactQuick;
};

// ---------------------------------------------------------------------------------------------------
// Pruning

/// Which ways may arrive at a set and which points of its front are kept. Always: no set can have
/// recomputed more than its own forward time (t <= T(L_j), which drops nothing). With bounds: a way that
/// leaves no continuation within the budget (m above B - minPeak) does not arrive. With bounds and an
/// incumbent: nor one whose objective plus the least still to come passes the incumbent's; with the
/// budget's Lagrangian bounds (their budget and strategy the run's) each kept point is checked against
/// its own m, and a point that can at best tie the incumbent goes unless it may finish with less of
/// the other coordinate (DpOptions::tieBreak). The strategy's optimum at V is kept. The beam then keeps
/// the `beamWidth` most promising points and the leanest: a heuristic.
class FrontPruning {
 public:
  FrontPruning(const LowerSetFamily& f, const DpOptions& o) : m_f(f), m_o(o), m_memory(o.strategy == Strategy::Memory) {
    const ContinuationBounds* bounds = o.bounds;
    if (bounds && bounds->overheadCap != INT64_MAX &&
        (o.strategy != Strategy::Time || !o.incumbent || *o.incumbent > bounds->overheadCap))
      throw std::logic_error("runParetoDp: bounds capped at an overhead hold only for runs at that threshold or below");
    // The Lagrangian bounds hold for their own budget and objective only; otherwise the budget-free ones.
    m_budgeted = bounds && !bounds->lambdas.empty() && bounds->budget == o.budget && bounds->strategy == o.strategy;
  }

  /// The limits of a way arriving at set j; nullopt when none can.
  [[nodiscard]] std::optional<ArrivalLimits> limits(std::size_t j) const {
    const ContinuationBounds* bounds = m_o.bounds;
    std::int64_t mMax = INT64_MAX;
    std::int64_t tMax = m_f.time(j);  // no set can have recomputed more than its own forward time
    if (bounds && bounds->minPeak[j] != INT64_MIN) {
      if (bounds->minPeak[j] > m_o.budget) return std::nullopt;  // nothing reaching j finishes within the budget
      mMax = m_o.budget - bounds->minPeak[j];
    }
    if (bounds && m_o.incumbent) {
      const std::int64_t rest = remaining(j, 0);
      if (rest == INT64_MAX) return std::nullopt;
      if (m_memory)
        mMax = std::min(mMax, *m_o.incumbent - rest);
      else
        tMax = std::min(tMax, *m_o.incumbent - rest);
    }
    if (tMax < 0 || mMax < 0) return std::nullopt;
    return ArrivalLimits{tMax, mMax};
  }

  /// Prunes set j's finished front in place (no point of a front dominates another, so dropping one
  /// revives nothing).
  void keep(std::size_t j, std::vector<DpPoint>& front) const {
    const bool beam = m_o.beamWidth > 0 && front.size() > m_o.beamWidth;
    if (!m_budgeted && !beam) return;
    const ContinuationBounds* bounds = m_o.bounds;
    // The least objective each point could finish with, computed once per point.
    std::vector<std::pair<std::int64_t, std::int64_t>> score;  // (that objective, m)
    score.reserve(front.size());
    std::size_t kept = 0;
    for (const DpPoint& p : front) {
      const std::int64_t rest = bounds ? remaining(j, p.m) : 0;
      const std::int64_t total = saturatingAdd(m_memory ? p.m : p.t, rest);
      if (m_budgeted && (rest == INT64_MAX || (m_o.incumbent && total > *m_o.incumbent))) continue;
      // At best a tie with the incumbent: worth keeping only if it may finish with less of the other.
      if (m_budgeted && m_o.incumbent && m_o.tieBreak && total == *m_o.incumbent &&
          saturatingAdd(m_memory ? p.t : p.m, m_memory ? bounds->minOverhead[j] : bounds->minCheckpoints[j]) >=
              *m_o.tieBreak)
        continue;
      front[kept++] = p;
      score.emplace_back(total, p.m);
    }
    front.resize(kept);
    if (m_o.beamWidth == 0 || kept <= m_o.beamWidth) return;
    // Keep the most promising points: by that objective, then by least checkpoint memory; in front
    // order. And the point with the least checkpoint memory (the front's last): in the simulator's model
    // the bounds are not exact, and the most promising points may all hold too much to finish within the
    // budget (on the generated 10,000-op graph at 1.1x to 4x the beam then reached no plan at all).
    std::vector<std::uint32_t> order(kept);
    std::iota(order.begin(), order.end(), 0U);
    const auto promising = static_cast<std::ptrdiff_t>(m_o.beamWidth - 1);
    std::nth_element(order.begin(), order.begin() + promising, order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return score[a] < score[b]; });
    order.resize(m_o.beamWidth);
    const auto leanest = static_cast<std::uint32_t>(kept - 1);
    if (std::find(order.begin(), order.begin() + promising, leanest) == order.begin() + promising)
      order.back() = leanest;
    std::sort(order.begin(), order.end());
    std::vector<DpPoint> best;
    best.reserve(order.size());
    for (std::uint32_t k : order) best.push_back(front[k]);
    front = std::move(best);
  }

 private:
  [[nodiscard]] std::int64_t remaining(std::size_t j, std::int64_t m) const {
    if (m_budgeted) return m_o.bounds->remaining(j, m);
    return m_memory ? m_o.bounds->minCheckpoints[j] : m_o.bounds->minOverhead[j];
  }

  const LowerSetFamily& m_f;
  const DpOptions& m_o;
  bool m_memory;
  bool m_budgeted = false;
};

}  // namespace remat::solvers::dp_detail
