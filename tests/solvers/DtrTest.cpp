#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "TestGraphs.hpp"
#include "remat/io/GraphReader.hpp"
#include "remat/sim/MemoryBounds.hpp"
#include "remat/solvers/Dtr.hpp"
#include "remat/solvers/SolverRegistry.hpp"

using namespace remat;
using namespace remat::graph;
using namespace remat::solvers;

namespace {

const Solver& dtr() { return *SolverRegistry::builtin().find("dtr"); }

// At budgets from the single-op minimum up to the plain run's peak, DTR's schedule is legal and its
// simulated peak stays within the budget; below the minimum it refuses and says why.
void checkAcrossBudgets(const ComputeGraph& g, int points) {
  const SolveResult plain = dtr().solve({.graph = &g});
  REQUIRE(plain.status == SolveStatus::Feasible);
  REQUIRE(plain.simulation.valid());
  CHECK(plain.metrics.overhead == Ticks{0});
  const Bytes least = *dtrSingleOpMinimum(g).bytes;
  CHECK(least >= sim::memoryLowerBound(g));
  const Bytes peak = plain.metrics.simulatedPeak;
  REQUIRE(least <= peak);
  for (int k = 0; k <= points; ++k) {
    const Bytes budget{least.value + (peak.value - least.value) * k / points};
    const SolveResult r = dtr().solve({.graph = &g, .budget = budget});
    INFO("budget " << budget.value << " (least " << least.value << ", plain " << peak.value << "): " << r.message);
    REQUIRE(r.plan);
    CHECK(r.simulation.valid());
    CHECK(r.status == SolveStatus::Feasible);
    CHECK(r.metrics.simulatedPeak <= budget);
    CHECK(r.metrics.overhead >= Ticks{0});
    if (k == points) CHECK(r.metrics.overhead == Ticks{0});
  }
  // Just below the minimum DTR's own run at the budget sometimes fits (the minimum's run with everything
  // evicted holds more during its deep rematerializations): then that plan is the answer; otherwise the
  // refusal says why. Below the memory lower bound nothing fits.
  const SolveResult below = dtr().solve({.graph = &g, .budget = Bytes{least.value - 1}});
  if (below.plan) {
    CHECK(below.status == SolveStatus::Feasible);
    CHECK(below.simulation.valid());
    CHECK(below.metrics.simulatedPeak.value <= least.value - 1);
  } else {
    CHECK(below.status == SolveStatus::Infeasible);
    CHECK_THAT(below.message, Catch::Contains("below the single-op minimum of") &&
                                  Catch::Contains(std::to_string(least.value) + " bytes"));
  }
  const SolveResult under = dtr().solve({.graph = &g, .budget = Bytes{sim::memoryLowerBound(g).value - 1}});
  CHECK(under.status == SolveStatus::Infeasible);
  CHECK_FALSE(under.plan);
  CHECK_THAT(under.message, Catch::Contains("below the single-op minimum of"));
}

}  // namespace

TEST_CASE("dtr is registered with its citation and measures the simulated peak") {
  const SolverInfo& info = dtr().info();
  CHECK(info.name == "Dynamic Tensor Rematerialization (h_DTR-eq)");
  CHECK_THAT(info.citation, Catch::Contains("Kirisame") && Catch::Contains("ICLR 2021"));
  CHECK_FALSE(info.exact);
  CHECK(info.budgetMeasure == BudgetMeasure::Simulated);
}

TEST_CASE("dtr without a budget is the plain run") {
  const ComputeGraph g = test::makeRandomDag(25, 3);
  const SolveResult r = dtr().solve({.graph = &g});
  const SolveResult plain = SolverRegistry::builtin().find("store-all")->solve({.graph = &g});
  REQUIRE(r.status == SolveStatus::Feasible);
  CHECK(r.metrics.simulatedPeak == plain.metrics.simulatedPeak);
  CHECK(r.metrics.totalTime == plain.metrics.totalTime);
  CHECK(r.metrics.recomputations == 0);
}

TEST_CASE("dtr stays within every budget from the single-op minimum on chains") {
  for (int n : {1, 2, 5, 12, 40}) {
    INFO("chain of " << n);
    checkAcrossBudgets(test::makeChain(n), 12);
  }
}

TEST_CASE("dtr stays within every budget from the single-op minimum on random DAGs, seeds 1 to 40") {
  for (std::uint32_t seed = 1; seed <= 40; ++seed) {
    INFO("seed " << seed);
    checkAcrossBudgets(test::makeRandomDag(30, seed), 10);
  }
}

TEST_CASE("dtr stays within every budget from the single-op minimum on U-Nets and unet-small") {
  checkAcrossBudgets(test::makeUNet(4), 12);
  auto read = io::readGraphFile(std::string(REMAT_SOURCE_DIR) + "/datasets/unet-small.json");
  REQUIRE(read);
  checkAcrossBudgets(read.value(), 12);
}

// DTR is not monotone in its budget: on some graphs its greedy run at a budget above the single-op
// minimum gets stuck (a deep rematerialization holding its callers' operands leaves nothing evictable).
// There the plan is its run with a lower eviction threshold, and the budget is still met. These two
// random DAGs have such budgets (seed 4 at the 5 lowest of these 61, seed 11 at the 4th to 7th); the
// test checks at each that DTR's own run does not fit, so the fallback was needed.
TEST_CASE("dtr meets every budget from the single-op minimum even where its greedy run gets stuck") {
  int fallbacks = 0;
  for (std::uint32_t seed : {4u, 11u}) {
    const ComputeGraph g = test::makeRandomDag(20, seed, 0.3);
    const Bytes least = *dtrSingleOpMinimum(g).bytes;
    const Bytes peak = dtr().solve({.graph = &g}).metrics.simulatedPeak;
    for (int k = 0; k <= 60; ++k) {
      const Bytes budget{least.value + (peak.value - least.value) * k / 60};
      const SolveResult r = dtr().solve({.graph = &g, .budget = budget});
      INFO("seed " << seed << " budget " << budget.value << ": " << r.message);
      REQUIRE(r.status == SolveStatus::Feasible);
      CHECK(r.metrics.simulatedPeak <= budget);
      if (r.message.find("not monotone") != std::string::npos) {
        ++fallbacks;
        // Without the lower threshold, DTR's own run at this budget does not fit it.
        const DtrRun greedy = runDtr(g, budget);
        CHECK(greedy.stuck);
        CHECK(sim::Simulator(g).run(greedy.schedule).peak > budget);
      }
    }
  }
  CHECK(fallbacks >= 9);
}

TEST_CASE("dtr's least budget is met by its plan") {
  for (std::uint32_t seed = 1; seed <= 10; ++seed) {
    INFO("seed " << seed);
    const ComputeGraph g = test::makeRandomDag(30, seed);
    const auto least = dtr().minBudget({.graph = &g});
    REQUIRE(least.bytes);
    CHECK(*least.bytes >= *dtrSingleOpMinimum(g).bytes);
    const SolveResult r = solveAtLeastBudget(dtr(), {.graph = &g});
    CHECK(r.status == SolveStatus::Feasible);
    CHECK(r.metrics.simulatedPeak <= *least.bytes);
  }
}

TEST_CASE("h_DTR prefers evicting cheap, large, stale tensors") {
  CHECK(dtrScore(1, 100, 3) < dtrScore(10, 100, 3));  // cheaper
  CHECK(dtrScore(1, 100, 3) < dtrScore(1, 50, 3));    // larger
  CHECK(dtrScore(1, 100, 3) < dtrScore(1, 100, 1));   // staler

  // a, b, c read only the (0-byte) input and keep their own outputs for their backwards, so all three
  // stay resident until the backward pass; d is then computed and needs 100 more bytes.
  //   a: 100 bytes, time 1, computed at clock 1   b: 100 bytes, time 10, clock 2   c: 50 bytes, time 1, clock 3
  // At d (clock 4) the staleness is a 3, b 2, c 1 and no neighbour is evicted, so
  //   h(a) = 1 / (100 * 3) = 0.0033,  h(b) = 10 / (100 * 2) = 0.05,  h(c) = 1 / (50 * 1) = 0.02.
  // With a budget of 260, 250 + 100 exceeds it by 90: one eviction, of a (cheap, large and stale), fits.
  const ComputeGraph g = test::makeGraph({
      {"a", {"x"}, 100, 1, {}, true},
      {"b", {"x"}, 100, 10, {}, true},
      {"c", {"x"}, 50, 1, {}, true},
      {"d", {"x"}, 100, 1, {}, false},
  });
  const DtrRun run = runDtr(g, Bytes{260});
  REQUIRE_FALSE(run.stuck);
  REQUIRE_FALSE(run.evicted.empty());
  CHECK(g.node(run.evicted.front()).name == "a");
  const SolveResult r = dtr().solve({.graph = &g, .budget = Bytes{260}});
  CHECK(r.status == SolveStatus::Feasible);
  CHECK(r.metrics.simulatedPeak <= Bytes{260});
  CHECK(r.metrics.overhead == Ticks{1});  // a is recomputed once, for its backward
}

TEST_CASE("h_DTR-eq charges the evicted neighbourhood") {
  // x -> p -> q, and r, s reading x only; p, q and r keep their outputs for their backwards (q also
  // keeps p), so they stay resident through the forward pass. Every value is 10 bytes; the budget is 20.
  //   p: time 3, clock 1, last read by q at clock 2    q: time 2, clock 2    r: time 2, clock 3
  // At r (clock 3), p and q hold 20 and r needs 10 more: h(p) = 3/(10*1) = 0.3, h(q) = 2/(10*1) = 0.2,
  // so q is evicted and forms its own class, of cost 2.
  // At s (clock 4), p and r hold 20 and s needs 10 more. q is an evicted neighbour of p, so h_DTR-eq
  // charges p its own 3 plus q's class 2: h(p) = 5/(10*2) = 0.25, while h(r) = 2/(10*1) = 0.2: r goes.
  // (Plain h_DTR would charge p only 3, h(p) = 0.15, and evict p instead.)
  const ComputeGraph g = test::makeGraph({
      {"p", {"x"}, 10, 3, {}, true},
      {"q", {"p"}, 10, 2, {0}, true},
      {"r", {"x"}, 10, 2, {}, true},
      {"s", {"x"}, 10, 1, {}, false},
  });
  const DtrRun run = runDtr(g, Bytes{20});
  REQUIRE(run.evicted.size() >= 2);
  CHECK(g.node(run.evicted[0]).name == "q");
  CHECK(g.node(run.evicted[1]).name == "r");
  // The backward of q needs 40 bytes (its seed gradient, p's gradient, p and q), so 20 is below the
  // single-op minimum as a whole plan.
  CHECK(*dtrSingleOpMinimum(g).bytes == Bytes{40});
  CHECK(dtr().solve({.graph = &g, .budget = Bytes{20}}).status == SolveStatus::Infeasible);
}

TEST_CASE("dtr stops when cancelled") {
  const ComputeGraph g = test::makeRandomDag(30, 1);
  std::stop_source stop;
  stop.request_stop();
  const SolveResult r = dtr().solve({.graph = &g, .budget = *dtrSingleOpMinimum(g).bytes, .stop = stop.get_token()});
  CHECK(r.status == SolveStatus::Cancelled);
}

TEST_CASE("dtr obeys its work limit where its run thrashes") {
  // Modules of three two-op branches from one input, joined by a concat (inception's shape). With
  // everything evicted (a budget of one byte, or the run that measures the single-op minimum) the concat's
  // rematerialization recomputes each branch, and each branch its module's input, which is the previous concat: three
  // times the previous module's work, 3^20 in all, far more than any run finishes. The solver must
  // still answer, `time-limit`, once its limit is spent (here a limit of work: a hundred thousand steps).
  std::vector<test::OpSketch> ops;
  std::string in = "x";
  for (int m = 0; m < 20; ++m) {
    const std::string p = "m" + std::to_string(m);
    std::vector<std::string> ends;
    for (int b = 0; b < 3; ++b) {
      const std::string first = p + "b" + std::to_string(b) + "a";
      const std::string second = p + "b" + std::to_string(b) + "b";
      ops.push_back({first, {in}, 10, 1, {0}, false});
      ops.push_back({second, {first}, 10, 1, {0}, false});
      ends.push_back(second);
    }
    ops.push_back({p + "cat", ends, 30, 1, {}, false, "Concat"});
    in = p + "cat";
  }
  const ComputeGraph g = test::makeGraph(ops, 10);
  // Without the limit the run takes hours: ctest's timeout (tests/CMakeLists.txt) would fail it.
  const SolveResult r = dtr().solve({.graph = &g, .budget = Bytes{1}, .workLimit = 100'000});
  CHECK(r.status == SolveStatus::TimeLimit);
  const auto least = dtr().minBudget({.graph = &g, .workLimit = 100'000});
  CHECK(least.status == SolveStatus::TimeLimit);
}

TEST_CASE("dtr rematerializes through a chain deeper than the call stack would allow") {
  // A rematerialization recomputes evicted ancestors first; on a 100,000-op chain its recursion
  // overflowed the call stack (a segfault) before it ran on a stack of its own.
  auto g = test::makeChain(100000);
  const SolveResult r = SolverRegistry::builtin().find("dtr")->solve({.graph = &g, .budget = Bytes{2000}});
  INFO(r.message);
  CHECK(r.plan);
}
