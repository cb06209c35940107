#include "remat/solvers/ParetoDp.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <barrier>
#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <type_traits>

#include "DpEngine.hpp"

namespace remat::solvers {

std::int64_t saturatingAdd(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (!__builtin_add_overflow(a, b, &out)) return out;
  return a > 0 ? INT64_MAX : INT64_MIN;
}

using dp_detail::forEachSet;
using dp_detail::forEachSetDown;
using dp_detail::FrontBuilder;
using dp_detail::layers;
using dp_detail::LayerScheduler;
using dp_detail::threadCount;

namespace {

// A continuation from a lower set to V in the trade-off's backward DP (tradeOffFront): its overhead t,
// its peak m (its highest model term above the checkpoint memory held on entry to the set; INT64_MIN
// at V, where no term is left), and the set it steps to next with the index of the tail it goes on
// with there. The engine's other point, DpPoint, is a way from ∅ with the way back.
struct TailPoint {
  std::int64_t t = 0;
  std::int64_t m = 0;
  std::uint32_t nextSet = 0;
  std::uint32_t nextTail = 0;
};
[[nodiscard]] std::uint32_t linkOf(const TailPoint& p) { return p.nextSet; }

}  // namespace

DpRun runParetoDp(const LowerSetFamily& f, const DpOptions& o) {
  const std::size_t n = f.size();
  DpRun run;
  run.fronts.resize(n);
  run.fronts[0] = {DpPoint{0, 0, 0, 0}};
  std::vector<std::int64_t> leastT(n, INT64_MAX);  // by set, its front's least t
  leastT[0] = 0;
  run.processed = 1;
  const unsigned threads = threadCount(o.threads);
  std::atomic<std::size_t> points{1};
  const ContinuationBounds* bounds = o.bounds;
  if (bounds && bounds->overheadCap != INT64_MAX &&
      (o.strategy != Strategy::Time || !o.incumbent || *o.incumbent > bounds->overheadCap))
    throw std::logic_error("runParetoDp: bounds capped at an overhead hold only for runs at that threshold or below");
  // The Lagrangian bounds hold for their own budget and objective only; otherwise the budget-free ones.
  const bool budgeted =
      bounds && !bounds->lambdas.empty() && bounds->budget == o.budget && bounds->strategy == o.strategy;
  auto remaining = [&](std::size_t j, std::int64_t m) {
    if (budgeted) return bounds->remaining(j, m);
    return o.strategy == Strategy::Memory ? bounds->minCheckpoints[j] : bounds->minOverhead[j];
  };

  const bool memory = o.strategy == Strategy::Memory;
  const bool exactQuick = f.quickIsExact();
  // Limits on a point arriving at j: it must leave room for some continuation within the budget, and
  // (with an incumbent) be able to finish no worse than it. nullopt when no point can arrive.
  struct Limits {
    std::int64_t tMax;
    std::int64_t mMax;
  };
  auto limits = [&](std::size_t j) -> std::optional<Limits> {
    std::int64_t mMax = INT64_MAX;
    std::int64_t tMax = f.time(j);  // no set can have recomputed more than its own forward time
    if (bounds && bounds->minPeak[j] != INT64_MIN) {
      if (bounds->minPeak[j] > o.budget) return std::nullopt;  // nothing reaching j finishes within the budget
      mMax = o.budget - bounds->minPeak[j];
    }
    if (bounds && o.incumbent) {
      const std::int64_t rest = remaining(j, 0);
      if (rest == INT64_MAX) return std::nullopt;
      if (memory)
        mMax = std::min(mMax, *o.incumbent - rest);
      else
        tMax = std::min(tMax, *o.incumbent - rest);
    }
    if (tMax < 0 || mMax < 0) return std::nullopt;
    return Limits{tMax, mMax};
  };
  // By set, 1 + f.subsetPrefix(i) once some target found it too far (0 before): a set is found too far
  // from many targets, and the prefix costs a scan. Threads that race store the same value.
  std::vector<std::atomic<std::uint32_t>> prefixes(n);
  auto subsetPrefix = [&](std::size_t i) -> std::size_t {
    std::uint32_t known = prefixes[i].load(std::memory_order_relaxed);
    if (known == 0) {
      known = static_cast<std::uint32_t>(f.subsetPrefix(i)) + 1;
      prefixes[i].store(known, std::memory_order_relaxed);
    }
    return known - 1;
  };
  // The sets of finished layers whose fronts are not empty, by index: the only possible sources. Under
  // a tight threshold most fronts are empty, and this spares the scan over all pairs.
  std::vector<std::uint32_t> alive{0};
  std::vector<std::uint64_t> aliveMask(f.maskWords(), 0);  // the same as a bitset
  aliveMask[0] = 1;
  // The candidates of j from every shards-th source, starting at `shard`, into `builder`.
  auto collect = [&](std::size_t j, const Limits& lim, FrontBuilder<DpPoint>& builder, unsigned shard,
                     unsigned shards) {
    builder.begin(lim.tMax);
    // Larger sources first: their steps are short, and their runs tend to dominate those of far ones.
    // The alive subsets of j, the nearest (largest) `nearestSources` of them when that is set; shard
    // `shard` takes every shards-th.
    thread_local std::vector<std::uint64_t> mask;
    mask.resize(f.maskWords());
    f.subsets(j, mask.data());
    for (std::size_t x = 0; x < mask.size(); ++x) mask[x] &= aliveMask[x];
    std::size_t ordinal = 0;
    // The terms of j's segment ceilings, common to its sources, built on the first transition that
    // needs them (one copy per thread).
    thread_local SegmentCeilingTerms ceilingTerms;
    bool ceilingTermsBuilt = false;
    std::size_t simulated = 0;  // ops of the segments into j simulated so far
    // The last few sources whose every subset is too far from j to fit the budget: a source inside one
    // of them is skipped. On deep chains most sources are far (the 10,000-op graph at 4x its least
    // budget: 50 million pairs, 4.7 million within the budget).
    std::array<std::size_t, 4> tooFar{};
    std::size_t tooFarCount = 0;
    std::size_t tooFarAdded = 0;
    // Every source below this index lies inside one found too far: the walk, descending, ends there
    // (on the 10,000-op graph at 4x, the tail of far sources was most of its 50 million steps).
    std::size_t farBelow = 0;
    forEachSetDown(mask.data(), 0, j, [&](std::size_t i) {
      if (i < farBelow) return false;
      if (o.nearestSources > 0 && ordinal >= o.nearestSources) return false;
      if (ordinal++ % shards != shard) return true;
      for (std::size_t k = 0; k < tooFarCount; ++k)
        if (f.subset(i, tooFar[k])) return true;
      if (!f.allowed(i, j)) return true;  // breaks a pin
      // Time-centric under a tight cap, most sources cannot arrive: the segment alone recomputes more
      // than the cap leaves to the source's quickest point (cg_googlenet at its least budget, run at
      // the beam's value: 90 million of 94 million pairs), which an O(1) floor on dt tells, from
      // arrays read in order rather than each source's front.
      if (!memory && !exactQuick && saturatingAdd(leastT[i], f.dtFloor(i, j)) > lim.tMax) return true;
      const std::vector<DpPoint>& source = run.fronts[i];
      // Fronts run by t ascending and m descending: the points within both limits are a contiguous run.
      const DpPoint* begin = source.data();
      const DpPoint* end = begin + source.size();
      std::int64_t saved = 0;
      Transition s = f.quickTransition(i, j, &saved);
      if (s.base > o.budget) {
        if (f.subsetFloor(j, s, saved) > o.budget) {
          tooFar[tooFarAdded++ % tooFar.size()] = i;  // the oldest gives way
          tooFarCount = std::min(tooFarAdded, tooFar.size());
          farBelow = std::max(farBelow, subsetPrefix(i));
        }
        return true;
      }
      const std::int64_t tCap = lim.tMax - s.dt;
      auto runWithin = [&](std::int64_t base) {
        const std::int64_t mCap = std::min(o.budget - base, lim.mMax - s.dm);
        const DpPoint* first = std::partition_point(begin, end, [mCap](const DpPoint& p) { return p.m > mCap; });
        return std::pair{first, std::partition_point(first, end, [tCap](const DpPoint& p) { return p.t <= tCap; })};
      };
      // Named variables, not a structured binding: the lambdas below capture them (clang 14 cannot).
      const DpPoint* first = nullptr;
      const DpPoint* last = nullptr;
      std::tie(first, last) = runWithin(s.base);
      if (!exactQuick) {
        // The bound's run holds the exact one (a higher base only drops points of larger m): where it
        // is empty or dominated, so is the exact run, and the segment need not be simulated.
        if (builder.runDominated(first, last, s.dt, s.dm)) return true;
        // The exact base lies between the bound and the ceiling: where the ceiling keeps the same run
        // (a generous budget, where j's own limits cap the run), so does the exact base.
        auto sameRun = [&](std::int64_t ceiling) {
          return ceiling <= o.budget && runWithin(ceiling) == std::pair{first, last};
        };
        // The O(1) ceiling first; then the one from j's ceiling terms (O(|L_j|) to build), once the
        // segments simulated for j add up to a quarter as many ops: a simulation costs more per op
        // than the build (on the 10,000-op graph at 16x, waiting for as many ops left 510,000
        // simulations taking 30% of the time), and a target with a few short segments needs neither.
        std::int64_t ceiling = f.baseCeiling(i, j);
        bool same = sameRun(ceiling);
        const std::size_t length = f.count(j) - f.count(i);
        if (!same && !f.isUniverse(j) && (ceilingTermsBuilt || 4 * (simulated + length) > f.count(j))) {
          if (!ceilingTermsBuilt) {
            f.segmentCeilingTerms(j, ceilingTerms);
            ceilingTermsBuilt = true;
          }
          ceiling = std::min(ceiling, f.segmentCeiling(i, j, s, saved, ceilingTerms));
          same = sameRun(ceiling);
        }
        if (!same && ceiling <= o.budget) {
          // The points within the ceiling's run fit whatever the exact base; the others of the bound's
          // run (those of the most checkpoint memory) need it only where the stored candidates do not
          // already dominate them.
          const DpPoint* certain = runWithin(ceiling).first;
          if (certain <= last && builder.runDominated(first, certain, s.dt, s.dm)) {
            first = certain;
            same = true;
          }
        }
        if (!same) {
          simulated += length;
          s = f.transition(i, j);
          if (s.base > o.budget) return true;
          std::tie(first, last) = runWithin(s.base);
        }
      }
      builder.addRun(first, last, begin, s.dt, s.dm, static_cast<std::uint32_t>(i));
      return true;
    });
  };
  // With the budget's bounds, a point whose least possible completion is infeasible or worse than the
  // incumbent goes (no point of a front dominates another, so dropping one revives nothing).
  auto store = [&](std::size_t j, std::vector<DpPoint> front) {
    const bool beam = o.beamWidth > 0 && front.size() > o.beamWidth;
    if (budgeted || beam) {
      // The least objective each point could finish with, computed once per point.
      std::vector<std::pair<std::int64_t, std::int64_t>> score;  // (that objective, m)
      score.reserve(front.size());
      std::size_t kept = 0;
      for (const DpPoint& p : front) {
        const std::int64_t rest = bounds ? remaining(j, p.m) : 0;
        const std::int64_t total = saturatingAdd(memory ? p.m : p.t, rest);
        if (budgeted && (rest == INT64_MAX || (o.incumbent && total > *o.incumbent))) continue;
        // At best a tie with the incumbent: worth keeping only if it may finish with less of the other.
        if (budgeted && o.incumbent && o.tieBreak && total == *o.incumbent &&
            saturatingAdd(memory ? p.t : p.m, memory ? bounds->minOverhead[j] : bounds->minCheckpoints[j]) >=
                *o.tieBreak)
          continue;
        front[kept++] = p;
        score.emplace_back(total, p.m);
      }
      front.resize(kept);
      if (o.beamWidth > 0 && kept > o.beamWidth) {
        // Keep the most promising points: by that objective, then by least checkpoint memory; in
        // front order.
        std::vector<std::uint32_t> order(kept);
        std::iota(order.begin(), order.end(), 0U);
        // And the point with the least checkpoint memory (the front's last): in the simulator's model
        // the bounds are not exact, and the most promising points may all hold too much to finish
        // within the budget (on the generated 10,000-op graph at 1.1x to 4x the beam then reached no
        // plan at all).
        const auto promising = static_cast<std::ptrdiff_t>(o.beamWidth - 1);
        std::nth_element(order.begin(), order.begin() + promising, order.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return score[a] < score[b]; });
        order.resize(o.beamWidth);
        const auto leanest = static_cast<std::uint32_t>(kept - 1);
        if (std::find(order.begin(), order.begin() + promising, leanest) == order.begin() + promising)
          order.back() = leanest;
        std::sort(order.begin(), order.end());
        std::vector<DpPoint> best;
        best.reserve(order.size());
        for (std::uint32_t k : order) best.push_back(front[k]);
        front = std::move(best);
      }
    }
    points += front.size();
    if (o.limit != nullptr) o.limit->charge(1 + front.size());
    if (!front.empty()) leastT[j] = front.front().t;
    run.fronts[j] = std::move(front);
  };
  auto outOfTime = [&] { return o.limit != nullptr && o.limit->reached(); };

  // j's candidates within its limits, or false when no point can arrive at j.
  auto build = [&](std::size_t j, FrontBuilder<DpPoint>& builder, unsigned shard, unsigned shards) {
    const auto lim = limits(j);
    if (!lim) return false;
    collect(j, *lim, builder, shard, shards);
    return true;
  };
  LayerScheduler<DpPoint> scheduler(threads);
  for (const auto& [begin, end] : layers(f)) {
    const std::size_t sources = o.nearestSources > 0 ? std::min(alive.size(), o.nearestSources) : alive.size();
    if (!scheduler.run(begin, end, sources, build, store, outOfTime)) {
      run.outcome = o.limit->cancelled() ? DpOutcome::Cancelled : DpOutcome::TimeLimit;
      break;
    }
    run.processed = end;
    for (std::size_t j = begin; j < end; ++j)
      if (!run.fronts[j].empty()) {
        alive.push_back(static_cast<std::uint32_t>(j));
        aliveMask[j / 64] |= std::uint64_t{1} << (j % 64);
      }
    if (o.progress) o.progress(double(end) / double(n), "DP over lower sets");
    if (points > o.maxPoints) {
      run.outcome = DpOutcome::MemoryLimit;
      break;
    }
  }
  run.points = points;
  return run;
}

std::vector<std::size_t> reconstructPath(const DpRun& run, std::size_t set, std::size_t point) {
  std::vector<std::size_t> path;
  while (set != 0) {
    path.push_back(set);
    const DpPoint& p = run.fronts[set][point];
    set = p.prevSet;
    point = p.prevPoint;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

TradeOffRun tradeOffFront(const LowerSetFamily& f, const DpOptions& o) {
  // Backward over the family: tails[i] is the Pareto front of (t, peak) over the continuations from L_i
  // to V, t their overhead and peak their highest model term relative to the checkpoint memory held at
  // L_i. Memory held on entry adds to every later term alike, so these two numbers are all that matters
  // of a continuation, and the fronts stay two-dimensional. The step L_i -> L_j followed by a tail
  // (t, p) of L_j is the tail (dt + t, max(base, dm + p)); at ∅ the tails are the whole front of plans.
  const std::size_t n = f.size();
  TradeOffRun result;
  std::vector<std::vector<TailPoint>> tails(n);
  tails[n - 1] = {TailPoint{0, INT64_MIN, 0, 0}};
  const unsigned threads = threadCount(o.threads);
  std::vector<std::uint32_t> alive{static_cast<std::uint32_t>(n - 1)};  // finished sets with tails
  std::vector<std::uint64_t> aliveMask(f.maskWords(), 0);               // the same as a bitset
  aliveMask[(n - 1) / 64] |= std::uint64_t{1} << ((n - 1) % 64);
  std::atomic<std::size_t> points{1};
  auto outOfTime = [&] { return o.limit != nullptr && o.limit->reached(); };
  const bool exactQuick = f.quickIsExact();
  // The candidates of set i from every shards-th superset with tails, nearest (smallest) first.
  auto collect = [&](std::size_t i, FrontBuilder<TailPoint>& builder, unsigned shard, unsigned shards) {
    builder.begin(f.time(n - 1) - f.time(i));  // a continuation recomputes at most what is left
    // The supersets of i with tails; shard `shard` takes every shards-th.
    thread_local std::vector<std::uint64_t> mask;
    mask.resize(f.maskWords());
    f.supersets(i, mask.data());
    for (std::size_t x = 0; x < mask.size(); ++x) mask[x] &= aliveMask[x];
    std::size_t ordinal = 0;
    forEachSet(mask.data(), i + 1, n, [&](std::size_t j) {
      if (ordinal++ % shards != shard) return;
      if (!f.allowed(i, j)) return;
      const Transition q = f.quickTransition(i, j);
      if (q.base > o.budget) return;
      const std::vector<TailPoint>& tail = tails[j];
      // Tails run by t ascending and peak descending: those whose shifted peak exceeds the step's own
      // term are a prefix and keep it; of the rest, all at peak `base`, the first has the least t.
      const TailPoint* begin = tail.data();
      const TailPoint* end = begin + tail.size();
      auto split = [&](std::int64_t base, std::int64_t dm) {
        return std::partition_point(begin, end, [&](const TailPoint& p) { return p.m > base - dm; });
      };
      if (!exactQuick) {
        // With the quick base the step's candidates are no higher than with the exact one, at the same
        // overheads (a higher base moves the split left: the points it passes then sit at the base,
        // above their quick place); when those are all dominated, the segment need not be simulated.
        const TailPoint* restQ = split(q.base, q.dm);
        if (builder.runDominated(begin, restQ, q.dt, q.dm) &&
            (restQ == end || builder.pointDominated(restQ->t + q.dt, q.base)))
          return;
      }
      const Transition s = exactQuick ? q : f.transition(i, j);
      const std::int64_t base = s.base;
      if (base > o.budget) return;
      const TailPoint* rest = split(base, s.dm);
      builder.addRun(begin, rest, begin, s.dt, s.dm, static_cast<std::uint32_t>(j));
      if (rest != end)
        builder.addPoint(rest->t + s.dt, base, static_cast<std::uint32_t>(j), static_cast<std::uint32_t>(rest - begin));
    });
  };
  auto store = [&](std::size_t i, std::vector<TailPoint> front) {
    points += front.size();
    if (o.limit != nullptr) o.limit->charge(1 + front.size());
    tails[i] = std::move(front);
  };

  auto build = [&](std::size_t i, FrontBuilder<TailPoint>& builder, unsigned shard, unsigned shards) {
    collect(i, builder, shard, shards);
    return true;
  };
  LayerScheduler<TailPoint> scheduler(threads);
  auto ls = layers(f);
  ls.insert(ls.begin(), {0, 1});                           // ∅ last of all
  for (std::size_t layer = ls.size() - 1; layer-- > 0;) {  // V's own layer is done
    const auto [begin, end] = ls[layer];
    if (!scheduler.run(begin, end, alive.size(), build, store, outOfTime)) {
      result.outcome = o.limit->cancelled() ? DpOutcome::Cancelled : DpOutcome::TimeLimit;
      return result;
    }
    for (std::size_t i = begin; i < end; ++i)
      if (!tails[i].empty()) {
        alive.push_back(static_cast<std::uint32_t>(i));
        aliveMask[i / 64] |= std::uint64_t{1} << (i % 64);
      }
    if (o.progress) o.progress(double(n - begin) / double(n), "budget/overhead front");
    if (points > o.maxPoints) {
      result.outcome = DpOutcome::MemoryLimit;
      return result;
    }
  }
  // ∅'s tails are the plans: by t ascending and peak descending, so reversed they run by peak.
  const std::vector<TailPoint>& plans = tails[0];
  for (std::size_t k = plans.size(); k-- > 0;) {
    TradeOffPoint point{plans[k].m, plans[k].t, {}};
    std::size_t set = plans[k].nextSet;
    std::size_t at = plans[k].nextTail;
    for (;;) {
      point.path.push_back(set);
      if (set == n - 1) break;
      const TailPoint& next = tails[set][at];
      set = next.nextSet;
      at = next.nextTail;
    }
    result.front.push_back(std::move(point));
  }
  return result;
}

}  // namespace remat::solvers
