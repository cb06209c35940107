// The bounds the DP prunes with: every lower set's least peak, overhead and checkpoint memory still to
// come (one backward pass), the Lagrangian bounds under a budget, the exact least peak, and the greedy
// walk that gives the first incumbent (ParetoDp.hpp documents each).

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

using dp_detail::forEachSet;
using dp_detail::kShardSources;
using dp_detail::layers;
using dp_detail::parallelOver;
using dp_detail::ShardPool;
using dp_detail::threadCount;

namespace {

// Entries of the Lagrangian bounds at most (8 bytes each), so that families of millions of sets get
// fewer multipliers rather than gigabytes; the time-centric grids have kLambdas multipliers besides 0.
constexpr std::size_t kBoundEntries = std::size_t{1} << 23;
constexpr std::size_t kLambdas = 32;
// Candidate steps per set whose exact base the bounds pass simulates for the least peak.
constexpr std::size_t kRefine = 8;

// Multipliers the bounds of f may use besides λ = 0.
std::size_t lambdaRoom(const LowerSetFamily& f) {
  const std::size_t perSet = kBoundEntries / f.size();
  return perSet > 1 ? perSet - 1 : 0;
}

// The coarse grid: `count` multipliers spread geometrically from 2^-10 to 2^4 times T(V) / budget
// (ticks per byte). The best multiplier is where a byte more of checkpoints saves as much recomputation
// as it costs; on the paper's graphs and deep chains it lies well below T(V) / budget, hence the skew.
std::vector<double> coarseLambdas(const LowerSetFamily& f, std::int64_t budget, std::size_t count) {
  std::vector<double> out;
  const double scale =
      double(std::max<std::int64_t>(1, f.time(f.size() - 1))) / double(std::max<std::int64_t>(1, budget));
  for (std::size_t k = 0; k < count; ++k) out.push_back(scale * std::exp2(-10.0 + 14.0 * double(k) / double(count)));
  return out;
}

// λ = 0 and, for the time-centric objective, the target's multipliers or the coarse grid, at most as
// many as the family has room for (the finest part of a refined grid is kept first: it comes first).
std::vector<double> lambdaGrid(const LowerSetFamily& f, const BoundTarget& target) {
  std::vector<double> out{0.0};
  if (target.strategy == Strategy::Memory) return out;  // the objective is the relaxed resource itself
  const std::size_t room = lambdaRoom(f);
  std::vector<double> grid =
      target.lambdas.empty() ? coarseLambdas(f, target.budget, std::min(kLambdas, room)) : target.lambdas;
  if (grid.size() > room) grid.resize(room);
  std::sort(grid.begin(), grid.end());
  out.insert(out.end(), grid.begin(), grid.end());
  return out;
}

// mine[k] = min(mine[k], value + lambdas[k] dm + theirs[k]) for every multiplier: the inner loop of
// the bounds pass, built for AVX2 as well where the processor has it (four doubles per instruction).
#if defined(__x86_64__) && defined(__ELF__)
#define REMAT_AVX2_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define REMAT_AVX2_CLONES
#endif
REMAT_AVX2_CLONES void relaxPaths(double* mine, const double* theirs, const double* lambdas, double value, double dm,
                                  std::size_t count) {
  for (std::size_t k = 0; k < count; ++k) mine[k] = std::min(mine[k], value + lambdas[k] * dm + theirs[k]);
}

}  // namespace

std::int64_t ContinuationBounds::remaining(std::size_t i, std::int64_t m) const {
  if (lambdas.empty()) return strategy == Strategy::Memory ? minCheckpoints[i] : minOverhead[i];
  const std::size_t count = lambdas.size();
  const double* h = paths.data() + i * count;
  if (!std::isfinite(h[0])) return INT64_MAX;
  const double room = double(budget - m);
  double best = h[0];
  for (std::size_t k = 1; k < count; ++k) best = std::max(best, h[k] - lambdas[k] * room);
  // The objective is an integer at least `best`; the margin covers the rounding of the sums.
  const double margin = 1e-9 * std::abs(best) + 1e-6;
  return std::max<std::int64_t>(0, static_cast<std::int64_t>(std::ceil(best - margin)));
}

std::optional<ContinuationBounds> continuationBounds(const LowerSetFamily& f, TimeLimit* stop, unsigned threads,
                                                     std::optional<BoundTarget> target) {
  const std::size_t n = f.size();
  ContinuationBounds b;
  b.minPeak.assign(n, INT64_MAX);
  b.minOverhead.assign(n, INT64_MAX);
  b.minCheckpoints.assign(n, INT64_MAX);
  b.minPeak[n - 1] = INT64_MIN;
  b.minOverhead[n - 1] = 0;
  b.minCheckpoints[n - 1] = 0;
  if (target && target->budget >= 0 && target->budget != INT64_MAX) {
    b.budget = target->budget;
    b.strategy = target->strategy;
    b.lambdas = lambdaGrid(f, *target);
    b.paths.assign(n * b.lambdas.size(), std::numeric_limits<double>::infinity());
    std::fill_n(b.paths.begin() + static_cast<std::ptrdiff_t>((n - 1) * b.lambdas.size()), b.lambdas.size(), 0.0);
  }
  if (target) b.overheadCap = target->overheadCap;
  const std::int64_t cap = b.overheadCap;
  const std::size_t count = b.lambdas.size();
  const std::int64_t budget = b.budget;
  const bool memoryObjective = b.strategy == Strategy::Memory;
  // For the sets [first, last) of one layer, the best continuation through each strictly larger set j
  // (those from `supersetsFrom`). The sets go in blocks, so that a superset's path bounds (a row of
  // `count` doubles) are read once for the whole block: reading them once per pair made the pass
  // bound by memory traffic, not arithmetic (cg_googlenet: 121M pairs of 27,358 sets).
  constexpr std::size_t kBlock = 16;
  // In the simulator's model the least peaks are refined by simulating a few candidate steps per set
  // (below; docs/dp.md). Not on ancestor closures: on deep graphs their segments run to thousands of
  // ops and their sets have few sources, so the simulations cost more than they spare (the 10,000-op
  // graph: the pass took twice as long, the DP kept as many points).
  const bool refine = !f.quickIsExact() && !f.isClosures();
  // With a budget, refined only where the quick bound plus the most checkpoint memory the set can hold
  // (its own values) already exceeds the budget, where a higher least peak is likely to prune; elsewhere
  // the quick bound stands, weaker but still a bound. Without a target (the least budget is sought),
  // everywhere.
  const std::int64_t refineAbove = target ? b.budget : INT64_MIN;
  // What a block of sets learns from some of their supersets: per set (by its place k in the block),
  // the least peak, overhead and checkpoint memory through them and, where least peaks are refined,
  // its lowest candidates (bound, superset): the quick base is a lower bound, and simulating the few
  // steps that could give the least peak makes that peak exact, or nearly, where the quick figures
  // alone left it far under (below). The candidates are ordered by bound, then superset, so that the
  // lists do not depend on the order the supersets come in (or on how they are shared out).
  using Candidate = std::pair<std::int64_t, std::uint32_t>;
  struct Partial {
    std::array<std::int64_t, kBlock> peak;
    std::array<std::int64_t, kBlock> overhead;
    std::array<std::int64_t, kBlock> checkpoints;
    std::array<std::array<Candidate, kRefine + 1>, kBlock> lowest;
    std::array<std::size_t, kBlock> lowestCount;
    std::vector<double> rows;  // path rows of a scan that does not relax b.paths' own
  };
  const std::size_t words = f.maskWords();
  // The figures of the sets [first, first + size) from every shards-th superset (starting at `shard`)
  // in `any` within [from, to); masks holds each set's supersets, rows the sets' path rows.
  auto scan = [&](std::size_t first, std::size_t size, const std::uint64_t* masks, const std::uint64_t* any,
                  std::size_t from, std::size_t to, unsigned shard, unsigned shards, Partial& part, double* rows) {
    part.peak.fill(INT64_MAX);
    part.overhead.fill(INT64_MAX);
    part.checkpoints.fill(INT64_MAX);
    part.lowestCount.fill(0);
    std::size_t ordinal = 0;
    forEachSet(any, from, to, [&](std::size_t j) {
      if (shards > 1 && ordinal++ % shards != shard) return;
      const double* theirs = count ? b.paths.data() + j * count : nullptr;
      for (std::size_t k = 0; k < size; ++k) {
        const std::size_t i = first + k;
        if (!((masks[k * words + j / 64] >> (j % 64)) & 1U)) continue;
        if (!f.allowed(i, j)) continue;  // breaks a pin
        // A continuation within the cap that takes this step recomputes at least the step's dt and
        // then the least overhead from L_j (by induction, over the continuations within the cap); the
        // O(1) floor on dt, nearly exact, spares the rest of the step (cg_googlenet at its least
        // budget, with a cap near the optimum: 95 million of 121 million steps).
        if (cap != INT64_MAX && saturatingAdd(f.dtFloor(i, j), b.minOverhead[j]) > cap) continue;
        const Transition s = f.quickTransition(i, j);
        const std::int64_t base = s.base;
        const std::int64_t through = std::max(base, saturatingAdd(s.dm, b.minPeak[j]));
        part.peak[k] = std::min(part.peak[k], through);
        if (refine) {
          const Candidate candidate{through, static_cast<std::uint32_t>(j)};
          auto& list = part.lowest[k];
          std::size_t& c = part.lowestCount[k];
          if (c <= kRefine || candidate < list[kRefine]) {
            std::size_t at = std::min(c, kRefine);
            for (; at > 0 && list[at - 1] > candidate; --at) list[at] = list[at - 1];
            list[at] = candidate;
            c = std::min(c + 1, kRefine + 1);
          }
        }
        part.overhead[k] = std::min(part.overhead[k], saturatingAdd(s.dt, b.minOverhead[j]));
        part.checkpoints[k] = std::min(part.checkpoints[k], saturatingAdd(s.dm, b.minCheckpoints[j]));
        // The steps a plan under the budget may take even from m = 0: the step itself fits, and some
        // continuation from L_j still fits.
        if (!theirs || base > budget || (j != n - 1 && saturatingAdd(s.dm, b.minPeak[j]) > budget)) continue;
        const double value = double(memoryObjective ? s.dm : s.dt);
        // The last step, into V, must fit on top of all checkpoint memory: weigh its own term as well.
        const double dm = double(j == n - 1 ? base : s.dm);
        relaxPaths(rows + k * count, theirs, b.lambdas.data(), value, dm, count);
      }
    });
  };
  // Folds set kf of `from` (path rows fromRows) into set k of `into`, set i of the family.
  auto mergeSet = [&](std::size_t i, Partial& into, std::size_t k, const Partial& from, std::size_t kf,
                      const double* fromRows) {
    into.peak[k] = std::min(into.peak[k], from.peak[kf]);
    into.overhead[k] = std::min(into.overhead[k], from.overhead[kf]);
    into.checkpoints[k] = std::min(into.checkpoints[k], from.checkpoints[kf]);
    if (refine && from.lowestCount[kf] > 0) {
      std::array<Candidate, 2 * (kRefine + 1)> both;
      const std::size_t a = into.lowestCount[k];
      const std::size_t c = from.lowestCount[kf];
      std::merge(into.lowest[k].begin(), into.lowest[k].begin() + static_cast<std::ptrdiff_t>(a),
                 from.lowest[kf].begin(), from.lowest[kf].begin() + static_cast<std::ptrdiff_t>(c), both.begin());
      into.lowestCount[k] = std::min(a + c, kRefine + 1);
      std::copy_n(both.begin(), into.lowestCount[k], into.lowest[k].begin());
    }
    double* mine = b.paths.data() + i * count;
    for (std::size_t x = 0; x < count; ++x) mine[x] = std::min(mine[x], fromRows[kf * count + x]);
  };
  // Refines set i's least peak (set k of part) and stores its figures.
  auto finishSet = [&](std::size_t i, Partial& part, std::size_t k) {
    if (refine && part.lowestCount[k] > 0 && saturatingAdd(part.peak[k], f.bytes(i)) > refineAbove) {
      // Simulated in the order of their bounds until a bound reaches the best exact value; an
      // unsimulated candidate's bound still bounds what is left.
      const auto& list = part.lowest[k];
      const std::size_t c = part.lowestCount[k];
      std::int64_t best = INT64_MAX;
      std::size_t at = 0;
      for (; at < std::min(c, kRefine) && list[at].first < best; ++at) {
        const std::size_t j = list[at].second;
        const Transition s = f.transition(i, j);
        best = std::min(best, std::max(s.base, saturatingAdd(s.dm, b.minPeak[j])));
      }
      part.peak[k] = at < c && list[at].first < best ? list[at].first : best;
    }
    b.minPeak[i] = part.peak[k];
    b.minOverhead[i] = part.overhead[k];
    b.minCheckpoints[i] = part.checkpoints[k];
  };
  // Each set's supersets, and their union (after them): the only j worth a look.
  auto supersetMasks = [&](std::size_t first, std::size_t size, std::vector<std::uint64_t>& masks) {
    masks.assign((kBlock + 1) * words, 0);
    std::uint64_t* any = masks.data() + kBlock * words;
    for (std::size_t k = 0; k < size; ++k) {
      f.supersets(first + k, masks.data() + k * words);
      for (std::size_t x = 0; x < words; ++x) any[x] |= masks[k * words + x];
    }
    return any;
  };
  // The sets [first, last) of one layer, from their supersets (all from `from` on), on one thread.
  auto boundsOf = [&](std::size_t first, std::size_t last, std::size_t from) {
    thread_local std::vector<std::uint64_t> masks;
    const std::uint64_t* any = supersetMasks(first, last - first, masks);
    Partial part;
    scan(first, last - first, masks.data(), any, from, n, 0, 1, part, b.paths.data() + first * count);
    for (std::size_t k = 0; k < last - first; ++k) finishSet(first + k, part, k);
  };
  const unsigned workers = threadCount(threads);
  std::optional<ShardPool> pool;
  std::vector<Partial> parts(workers);
  Partial inner;
  std::vector<std::uint64_t> blockMasks;
  // A block [first, last) of at most kBlock sets: a part of one layer, or several whole layers (deep
  // graphs have one set per size), layerEnd[k] the end of set first + k's layer. First every set from
  // the supersets beyond the block, whose terms are then read once for all of them (reading them once
  // per set made the pass bound by memory on deep graphs), shared among the threads where there are
  // enough; then, largest first, each set from the supersets within the block, final by then.
  auto blockBounds = [&](std::size_t first, std::size_t last, const std::vector<std::size_t>& layerEnd) {
    const std::size_t size = last - first;
    const std::uint64_t* any = supersetMasks(first, size, blockMasks);
    std::size_t candidates = 0;
    for (std::size_t x = last / 64; x < words; ++x) candidates += static_cast<std::size_t>(std::popcount(any[x]));
    const unsigned shards = workers > 1 && candidates >= kShardSources ? workers : 1;
    auto task = [&](unsigned w) {
      double* rows = b.paths.data() + first * count;
      if (w > 0) {
        parts[w].rows.assign(size * count, std::numeric_limits<double>::infinity());
        rows = parts[w].rows.data();
      }
      scan(first, size, blockMasks.data(), any, last, n, w, shards, parts[w], rows);
    };
    if (shards > 1) {
      if (!pool) pool.emplace(workers);
      pool->run(task);
    } else {
      task(0);
    }
    for (unsigned w = 1; w < shards; ++w)
      for (std::size_t k = 0; k < size; ++k) mergeSet(first + k, parts[0], k, parts[w], k, parts[w].rows.data());
    for (std::size_t k = size; k-- > 0;) {
      if (layerEnd[k] < last) {
        const std::uint64_t* mine = blockMasks.data() + k * words;
        inner.rows.assign(count, std::numeric_limits<double>::infinity());
        scan(first + k, 1, mine, mine, layerEnd[k], last, 0, 1, inner, inner.rows.data());
        mergeSet(first + k, parts[0], k, inner, 0, inner.rows.data());
      }
      finishSet(first + k, parts[0], k);
    }
  };
  // Largest sets first: a set's continuations go through strictly larger sets only.
  const auto ls = layers(f);
  std::vector<std::size_t> layerEnd;
  for (std::size_t k = ls.size(); k > 0;) {
    const auto [begin, end] = ls[k - 1];
    const std::size_t top = std::min(end, n - 1);  // V has no continuation to bound
    const std::size_t blocks = (top - begin + kBlock - 1) / kBlock;
    if (begin >= top) {
      --k;
    } else if (workers > 1 && blocks >= workers) {
      parallelOver(0, blocks, workers, [&, begin = begin, end = end, top](std::size_t block, unsigned) {
        const std::size_t first = begin + block * kBlock;
        const std::size_t last = std::min(first + kBlock, top);
        if (stop == nullptr || !stop->charge(last - first))
          boundsOf(first, last, end);  // a stop is honoured within one block's work
      });
      --k;
    } else if (top - begin > kBlock) {
      layerEnd.assign(kBlock, end);
      for (std::size_t first = begin; first < top; first += kBlock) {
        const std::size_t last = std::min(first + kBlock, top);
        if (stop != nullptr && stop->charge(last - first)) break;
        blockBounds(first, last, layerEnd);
      }
      --k;
    } else {
      // As many whole layers below as the block holds.
      std::size_t first = begin;
      std::size_t below = k - 1;
      while (below > 0 && top - ls[below - 1].first <= kBlock) first = ls[--below].first;
      layerEnd.assign(top - first, 0);
      for (std::size_t l = below; l < k; ++l)
        for (std::size_t s = ls[l].first; s < std::min(ls[l].second, top); ++s) layerEnd[s - first] = ls[l].second;
      if (stop != nullptr && stop->charge(top - first)) return std::nullopt;
      blockBounds(first, top, layerEnd);
      k = below;
    }
    if (stop != nullptr && stop->reached()) return std::nullopt;
  }
  boundsOf(0, 1, 1);  // ∅, which no layer holds
  return b;
}

std::optional<std::vector<double>> refinedLambdas(const LowerSetFamily& probe, const BoundTarget& target,
                                                  TimeLimit* stop) {
  if (target.strategy == Strategy::Memory || target.budget < 0 || target.budget == INT64_MAX)
    return std::vector<double>{};
  BoundTarget coarseTarget = target;
  coarseTarget.lambdas.clear();
  auto coarse = continuationBounds(probe, stop, 0, coarseTarget);
  if (!coarse) return std::nullopt;
  const std::vector<double>& grid = coarse->lambdas;  // grid[0] = 0
  const std::size_t count = grid.size();
  if (count < 3) return std::vector<double>{};
  // The multiplier of the best bound at ∅, which holds no checkpoints: the whole budget is room.
  std::size_t best = 0;
  double bestValue = coarse->paths[0];
  for (std::size_t k = 1; k < count; ++k) {
    const double value = coarse->paths[k] - grid[k] * double(target.budget);
    if (value > bestValue) {
      best = k;
      bestValue = value;
    }
  }
  if (best == 0 || !std::isfinite(bestValue)) return std::vector<double>{};  // no multiplier helps
  // Half the multipliers fine, between its neighbours on the coarse grid (one step beyond at the
  // ends), and half every other coarse one: sets far from ∅ may want other multipliers. As many as
  // the coarse grid, so the bounds pass costs the same.
  const std::size_t fine = kLambdas / 2;
  const double ratio = grid[2] / grid[1];
  const double lo = best > 1 ? grid[best - 1] : grid[1] / ratio;
  const double hi = best + 1 < count ? grid[best + 1] : grid[count - 1] * ratio;
  std::vector<double> out;
  for (std::size_t k = 0; k < fine; ++k) out.push_back(lo * std::pow(hi / lo, double(k + 1) / double(fine + 1)));
  for (std::size_t k = 1; k < count; k += 2) out.push_back(grid[k]);
  return out;
}

std::optional<std::int64_t> exactLeastPeak(const LowerSetFamily& f, const ContinuationBounds& bounds, TimeLimit* stop) {
  if (bounds.overheadCap != INT64_MAX)
    throw std::logic_error("exactLeastPeak: bounds capped at an overhead do not bound every plan's peak");
  if (f.quickIsExact()) return bounds.minPeak[0];
  // The bound is the least budget wherever some plan fits it. The greedy walk only takes steps whose
  // exact base fits, so a plan it finds at the bound proves it, at the cost of one walk; so does a
  // beam at the bound, where the walk's quick figures led it astray (on cg_googlenet the bound is the
  // least budget, the walk finds no plan, the beam does: 6 s instead of 30 s of the pass below, whose
  // 16 million segment simulations decide where neither finds one).
  if (bounds.minPeak[0] != INT64_MAX) {
    for (Strategy s : {Strategy::Memory, Strategy::Time})
      if (greedyPath(f, bounds, bounds.minPeak[0], s)) return bounds.minPeak[0];
    DpOptions beam;
    beam.budget = bounds.minPeak[0];
    beam.limit = stop;
    beam.bounds = &bounds;
    beam.strategy = Strategy::Memory;
    beam.beamWidth = 64;
    beam.nearestSources = 64;
    const DpRun run = runParetoDp(f, beam);
    if (run.outcome == DpOutcome::Complete && !run.fronts.back().empty()) return bounds.minPeak[0];
  }
  // The least peak of a set's continuations (above the checkpoints it starts with) is the least over
  // its supersets j of max(base, dm + j's own least peak). Largest sets first, so that j's least peak
  // is exact when the set needs it; then the quick figures (dm exact, base a lower bound) bound every
  // candidate from below, and candidates are simulated in the order of their bounds only until a bound
  // reaches the best value found. The sets of a layer run in parallel, as in the bounds pass.
  const std::size_t n = f.size();
  std::vector<std::int64_t> least(n, INT64_MAX);
  least[n - 1] = INT64_MIN;
  const unsigned workers = threadCount(0);
  std::vector<std::vector<std::pair<std::int64_t, std::uint32_t>>> scratch(workers);  // (bound, superset)
  auto leastOf = [&](std::size_t i, std::size_t supersetsFrom, unsigned worker) {
    auto& candidates = scratch[worker];
    candidates.clear();
    thread_local std::vector<std::uint64_t> mask;
    mask.resize(f.maskWords());
    f.supersets(i, mask.data());
    forEachSet(mask.data(), supersetsFrom, n, [&](std::size_t j) {
      if (least[j] == INT64_MAX || !f.allowed(i, j)) return;
      const Transition q = f.quickTransition(i, j);
      candidates.emplace_back(std::max(q.base, saturatingAdd(q.dm, least[j])), static_cast<std::uint32_t>(j));
    });
    // A heap, least bound on top: only the candidates popped (those under the best value) are ordered.
    const auto later = [](const auto& a, const auto& b) { return a > b; };
    std::make_heap(candidates.begin(), candidates.end(), later);
    std::int64_t best = INT64_MAX;
    while (!candidates.empty() && candidates.front().first < best) {
      std::pop_heap(candidates.begin(), candidates.end(), later);
      const std::size_t j = candidates.back().second;
      candidates.pop_back();
      const Transition s = f.transition(i, j);
      best = std::min(best, std::max(s.base, saturatingAdd(s.dm, least[j])));
    }
    least[i] = best;
  };
  const auto ls = layers(f);
  for (std::size_t k = ls.size(); k-- > 0;) {
    const auto [begin, end] = ls[k];
    const std::size_t top = std::min(end, n - 1);  // V's own least peak is given
    if (begin >= top) continue;
    parallelOver(begin, top, workers, [&, end = end](std::size_t i, unsigned w) {
      if (stop == nullptr || !stop->charge()) leastOf(i, end, w);
    });
    if (stop != nullptr && stop->reached()) return std::nullopt;
  }
  leastOf(0, 1, 0);  // ∅, which no layer holds
  return least[0];
}

std::optional<std::int64_t> leastFeasibleBudget(const LowerSetFamily& f, TimeLimit* stop) {
  // From ∅ with nothing kept, the least peak over all continuations is the least feasible budget.
  auto bounds = continuationBounds(f, stop);
  if (!bounds) return std::nullopt;
  return exactLeastPeak(f, *bounds, stop);
}

std::optional<GreedyPath> greedyPath(const LowerSetFamily& f, const ContinuationBounds& bounds, std::int64_t budget,
                                     Strategy strategy) {
  const std::size_t n = f.size();
  if (bounds.minPeak[0] > budget) return std::nullopt;
  GreedyPath out;
  const bool budgeted = !bounds.lambdas.empty() && bounds.budget == budget && bounds.strategy == strategy;
  std::size_t at = 0;
  std::int64_t t = 0;
  std::int64_t m = 0;
  struct PathStep {
    std::int64_t score;
    std::int64_t other;  // the tie-break: overhead (memory-centric) or checkpoint memory
    std::size_t j;
    std::int64_t t;
    std::int64_t m;
    bool operator<(const PathStep& o) const { return std::tie(score, other, j) < std::tie(o.score, o.other, o.j); }
  };
  std::vector<PathStep> steps;
  while (at != n - 1) {
    // The best step by score, then the other coordinate, then the first set; the quick figures rank
    // them, and only the steps ahead of the first one whose exact base fits need simulating (a walk
    // that simulated each improvement in set order took 1.6 s on the 10,000-op graph).
    steps.clear();
    for (std::size_t j = at + 1; j < n; ++j) {
      if (f.count(j) == f.count(at) || !f.subset(at, j) || !f.allowed(at, j)) continue;
      const Transition s = f.quickTransition(at, j);
      if (saturatingAdd(m, s.base) > budget) continue;
      const std::int64_t nt = t + s.dt;
      const std::int64_t nm = m + s.dm;
      // Stay where some continuation still fits, so the walk always reaches V.
      if (j != n - 1 && saturatingAdd(nm, bounds.minPeak[j]) > budget) continue;
      const std::int64_t rest = budgeted                       ? bounds.remaining(j, nm)
                                : strategy == Strategy::Memory ? bounds.minCheckpoints[j]
                                                               : bounds.minOverhead[j];
      const std::int64_t score = saturatingAdd(strategy == Strategy::Memory ? nm : nt, rest);
      steps.push_back({score, strategy == Strategy::Memory ? nt : nm, j, nt, nm});
    }
    std::sort(steps.begin(), steps.end());
    auto fits = [&](const PathStep& s) {
      return f.quickIsExact() || saturatingAdd(m, f.transition(at, s.j).base) <= budget;
    };
    const auto best = std::find_if(steps.begin(), steps.end(), fits);
    if (best == steps.end()) return std::nullopt;  // cannot happen when the bounds are exact; kept as a guard
    out.path.push_back(best->j);
    at = best->j;
    t = best->t;
    m = best->m;
  }
  out.overhead = t;
  out.checkpoints = m;
  return out;
}

}  // namespace remat::solvers
