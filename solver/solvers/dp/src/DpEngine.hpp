#pragma once

// The machinery the DP's passes share (ParetoDp.cpp: the forward DP and the trade-off front;
// ContinuationBounds.cpp: the bounds): the size layers of a family, a layer's sets spread over threads,
// the bit walks over a family's subset masks, a pool that splits one set's sources into shards, the
// per-thread builder of a set's Pareto front, and the scheduler that runs a layer's sets through them.
// Private to dp/: none of it is the recurrence, all of it is how it runs fast.

#include <algorithm>
#include <atomic>
#include <barrier>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "remat/solvers/LowerSetFamily.hpp"
#include "remat/solvers/ParetoDp.hpp"

namespace remat::solvers::dp_detail {

inline unsigned threadCount(unsigned requested) {
  if (requested > 0) return requested;
  return std::max(1U, std::thread::hardware_concurrency());
}

// The families' size layers: [begin, end) ranges of sets of equal size, ∅ excluded.
inline std::vector<std::pair<std::size_t, std::size_t>> layers(const LowerSetFamily& f) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  std::size_t begin = 1;
  while (begin < f.size()) {
    std::size_t end = begin;
    while (end < f.size() && f.count(end) == f.count(begin)) ++end;
    out.emplace_back(begin, end);
    begin = end;
  }
  return out;
}

// Runs body(j, worker) for every set of a layer, spread over threads: the sets of one layer never
// contain one another, so they only read results of other layers.
template <class Body>
void parallelOver(std::size_t begin, std::size_t end, unsigned threads, Body&& body) {
  const auto workers = static_cast<unsigned>(std::min<std::size_t>(threads, end - begin));
  if (workers <= 1) {
    for (std::size_t j = begin; j < end; ++j) body(j, 0U);
    return;
  }
  std::atomic<std::size_t> next{begin};
  std::vector<std::jthread> pool;
  pool.reserve(workers);
  for (unsigned w = 0; w < workers; ++w)
    pool.emplace_back([&, w] {
      for (std::size_t j = next++; j < end; j = next++) body(j, w);
    });
}

// Calls f(k) for every set bit k of mask in [from, to), ascending.
template <class F>
void forEachSet(const std::uint64_t* mask, std::size_t from, std::size_t to, F&& f) {
  if (from >= to) return;
  for (std::size_t w = from / 64; w * 64 < to; ++w) {
    std::uint64_t bits = mask[w];
    if (w == from / 64) bits &= ~std::uint64_t{0} << (from % 64);
    if ((w + 1) * 64 > to && to % 64) bits &= (std::uint64_t{1} << (to % 64)) - 1;
    while (bits) {
      f(w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
      bits &= bits - 1;
    }
  }
}

// The same, descending; an f that returns bool stops the walk by returning false.
template <class F>
void forEachSetDown(const std::uint64_t* mask, std::size_t from, std::size_t to, F&& f) {
  if (from >= to) return;
  for (std::size_t w = (to - 1) / 64 + 1; w-- > from / 64;) {
    std::uint64_t bits = mask[w];
    if (w == from / 64) bits &= ~std::uint64_t{0} << (from % 64);
    if ((w + 1) * 64 > to && to % 64) bits &= (std::uint64_t{1} << (to % 64)) - 1;
    while (bits) {
      const int top = 63 - std::countl_zero(bits);
      const std::size_t k = w * 64 + static_cast<std::size_t>(top);
      if constexpr (std::is_same_v<decltype(f(k)), bool>) {
        if (!f(k)) return;
      } else {
        f(k);
      }
      bits &= ~(std::uint64_t{1} << top);
    }
  }
}

// Sets with fewer candidate sources than this (in the bounds pass, blocks with fewer supersets) are
// not worth waking other threads for.
inline constexpr std::size_t kShardSources = 256;

// Threads that run one task, split into shards, on demand: for the sets of a narrow layer (deep graphs
// have one set per size), whose sources are shared out instead. The caller runs shard 0.
class ShardPool {
 public:
  explicit ShardPool(unsigned shards) : m_start(shards), m_done(shards) {
    for (unsigned w = 1; w < shards; ++w)
      m_threads.emplace_back([this, w] {
        for (;;) {
          m_start.arrive_and_wait();
          if (m_quit) return;
          (*m_task)(w);
          m_done.arrive_and_wait();
        }
      });
  }
  ShardPool(const ShardPool&) = delete;
  ShardPool& operator=(const ShardPool&) = delete;
  ~ShardPool() {
    m_quit = true;
    if (!m_threads.empty()) m_start.arrive_and_wait();
  }
  void run(const std::function<void(unsigned)>& task) {
    if (m_threads.empty()) {
      task(0);
      return;
    }
    m_task = &task;
    m_start.arrive_and_wait();
    task(0);
    m_done.arrive_and_wait();
  }

 private:
  std::barrier<> m_start;
  std::barrier<> m_done;
  const std::function<void(unsigned)>* m_task = nullptr;
  bool m_quit = false;  // written before a barrier phase, read after it
  std::vector<std::jthread> m_threads;
};

// The points the engine builds fronts of: a forward DP's DpPoint (overhead, checkpoint memory, the way
// back) or the trade-off's TailPoint (overhead, peak relative to the memory held on entry, the way on).
// The engine reads two coordinates, t (kept least first) and m (kept strictly falling), builds a point
// as {t, m, set, point} and breaks ties of equal points by linkOf(point), the set it links to.
[[nodiscard]] inline std::uint32_t linkOf(const DpPoint& p) { return p.prevSet; }

// Per-thread scratch of a DP: the Pareto front of one set, built from runs, each a neighbour's front
// shifted by its step (t + dt, m + dm), sorted by t ascending and m strictly descending.
//
// When the overhead range is small enough (always with the paper's integer costs), candidates go into
// a dense array indexed by overhead. Beside it, a prefix-minimum array (the least m of the candidates
// with overhead at most t) answers "is this point dominated" in O(1). It is rebuilt only now and then,
// so between rebuilds it may miss the newest candidates: it then dominates less, never wrongly. A run
// walks its points and, at a dominated point, jumps by binary search to its first point below that
// minimum (m falls along a run), so dominated stretches cost a search, not a visit each. On deep
// graphs almost every run is dominated (a set's front comes from a handful of its hundreds of sources),
// and visits fall by orders of magnitude.
//
// For wide ranges (costs in nanoseconds: PSPNet's overheads run to 10^8) the same arrays index buckets
// of 2^shift overheads, and a candidate not found dominated is stored in a list sorted at the end. A
// bucket's prefix minimum then counts only the buckets strictly below the candidate's: every candidate
// there has a smaller overhead, so one with m at most the candidate's dominates it, and the test stays
// conservative (it misses the candidates of the candidate's own bucket, which the sort settles). Equal
// points are never pruned by it, so the front and its ties are those of sorting every candidate; before
// the buckets, every candidate was stored and sorted (80% of exact-dp's time on PSPNet).
template <class Point>
struct FrontBuilder {
  static constexpr std::int64_t kDenseLimit = std::int64_t{1} << 18;
  std::vector<std::int64_t> bestM;
  std::vector<std::uint64_t> from;  // (set << 32) | point
  std::vector<std::int64_t> touched;
  std::vector<std::int64_t> prefix;     // prefix minima of bestM over [prefixFrom, range], as of the last rebuild
  std::int64_t prefixFrom = INT64_MAX;  // below it, no candidate was known at the last rebuild
  std::int64_t prefixTo = -1;           // above it, none was: the minima stay prefix[prefixTo]
  std::int64_t dirtyFrom = INT64_MAX;   // least overhead changed since the last rebuild
  std::int64_t highest = -1;            // greatest overhead holding a candidate
  std::size_t changes = 0;              // candidates stored since the last rebuild
  std::vector<Point> cands;
  std::vector<Point> ordered;  // the bucketed finish's scratch
  std::int64_t range = -1;     // the arrays' last index when >= 0; none (sort only) below
  int shift = 0;               // a slot holds the overheads t with t >> shift equal; 0: dense, one each
  bool bucketed() const { return shift > 0; }

  void begin(std::int64_t tMax) {
    cands.clear();
    shift = 0;
    range = tMax;
    while (range >= kDenseLimit) {
      ++shift;
      range = tMax >> shift;
    }
    if (tMax < 0) range = -1;
    prefixFrom = dirtyFrom = INT64_MAX;
    prefixTo = highest = -1;
    changes = 0;
    if (range >= 0 && static_cast<std::int64_t>(bestM.size()) <= range) {
      bestM.resize(static_cast<std::size_t>(range) + 1, INT64_MAX);
      from.resize(static_cast<std::size_t>(range) + 1);
      prefix.resize(static_cast<std::size_t>(range) + 1);
    }
  }

  // The least m stored at an overhead at most t (dense), or in a bucket strictly below t's (bucketed),
  // as of the last rebuild; INT64_MAX when none.
  [[nodiscard]] std::int64_t prefixMin(std::int64_t t) const {
    const std::int64_t slot = bucketed() ? (t >> shift) - 1 : t;
    return slot < prefixFrom ? INT64_MAX : prefix[static_cast<std::size_t>(std::min(slot, prefixTo))];
  }

  // A candidate stored: dense, its slot takes it when it is the best there; bucketed, it joins the list
  // and its bucket's minimum.
  void store(std::int64_t t, std::int64_t m, std::uint32_t source, std::uint32_t point) {
    if (!bucketed()) {
      keepIfBetter(t, m, source, point);
      return;
    }
    cands.push_back({t, m, source, point});
    const std::int64_t b = t >> shift;
    auto& slot = bestM[static_cast<std::size_t>(b)];
    if (m >= slot) return;
    if (slot == INT64_MAX) touched.push_back(b);
    slot = m;
    dirtyFrom = std::min(dirtyFrom, b);
    highest = std::max(highest, b);
    ++changes;
  }

  // Brings the prefix minima up to date from the least changed overhead to the greatest one holding a
  // candidate (the minima below are unchanged, and above it constant); each rebuild costs the span it
  // recomputes, and it waits for enough new candidates that this is at most a few dozen operations per
  // candidate.
  void maybeRebuild() {
    if (changes == 0 || static_cast<std::int64_t>(changes) * 32 < highest - dirtyFrom) return;
    std::int64_t t = dirtyFrom;
    // Between the last rebuild's greatest overhead and the least changed one no candidate came: the
    // minimum there is the last one known (a plain fill, far cheaper than the running minimum).
    if (prefixFrom != INT64_MAX && t > prefixTo + 1)
      std::fill(prefix.begin() + prefixTo + 1, prefix.begin() + t, prefix[static_cast<std::size_t>(prefixTo)]);
    std::int64_t running = t > prefixFrom ? prefix[static_cast<std::size_t>(t - 1)] : INT64_MAX;
    for (; t <= highest; ++t)
      prefix[static_cast<std::size_t>(t)] = running = std::min(running, bestM[static_cast<std::size_t>(t)]);
    prefixFrom = std::min(dirtyFrom, prefixFrom);
    prefixTo = highest;
    dirtyFrom = INT64_MAX;
    changes = 0;
  }

  void addRun(const Point* first, const Point* end, const Point* base, std::int64_t dt, std::int64_t dm,
              std::uint32_t source) {
    if (first == end) return;
    if (range < 0) {
      for (const Point* p = first; p != end; ++p)
        cands.push_back({p->t + dt, p->m + dm, source, static_cast<std::uint32_t>(p - base)});
      return;
    }
    maybeRebuild();
    // The run's ideal point (its least t, its least m) dominated means every point of it is: a later
    // point has a larger t, so a prefix minimum at most as large, and an m at least the run's least.
    if (prefixMin(first->t + dt) <= end[-1].m + dm) return;
    const Point* p = first;
    while (p != end) {
      const std::int64_t t = p->t + dt;
      const std::int64_t m = p->m + dm;
      const std::int64_t lowest = prefixMin(t);
      if (lowest <= m) {
        // Dominated, and so is every later point of the run with m + dm >= lowest.
        p = firstBelow(p + 1, end, lowest - dm);
        continue;
      }
      store(t, m, source, static_cast<std::uint32_t>(p - base));
      ++p;
    }
  }

  // Whether every point of the run, shifted by (dt, dm), is dominated by a candidate already stored (a
  // conservative answer: false when it cannot tell). A walk with addRun's jumps: far cheaper than the
  // simulation of a segment it spares.
  [[nodiscard]] bool runDominated(const Point* first, const Point* end, std::int64_t dt, std::int64_t dm) {
    if (first == end) return true;
    if (range < 0) return false;
    maybeRebuild();
    if (prefixMin(first->t + dt) <= end[-1].m + dm) return true;
    for (const Point* p = first; p != end;) {
      const std::int64_t lowest = prefixMin(p->t + dt);
      if (lowest > p->m + dm) return false;
      p = firstBelow(p + 1, end, lowest - dm);
    }
    return true;
  }

  // The first point from `lo` on with m < below (m falls along a run), by galloping: it is usually near.
  static const Point* firstBelow(const Point* lo, const Point* end, std::int64_t below) {
    std::ptrdiff_t step = 1;
    while (lo + step < end && lo[step - 1].m >= below) {
      lo += step;
      step *= 2;
    }
    const Point* hi = lo + step < end ? lo + step : end;
    return std::partition_point(lo, hi, [below](const Point& x) { return x.m >= below; });
  }

  // Whether a candidate at (t, m) is dominated by one already stored (false when it cannot tell).
  [[nodiscard]] bool pointDominated(std::int64_t t, std::int64_t m) {
    if (range < 0) return false;
    maybeRebuild();
    return prefixMin(t) <= m;
  }

  // One candidate on its own.
  void addPoint(std::int64_t t, std::int64_t m, std::uint32_t source, std::uint32_t point) {
    if (range < 0) {
      cands.push_back({t, m, source, point});
      return;
    }
    if (prefixMin(t) > m) store(t, m, source, point);
  }

  // The dense slot of overhead t takes (m, origin) when m is below what it holds.
  void keepIfBetter(std::int64_t t, std::int64_t m, std::uint32_t source, std::uint32_t point) {
    auto& slot = bestM[static_cast<std::size_t>(t)];
    if (m >= slot) return;
    if (slot == INT64_MAX) touched.push_back(t);
    slot = m;
    from[static_cast<std::size_t>(t)] = (std::uint64_t{source} << 32) | point;
    dirtyFrom = std::min(dirtyFrom, t);
    highest = std::max(highest, t);
    ++changes;
  }

  // The Pareto front of the candidates, by t ascending and m strictly descending; the builder is then
  // ready for the next set.
  std::vector<Point> finish() {
    std::vector<Point> front;
    finishInto(front);
    return front;
  }

  // The same into `front` (cleared first; its room is kept).
  void finishInto(std::vector<Point>& front) {
    front.clear();
    std::int64_t lowestM = INT64_MAX;
    if (bucketed()) {
      finishBuckets(front);
      return;
    }
    if (range >= 0) {
      auto visit = [&](std::int64_t t) {
        auto& slot = bestM[static_cast<std::size_t>(t)];
        const std::uint64_t origin = from[static_cast<std::size_t>(t)];
        if (slot < lowestM) {
          lowestM = slot;
          front.push_back({t, slot, static_cast<std::uint32_t>(origin >> 32), static_cast<std::uint32_t>(origin)});
        }
        slot = INT64_MAX;
      };
      // The touched overheads in order: a scan of their span where they fill an eighth of it or more
      // (deep graphs' fronts are dense), else a sort of the list.
      const std::int64_t lowest = touched.empty() ? 0 : *std::min_element(touched.begin(), touched.end());
      if (!touched.empty() && highest - lowest < 8 * static_cast<std::int64_t>(touched.size())) {
        for (std::int64_t t = lowest; t <= highest; ++t)
          if (bestM[static_cast<std::size_t>(t)] != INT64_MAX) visit(t);
      } else {
        std::sort(touched.begin(), touched.end());
        for (std::int64_t t : touched) visit(t);
      }
      touched.clear();
      return;
    }
    std::sort(cands.begin(), cands.end(), [](const Point& a, const Point& b) { return byPoint(a, b); });
    for (const Point& c : cands)
      if (c.m < lowestM) {
        lowestM = c.m;
        front.push_back(c);
      }
  }

  // The bucketed finish: the candidates in bucket order (a counting sort over the touched buckets, in
  // `from`), each bucket's sorted on its own, then the sweep. The same order as one sort of them all,
  // since a bucket holds a range of overheads, for a fraction of the comparisons.
  void finishBuckets(std::vector<Point>& front) {
    std::sort(touched.begin(), touched.end());
    for (std::int64_t b : touched) from[static_cast<std::size_t>(b)] = 0;
    for (const Point& c : cands) ++from[static_cast<std::size_t>(c.t >> shift)];
    std::uint64_t offset = 0;
    for (std::int64_t b : touched) {
      const std::uint64_t count = from[static_cast<std::size_t>(b)];
      from[static_cast<std::size_t>(b)] = offset;
      offset += count;
    }
    ordered.resize(cands.size());
    for (const Point& c : cands) ordered[from[static_cast<std::size_t>(c.t >> shift)]++] = c;
    std::int64_t lowestM = INT64_MAX;
    auto first = ordered.begin();
    for (std::int64_t b : touched) {
      // After the placement, from[b] is the end of bucket b's slice.
      const auto last = ordered.begin() + static_cast<std::ptrdiff_t>(from[static_cast<std::size_t>(b)]);
      std::sort(first, last, [](const Point& x, const Point& y) { return byPoint(x, y); });
      for (auto c = first; c != last; ++c)
        if (c->m < lowestM) {
          lowestM = c->m;
          front.push_back(*c);
        }
      first = last;
      bestM[static_cast<std::size_t>(b)] = INT64_MAX;
    }
    touched.clear();
  }

  // Of equal points, the one from the larger source comes first, as in the dense path (sources are
  // added largest first, and the first of equal points stays).
  static bool byPoint(const Point& a, const Point& b) {
    if (a.t != b.t) return a.t < b.t;
    if (a.m != b.m) return a.m < b.m;
    return linkOf(a) > linkOf(b);
  }
};

// The Pareto front of the union of several fronts (each by t ascending, m strictly descending), merged
// pairwise through two scratch vectors that keep their room from set to set: fresh ones for every set
// of a deep graph cost more in page faults than the merge. The result has its exact size (it is kept).
template <class Point>
std::vector<Point> mergeFronts(const std::vector<std::vector<Point>>& parts, std::vector<Point>& scratch,
                               std::vector<Point>& spare) {
  scratch.assign(parts[0].begin(), parts[0].end());
  for (std::size_t k = 1; k < parts.size(); ++k) {
    spare.clear();
    auto a = scratch.begin();
    auto b = parts[k].begin();
    // The first of equal points stays (FrontBuilder::byPoint's order); a point stays when its m is
    // below the last kept one's.
    auto keep = [&spare](const Point& c) {
      if (spare.empty() || c.m < spare.back().m) spare.push_back(c);
    };
    while (a != scratch.end() && b != parts[k].end()) keep(FrontBuilder<Point>::byPoint(*b, *a) ? *b++ : *a++);
    for (; a != scratch.end(); ++a) keep(*a);
    for (; b != parts[k].end(); ++b) keep(*b);
    std::swap(scratch, spare);
  }
  return {scratch.begin(), scratch.end()};
}

// Builds the fronts of the sets of one layer. build(j, builder, shard, shards) adds to a fresh builder
// the candidates of set j from every shards-th source, starting at `shard`, or returns false when j can
// have no front; store(j, front) takes the result. The sets of a wide layer run one per thread. A
// narrow layer (deep graphs have one set per size) runs its sets in turn, each with its sources shared
// among the threads when there are enough of them, and the threads' fronts merged. Both the forward DP
// and the backward trade-off DP run their layers through it.
template <class Point>
class LayerScheduler {
 public:
  explicit LayerScheduler(unsigned threads) : m_threads(threads), m_builders(threads), m_parts(threads) {}

  /// False when halt() said stop (checked before each set); the layer is then incomplete.
  template <class Build, class Store, class Halt>
  bool run(std::size_t begin, std::size_t end, std::size_t sources, Build&& build, Store&& store, Halt&& halt) {
    if (end - begin >= m_threads) {
      std::atomic<bool> stopped{false};
      parallelOver(begin, end, m_threads, [&](std::size_t j, unsigned w) {
        if (stopped.load(std::memory_order_relaxed)) return;
        if (halt()) {
          stopped = true;
          return;
        }
        if (build(j, m_builders[w], 0U, 1U)) store(j, m_builders[w].finish());
      });
      return !stopped && !halt();
    }
    for (std::size_t j = begin; j < end; ++j) {
      if (halt()) return false;
      if (m_threads == 1 || sources < kShardSources) {
        if (build(j, m_builders[0], 0U, 1U)) store(j, m_builders[0].finish());
        continue;
      }
      if (!m_pool) m_pool.emplace(m_threads);  // started on the first set worth sharing
      std::atomic<bool> wanted{false};         // every shard answers alike
      m_pool->run([&](unsigned w) {
        m_parts[w].clear();
        if (!build(j, m_builders[w], w, m_threads)) return;
        m_builders[w].finishInto(m_parts[w]);
        wanted = true;
      });
      if (wanted) store(j, mergeFronts(m_parts, m_scratch, m_spare));
    }
    return !halt();
  }

 private:
  unsigned m_threads;
  std::vector<FrontBuilder<Point>> m_builders;
  std::vector<std::vector<Point>> m_parts;
  std::vector<Point> m_scratch, m_spare;
  std::optional<ShardPool> m_pool;
};

}  // namespace remat::solvers::dp_detail
