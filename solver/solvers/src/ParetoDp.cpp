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

namespace remat::solvers {

std::int64_t saturatingAdd(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (!__builtin_add_overflow(a, b, &out)) return out;
  return a > 0 ? INT64_MAX : INT64_MIN;
}

namespace {

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

}  // namespace

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

// Sets with fewer candidate sources than this (in the bounds pass, blocks with fewer supersets) are
// not worth waking other threads for.
constexpr std::size_t kShardSources = 256;

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

std::optional<ContinuationBounds> continuationBounds(const LowerSetFamily& f, std::stop_token stop, unsigned threads,
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
        if (!stop.stop_requested())
          boundsOf(first, std::min(first + kBlock, top), end);  // a stop is honoured within one block's work
      });
      --k;
    } else if (top - begin > kBlock) {
      layerEnd.assign(kBlock, end);
      for (std::size_t first = begin; first < top && !stop.stop_requested(); first += kBlock)
        blockBounds(first, std::min(first + kBlock, top), layerEnd);
      --k;
    } else {
      // As many whole layers below as the block holds.
      std::size_t first = begin;
      std::size_t below = k - 1;
      while (below > 0 && top - ls[below - 1].first <= kBlock) first = ls[--below].first;
      layerEnd.assign(top - first, 0);
      for (std::size_t l = below; l < k; ++l)
        for (std::size_t s = ls[l].first; s < std::min(ls[l].second, top); ++s) layerEnd[s - first] = ls[l].second;
      blockBounds(first, top, layerEnd);
      k = below;
    }
    if (stop.stop_requested()) return std::nullopt;
  }
  boundsOf(0, 1, 1);  // ∅, which no layer holds
  return b;
}

std::optional<std::vector<double>> refinedLambdas(const LowerSetFamily& probe, const BoundTarget& target,
                                                  std::stop_token stop) {
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

namespace {

// Per-thread scratch of the forward DP: the Pareto front of one set, built from runs, each a source
// front shifted by its step (t + dt, m + dm), sorted by t ascending and m strictly descending.
//
// When the overhead range is small enough (always with the paper's integer costs), candidates go into
// a dense array indexed by overhead. Beside it, a prefix-minimum array (the least m of the candidates
// with overhead at most t) answers "is this point dominated" in O(1). It is rebuilt only now and then,
// so between rebuilds it may miss the newest candidates: it then dominates less, never wrongly. A run
// walks its points and, at a dominated point, jumps by binary search to its first point below that
// minimum (m falls along a run), so dominated stretches cost a search, not a visit each. On deep
// graphs almost every run is dominated (a set's front comes from a handful of its hundreds of sources),
// and visits fall by orders of magnitude. For wide ranges, the candidates are sorted instead.
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
  std::vector<DpPoint> cands;
  std::int64_t range = -1;  // dense when >= 0: overheads 0..range

  void begin(std::int64_t tMax) {
    cands.clear();
    range = tMax >= 0 && tMax < kDenseLimit ? tMax : -1;
    prefixFrom = dirtyFrom = INT64_MAX;
    prefixTo = highest = -1;
    changes = 0;
    if (range >= 0 && static_cast<std::int64_t>(bestM.size()) <= range) {
      bestM.resize(static_cast<std::size_t>(range) + 1, INT64_MAX);
      from.resize(static_cast<std::size_t>(range) + 1);
      prefix.resize(static_cast<std::size_t>(range) + 1);
    }
  }

  [[nodiscard]] std::int64_t prefixMin(std::int64_t t) const {
    return t < prefixFrom ? INT64_MAX : prefix[static_cast<std::size_t>(std::min(t, prefixTo))];
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

  void addRun(const DpPoint* first, const DpPoint* end, const DpPoint* base, std::int64_t dt, std::int64_t dm,
              std::uint32_t source) {
    if (first == end) return;
    if (range < 0) {
      for (const DpPoint* p = first; p != end; ++p)
        cands.push_back({p->t + dt, p->m + dm, source, static_cast<std::uint32_t>(p - base)});
      return;
    }
    maybeRebuild();
    // The run's ideal point (its least t, its least m) dominated means every point of it is: a later
    // point has a larger t, so a prefix minimum at most as large, and an m at least the run's least.
    if (prefixMin(first->t + dt) <= end[-1].m + dm) return;
    const DpPoint* p = first;
    while (p != end) {
      const std::int64_t t = p->t + dt;
      const std::int64_t m = p->m + dm;
      const std::int64_t lowest = prefixMin(t);
      if (lowest <= m) {
        // Dominated, and so is every later point of the run with m + dm >= lowest.
        p = firstBelow(p + 1, end, lowest - dm);
        continue;
      }
      keepIfBetter(t, m, source, static_cast<std::uint32_t>(p - base));
      ++p;
    }
  }

  // Whether every point of the run, shifted by (dt, dm), is dominated by a candidate already stored (a
  // conservative answer: false when it cannot tell). A walk with addRun's jumps: far cheaper than the
  // simulation of a segment it spares.
  [[nodiscard]] bool runDominated(const DpPoint* first, const DpPoint* end, std::int64_t dt, std::int64_t dm) {
    if (first == end) return true;
    if (range < 0) return false;
    maybeRebuild();
    if (prefixMin(first->t + dt) <= end[-1].m + dm) return true;
    for (const DpPoint* p = first; p != end;) {
      const std::int64_t lowest = prefixMin(p->t + dt);
      if (lowest > p->m + dm) return false;
      p = firstBelow(p + 1, end, lowest - dm);
    }
    return true;
  }

  // The first point from `lo` on with m < below (m falls along a run), by galloping: it is usually near.
  static const DpPoint* firstBelow(const DpPoint* lo, const DpPoint* end, std::int64_t below) {
    std::ptrdiff_t step = 1;
    while (lo + step < end && lo[step - 1].m >= below) {
      lo += step;
      step *= 2;
    }
    const DpPoint* hi = lo + step < end ? lo + step : end;
    return std::partition_point(lo, hi, [below](const DpPoint& x) { return x.m >= below; });
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
    if (prefixMin(t) > m) keepIfBetter(t, m, source, point);
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
  std::vector<DpPoint> finish() {
    std::vector<DpPoint> front;
    finishInto(front);
    return front;
  }

  // The same into `front` (cleared first; its room is kept).
  void finishInto(std::vector<DpPoint>& front) {
    front.clear();
    std::int64_t lowestM = INT64_MAX;
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
    std::sort(cands.begin(), cands.end(), byPoint);
    for (const DpPoint& c : cands)
      if (c.m < lowestM) {
        lowestM = c.m;
        front.push_back(c);
      }
  }

  // Of equal points, the one from the larger source comes first, as in the dense path (sources are
  // added largest first, and the first of equal points stays).
  static bool byPoint(const DpPoint& a, const DpPoint& b) {
    if (a.t != b.t) return a.t < b.t;
    if (a.m != b.m) return a.m < b.m;
    return a.prevSet > b.prevSet;
  }
};

// The Pareto front of the union of several fronts (each by t ascending, m strictly descending), merged
// pairwise through two scratch vectors that keep their room from set to set: fresh ones for every set
// of a deep graph cost more in page faults than the merge. The result has its exact size (it is kept).
std::vector<DpPoint> mergeFronts(const std::vector<std::vector<DpPoint>>& parts, std::vector<DpPoint>& scratch,
                                 std::vector<DpPoint>& spare) {
  scratch.assign(parts[0].begin(), parts[0].end());
  for (std::size_t k = 1; k < parts.size(); ++k) {
    spare.clear();
    auto a = scratch.begin();
    auto b = parts[k].begin();
    // The first of equal points stays (FrontBuilder::byPoint's order); a point stays when its m is
    // below the last kept one's.
    auto keep = [&spare](const DpPoint& c) {
      if (spare.empty() || c.m < spare.back().m) spare.push_back(c);
    };
    while (a != scratch.end() && b != parts[k].end()) keep(FrontBuilder::byPoint(*b, *a) ? *b++ : *a++);
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
  std::vector<FrontBuilder> m_builders;
  std::vector<std::vector<DpPoint>> m_parts;
  std::vector<DpPoint> m_scratch, m_spare;
  std::optional<ShardPool> m_pool;
};

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
  auto collect = [&](std::size_t j, const Limits& lim, FrontBuilder& builder, unsigned shard, unsigned shards) {
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
    if (!front.empty()) leastT[j] = front.front().t;
    run.fronts[j] = std::move(front);
  };
  auto outOfTime = [&] {
    return o.stop.stop_requested() || (o.deadline && std::chrono::steady_clock::now() > *o.deadline);
  };

  // j's candidates within its limits, or false when no point can arrive at j.
  auto build = [&](std::size_t j, FrontBuilder& builder, unsigned shard, unsigned shards) {
    const auto lim = limits(j);
    if (!lim) return false;
    collect(j, *lim, builder, shard, shards);
    return true;
  };
  LayerScheduler scheduler(threads);
  for (const auto& [begin, end] : layers(f)) {
    const std::size_t sources = o.nearestSources > 0 ? std::min(alive.size(), o.nearestSources) : alive.size();
    if (!scheduler.run(begin, end, sources, build, store, outOfTime)) {
      run.outcome = o.stop.stop_requested() ? DpOutcome::Cancelled : DpOutcome::TimeLimit;
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

std::optional<std::int64_t> exactLeastPeak(const LowerSetFamily& f, const ContinuationBounds& bounds,
                                           std::stop_token stop) {
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
    beam.stop = stop;
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
      if (!stop.stop_requested()) leastOf(i, end, w);
    });
    if (stop.stop_requested()) return std::nullopt;
  }
  leastOf(0, 1, 0);  // ∅, which no layer holds
  return least[0];
}

std::optional<std::int64_t> leastFeasibleBudget(const LowerSetFamily& f, std::stop_token stop) {
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
  struct Step {
    std::int64_t score;
    std::int64_t other;  // the tie-break: overhead (memory-centric) or checkpoint memory
    std::size_t j;
    std::int64_t t;
    std::int64_t m;
    bool operator<(const Step& o) const { return std::tie(score, other, j) < std::tie(o.score, o.other, o.j); }
  };
  std::vector<Step> steps;
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
    auto fits = [&](const Step& s) {
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

TradeOffRun tradeOffFront(const LowerSetFamily& f, const DpOptions& o) {
  // Backward over the family: tails[i] is the Pareto front of (t, peak) over the continuations from L_i
  // to V, t their overhead and peak their highest model term relative to the checkpoint memory held at
  // L_i. Memory held on entry adds to every later term alike, so these two numbers are all that matters
  // of a continuation, and the fronts stay two-dimensional. The step L_i -> L_j followed by a tail
  // (t, p) of L_j is the tail (dt + t, max(base, dm + p)); at ∅ the tails are the whole front of plans.
  const std::size_t n = f.size();
  TradeOffRun result;
  std::vector<std::vector<DpPoint>> tails(n);  // prevSet/prevPoint name the next set and its tail
  tails[n - 1] = {DpPoint{0, INT64_MIN, 0, 0}};
  const unsigned threads = threadCount(o.threads);
  std::vector<std::uint32_t> alive{static_cast<std::uint32_t>(n - 1)};  // finished sets with tails
  std::vector<std::uint64_t> aliveMask(f.maskWords(), 0);               // the same as a bitset
  aliveMask[(n - 1) / 64] |= std::uint64_t{1} << ((n - 1) % 64);
  std::atomic<std::size_t> points{1};
  auto outOfTime = [&] {
    return o.stop.stop_requested() || (o.deadline && std::chrono::steady_clock::now() > *o.deadline);
  };
  const bool exactQuick = f.quickIsExact();
  // The candidates of set i from every shards-th superset with tails, nearest (smallest) first.
  auto collect = [&](std::size_t i, FrontBuilder& builder, unsigned shard, unsigned shards) {
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
      const std::vector<DpPoint>& tail = tails[j];
      // Tails run by t ascending and peak descending: those whose shifted peak exceeds the step's own
      // term are a prefix and keep it; of the rest, all at peak `base`, the first has the least t.
      const DpPoint* begin = tail.data();
      const DpPoint* end = begin + tail.size();
      auto split = [&](std::int64_t base, std::int64_t dm) {
        return std::partition_point(begin, end, [&](const DpPoint& p) { return p.m > base - dm; });
      };
      if (!exactQuick) {
        // With the quick base the step's candidates are no higher than with the exact one, at the same
        // overheads (a higher base moves the split left: the points it passes then sit at the base,
        // above their quick place); when those are all dominated, the segment need not be simulated.
        const DpPoint* restQ = split(q.base, q.dm);
        if (builder.runDominated(begin, restQ, q.dt, q.dm) &&
            (restQ == end || builder.pointDominated(restQ->t + q.dt, q.base)))
          return;
      }
      const Transition s = exactQuick ? q : f.transition(i, j);
      const std::int64_t base = s.base;
      if (base > o.budget) return;
      const DpPoint* rest = split(base, s.dm);
      builder.addRun(begin, rest, begin, s.dt, s.dm, static_cast<std::uint32_t>(j));
      if (rest != end)
        builder.addPoint(rest->t + s.dt, base, static_cast<std::uint32_t>(j), static_cast<std::uint32_t>(rest - begin));
    });
  };
  auto store = [&](std::size_t i, std::vector<DpPoint> front) {
    points += front.size();
    tails[i] = std::move(front);
  };

  auto build = [&](std::size_t i, FrontBuilder& builder, unsigned shard, unsigned shards) {
    collect(i, builder, shard, shards);
    return true;
  };
  LayerScheduler scheduler(threads);
  auto ls = layers(f);
  ls.insert(ls.begin(), {0, 1});                           // ∅ last of all
  for (std::size_t layer = ls.size() - 1; layer-- > 0;) {  // V's own layer is done
    const auto [begin, end] = ls[layer];
    if (!scheduler.run(begin, end, alive.size(), build, store, outOfTime)) {
      result.outcome = o.stop.stop_requested() ? DpOutcome::Cancelled : DpOutcome::TimeLimit;
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
  const std::vector<DpPoint>& plans = tails[0];
  for (std::size_t k = plans.size(); k-- > 0;) {
    TradeOffPoint point{plans[k].m, plans[k].t, {}};
    std::size_t set = plans[k].prevSet;
    std::size_t at = plans[k].prevPoint;
    for (;;) {
      point.path.push_back(set);
      if (set == n - 1) break;
      const DpPoint& next = tails[set][at];
      set = next.prevSet;
      at = next.prevPoint;
    }
    result.front.push_back(std::move(point));
  }
  return result;
}

}  // namespace remat::solvers
