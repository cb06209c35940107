#include "remat/solvers/ParetoDp.hpp"

#include <algorithm>
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
  const auto ls = layers(f);
  const unsigned workers = threadCount(threads);
  // Largest sets first: a set's continuations go through strictly larger sets only.
  for (std::size_t k = ls.size(); k-- > 0;) {
    const auto [begin, end] = ls[k];
    const std::size_t supersetsFrom = end;
    parallelOver(begin, end, workers, [&](std::size_t i, unsigned) {
      if (i == n - 1) return;
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
    });
    if (stop.stop_requested()) return std::nullopt;
  }
  // ∅ is layer-less (index 0): its continuations are every other set.
  {
    std::int64_t peak = INT64_MAX;
    std::int64_t overhead = INT64_MAX;
    std::int64_t checkpoints = INT64_MAX;
    for (std::size_t j = 1; j < n; ++j) {
      const Step s = transitionStep(f, 0, j);
      peak = std::min(peak, std::max(transitionBase(f, 0, j), saturatingAdd(s.dm, b.minPeak[j])));
      overhead = std::min(overhead, saturatingAdd(s.dt, b.minOverhead[j]));
      checkpoints = std::min(checkpoints, saturatingAdd(s.dm, b.minCheckpoints[j]));
    }
    b.minPeak[0] = peak;
    b.minOverhead[0] = overhead;
    b.minCheckpoints[0] = checkpoints;
  }
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
    parallelOver(begin, end, threads, [&](std::size_t j, unsigned w) { body(j, begin, w); });
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
