#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "Sanitized.hpp"
#include "TestGraphs.hpp"
#include "remat/graph/LowerSets.hpp"
#include "remat/solvers/DpModel.hpp"
#include "remat/solvers/DpSolvers.hpp"
#include "remat/solvers/ParetoDp.hpp"
#include "remat/solvers/SolverRegistry.hpp"

using namespace remat;
using namespace remat::graph;
using namespace remat::solvers;

namespace {

// Every increasing lower-set sequence ∅ ⊊ L_1 ⊊ ... ⊊ V with its model cost, by plain depth-first
// search over the lattice, each sequence evaluated by evaluateDpModel (not by the DP's incremental
// quantities). Returns nullopt when there are more than `limit` sequences.
struct Sequence {
  Bytes peak;
  Ticks overhead;
  Bytes checkpoints;
};

std::optional<std::vector<Sequence>> allSequences(const ComputeGraph& g, std::size_t limit) {
  std::vector<NodeSet> sets;
  (void)enumerateLowerSets(g, 100000, [&](const NodeSet& s) {
    if (!s.empty()) sets.push_back(s);
    return true;
  });
  std::vector<Sequence> out;
  const bool complete = test::forEachChain(g, sets, limit, [&](const std::vector<NodeSet>& chain) {
    const DpModelCost c = evaluateDpModel(g, chain);
    out.push_back({c.peak, c.overhead, c.checkpointBytes});
  });
  if (!complete) return std::nullopt;
  return out;
}

// Random DAGs of up to 12 ops whose lattices are small enough to search exhaustively.
std::vector<std::pair<std::uint32_t, ComputeGraph>> bruteForceGraphs(std::size_t wanted) {
  std::vector<std::pair<std::uint32_t, ComputeGraph>> out;
  for (std::uint32_t seed = 1; out.size() < wanted && seed < 5000; ++seed) {
    const int n = 2 + int(seed % 11);
    ComputeGraph g = test::makeRandomDag(n, seed, 0.2 + 0.1 * double(seed % 5));
    auto count = countLowerSets(g, 200);
    if (count) out.emplace_back(seed, std::move(g));
  }
  return out;
}

}  // namespace

TEST_CASE("exact-dp and approx-dp answer the same with every time multiplied by a million (the wide-range fronts)") {
  // Times of 1 to 10 keep the fronts in the dense builder; times a million-fold (as nanoseconds are)
  // take them past its range, into the bucketed one. Overheads must scale exactly, plans stay the same.
  constexpr std::int64_t kScale = 1'000'003;
  std::size_t compared = 0;
  // Every fourth seed under the sanitizers (Sanitized.hpp): both builders still run on every one.
  for (std::uint32_t seed = 1; seed <= 16; seed += test::kSanitized ? 4 : 1) {
    const int n = 8 + int(seed % 14);
    const ComputeGraph g = test::makeRandomDag(n, seed, 0.3);
    const ComputeGraph wide = test::makeRandomDag(n, seed, 0.3, kScale);
    INFO("seed " << seed << ", " << n << " ops");
    for (const char* id : {"exact-dp", "approx-dp"}) {
      const Solver& dp = *SolverRegistry::builtin().find(id);
      for (DpModelKind model : {DpModelKind::Simulator, DpModelKind::Paper}) {
        const Solver::TradeOff front = dp.tradeOff({.graph = &g, .model = model}, 0);
        const Solver::TradeOff wideFront = dp.tradeOff({.graph = &wide, .model = model}, 0);
        REQUIRE(front.plans.size() == wideFront.plans.size());
        for (std::size_t k = 0; k < front.plans.size(); ++k) {
          CHECK(front.plans[k].budget == wideFront.plans[k].budget);
          CHECK(wideFront.plans[k].metrics.overhead.value == kScale * front.plans[k].metrics.overhead.value);
        }
        const Bytes least = front.plans.front().budget;
        const Bytes plain = front.plans.back().budget;
        for (const Bytes budget : {least, Bytes{(least.value + plain.value) / 2}, Bytes{least.value + 1}}) {
          for (Strategy strategy : {Strategy::Time, Strategy::Memory}) {
            INFO(id << " budget " << budget.value << " strategy " << strategyName(strategy));
            const SolveResult r = dp.solve({.graph = &g, .budget = budget, .strategy = strategy, .model = model});
            const SolveResult w = dp.solve({.graph = &wide, .budget = budget, .strategy = strategy, .model = model});
            REQUIRE(r.status == w.status);
            REQUIRE(r.plan.has_value() == w.plan.has_value());
            if (!r.plan) continue;
            CHECK(w.metrics.overhead.value == kScale * r.metrics.overhead.value);
            CHECK(w.metrics.simulatedPeak == r.metrics.simulatedPeak);
            CHECK(*w.plan->lowerSets == *r.plan->lowerSets);
            ++compared;
          }
        }
      }
    }
  }
  CHECK(compared >= (test::kSanitized ? 30 : 150));
}

TEST_CASE("exact-dp in the paper's model equals a brute-force search over all lower-set sequences") {
  const Solver& exact = *SolverRegistry::builtin().find("exact-dp");
  std::size_t checked = 0;
  for (const auto& [seed, g] : bruteForceGraphs(300)) {
    auto sequences = allSequences(g, 200000);
    if (!sequences) continue;
    ++checked;
    INFO("random DAG seed " << seed << ", " << g.opCount() << " ops, " << sequences->size() << " sequences");
    // Least feasible budget.
    Bytes least = Bytes::max();
    for (const auto& s : *sequences) least = std::min(least, s.peak);
    auto family = LowerSetFamily::allLowerSets(g, 100000);
    REQUIRE(family);
    CHECK(leastFeasibleBudget(*family) == least.value);
    // Every budget at which the answer can change, and one below the least.
    std::set<std::int64_t> budgets{least.value - 1};
    for (const auto& s : *sequences) budgets.insert(s.peak.value);
    for (std::int64_t b : budgets) {
      std::optional<Ticks> bestT;
      std::optional<std::pair<Bytes, Ticks>> bestMemory;  // least checkpoints, then least overhead
      for (const auto& s : *sequences) {
        if (s.peak.value > b) continue;
        if (!bestT || s.overhead < *bestT) bestT = s.overhead;
        if (!bestMemory || std::make_pair(s.checkpoints, s.overhead) < *bestMemory)
          bestMemory = std::make_pair(s.checkpoints, s.overhead);
      }
      INFO("budget " << b);
      SolveResult time =
          exact.solve({.graph = &g, .budget = Bytes{b}, .strategy = Strategy::Time, .model = DpModelKind::Paper});
      SolveResult memory =
          exact.solve({.graph = &g, .budget = Bytes{b}, .strategy = Strategy::Memory, .model = DpModelKind::Paper});
      if (!bestT) {
        CHECK(time.status == SolveStatus::Infeasible);
        CHECK(memory.status == SolveStatus::Infeasible);
        CHECK_THAT(time.message, Catch::Contains("least feasible budget"));
        continue;
      }
      // The greedy incumbent always reaches V within the budget, and never beats the optimum.
      auto bounds = continuationBounds(*family);
      REQUIRE(bounds);
      // The budget's Lagrangian bounds never exceed the optimum, for either objective.
      auto timeBounds = continuationBounds(*family, {}, 0, BoundTarget{b, Strategy::Time});
      auto memoryBounds = continuationBounds(*family, {}, 0, BoundTarget{b, Strategy::Memory});
      REQUIRE(timeBounds);
      REQUIRE(memoryBounds);
      CHECK(timeBounds->remaining(0, 0) <= bestT->value);
      CHECK(memoryBounds->remaining(0, 0) <= bestMemory->first.value);
      for (Strategy st : {Strategy::Time, Strategy::Memory}) {
        auto greedy = greedyPath(*family, *bounds, b, st);
        REQUIRE(greedy);
        std::vector<NodeSet> sets;
        for (std::size_t k : greedy->path) sets.push_back(family->set(k));
        const DpModelCost gc = evaluateDpModel(g, sets);
        CHECK(gc.peak.value <= b);
        CHECK(gc.overhead.value == greedy->overhead);
        CHECK(gc.checkpointBytes.value == greedy->checkpoints);
        CHECK(gc.overhead >= *bestT);
      }
      // Optimal in the paper's model; over budget where the simulator counts more than the budget.
      auto optimalInModel = [b = b](const SolveResult& r) {
        return r.status == SolveStatus::Optimal
                   ? r.metrics.simulatedPeak.value <= b
                   : r.status == SolveStatus::OverBudget && r.metrics.simulatedPeak.value > b;
      };
      REQUIRE(optimalInModel(time));
      CHECK(*time.metrics.modelOverhead == *bestT);
      CHECK(time.metrics.modelPeak->value <= b);
      CHECK(time.metrics.overhead == *bestT);  // the simulator agrees with the model on overhead
      REQUIRE(optimalInModel(memory));
      CHECK(memory.metrics.modelPeak->value <= b);
      CHECK(*memory.metrics.modelOverhead == bestMemory->second);
      CHECK(evaluateDpModel(g, *memory.plan->lowerSets).checkpointBytes == bestMemory->first);
    }
  }
  CHECK(checked >= 200);
}

TEST_CASE("the exact trade-off front in the paper's model from one DP run equals the brute-force front") {
  const Solver& exact = *SolverRegistry::builtin().find("exact-dp");
  std::size_t checked = 0;
  for (const auto& [seed, g] : bruteForceGraphs(150)) {
    auto sequences = allSequences(g, 200000);
    if (!sequences) continue;
    ++checked;
    INFO("random DAG seed " << seed);
    // Brute-force staircase of (peak, overhead): by peak, keep strictly falling overheads.
    std::vector<std::pair<std::int64_t, std::int64_t>> all;
    for (const auto& s : *sequences) all.emplace_back(s.peak.value, s.overhead.value);
    std::sort(all.begin(), all.end());
    std::vector<std::pair<std::int64_t, std::int64_t>> expected;
    for (const auto& p : all)
      if (expected.empty() || p.second < expected.back().second) expected.push_back(p);
    const Solver::TradeOff front = exact.tradeOff({.graph = &g, .model = DpModelKind::Paper}, 1000);
    REQUIRE(front.status == SolveStatus::Optimal);
    REQUIRE(front.plans.size() == expected.size());
    for (std::size_t k = 0; k < expected.size(); ++k) {
      CHECK(front.plans[k].budget.value == expected[k].first);
      const DpModelCost c = evaluateDpModel(g, *front.plans[k].plan.lowerSets);
      CHECK(c.peak.value == expected[k].first);
      CHECK(c.overhead.value == expected[k].second);
    }
  }
  CHECK(checked >= 100);
}

TEST_CASE("a whole front answers every budget as a time-centric solve does") {
  // Budget scrubbing: one DP run, then every budget from the front. At each budget around each front
  // point, the answer must have solve()'s least overhead and fit the budget in the model.
  for (const char* id : {"exact-dp", "approx-dp"}) {
    const Solver& solver = *SolverRegistry::builtin().find(id);
    for (const auto& [seed, g] : bruteForceGraphs(30)) {
      INFO(id << " on random DAG seed " << seed);
      const Solver::TradeOff front = solver.tradeOff({.graph = &g}, 0);
      REQUIRE(front.status == SolveStatus::Optimal);
      REQUIRE(front.whole);
      std::vector<std::optional<Bytes>> budgets{std::nullopt};
      for (const auto& [peak, plan, frontMetrics] : front.plans) {
        budgets.emplace_back(peak);
        budgets.emplace_back(Bytes{peak.value - 1});
        budgets.emplace_back(Bytes{peak.value + 1});
      }
      for (const auto& budget : budgets) {
        INFO("budget " << (budget ? std::to_string(budget->value) : "none"));
        const SolveRequest request{.graph = &g, .budget = budget, .strategy = Strategy::Time};
        const SolveResult solved = solver.solve(request);
        const std::optional<SolveResult> answered = solveFromFront(solver, front, request);
        REQUIRE(answered);
        REQUIRE(answered->status == solved.status);
        if (!solved.plan) {
          CHECK_FALSE(answered->plan);
          continue;
        }
        REQUIRE(answered->plan);
        CHECK(answered->metrics.modelOverhead == solved.metrics.modelOverhead);
        if (budget) CHECK(*answered->metrics.modelPeak <= *budget);
        CHECK(answered->simulation.valid());
      }
      // Auto answers like time where a plan fits and leaves the fallback below the least budget to solve().
      const Bytes least = front.plans.front().budget;
      CHECK(solveFromFront(solver, front, {.graph = &g, .budget = least, .strategy = Strategy::Auto}));
      CHECK_FALSE(
          solveFromFront(solver, front, {.graph = &g, .budget = Bytes{least.value - 1}, .strategy = Strategy::Auto}));
      CHECK_FALSE(solveFromFront(solver, front, {.graph = &g, .budget = least, .strategy = Strategy::Memory}));
    }
  }
}

TEST_CASE("a thinned front is not whole and answers nothing") {
  const ComputeGraph g = test::makeChain(12);
  const Solver& exact = *SolverRegistry::builtin().find("exact-dp");
  const Solver::TradeOff whole = exact.tradeOff({.graph = &g}, 0);
  REQUIRE(whole.whole);
  REQUIRE(whole.plans.size() > 3);
  const Solver::TradeOff thinned = exact.tradeOff({.graph = &g}, 3);
  CHECK(thinned.plans.size() == 3);
  CHECK_FALSE(thinned.whole);
  CHECK_FALSE(solveFromFront(exact, thinned, {.graph = &g}));
}

TEST_CASE("every plan of a trade-off carries the simulator's figures, as solve() gives a plan") {
  // The DPs' fronts (one run), Chen's and DTR's (solves at spread budgets): each plan's metrics must be
  // evaluatePlan's, so that no caller simulates a front again.
  for (const ComputeGraph& g : {test::makeChain(10), test::makeRandomDag(9, 5)}) {
    for (const char* id : {"exact-dp", "approx-dp", "chen-sqrtn", "dtr"}) {
      INFO(id << " on " << g.name());
      const Solver& solver = *SolverRegistry::builtin().find(id);
      const Solver::TradeOff front = solver.tradeOff({.graph = &g}, 5);
      REQUIRE(front.status == SolveStatus::Optimal);
      REQUIRE_FALSE(front.plans.empty());
      for (const Solver::FrontPlan& p : front.plans) {
        PlanMetrics expected;
        sim::SimulationResult simulation;
        evaluatePlan(g, p.plan, true, expected, simulation);
        REQUIRE(simulation.valid());
        CHECK(p.metrics.simulatedPeak == expected.simulatedPeak);
        CHECK(p.metrics.overhead == expected.overhead);
        CHECK(p.metrics.totalTime == expected.totalTime);
        CHECK(p.metrics.recomputations == expected.recomputations);
        CHECK(p.metrics.modelPeak == expected.modelPeak);
        CHECK(p.metrics.simulatedPeak.value > 0);
      }
    }
  }
}

TEST_CASE("a family's superset and subset masks hold exactly the sets the subset test admits") {
  // The masks come from the membership table (maximal elements, minimal elements outside) in families
  // of all lower sets, and from the O(1) test in families of ancestor closures; both must agree with
  // the plain word-by-word test on every pair. subsetPrefix(i), where the DP's walk over sources stops,
  // is the first set not inside set i (both families hold every op's closure, so it is exact).
  std::vector<ComputeGraph> graphs;
  graphs.push_back(test::makeChain(70));  // more sets than one mask word
  for (std::uint32_t seed = 1; seed <= 60; ++seed) graphs.push_back(test::makeRandomDag(2 + int(seed % 11), seed));
  for (const ComputeGraph& g : graphs) {
    auto all = LowerSetFamily::allLowerSets(g, 100000);
    REQUIRE(all);
    const LowerSetFamily closures = LowerSetFamily::ancestorClosures(g);
    for (const LowerSetFamily* each : {static_cast<const LowerSetFamily*>(&*all), &closures}) {
      const LowerSetFamily& family = *each;
      if (family.size() > 600) continue;  // the check below is quadratic
      std::vector<NodeSet> sets;
      for (std::size_t i = 0; i < family.size(); ++i) sets.push_back(family.set(i));
      std::vector<std::uint64_t> up(family.maskWords()), down(family.maskWords());
      for (std::size_t i = 0; i < family.size(); ++i) {
        std::size_t firstOutside = 0;
        while (firstOutside < family.size() && (sets[firstOutside] - sets[i]).empty()) ++firstOutside;
        CHECK(family.subsetPrefix(i) == firstOutside);
        family.supersets(i, up.data());
        family.subsets(i, down.data());
        for (std::size_t j = 0; j < family.size(); ++j) {
          const bool aInB = (sets[i] - sets[j]).empty();
          const bool bInA = (sets[j] - sets[i]).empty();
          CHECK(((up[j / 64] >> (j % 64)) & 1U) == (aInB ? 1U : 0U));
          CHECK(((down[j / 64] >> (j % 64)) & 1U) == (bInA ? 1U : 0U));
        }
        for (std::size_t j = family.size(); j < family.maskWords() * 64; ++j) {  // no bits past the family
          CHECK(((up[j / 64] >> (j % 64)) & 1U) == 0U);
          CHECK(((down[j / 64] >> (j % 64)) & 1U) == 0U);
        }
      }
    }
  }
}

TEST_CASE("the DP's fronts do not depend on the number of threads") {
  // Narrow layers (chains have one set per size) share each set's sources out among the threads and
  // merge their fronts; the result, down to the chosen predecessors, must be the same as on one thread.
  std::vector<ComputeGraph> graphs;
  graphs.push_back(test::makeChain(24));
  for (std::uint32_t seed = 1; seed <= 40; ++seed) graphs.push_back(test::makeRandomDag(10, seed));
  for (const ComputeGraph& g : graphs) {
    auto family = LowerSetFamily::allLowerSets(g, 100000);
    REQUIRE(family);
    auto bounds = continuationBounds(*family);
    REQUIRE(bounds);
    for (const std::int64_t budget : {bounds->minPeak[0], saturatingAdd(bounds->minPeak[0], bounds->minPeak[0] / 3)}) {
      auto target = continuationBounds(*family, {}, 0, BoundTarget{budget, Strategy::Time});
      REQUIRE(target);
      std::vector<std::vector<DpPoint>> last;
      for (unsigned threads : {1U, 2U, 3U}) {
        DpOptions o;
        o.budget = budget;
        o.bounds = &*target;
        o.threads = threads;
        const DpRun run = runParetoDp(*family, o);
        REQUIRE(run.outcome == DpOutcome::Complete);
        last.push_back(run.fronts.back());
        REQUIRE_FALSE(run.fronts.back().empty());
      }
      for (std::size_t k = 1; k < last.size(); ++k) {
        REQUIRE(last[k].size() == last[0].size());
        for (std::size_t p = 0; p < last[0].size(); ++p) {
          CHECK(last[k][p].t == last[0][p].t);
          CHECK(last[k][p].m == last[0][p].m);
          CHECK(last[k][p].prevSet == last[0][p].prevSet);
          CHECK(last[k][p].prevPoint == last[0][p].prevPoint);
        }
      }
    }
  }
}

TEST_CASE("both threshold searches find the same optimum") {
  // approx-dp runs a beam first and then one run at the beam's value; exact-dp gallops up from the lower
  // bound. Over the same family, with either strategy, they must agree on the optimum.
  std::size_t checked = 0;
  for (std::uint32_t seed = 1; seed <= 60; ++seed) {
    const ComputeGraph g = test::makeRandomDag(12, seed, 0.25);
    INFO("random DAG seed " << seed);
    for (const LowerSetFamily& family :
         {LowerSetFamily::ancestorClosures(g), *LowerSetFamily::allLowerSets(g, 100000)}) {
      auto bounds = continuationBounds(family);
      REQUIRE(bounds);
      const std::int64_t least = bounds->minPeak[0];
      for (const std::int64_t budget : {least, least + least / 7, least + least / 2, 2 * least}) {
        for (Strategy strategy : {Strategy::Time, Strategy::Memory}) {
          SolveRequest request{.graph = &g, .budget = Bytes{budget}, .strategy = strategy};
          const SolverOutput beam = solveOverFamily(g, family, request, "test", nullptr, ThresholdSearch::Direct);
          const SolverOutput gallop = solveOverFamily(g, family, request, "test", nullptr, ThresholdSearch::Gallop);
          REQUIRE(beam.status == SolveStatus::Optimal);
          REQUIRE(gallop.status == SolveStatus::Optimal);
          const DpModelCost a = evaluateDpModel(g, *beam.plan->lowerSets);
          const DpModelCost b = evaluateDpModel(g, *gallop.plan->lowerSets);
          CHECK(a.peak.value <= budget);
          if (strategy == Strategy::Time) {
            CHECK(a.overhead == b.overhead);
          } else {
            CHECK(a.checkpointBytes == b.checkpointBytes);
            CHECK(a.overhead == b.overhead);
          }
          ++checked;
        }
      }
    }
  }
  CHECK(checked == std::size_t{60} * 2 * 4 * 2);
}

TEST_CASE("the bounds pass equals its recurrence whatever its blocks and threads, and a cap only tightens it") {
  // The pass takes its sets in blocks (parts of a wide layer, or runs of narrow layers whose
  // supersets inside the block come last) and shares a block's supersets among threads where it has
  // many: none of that may change a figure. Checked set by set against the recurrence itself, and
  // one thread against two.
  std::vector<ComputeGraph> graphs;
  graphs.reserve(4);
  for (std::uint32_t seed : {3U, 11U, 29U}) graphs.push_back(test::makeRandomDag(12, seed, 0.25));
  graphs.push_back(test::makeRandomDag(400, 7, 0.1));  // one closure per size, hundreds of supersets each
  std::size_t checked = 0;
  for (const ComputeGraph& g : graphs) {
    for (DpModelKind kind : {DpModelKind::Paper, DpModelKind::Simulator}) {
      std::vector<LowerSetFamily> families;
      families.push_back(LowerSetFamily::ancestorClosures(g));
      if (g.opCount() <= 12) families.push_back(*LowerSetFamily::allLowerSets(g, 100000));
      for (LowerSetFamily& f : families) {
        REQUIRE(f.useModel(g, kind));
        INFO(g.opCount() << " ops, " << f.size() << " sets, model " << dpModelName(kind));
        const std::size_t n = f.size();
        const auto free = continuationBounds(f, {}, 1);
        REQUIRE(free);
        const std::int64_t least = free->minPeak[0];
        for (const auto& target : std::vector<std::optional<BoundTarget>>{
                 std::nullopt, BoundTarget{2 * least, Strategy::Time}, BoundTarget{2 * least, Strategy::Memory}}) {
          const auto one = continuationBounds(f, {}, 1, target);
          const auto two = continuationBounds(f, {}, 2, target);
          REQUIRE(one);
          REQUIRE(two);
          CHECK(one->minPeak == two->minPeak);
          CHECK(one->minOverhead == two->minOverhead);
          CHECK(one->minCheckpoints == two->minCheckpoints);
          CHECK(one->paths == two->paths);
          // Refined least peaks (every lower set in the simulator's model) only rise above the quick one.
          const bool refined = !f.quickIsExact() && !f.isClosures();
          for (std::size_t i = 0; i + 1 < n; ++i) {
            std::int64_t peak = INT64_MAX;
            std::int64_t overhead = INT64_MAX;
            std::int64_t checkpoints = INT64_MAX;
            for (std::size_t j = i + 1; j < n; ++j) {
              if (f.count(j) == f.count(i) || !f.subset(i, j)) continue;
              const Transition s = f.quickTransition(i, j);
              peak = std::min(peak, std::max(s.base, saturatingAdd(s.dm, one->minPeak[j])));
              overhead = std::min(overhead, saturatingAdd(s.dt, one->minOverhead[j]));
              checkpoints = std::min(checkpoints, saturatingAdd(s.dm, one->minCheckpoints[j]));
            }
            if (refined)
              CHECK(one->minPeak[i] >= peak);
            else
              CHECK(one->minPeak[i] == peak);
            CHECK(one->minOverhead[i] == overhead);
            CHECK(one->minCheckpoints[i] == checkpoints);
            ++checked;
          }
        }
        // Capped at an overhead, the bounds hold for the continuations within it: where the least
        // overhead is within the cap the figure is unchanged, elsewhere it exceeds the cap; and they
        // only tighten.
        const auto uncapped = continuationBounds(f, {}, 2, BoundTarget{2 * least, Strategy::Time});
        REQUIRE(uncapped);
        for (const std::int64_t cap : {std::int64_t{0}, free->minOverhead[0], 2 * free->minOverhead[0] + 1}) {
          BoundTarget capped{2 * least, Strategy::Time};
          capped.overheadCap = cap;
          const auto b = continuationBounds(f, {}, 2, capped);
          REQUIRE(b);
          CHECK(b->overheadCap == cap);
          for (std::size_t i = 0; i < n; ++i) {
            if (free->minOverhead[i] <= cap)
              CHECK(b->minOverhead[i] == free->minOverhead[i]);
            else
              CHECK(b->minOverhead[i] > cap);
            CHECK(b->minPeak[i] >= uncapped->minPeak[i]);
            CHECK(b->minCheckpoints[i] >= uncapped->minCheckpoints[i]);
          }
        }
      }
    }
  }
  CHECK(checked > 2500);
}

TEST_CASE("exact-dp under pins in the paper's model equals a brute force over the sequences that respect them") {
  const Solver& exact = *SolverRegistry::builtin().find("exact-dp");
  std::size_t checked = 0;
  std::size_t unreachable = 0;
  for (const auto& entry : bruteForceGraphs(150)) {
    // Named variables, not a structured binding: the lambdas below capture them (clang 14 cannot).
    const std::uint32_t seed = entry.first;
    const ComputeGraph& g = entry.second;
    std::vector<NodeSet> sets;
    (void)enumerateLowerSets(g, 100000, [&](const NodeSet& s) {
      if (!s.empty()) sets.push_back(s);
      return true;
    });
    // A keep pin and a recompute pin on distinct ops.
    Pins pins;
    const OpIndex pinned{seed % static_cast<std::uint32_t>(g.opCount())};
    pins.keep.push_back(pinned);
    const OpIndex other{(seed * 7 + 3) % static_cast<std::uint32_t>(g.opCount())};
    if (other != pins.keep.front()) pins.recompute.push_back(other);
    // The paper's lowering recomputes every segment member off the segment's boundary, the last
    // segment's too; its checkpoints are the segment's members on the boundary.
    auto respects = [&](const std::vector<NodeSet>& chain) {
      NodeSet previous = emptySet(g);
      for (const NodeSet& l : chain) {
        const NodeSet segment = l - previous;
        const NodeSet edge = boundary(g, l);
        for (OpIndex op : pins.keep)
          if (segment.contains(op) && !edge.contains(op)) return false;
        for (OpIndex op : pins.recompute)
          if (segment.contains(op) && edge.contains(op)) return false;
        previous = l;
      }
      return true;
    };
    std::vector<DpModelCost> kept;
    const bool complete = test::forEachChain(g, sets, 200000, [&](const std::vector<NodeSet>& chain) {
      if (respects(chain)) kept.push_back(evaluateDpModel(g, chain));
    });
    if (!complete) continue;
    ++checked;
    INFO("seed " << seed << ", " << kept.size() << " sequences respect the pins");
    const Solver::MinBudget least = exact.minBudget({.graph = &g, .model = DpModelKind::Paper, .pins = pins});
    if (kept.empty()) {
      ++unreachable;
      CHECK(least.status == SolveStatus::Infeasible);
      const SolveResult r = exact.solve({.graph = &g, .model = DpModelKind::Paper, .pins = pins});
      CHECK(r.status == SolveStatus::Infeasible);
      CHECK_THAT(r.message, Catch::Contains("no lower-set chain"));
      continue;
    }
    Bytes lowest = Bytes::max();
    for (const auto& c : kept) lowest = std::min(lowest, c.peak);
    REQUIRE(least.bytes);
    CHECK(*least.bytes == lowest);
    std::set<std::int64_t> budgets{lowest.value - 1};
    for (const auto& c : kept) budgets.insert(c.peak.value);
    for (std::int64_t b : budgets) {
      std::optional<Ticks> best;
      for (const auto& c : kept)
        if (c.peak.value <= b && (!best || c.overhead < *best)) best = c.overhead;
      INFO("budget " << b);
      const SolveResult r = exact.solve({.graph = &g, .budget = Bytes{b}, .model = DpModelKind::Paper, .pins = pins});
      if (!best) {
        CHECK(r.status == SolveStatus::Infeasible);
        continue;
      }
      REQUIRE(r.plan);
      CHECK(*r.metrics.modelOverhead == *best);
    }
  }
  CHECK(checked >= 100);
  CHECK(unreachable > 0);
}
