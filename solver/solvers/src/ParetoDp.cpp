#include "remat/solvers/ParetoDp.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <atomic>
#include <thread>

namespace remat::solvers {

std::int64_t saturatingAdd(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (!__builtin_add_overflow(a, b, &out)) return out;
  return a > 0 ? INT64_MAX : INT64_MIN;
}

std::int64_t transitionBase(const LowerSetFamily& f, std::size_t i, std::size_t j) {
  const std::int64_t segment = f.bytes(j) - f.bytes(i);
  return saturatingAdd(saturatingAdd(segment, segment), f.frontierBytes(j));
}

namespace {

bool hasBit(const LowerSetFamily& f, std::size_t set, std::uint32_t op) {
  return (f.words(set)[op >> 6] >> (op & 63)) & 1U;
}

// What the transition L_i -> L_j adds: dt = T((L_j \ L_i) \ ∂L_j) and dm = M(∂L_j \ L_i). Only the
// boundary members of L_j that L_i already holds need a look, and ∂L_j is small.
struct Step {
  std::int64_t dt;
  std::int64_t dm;
};
Step transitionStep(const LowerSetFamily& f, std::size_t i, std::size_t j) {
  std::int64_t insideT = 0;
  std::int64_t insideM = 0;
  for (const auto& b : f.boundary(j))
    if (hasBit(f, i, b.op)) {
      insideT += b.time;
      insideM += b.bytes;
    }
  return {(f.time(j) - f.time(i)) - (f.boundaryTime(j) - insideT), f.boundaryBytes(j) - insideM};
}

unsigned threadCount(unsigned requested) {
  if (requested > 0) return requested;
  return std::max(1U, std::thread::hardware_concurrency());
}

// The families' size layers: [begin, end) ranges of sets of equal size, ∅ excluded.
std::vector<std::pair<std::size_t, std::size_t>> layers(const LowerSetFamily& f) {
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

}  // namespace

std::optional<ContinuationBounds> continuationBounds(const LowerSetFamily& f, std::stop_token stop, unsigned threads) {
  const std::size_t n = f.size();
  ContinuationBounds b;
  b.minPeak.assign(n, INT64_MAX);
  b.minOverhead.assign(n, INT64_MAX);
  b.minCheckpoints.assign(n, INT64_MAX);
  b.minPeak[n - 1] = INT64_MIN;
  b.minOverhead[n - 1] = 0;
  b.minCheckpoints[n - 1] = 0;
  // For set i, the best continuation through each strictly larger set j (those from `supersetsFrom`).
  auto boundsOf = [&](std::size_t i, std::size_t supersetsFrom) {
    std::int64_t peak = INT64_MAX;
    std::int64_t overhead = INT64_MAX;
    std::int64_t checkpoints = INT64_MAX;
    for (std::size_t j = supersetsFrom; j < n; ++j) {
      if (!f.subset(i, j)) continue;
      const Step s = transitionStep(f, i, j);
      peak = std::min(peak, std::max(transitionBase(f, i, j), saturatingAdd(s.dm, b.minPeak[j])));
      overhead = std::min(overhead, saturatingAdd(s.dt, b.minOverhead[j]));
      checkpoints = std::min(checkpoints, saturatingAdd(s.dm, b.minCheckpoints[j]));
    }
    b.minPeak[i] = peak;
    b.minOverhead[i] = overhead;
    b.minCheckpoints[i] = checkpoints;
  };
  const auto ls = layers(f);
  const unsigned workers = threadCount(threads);
  // Largest sets first: a set's continuations go through strictly larger sets only.
  for (std::size_t k = ls.size(); k-- > 0;) {
    const auto [begin, end] = ls[k];
    parallelOver(begin, end, workers, [&, end = end](std::size_t i, unsigned) {
      if (i != n - 1 && !stop.stop_requested()) boundsOf(i, end);  // a stop is honoured within one set's work
    });
    if (stop.stop_requested()) return std::nullopt;
  }
  boundsOf(0, 1);  // ∅, which no layer holds
  return b;
}

namespace {

// Per-thread scratch of the forward DP. Candidates for one set's front are merged either in a dense
// array indexed by overhead (when the overhead range is small, as with the paper's integer costs) or,
// for wide ranges, by sorting.
struct FrontBuilder {
  static constexpr std::int64_t kDenseLimit = std::int64_t{1} << 18;
  std::vector<std::int64_t> bestM;
  std::vector<std::uint64_t> from;  // (set << 32) | point
  std::vector<std::int64_t> touched;
  std::vector<DpPoint> cands;
  std::int64_t range = -1;  // dense when >= 0: overheads 0..range

  void begin(std::int64_t tMax) {
    cands.clear();
    range = tMax >= 0 && tMax < kDenseLimit ? tMax : -1;
    if (range >= 0 && static_cast<std::int64_t>(bestM.size()) <= range) {
      bestM.resize(static_cast<std::size_t>(range) + 1, INT64_MAX);
      from.resize(static_cast<std::size_t>(range) + 1);
    }
  }
  void add(std::int64_t t, std::int64_t m, std::uint32_t set, std::uint32_t point) {
    if (range < 0) {
      cands.push_back({t, m, set, point});
      return;
    }
    auto& slot = bestM[static_cast<std::size_t>(t)];
    if (m >= slot) return;
    if (slot == INT64_MAX) touched.push_back(t);
    slot = m;
    from[static_cast<std::size_t>(t)] = (std::uint64_t{set} << 32) | point;
  }
  std::vector<DpPoint> finish() {
    std::vector<DpPoint> front;
    if (range >= 0) {
      std::sort(touched.begin(), touched.end());
      for (std::int64_t t : touched) {
        auto& slot = bestM[static_cast<std::size_t>(t)];
        const std::uint64_t origin = from[static_cast<std::size_t>(t)];
        if (front.empty() || slot < front.back().m)
          front.push_back({t, slot, static_cast<std::uint32_t>(origin >> 32), static_cast<std::uint32_t>(origin)});
        slot = INT64_MAX;
      }
      touched.clear();
      return front;
    }
    std::sort(cands.begin(), cands.end(),
              [](const DpPoint& a, const DpPoint& b) { return a.t != b.t ? a.t < b.t : a.m < b.m; });
    for (const DpPoint& c : cands)
      if (front.empty() || c.m < front.back().m) front.push_back(c);
    return front;
  }
};

}  // namespace

DpRun runParetoDp(const LowerSetFamily& f, const DpOptions& o) {
  const std::size_t n = f.size();
  DpRun run;
  run.fronts.resize(n);
  run.fronts[0] = {DpPoint{0, 0, 0, 0}};
  run.processed = 1;
  const unsigned threads = threadCount(o.threads);
  std::vector<FrontBuilder> builders(threads);
  std::atomic<std::size_t> points{1};
  std::atomic<bool> stopped{false};
  const ContinuationBounds* bounds = o.bounds;

  auto body = [&](std::size_t j, std::size_t layerBegin, unsigned worker) {
    if (stopped.load(std::memory_order_relaxed)) return;
    if (o.stop.stop_requested() || (o.deadline && std::chrono::steady_clock::now() > *o.deadline)) {
      stopped = true;
      return;
    }
    // Limits on a point arriving at j: it must leave room for some continuation within the budget,
    // and (with an incumbent) be able to finish no worse than it.
    std::int64_t mMax = INT64_MAX;
    std::int64_t tMax = f.time(j);  // no set can have recomputed more than its own forward time
    if (bounds && bounds->minPeak[j] != INT64_MIN) {
      if (bounds->minPeak[j] > o.budget) return;  // nothing that reaches j can finish within the budget
      mMax = o.budget - bounds->minPeak[j];
    }
    if (bounds && o.incumbent) {
      if (o.strategy == Strategy::Memory) mMax = std::min(mMax, *o.incumbent - bounds->minCheckpoints[j]);
      else tMax = std::min(tMax, *o.incumbent - bounds->minOverhead[j]);
    }
    if (tMax < 0 || mMax < 0) return;
    FrontBuilder& builder = builders[worker];
    builder.begin(tMax);
    for (std::size_t i = 0; i < layerBegin; ++i) {
      const std::vector<DpPoint>& source = run.fronts[i];
      if (source.empty() || !f.subset(i, j)) continue;
      const std::int64_t base = transitionBase(f, i, j);
      if (base > o.budget) continue;
      const Step s = transitionStep(f, i, j);
      // Fronts run by t ascending and m descending: the points within both limits are a contiguous run.
      const std::int64_t mCap = std::min(o.budget - base, mMax - s.dm);
      const std::int64_t tCap = tMax - s.dt;
      auto first = std::partition_point(source.begin(), source.end(), [mCap](const DpPoint& p) { return p.m > mCap; });
      for (auto p = first; p != source.end() && p->t <= tCap; ++p)
        builder.add(p->t + s.dt, p->m + s.dm, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(p - source.begin()));
    }
    std::vector<DpPoint> front = builder.finish();
    points += front.size();
    run.fronts[j] = std::move(front);
  };

  for (const auto& [begin, end] : layers(f)) {
    const std::size_t layerBegin = begin;  // a plain copy: clang 14 cannot capture structured bindings
    parallelOver(begin, end, threads, [&](std::size_t j, unsigned w) { body(j, layerBegin, w); });
    if (stopped || o.stop.stop_requested() || (o.deadline && std::chrono::steady_clock::now() > *o.deadline)) {
      run.outcome = o.stop.stop_requested() ? DpOutcome::Cancelled : DpOutcome::TimeLimit;
      break;
    }
    run.processed = end;
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

std::optional<std::int64_t> leastFeasibleBudget(const LowerSetFamily& f, std::stop_token stop) {
  // From ∅ with nothing kept, the least peak over all continuations is the least feasible budget.
  auto bounds = continuationBounds(f, stop);
  if (!bounds) return std::nullopt;
  return bounds->minPeak[0];
}

std::optional<GreedyPath> greedyPath(const LowerSetFamily& f, const ContinuationBounds& bounds, std::int64_t budget,
                                     Strategy strategy) {
  const std::size_t n = f.size();
  if (bounds.minPeak[0] > budget) return std::nullopt;
  GreedyPath out;
  std::size_t at = 0;
  std::int64_t t = 0;
  std::int64_t m = 0;
  while (at != n - 1) {
    std::size_t best = n;
    std::int64_t bestScore = INT64_MAX;
    std::int64_t bestT = 0;
    std::int64_t bestM = 0;
    for (std::size_t j = at + 1; j < n; ++j) {
      if (f.count(j) == f.count(at) || !f.subset(at, j)) continue;
      if (saturatingAdd(m, transitionBase(f, at, j)) > budget) continue;
      const Step s = transitionStep(f, at, j);
      const std::int64_t nt = t + s.dt;
      const std::int64_t nm = m + s.dm;
      // Stay where some continuation still fits, so the walk always reaches V.
      if (j != n - 1 && saturatingAdd(nm, bounds.minPeak[j]) > budget) continue;
      const std::int64_t score = strategy == Strategy::Memory ? saturatingAdd(nm, bounds.minCheckpoints[j])
                                                              : saturatingAdd(nt, bounds.minOverhead[j]);
      if (score < bestScore || (score == bestScore && (strategy == Strategy::Memory ? nt < bestT : nm < bestM))) {
        best = j;
        bestScore = score;
        bestT = nt;
        bestM = nm;
      }
    }
    if (best == n) return std::nullopt;  // cannot happen when the bounds are exact; kept as a guard
    out.path.push_back(best);
    at = best;
    t = bestT;
    m = bestM;
  }
  out.overhead = t;
  out.checkpoints = m;
  return out;
}

}  // namespace remat::solvers

namespace remat::solvers {

namespace {

struct Point3 {
  std::int64_t t;
  std::int64_t m;
  std::int64_t peak;
  std::uint32_t prevSet;
  std::uint32_t prevPoint;
};

// Keeps the candidates no other candidate dominates in (t, m, peak): sorted by t, then a staircase over
// (m, peak) of the points kept so far answers "is there one with m' <= m and peak' <= peak".
std::vector<Point3> paretoFront3(std::vector<Point3>& cands) {
  std::sort(cands.begin(), cands.end(), [](const Point3& a, const Point3& b) {
    if (a.t != b.t) return a.t < b.t;
    if (a.m != b.m) return a.m < b.m;
    return a.peak < b.peak;
  });
  std::vector<Point3> out;
  std::map<std::int64_t, std::int64_t> stair;  // m -> peak, peaks strictly falling as m grows
  for (const Point3& c : cands) {
    auto it = stair.upper_bound(c.m);
    if (it != stair.begin() && std::prev(it)->second <= c.peak) continue;  // dominated
    out.push_back(c);
    // Drop staircase entries the new point dominates (m'' >= m and peak'' >= peak).
    auto from = stair.lower_bound(c.m);
    auto to = from;
    while (to != stair.end() && to->second >= c.peak) ++to;
    stair.erase(from, to);
    stair[c.m] = c.peak;
  }
  return out;
}

}  // namespace

TradeOffRun tradeOffFront(const LowerSetFamily& f, const ContinuationBounds& bounds, const DpOptions& o) {
  const std::size_t n = f.size();
  TradeOffRun result;
  std::vector<std::vector<Point3>> fronts(n);
  fronts[0] = {Point3{0, 0, 0, 0, 0}};
  const unsigned threads = threadCount(o.threads);
  std::vector<std::vector<Point3>> scratch(threads);
  std::atomic<bool> stopped{false};
  std::atomic<std::size_t> points{1};

  // Complete plans found so far would prune, but V comes last; the greedy walks at a few budgets
  // give complete plans up front: (peak, t) pairs any kept point must be able to beat.
  std::vector<std::pair<std::int64_t, std::int64_t>> known;
  for (int k = 0; k <= 16; ++k) {
    const std::int64_t least = bounds.minPeak[0];
    const std::int64_t budget = saturatingAdd(least, (least / 8) * k);
    if (auto g = greedyPath(f, bounds, budget, Strategy::Time)) known.emplace_back(budget, g->overhead);
  }
  auto dominatedByKnown = [&](std::int64_t peak, std::int64_t t) {
    for (const auto& [kp, kt] : known)
      if (kp <= peak && kt <= t && (kp < peak || kt < t)) return true;
    return false;
  };

  for (const auto& [begin, end] : layers(f)) {
    const std::size_t layerBegin = begin;
    parallelOver(begin, end, threads, [&](std::size_t j, unsigned worker) {
      if (stopped.load(std::memory_order_relaxed)) return;
      if (o.stop.stop_requested() || (o.deadline && std::chrono::steady_clock::now() > *o.deadline)) {
        stopped = true;
        return;
      }
      std::vector<Point3>& cands = scratch[worker];
      cands.clear();
      const std::int64_t restPeak = bounds.minPeak[j];
      const std::int64_t restT = bounds.minOverhead[j];
      for (std::size_t i = 0; i < layerBegin; ++i) {
        const auto& source = fronts[i];
        if (source.empty() || !f.subset(i, j)) continue;
        const std::int64_t base = transitionBase(f, i, j);
        const Step s = transitionStep(f, i, j);
        for (std::size_t k = 0; k < source.size(); ++k) {
          const Point3& p = source[k];
          const std::int64_t peak = std::max(p.peak, saturatingAdd(p.m, base));
          const std::int64_t t = p.t + s.dt;
          const std::int64_t m = p.m + s.dm;
          const std::int64_t finalPeak = restPeak == INT64_MIN ? peak : std::max(peak, saturatingAdd(m, restPeak));
          if (dominatedByKnown(finalPeak, t + restT)) continue;
          cands.push_back({t, m, peak, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(k)});
        }
      }
      fronts[j] = paretoFront3(cands);
      points += fronts[j].size();
    });
    if (stopped) {
      result.outcome = o.stop.stop_requested() ? DpOutcome::Cancelled : DpOutcome::TimeLimit;
      return result;
    }
    if (o.progress) o.progress(double(end) / double(n), "budget/overhead front");
    if (points > o.maxPoints) {
      result.outcome = DpOutcome::MemoryLimit;
      return result;
    }
  }
  // V's points projected on (peak, t): keep the staircase.
  std::vector<std::size_t> order(fronts[n - 1].size());
  std::iota(order.begin(), order.end(), 0);
  const auto& last = fronts[n - 1];
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return last[a].peak != last[b].peak ? last[a].peak < last[b].peak : last[a].t < last[b].t;
  });
  for (std::size_t idx : order) {
    if (!result.front.empty() && last[idx].t >= result.front.back().overhead) continue;
    TradeOffPoint point{last[idx].peak, last[idx].t, {}};
    std::size_t set = n - 1;
    std::size_t at = idx;
    while (set != 0) {
      point.path.push_back(set);
      const Point3& p = fronts[set][at];
      set = p.prevSet;
      at = p.prevPoint;
    }
    std::reverse(point.path.begin(), point.path.end());
    result.front.push_back(std::move(point));
  }
  return result;
}

}  // namespace remat::solvers
