// dp-evict (solver/solvers/search): the DP's plans refined by evictions. Its schedules are judged by the
// simulator like every solver's (SolverPropertyTest); here, what it promises beyond that: never worse
// than the DP's plan at the same budget, plans where no lower-set chain fits, a least budget it meets.

#include <catch2/catch.hpp>

#include "Sanitized.hpp"
#include "TestGraphs.hpp"
#include "remat/io/GraphReader.hpp"
#include "remat/sim/Simulator.hpp"
#include "remat/solvers/Comparison.hpp"
#include "remat/solvers/DpEvict.hpp"
#include "remat/solvers/SolverRegistry.hpp"

using namespace remat;
using namespace remat::solvers;

TEST_CASE("dp-evict is never worse than exact-dp at the same budget, and every plan fits it") {
  const Solver& exact = *SolverRegistry::builtin().find("exact-dp");
  const Solver& evict = *SolverRegistry::builtin().find("dp-evict");
  std::size_t compared = 0;
  std::size_t better = 0;
  for (std::uint32_t seed = 1; seed <= 12; ++seed) {
    const graph::ComputeGraph g = test::makeRandomDag(10 + int(seed % 8), seed, 0.3);
    const Bytes least = *exact.minBudget({.graph = &g}).bytes;
    const Bytes plain = SolverRegistry::builtin().plainRun().solve({.graph = &g}).metrics.simulatedPeak;
    for (int k = 0; k <= 4; ++k) {
      const Bytes budget{least.value + (plain.value - least.value) * k / 4};
      INFO("seed " << seed << ", budget " << budget.value);
      const SolveResult dp = exact.solve({.graph = &g, .budget = budget});
      const SolveResult r = evict.solve({.graph = &g, .budget = budget});
      REQUIRE(r.call == CallStatus::Ok);
      REQUIRE(r.plan);
      CHECK(r.metrics.simulatedPeak <= budget);
      CHECK(fitsBudget(r));
      if (dp.plan && fitsBudget(dp)) {
        CHECK(r.metrics.overhead <= dp.metrics.overhead);
        better += r.metrics.overhead < dp.metrics.overhead ? 1 : 0;
      }
      ++compared;
    }
  }
  CHECK(compared == 60);
  INFO(better << " of " << compared << " budgets with less overhead than exact-dp");
  CHECK(better > 0);  // the search does find schedules outside the two-level class
}

TEST_CASE("dp-evict fits budgets below every lower-set chain's, where a segment's backward needs less") {
  // A U-Net: the long skip connections keep the encoder's outputs alive until the decoder's backward,
  // and no chain of lower sets reaches much below its least budget; recomputing inside a segment's
  // backward does.
  const graph::ComputeGraph g = test::makeUNet(4, 4096);
  const Solver& exact = *SolverRegistry::builtin().find("exact-dp");
  const Solver& evict = *SolverRegistry::builtin().find("dp-evict");
  const Bytes least = *exact.minBudget({.graph = &g}).bytes;
  std::size_t below = 0;
  for (int percent = 99; percent >= 60; percent -= 3) {
    const Bytes budget{least.value * percent / 100};
    const SolveResult dp = exact.solve({.graph = &g, .budget = budget});
    CHECK_FALSE(fitsBudget(dp));
    const SolveResult r = evict.solve({.graph = &g, .budget = budget});
    if (!r.plan) break;
    CHECK(r.metrics.simulatedPeak <= budget);
    ++below;
  }
  CHECK(below >= 1);
}

TEST_CASE("dp-evict's least budget is at most the DP's, a solve there fits it, and it stops when told") {
  const graph::ComputeGraph g = test::makeUNet(3, 1024);
  const Solver& exact = *SolverRegistry::builtin().find("exact-dp");
  const Solver& evict = *SolverRegistry::builtin().find("dp-evict");
  const Solver::MinBudget dpLeast = exact.minBudget({.graph = &g});
  const Solver::MinBudget least = evict.minBudget({.graph = &g});
  REQUIRE(least.bytes);
  CHECK(least.status == SolveStatus::Optimal);
  // The DP's least is in its model; the simulated peak of its plan there is at most that.
  CHECK(*least.bytes <= *dpLeast.bytes);
  const SolveResult at = evict.solve({.graph = &g, .budget = least.bytes});
  REQUIRE(at.plan);
  CHECK(fitsBudget(at));
  CHECK(at.metrics.simulatedPeak <= *least.bytes);
  // No budget: nothing to recompute, the plain run.
  const SolveResult open = evict.solve({.graph = &g});
  REQUIRE(open.plan);
  CHECK(open.metrics.overhead.value == 0);
  // A work limit of one unit stops the search: status time-limit.
  const Bytes tight{SolverRegistry::builtin().plainRun().solve({.graph = &g}).metrics.simulatedPeak.value / 2};
  const SolveResult stopped = evict.solve({.graph = &g, .budget = tight, .workLimit = 1});
  CHECK(stopped.status == SolveStatus::TimeLimit);
}

// On this transformer block the evictions from the DP's plans stop at 33,772 bytes, above DTR's single-op
// minimum (32,748): recomputing an attention block's inputs on demand needs more than one eviction at a
// time. DTR's plan there is one of the least-budget search's starting points, and the annealing from it
// never costs more than DTR's own plan.
TEST_CASE("dp-evict's least budget is at most DTR's, with no more overhead than DTR's plan there") {
  const auto read = io::readGraphFile(std::string(REMAT_SOURCE_DIR) + "/datasets/small/transformer-block.json");
  REQUIRE(read);
  const graph::ComputeGraph& g = read.value();
  const Solver& evict = *SolverRegistry::builtin().find("dp-evict");
  const Solver& dtr = *SolverRegistry::builtin().find("dtr");
  const Solver::MinBudget dtrLeast = dtr.minBudget({.graph = &g});
  const Solver::MinBudget least = evict.minBudget({.graph = &g});
  REQUIRE(dtrLeast.bytes);
  REQUIRE(least.bytes);
  CHECK(*least.bytes <= *dtrLeast.bytes);
  const SolveResult dtrAt = dtr.solve({.graph = &g, .budget = dtrLeast.bytes});
  const SolveResult evictAt = evict.solve({.graph = &g, .budget = dtrLeast.bytes});
  REQUIRE(dtrAt.plan);
  REQUIRE(evictAt.plan);
  CHECK(fitsBudget(evictAt));
  CHECK(evictAt.metrics.overhead <= dtrAt.metrics.overhead);
}

TEST_CASE("evictToBudget leaves a schedule that fits as it is, and lowers one that does not") {
  const graph::ComputeGraph g = test::makeChain(12, 100);
  const SolveResult plain = SolverRegistry::builtin().plainRun().solve({.graph = &g});
  REQUIRE(plain.plan);
  TimeLimit none;
  std::size_t moves = 99;
  const auto same = evictToBudget(g, plain.plan->schedule, plain.metrics.simulatedPeak, none, &moves);
  REQUIRE(same);
  CHECK(*same == plain.plan->schedule);
  CHECK(moves == 0);
  const Bytes lower{plain.metrics.simulatedPeak.value * 3 / 4};
  const auto lowered = evictToBudget(g, plain.plan->schedule, lower, none, &moves);
  REQUIRE(lowered);
  CHECK(moves > 0);
  const sim::SimulationResult r = sim::Simulator(g).run(*lowered);
  REQUIRE(r.valid());
  CHECK(r.peak <= lower);
  CHECK(r.overhead.value > 0);
}

// On a graph computed as given (no backward pass, no DP) dp-evict starts from the forward orders fastsa
// anneals from, the file's and a low-memory one, and takes fastsa's plan at the budget as the plan to beat.
TEST_CASE("dp-evict on graphs computed as given: an order that fits recomputes nothing, never worse than fastsa") {
  const Solver& evict = *SolverRegistry::builtin().find("dp-evict");
  const Solver& fastsa = *SolverRegistry::builtin().find("fastsa");
  SECTION("two branches the file interleaves: computing one after the other fits without recomputing") {
    // File order a1, b1, a2, b2: both 100-byte values are alive at b1 (peak 200 + 1); a1, a2, b1, b2
    // frees a1 before b1 (peak 101 + 1).
    const graph::ComputeGraph g = test::makeGraph({{"a1", {"x"}, 100, 5},
                                                   {"b1", {"x"}, 100, 5},
                                                   {"a2", {"a1"}, 1, 1},
                                                   {"b2", {"b1"}, 1, 1},
                                                   {"out", {"a2", "b2"}, 1, 1}})
                                      .computedAsGiven();
    const SolveResult plain = SolverRegistry::builtin().plainRun().solve({.graph = &g});
    const Bytes budget{plain.metrics.simulatedPeak.value * 3 / 4};
    const SolveResult r = evict.solve({.graph = &g, .budget = budget});
    REQUIRE(r.plan);
    CHECK(fitsBudget(r));
    CHECK(r.metrics.overhead.value == 0);
    CHECK_THAT(r.message, Catch::Contains("low-memory order") && Catch::Contains("within the budget as it is"));
  }
  SECTION("random DAGs: at or below fastsa's overhead at every budget, and its least met") {
    std::size_t compared = 0;
    // Every second seed under the sanitizers (tests/support/Sanitized.hpp): each runs fastsa's searches
    // several times over.
    for (std::uint32_t seed = 1; seed <= 6; seed += test::kSanitized ? 2 : 1) {
      const graph::ComputeGraph g = test::makeRandomDag(12 + int(seed % 5), seed, 0.3).computedAsGiven();
      const Bytes plain = SolverRegistry::builtin().plainRun().solve({.graph = &g}).metrics.simulatedPeak;
      const Solver::MinBudget least = evict.minBudget({.graph = &g, .seed = seed});
      REQUIRE(least.bytes);
      const Solver::MinBudget saLeast = fastsa.minBudget({.graph = &g, .seed = seed});
      REQUIRE(saLeast.bytes);
      CHECK(*least.bytes <= *saLeast.bytes);  // fastsa's plan at its least is one of the starts
      for (int k = 0; k <= 3; ++k) {
        const Bytes budget{least.bytes->value + (plain.value - least.bytes->value) * k / 3};
        INFO("seed " << seed << ", budget " << budget.value);
        const SolveResult r = evict.solve({.graph = &g, .budget = budget, .seed = seed});
        REQUIRE(r.plan);
        CHECK(fitsBudget(r));
        for (const sim::Step& step : r.plan->schedule)
          CHECK((step.kind == sim::StepKind::Forward || step.kind == sim::StepKind::Free));
        const SolveResult sa = fastsa.solve({.graph = &g, .budget = budget, .seed = seed});
        if (sa.plan && fitsBudget(sa)) CHECK(r.metrics.overhead <= sa.metrics.overhead);
        ++compared;
      }
      const Solver::TradeOff front = evict.tradeOff({.graph = &g, .seed = seed}, 4);
      CHECK(front.status == SolveStatus::Optimal);
      for (const auto& p : front.plans) CHECK(p.metrics.simulatedPeak <= p.budget);
    }
    CHECK(compared == (test::kSanitized ? 12 : 24));
  }
}
