// The fast DP (runParetoDp, tradeOffFront) against the plain recurrence (DpRecurrence.hpp): with every
// acceleration on or off, in both memory models, on graphs and budgets the accelerations treat
// differently. A change to the recurrence that the fast DP does not follow, or an acceleration that
// loses a point, fails here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <vector>

#include "TestGraphs.hpp"
#include "remat/solvers/DpRecurrence.hpp"
#include "remat/solvers/ParetoDp.hpp"

using namespace remat;
using namespace remat::graph;
using namespace remat::solvers;

namespace {

struct Case {
  ComputeGraph graph;
  LowerSetFamily family;
  DpModelKind model;
  const char* familyName;
};

// Chains, random DAGs and a U-Net; every lower set and the ancestor closures; both models.
std::vector<Case> cases() {
  std::vector<ComputeGraph> graphs;
  graphs.push_back(test::makeChain(14));
  graphs.push_back(test::makeUNet(2, 16));
  for (std::uint32_t seed = 1; seed <= 24; ++seed)
    graphs.push_back(test::makeRandomDag(6 + int(seed % 6), seed, 0.2 + 0.05 * double(seed % 5)));
  std::vector<Case> out;
  for (const ComputeGraph& g : graphs)
    for (const DpModelKind model : {DpModelKind::Paper, DpModelKind::Simulator}) {
      auto all = LowerSetFamily::allLowerSets(g, 5000);
      if (all && all->useModel(g, model)) out.push_back({g, std::move(*all), model, "all lower sets"});
      LowerSetFamily closures = LowerSetFamily::ancestorClosures(g);
      if (closures.useModel(g, model)) out.push_back({g, std::move(closures), model, "ancestor closures"});
    }
  return out;
}

// The budgets to run at: the least feasible, two between it and the unconstrained peak, and none.
std::vector<std::int64_t> budgets(const LowerSetFamily& f) {
  const auto least = leastFeasibleBudget(f);
  REQUIRE(least);
  const auto open = recurrenceFronts(f, Bytes::max());
  REQUIRE_FALSE(open.back().empty());
  const std::int64_t high = *least + (*least / 2);
  return {*least, *least + 1, (*least + high) / 2, INT64_MAX};
}

std::vector<Reach> reaches(const std::vector<DpPoint>& front) {
  std::vector<Reach> out;
  out.reserve(front.size());
  for (const DpPoint& p : front) out.push_back({Ticks{p.t}, Bytes{p.m}});
  return out;
}

}  // namespace

TEST_CASE(
    "the fast DP's fronts equal the plain recurrence's at every set, with each plug-in, on any number of threads") {
  // The loop with the plain plug-ins (every subset a source, every step costed exactly) is the recurrence
  // as written; each exact acceleration plugged in alone, and both together (the default), must give the
  // same front at every set.
  const std::vector<std::pair<DpSources, DpSteps>> plugins = {{DpSources::Every, DpSteps::Exact},
                                                              {DpSources::Live, DpSteps::Exact},
                                                              {DpSources::Every, DpSteps::Quick},
                                                              {DpSources::Live, DpSteps::Quick}};
  for (const Case& c : cases()) {
    INFO(c.graph.name() << ", " << c.familyName << ", " << dpModelName(c.model) << " model");
    for (const std::int64_t budget : budgets(c.family)) {
      INFO("budget " << budget);
      const auto expected = recurrenceFronts(c.family, Bytes{budget});
      for (const auto& [sources, steps] : plugins)
        for (const unsigned threads : {1U, 2U}) {
          DpOptions o;
          o.budget = budget;
          o.threads = threads;
          o.sources = sources;
          o.steps = steps;
          const DpRun run = runParetoDp(c.family, o);
          REQUIRE(run.outcome == DpOutcome::Complete);
          for (std::size_t j = 0; j < c.family.size(); ++j) {
            INFO("set " << j << ", " << threads << " thread(s), " << (sources == DpSources::Live ? "live" : "every")
                        << " sources, " << (steps == DpSteps::Quick ? "quick" : "exact") << " steps");
            CHECK(reaches(run.fronts[j]) == expected[j]);
          }
        }
    }
  }
}

TEST_CASE("bounds and incumbent pruning keep the recurrence's optimum, the heuristics find real plans") {
  for (const Case& c : cases()) {
    INFO(c.graph.name() << ", " << c.familyName << ", " << dpModelName(c.model) << " model");
    for (const std::int64_t budget : budgets(c.family)) {
      const std::vector<Reach> plans = recurrenceFronts(c.family, Bytes{budget}).back();
      REQUIRE_FALSE(plans.empty());
      for (const Strategy strategy : {Strategy::Time, Strategy::Memory}) {
        INFO("budget " << budget << ", " << strategyName(strategy) << "-centric");
        const bool time = strategy == Strategy::Time;
        // The recurrence's optimum: least overhead, then least memory; or least memory, then overhead.
        const Reach best = time ? plans.front() : plans.back();
        auto bounds = continuationBounds(c.family, {}, 1, BoundTarget{budget, strategy});
        REQUIRE(bounds);
        DpOptions o;
        o.budget = budget;
        o.bounds = &*bounds;
        o.strategy = strategy;
        // The pruning plug-in with the bounds alone, then with an incumbent too; each with the plain
        // sources and steps (the pruning alone) and with the fast ones.
        const auto greedy = greedyPath(c.family, *bounds, budget, strategy);
        for (const bool incumbent : {false, true})
          for (const bool plain : {true, false}) {
            INFO((incumbent ? "bounds and incumbent" : "bounds") << (plain ? ", plain sources and steps" : ""));
            DpOptions p = o;
            if (incumbent && greedy) p.incumbent = time ? greedy->overhead : greedy->checkpoints;
            if (plain) {
              p.sources = DpSources::Every;
              p.steps = DpSteps::Exact;
            }
            const DpRun pruned = runParetoDp(c.family, p);
            REQUIRE(pruned.outcome == DpOutcome::Complete);
            REQUIRE_FALSE(pruned.fronts.back().empty());
            const std::vector<Reach> kept = reaches(pruned.fronts.back());
            CHECK((time ? kept.front() : kept.back()) == best);
          }
        // The beam and the nearest sources are heuristics: what they find is a way the recurrence
        // reaches too, so never better than its front.
        for (const bool beam : {true, false}) {
          DpOptions h = o;
          h.incumbent.reset();
          if (beam)
            h.beamWidth = 2;
          else
            h.nearestSources = 2;
          const DpRun run = runParetoDp(c.family, h);
          REQUIRE(run.outcome == DpOutcome::Complete);
          for (const Reach& r : reaches(run.fronts.back()))
            CHECK(std::any_of(plans.begin(), plans.end(), [&](const Reach& p) {
              return p.overhead <= r.overhead && p.checkpoints <= r.checkpoints;
            }));
        }
      }
    }
  }
}

TEST_CASE("the budget/overhead front is the recurrence's optimum at each of its budgets, and only there") {
  for (const Case& c : cases()) {
    INFO(c.graph.name() << ", " << c.familyName << ", " << dpModelName(c.model) << " model");
    const TradeOffRun run = tradeOffFront(c.family, DpOptions{});
    REQUIRE(run.outcome == DpOutcome::Complete);
    REQUIRE_FALSE(run.front.empty());
    for (const TradeOffPoint& point : run.front) {
      INFO("front point at peak " << point.peak << ", overhead " << point.overhead);
      // At its peak, the least overhead the recurrence reaches is the point's; a byte less, more.
      const auto at = recurrenceFronts(c.family, Bytes{point.peak}).back();
      REQUIRE_FALSE(at.empty());
      CHECK(at.front().overhead == Ticks{point.overhead});
      const auto below = recurrenceFronts(c.family, Bytes{point.peak - 1}).back();
      CHECK((below.empty() || below.front().overhead > Ticks{point.overhead}));
    }
  }
}
