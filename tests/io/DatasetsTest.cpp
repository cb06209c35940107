// The committed datasets (datasets/*.json, imported from ONNX by datasets/generate.py): they load, and
// ResNet50 at batch 32 matches a calculation by hand from the architecture.

#include <catch2/catch.hpp>

#include "IoTestSupport.hpp"
#include "remat/graph/OpTable.hpp"
#include "remat/io/GraphReader.hpp"

using namespace remat;
using namespace remat::io;
using namespace remat::io::test;
using graph::NodeKind;
using graph::Saves;

namespace {

graph::ComputeGraph dataset(const std::string& name) {
  auto r = readGraphFile((std::filesystem::path(REMAT_SOURCE_DIR) / "datasets" / (name + ".json")).string());
  INFO(name << ": " << allMessages(r));
  REQUIRE(r.ok());
  CHECK(r.warnings().empty());
  return std::move(r).value();
}

std::int64_t countOps(const graph::ComputeGraph& g, const std::string& op) {
  std::int64_t n = 0;
  for (const auto& node : g.nodes()) n += node.kind == NodeKind::Op && node.op == op;
  return n;
}

}  // namespace

// torchvision's ResNet50 (v1.5: the stride sits in each first block's 3x3 convolution), batch 32,
// float32. Activations per image, in elements: the stem's convolution, batch norm and ReLU at
// 64x112x112 and the max-pool at 64x56x56; per bottleneck of width w and output 4w at side S (S_in = 2S
// for the first block of stages 2-4, else S): conv1, bn1, relu1 at w x S_in^2; conv2, bn2, relu2 at
// w x S^2; conv3, bn3 at 4w x S^2; the projection's convolution and batch norm (first blocks) at
// 4w x S^2; the addition and its ReLU at 4w x S^2. Then the pooled 2048 features, the 1000 logits
// (the flatten between them is a view), and the scalar loss once for the batch.
TEST_CASE("datasets: ResNet50 at batch 32 against the architecture", "[io][datasets]") {
  auto g = dataset("resnet50");
  const std::int64_t batch = 32;
  std::int64_t perImage = 3 * 64 * 112 * 112 + 64 * 56 * 56;
  struct Stage {
    int blocks;
    std::int64_t width;
    std::int64_t side;
    std::int64_t firstStride;
  };
  for (const Stage& s : {Stage{3, 64, 56, 1}, Stage{4, 128, 28, 2}, Stage{6, 256, 14, 2}, Stage{3, 512, 7, 2}}) {
    const std::int64_t out = 4 * s.width;
    const std::int64_t area = s.side * s.side;
    for (int b = 0; b < s.blocks; ++b) {
      const std::int64_t inSide = b == 0 ? s.side * s.firstStride : s.side;
      perImage += 3 * s.width * inSide * inSide + 3 * s.width * area + 2 * out * area + 2 * out * area;
      if (b == 0) perImage += 2 * out * area;
    }
  }
  perImage += 2048 + 1000;
  CHECK(g.opBytes().value == perImage * batch * 4 + 4);
  CHECK(g.opBytes().value == 4'807'652'356);

  CHECK(g.opCount() == 176);  // as in the paper's graph
  CHECK(countOps(g, "Conv") == 53);
  CHECK(countOps(g, "BatchNormalization") == 53);
  CHECK(countOps(g, "Relu") == 49);
  CHECK(countOps(g, "Add") == 16);
  CHECK(nodeNamed(g, "images").kind == NodeKind::Input);
  CHECK(nodeNamed(g, "images").bytes.value == batch * 3 * 224 * 224 * 4);
  CHECK(nodeNamed(g, "labels").bytes.value == batch * 8);
  CHECK(g.inputBytes().value == batch * 3 * 224 * 224 * 4 + batch * 8);
  CHECK(nodeNamed(g, "net.conv1.weight").kind == NodeKind::Param);

  const auto conv1 = *g.find("/net/conv1/Conv_output_0");
  CHECK(g.node(conv1).saves == Saves{{0, 1}, false});
  // 2 x |output| x (3 channels x 7 x 7)
  CHECK(graph::opWork(g, conv1).flops == 2.0 * batch * 64 * 112 * 112 * 3 * 7 * 7);
  CHECK(nodeNamed(g, "/net/bn1/BatchNormalization_output_0").saves == Saves{{0, 1}, false});
  CHECK(nodeNamed(g, "/net/relu/Relu_output_0").saves == Saves{{}, true});
  CHECK(nodeNamed(g, "/net/maxpool/MaxPool_output_0").saves == Saves{{0}, true});
  CHECK(nodeNamed(g, "/net/Flatten_output_0").bytes.value == 0);
  const auto fc = *g.find("/net/fc/Gemm_output_0");
  CHECK(graph::opWork(g, fc).flops == 2.0 * batch * 1000 * 2048);
  for (const auto& node : g.nodes())
    if (node.kind == NodeKind::Op && node.op == "Add") CHECK(node.saves == Saves{{}, false});
}
