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

#include "DpAccelerations.hpp"
#include "DpEngine.hpp"

namespace remat::solvers {

std::int64_t saturatingAdd(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (!__builtin_add_overflow(a, b, &out)) return out;
  return a > 0 ? INT64_MAX : INT64_MIN;
}

using dp_detail::ArrivalLimits;
using dp_detail::EverySource;
using dp_detail::ExactSteps;
using dp_detail::forEachSet;
using dp_detail::forEachSetDown;
using dp_detail::FrontBuilder;
using dp_detail::FrontPruning;
using dp_detail::layers;
using dp_detail::LayerScheduler;
using dp_detail::LiveSources;
using dp_detail::Offer;
using dp_detail::QuickSteps;
using dp_detail::StepContext;
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

// The recurrence's loop (DpRecurrence.hpp), with its accelerations plugged in (DpAccelerations.hpp):
//
//   F(∅) = {(0, 0)}
//   for each layer of sets of one size, by size (every proper subset of a set is in an earlier layer;
//   the sets of one layer, none containing another, run in parallel):
//     for each L_j of the layer:
//       the limits of a way arriving at L_j (pruning.limits), or none can;
//       for each source L_i of L_j (sources.walk) with the step allowed (pins):
//         steps' offer(i): the points of F(L_i) that take the step L_i -> L_j within the budget and
//         the limits, shifted by (dt, dm), join the candidates of F(L_j);
//       F(L_j) = the candidates' Pareto front (the builder), then pruning.keep.
//
// How it runs fast apart from the plug-ins (size layers over threads, the front builder's dense arrays,
// sources shared out on narrow layers: DpEngine.hpp) changes no front.
template <class Sources, class Steps>
DpRun forwardRecurrence(const LowerSetFamily& f, const DpOptions& o, Sources& sources, const FrontPruning& pruning) {
  const std::size_t n = f.size();
  DpRun run;
  run.fronts.resize(n);
  run.fronts[0] = {DpPoint{0, 0, 0, 0}};
  std::vector<std::int64_t> leastT(n, INT64_MAX);  // by set, its front's least t
  leastT[0] = 0;
  run.processed = 1;
  std::atomic<std::size_t> points{1};
  const StepContext context{f, o.budget, run.fronts, leastT};
  const Steps steps(context);

  // F(L_j)'s candidates from every shards-th source, starting at `shard`, into `builder`; false when no
  // way can arrive at L_j.
  auto build = [&](std::size_t j, FrontBuilder<DpPoint>& builder, unsigned shard, unsigned shards) {
    const std::optional<ArrivalLimits> lim = pruning.limits(j);
    if (!lim) return false;
    builder.begin(lim->tMax);
    auto target = steps.target(j, builder);
    sources.walk(j, shard, shards, [&](std::size_t i) {
      if (!f.allowed(i, j)) return Offer::Tried;  // breaks a pin
      return target.offer(i, *lim);
    });
    return true;
  };
  auto store = [&](std::size_t j, std::vector<DpPoint> front) {
    pruning.keep(j, front);
    points += front.size();
    if (o.limit != nullptr) o.limit->charge(1 + front.size());
    if (!front.empty()) leastT[j] = front.front().t;
    run.fronts[j] = std::move(front);
  };
  auto outOfTime = [&] { return o.limit != nullptr && o.limit->reached(); };

  LayerScheduler<DpPoint> scheduler(threadCount(o.threads));
  for (const auto& [begin, end] : layers(f)) {
    if (!scheduler.run(begin, end, sources.count(begin), build, store, outOfTime)) {
      run.outcome = o.limit->cancelled() ? DpOutcome::Cancelled : DpOutcome::TimeLimit;
      break;
    }
    run.processed = end;
    sources.layerDone(begin, end, run.fronts);
    if (o.progress) o.progress(double(end) / double(n), "DP over lower sets");
    if (points > o.maxPoints) {
      run.outcome = DpOutcome::MemoryLimit;
      break;
    }
  }
  run.points = points;
  return run;
}

template <class Sources>
DpRun withSteps(const LowerSetFamily& f, const DpOptions& o, Sources& sources, const FrontPruning& pruning) {
  return o.steps == DpSteps::Quick ? forwardRecurrence<Sources, QuickSteps>(f, o, sources, pruning)
                                   : forwardRecurrence<Sources, ExactSteps>(f, o, sources, pruning);
}

}  // namespace

DpRun runParetoDp(const LowerSetFamily& f, const DpOptions& o) {
  const FrontPruning pruning(f, o);
  if (o.sources == DpSources::Live) {
    LiveSources sources(f, o.nearestSources);
    return withSteps(f, o, sources, pruning);
  }
  EverySource sources(f, o.nearestSources);
  return withSteps(f, o, sources, pruning);
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
