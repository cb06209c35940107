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

// VGG19 counted by hand: 16 convolutions each followed by a ReLU, 5 max-pools, the adaptive average
// pool (exported as AveragePool at 7x7), a flatten, three linear layers with ReLU and dropout after
// the first two, and the loss.
TEST_CASE("datasets: VGG19's operations counted by hand", "[io][datasets]") {
  auto g = dataset("vgg19");
  CHECK(countOps(g, "Conv") == 16);
  CHECK(countOps(g, "Relu") == 18);
  CHECK(countOps(g, "MaxPool") == 5);
  CHECK(countOps(g, "Gemm") == 3);
  CHECK(countOps(g, "Dropout") == 2);
  CHECK(g.opCount() == 16 + 18 + 5 + 1 + 1 + 3 + 2 + 1);
}

// Every dataset loads without warnings, with the sizes its import gave when it was committed (a
// change to the reader or the op table that moves them shows here; ResNet50's and VGG19's are checked
// by hand above). {name, nodes, operations, inputs, parameters, activation bytes}. The transformers' head
// merges copy (12 per network: BERT 12 x 32·128·768·4 bytes, GPT-2 12 x 8·1024·768·4, ViT 12 x 32·197·768·4).
TEST_CASE("datasets: every file loads with the node counts and sizes it was committed with", "[io][datasets]") {
  struct Expected {
    const char* name;
    std::size_t nodes;
    std::size_t ops;
    std::int64_t inputs;
    std::int64_t params;
    std::int64_t activationBytes;
  };
  const std::vector<Expected> all{
      {"bert_base", 979, 720, 2, 257, 11370561540},   {"densenet161", 1383, 575, 2, 806, 11877671940},
      {"googlenet", 533, 224, 2, 307, 1609663516},    {"gpt2_small", 1022, 737, 2, 283, 48055877636},
      {"inception_v3", 821, 334, 2, 485, 4453865488}, {"mobilenet_v2", 418, 154, 2, 262, 2519290884},
      {"pspnet", 936, 379, 2, 555, 7008420408},       {"resnet152", 1295, 516, 2, 777, 10176885764},
      {"resnet50", 445, 176, 2, 267, 4807652356},     {"unet", 107, 59, 2, 46, 11011818500},
      {"vgg19", 87, 47, 2, 38, 4004508676},           {"vit_b_16", 944, 691, 2, 251, 15783525892},
      {"unet-small", 74, 39, 2, 33, 85196804}};
  for (const Expected& e : all) {
    INFO(e.name);
    auto g = dataset(e.name);
    CHECK(g.size() == e.nodes);
    CHECK(g.opCount() == e.ops);
    std::int64_t inputs = 0;
    std::int64_t params = 0;
    for (const auto& n : g.nodes()) {
      inputs += n.kind == NodeKind::Input;
      params += n.kind == NodeKind::Param;
    }
    CHECK(inputs == e.inputs);
    CHECK(params == e.params);
    CHECK(g.opBytes().value == e.activationBytes);
  }
}
