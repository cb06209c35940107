// The published graphs beside the project (../shared/corpus): every file loads with the expected
// sizes and survives a native round trip. Registered only when the corpus exists.

#include <catch2/catch.hpp>

#ifdef REMAT_CORPUS_DIR

#include "IoTestSupport.hpp"
#include "remat/io/GraphReader.hpp"
#include "remat/io/NativeJson.hpp"

using namespace remat;
using namespace remat::io;
using namespace remat::io::test;
using graph::NodeKind;

namespace {

const std::filesystem::path kCorpus(REMAT_CORPUS_DIR);

struct PaperGraph {
  const char* file;
  std::size_t variables;  ///< N: every variable is a node
  std::size_t ops;        ///< forward blocks (each has one output)
  std::size_t inputs;
  std::size_t params;
  std::size_t convOps;      ///< class name starts with "Conv": T_v = 10
  std::size_t savesOutput;  ///< ops whose backward retains their output
  std::size_t savedInputs;  ///< retained input positions, summed over ops
};

// Counted independently from the files' forward and backward blocks.
const PaperGraph kPaperGraphs[] = {
    {"cg_densenet.txt", 1054, 568, 2, 484, 160, 166, 970}, {"cg_googlenet.txt", 266, 134, 4, 128, 59, 52, 260},
    {"cg_pspnet.txt", 727, 385, 2, 340, 114, 113, 657},    {"cg_resnet152.txt", 986, 516, 2, 468, 155, 153, 884},
    {"cg_resnet50.txt", 340, 176, 2, 162, 53, 51, 306},    {"cg_unet.txt", 108, 60, 2, 46, 19, 26, 89},
    {"cg_vgg19.txt", 86, 46, 2, 38, 16, 23, 67},
};

struct CheckmateGraph {
  const char* file;
  std::size_t nodes;
  std::size_t forward;
  std::size_t backward;
};

const CheckmateGraph kCheckmateGraphs[] = {
    {"MobileNet_512_224x224x3_test_nx.json", 92, 92, 0},
    {"MobileNet_512_224x224x3_train_nx.json", 92, 92, 93},
    {"ResNet50_256_224x224x3_test_nx.json", 176, 176, 0},
    {"ResNet50_256_224x224x3_train_nx.json", 176, 176, 177},
    {"VGG16_256_224x224x3_test_nx.json", 22, 22, 0},
    {"VGG16_256_224x224x3_train_nx.json", 22, 22, 23},
    {"VGG19_256_224x224x3_test_nx.json", 25, 25, 0},
    {"VGG19_256_224x224x3_train_nx.json", 25, 25, 26},
    {"fcn_8_vgg_32_416x608x3_test_nx.json", 36, 36, 0},
    {"fcn_8_vgg_32_416x608x3_train_nx.json", 36, 36, 37},
    {"random_layered_n1000_w0.31_nlv0.75_ed0.2_scd0.14.json", 1000, 1000, 0},
    {"random_layered_n100_w0.27_nlv0.75_ed0.2_scd0.14.json", 100, 100, 0},
    {"random_layered_n250_w0.43_nlv0.75_ed0.2_scd0.14.json", 250, 250, 0},
    {"random_layered_n500_w0.36_nlv0.75_ed0.2_scd0.14.json", 500, 500, 0},
    {"segnet_32_416x608x3_test_nx.json", 38, 38, 0},
    {"segnet_32_416x608x3_train_nx.json", 38, 38, 39},
    {"vgg_unet_32_416x608x3_test_nx.json", 35, 35, 0},
    {"vgg_unet_32_416x608x3_train_nx.json", 35, 35, 36},
};

void checkRoundTrip(const graph::ComputeGraph& g) {
  const std::string text = writeNativeJson(g);
  auto back = readNativeJson(text, "roundtrip.json");
  INFO(allMessages(back));
  REQUIRE(back.ok());
  CHECK(back.value().sameAs(g));
}

}  // namespace

TEST_CASE("corpus: the paper's PFN graphs", "[io][corpus][pfn]") {
  for (const PaperGraph& expected : kPaperGraphs) {
    const auto path = kCorpus / "paper-graphs" / expected.file;
    INFO(path.string());
    auto r = readGraphFile(path.string());
    INFO(allMessages(r));
    REQUIRE(r.ok());
    CHECK(r.warnings().empty());
    const auto& g = r.value();
    CHECK(g.size() == expected.variables);
    CHECK(g.opCount() == expected.ops);
    CHECK(countKind(g, NodeKind::Input) == expected.inputs);
    CHECK(countKind(g, NodeKind::Param) == expected.params);
    CHECK(g.costModel() == "paper");
    std::size_t conv = 0, savesOutput = 0, savedInputs = 0;
    for (const auto& n : g.nodes()) {
      if (n.kind != NodeKind::Op) continue;
      conv += n.fwdTime == Ticks{10} ? 1 : 0;
      savesOutput += n.saves.output ? 1 : 0;
      savedInputs += n.saves.inputs.size();
    }
    CHECK(conv == expected.convOps);
    CHECK(savesOutput == expected.savesOutput);
    CHECK(savedInputs == expected.savedInputs);
    CHECK(g.outputs().size() >= 1);
    checkRoundTrip(g);
  }
}

TEST_CASE("corpus: VGG19 in detail", "[io][corpus][pfn]") {
  auto r = readGraphFile((kCorpus / "paper-graphs" / "cg_vgg19.txt").string(), GraphFormat::PfnCg);
  REQUIRE(r.ok());
  const auto& g = r.value();
  CHECK(g.name() == "cg_vgg19");
  CHECK(nodeNamed(g, "input0").bytes == Bytes{19267584});  // 32 x 3 x 224 x 224 float32
  CHECK(nodeNamed(g, "input1").bytes == Bytes{128});       // 32 int32 labels
  CHECK(nodeNamed(g, "/predictor/fc6/W").bytes == Bytes{411041792});
  const auto& relu = nodeNamed(g, "v15");  // the first block of the file: 15 = ReLU(17)
  CHECK(relu.op == "ReLU");
  CHECK(inputNames(g, "v15") == std::vector<std::string>{"v17"});
  CHECK(relu.saves == graph::Saves{{}, true});
  const auto& conv = nodeNamed(g, "v23");  // 23 = Conv(22, conv4_4/W, conv4_4/b)
  CHECK(inputNames(g, "v23") == std::vector<std::string>{"v22", "/predictor/conv4_4/W", "/predictor/conv4_4/b"});
  CHECK(conv.saves == graph::Saves{{0, 1, 2}, false});  // this dump retains the bias too
  CHECK(conv.fwdTime == Ticks{10});
  REQUIRE(g.outputs().size() == 1);
  CHECK(g.node(g.outputs()[0]).op == "SoftmaxCrossEntropy");
}

TEST_CASE("corpus: Checkmate and Moccasin graphs", "[io][corpus][checkmate]") {
  for (const CheckmateGraph& expected : kCheckmateGraphs) {
    const auto path = kCorpus / "checkmate-graphs" / expected.file;
    INFO(path.string());
    auto r = readGraphFile(path.string());
    INFO(allMessages(r));
    REQUIRE(r.ok());
    CHECK(r.warnings().empty());
    const auto& g = r.value();
    CHECK(g.size() == expected.nodes);
    CHECK(g.opCount() == expected.forward);
    CHECK(g.explicitBackward().size() == expected.backward);
    CHECK(g.costModel() == "file");
    checkRoundTrip(g);
  }
}

TEST_CASE("corpus: VGG16 training graph in detail", "[io][corpus][checkmate]") {
  auto r = readGraphFile((kCorpus / "checkmate-graphs" / "VGG16_256_224x224x3_train_nx.json").string(),
                         GraphFormat::Checkmate);
  REQUIRE(r.ok());
  const auto& g = r.value();
  CHECK(g.name() == "VGG16 (MLSys)_256_(224, 224, 3)_train");
  CHECK(g.opCount() == 22);
  CHECK(g.explicitBackward().size() == 23);
  std::size_t savesOutput = 0, savedInputs = 0, conv = 0;
  for (const auto& n : g.nodes()) {
    savesOutput += n.saves.output ? 1 : 0;
    savedInputs += n.saves.inputs.size();
    conv += n.op == "Conv" ? 1 : 0;
  }
  CHECK(savesOutput == 22);  // every X feeds X_backward
  CHECK(savedInputs == 21);  // every consumer of X feeds X_backward
  CHECK(conv == 13);
  const auto& c1 = nodeNamed(g, "block1_conv1");
  CHECK(c1.fwdTime == Ticks{385});
  CHECK(c1.bwdTime == Ticks{390});
  CHECK(c1.bytes == Bytes{3288334336});  // over 2^31
  CHECK(nodeNamed(g, "block5_pool").op == "Pool");
  CHECK(nodeNamed(g, "flatten").op == "Flatten");
  CHECK(nodeNamed(g, "fc1").op == "Gemm");
  const auto& loss = g.explicitBackward()[0];
  CHECK(loss.name == "Loss");
  CHECK_FALSE(loss.gradientOf.valid());
}

TEST_CASE("corpus: ResNet50 training graph saves", "[io][corpus][checkmate]") {
  auto r = readGraphFile((kCorpus / "checkmate-graphs" / "ResNet50_256_224x224x3_train_nx.json").string());
  REQUIRE(r.ok());
  std::size_t savesOutput = 0, savedInputs = 0;
  for (const auto& n : r.value().nodes()) {
    savesOutput += n.saves.output ? 1 : 0;
    savedInputs += n.saves.inputs.size();
  }
  CHECK(savesOutput == 176);
  CHECK(savedInputs == 191);
}

#endif  // REMAT_CORPUS_DIR
