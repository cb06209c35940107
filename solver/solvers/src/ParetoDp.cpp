#include "remat/solvers/ParetoDp.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

namespace remat::solvers {
namespace {

bool hasBit(const LowerSetFamily& f, std::size_t set, std::uint32_t op) {
  return (f.words(set)[op >> 6] >> (op & 63)) & 1U;
}

}  // namespace

std::int64_t saturatingAdd(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  return __builtin_add_overflow(a, b, &out) ? INT64_MAX : out;
}

std::int64_t transitionBase(const LowerSetFamily& f, std::size_t i, std::size_t j) {
  const std::int64_t segment = f.bytes(j) - f.bytes(i);
  return saturatingAdd(saturatingAdd(segment, segment), f.frontierBytes(j));
}

namespace {

// T and M of ∂(L') ∩ L: the boundary members of L' that were already in L.
std::pair<std::int64_t, std::int64_t> boundaryInside(const LowerSetFamily& f, std::size_t i, std::size_t j) {
  std::int64_t t = 0;
  std::int64_t m = 0;
  for (const auto& b : f.boundary(j))
    if (hasBit(f, i, b.op)) {
      t += b.time;
      m += b.bytes;
    }
  return {t, m};
}

// Runs body(j) for every set of each size layer, the sets of one layer spread over threads (none of
// them contains another, so they read only finished fronts). `between` runs after each layer and may
// stop the pass by returning false.
template <class Body, class Between>
void forEachLayer(const LowerSetFamily& f, unsigned threads, Body&& body, Between&& between) {
  const std::size_t n = f.size();
  std::size_t begin = 1;
  while (begin < n) {
    std::size_t end = begin;
    while (end < n && f.count(end) == f.count(begin)) ++end;
    const std::size_t width = end - begin;
    const unsigned workers = static_cast<unsigned>(std::min<std::size_t>(threads, width));
    if (workers <= 1) {
      for (std::size_t j = begin; j < end; ++j) body(j, begin, 0U);
    } else {
      std::atomic<std::size_t> next{begin};
      std::vector<std::jthread> pool;
      for (unsigned w = 0; w < workers; ++w)
        pool.emplace_back([&, w] {
          for (std::size_t j = next++; j < end; j = next++) body(j, begin, w);
        });
    }
    if (!between(end)) return;
    begin = end;
  }
}

unsigned threadCount(unsigned requested) {
  if (requested > 0) return requested;
  return std::max(1U, std::thread::hardware_concurrency());
}

}  // namespace

DpRun runParetoDp(const LowerSetFamily& f, const DpOptions& o) {
  const std::size_t n = f.size();
  DpRun run;
  run.fronts.resize(n);
  run.fronts[0] = {DpPoint{0, 0, 0, 0}};
  run.processed = 1;
  run.points = 1;
  const unsigned threads = threadCount(o.threads);
  std::vector<std::vector<DpPoint>> scratch(threads);
  std::atomic<std::size_t> points{1};

  auto body = [&](std::size_t j, std::size_t layerBegin, unsigned worker) {
    std::vector<DpPoint>& cands = scratch[worker];
    cands.clear();
    for (std::size_t i = 0; i < layerBegin; ++i) {
      const std::vector<DpPoint>& from = run.fronts[i];
      if (from.empty() || !f.subset(i, j)) continue;
      const std::int64_t base = transitionBase(f, i, j);
      if (base > o.budget) continue;
      const std::int64_t cap = o.budget - base;
      // Fronts are sorted by m descending: the points that fit are a suffix.
      auto first = std::partition_point(from.begin(), from.end(), [cap](const DpPoint& p) { return p.m > cap; });
      if (first == from.end()) continue;
      const auto [insideT, insideM] = boundaryInside(f, i, j);
      const std::int64_t dt = (f.time(j) - f.time(i)) - (f.boundaryTime(j) - insideT);
      const std::int64_t dm = f.boundaryBytes(j) - insideM;
      for (auto p = first; p != from.end(); ++p)
        cands.push_back({p->t + dt, p->m + dm, static_cast<std::uint32_t>(i),
                         static_cast<std::uint32_t>(p - from.begin())});
    }
    std::sort(cands.begin(), cands.end(),
              [](const DpPoint& a, const DpPoint& b) { return a.t != b.t ? a.t < b.t : a.m < b.m; });
    std::vector<DpPoint> front;
    for (const DpPoint& c : cands)
      if (front.empty() || c.m < front.back().m) front.push_back(c);
    points += front.size();
    run.fronts[j] = std::move(front);
  };
  auto between = [&](std::size_t end) {
    run.processed = end;
    if (o.progress) o.progress(double(end) / double(n), "exact DP over lower sets");
    if (o.stop.stop_requested()) {
      run.outcome = DpOutcome::Cancelled;
      return false;
    }
    if (o.deadline && std::chrono::steady_clock::now() > *o.deadline) {
      run.outcome = DpOutcome::TimeLimit;
      return false;
    }
    if (points > o.maxPoints) {
      run.outcome = DpOutcome::MemoryLimit;
      return false;
    }
    return true;
  };
  forEachLayer(f, threads, body, between);
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

std::optional<std::int64_t> leastFeasibleBudget(const LowerSetFamily& f, std::stop_token stop,
                                                const ProgressSink& progress) {
  // Per set, the Pareto front of (m, peak): checkpoint memory so far and the highest model term so far,
  // sorted by m ascending with peak strictly descending.
  struct Point {
    std::int64_t m;
    std::int64_t peak;
  };
  const std::size_t n = f.size();
  std::vector<std::vector<Point>> fronts(n);
  fronts[0] = {Point{0, 0}};
  const unsigned threads = threadCount(0);
  std::vector<std::vector<Point>> scratch(threads);
  bool stopped = false;
  auto body = [&](std::size_t j, std::size_t layerBegin, unsigned worker) {
    std::vector<Point>& cands = scratch[worker];
    cands.clear();
    for (std::size_t i = 0; i < layerBegin; ++i) {
      if (fronts[i].empty() || !f.subset(i, j)) continue;
      const std::int64_t base = transitionBase(f, i, j);
      const std::int64_t dm = f.boundaryBytes(j) - boundaryInside(f, i, j).second;
      for (const Point& p : fronts[i]) {
        const std::int64_t peak = std::max(p.peak, saturatingAdd(p.m, base));
        cands.push_back({p.m + dm, peak});
      }
    }
    std::sort(cands.begin(), cands.end(),
              [](const Point& a, const Point& b) { return a.m != b.m ? a.m < b.m : a.peak < b.peak; });
    std::vector<Point> front;
    for (const Point& c : cands)
      if (front.empty() || c.peak < front.back().peak) front.push_back(c);
    fronts[j] = std::move(front);
  };
  auto between = [&](std::size_t end) {
    if (progress) progress(double(end) / double(n), "least feasible budget");
    if (stop.stop_requested()) {
      stopped = true;
      return false;
    }
    return true;
  };
  forEachLayer(f, threads, body, between);
  if (stopped) return std::nullopt;
  std::int64_t best = INT64_MAX;
  for (const Point& p : fronts[n - 1]) best = std::min(best, p.peak);
  return best;
}

}  // namespace remat::solvers
