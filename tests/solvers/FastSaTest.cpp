// fastsa (solver/solvers/search): simulated annealing over where each forward is computed. Its
// schedules are judged by the simulator like every solver's (SolverPropertyTest); here, what it promises
// beyond that: its own memory model agrees with the simulator, a seed repeats a run, its plans fit, and a
// solve at its least budget finds a plan.

#include <catch2/catch.hpp>

#include "TestGraphs.hpp"
#include "remat/io/GraphReader.hpp"
#include "remat/sim/CanonicalSchedule.hpp"
#include "remat/sim/Simulator.hpp"
#include "remat/solvers/Comparison.hpp"
#include "remat/solvers/FastSa.hpp"
#include "remat/solvers/SolverRegistry.hpp"

using namespace remat;
using namespace remat::solvers;

namespace {

// The annealer's peak of a schedule before any move, against the simulator's.
void checkModelAgrees(const graph::ComputeGraph& g, const sim::Schedule& schedule) {
  const sim::SimulationResult s = sim::Simulator(g).run(schedule);
  REQUIRE(s.valid());
  TimeLimit limit;
  const AnnealResult r = anneal(g, Bytes{0}, 1, 0, limit, &schedule);
  REQUIRE(r.schedule);
  CHECK(r.modelPeak == s.peak);
  CHECK(r.modelOverhead == s.overhead);
  // The schedule it gives back is the same computation, frees made explicit.
  const sim::SimulationResult back = sim::Simulator(g).run(*r.schedule);
  REQUIRE(back.valid());
  CHECK(back.peak == s.peak);
  CHECK(back.overhead == s.overhead);
}

}  // namespace

TEST_CASE("fastsa's memory model gives the simulator's peak for the plain run and the DP's plans") {
  const Solver& exact = *SolverRegistry::builtin().find("exact-dp");
  for (std::uint32_t seed = 1; seed <= 8; ++seed) {
    const graph::ComputeGraph g = test::makeRandomDag(10 + int(seed % 6), seed, 0.3);
    INFO("seed " << seed);
    checkModelAgrees(g, sim::storeAllSchedule(g));
    const Bytes least = *exact.minBudget({.graph = &g}).bytes;
    const SolveResult dp = exact.solve({.graph = &g, .budget = least});
    REQUIRE(dp.plan);
    checkModelAgrees(g, dp.plan->schedule);
  }
  // A real network with views (Flatten), parameters, workspaces and non-differentiable ops.
  const auto read = io::readGraphFile(std::string(REMAT_SOURCE_DIR) + "/datasets/resnet50.json");
  REQUIRE(read);
  checkModelAgrees(read.value(), sim::storeAllSchedule(read.value()));
}

TEST_CASE("fastsa's memory model still gives the simulator's peak after thousands of moves") {
  // A move changes the lifetimes in the segment tree by their differences only (FastSa.cpp, refresh); a
  // difference missed or counted twice would leave the tree's peak off the schedule's after a run.
  for (std::uint32_t seed = 1; seed <= 8; ++seed) {
    const graph::ComputeGraph g = test::makeRandomDag(12 + int(seed % 6), seed, 0.3);
    INFO("seed " << seed);
    const Bytes plain = sim::Simulator(g).run(sim::storeAllSchedule(g)).peak;
    for (const Bytes budget : {Bytes{plain.value / 2}, Bytes{0}}) {
      TimeLimit limit;
      const AnnealResult r = anneal(g, budget, seed, 20'000, limit);
      REQUIRE(r.schedule);
      CHECK(r.accepted > 100);
      const sim::SimulationResult s = sim::Simulator(g).run(*r.schedule);
      REQUIRE(s.valid());
      CHECK(r.modelPeak == s.peak);
      CHECK(r.modelOverhead == s.overhead);
      if (budget.value == 0) CHECK(s.peak < plain);
    }
  }
}

TEST_CASE("fastsa's plans fit their budgets, the same seed repeats a plan, and its least budget is met") {
  const Solver& fastsa = *SolverRegistry::builtin().find("fastsa");
  for (std::uint32_t seed = 1; seed <= 6; ++seed) {
    const graph::ComputeGraph g = test::makeRandomDag(12 + int(seed % 5), seed, 0.3);
    INFO("seed " << seed);
    const Solver::MinBudget least = fastsa.minBudget({.graph = &g, .workLimit = 20'000'000});
    REQUIRE(least.bytes);
    const Bytes plain = SolverRegistry::builtin().plainRun().solve({.graph = &g}).metrics.simulatedPeak;
    CHECK(*least.bytes <= plain);
    for (int k = 0; k <= 2; ++k) {
      const Bytes budget{least.bytes->value + (plain.value - least.bytes->value) * k / 2};
      const SolveResult r = fastsa.solve({.graph = &g, .budget = budget, .seed = 7});
      REQUIRE(r.call == CallStatus::Ok);
      REQUIRE(r.plan);
      CHECK(fitsBudget(r));
      CHECK(r.metrics.simulatedPeak <= budget);
      const SolveResult again = fastsa.solve({.graph = &g, .budget = budget, .seed = 7});
      REQUIRE(again.plan);
      CHECK(again.plan->schedule == r.plan->schedule);
    }
  }
}

TEST_CASE("fastsa beats the plain run's memory by recomputing, and without a budget is the plain run") {
  const graph::ComputeGraph g = test::makeChain(40, 100);
  const Solver& fastsa = *SolverRegistry::builtin().find("fastsa");
  const SolveResult plain = fastsa.solve({.graph = &g});
  REQUIRE(plain.plan);
  CHECK(plain.plan->schedule == sim::storeAllSchedule(g));
  CHECK(plain.metrics.overhead.value == 0);
  // A chain of 40 fits in a third of its plain peak with recomputation (√n checkpoints need ~2√n
  // values; exact-dp's least is 1,100 of 4,200 bytes).
  const Bytes budget{plain.metrics.simulatedPeak.value / 3};
  const SolveResult r = fastsa.solve({.graph = &g, .budget = budget});
  REQUIRE(r.plan);
  CHECK(fitsBudget(r));
  CHECK(r.metrics.overhead.value > 0);
  // Another seed is another run, and still fits.
  const SolveResult other = fastsa.solve({.graph = &g, .budget = budget, .seed = 99});
  REQUIRE(other.plan);
  CHECK(fitsBudget(other));
}

TEST_CASE("fastsa stops at its work limit with the best plan so far or none, and at its memory limit") {
  const graph::ComputeGraph g = test::makeChain(30, 100);
  const Solver& fastsa = *SolverRegistry::builtin().find("fastsa");
  const Bytes plain = fastsa.solve({.graph = &g}).metrics.simulatedPeak;
  const SolveResult r = fastsa.solve({.graph = &g, .budget = Bytes{plain.value / 3}, .workLimit = 1000});
  CHECK(r.call == CallStatus::Ok);
  CHECK((r.status == SolveStatus::TimeLimit));
  if (r.plan) CHECK(fitsBudget(r));
  // A memory limit below what its slots need: status limit, saying so, before any work.
  const Bytes need = annealMemory(g);
  CHECK(need.value > 11520);  // at least the slots' leaves and owners (30 ops, 2 steps each, 16 slots a step, 12 bytes)
  const SolveResult small = fastsa.solve({.graph = &g, .budget = Bytes{plain.value / 3}, .memoryLimit = Bytes{1024}});
  CHECK(small.status == SolveStatus::Limit);
  CHECK_THAT(small.message, Catch::Contains("more than the memory limit"));
  CHECK(fastsa.minBudget({.graph = &g, .memoryLimit = Bytes{1024}}).status == SolveStatus::Limit);
  // dp-evict then keeps its plan unannealed, and still answers.
  const SolveResult evict =
      SolverRegistry::builtin()
          .find("dp-evict")
          ->solve({.graph = &g, .budget = Bytes{plain.value / 2}, .memoryLimit = Bytes{need.value - 1}});
  CHECK(evict.plan);
}

TEST_CASE("fastsa plans a graph computed as given: reordering is free, recomputation costs") {
  // x -> a -> c, x -> b -> d, (c, d) -> y, in that file order: the plain run holds a, b and c together
  // (x, 8 bytes, beside); computing c right after a needs only one of a and b at a time, so that d's step
  // (b, c and d) is the highest.
  const graph::ComputeGraph g = test::makeGraph({{"a", {"x"}, 100, 3},
                                                 {"b", {"x"}, 100, 3},
                                                 {"c", {"a"}, 10, 1},
                                                 {"d", {"b"}, 10, 1},
                                                 {"y", {"c", "d"}, 10, 1}},
                                                8)
                                    .computedAsGiven();
  const Solver& fastsa = *SolverRegistry::builtin().find("fastsa");
  const SolveResult plain = SolverRegistry::builtin().plainRun().solve({.graph = &g});
  CHECK(plain.metrics.simulatedPeak == Bytes{8 + 210});
  const SolveResult r = fastsa.solve({.graph = &g, .budget = Bytes{8 + 120}});
  REQUIRE(r.plan);
  CHECK(fitsBudget(r));
  CHECK(r.metrics.overhead.value == 0);  // the order changed, nothing was computed twice
  CHECK(r.plan->schedule.size() < plain.plan->schedule.size() + 6);
  // Its least is that order's peak, the least of any schedule here (c must live until y).
  const Solver::MinBudget least = fastsa.minBudget({.graph = &g});
  REQUIRE(least.bytes);
  CHECK(*least.bytes == Bytes{8 + 120});
  checkModelAgrees(g, r.plan->schedule);
}

TEST_CASE("lowMemoryOrder finds the order that finishes one branch before starting the next") {
  // Six branches x -> a_i (100 bytes) -> c_i (10 bytes), joined by y; the file computes every a_i before
  // any c_i, so the plain run holds all six a_i (and then some c_i). Branch by branch, at most one a_i
  // lives at a time beside the finished c_j: the last branch's step c_6 holds c_1..c_5, a_6 and c_6.
  std::vector<test::OpSketch> ops;
  std::vector<std::string> tails;
  for (int i = 1; i <= 6; ++i) ops.push_back({"a" + std::to_string(i), {"x"}, 100, 3});
  for (int i = 1; i <= 6; ++i) {
    ops.push_back({"c" + std::to_string(i), {"a" + std::to_string(i)}, 10, 1});
    tails.push_back("c" + std::to_string(i));
  }
  ops.push_back({"y", tails, 10, 1});
  const graph::ComputeGraph g = test::makeGraph(ops, 8).computedAsGiven();
  const sim::SimulationResult plain = sim::Simulator(g).run(sim::storeAllSchedule(g));
  CHECK(plain.peak == Bytes{8 + 6 * 100 + 10});
  TimeLimit none;
  const auto order = lowMemoryOrder(g, Bytes{0}, 16, none);
  REQUIRE(order);
  CHECK(order->size() == g.opCount());  // every op once, forwards only
  const sim::SimulationResult r = sim::Simulator(g).run(*order);
  REQUIRE(r.valid());
  CHECK(r.overhead.value == 0);
  CHECK(r.peak == Bytes{8 + 5 * 10 + 100 + 10});
  // A work limit stops it.
  TimeLimit tight({}, std::nullopt, 3);
  CHECK_FALSE(lowMemoryOrder(g, Bytes{0}, 16, tight));
  // fastsa reaches that order's peak at no cost.
  const SolveResult planned = SolverRegistry::builtin().find("fastsa")->solve({.graph = &g, .budget = r.peak});
  REQUIRE(planned.plan);
  CHECK(fitsBudget(planned));
  CHECK(planned.metrics.overhead.value == 0);
}
