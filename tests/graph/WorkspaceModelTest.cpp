#include <catch2/catch.hpp>

#include "remat/graph/BatchScaling.hpp"
#include "remat/graph/GraphBuilder.hpp"
#include "remat/graph/WorkspaceModel.hpp"

using namespace remat;
using namespace remat::graph;

namespace {

// A small network with ops the libtorch-cpu rules name and some they do not, float32 throughout: sizes
// are elements x 4 bytes. The Flatten is a view (0 bytes in the graph, its full size to a kernel).
ComputeGraph network() {
  GraphBuilder b;
  b.add({.name = "x",
         .kind = NodeKind::Input,
         .bytes = std::int64_t{2} * 3 * 8 * 8 * 4,
         .shape = {2, 3, 8, 8},
         .dtype = "float32"});
  b.add({.name = "ids", .kind = NodeKind::Input, .bytes = std::int64_t{2} * 8, .shape = {2}, .dtype = "int64"});
  b.add({.name = "w3",
         .kind = NodeKind::Param,
         .bytes = std::int64_t{16} * 3 * 3 * 3 * 4,
         .shape = {16, 3, 3, 3},
         .dtype = "float32"});
  b.add({.name = "w1",
         .kind = NodeKind::Param,
         .bytes = std::int64_t{16} * 16 * 4,
         .shape = {16, 16, 1, 1},
         .dtype = "float32"});
  b.add({.name = "fc",
         .kind = NodeKind::Param,
         .bytes = std::int64_t{10} * 256 * 4,
         .shape = {10, 256},
         .dtype = "float32"});
  b.add({.name = "table",
         .kind = NodeKind::Param,
         .bytes = std::int64_t{100} * 256 * 4,
         .shape = {100, 256},
         .dtype = "float32"});
  b.add({.name = "conv3",
         .op = "Conv",
         .inputs = {"x", "w3"},
         .bytes = std::int64_t{2} * 16 * 8 * 8 * 4,
         .shape = {2, 16, 8, 8},
         .dtype = "float32",
         .workspace = 7});
  b.add({.name = "conv1",
         .op = "Conv",
         .inputs = {"conv3", "w1"},
         .bytes = std::int64_t{2} * 16 * 8 * 8 * 4,
         .shape = {2, 16, 8, 8},
         .dtype = "float32",
         .workspace = 7,
         .bwdWorkspace = 9});
  b.add({.name = "norm",
         .op = "BatchNormalization",
         .inputs = {"conv1"},
         .bytes = std::int64_t{2} * 16 * 8 * 8 * 4,
         .shape = {2, 16, 8, 8},
         .dtype = "float32"});
  b.add({.name = "relu",
         .op = "Relu",
         .inputs = {"norm"},
         .bytes = std::int64_t{2} * 16 * 8 * 8 * 4,
         .shape = {2, 16, 8, 8},
         .dtype = "float32"});
  b.add({.name = "pool",
         .op = "MaxPool",
         .inputs = {"relu"},
         .bytes = std::int64_t{2} * 16 * 4 * 4 * 4,
         .shape = {2, 16, 4, 4},
         .dtype = "float32"});
  b.add({.name = "flat", .op = "Flatten", .inputs = {"pool"}, .bytes = 0, .shape = {2, 256}, .dtype = "float32"});
  b.add({.name = "emb",
         .op = "Gather",
         .inputs = {"table", "ids"},
         .bytes = std::int64_t{2} * 256 * 4,
         .shape = {2, 256},
         .dtype = "float32"});
  b.add({.name = "sum",
         .op = "Add",
         .inputs = {"flat", "emb"},
         .bytes = std::int64_t{2} * 256 * 4,
         .shape = {2, 256},
         .dtype = "float32"});
  b.add({.name = "scale",
         .op = "Div",
         .inputs = {"sum", "sum"},
         .bytes = std::int64_t{2} * 256 * 4,
         .shape = {2, 256},
         .dtype = "float32"});
  b.add({.name = "drop",
         .op = "Dropout",
         .inputs = {"scale"},
         .bytes = std::int64_t{2} * 256 * 4,
         .shape = {2, 256},
         .dtype = "float32"});
  b.add({.name = "head",
         .op = "Gemm",
         .inputs = {"drop", "fc"},
         .bytes = std::int64_t{2} * 10 * 4,
         .shape = {2, 10},
         .dtype = "float32"});
  b.add({.name = "loss", .op = "SoftmaxCrossEntropyLoss", .inputs = {"head", "ids"}, .bytes = 4, .dtype = "float32"});
  auto r = b.build();
  REQUIRE(r.ok());
  return std::move(r).value();
}

}  // namespace

TEST_CASE("libtorch-cpu workspace: the measured rules of op and phase, from the tensors' sizes") {
  const ComputeGraph g = network();
  auto r = applyWorkspaceModel(g, "libtorch-cpu");
  REQUIRE(r.ok());
  const ComputeGraph& w = r.value();
  const auto at = [&](const char* name) { return w.node(*w.find(name)); };
  const std::int64_t x = std::int64_t{2} * 3 * 8 * 8 * 4, act = std::int64_t{2} * 16 * 8 * 8 * 4,
                     w3 = std::int64_t{16} * 3 * 3 * 3 * 4;
  // A 3x3 convolution reorders its weight and input in the forward, its weight in the backward (or
  // its output, when that is larger).
  CHECK(at("conv3").workspace.value == std::max(w3 + x, act));
  CHECK(at("conv3").bwdWorkspace.value == std::max(w3, act));
  // A 1x1 convolution with stride 1 is a matrix product on the tensors as they are.
  CHECK(at("conv1").workspace.value == 0);
  CHECK(at("conv1").bwdWorkspace.value == 0);
  CHECK(at("relu").workspace.value == 0);  // ops the rules do not name
  CHECK(at("relu").bwdWorkspace.value == 0);
  CHECK(at("pool").workspace.value == std::int64_t{2} * 16 * 4 * 4 * 8);  // int64 indices
  CHECK(at("pool").bwdWorkspace == at("pool").workspace);
  CHECK(at("flat").workspace.value == 0);
  CHECK(at("flat").bwdWorkspace.value == 0);
  CHECK(at("emb").bwdWorkspace.value == 0);
  CHECK(at("sum").bwdWorkspace.value == 0);
  CHECK(at("head").bwdWorkspace.value == 0);
  CHECK(at("loss").workspace.value == std::int64_t{2} * 10 * 4);  // log-probabilities of the scores
  CHECK(at("loss").bwdWorkspace.value == std::int64_t{2} * 2 * 10 * 4);
  CHECK(at("scale").bwdWorkspace.value == std::int64_t{3} * 2 * 256 * 4);  // a quotient's derivative: three products
  CHECK(at("drop").workspace.value == std::int64_t{2} * 256 * 4);          // the mask
  CHECK(at("drop").bwdWorkspace.value == std::int64_t{2} * 256 * 4 + std::int64_t{2} * 256);
  CHECK(at("norm").bwdWorkspace.value == act);  // batch norm: an input-sized gradient
  // Everything else is the graph's.
  for (std::uint32_t v = 0; v < g.size(); ++v) {
    Node a = g.node(NodeId{v}), b = w.node(NodeId{v});
    a.workspace = b.workspace;
    a.bwdWorkspace = b.bwdWorkspace;
    CHECK(a == b);
  }
  CHECK(w.costModel() == g.costModel());
  CHECK(w.timeUnit() == g.timeUnit());
}

TEST_CASE("workspace models: file keeps the graph's, none clears it, an unknown name is an error") {
  const ComputeGraph g = network();
  auto file = applyWorkspaceModel(g, "file");
  REQUIRE(file.ok());
  CHECK(file.value().node(*g.find("conv1")).bwdWorkspace.value == 9);
  auto none = applyWorkspaceModel(g, "none");
  REQUIRE(none.ok());
  for (const Node& n : none.value().nodes()) {
    CHECK(n.workspace.value == 0);
    CHECK(n.bwdWorkspace.value == 0);
  }
  // A file's shapes are not bounded by its bytes: sizes too large to count are refused, never wrapped
  // (2^59 float32 elements, which the builder takes, are 2^61 bytes).
  GraphBuilder b;
  b.add({.name = "x", .kind = NodeKind::Input, .bytes = 16, .shape = {4}, .dtype = "float32"});
  b.add({.name = "huge",
         .op = "Pow",
         .inputs = {"x"},
         .bytes = 16,
         .shape = {std::int64_t{1} << 40, 1 << 19},
         .dtype = "float32"});
  auto huge = applyWorkspaceModel(b.build().value(), "libtorch-cpu");
  REQUIRE_FALSE(huge.ok());
  CHECK_THAT(huge.errorText(), Catch::Contains("node 'huge'") && Catch::Contains("2^60"));

  auto unknown = applyWorkspaceModel(g, "cudnn");
  REQUIRE_FALSE(unknown.ok());
  CHECK_THAT(unknown.errorText(),
             Catch::Contains("unknown workspace model 'cudnn'") && Catch::Contains("file, none, libtorch-cpu"));
}

TEST_CASE("libtorch-cpu workspace after scaling the batch: each batch's from its own tensors") {
  const ComputeGraph g = network();
  const auto scaled = scaleBatch(g, 2, 8);
  REQUIRE(scaled.ok());
  const auto small = applyWorkspaceModel(g, "libtorch-cpu");
  const auto large = applyWorkspaceModel(scaled.value(), "libtorch-cpu");
  REQUIRE((small.ok() && large.ok()));
  const auto at = [](const ComputeGraph& h, const char* name) { return h.node(*h.find(name)); };
  // The loss's temporaries are of the scores' size, which grows with the batch.
  CHECK(at(large.value(), "loss").bwdWorkspace.value == std::int64_t{4} * at(small.value(), "loss").bwdWorkspace.value);
  CHECK(at(large.value(), "conv3").bwdWorkspace.value == std::int64_t{8} * 16 * 8 * 8 * 4);
}
