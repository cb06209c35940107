#include <catch2/catch.hpp>

#include "TestGraphs.hpp"
#include "remat/graph/LowerSets.hpp"
#include "remat/solvers/DpModel.hpp"

using namespace remat;
using namespace remat::graph;
using namespace remat::solvers;

namespace {

NodeSet setOf(const ComputeGraph& g, std::initializer_list<const char*> names) {
  NodeSet s(g.opCount());
  for (const char* n : names) s.insert(g.opIndex(*g.find(n)));
  return s;
}

}  // namespace

TEST_CASE("DP model of a chain split in two, by hand") {
  auto g = test::makeChain(4);  // a0..a3, 10 bytes each, time 1
  // i=1: V={a0,a1}, U=∅, A={a2}, B=∅: 0 + 40 + 10 + 0 = 50; T(V \ ∂) = T(a0) = 1
  // i=2: V={a2,a3}, U={a1}: 10 + 40 + 0 + 0 = 50; T = 2
  auto c = evaluateDpModel(g, {setOf(g, {"a0", "a1"}), fullSet(g)});
  CHECK(c.peak == Bytes{50});
  CHECK(c.overhead == Ticks{3});
  CHECK(c.checkpointBytes == Bytes{10});
}

//   x -> a(10) -> b(20) -> d(40)
//          \---> c(30) --/
TEST_CASE("DP model on a diamond counts A_i and B_i") {
  auto g = test::makeGraph({{"a", {"x"}, 10, 1}, {"b", {"a"}, 20, 2}, {"c", {"a"}, 30, 3}, {"d", {"b", "c"}, 40, 4}});
  // L1 = {a, b}: V1 = {a,b}; A1 = {c, d}; B1 = δ−({c,d}) \ L1 = {c}; term = 0 + 60 + 70 + 30 = 160.
  //   ∂(L1) = {a, b}: T(V1 \ ∂) = 0.
  // L2 = V: V2 = {c, d}; U1 = {a, b}: term = 30 + 140 + 0 + 0 = 170; T = 7.
  auto c = evaluateDpModel(g, {setOf(g, {"a", "b"}), fullSet(g)});
  CHECK(c.peak == Bytes{170});
  CHECK(c.peakSegment == 1);
  CHECK(c.overhead == Ticks{7});
  // One segment: everything recomputed, peak 2 M(V).
  auto one = evaluateDpModel(g, {fullSet(g)});
  CHECK(one.peak == Bytes{200});
  CHECK(one.overhead == Ticks{10});
}
