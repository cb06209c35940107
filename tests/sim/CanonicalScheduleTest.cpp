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

TEST_CASE("the canonical schedule of a chain recomputes what its backward reads, the paper's all but the boundaries") {
  auto g = test::makeChain(4);  // a0 .. a3, 10 bytes, time 1, each keeping its input
  std::vector<NodeSet> seq{setOf(g, {"a0", "a1"}), fullSet(g)};
  for (bool liveness : {true, false}) {
    INFO("liveness " << liveness);
    // a1's backward keeps a0: recomputed; the last segment keeps its values from the forward.
    auto r = Simulator(g, {.liveness = liveness}).run(canonicalSchedule(g, seq));
    REQUIRE(r.valid());
    CHECK(r.overhead == Ticks{1});
    CHECK(r.recomputedNodes == 1);
    auto paper = Simulator(g, {.liveness = liveness}).run(paperSchedule(g, seq));
    REQUIRE(paper.valid());
    CHECK(paper.overhead == Ticks{3});  // a0 in segment 1; a2, a3 in the last segment
    CHECK(paper.recomputedNodes == 3);
  }
}

TEST_CASE("a value nothing reads again is not recomputed") {
  // a0 -> a1 (keeps only its output, like ReLU) -> a2 (keeps its input): cut after a1, a0 is read by
  // nobody once a1 is kept, so segment 1's backward recomputes nothing.
  std::vector<test::OpSketch> ops{
      {"a0", {"x"}, 10, 1, {}, false}, {"a1", {"a0"}, 10, 1, {}, true}, {"a2", {"a1"}, 10, 1, {0}, false}};
  auto g = test::makeGraph(ops, 10);
  std::vector<NodeSet> seq{setOf(g, {"a0", "a1"}), fullSet(g)};
  const ChainLowering low = lowerChain(g, seq);
  CHECK(low.recompute[0].empty());
  CHECK(low.checkpoints[0] == setOf(g, {"a1"}));
  auto r = Simulator(g).run(canonicalSchedule(g, seq));
  REQUIRE(r.valid());
  CHECK(r.overhead == Ticks{0});
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
      INFO("seed " << seed << " liveness " << liveness);
      // The paper's lowering computes every node outside the kept boundaries exactly twice.
      auto paper = Simulator(g, {.liveness = liveness}).run(paperSchedule(g, seq));
      REQUIRE(paper.valid());
      NodeSet prev = emptySet(g);
      Ticks expected{0};
      for (const auto& l : seq) {
        expected += timeOf(g, (l - prev) - boundary(g, l));
        prev = l;
      }
      CHECK(paper.overhead == expected);
      // The canonical one only what the lowering says it recomputes, never more.
      auto r = Simulator(g, {.liveness = liveness}).run(canonicalSchedule(g, seq));
      REQUIRE(r.valid());
      Ticks recomputed{0};
      for (const NodeSet& s : lowerChain(g, seq).recompute) recomputed += timeOf(g, s);
      CHECK(r.overhead == recomputed);
      CHECK(r.overhead <= paper.overhead);
    }
  }
}
