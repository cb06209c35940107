// Every reader against its valid/ and invalid/ fixture folders (tests/fixtures/<format>/...).

#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "IoTestSupport.hpp"
#include "remat/io/GraphReader.hpp"
#include "remat/io/NativeJson.hpp"

using namespace remat;
using namespace remat::io;
using namespace remat::io::test;
using graph::NodeKind;
using graph::Saves;

namespace {

graph::ComputeGraph load(const std::string& relative, GraphFormat format) {
  auto r = readGraphFile(fixture(relative).string(), format);
  INFO(allMessages(r));
  REQUIRE(r.ok());
  return std::move(r).value();
}

struct FormatFolder {
  std::string folder;
  GraphFormat format;
};
const std::vector<FormatFolder> kFolders = {
    {"native", GraphFormat::Native}, {"pfn", GraphFormat::PfnCg}, {"checkmate", GraphFormat::Checkmate}};

}  // namespace

// tiny.json:   x (input) ---+
//                            +--> fc (MatMul) ... fc_backward (explicit)
//              w (param) ---+
TEST_CASE("native fixture tiny.json: the documented example", "[io][native][fixtures]") {
  auto g = load("native/valid/tiny.json", GraphFormat::Native);
  CHECK(g.name() == "tiny");
  CHECK(g.timeUnit() == "ticks");
  CHECK(g.costModel() == "file");
  CHECK(g.size() == 3);
  CHECK(g.opCount() == 1);
  const auto& x = nodeNamed(g, "x");
  CHECK(x.kind == NodeKind::Input);
  CHECK(x.bytes == Bytes{1024});
  CHECK(x.shape == std::vector<std::int64_t>{1, 256});
  CHECK(x.dtype == "float32");
  CHECK(nodeNamed(g, "w").kind == NodeKind::Param);
  const auto& fc = nodeNamed(g, "fc");
  CHECK(fc.op == "MatMul");
  CHECK(inputNames(g, "fc") == std::vector<std::string>{"x", "w"});
  CHECK(fc.bytes == Bytes{512});
  CHECK(fc.fwdTime == Ticks{10});
  CHECK(fc.bwdTime == Ticks{20});
  CHECK(fc.saves == Saves{{0, 1}, false});
  CHECK(fc.attrs == R"({"transB":1})");
  REQUIRE(g.explicitBackward().size() == 1);
  const auto& b = g.explicitBackward()[0];
  CHECK(b.name == "fc_backward");
  CHECK(b.time == Ticks{5});
  CHECK(b.bytes == Bytes{512});
  REQUIRE(b.gradientOf.valid());
  CHECK(g.node(b.gradientOf).name == "fc");
  REQUIRE(b.inputs.size() == 2);
  CHECK(g.node(graph::NodeId{b.inputs[1].index}).name == "x");
}

// diamond_skip.json (listed out of order on purpose; the builder sorts):
//   x, w1 -> a (Conv) -> b (Relu) -> c (Conv, w2) -> d (Add) -> e (Relu) -> loss (+ label)
//                   \________________________________/
TEST_CASE("native fixture diamond_skip.json: residual skip, out-of-order nodes", "[io][native][fixtures]") {
  auto g = load("native/valid/diamond_skip.json", GraphFormat::Native);
  CHECK(g.size() == 10);
  CHECK(g.opCount() == 6);
  CHECK(countKind(g, NodeKind::Input) == 2);
  CHECK(countKind(g, NodeKind::Param) == 2);
  CHECK(g.timeUnit() == "us");
  CHECK(inputNames(g, "d") == std::vector<std::string>{"c", "a"});
  CHECK(nodeNamed(g, "a").workspace == Bytes{256});
  CHECK(nodeNamed(g, "a").attrs == R"({"kernel":[3,3],"pads":[1,1,1,1],"strides":[1,1]})");
  CHECK(nodeNamed(g, "b").saves == Saves{{}, true});
  CHECK(nodeNamed(g, "d").saves == Saves{{}, false});  // saves omitted: nothing kept
  CHECK(nodeNamed(g, "e").saves == Saves{{}, true});
  CHECK(g.opBytes() == Bytes{2048 * 5 + 4});
  CHECK(g.totalForwardTime() == Ticks{10 + 1 + 10 + 1 + 1 + 1});
  REQUIRE(g.outputs().size() == 1);
  CHECK(g.node(g.outputs()[0]).name == "loss");
  // Topological order: "loss" comes last although the file lists it first.
  CHECK(g.nodes().back().name == "loss");
}

// chain.json: in -> n1 -> n2 -> n3 -> n4, with every optional field left out.
TEST_CASE("native fixture chain.json: defaults for optional fields", "[io][native][fixtures]") {
  auto g = load("native/valid/chain.json", GraphFormat::Native);
  CHECK(g.name() == "chain");  // no "name": the file stem
  CHECK(g.timeUnit() == "ticks");
  CHECK(g.costModel() == "file");
  CHECK(g.size() == 5);
  CHECK(g.opCount() == 4);
  CHECK(nodeNamed(g, "n1").fwdTime == Ticks{2});
  CHECK(nodeNamed(g, "n1").bwdTime == Ticks{0});
  CHECK(nodeNamed(g, "n3").fwdTime == Ticks{0});
  CHECK(nodeNamed(g, "n3").saves == Saves{});
  CHECK(nodeNamed(g, "n3").attrs.empty());
  CHECK(g.explicitBackward().empty());
}

// multi_output.json:  x -> s -> sq (= s * s) -> left
//                          \-> right "quoted"
TEST_CASE("native fixture multi_output.json: shared producer, two outputs, repeated input", "[io][native][fixtures]") {
  auto g = load("native/valid/multi_output.json", GraphFormat::Native);
  CHECK(g.name() == "multi output");
  CHECK(g.costModel() == "profiled");
  CHECK(g.size() == 5);
  CHECK(g.opCount() == 4);
  CHECK(g.outputs().size() == 2);
  CHECK(inputNames(g, "sq") == std::vector<std::string>{"s", "s"});
  CHECK(nodeNamed(g, "sq").saves == Saves{{0, 1}, false});  // [1, 0, 1] sorted and deduplicated
  CHECK(nodeNamed(g, "left").attrs == R"({"note":"first head","scale":0.5})");
  CHECK(nodeNamed(g, "right \"quoted\"").bytes == Bytes{32});
  REQUIRE(g.explicitBackward().size() == 3);
  const auto& merge = g.explicitBackward()[2];
  CHECK_FALSE(merge.gradientOf.valid());
  REQUIRE(merge.inputs.size() == 1);
  CHECK(merge.inputs[0].side == graph::BackwardRef::Side::Backward);
  CHECK(merge.inputs[0].index == 1);
}

// pfn chain.txt (forward blocks out of order):
//   input0, /conv/W, /conv/b -> v0 (Conv) -> v1 (ReLU) -> v2 (Linear, /fc/W) -> v3 (SCE, input1)
TEST_CASE("pfn fixture chain.txt: names, kinds, paper times, saves from backward blocks", "[io][pfn][fixtures]") {
  auto g = load("pfn/valid/chain.txt", GraphFormat::PfnCg);
  CHECK(g.name() == "chain");
  CHECK(g.costModel() == "paper");
  CHECK(g.timeUnit() == "ticks");
  CHECK(g.size() == 9);
  CHECK(g.opCount() == 4);
  CHECK(countKind(g, NodeKind::Input) == 2);
  CHECK(countKind(g, NodeKind::Param) == 3);
  CHECK(nodeNamed(g, "input0").bytes == Bytes{2048});
  CHECK(nodeNamed(g, "/fc/W").kind == NodeKind::Param);
  const auto& conv = nodeNamed(g, "v0");
  CHECK(conv.op == "Convolution2DFunction");
  CHECK(inputNames(g, "v0") == std::vector<std::string>{"input0", "/conv/W", "/conv/b"});
  CHECK(conv.fwdTime == Ticks{10});
  CHECK(conv.bwdTime == Ticks{10});
  CHECK(conv.saves == Saves{{0, 1}, false});
  CHECK(conv.bytes == Bytes{1024});
  const auto& relu = nodeNamed(g, "v1");
  CHECK(relu.fwdTime == Ticks{1});
  CHECK(relu.saves == Saves{{}, true});
  CHECK(relu.attrs ==
        R"({"_input_indexes_to_retain":null,"_output_count":1,"_output_indexes_to_retain":[0],"rank":1})");
  CHECK(nodeNamed(g, "v2").saves == Saves{{0, 1}, false});
  CHECK(inputNames(g, "v3") == std::vector<std::string>{"v2", "input1"});
  CHECK(nodeNamed(g, "v3").bytes == Bytes{4});
  // Ops in topological order although the file lists ReLU first.
  CHECK(g.node(g.opNode(graph::OpIndex{0})).name == "v0");
  CHECK(g.node(g.opNode(graph::OpIndex{3})).name == "v3");
}

// pfn diamond_skip.txt:  v0 = Conv(input0, W1) -> v1 = ReLU -> v2 = Conv(W2) -> v3 = Add(v2, v0)
//                        -> v4 = ReLU -> v5 = SCE(v4, input1)
TEST_CASE("pfn fixture diamond_skip.txt: residual block", "[io][pfn][fixtures]") {
  auto g = load("pfn/valid/diamond_skip.txt", GraphFormat::PfnCg);
  CHECK(g.size() == 10);
  CHECK(g.opCount() == 6);
  CHECK(inputNames(g, "v3") == std::vector<std::string>{"v2", "v0"});
  CHECK(nodeNamed(g, "v3").saves == Saves{});  // Add keeps nothing
  CHECK(nodeNamed(g, "v3").op == "Add");
  CHECK(nodeNamed(g, "v0").saves == Saves{{0, 1}, false});
  CHECK(nodeNamed(g, "v4").saves == Saves{{}, true});
  CHECK(g.totalForwardTime() == Ticks{10 + 1 + 10 + 1 + 1 + 1});
  CHECK(g.successors(*g.find("v0")).size() == 2);
}

// pfn multi_output.txt (CRLF line ends):  input0 -> SplitAxis -> (v1, v2); v3 = v1 * v1; v4 = Concat(v3, v2);
// v5 = Sum(v4)
TEST_CASE("pfn fixture multi_output.txt: a block with two outputs, CRLF", "[io][pfn][fixtures]") {
  auto g = load("pfn/valid/multi_output.txt", GraphFormat::PfnCg);
  CHECK(g.size() == 6);
  CHECK(g.opCount() == 5);
  CHECK(nodeNamed(g, "v1").op == "SplitAxis");
  CHECK(nodeNamed(g, "v2").op == "SplitAxis");
  CHECK(inputNames(g, "v2") == std::vector<std::string>{"input0"});
  CHECK(nodeNamed(g, "v2").bytes == Bytes{32});
  CHECK(inputNames(g, "v3") == std::vector<std::string>{"v1", "v1"});
  CHECK(nodeNamed(g, "v3").saves == Saves{{0, 1}, false});  // one retained variable, both positions
  CHECK(inputNames(g, "v4") == std::vector<std::string>{"v3", "v2"});
  CHECK(nodeNamed(g, "v4").attrs == R"({"axis":1})");
  CHECK(nodeNamed(g, "v5").saves == Saves{});
}

// checkmate train_chain.json:  conv1 -> relu1 -> fc1 -> predictions -> Loss
//   backward: Loss -> predictions_backward -> fc1_backward -> relu1_backward -> conv1_backward
TEST_CASE("checkmate fixture train_chain.json: training graph", "[io][checkmate][fixtures]") {
  auto g = load("checkmate/valid/train_chain.json", GraphFormat::Checkmate);
  CHECK(g.name() == "chain (MLSys)_4_train");
  CHECK(g.costModel() == "file");
  CHECK(g.size() == 4);
  CHECK(g.opCount() == 4);
  CHECK(nodeNamed(g, "conv1").op == "Conv");
  CHECK(nodeNamed(g, "relu1").op == "Relu");
  CHECK(nodeNamed(g, "fc1").op == "Gemm");
  CHECK(nodeNamed(g, "predictions").op == "Gemm");
  CHECK(nodeNamed(g, "conv1").inputs.empty());
  CHECK(inputNames(g, "relu1") == std::vector<std::string>{"conv1"});
  CHECK(nodeNamed(g, "conv1").bytes == Bytes{1000});
  CHECK(nodeNamed(g, "conv1").fwdTime == Ticks{10});
  CHECK(nodeNamed(g, "conv1").bwdTime == Ticks{20});
  CHECK(nodeNamed(g, "predictions").fwdTime == Ticks{3});  // 3.0 in the file
  CHECK(nodeNamed(g, "predictions").bwdTime == Ticks{4});
  // conv1 -> conv1_backward: conv1 keeps its output; relu1 -> conv1_backward: relu1 keeps its input.
  CHECK(nodeNamed(g, "conv1").saves == Saves{{}, true});
  CHECK(nodeNamed(g, "relu1").saves == Saves{{0}, true});
  CHECK(nodeNamed(g, "fc1").saves == Saves{{0}, true});
  CHECK(nodeNamed(g, "predictions").saves == Saves{{0}, true});
  const auto& backward = g.explicitBackward();
  REQUIRE(backward.size() == 5);
  CHECK(backward[0].name == "Loss");
  CHECK_FALSE(backward[0].gradientOf.valid());
  CHECK(backward[1].name == "predictions_backward");
  REQUIRE(backward[1].gradientOf.valid());
  CHECK(g.node(backward[1].gradientOf).name == "predictions");
  REQUIRE(backward[1].inputs.size() == 2);
  CHECK(backward[1].inputs[0].side == graph::BackwardRef::Side::Forward);
  CHECK(backward[1].inputs[1].side == graph::BackwardRef::Side::Backward);
  CHECK(backward[1].inputs[1].index == 0);
  CHECK(backward[4].name == "conv1_backward");
  CHECK(backward[4].time == Ticks{20});
  CHECK(backward[4].inputs.size() == 3);  // the duplicate link is ignored
}

// checkmate test_diamond.json:  conv -> relu#1 -> block_conv -> relu#3 -> add -> dense
//                                           \______________________________/
TEST_CASE("checkmate fixture test_diamond.json: forward-only, duplicate names", "[io][checkmate][fixtures]") {
  auto g = load("checkmate/valid/test_diamond.json", GraphFormat::Checkmate);
  CHECK(g.name() == "diamond test");
  CHECK(g.size() == 6);
  CHECK(g.opCount() == 6);
  CHECK(g.find("relu#1"));
  CHECK(g.find("relu#3"));
  CHECK_FALSE(g.find("relu"));
  CHECK(inputNames(g, "add") == std::vector<std::string>{"relu#1", "relu#3"});
  CHECK(nodeNamed(g, "add").saves == Saves{{0, 1}, true});  // forward only: everything kept
  CHECK(nodeNamed(g, "conv").saves == Saves{{}, true});
  CHECK(nodeNamed(g, "dense").op == "Gemm");
  CHECK(nodeNamed(g, "dense").bwdTime == Ticks{2});  // no backward node: bwd = fwd
  CHECK(g.explicitBackward().empty());
  CHECK(g.edgeCount() == 6);
}

// checkmate random_layered.json (Moccasin):  0 -> 2 -> "4" -> 1,  0 -> 3 -> "4",  2 -> 1;  2 has parameters.
TEST_CASE("checkmate fixture random_layered.json: Moccasin variant", "[io][checkmate][fixtures]") {
  auto g = load("checkmate/valid/random_layered.json", GraphFormat::Checkmate);
  CHECK(g.name() == "layered tiny");
  CHECK(g.size() == 6);
  CHECK(g.opCount() == 5);
  CHECK(countKind(g, NodeKind::Param) == 1);
  CHECK(nodeNamed(g, "2/param").bytes == Bytes{100});
  CHECK(inputNames(g, "2") == std::vector<std::string>{"0", "2/param"});
  CHECK(inputNames(g, "4") == std::vector<std::string>{"2", "3"});
  CHECK(inputNames(g, "1") == std::vector<std::string>{"2", "4"});
  CHECK(nodeNamed(g, "2").fwdTime == Ticks{7});
  CHECK(nodeNamed(g, "2").bwdTime == Ticks{0});  // computed as given: no backward pass
  CHECK(nodeNamed(g, "2").bytes == Bytes{20});
  CHECK(nodeNamed(g, "2").op == "Op");
  CHECK(nodeNamed(g, "2").saves == Saves{});
  CHECK(g.asGiven());
  CHECK(nodeNamed(g, "0").inputs.empty());
}

// checkmate random_layered_order.json: the graph of random_layered.json (no parameters) with
// graph.order [0, 3, 2, "4", 1], which file order (0, 2, 3, "4", 1 where the links allow) is not.
TEST_CASE("checkmate fixture random_layered_order.json: the plain run follows graph.order",
          "[io][checkmate][fixtures]") {
  auto g = load("checkmate/valid/random_layered_order.json", GraphFormat::Checkmate);
  std::vector<std::string> ops;
  for (const auto& n : g.nodes())
    if (n.kind == NodeKind::Op) ops.push_back(n.name);
  CHECK(ops == std::vector<std::string>{"0", "3", "2", "4", "1"});
  CHECK(inputNames(g, "4") == std::vector<std::string>{"2", "3"});  // inputs still by id
  CHECK(g.asGiven());
}

// native as_given.json: the whole computation, x -> a -> c, x -> b -> d, (c, d) -> y; no backward pass.
TEST_CASE("native fixture as_given.json: computed as given", "[io][native][fixtures]") {
  auto g = load("native/valid/as_given.json", GraphFormat::Native);
  CHECK(g.asGiven());
  CHECK(g.opCount() == 5);
  CHECK(g.explicitBackward().empty());
  CHECK_THAT(writeNativeJson(g), Catch::Contains("\"computation\": \"as-given\""));
  // A training graph says nothing of it (files written before the key stay as they were).
  CHECK_THAT(writeNativeJson(load("native/valid/tiny.json", GraphFormat::Native)), !Catch::Contains("computation"));
}

// checkmate train_chain.json read as given: its backward nodes are operations of the whole computation.
TEST_CASE("checkmate training graph read as given: backward nodes become operations", "[io][checkmate][fixtures]") {
  auto training = load("checkmate/valid/train_chain.json", GraphFormat::Checkmate);
  CHECK_FALSE(training.asGiven());
  CHECK(training.opCount() == 4);
  CHECK(training.explicitBackward().size() == 5);
  auto read = readGraphFile(fixture("checkmate/valid/train_chain.json"), GraphFormat::Checkmate, {.asGiven = true});
  REQUIRE(read.ok());
  const auto& g = read.value();
  CHECK(g.asGiven());
  CHECK(g.opCount() == 9);
  CHECK(g.explicitBackward().empty());
  CHECK(inputNames(g, "relu1_backward") == std::vector<std::string>{"relu1", "fc1", "fc1_backward"});
  CHECK(nodeNamed(g, "conv1_backward").fwdTime == Ticks{20});
  CHECK(nodeNamed(g, "conv1").saves == Saves{});
  // Auto detection reads it the same way; another format keeps its operations and drops the backward.
  auto detected = readGraphFile(fixture("checkmate/valid/train_chain.json"), GraphFormat::Auto, {.asGiven = true});
  REQUIRE(detected.ok());
  CHECK(detected.value().sameAs(g));
  auto native = readGraphFile(fixture("native/valid/tiny.json"), GraphFormat::Native, {.asGiven = true});
  REQUIRE(native.ok());
  CHECK(native.value().asGiven());
  CHECK(native.value().explicitBackward().empty());
}

TEST_CASE("every valid fixture loads with Auto detection exactly as with its explicit format", "[io][fixtures]") {
  for (const auto& [folder, format] : kFolders)
    for (const auto& path : filesIn(fixture(folder + "/valid"))) {
      INFO(path.string());
      auto explicitRead = readGraphFile(path.string(), format);
      auto autoRead = readGraphFile(path.string());
      INFO(allMessages(explicitRead));
      INFO(allMessages(autoRead));
      REQUIRE(explicitRead.ok());
      REQUIRE(autoRead.ok());
      CHECK(autoRead.value().sameAs(explicitRead.value()));
    }
}

TEST_CASE("every valid fixture round-trips through native JSON", "[io][fixtures][roundtrip]") {
  for (const auto& [folder, format] : kFolders)
    for (const auto& path : filesIn(fixture(folder + "/valid"))) {
      INFO(path.string());
      auto r = readGraphFile(path.string(), format);
      REQUIRE(r.ok());
      const std::string text = writeNativeJson(r.value());
      auto back = readNativeJson(text, "roundtrip.json");
      INFO(text);
      INFO(allMessages(back));
      REQUIRE(back.ok());
      CHECK(back.value().sameAs(r.value()));
      CHECK(back.value().costModel() == r.value().costModel());
      CHECK(back.warnings().empty());
      CHECK(writeNativeJson(back.value()) == text);  // the written form is a fixed point
    }
}

namespace {

// file -> a piece of the expected message (errorText() holds "path:line: /json/path: message").
const std::map<std::string, std::string> kInvalidExpectations = {
    // native JSON
    {"native/invalid/truncated.json", "truncated.json:2: invalid JSON"},
    {"native/invalid/syntax_error.json", "syntax_error.json:4: invalid JSON"},
    {"native/invalid/cycle.json", "graph has a cycle"},
    {"native/invalid/dangling_input.json", "/nodes/1: node 'a': input #1 'nowhere' is not a node of this graph"},
    {"native/invalid/negative_bytes.json",
     "negative_bytes.json: /nodes/3/bytes: expected a non-negative integer, got -5"},
    {"native/invalid/huge_bytes.json", "/nodes/1/bytes: number 1.1805916207174113e+21 does not fit in 64 bits"},
    {"native/invalid/unsigned_bytes.json", "/nodes/0/bytes: number 9223372036854775808 does not fit in 64 bits"},
    {"native/invalid/string_bytes.json", "/nodes/0/bytes: expected a non-negative integer, got \"12\""},
    {"native/invalid/float_time.json", "/nodes/1/fwd_time: expected a non-negative integer, got 1.5"},
    {"native/invalid/garbage.bin", "invalid JSON"},
    {"native/invalid/duplicate_ids.json", "/nodes/2: duplicate node id 'a'"},
    {"native/invalid/empty_nodes.json", "/nodes: graph has no nodes"},
    {"native/invalid/wrong_version.json", "/version: unsupported version 2"},
    {"native/invalid/wrong_format.json", "/format: expected \"remat-graph\", got \"onnx-graph\""},
    {"native/invalid/missing_bytes.json", "/nodes/1: missing required key \"bytes\""},
    {"native/invalid/unknown_kind.json", "/nodes/0/kind: unknown node kind \"tensor\""},
    {"native/invalid/saves_out_of_range.json", "/nodes/1/saves/inputs/1: saves input index 3 is out of range"},
    {"native/invalid/top_level_array.json", "expected a JSON object at the top level, got an array"},
    {"native/invalid/only_inputs.json", "graph has no operation nodes"},
    {"native/invalid/input_with_inputs.json", "/nodes/1: node 'w': a param node cannot have inputs"},
    {"native/invalid/backward_unknown_input.json", "/backward_graph/0: backward node 'a_bwd': input 'ghost'"},
    {"native/invalid/too_deep.json", "too_deep.json:1: JSON nested too deeply"},
    {"native/invalid/huge_shape.json", "/nodes/0: node 'x': the shape holds more than 2^60 elements"},
    {"native/invalid/bad_computation.json",
     "bad_computation.json: /computation: expected \"training\" or \"as-given\", got \"inference\""},
    {"native/invalid/as_given_with_backward.json",
     "/backward_graph: a graph computed as given has no backward pass: drop backward_graph"},
    {"native/invalid/duplicate_key.json",
     "duplicate_key.json: /nodes/1/bytes: duplicate key \"bytes\": a key may appear only once in an object"},
    // PFN cg text
    {"pfn/invalid/truncated.txt",
     "truncated.txt:13: unexpected end of file, expected 'k p' (inputs and outputs) (block 1)"},
    {"pfn/invalid/odd_m.txt", "odd_m.txt:1: block count M = 3 is odd"},
    {"pfn/invalid/negative_size.txt", "negative_size.txt:3: negative variable size -16"},
    {"pfn/invalid/huge_size.txt", "huge_size.txt:3: variable size 1180591620717411303424 does not fit in 64 bits"},
    {"pfn/invalid/non_numeric.txt", "non_numeric.txt:4: expected an integer for variable size, got \"eight\""},
    {"pfn/invalid/unproduced.txt", "unproduced.txt:5: variable 3 ('_') is not produced by any forward block"},
    {"pfn/invalid/produced_twice.txt", "produced_twice.txt:15: variable 1 is produced twice"},
    {"pfn/invalid/huge_counts.txt", "unexpected end of file, expected variable line"},
    {"pfn/invalid/bad_attrs.txt", "bad_attrs.txt:11: the attribute line (block 0) is not valid JSON"},
    {"pfn/invalid/duplicate_attr_key.txt",
     "duplicate_attr_key.txt:11: the attribute line (block 0) is not valid JSON (duplicate key \"rank\" at /rank"},
    {"pfn/invalid/garbage.bin", "garbage.bin:1: expected a first line 'N M'"},
    {"pfn/invalid/unknown_variable.txt", "unknown_variable.txt:8: unknown variable id 7"},
    {"pfn/invalid/retained_not_input.txt", "retained_not_input.txt:16: backward block retains variable 1 as an input"},
    {"pfn/invalid/unknown_retained_type.txt", "unknown_retained_type.txt:16: unknown retained-value type 'kept'"},
    {"pfn/invalid/output_is_param.txt", "output_is_param.txt:9: variable 2 (line 4) is a parameter"},
    {"pfn/invalid/empty.txt", "empty.txt: file is empty"},
    {"pfn/invalid/wrong_block_kind.txt", "wrong_block_kind.txt:5: expected 'forward' (block 0)"},
    {"pfn/invalid/duplicate_variable.txt",
     "duplicate_variable.txt:4: variable id 1 is defined twice (first at line 3)"},
    {"pfn/invalid/cycle.txt", "graph has a cycle"},
    {"pfn/invalid/id_beyond_n.txt",
     "id_beyond_n.txt:4: variable id 7 is out of range: the first line declares N = 3 variables, ids 0 to 2"},
    // Checkmate / Moccasin JSON
    {"checkmate/invalid/unknown_link.json", "unknown_link.json: /links/1/target: unknown node id 7"},
    {"checkmate/invalid/missing_cost.json", "/nodes/1: missing required key \"cost_ram\""},
    {"checkmate/invalid/string_cost.json", "/nodes/0/cost_cpu: expected a non-negative integer, got \"fast\""},
    {"checkmate/invalid/fractional_cost.json", "/nodes/0/cost_ram: expected a non-negative integer, got 1.5"},
    {"checkmate/invalid/huge_cost.json", "/nodes/0/cost_ram: number 1.1805916207174113e+21 does not fit in 64 bits"},
    {"checkmate/invalid/negative_cost.json", "/nodes/0/cost_cpu: expected a non-negative integer, got -3"},
    {"checkmate/invalid/cycle.json", "graph has a cycle"},
    {"checkmate/invalid/duplicate_ids.json", "/nodes/1/id: duplicate node id 0 (first at /nodes/0)"},
    {"checkmate/invalid/empty_nodes.json", "/nodes: graph has no nodes"},
    {"checkmate/invalid/missing_links.json", "missing required key \"links\""},
    {"checkmate/invalid/truncated.json", "truncated.json:3: invalid JSON"},
    {"checkmate/invalid/garbage.bin", "invalid JSON"},
    {"checkmate/invalid/backward_feeds_forward.json",
     "/links/1: a backward node ('a_backward') cannot feed a forward node ('b')"},
    {"checkmate/invalid/layered_missing_duration.json", "/nodes/1: missing required key \"duration\""},
    {"checkmate/invalid/layered_order_not_topological.json",
     "/graph/order/2: node id \"4\" comes before its predecessor 2 (at /graph/order/3)"},
    {"checkmate/invalid/layered_order_unknown_id.json", "/graph/order/3: unknown node id 4"},
    {"checkmate/invalid/layered_order_missing_node.json",
     "/graph/order: lists 4 of the 5 nodes; node id 3 (/nodes/3) is not listed"},
    {"checkmate/invalid/layered_order_duplicate.json",
     "/graph/order/3: node id 3 listed twice (first at /graph/order/1)"},
    {"checkmate/invalid/layered_order_not_array.json",
     "/graph/order: expected an array of node ids, got \"0 3 2 4 1\""},
    {"checkmate/invalid/bad_node_id.json", "/nodes/0/id: expected an integer or a string as node id, got an array"},
    {"checkmate/invalid/duplicate_key.json",
     "duplicate_key.json: /links/0/target: duplicate key \"target\": a key may appear only once in an object"},
};

GraphFormat formatOfFolder(const std::string& relative) {
  for (const auto& [folder, format] : kFolders)
    if (relative.starts_with(folder + "/")) return format;
  return GraphFormat::Auto;
}

}  // namespace

TEST_CASE("each invalid fixture fails with the expected message naming the file", "[io][fixtures][invalid]") {
  for (const auto& [relative, expected] : kInvalidExpectations) {
    const auto path = fixture(relative);
    INFO(relative);
    REQUIRE(std::filesystem::exists(path));
    auto r = readGraphFile(path.string(), formatOfFolder(relative));
    INFO(allMessages(r));
    REQUIRE_FALSE(r.ok());
    CHECK(r.errorText().find(expected) != std::string::npos);
    CHECK(r.errorText().find(path.filename().string()) != std::string::npos);
  }
}

TEST_CASE("every file in every invalid folder fails, with Auto detection too", "[io][fixtures][invalid]") {
  std::size_t total = 0;
  for (const auto& [folder, format] : kFolders) {
    for (const auto& path : filesIn(fixture(folder + "/invalid"))) {
      INFO(path.string());
      ++total;
      for (GraphFormat f : {format, GraphFormat::Auto}) {
        auto r = readGraphFile(path.string(), f);
        INFO(formatName(f) + ": " + allMessages(r));
        REQUIRE_FALSE(r.ok());
        REQUIRE_FALSE(r.errors().empty());
        CHECK(r.errorText().find(path.filename().string()) != std::string::npos);
      }
    }
  }
  CHECK(total >= 15);
}

TEST_CASE("every invalid fixture has an expectation", "[io][fixtures][invalid]") {
  for (const auto& [folder, format] : kFolders)
    for (const auto& path : filesIn(fixture(folder + "/invalid"))) {
      const std::string relative = folder + "/invalid/" + path.filename().string();
      INFO(relative);
      CHECK(kInvalidExpectations.count(relative) == 1);
    }
}
