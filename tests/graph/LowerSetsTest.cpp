#include <catch2/catch.hpp>

#include <set>

#include "TestGraphs.hpp"
#include "remat/graph/LowerSets.hpp"

using namespace remat;
using namespace remat::graph;

namespace {

// Every subset of V that is closed under predecessors, by brute force over 2^|V| subsets.
std::set<std::vector<std::uint64_t>> bruteForceLowerSets(const ComputeGraph& g) {
  std::set<std::vector<std::uint64_t>> out;
  const std::size_t n = g.opCount();
  for (std::uint64_t mask = 0; mask < (std::uint64_t{1} << n); ++mask) {
    NodeSet s(n);
    for (std::uint32_t i = 0; i < n; ++i)
      if (mask >> i & 1U) s.insert(OpIndex{i});
    if (isLowerSet(g, s)) out.insert(s.words());
  }
  return out;
}

}  // namespace

TEST_CASE("a chain of n operations has n + 1 lower sets") {
  for (int n : {1, 2, 5, 40}) CHECK(countLowerSets(test::makeChain(n), 1'000'000) == std::uint64_t(n + 1));
}

//   x -> a -> b -> d
//         \-> c -/
TEST_CASE("a diamond has six lower sets and the expected boundaries") {
  auto g = test::makeGraph({{"a", {"x"}}, {"b", {"a"}}, {"c", {"a"}}, {"d", {"b", "c"}}});
  CHECK(countLowerSets(g, 100) == 6u);
  auto idx = [&](const char* name) { return g.opIndex(*g.find(name)); };
  NodeSet ab(g.opCount());
  ab.insert(idx("a"));
  ab.insert(idx("b"));
  CHECK(isLowerSet(g, ab));
  NodeSet border = boundary(g, ab);
  CHECK(border.count() == 2);  // a feeds c, b feeds d
  NodeSet after = successorsOf(g, ab) - ab;
  CHECK(after.members() == std::vector<OpIndex>{idx("c"), idx("d")});
  CHECK(ancestorClosure(g, idx("d")) == fullSet(g));
  CHECK(ancestorClosure(g, idx("c")).count() == 2);
  NodeSet bc(g.opCount());
  bc.insert(idx("b"));
  CHECK_FALSE(isLowerSet(g, bc));
}

TEST_CASE("lower-set enumeration equals brute force on random DAGs") {
  for (std::uint32_t seed = 1; seed <= 60; ++seed) {
    const int n = 2 + int(seed % 11);
    auto g = test::makeRandomDag(n, seed, 0.5);
    auto expected = bruteForceLowerSets(g);
    std::set<std::vector<std::uint64_t>> found;
    std::uint64_t visits = 0;
    auto count = enumerateLowerSets(g, 1'000'000, [&](const NodeSet& s) {
      ++visits;
      CHECK(isLowerSet(g, s));
      found.insert(s.words());
      return true;
    });
    INFO("seed " << seed << ", " << n << " ops");
    REQUIRE(count);
    CHECK(*count == expected.size());
    CHECK(visits == expected.size());  // each lower set exactly once
    CHECK(found == expected);
  }
}

TEST_CASE("lower-set enumeration stops at its limit") {
  // 20 independent ops: 2^20 lower sets.
  std::vector<test::OpSketch> ops;
  for (int i = 0; i < 20; ++i) ops.push_back({"p" + std::to_string(i), {"x"}});
  auto g = test::makeGraph(ops);
  CHECK_FALSE(countLowerSets(g, 1000));
  CHECK(countLowerSets(g, 2'000'000) == std::uint64_t{1} << 20);
}

TEST_CASE("lower-set enumeration finds candidates far apart in long graphs") {
  // A chain of 5,000 ops and one op beside it, last in the order: every prefix of the chain with and
  // without it. Its candidate lies thousands of ops past each chain op, across every level of the
  // candidate index.
  std::vector<test::OpSketch> ops;
  for (int i = 0; i < 5000; ++i) ops.push_back({"a" + std::to_string(i), {i == 0 ? "x" : "a" + std::to_string(i - 1)}});
  ops.push_back({"lone", {"x"}});
  const auto g = test::makeGraph(ops);
  REQUIRE(g.opIndex(*g.find("lone")).value == 5000);
  CHECK(countLowerSets(g, 100'000) == 2u * 5001u);
  CHECK(countLowerSets(test::makeChain(50'000), 1'000'000) == 50'001u);
}
