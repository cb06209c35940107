#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <thread>

#include "Sanitized.hpp"
#include "TestGraphs.hpp"
#include "remat/graph/LowerSets.hpp"
#include "remat/sim/CanonicalSchedule.hpp"
#include "remat/sim/MemoryBounds.hpp"
#include "remat/solvers/ChenCuts.hpp"
#include "remat/solvers/Comparison.hpp"
#include "remat/solvers/DpModel.hpp"
#include "remat/solvers/DpSolvers.hpp"
#include "remat/solvers/SolverRegistry.hpp"
#include "remat/solvers/StoreAll.hpp"

using namespace remat;
using namespace remat::graph;
using namespace remat::solvers;

namespace {

// The vanilla peak with liveness, computed independently of the simulator from live intervals over the
// store-all order: a value lives from its forward to its last use, a gradient from the first backward
// that produces it to its own backward, a parameter gradient from its first producer to the end.
Bytes vanillaPeakByIntervals(const ComputeGraph& g) {
  const std::uint32_t first = g.firstOp();
  const std::uint32_t n = static_cast<std::uint32_t>(g.size());
  const std::uint32_t ops = n - first;
  auto fwdStep = [&](std::uint32_t v) { return v - first; };
  auto bwdStep = [&](std::uint32_t v) { return ops + (n - 1 - v); };
  const std::uint32_t steps = 2 * ops;
  std::vector<std::int64_t> delta(steps + 1, 0);
  auto live = [&](std::uint32_t from, std::uint32_t to, std::int64_t bytes) {
    delta[from] += bytes;
    delta[to + 1] -= bytes;
  };
  std::map<std::uint32_t, std::uint32_t> paramFirst;
  for (std::uint32_t v = first; v < n; ++v) {
    const Node& node = g.node(NodeId{v});
    std::uint32_t last = fwdStep(v);
    for (NodeId w : g.successors(NodeId{v})) last = std::max(last, fwdStep(w.value));
    for (NodeId w : g.successors(NodeId{v})) {
      const Node& consumer = g.node(w);
      for (std::uint32_t k : consumer.saves.inputs)
        if (consumer.inputs[k].value == v) last = std::max(last, bwdStep(w.value));
    }
    if (node.saves.output) last = std::max(last, bwdStep(v));
    live(fwdStep(v), last, node.bytes.value);
    std::uint32_t gradFrom = bwdStep(v);
    for (NodeId w : g.successors(NodeId{v})) gradFrom = std::min(gradFrom, bwdStep(w.value));
    live(gradFrom, bwdStep(v), node.bytes.value);
    for (NodeId p : node.inputs)
      if (g.node(p).kind == NodeKind::Param) {
        auto [it, fresh] = paramFirst.emplace(p.value, bwdStep(v));
        if (!fresh) it->second = std::min(it->second, bwdStep(v));
      }
  }
  for (auto [p, from] : paramFirst) live(from, steps - 1, g.node(NodeId{p}).bytes.value);
  std::int64_t current = g.paramBytes().value + g.inputBytes().value;
  std::int64_t peak = 0;
  for (std::uint32_t s = 0; s < steps; ++s) {
    current += delta[s];
    const graph::Node& node = g.node(NodeId{s < ops ? first + s : n - 1 - (s - ops)});
    peak = std::max(peak, current + (s < ops ? node.workspace : node.bwdWorkspace).value);
  }
  return Bytes{peak};
}

struct Family {
  std::string name;
  ComputeGraph graph;
};

std::vector<Family> families() {
  std::vector<Family> out;
  for (int n : {1, 2, 7, 30}) out.push_back({"chain" + std::to_string(n), test::makeChain(n)});
  out.push_back(
      {"diamond", test::makeGraph({{"a", {"x"}, 10}, {"b", {"a"}, 20}, {"c", {"a"}, 30}, {"d", {"b", "c"}, 40}})});
  for (int d : {1, 3, 5}) out.push_back({"unet" + std::to_string(d), test::makeUNet(d)});
  // Under the sanitizers every second seed (tests/support/Sanitized.hpp); the dev run takes all 25.
  for (std::uint32_t seed = 1; seed <= 25; seed += test::kSanitized ? 2 : 1)
    out.push_back({"random-seed" + std::to_string(seed), test::makeRandomDag(3 + int(seed % 17), seed)});
  return out;
}

}  // namespace

TEST_CASE("store-all equals the vanilla liveness peak computed from live intervals") {
  const Solver& storeAll = *SolverRegistry::builtin().find("store-all");
  for (const auto& f : families()) {
    INFO(f.name);
    SolveResult r = storeAll.solve({.graph = &f.graph});
    REQUIRE(r.status == SolveStatus::Optimal);
    CHECK(r.metrics.simulatedPeak == vanillaPeakByIntervals(f.graph));
    CHECK(r.metrics.overhead == Ticks{0});
    CHECK_FALSE(r.metrics.modelPeak);
  }
}

TEST_CASE("every solver's schedule simulates as valid, with and without a budget") {
  const std::vector<Family> all = families();
  for (std::size_t k = 0; k < all.size(); ++k) {
    const Family& f = all[k];
    // Under the sanitizers milp and lp-bound run on every second family: CBC (not instrumented) allocates
    // so much through ASan's allocator that their calls were most of this test's minute there; the
    // formulation and decoding, Remat's code, run on the other half and in MilpTest.
    const bool withCbc = !test::kSanitized || k % 2 == 0;
    const Bytes vanilla = SolverRegistry::builtin().find("store-all")->solve({.graph = &f.graph}).metrics.simulatedPeak;
    for (std::optional<Bytes> budget :
         {std::optional<Bytes>{}, std::optional<Bytes>{vanilla}, std::optional<Bytes>{Bytes{vanilla.value * 3 / 4}},
          std::optional<Bytes>{Bytes{1}}}) {
      std::map<std::string, SolveResult> answers;
      for (const auto& solver : SolverRegistry::builtin().solvers()) {
        if (!withCbc && solver->info().wantsTimeLimit) continue;
        INFO(f.name << " " << solver->info().id << " budget " << (budget ? budget->value : -1));
        SolveRequest request{.graph = &f.graph, .budget = budget};
        // CBC's branch and bound has no useful worst case (here up to 10 s on some random DAGs at 3/4 of the
        // peak); a short limit keeps the test short. Where it runs out, milp answers time-limit with its
        // incumbent and bound, checked like any other answer; MilpTest proves optimality on smaller graphs.
        if (solver->info().id == "milp") request.timeLimit = std::chrono::milliseconds(200);
        SolveResult r = solver->solve(request);
        CHECK(r.call == CallStatus::Ok);
        CHECK(r.status != SolveStatus::NotSolved);
        if (r.plan) {
          CHECK(r.simulation.valid());
          CHECK(sim::memoryLowerBound(f.graph) <= r.metrics.simulatedPeak);
          if (budget && (r.status == SolveStatus::Optimal || r.status == SolveStatus::Feasible ||
                         r.status == SolveStatus::TimeLimit)) {
            if (solver->info().budgetMeasure == BudgetMeasure::DpModel) CHECK(*r.metrics.modelPeak <= *budget);
            // Every plan called optimal, feasible or best-so-far fits its budget in the simulator.
            CHECK(r.metrics.simulatedPeak <= *budget);
          }
          // The simulator's DP model never undercounts: a DP plan's model peak bounds its simulated one.
          if (solver->info().budgetMeasure == BudgetMeasure::DpModel && r.metrics.modelPeak)
            CHECK(*r.metrics.modelPeak >= r.metrics.simulatedPeak);
          if (r.plan->lowerSets) {
            // Canonical plans: the simulated recomputation is the model's overhead exactly.
            CHECK(r.metrics.modelOverhead);
            CHECK(r.metrics.overhead == *r.metrics.modelOverhead);
          }
          // A solver's own bound never passes its own plan.
          if (r.overheadLowerBound) CHECK(*r.overheadLowerBound <= r.metrics.overhead);
        } else if (r.status == SolveStatus::Bound) {
          // A plan-less answer that is a bound (lp-bound) carries it.
          CHECK(r.overheadLowerBound);
        } else if (r.status == SolveStatus::TimeLimit) {
          CHECK(solver->info().id == "milp");  // only the solver given a limit here
        } else {
          CHECK(r.status == SolveStatus::Infeasible);
          CHECK_FALSE(r.message.empty());
        }
        if (r.status == SolveStatus::Infeasible && budget && r.plan) {
          if (solver->info().budgetMeasure == BudgetMeasure::DpModel)
            CHECK(*r.metrics.modelPeak > *budget);
          else
            CHECK(r.metrics.simulatedPeak > *budget);
        }
        answers.emplace(solver->info().id, std::move(r));
      }
      // lp-bound bounds the MILP's formulation: milp's optimum (or incumbent) never beats it, and where the
      // relaxation has no solution neither has the MILP. Other solvers' schedules are not bound by it
      // (docs/milp.md: the formulation computes a value at most once between two backwards).
      if (!withCbc) continue;
      INFO(f.name << " budget " << (budget ? budget->value : -1));
      const SolveResult& lp = answers.at("lp-bound");
      const SolveResult& milp = answers.at("milp");
      INFO("lp-bound: " << statusName(lp.status) << " " << lp.message << "; milp: " << statusName(milp.status) << " "
                        << milp.message);
      REQUIRE((lp.status == SolveStatus::Bound || lp.status == SolveStatus::Infeasible));
      if (lp.status == SolveStatus::Infeasible) CHECK_FALSE(milp.plan);
      if (lp.status == SolveStatus::Bound && milp.plan) {
        CHECK(*lp.overheadLowerBound <= milp.metrics.overhead);
        REQUIRE(milp.overheadLowerBound);
        if (milp.status == SolveStatus::Optimal) CHECK(*milp.overheadLowerBound == milp.metrics.overhead);
      }
    }
  }
}

TEST_CASE(
    "on graphs computed as given, store-all, fastsa, dp-evict and milp plan forwards only, lp-bound bounds, the "
    "rest refuse") {
  std::vector<Family> given;
  given.push_back({"chain30", test::makeChain(30).computedAsGiven()});
  given.push_back({"unet3", test::makeUNet(3).computedAsGiven()});
  for (std::uint32_t seed = 1; seed <= 4; ++seed)
    given.push_back(
        {"random-seed" + std::to_string(seed), test::makeRandomDag(8 + int(seed * 3), seed).computedAsGiven()});
  for (const auto& f : given) {
    const Bytes vanilla = SolverRegistry::builtin().plainRun().solve({.graph = &f.graph}).metrics.simulatedPeak;
    for (std::optional<Bytes> budget :
         {std::optional<Bytes>{}, std::optional<Bytes>{Bytes{vanilla.value * 3 / 4}}, std::optional<Bytes>{Bytes{1}}}) {
      for (const auto& solver : SolverRegistry::builtin().solvers()) {
        INFO(f.name << " " << solver->info().id << " budget " << (budget ? budget->value : -1));
        // A MILP search gets a time limit, as front ends give it (CBC can take minutes to prove a budget
        // out of the formulation's reach on the 17-op DAG): a plan it has by then is checked the same.
        SolveRequest request{.graph = &f.graph, .budget = budget};
        if (solver->info().wantsTimeLimit) request.timeLimit = std::chrono::milliseconds(1000);
        const SolveResult r = solver->solve(request);
        CHECK(r.call == CallStatus::Ok);
        if (!solver->info().asGiven) {
          CHECK(r.status == SolveStatus::Limit);
          CHECK_FALSE(r.plan);
          CHECK_THAT(r.message, Catch::Contains("computed as given"));
          CHECK(solver->minBudget({.graph = &f.graph}).status == SolveStatus::Limit);
          CHECK(solver->tradeOff({.graph = &f.graph}, 4).status == SolveStatus::Limit);
          continue;
        }
        if (!solver->info().makesPlans) {  // lp-bound: a bound on the formulation's forward-only schedules
          CHECK_FALSE(r.plan);
          if (budget) CHECK((r.status == SolveStatus::Bound || r.status == SolveStatus::Infeasible));
          if (r.status == SolveStatus::Bound) CHECK(r.overheadLowerBound);
          continue;
        }
        if (!r.plan) {
          if (solver->info().wantsTimeLimit)
            CHECK((r.status == SolveStatus::Infeasible || r.status == SolveStatus::TimeLimit));
          else
            CHECK(r.status == SolveStatus::Infeasible);
          continue;
        }
        REQUIRE(r.simulation.valid());
        for (const sim::Step& step : r.plan->schedule)
          CHECK((step.kind == sim::StepKind::Forward || step.kind == sim::StepKind::Free));
        CHECK(sim::memoryLowerBound(f.graph) <= r.metrics.simulatedPeak);
        if (budget && (r.status == SolveStatus::Feasible || r.status == SolveStatus::Optimal))
          CHECK(r.metrics.simulatedPeak <= *budget);
        if (budget && budget->value == 1) CHECK(r.status == SolveStatus::Infeasible);
        // dp-evict takes fastsa's plan at the budget (same seed) as the plan to beat: never worse.
        if (solver->info().id == "dp-evict" && budget) {
          const SolveResult sa = SolverRegistry::builtin().find("fastsa")->solve(request);
          if (sa.plan && fitsBudget(sa)) {
            CHECK(fitsBudget(r));
            CHECK(r.metrics.overhead <= sa.metrics.overhead);
          }
        }
      }
    }
  }
}

TEST_CASE("Chen's cuts are nested single-boundary lower sets") {
  for (const auto& f : families()) {
    INFO(f.name);
    auto chain = chenCutChain(f.graph);
    for (std::size_t i = 0; i < chain.size(); ++i) {
      CHECK(isLowerSet(f.graph, chain[i]));
      CHECK(boundary(f.graph, chain[i]).count() == 1);
      if (i > 0) CHECK((chain[i - 1].subsetOf(chain[i]) && chain[i - 1] != chain[i]));
    }
  }
  // A chain of n ops: every prefix but the whole is a cut.
  CHECK(chenCutChain(test::makeChain(9)).size() == 8);
}

TEST_CASE("chen-sqrtn splits a chain into about sqrt(n) segments and saves memory") {
  auto g = test::makeChain(36);
  SolveResult r = SolverRegistry::builtin().find("chen-sqrtn")->solve({.graph = &g});
  REQUIRE(r.status == SolveStatus::Feasible);
  REQUIRE(r.plan->lowerSets);
  CHECK(r.plan->lowerSets->size() == 6);
  SolveResult vanilla = SolverRegistry::builtin().find("store-all")->solve({.graph = &g});
  CHECK(r.metrics.simulatedPeak < vanilla.metrics.simulatedPeak);
  CHECK(r.metrics.overhead > Ticks{0});
}

TEST_CASE("Chen's method says why it does not apply to a graph without cuts") {
  auto g = test::makeGraph({{"p", {"x"}}, {"q", {"x"}}, {"r", {"x"}}});  // three outputs, no edges between ops
  for (const char* id : {"chen-sqrtn", "chen-greedy"}) {
    SolveResult r = SolverRegistry::builtin().find(id)->solve({.graph = &g});
    CHECK(r.status == SolveStatus::Infeasible);
    CHECK_THAT(r.message, Catch::Contains("does not apply"));
  }
}

TEST_CASE("chen-greedy honours a budget between its extremes and prefers less overhead") {
  auto g = test::makeChain(64);
  const Solver& greedy = *SolverRegistry::builtin().find("chen-greedy");
  SolveResult loose = greedy.solve({.graph = &g});
  REQUIRE(loose.status == SolveStatus::Feasible);
  const Bytes least = loose.metrics.simulatedPeak;  // without a budget: least peak
  SolveResult vanilla = SolverRegistry::builtin().find("store-all")->solve({.graph = &g});
  const Bytes mid{(least.value + vanilla.metrics.simulatedPeak.value) / 2};
  SolveResult r = greedy.solve({.graph = &g, .budget = mid});
  REQUIRE(r.status == SolveStatus::Feasible);
  CHECK(r.metrics.simulatedPeak <= mid);
  CHECK(r.metrics.overhead <= loose.metrics.overhead);
  SolveResult tight = greedy.solve({.graph = &g, .budget = Bytes{least.value - 1}});
  CHECK(tight.status == SolveStatus::Infeasible);
  CHECK_THAT(tight.message, Catch::Contains("more than the budget"));
}

TEST_CASE("a cancelled request stops") {
  auto g = test::makeChain(64);
  std::stop_source stop;
  stop.request_stop();
  SolveResult r = SolverRegistry::builtin().find("chen-sqrtn")->solve({.graph = &g, .stop = stop.get_token()});
  CHECK(r.status == SolveStatus::Cancelled);
}

TEST_CASE("a call that fails is apart from the answers: call error, no answer, never a plan") {
  auto g = test::makeChain(8);
  for (const auto& solver : SolverRegistry::builtin().solvers()) {
    INFO(solver->info().id);
    // No graph: every solver's call fails, in solve(), minBudget() and tradeOff() alike.
    const SolveResult none = solver->solve({});
    CHECK(none.call == CallStatus::Error);
    CHECK(none.status == SolveStatus::NotSolved);
    CHECK_FALSE(none.plan);
    CHECK(outcomeName(none) == "error");
    const Solver::MinBudget least = solver->minBudget({});
    CHECK(least.call == CallStatus::Error);
    CHECK_FALSE(least.bytes);
    const Solver::TradeOff front = solver->tradeOff({}, 4);
    CHECK(front.call == CallStatus::Error);
    CHECK(front.plans.empty());
    // A call that works answers with a status of its own, even when the answer is that it was stopped.
    std::stop_source stop;
    stop.request_stop();
    const SolveResult stopped = solver->solve({.graph = &g, .stop = stop.get_token()});
    CHECK(stopped.call == CallStatus::Ok);
    CHECK(stopped.status != SolveStatus::NotSolved);
    CHECK(outcomeName(stopped) == statusName(stopped.status));
  }
}

TEST_CASE("the registry knows every solver by a stable id, with its citation") {
  const auto ids = SolverRegistry::builtin().ids();
  CHECK(ids == std::vector<std::string>{"store-all", "chen-sqrtn", "chen-greedy", "approx-dp", "exact-dp", "milp",
                                        "lp-bound", "chain-dp", "dtr", "dp-evict", "fastsa"});
  for (const auto& s : SolverRegistry::builtin().solvers()) CHECK_FALSE(s->info().citation.empty());
  CHECK(SolverRegistry::builtin().find("nope") == nullptr);
}

TEST_CASE("a solver's capabilities are fields of its info, and the registry keeps them consistent") {
  const auto& registry = SolverRegistry::builtin();
  CHECK(registry.plainRun().info().id == "store-all");
  CHECK(registry.isPlainRun("store-all"));
  CHECK_FALSE(registry.isPlainRun("exact-dp"));
  CHECK_FALSE(registry.isPlainRun("nope"));
  std::set<std::size_t> slots;
  for (const auto& s : registry.solvers()) {
    const SolverInfo& info = s->info();
    INFO(info.id);
    // Only the DPs follow the paper's strategies; only the MILP's two want a time limit; only lp-bound
    // answers without a plan; every builtin solver has its own figure slot.
    CHECK(info.followsStrategy == (info.id == "exact-dp" || info.id == "approx-dp"));
    CHECK(info.wantsTimeLimit == (info.scheduleClass == ScheduleClass::MilpFormulation));
    CHECK(info.makesPlans == (info.id != "lp-bound"));
    REQUIRE(info.figureSlot);
    CHECK(slots.insert(*info.figureSlot).second);
    CHECK_FALSE(scheduleClassName(info.scheduleClass).empty());
  }
  // A second plain run, or a figure slot taken twice, is refused when registered.
  SolverRegistry twice;
  twice.add(std::make_unique<StoreAll>());
  CHECK_THROWS_AS(twice.add(std::make_unique<StoreAll>()), std::logic_error);
  SolverRegistry none;
  CHECK_THROWS_AS(none.plainRun(), std::logic_error);
}

TEST_CASE("exact-dp is at least as good as approx-dp, which is at least as good as Chen, in the DP model") {
  const auto& registry = SolverRegistry::builtin();
  const Solver& exact = *registry.find("exact-dp");
  const Solver& approx = *registry.find("approx-dp");
  for (const auto& f : families()) {
    INFO(f.name);
    const auto exactLeast = exact.minBudget({.graph = &f.graph});
    const auto approxLeast = approx.minBudget({.graph = &f.graph});
    REQUIRE(exactLeast.bytes);
    REQUIRE(approxLeast.bytes);
    CHECK(*exactLeast.bytes <= *approxLeast.bytes);
    for (const char* chenId : {"chen-sqrtn", "chen-greedy"}) {
      SolveResult chen = registry.find(chenId)->solve({.graph = &f.graph});
      if (!chen.plan) continue;
      INFO(chenId);
      CHECK(*approxLeast.bytes <= *chen.metrics.modelPeak);
      // At the budget where Chen's plan just fits the model, the DPs find plans at least as cheap.
      const Bytes budget = *chen.metrics.modelPeak;
      SolveResult e = exact.solve({.graph = &f.graph, .budget = budget});
      SolveResult a = approx.solve({.graph = &f.graph, .budget = budget});
      REQUIRE(e.status == SolveStatus::Optimal);
      REQUIRE(a.status == SolveStatus::Optimal);
      CHECK(*e.metrics.modelOverhead <= *a.metrics.modelOverhead);
      CHECK(*a.metrics.modelOverhead <= *chen.metrics.modelOverhead);
    }
    // Below the least budget there is no plan, and the message names the least budget.
    SolveResult below = exact.solve({.graph = &f.graph, .budget = Bytes{exactLeast.bytes->value - 1}});
    CHECK(below.status == SolveStatus::Infeasible);
    CHECK_THAT(below.message, Catch::Contains(std::to_string(exactLeast.bytes->value) + " bytes"));
    // The optimum never rises with the budget.
    std::optional<Ticks> previous;
    for (int k = 0; k <= 8; ++k) {
      const Bytes b{exactLeast.bytes->value + (exactLeast.bytes->value * k) / 4};
      SolveResult r = exact.solve({.graph = &f.graph, .budget = b});
      REQUIRE(r.status == SolveStatus::Optimal);
      if (previous) CHECK(*r.metrics.modelOverhead <= *previous);
      previous = *r.metrics.modelOverhead;
    }
  }
}

TEST_CASE("the auto strategy falls back to the memory-centric plan when the budget is below the least") {
  auto g = test::makeUNet(3);
  const Solver& exact = *SolverRegistry::builtin().find("exact-dp");
  const auto least = exact.minBudget({.graph = &g});
  REQUIRE(least.bytes);
  SolveResult r = exact.solve({.graph = &g, .budget = Bytes{least.bytes->value - 1}, .strategy = Strategy::Auto});
  REQUIRE(r.plan);
  CHECK_THAT(r.message, Catch::Contains("fell back to the memory-centric plan"));
  CHECK(r.simulation.valid());
}

TEST_CASE("exact-dp refuses graphs with too many lower sets and names approx-dp") {
  std::vector<test::OpSketch> ops;
  ops.reserve(24);
  for (int i = 0; i < 24; ++i) ops.push_back({"p" + std::to_string(i), {"x"}});  // 2^24 lower sets
  auto g = test::makeGraph(ops);
  SolveResult r = SolverRegistry::builtin().find("exact-dp")->solve({.graph = &g});
  CHECK(r.status == SolveStatus::Limit);
  CHECK_THAT(r.message, Catch::Contains("use approx-dp"));
}

TEST_CASE("exact-dp stops when cancelled") {
  auto g = test::makeRandomDag(40, 7, 0.1);
  std::stop_source stop;
  stop.request_stop();
  SolveResult r = SolverRegistry::builtin().find("exact-dp")->solve({.graph = &g, .stop = stop.get_token()});
  CHECK(r.status == SolveStatus::Cancelled);
}

namespace {
// Independent chains of three: 4^count lower sets. Eight (65,536, under exact-dp's limit) take 3.3 s
// to solve in a release build, nine (262,144) 44 s (measured once, 2026-12-02).
graph::ComputeGraph chainsOfThree(int count) {
  std::vector<test::OpSketch> ops;
  for (int c = 0; c < count; ++c)
    for (int k = 0; k < 3; ++k) {
      const std::string name = "c" + std::to_string(c) + "_" + std::to_string(k);
      ops.push_back({name, {k == 0 ? "x" : "c" + std::to_string(c) + "_" + std::to_string(k - 1)}, 10 + c, 1, {0}});
    }
  return test::makeGraph(ops);
}
}  // namespace

TEST_CASE("exact-dp answers 'cancelled' when stopped in the middle of a long run") {
  // The stop comes from the DP's own progress report, a third of the way through its sets: the middle
  // of the run on any machine, where a timer might fire before the DP starts or after it ends.
  auto g = chainsOfThree(6);
  std::stop_source stop;
  SolveRequest request{.graph = &g, .stop = stop.get_token()};
  double stoppedAt = -1;
  request.progress = [&](double fraction, std::string_view) {
    if (fraction >= 1.0 / 3 && stoppedAt < 0) {
      stoppedAt = fraction;
      stop.request_stop();
    }
  };
  SolveResult r = SolverRegistry::builtin().find("exact-dp")->solve(request);
  CHECK(stoppedAt < 1.0);
  CHECK(r.status == SolveStatus::Cancelled);
  CHECK(r.message == "cancelled");
  CHECK_FALSE(r.plan);
}

TEST_CASE("the DPs, Chen's methods and chain-dp stop at their work limit while they build the closures of a chain") {
  // Each closure (and for the DPs its terms) costs a pass over the chain; building them used to run to the
  // end whatever the limit. A thousand units of work end each solver among the chain's 3,000 closures, on
  // any machine.
  auto g = test::makeChain(3000);
  for (const char* id : {"approx-dp", "exact-dp", "chen-sqrtn", "chen-greedy", "chain-dp"}) {
    INFO(id);
    const SolveResult r = SolverRegistry::builtin().find(id)->solve({.graph = &g, .workLimit = 1000});
    CHECK(r.status == SolveStatus::TimeLimit);
    CHECK_FALSE(r.plan);
    CHECK_THAT(r.message, Catch::Contains("time limit reached"));
  }
}

TEST_CASE("exact-dp refuses a family whose pairs of lower sets would take longer than its time") {
  // Four chains of three: 4^4 = 256 lower sets over 12 ops, each with (4+3+2+1)^4 / 256 supersets on
  // average, so 10^4 - 256 = 9,744 comparable pairs (the estimate from 256 samples of 256 sets is
  // exact), and at least 256 · 12 / 2 = 1,536 by the count alone. At 20 ms a pair: 31 s by the count,
  // within the 60 s exact-dp allows itself without a time limit, and 195 s by the estimate, more; a
  // user's 20,000 s allows it, a time limit the caller did not give (compare's default) does not.
  auto g = chainsOfThree(4);
  const ExactDp slow(ExactDp::kDefaultLowerSetLimit, 0.02);
  const SolveResult refused = slow.solve({.graph = &g});
  CHECK(refused.status == SolveStatus::Limit);
  CHECK_FALSE(refused.plan);
  CHECK_THAT(refused.message, Catch::Contains("256 lower sets with about 9.7e+03 comparable pairs") &&
                                  Catch::Contains("--time-limit") && Catch::Contains("approx-dp"));
  SolveRequest defaulted{.graph = &g, .timeLimit = std::chrono::seconds(20'000)};
  defaulted.timeLimitLiftsSizeLimit = false;
  CHECK(slow.solve(defaulted).status == SolveStatus::Limit);
  CHECK(slow.minBudget({.graph = &g}).status == SolveStatus::Limit);
  CHECK(slow.tradeOff({.graph = &g}, 8).status == SolveStatus::Limit);
  const SolveResult given = slow.solve({.graph = &g, .timeLimit = std::chrono::seconds(20'000)});
  CHECK(given.status == SolveStatus::Optimal);
  // At a second a pair even the count's lower bound is too much: refused before the sets are stored.
  const ExactDp slower(ExactDp::kDefaultLowerSetLimit, 1.0);
  CHECK_THAT(slower.solve({.graph = &g}).message, Catch::Contains("256 lower sets with at least 1.5e+03"));
  // At the default rate the same family takes 0.1 ms: planned at once.
  CHECK(SolverRegistry::builtin().find("exact-dp")->solve({.graph = &g}).status == SolveStatus::Optimal);
}

TEST_CASE("exact-dp answers approx-dp's plan when the lower sets alone take half its work limit") {
  // Eight chains: 4^8 = 65,536 lower sets, a unit of work each to count and again to store; the DP's work
  // grows with the square of their number, so exact-dp gives up at half the limit, and the other half
  // holds approx-dp's solve.
  auto g = chainsOfThree(8);
  const ExactDp exact(10'000'000);
  SolveResult r = exact.solve({.graph = &g, .workLimit = 40'000});
  CHECK(r.status == SolveStatus::TimeLimit);
  CHECK_THAT(r.message, Catch::Contains("the lower sets alone took half of it") && Catch::Contains("approx-dp's plan"));
  REQUIRE(r.plan);
  const SolveResult approx = SolverRegistry::builtin().find("approx-dp")->solve({.graph = &g});
  CHECK(r.metrics.overhead == approx.metrics.overhead);
}

TEST_CASE("exact-dp stopped by work answers the best plan so far, never worse than approx-dp's, the same each time") {
  // Six chains: 4,096 lower sets, at 1.1 times approx-dp's least budget. Work limits growing by half from 256
  // units until the run finishes: each stops somewhere else (in the enumeration, the terms, the bounds,
  // a beam, the DP itself), and every answer is a time limit with approx-dp's plan, the best plan the
  // finished fronts allow, or none; the same limit gives the same answer again.
  auto g = chainsOfThree(6);
  const Solver& exact = *SolverRegistry::builtin().find("exact-dp");
  const Solver& approxDp = *SolverRegistry::builtin().find("approx-dp");
  const auto least = approxDp.minBudget({.graph = &g});
  REQUIRE(least.bytes);
  const Bytes budget{least.bytes->value * 11 / 10};
  const SolveResult approx = approxDp.solve({.graph = &g, .budget = budget});
  const SolveResult optimum = exact.solve({.graph = &g, .budget = budget});
  REQUIRE(approx.metrics.modelOverhead);
  REQUIRE(optimum.status == SolveStatus::Optimal);
  bool bestSoFar = false;
  std::uint64_t work = 256;
  for (;; work += work / 2) {
    INFO("work limit " << work);
    const SolveResult r = exact.solve({.graph = &g, .budget = budget, .workLimit = work});
    INFO(r.message);
    if (r.status == SolveStatus::Optimal) {
      CHECK(r.metrics.modelOverhead == optimum.metrics.modelOverhead);
      break;
    }
    REQUIRE(r.status == SolveStatus::TimeLimit);
    const SolveResult again = exact.solve({.graph = &g, .budget = budget, .workLimit = work});
    CHECK(again.message == r.message);
    CHECK(again.plan.has_value() == r.plan.has_value());
    if (!r.plan) continue;
    CHECK(again.plan->schedule == r.plan->schedule);
    CHECK(r.metrics.simulatedPeak <= budget);
    REQUIRE(r.metrics.modelOverhead);
    CHECK(*r.metrics.modelOverhead <= *approx.metrics.modelOverhead);
    CHECK(*optimum.metrics.modelOverhead <= *r.metrics.modelOverhead);
    const bool warm = r.message.find("approx-dp's plan") != std::string::npos;
    const bool best = r.message.find("the best plan found so far") != std::string::npos;
    CHECK((warm || best));
    bestSoFar = bestSoFar || best;
  }
  CHECK(bestSoFar);
  // min-budget stops by work too.
  const auto stopped = exact.minBudget({.graph = &g, .workLimit = 256});
  CHECK(stopped.status == SolveStatus::TimeLimit);
}

namespace {

// A solver whose least-budget search takes a known time and whose plan records the limit it was given:
// what solveAtLeastBudget leaves of a limit after the search.
class SlowLeastBudget final : public Solver {
 public:
  explicit SlowLeastBudget(std::chrono::milliseconds search) : m_search(search) {}
  [[nodiscard]] const SolverInfo& info() const override { return m_info; }
  [[nodiscard]] SolverOutput plan(const SolveRequest& request) const override {
    m_given = request.timeLimit;
    SolverOutput out;
    out.status = SolveStatus::Optimal;
    out.plan = Plan{sim::storeAllSchedule(*request.graph), std::nullopt, DpModelKind::Simulator};
    return out;
  }
  [[nodiscard]] MinBudget planMinBudget(const SolveRequest&) const override {
    std::this_thread::sleep_for(m_search);
    MinBudget out;
    out.status = SolveStatus::Optimal;
    out.bytes = Bytes{std::int64_t{1} << 40};
    return out;
  }
  [[nodiscard]] std::optional<std::chrono::milliseconds> given() const { return m_given; }

 private:
  SolverInfo m_info{.id = "slow-least-budget", .name = "test", .citation = "", .problemClass = ""};
  std::chrono::milliseconds m_search;
  mutable std::optional<std::chrono::milliseconds> m_given;
};

}  // namespace

TEST_CASE("solveAtLeastBudget counts the least-budget search against the limit of the whole answer") {
  const ComputeGraph g = test::makeChain(4);
  const SlowLeastBudget slow(std::chrono::milliseconds(60));
  SolveRequest request{.graph = &g};
  request.timeLimit = std::chrono::milliseconds(10'000);
  const SolveResult r = solveAtLeastBudget(slow, request);
  CHECK(r.plan);
  REQUIRE(slow.given());
  CHECK(*slow.given() <= std::chrono::milliseconds(10'000 - 60));  // what the search left, not the whole
  // A search that spends the whole limit leaves no plan: the time limit, with the budget it found.
  const SlowLeastBudget slower(std::chrono::milliseconds(40));
  request.timeLimit = std::chrono::milliseconds(20);
  const SolveResult late = solveAtLeastBudget(slower, request);
  CHECK(late.status == SolveStatus::TimeLimit);
  CHECK_FALSE(late.plan);
  CHECK(late.budget == Bytes{std::int64_t{1} << 40});
  CHECK_FALSE(slower.given());  // never planned
  // Without a limit, none is made up.
  request.timeLimit.reset();
  CHECK(solveAtLeastBudget(slow, request).plan);
  CHECK_FALSE(slow.given());
}

TEST_CASE("a solver that runs out of memory answers the status limit, not an internal error") {
  class Hungry final : public Solver {
   public:
    [[nodiscard]] const SolverInfo& info() const override { return m_info; }
    [[nodiscard]] SolverOutput plan(const SolveRequest&) const override { throw std::bad_alloc(); }

   private:
    SolverInfo m_info{.id = "hungry", .name = "test", .citation = "", .problemClass = ""};
  };
  const ComputeGraph g = test::makeChain(3);
  const SolveResult r = Hungry().solve({.graph = &g});
  CHECK(r.call == CallStatus::Ok);
  CHECK(r.status == SolveStatus::Limit);
  CHECK_FALSE(r.plan);
  CHECK_THAT(r.message, Catch::Contains("ran out of memory"));
}

TEST_CASE("the DPs refuse families the memory limit cannot hold before building them") {
  const ComputeGraph g = test::makeChain(50);
  const auto& registry = SolverRegistry::builtin();
  SolveRequest request{.graph = &g};
  request.memoryLimit = Bytes{4096};
  // approx-dp: 52 closures of a bitset and their terms each, some 14 KB.
  const SolveResult approx = registry.find("approx-dp")->solve(request);
  CHECK(approx.status == SolveStatus::Limit);
  CHECK_THAT(approx.message, Catch::Contains("ancestor closures") && Catch::Contains("--memory-limit"));
  CHECK(registry.find("approx-dp")->minBudget(request).status == SolveStatus::Limit);
  CHECK(registry.find("approx-dp")->tradeOff(request, 4).status == SolveStatus::Limit);
  // exact-dp: the 51 lower sets are more than the limit holds.
  const SolveResult exact = registry.find("exact-dp")->solve(request);
  CHECK(exact.status == SolveStatus::Limit);
  CHECK_THAT(exact.message, Catch::Contains("all that the memory limit holds"));
  // With room, both plan.
  request.memoryLimit = Bytes{1 << 20};
  CHECK(registry.find("approx-dp")->solve(request).plan);
  CHECK(registry.find("exact-dp")->solve(request).plan);
}
