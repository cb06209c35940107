#include <catch2/catch.hpp>

#include "TestGraphs.hpp"
#include "remat/graph/BatchScaling.hpp"
#include "remat/graph/GraphBuilder.hpp"

using namespace remat;
using namespace remat::graph;

TEST_CASE("scaling the batch scales inputs and activations, not parameters") {
  auto g = test::makeUNet(2);  // input 64 bytes, parameter 32 bytes
  auto r = scaleBatch(g, 4, 12);
  REQUIRE(r.ok());
  const ComputeGraph& s = r.value();
  CHECK(s.paramBytes() == g.paramBytes());
  CHECK(s.inputBytes() == g.inputBytes() * 3);
  CHECK(s.opBytes() == g.opBytes() * 3);
  CHECK(s.totalForwardTime() == g.totalForwardTime() * 3);
  // Rounding keeps a nonzero size nonzero.
  auto down = scaleBatch(g, 1000, 1);
  REQUIRE(down.ok());
  for (const Node& n : down.value().nodes())
    if (n.kind == NodeKind::Op) CHECK(n.bytes.value >= 1);
  CHECK_FALSE(scaleBatch(g, 0, 2).ok());
  auto huge = scaleBatch(g, 1, std::int64_t{1} << 62);
  REQUIRE_FALSE(huge.ok());
  CHECK_THAT(huge.errorText(), Catch::Contains("overflow"));
}

TEST_CASE("the batch size is read from the inputs' shapes") {
  GraphBuilder b;
  b.add({.name = "x", .kind = NodeKind::Input, .bytes = 64, .shape = {8, 2}});
  b.add({.name = "y", .kind = NodeKind::Input, .bytes = 32, .shape = {8}});
  b.add({.name = "a", .op = "Op", .inputs = {"x", "y"}, .bytes = 8, .shape = {8, 1}});
  auto g = b.build().value();
  CHECK(inferBatchSize(g) == 8);
  auto s = scaleBatch(g, 8, 2).value();
  CHECK(s.node(*s.find("a")).shape == std::vector<std::int64_t>{2, 1});
  CHECK(s.node(*s.find("a")).bytes == Bytes{2});
  CHECK_FALSE(inferBatchSize(test::makeChain(3)));  // no shapes
}
