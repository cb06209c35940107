// The ONNX reader against the models of tests/fixtures/onnx (written by make_fixtures.py there), with
// every size, `saves` and FLOPs value worked out by hand in the comments.

#include <catch2/catch.hpp>

#include "IoTestSupport.hpp"
#include "remat/graph/CostModel.hpp"
#include "remat/graph/GraphBuilder.hpp"
#include "remat/graph/OpTable.hpp"
#include "remat/io/GraphReader.hpp"
#include "remat/io/NativeJson.hpp"
#include "remat/io/Onnx.hpp"

using namespace remat;
using namespace remat::io;
using namespace remat::io::test;
using graph::NodeKind;
using graph::Saves;

namespace {

Result<graph::ComputeGraph> read(const std::string& relative, ReadOptions options = {}) {
  return readGraphFile(fixture("onnx/" + relative).string(), GraphFormat::Auto, options);
}

graph::ComputeGraph load(const std::string& relative, ReadOptions options = {}) {
  auto r = read(relative, options);
  INFO(allMessages(r));
  REQUIRE(r.ok());
  return std::move(r).value();
}

std::string errorsOf(const std::string& relative, ReadOptions options = {}) {
  auto r = read(relative, options);
  REQUIRE_FALSE(r.ok());
  return r.errorText();
}

double flopsOf(const graph::ComputeGraph& g, const std::string& name) { return graph::opWork(g, *g.find(name)).flops; }

}  // namespace

// mlp.onnx, exported without weights: x[4,8] -> Gemm(w1[16,8], b1) -> Relu -> Gemm(w2[3,16], b2) -> loss.
TEST_CASE("ONNX mlp: inputs, weights as params, sizes, saves and FLOPs", "[io][onnx]") {
  auto g = load("valid/mlp.onnx");
  CHECK(g.name() == "mlp");
  CHECK(g.size() == 10);  // x, labels, w1, b1, w2, b2 and four operations
  CHECK(g.opCount() == 4);
  CHECK(nodeNamed(g, "x").kind == NodeKind::Input);
  CHECK(nodeNamed(g, "labels").kind == NodeKind::Input);  // an int64 vector is data, not a bias
  for (const char* w : {"w1", "b1", "w2", "b2"}) CHECK(nodeNamed(g, w).kind == NodeKind::Param);
  CHECK(nodeNamed(g, "x").bytes.value == 4LL * 8 * 4);
  CHECK(nodeNamed(g, "labels").bytes.value == 4LL * 8);
  CHECK(nodeNamed(g, "w1").bytes.value == 16LL * 8 * 4);
  CHECK(g.paramBytes().value == (128LL + 16 + 48 + 3) * 4);

  const auto& h = nodeNamed(g, "h");
  CHECK(h.op == "Gemm");
  CHECK(h.shape == std::vector<std::int64_t>{4, 16});
  CHECK(h.dtype == "float32");
  CHECK(h.bytes.value == 4LL * 16 * 4);
  CHECK(h.saves == Saves{{0, 1}, false});             // a product keeps its input and its weight
  CHECK(nodeNamed(g, "a").saves == Saves{{}, true});  // ReLU keeps only its output
  CHECK(nodeNamed(g, "loss").saves == Saves{{0, 1}, false});
  CHECK(nodeNamed(g, "loss").bytes.value == 4);  // a scalar
  // 2 * |output| * K: 2 * 64 * 8 for fc1, 2 * 12 * 16 for fc2; ReLU one operation per element.
  CHECK(flopsOf(g, "h") == 1024);
  CHECK(flopsOf(g, "logits") == 384);
  CHECK(flopsOf(g, "a") == 64);
  CHECK(h.attrs.find("\"transB\":1") != std::string::npos);
  CHECK(h.attrs.find("\"onnx_node\":\"fc1\"") != std::string::npos);
  // Times: the flops model on the default device, in nanoseconds, backward twice a product's forward.
  CHECK(g.timeUnit() == "ns");
  CHECK(g.costModel() == "flops:a100");
  CHECK(h.fwdTime.value >= 5000);  // the launch cost at least
  CHECK(h.bwdTime.value == 2 * h.fwdTime.value);
  CHECK(nodeNamed(g, "a").bwdTime.value == nodeNamed(g, "a").fwdTime.value);
}

// conv_block.onnx: weights as initializers with data, batch norm and max-pool with extra outputs.
TEST_CASE("ONNX conv block: initializers, training outputs, views", "[io][onnx]") {
  auto g = load("valid/conv_block.onnx");
  CHECK(g.size() == 15);  // 2 inputs, 6 initializers, 7 operations (run_mean, run_var, idx unused)
  CHECK_FALSE(g.find("run_mean"));
  CHECK_FALSE(g.find("idx"));
  CHECK(nodeNamed(g, "w").kind == NodeKind::Param);
  CHECK(nodeNamed(g, "w").bytes.value == 4LL * 3 * 3 * 3 * 4);
  const auto& c = nodeNamed(g, "c");
  CHECK(c.shape == std::vector<std::int64_t>{2, 4, 8, 8});
  CHECK(c.bytes.value == 2048);
  CHECK(flopsOf(g, "c") == 2.0 * 512 * 27);  // each output a dot product over 3 channels x 3 x 3
  CHECK(nodeNamed(g, "bn").saves == Saves{{0, 1}, false});
  CHECK(nodeNamed(g, "p").bytes.value == 2LL * 4 * 4 * 4 * 4);
  CHECK(nodeNamed(g, "p").saves == Saves{{0}, true});  // its input, and its output for the indices
  CHECK(nodeNamed(g, "f").bytes.value == 0);           // Flatten aliases its input
  CHECK(nodeNamed(g, "f").bwdTime.value == 0);
  CHECK(flopsOf(g, "logits") == 2.0 * 10 * 64);
  // The activations: 3 x 2048 (conv, bn, relu) + 512 (pool) + 0 (flatten) + 40 (logits) + 4 (loss).
  CHECK(g.opBytes().value == 3LL * 2048 + 512 + 40 + 4);
}

// attention_bits.onnx: x[2,3,16] -> Slice [4, 12) of the last axis -> Reshape [2,3,2,4] -> Transpose
// (0,2,1,3) -> Reshape [2,2,12] and Flatten; then Pow by 2, Where with a -inf fill, Dropout 0.25.
TEST_CASE("ONNX layout: a reshape of a transposed tensor copies, as PyTorch's, constants keep their values",
          "[io][onnx]") {
  auto g = load("valid/attention_bits.onnx");
  // The head split reshapes a dense tensor and the transpose permutes strides: both alias.
  CHECK(nodeNamed(g, "split").bytes.value == 0);
  CHECK(nodeNamed(g, "t").bytes.value == 0);
  // Merging the transposed axes 3 (stride 8) and 4 (stride 1) cannot be a view: 192 bytes of its own,
  // a copy's traffic (read and write) in its forward time, and a backward that reshapes the gradient.
  const auto& merge = nodeNamed(g, "merge");
  CHECK(merge.bytes.value == 2LL * 2 * 12 * 4);
  CHECK(graph::opWork(g, *g.find("merge")).bytes == 2.0 * 192);
  CHECK(merge.fwdTime.value > 1);
  CHECK(merge.bwdTime.value == 0);
  CHECK(nodeNamed(g, "flat").bytes.value == 2LL * 24 * 4);  // Flatten of the same transposed tensor
  // Operands the graph leaves out are attributes under their ONNX names; constants used as data
  // carry their values (non-finite reals as strings, booleans as 0/1).
  CHECK(nodeNamed(g, "q").attrs == R"({"axes":[2],"ends":[12],"onnx_node":"slice","starts":[4]})");
  CHECK(nodeNamed(g, "drop").attrs == R"({"onnx_node":"dropout","ratio":0.25,"training_mode":1})");
  CHECK(nodeNamed(g, "two").attrs == R"({"value":2.0})");
  CHECK(nodeNamed(g, "fill").attrs == R"({"value":"-inf"})");
  CHECK(nodeNamed(g, "mask").attrs == R"({"value":[1,0,1,0,1,0,1,0,1,0,1,0]})");
  CHECK(nodeNamed(g, "two").constant);
  CHECK_FALSE(nodeNamed(g, "two").hasGradient());
  CHECK_FALSE(nodeNamed(g, "mask").hasGradient());
  // The file's own initializers may be weights (exported with the model): no value, still trained.
  const auto block = load("valid/conv_block.onnx");
  CHECK(nodeNamed(block, "w").attrs.empty());
  CHECK(nodeNamed(block, "w").hasGradient());
}

TEST_CASE("ONNX dynamic batch: --batch sets it, without it the error says what to do", "[io][onnx]") {
  const std::string errors = errorsOf("valid/split_dynamic_batch.onnx");
  CHECK(errors.find("input 'x'") != std::string::npos);
  CHECK(errors.find("dimension 0 is dynamic ('N')") != std::string::npos);
  CHECK(errors.find("--batch N") != std::string::npos);

  auto g = load("valid/split_dynamic_batch.onnx", ReadOptions{3});
  CHECK(g.size() == 9);  // x and eight operations; the reshape's constant shape and dropout's scalars go
  CHECK(nodeNamed(g, "x").shape == std::vector<std::int64_t>{3, 2, 4});
  CHECK(nodeNamed(g, "flat").bytes.value == 0);  // Reshape aliases
  CHECK(nodeNamed(g, "flat").inputs.size() == 1);
  // Both outputs of Split are nodes of their own, each with its own shape.
  CHECK(nodeNamed(g, "left").op == "Split");
  CHECK(nodeNamed(g, "right").op == "Split");
  CHECK(nodeNamed(g, "right").shape == std::vector<std::int64_t>{3, 4});
  CHECK(nodeNamed(g, "right").attrs.find("\"onnx_output\":1") != std::string::npos);
  CHECK(nodeNamed(g, "prod").saves == Saves{{0, 1}, false});  // a product keeps both factors
  CHECK(nodeNamed(g, "sum").saves == Saves{{}, false});       // a sum keeps nothing
  CHECK(nodeNamed(g, "drop").inputs.size() == 1);             // ratio and training_mode are not tensors
  CHECK(nodeNamed(g, "drop").saves == Saves{{}, true});
  CHECK_FALSE(g.find("mask"));
  CHECK(nodeNamed(g, "cat").bytes.value == 3LL * 8 * 4);

  auto other = load("valid/split_dynamic_batch.onnx", ReadOptions{64});
  CHECK(nodeNamed(other, "cat").bytes.value == 64LL * 8 * 4);
}

// fixed_batch_expand.onnx: x[2,4] -> Expand to the constant [2,4]: fine at its own batch; at another, shape
// inference cannot broadcast, and the error says which input's exported size --batch changed.
TEST_CASE("ONNX --batch on a model that fixes its batch in an Expand: the error names what --batch changed",
          "[io][onnx]") {
  CHECK(load("valid/fixed_batch_expand.onnx", ReadOptions{2}).size() == 4);  // x, e, y, loss
  const std::string errors = errorsOf("valid/fixed_batch_expand.onnx", ReadOptions{3});
  CHECK(errors.find("node 0 'expand' (Expand): the shape of output 'e' is not known") != std::string::npos);
  CHECK(errors.find("export it at batch 3 or with a dynamic batch axis") != std::string::npos);
  CHECK(errors.find("--batch changed the first dimension of 'x' (2 -> 3)") != std::string::npos);
}

// broadcast_params.onnx, batch 2: x[2,3,4,4] -> Conv(w) -> Mul(gamma[4,1,1], .) -> Add(token[1,4,4,4], .)
// -> Add(noise[2,4,4,4], .) -> Mul(., Cast(mask bool[2,1,4,4])) -> mean. gamma and token have a first
// dimension other than the batch's (x's, the convolution's data operand): parameters, which --batch leaves
// as they are; noise has the batch's: data; the mask is boolean: data, though it feeds a scale's position.
TEST_CASE("ONNX inputs broadcast over the batch are parameters, and --batch leaves them alone", "[io][onnx]") {
  for (const std::int64_t batch : {2, 3}) {
    INFO("batch " << batch);
    auto g = load("valid/broadcast_params.onnx", ReadOptions{batch});
    for (const char* d : {"x", "noise", "mask"}) CHECK(nodeNamed(g, d).kind == NodeKind::Input);
    for (const char* p : {"w", "gamma", "token"}) CHECK(nodeNamed(g, p).kind == NodeKind::Param);
    CHECK(nodeNamed(g, "x").shape == std::vector<std::int64_t>{batch, 3, 4, 4});
    CHECK(nodeNamed(g, "noise").shape == std::vector<std::int64_t>{batch, 4, 4, 4});
    CHECK(nodeNamed(g, "mask").shape == std::vector<std::int64_t>{batch, 1, 4, 4});
    CHECK(nodeNamed(g, "gamma").shape == std::vector<std::int64_t>{4, 1, 1});
    CHECK(nodeNamed(g, "token").shape == std::vector<std::int64_t>{1, 4, 4, 4});
    CHECK(nodeNamed(g, "masked").shape == std::vector<std::int64_t>{batch, 4, 4, 4});
    CHECK(g.paramBytes().value == (4LL * 3 + 4 + 4LL * 4 * 4) * 4);
    CHECK(g.inputBytes().value == batch * ((3LL * 16 + 4LL * 16) * 4 + 16));  // the mask a byte an element
  }
  // Without --batch too: the same classification.
  auto g = load("valid/broadcast_params.onnx");
  CHECK(nodeNamed(g, "token").kind == NodeKind::Param);
  CHECK(nodeNamed(g, "noise").kind == NodeKind::Input);
  CHECK(nodeNamed(g, "mask").kind == NodeKind::Input);
}

// index_table.onnx, batch 2: x[2,3,4,4] -> Conv(w) -> Add(Reshape(Gather(table[9,4], idx int64[16])))
// -> mean over H, W -> cross entropy with labels int64[2]. idx is an integer buffer whose first dimension
// is not the batch (x's): a parameter without gradient, left alone by --batch; the labels are data.
TEST_CASE("ONNX integer inputs that do not carry the batch are parameters, and --batch leaves them alone",
          "[io][onnx]") {
  for (const std::optional<std::int64_t> batch : {std::optional<std::int64_t>{}, std::optional<std::int64_t>{3}}) {
    INFO("batch " << batch.value_or(0));
    auto g = load("valid/index_table.onnx", ReadOptions{batch});
    const std::int64_t n = batch.value_or(2);
    CHECK(nodeNamed(g, "idx").kind == NodeKind::Param);
    CHECK(nodeNamed(g, "idx").shape == std::vector<std::int64_t>{16});
    CHECK(nodeNamed(g, "labels").kind == NodeKind::Input);
    CHECK(nodeNamed(g, "labels").shape == std::vector<std::int64_t>{n});
    CHECK(nodeNamed(g, "x").shape == std::vector<std::int64_t>{n, 3, 4, 4});
    CHECK(nodeNamed(g, "biased").shape == std::vector<std::int64_t>{n, 4, 4, 4});
    CHECK(g.paramBytes().value == (4LL * 3 + 9LL * 4) * 4 + 16LL * 8);
  }
}

// einsum_attention.onnx, batch 2: x[2,6,8] -> q, k = x wq, x wk -> Einsum("b i d, b j d -> b i j") [2,6,6]
// -> Softmax -> Einsum("bij,bjd->bid", attn, x) [2,6,8] -> Einsum("...id->...d") [2,8] -> wo -> loss.
// libonnx gives each Einsum's output its rank only; the reader gives them their shapes from the
// equation, at the exported batch and at another.
TEST_CASE("ONNX Einsum: output shapes from the equation, FLOPs from its loop nest", "[io][onnx]") {
  for (const std::optional<std::int64_t> batch : {std::optional<std::int64_t>{}, std::optional<std::int64_t>{3}}) {
    INFO("batch " << batch.value_or(0));
    auto g = load("valid/einsum_attention.onnx", ReadOptions{batch});
    const std::int64_t b = batch.value_or(2);
    const auto& scores = nodeNamed(g, "scores");
    CHECK(scores.op == "Einsum");
    CHECK(scores.shape == std::vector<std::int64_t>{b, 6, 6});
    CHECK(scores.bytes.value == b * 6 * 6 * 4);
    CHECK(scores.saves == Saves{{0, 1}, false});  // both operands, as PyTorch's batched product keeps
    CHECK(scores.bwdTime.value > scores.fwdTime.value);
    CHECK(nodeNamed(g, "mixed").shape == std::vector<std::int64_t>{b, 6, 8});
    CHECK(nodeNamed(g, "pooled").shape == std::vector<std::int64_t>{b, 8});
    CHECK(nodeNamed(g, "logits").shape == std::vector<std::int64_t>{b, 3});
    // Two operands: a multiply and an add per (b, i, j, d); one operand: one add per input element.
    CHECK(flopsOf(g, "scores") == 2.0 * double(b) * 6 * 6 * 8);
    CHECK(flopsOf(g, "mixed") == 2.0 * double(b) * 6 * 6 * 8);
    CHECK(flopsOf(g, "pooled") == double(b) * 6 * 8);
  }
  // An Einsum that is the graph's output, declared without a shape: given its shape once.
  const auto out = load("valid/einsum_output.onnx");
  CHECK(nodeNamed(out, "c").shape == std::vector<std::int64_t>{2, 6, 5});
  CHECK(flopsOf(out, "c") == 2.0 * 2 * 6 * 8 * 5 * 4);  // b, i, l, j, d: l and d are summed
  // The equation does not fit its operands: an error at the node, naming the label.
  const std::string errors = errorsOf("invalid/einsum_mismatch.onnx");
  CHECK(errors.find("node 0 'contract' (Einsum): the equation 'bid,bjd->bij' does not fit its operands: the label "
                    "'d' has sizes 8 and 4") != std::string::npos);
}

// window_pad.onnx: ten blocks, each padding H to a multiple of 7 by amounts computed from the block's
// own input shape as torch exports F.pad (Mod, ConstantOfShape, a Slice of step -1 ending at -(2^63 - 1),
// Transpose, Cast), then a [2, 1] convolution: 6 rows -> 7 -> 6 in every block. Each block's pads need
// the shape the block before it gets once its own pads are folded.
TEST_CASE("ONNX pads computed from shapes fold, block after block", "[io][onnx]") {
  for (const std::int64_t batch : {2, 5}) {
    INFO("batch " << batch);
    auto g = load("valid/window_pad.onnx", ReadOptions{batch});
    CHECK(g.opCount() == 31);  // 10 x (Pad, Conv, Relu) and the mean: the pad arithmetic is folded away
    for (int k = 0; k < 10; ++k) {
      const std::string b = "b" + std::to_string(k) + "_";
      CHECK(nodeNamed(g, b + "padded").shape == std::vector<std::int64_t>{batch, 3, 7, 6});
      CHECK(nodeNamed(g, b + "out").shape == std::vector<std::int64_t>{batch, 3, 6, 6});
    }
  }
}

// resize_by_shape.onnx: Resize to sizes = Concat(Slice(Shape(r), 0, 2), [8, 8]).
TEST_CASE("ONNX shape computations fold, so the shapes after them are known", "[io][onnx]") {
  auto g = load("valid/resize_by_shape.onnx");
  CHECK(g.size() == 4);  // x, r, y, loss: the shape arithmetic is not part of the training step
  const auto& y = nodeNamed(g, "y");
  CHECK(y.shape == std::vector<std::int64_t>{2, 3, 8, 8});
  CHECK(y.bytes.value == 2LL * 3 * 8 * 8 * 4);
  CHECK(y.inputs.size() == 1);
  CHECK(y.saves == Saves{{}, false});  // resampling's backward needs only sizes
}

// fixed_batch_reshape.onnx: x[2,4] -> Reshape to the constant [2,2,2]: fine at its own batch, refused
// at another (ONNX's inference would give the reshape its fixed shape, silently wrong).
TEST_CASE("ONNX --batch on a model that fixes its batch in a Reshape: a clear error, not wrong sizes", "[io][onnx]") {
  auto g = load("valid/fixed_batch_reshape.onnx");
  CHECK(nodeNamed(g, "y").bytes.value == 8LL * 4);
  CHECK(load("valid/fixed_batch_reshape.onnx", ReadOptions{2}).size() == g.size());
  const std::string errors = errorsOf("valid/fixed_batch_reshape.onnx", ReadOptions{3});
  CHECK(errors.find("'r' has shape [2, 2, 2] but its operand [3, 4]") != std::string::npos);
  CHECK(errors.find("export it at batch 3 or with a dynamic batch axis") != std::string::npos);
}

TEST_CASE("ONNX unknown operation: imported with warnings and conservative defaults", "[io][onnx]") {
  auto r = read("valid/unknown_op.onnx");
  INFO(allMessages(r));
  REQUIRE(r.ok());
  const auto& g = r.value();
  const auto& y = nodeNamed(g, "y");
  CHECK(y.op == "Fancy");
  CHECK(y.bytes.value == 2LL * 6 * 4);  // assumed the size of its operand
  CHECK(y.saves == Saves{{0}, true});   // keeps everything
  CHECK(y.bwdTime.value == y.fwdTime.value);
  CHECK(nodeNamed(g, "z").shape == std::vector<std::int64_t>{2, 6});  // inference went on after it
  std::string warnings;
  for (const auto& w : r.warnings()) warnings += w.toString() + "\n";
  CHECK(warnings.find("unknown operation 'Fancy' (1 node)") != std::string::npos);
  CHECK(warnings.find("assumed that of its largest operand [2, 6]") != std::string::npos);
}

TEST_CASE("ONNX round trip through native JSON gives the same graph", "[io][onnx]") {
  for (const char* name :
       {"valid/mlp.onnx", "valid/conv_block.onnx", "valid/unknown_op.onnx", "valid/einsum_attention.onnx"}) {
    INFO(name);
    auto g = load(name);
    auto back = readNativeJson(writeNativeJson(g), "roundtrip.json");
    INFO(allMessages(back));
    REQUIRE(back.ok());
    CHECK(back.value().sameAs(g));
    CHECK(back.value().nodes() == g.nodes());
  }
}

TEST_CASE("ONNX bad input: clear errors, never a crash", "[io][onnx]") {
  CHECK(errorsOf("invalid/truncated.onnx").find("does not parse") != std::string::npos);
  const std::string huge = errorsOf("invalid/huge_initializer.onnx");
  CHECK(huge.find("initializer 'w': its shape [2147483648, 4] claims 34359738368 bytes but its data holds 16") !=
        std::string::npos);
  const std::string seq = errorsOf("invalid/dynamic_sequence.onnx", ReadOptions{4});
  CHECK(seq.find("dimension 1 is dynamic ('seq')") != std::string::npos);
  CHECK(errorsOf("valid/mlp.onnx", ReadOptions{0}).find("--batch must be a positive integer") != std::string::npos);
  // A batch for a format that has none.
  auto native = readGraphFile(fixture("native/valid/tiny.json").string(), GraphFormat::Auto, ReadOptions{8});
  REQUIRE_FALSE(native.ok());
  CHECK(native.errorText().find("--batch applies to ONNX models only") != std::string::npos);
  // Bytes that are no model at all, and an empty model.
  CHECK_FALSE(readOnnx(std::string("\x08\x07garbage\xff\xff\xff", 12), "x.onnx").ok());
  CHECK_FALSE(readOnnx(std::string("\x08\x07", 2), "x.onnx").ok());
  CHECK_FALSE(readOnnx("", "x.onnx").ok());
}

TEST_CASE("op table: every operation the issue names, with PyTorch's saves", "[graph][optable]") {
  for (const char* type : {"Conv",
                           "ConvTranspose",
                           "Gemm",
                           "MatMul",
                           "BatchNormalization",
                           "LayerNormalization",
                           "Relu",
                           "Gelu",
                           "Sigmoid",
                           "Tanh",
                           "Softmax",
                           "Add",
                           "Mul",
                           "Sub",
                           "Div",
                           "Concat",
                           "Split",
                           "Slice",
                           "Reshape",
                           "Flatten",
                           "Transpose",
                           "MaxPool",
                           "AveragePool",
                           "GlobalAveragePool",
                           "Resize",
                           "Upsample",
                           "Pad",
                           "Dropout",
                           "ReduceMean",
                           "Gather",
                           "SoftmaxCrossEntropyLoss"}) {
    INFO(type);
    CHECK(graph::findOpSpec(type) != nullptr);
  }
  CHECK(graph::findOpSpec("NoSuchOp") == nullptr);
  CHECK(graph::findOpSpec("Conv")->savesInputs == std::vector<std::uint32_t>{0, 1});
  CHECK(graph::findOpSpec("Relu")->savesOutput);
  CHECK(graph::findOpSpec("Add")->savesInputs.empty());
  CHECK_FALSE(graph::findOpSpec("Add")->savesOutput);
  CHECK(graph::findOpSpec("Softmax")->savesOutput);
  CHECK(graph::findOpSpec("LayerNormalization")->savesInputs == std::vector<std::uint32_t>{0, 1});
  CHECK(graph::findOpSpec("Gather")->savesInputs == std::vector<std::uint32_t>{1});  // the indices
  for (const char* view : {"Reshape", "Flatten", "Transpose", "Squeeze", "Unsqueeze"})
    CHECK(graph::findOpSpec(view)->view);
  CHECK(graph::dtypeBytes("bfloat16") == 2);
  CHECK_FALSE(graph::dtypeBytes("complex64"));
  CHECK(graph::findDeviceProfile("h100") != nullptr);
  CHECK(graph::findDeviceProfile("cpu-generic") != nullptr);
  CHECK(graph::deviceProfiles().front().name == "a100");
}

// A 4096 x 4096 x 4096 float32 product: 2 * 4096^3 FLOPs. On the A100 profile (19.5 TFLOP/s, 2.039 TB/s)
// it is compute-bound, 7,048,151 ns of arithmetic against 98,738 ns of memory (3 x 64 MiB), plus the
// 5,000 ns launch; the bf16 tensor peak (312 TFLOP/s) makes it 440,509 + 5,000 ns; a 64 MiB ReLU is
// memory-bound at 2 x 64 MiB / bandwidth.
TEST_CASE("flops cost model: the roofline, per device and dtype", "[graph][optable]") {
  auto build = [](const std::string& dtype) {
    const std::int64_t bytesPer = *graph::dtypeBytes(dtype);
    const std::int64_t n = 4096;
    graph::GraphBuilder b;
    b.add({.name = "a", .kind = NodeKind::Input, .bytes = n * n * bytesPer, .shape = {n, n}, .dtype = dtype});
    b.add({.name = "w", .kind = NodeKind::Param, .bytes = n * n * bytesPer, .shape = {n, n}, .dtype = dtype});
    b.add({.name = "y",
           .op = "MatMul",
           .inputs = {"a", "w"},
           .bytes = n * n * bytesPer,
           .shape = {n, n},
           .dtype = dtype});
    b.add({.name = "r", .op = "Relu", .inputs = {"y"}, .bytes = n * n * bytesPer, .shape = {n, n}, .dtype = dtype});
    auto g = b.build();
    REQUIRE(g.ok());
    return std::move(g).value();
  };
  auto fp32 = graph::applyCostModel(build("float32"), "flops");
  REQUIRE(fp32.ok());
  CHECK(fp32.value().costModel() == "flops:a100");
  CHECK(fp32.value().timeUnit() == "ns");
  const auto& y = nodeNamed(fp32.value(), "y");
  CHECK(graph::opWork(fp32.value(), *fp32.value().find("y")).flops == 2.0 * 4096 * 4096 * 4096);
  CHECK(y.fwdTime.value == 5000 + 7048151);
  CHECK(y.bwdTime.value == 2 * y.fwdTime.value);
  const double reluBytes = 2.0 * 4096 * 4096 * 4;
  CHECK(nodeNamed(fp32.value(), "r").fwdTime.value == std::llround(5000 + reluBytes / 2.039e12 * 1e9));
  auto bf16 = graph::applyCostModel(build("bfloat16"), "flops:a100");
  REQUIRE(bf16.ok());
  CHECK(nodeNamed(bf16.value(), "y").fwdTime.value == 5000 + 440509);
  auto cpu = graph::applyCostModel(build("float32"), "flops:cpu-generic");
  REQUIRE(cpu.ok());
  CHECK(nodeNamed(cpu.value(), "y").fwdTime.value > 50 * y.fwdTime.value / 10);  // 2 TFLOP/s against 19.5
  CHECK_FALSE(graph::applyCostModel(build("float32"), "flops:tpu").ok());
}
