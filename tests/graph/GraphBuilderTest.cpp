#include <catch2/catch.hpp>

#include "TestGraphs.hpp"
#include "remat/graph/GraphBuilder.hpp"

using namespace remat;
using namespace remat::graph;

namespace {

NodeSpec op(std::string name, std::vector<std::string> inputs, std::int64_t bytes = 1) {
  NodeSpec s;
  s.name = std::move(name);
  s.op = "Op";
  s.inputs = std::move(inputs);
  s.bytes = bytes;
  s.where = {"g.json", 0, "/nodes/" + s.name};
  return s;
}

}  // namespace

//   x -> a -> b -> d
//         \-> c -/
TEST_CASE("the builder orders nodes topologically with inputs and params first") {
  GraphBuilder b;
  b.add(op("d", {"b", "c"}));
  b.add(op("b", {"a"}));
  b.add({.name = "x", .kind = NodeKind::Input, .bytes = 4});
  b.add(op("c", {"a", "w"}));
  b.add(op("a", {"x"}));
  b.add({.name = "w", .kind = NodeKind::Param, .bytes = 8});
  auto r = b.build();
  REQUIRE(r.ok());
  const ComputeGraph& g = r.value();
  REQUIRE(g.size() == 6);
  CHECK(g.opCount() == 4);
  CHECK(g.firstOp() == 2);
  CHECK(g.node(NodeId{0}).name == "x");
  CHECK(g.node(NodeId{1}).name == "w");
  CHECK(g.node(NodeId{2}).name == "a");
  CHECK(g.node(NodeId{5}).name == "d");
  for (std::uint32_t v = 0; v < g.size(); ++v)
    for (NodeId u : g.node(NodeId{v}).inputs) CHECK(u.value < v);
  CHECK(g.paramBytes() == Bytes{8});
  CHECK(g.inputBytes() == Bytes{4});
  CHECK(g.opBytes() == Bytes{4});
  REQUIRE(g.outputs().size() == 1);
  CHECK(g.node(g.outputs()[0]).name == "d");
  CHECK(g.successors(*g.find("a")).size() == 2);
  CHECK(g.opPredecessors(*g.find("c")).size() == 1);  // w is a param, not an op predecessor
}

TEST_CASE("several outputs are kept, not rejected") {
  auto g = test::makeGraph({{"a", {"x"}}, {"loss1", {"a"}}, {"b", {"a"}}, {"loss2", {"b"}}});
  CHECK(g.outputs().size() == 2);
}

TEST_CASE("the builder reports every problem with its location") {
  GraphBuilder b;
  b.add({.name = "x", .kind = NodeKind::Input, .bytes = 4, .where = {"g.json", 3, ""}});
  b.add(op("a", {"x", "nope"}));
  b.add(op("a", {"x"}));
  auto neg = op("n", {"x"}, -5);
  b.add(neg);
  auto r = b.build();
  REQUIRE_FALSE(r.ok());
  const std::string text = r.errorText();
  CHECK_THAT(text, Catch::Contains("g.json: /nodes/a: node 'a': input #1 'nope' is not a node of this graph"));
  CHECK_THAT(text, Catch::Contains("duplicate node id 'a'"));
  CHECK_THAT(text, Catch::Contains("negative size -5 bytes"));
}

TEST_CASE("cycles are reported with the nodes on the cycle") {
  GraphBuilder b;
  b.add({.name = "x", .kind = NodeKind::Input, .bytes = 4});
  b.add(op("a", {"x", "c"}));
  b.add(op("b", {"a"}));
  b.add(op("c", {"b"}));
  b.add(op("d", {"c"}));
  auto r = b.build();
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.errorText(), Catch::Contains("graph has a cycle: 'a' -> 'b' -> 'c' -> 'a'"));
}

TEST_CASE("empty graphs, overflowing totals and bad saves are rejected") {
  {
    GraphBuilder b;
    auto r = b.build();
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.errorText(), Catch::Contains("graph has no nodes"));
  }
  {
    GraphBuilder b;
    b.add({.name = "x", .kind = NodeKind::Input, .bytes = 4});
    auto r = b.build();
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.errorText(), Catch::Contains("no operation nodes"));
  }
  {
    GraphBuilder b;
    b.add(op("a", {}, std::numeric_limits<std::int64_t>::max()));
    b.add(op("b", {"a"}, std::numeric_limits<std::int64_t>::max()));
    auto r = b.build();
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.errorText(), Catch::Contains("total size or time passes 2^60"));
  }
  {
    // Totals that fit 64 bits but whose sums with gradients would not: two values of 2^62 - 1 bytes
    // (values plus their gradients wrapped), a parameter of 2^62 (with its gradient, 2^63), a forward
    // time of 3 * 2^61.
    for (const auto& [bytes, time] : std::vector<std::pair<std::int64_t, std::int64_t>>{
             {(std::int64_t{1} << 62) - 1, 1}, {std::int64_t{1} << 61, 1}, {1, 3 * (std::int64_t{1} << 61)}}) {
      GraphBuilder b;
      auto a = op("a", {}, bytes);
      a.fwdTime = time;
      b.add(a);
      b.add(op("b", {"a"}, bytes));
      auto r = b.build();
      INFO(bytes << " " << time);
      REQUIRE_FALSE(r.ok());
      CHECK_THAT(r.errorText(), Catch::Contains("total size or time passes 2^60"));
    }
    GraphBuilder b;
    b.add(op("a", {}, std::int64_t{1} << 59));
    b.add(op("b", {"a"}, std::int64_t{1} << 59));
    CHECK(b.build().ok());  // 2^60 in all: the most a graph may total
  }
  {
    GraphBuilder b;
    auto s = op("a", {});
    s.saves.inputs = {2};
    b.add(s);
    auto r = b.build();
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.errorText(), Catch::Contains("saves input #2 but the node has 0 input(s)"));
  }
  {
    GraphBuilder b;
    b.add({.name = "p", .kind = NodeKind::Param, .inputs = {"x"}, .bytes = 4});
    b.add(op("a", {"p"}));
    auto r = b.build();
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.errorText(), Catch::Contains("a param node cannot have inputs"));
  }
}

TEST_CASE("sameAs compares graphs by content") {
  auto a = test::makeChain(4);
  auto b = test::makeChain(4);
  auto c = test::makeChain(5);
  CHECK(a.sameAs(b));
  CHECK_FALSE(a.sameAs(c));
}
