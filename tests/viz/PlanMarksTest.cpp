#include <catch2/catch.hpp>

#include "TestGraphs.hpp"
#include "remat/graph/GraphBuilder.hpp"
#include "remat/sim/CanonicalSchedule.hpp"
#include "remat/viz/PlanFigures.hpp"
#include "remat/viz/PlanMarks.hpp"

using namespace remat;
using namespace remat::viz;

TEST_CASE("plan marks of a canonical plan: boundaries kept, what is read recomputed, the last segment kept") {
  const auto g = test::makeChain(9);
  std::vector<graph::NodeSet> sets;
  for (std::uint32_t upTo : {3U, 6U, 9U}) {
    graph::NodeSet s(g.opCount());
    for (std::uint32_t k = 0; k < upTo; ++k) s.insert(graph::OpIndex{k});
    sets.push_back(s);
  }
  const auto marks = planMarks(g, sim::canonicalSchedule(g, sets), sets);
  CHECK(marks.segments == 3);
  for (std::uint32_t k = 0; k < 9; ++k) {
    const auto v = g.opNode(graph::OpIndex{k}).value;
    INFO("op " << k);
    CHECK(marks.segment[v] == static_cast<int>(k / 3));
    // a2 and a5 end their segments and feed the next: the checkpoints. Every op keeps its input, so
    // the first two segments recompute the rest; the last keeps a6 and a7 from its forward, and a8's
    // value is read by no backward.
    const NodeRole expected = k == 2 || k == 5 ? NodeRole::Kept
                              : k < 6          ? NodeRole::Recomputed
                              : k < 8          ? NodeRole::NeverFreed
                                               : NodeRole::Other;
    CHECK(marks.role[v] == expected);
  }
  CHECK(marks.role[0] == NodeRole::Other);  // the input
}

TEST_CASE("plan marks without lower sets: store-all keeps everything its backward needs") {
  const auto g = test::makeChain(5);
  const auto marks = planMarks(g, sim::storeAllSchedule(g), std::nullopt);
  CHECK(marks.segments == 0);
  for (std::uint32_t k = 0; k < 5; ++k) {
    const auto v = g.opNode(graph::OpIndex{k}).value;
    CHECK(marks.segment[v] == -1);
    // Each op keeps its input for its backward; the last one's output is needed by no backward.
    CHECK(marks.role[v] == (k < 4 ? NodeRole::NeverFreed : NodeRole::Other));
  }
}

TEST_CASE("a node's details name its PyTorch module and operation when the graph was captured") {
  graph::GraphBuilder b;
  b.setName("captured");
  b.add({.name = "x", .kind = graph::NodeKind::Input, .bytes = 8});
  b.add({.name = "model_layer1_0_conv1",
         .op = "Conv",
         .inputs = {"x"},
         .bytes = 16,
         .attrs = R"({"module":"model.layer1.0.conv1","torch":"Conv2d"})"});
  b.add({.name = "add", .op = "Add", .inputs = {"model_layer1_0_conv1", "x"}, .bytes = 16, .attrs = "not json"});
  auto built = b.build();
  REQUIRE(built.ok());
  const auto& g = built.value();
  const std::string conv = nodeDetails(g, *g.find("model_layer1_0_conv1"), {});
  CHECK_THAT(conv, Catch::Contains("\nmodule model.layer1.0.conv1\nPyTorch Conv2d"));
  const std::string add = nodeDetails(g, *g.find("add"), {});
  CHECK_THAT(add, !Catch::Contains("module"));
}
