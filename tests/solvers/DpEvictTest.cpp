// dp-evict (solver/solvers/search): the DP's plans refined by evictions. Its schedules are judged by the
// simulator like every solver's (SolverPropertyTest); here, what it promises beyond that: never worse
// than the DP's plan at the same budget, plans where no lower-set chain fits, a least budget it meets.

#include <catch2/catch.hpp>

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
