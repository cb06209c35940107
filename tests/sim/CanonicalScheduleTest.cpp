#include <catch2/catch.hpp>

#include "TestGraphs.hpp"
#include "remat/graph/LowerSets.hpp"
#include "remat/sim/CanonicalSchedule.hpp"
#include "remat/sim/Simulator.hpp"

using namespace remat;
using namespace remat::graph;
using namespace remat::sim;

namespace {

NodeSet setOf(const ComputeGraph& g, std::initializer_list<const char*> names) {
  NodeSet s(g.opCount());
  for (const char* n : names) s.insert(g.opIndex(*g.find(n)));
  return s;
}

}  // namespace

TEST_CASE("the canonical schedule of a chain recomputes all but the boundaries") {
  auto g = test::makeChain(4);  // a0 .. a3, 10 bytes, time 1
  std::vector<NodeSet> seq{setOf(g, {"a0", "a1"}), fullSet(g)};
  for (bool liveness : {true, false}) {
    auto r = Simulator(g, {.liveness = liveness}).run(canonicalSchedule(g, seq));
    INFO("liveness " << liveness);
    REQUIRE(r.valid());
    CHECK(r.overhead == Ticks{3});  // a0 in segment 1; a2, a3 in the last segment
    CHECK(r.recomputedNodes == 3);
  }
}

TEST_CASE("bad lower-set sequences are a precondition error") {
  auto g = test::makeChain(3);
  CHECK_THROWS_AS(canonicalSchedule(g, {}), InvalidLowerSetSequence);
  CHECK_THROWS_AS(canonicalSchedule(g, {setOf(g, {"a0"})}), InvalidLowerSetSequence);
  CHECK_THROWS_AS(canonicalSchedule(g, {setOf(g, {"a1"}), fullSet(g)}), InvalidLowerSetSequence);
  CHECK_THROWS_AS(canonicalSchedule(g, {fullSet(g), fullSet(g)}), InvalidLowerSetSequence);
}

TEST_CASE("canonical schedules of random lower-set sequences are legal on random DAGs") {
  for (std::uint32_t seed = 1; seed <= 40; ++seed) {
    auto g = test::makeRandomDag(4 + int(seed % 9), seed);
    std::vector<NodeSet> all;
    (void)enumerateLowerSets(g, 100000, [&](const NodeSet& s) {
      if (!s.empty()) all.push_back(s);
      return true;
    });
    // A random increasing chain: walk up by picking supersets.
    std::mt19937 rng(seed);
    std::vector<NodeSet> seq;
    NodeSet current = emptySet(g);
    while (current != fullSet(g)) {
      std::vector<NodeSet> bigger;
      for (const auto& s : all)
        if (current.subsetOf(s) && s != current) bigger.push_back(s);
      current = bigger[rng() % bigger.size()];
      seq.push_back(current);
    }
    for (bool liveness : {true, false}) {
      auto r = Simulator(g, {.liveness = liveness}).run(canonicalSchedule(g, seq));
      INFO("seed " << seed << " liveness " << liveness);
      REQUIRE(r.valid());
      // Every node outside the kept boundaries is computed exactly twice.
      NodeSet prev = emptySet(g);
      Ticks expected{0};
      for (const auto& l : seq) {
        expected += timeOf(g, (l - prev) - boundary(g, l));
        prev = l;
      }
      CHECK(r.overhead == expected);
    }
  }
}
