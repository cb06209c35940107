// Native JSON reader and writer on in-memory text: types, limits, warnings, determinism.

#include <catch2/catch.hpp>

#include "IoTestSupport.hpp"
#include "remat/graph/GraphBuilder.hpp"
#include "remat/io/NativeJson.hpp"

using namespace remat;
using namespace remat::io;
using namespace remat::io::test;

namespace {

// A two-node graph whose op node gets `extra` appended (e.g. `, "fwd_time": 3`).
std::string graphWith(const std::string& opBytes, const std::string& extra = "") {
  return R"({"format": "remat-graph", "version": 1, "nodes": [
  {"id": "x", "kind": "input", "bytes": 0},
  {"id": "a", "kind": "op", "op": "Relu", "inputs": ["x"], "bytes": )" +
         opBytes + extra + "}]}";
}

bool hasWarning(const Result<graph::ComputeGraph>& r, const std::string& piece) {
  for (const auto& w : r.warnings())
    if (w.toString().find(piece) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("native: 64-bit limits on integers", "[io][native]") {
  SECTION("int64 max is an integer, but a graph total beyond 2^60") {
    auto r = readNativeJson(graphWith("9223372036854775807"), "g.json");
    REQUIRE_FALSE(r.ok());
    CHECK(r.errorText().find("expected a non-negative integer") == std::string::npos);
    CHECK(r.errorText().find("total size or time passes 2^60") != std::string::npos);
    auto most = readNativeJson(graphWith("1152921504606846000"), "g.json");  // 2^60 less the others
    INFO(allMessages(most));
    REQUIRE(most.ok());
    CHECK(nodeNamed(most.value(), "a").bytes == Bytes{1152921504606846000});
  }
  SECTION("2^63 is rejected") {
    auto r = readNativeJson(graphWith("9223372036854775808"), "g.json");
    REQUIRE_FALSE(r.ok());
    CHECK(r.errorText() == "g.json: /nodes/1/bytes: number 9223372036854775808 does not fit in 64 bits");
  }
  SECTION("2^70 (parsed as a float) is rejected") {
    auto r = readNativeJson(graphWith("1180591620717411303424"), "g.json");
    REQUIRE_FALSE(r.ok());
    CHECK(r.errorText().find("does not fit in 64 bits") != std::string::npos);
  }
  SECTION("a huge negative number is rejected") {
    auto r = readNativeJson(graphWith("-1180591620717411303424"), "g.json");
    REQUIRE_FALSE(r.ok());
    CHECK(r.errorText().find("does not fit in 64 bits") != std::string::npos);
  }
  SECTION("whole floats are not integers in the native format") {
    auto r = readNativeJson(graphWith("12.0"), "g.json");
    REQUIRE_FALSE(r.ok());
    CHECK(r.errorText() == "g.json: /nodes/1/bytes: expected a non-negative integer, got 12.0");
  }
  SECTION("booleans and nulls are not integers") {
    auto r = readNativeJson(graphWith("true", R"(, "fwd_time": null)"), "g.json");
    REQUIRE_FALSE(r.ok());
    CHECK(r.errorText().find("/nodes/1/bytes: expected a non-negative integer, got true") != std::string::npos);
    CHECK(r.errorText().find("/nodes/1/fwd_time: expected a non-negative integer, got null") != std::string::npos);
  }
  SECTION("totals that overflow 64 bits are caught by the builder") {
    auto r = readNativeJson(graphWith("9223372036854775807", R"(, "workspace": 9223372036854775807)"), "g.json");
    REQUIRE_FALSE(r.ok());
    CHECK(r.errorText().find("total size or time passes 2^60") != std::string::npos);
  }
}

TEST_CASE("native: errors carry JSON paths and locations", "[io][native]") {
  auto r = readNativeJson(graphWith("-5"), "bad.json");
  REQUIRE_FALSE(r.ok());
  REQUIRE(r.errors().size() == 1);
  CHECK(r.errors()[0].where.file == "bad.json");
  CHECK(r.errors()[0].where.path == "/nodes/1/bytes");
  CHECK(r.errorText() == "bad.json: /nodes/1/bytes: expected a non-negative integer, got -5");
}

TEST_CASE("native: syntax errors report the line", "[io][native]") {
  const std::string text = "{\n  \"format\": \"remat-graph\",\n  \"version\": 1,,\n}";
  auto r = readNativeJson(text, "syntax.json");
  REQUIRE_FALSE(r.ok());
  REQUIRE(r.errors().size() == 1);
  CHECK(r.errors()[0].where.line == 3);
  CHECK(r.errorText().starts_with("syntax.json:3: invalid JSON"));
  CHECK(r.errorText().find("[json.exception") == std::string::npos);
}

TEST_CASE("native: several errors are reported together", "[io][native]") {
  auto r = readNativeJson(R"({"format": "remat-graph", "version": 1, "nodes": [
    {"id": "x", "kind": "input", "bytes": -1},
    {"id": 7, "kind": "op", "op": "Relu", "inputs": ["x"], "bytes": 1},
    {"kind": "op", "op": "Relu", "inputs": [3], "bytes": 1}]})",
                          "many.json");
  REQUIRE_FALSE(r.ok());
  CHECK(r.errors().size() == 4);
  CHECK(r.errorText().find("/nodes/1/id: expected a string, got 7") != std::string::npos);
  CHECK(r.errorText().find("/nodes/2: missing required key \"id\"") != std::string::npos);
  CHECK(r.errorText().find("/nodes/2/inputs/0: expected a string, got 3") != std::string::npos);
}

TEST_CASE("native: error count is capped", "[io][native]") {
  std::string text = R"({"format": "remat-graph", "version": 1, "nodes": [)";
  for (int i = 0; i < 500; ++i) text += std::string(i ? "," : "") + R"({"id": "n", "kind": "op", "bytes": -1})";
  text += "]}";
  auto r = readNativeJson(text, "capped.json");
  REQUIRE_FALSE(r.ok());
  CHECK(r.errors().size() <= 60);
  CHECK(r.errorText().find("more error(s) not shown") != std::string::npos);
}

TEST_CASE("native: unknown keys are ignored with a warning", "[io][native]") {
  auto r = readNativeJson(R"({"format": "remat-graph", "version": 1, "comment": "hi", "nodes": [
    {"id": "x", "kind": "input", "bytes": 8, "color": "red"},
    {"id": "a", "kind": "op", "op": "Relu", "inputs": ["x"], "bytes": 8, "saves": {"output": true, "why": 1}}]})",
                          "warn.json");
  INFO(allMessages(r));
  REQUIRE(r.ok());
  CHECK(r.warnings().size() == 3);
  CHECK(hasWarning(r, "warn.json: /comment: unknown key \"comment\" ignored"));
  CHECK(hasWarning(r, "/nodes/0/color: unknown key \"color\" ignored"));
  CHECK(hasWarning(r, "/nodes/1/saves/why"));
  CHECK(nodeNamed(r.value(), "a").saves == graph::Saves{{}, true});
}

TEST_CASE("native: the pins a graph carries are read, checked and written back", "[io][native][pins]") {
  const std::string head = R"({"format": "remat-graph", "version": 1, "nodes": [
  {"id": "x", "kind": "input", "bytes": 4},
  {"id": "a", "kind": "op", "op": "Relu", "inputs": ["x"], "bytes": 4},
  {"id": "b", "kind": "op", "op": "Relu", "inputs": ["a"], "bytes": 4},
  {"id": "c", "kind": "op", "op": "Relu", "inputs": ["b"], "bytes": 4}], "pins": )";
  auto r = readNativeJson(head + R"({"recompute": ["b", "a", "b"], "keep": ["c"]}})", "p.json");
  INFO(allMessages(r));
  REQUIRE(r.ok());
  const graph::ComputeGraph& g = r.value();
  REQUIRE(g.pinnedRecompute().size() == 2);  // in the file's order, the repeat dropped
  CHECK(g.node(g.pinnedRecompute()[0]).name == "b");
  CHECK(g.node(g.pinnedRecompute()[1]).name == "a");
  REQUIRE(g.pinnedKeep().size() == 1);
  CHECK(g.node(g.pinnedKeep()[0]).name == "c");
  const std::string text = writeNativeJson(g);
  CHECK(
      text.find("\"pins\": {\n    \"keep\": [\n      \"c\"\n    ],\n    \"recompute\": [\n      \"b\",\n      \"a\"") !=
      std::string::npos);
  auto back = readNativeJson(text, "back.json");
  REQUIRE(back.ok());
  CHECK(back.value().sameAs(g));
  // Pins are part of the graph: the same nodes unpinned are another graph.
  auto bare = readNativeJson(head + "{}}", "bare.json");
  REQUIRE(bare.ok());
  CHECK(bare.value().pinnedKeep().empty());
  CHECK(bare.value().pinnedRecompute().empty());
  CHECK_FALSE(bare.value().sameAs(g));
  CHECK(writeNativeJson(bare.value()).find("pins") == std::string::npos);

  // Every bad pin is an error at its JSON path.
  const auto error = [&head](const std::string& pins) {
    auto bad = readNativeJson(head + pins + "}", "bad.json");
    return bad.ok() ? std::string("(read)") : bad.errorText();
  };
  CHECK(error(R"({"recompute": ["zz"]})") ==
        "bad.json: /pins/recompute/0: cannot pin 'zz' as recompute: the graph has no node of that name");
  CHECK(error(R"({"keep": ["a", "x"]})") ==
        "bad.json: /pins/keep/1: cannot pin 'x' as keep: it is an input or a "
        "parameter, always in memory and never recomputed");
  CHECK(error(R"({"keep": ["a"], "recompute": ["a"]})") ==
        "bad.json: /pins/recompute/0: 'a' is pinned both as keep and as recompute");
  CHECK(error(R"(["a"])") ==
        "bad.json: /pins: expected an object {\"keep\": [names], \"recompute\": [names]}, got an array");
  CHECK(error(R"({"keep": "a"})") == "bad.json: /pins/keep: expected an array of node ids, got \"a\"");
  CHECK(error(R"({"keep": [3]})").find("bad.json: /pins/keep/0: ") == 0);
  auto odd = readNativeJson(head + R"({"keep": ["a"], "maybe": ["b"]}})", "odd.json");
  REQUIRE(odd.ok());
  CHECK(hasWarning(odd, "odd.json: /pins/maybe: unknown key \"maybe\" ignored"));
}

TEST_CASE("native: wrong types for structure", "[io][native]") {
  auto check = [](const std::string& text, const std::string& expected) {
    auto r = readNativeJson(text, "t.json");
    INFO(text);
    INFO(allMessages(r));
    REQUIRE_FALSE(r.ok());
    CHECK(r.errorText().find(expected) != std::string::npos);
  };
  check(R"({"format": "remat-graph", "version": 1, "nodes": {}})", "/nodes: expected an array of nodes, got an object");
  check(R"({"format": "remat-graph", "version": 1})", "missing required key \"nodes\"");
  check(R"({"version": 1, "nodes": []})", "missing required key \"format\"");
  check(R"({"format": "remat-graph", "nodes": []})", "missing required key \"version\"");
  check(R"({"format": "remat-graph", "version": "1", "nodes": []})", "/version: expected an integer, got \"1\"");
  check(R"({"format": "remat-graph", "version": 1, "nodes": [5]})", "/nodes/0: expected a node object, got 5");
  check(R"({"format": "remat-graph", "version": 1, "nodes": [{"id": "x", "kind": "input", "bytes": 0},
    {"id": "a", "kind": "op", "op": "Relu", "bytes": 1, "inputs": "x"}]})",
        "/nodes/1/inputs: expected an array of node ids");
  check(graphWith("1", R"(, "saves": [0])"), "/nodes/1/saves: expected an object");
  check(graphWith("1", R"(, "saves": {"output": 1})"), "/nodes/1/saves/output: expected true or false, got 1");
  check(graphWith("1", R"(, "saves": {"inputs": [-1]})"), "/nodes/1/saves/inputs/0: expected a non-negative integer");
  check(graphWith("1", R"(, "saves": {"inputs": [4294967296]})"), "saves input index 4294967296 is out of range");
  check(graphWith("1", R"(, "shape": [2, -1])"), "/nodes/1/shape/1: expected a non-negative integer, got -1");
  check(graphWith("1", R"(, "attrs": [1])"), "/nodes/1/attrs: expected an object, got an array");
  check(graphWith("1", R"(, "dtype": 4)"), "/nodes/1/dtype: expected a string, got 4");
  check(R"({"format": "remat-graph", "version": 1, "name": 3, "nodes": []})", "/name: expected a string, got 3");
  check(R"({"format": "remat-graph", "version": 1, "nodes": [{"id": "x", "kind": "op", "bytes": 1}]})",
        "/nodes/0: missing required key \"op\"");
  check(R"({"format": "remat-graph", "version": 1, "nodes": [{"id": "x", "kind": "op", "op": "A", "bytes": 1}]})",
        "/nodes/0: missing required key \"inputs\"");
  check(R"({"format": "remat-graph", "version": 1, "nodes": [{"id": "x", "kind": "op", "op": "A", "bytes": 1,
        "inputs": []}], "backward_graph": {}})",
        "/backward_graph: expected an array");
  check(R"({"format": "remat-graph", "version": 1, "nodes": [{"id": "x", "kind": "op", "op": "A", "bytes": 1,
        "inputs": []}], "backward_graph": [{"time": 1}]})",
        "/backward_graph/0: missing required key \"id\"");
  check(R"({"format": "remat-graph", "version": 1, "nodes": [{"id": "x", "kind": "op", "op": "A", "bytes": 1,
        "inputs": []}], "backward_graph": [{"id": "b", "gradient_of": "nope"}]})",
        "gradient of unknown node 'nope'");
  check(graphWith("1e400"), "/nodes/1/bytes: invalid JSON: number overflow parsing '1e400'");
  check("", "invalid JSON");
  check("   ", "invalid JSON");
  check("{\"format\": \"remat-graph\", \"x\": \"\xff\"}", "invalid JSON");
}

TEST_CASE("native: nesting depth is bounded", "[io][native]") {
  std::string deep(100000, '[');
  auto r = readNativeJson(deep, "deep.json");
  REQUIRE_FALSE(r.ok());
  CHECK(r.errorText().find("nested too deeply") != std::string::npos);
  // Brackets inside strings do not count.
  auto ok = readNativeJson(graphWith("1", R"(, "dtype": ")" + std::string(1000, '[') + "\""), "s.json");
  INFO(allMessages(ok));
  CHECK(ok.ok());
}

TEST_CASE("native: a byte-order mark is accepted", "[io][native]") {
  auto r = readNativeJson("\xEF\xBB\xBF" + graphWith("1"), "bom.json");
  INFO(allMessages(r));
  CHECK(r.ok());
}

TEST_CASE("native: attrs keep canonical object text or verbatim string text", "[io][native]") {
  auto r = readNativeJson(graphWith("1", R"(, "attrs": {"b": [1, 2.5], "a": {"z": null}})"), "a.json");
  REQUIRE(r.ok());
  CHECK(nodeNamed(r.value(), "a").attrs == R"({"a":{"z":null},"b":[1,2.5]})");
  auto s = readNativeJson(graphWith("1", R"x(, "attrs": "kernel=3 (not JSON)")x"), "s.json");
  REQUIRE(s.ok());
  CHECK(nodeNamed(s.value(), "a").attrs == "kernel=3 (not JSON)");
}

// A constant: a param or input whose attrs hold its value (one element for a scalar, else as many as its
// shape holds; non-finite reals as strings). It has no gradient; the reader checks the count and types.
TEST_CASE("native: constants carry a value the reader checks, and have no gradient", "[io][native]") {
  auto text = [](const std::string& param) {
    return R"({"format": "remat-graph", "version": 1, "nodes": [
  {"id": "x", "kind": "input", "bytes": 8, "shape": [2]},
  )" + param +
           R"(,
  {"id": "a", "kind": "op", "op": "Mul", "inputs": ["x", "c"], "bytes": 8}]})";
  };
  auto scalar =
      readNativeJson(text(R"({"id": "c", "kind": "param", "bytes": 4, "attrs": {"value": "-inf"}})"), "c.json");
  REQUIRE(scalar.ok());
  CHECK(nodeNamed(scalar.value(), "c").constant);
  CHECK_FALSE(nodeNamed(scalar.value(), "c").hasGradient());
  auto list = readNativeJson(
      text(R"({"id": "c", "kind": "param", "bytes": 2, "shape": [2], "dtype": "bool", "attrs": {"value": [true, 0]}})"),
      "c.json");
  REQUIRE(list.ok());
  CHECK(nodeNamed(list.value(), "c").constant);
  auto weight = readNativeJson(text(R"({"id": "c", "kind": "param", "bytes": 8, "shape": [2]})"), "c.json");
  REQUIRE(weight.ok());
  CHECK(nodeNamed(weight.value(), "c").hasGradient());
  auto ints =
      readNativeJson(text(R"({"id": "c", "kind": "param", "bytes": 8, "shape": [2], "dtype": "int32"})"), "c.json");
  REQUIRE(ints.ok());
  CHECK_FALSE(nodeNamed(ints.value(), "c").hasGradient());  // integer tensors have no gradient

  auto count = readNativeJson(
      text(R"({"id": "c", "kind": "param", "bytes": 12, "shape": [3], "attrs": {"value": [1, 2]}})"), "bad.json");
  REQUIRE_FALSE(count.ok());
  CHECK(count.errorText() == "bad.json: /nodes/1/attrs/value: the constant has 2 elements but its shape holds 3");
  auto word =
      readNativeJson(text(R"({"id": "c", "kind": "param", "bytes": 4, "attrs": {"value": "large"}})"), "bad.json");
  REQUIRE_FALSE(word.ok());
  CHECK_THAT(word.errorText(), Catch::Contains("/nodes/1/attrs/value: a constant's elements are numbers"));
}

TEST_CASE("native writer: deterministic, complete, ends with a newline", "[io][native][writer]") {
  auto r = readNativeJson(graphWith("1", R"(, "fwd_time": 3, "attrs": {"k": 1})"), "w.json");
  REQUIRE(r.ok());
  const std::string a = writeNativeJson(r.value());
  const std::string b = writeNativeJson(r.value());
  CHECK(a == b);
  CHECK(a.ends_with("}\n"));
  CHECK(a.find("\"format\": \"remat-graph\"") != std::string::npos);
  CHECK(a.find("\"version\": 1") != std::string::npos);
  CHECK(a.find("\"name\": \"w\"") != std::string::npos);
  CHECK(a.find("\"attrs\": {\n") != std::string::npos);  // written back as an object
  CHECK(a.find("\"shape\"") == std::string::npos);       // empty: left out
  CHECK(a.find("\"workspace\"") == std::string::npos);   // zero: left out
  CHECK(a.find("\"backward_graph\"") == std::string::npos);
  CHECK(a.find("\"saves\": {") != std::string::npos);
  // Keys in a fixed, readable order.
  CHECK(a.find("\"format\"") < a.find("\"version\""));
  CHECK(a.find("\"id\": \"a\"") < a.find("\"op\": \"Relu\""));
}

TEST_CASE("native writer: round trip of graphs built directly, with unusual content", "[io][native][writer]") {
  graph::GraphBuilder b;
  b.setName("odd \"graph\" \u00e9");
  b.setTimeUnit("ms");
  b.setCostModel("flops");
  graph::NodeSpec x;
  x.name = "x\ny";
  x.kind = graph::NodeKind::Input;
  x.bytes = 10;
  x.fwdTime = 4;  // meaningless for an input, but the writer must not lose it
  x.attrs = R"({"origin":"camera"})";
  b.add(x);
  graph::NodeSpec a;
  a.name = "a/\u00fcber";
  a.op = "Weird";
  a.inputs = {"x\ny", "x\ny"};
  a.bytes = 5;
  a.shape = {0, 7};
  a.dtype = "bfloat16";
  a.workspace = 9;
  a.saves = {{1}, true};
  a.attrs = R"({ "b": 1, "a": 2 })";  // not canonical: must come back verbatim
  b.add(a);
  graph::NodeSpec c;
  c.name = "c";
  c.op = "Id";
  c.inputs = {"a/\u00fcber"};
  c.attrs = "not json at all";
  c.workspace = 4;
  c.bwdWorkspace = 0;  // differs from the forward's: written
  b.add(c);
  graph::BackwardSpec cb;
  cb.name = "c_grad";
  cb.time = 2;
  cb.inputs = {"c"};
  cb.gradientOf = "c";
  b.addBackward(cb);
  graph::BackwardSpec ab;
  ab.name = "a_grad";
  ab.inputs = {"c_grad", "x\ny"};
  b.addBackward(ab);
  auto built = b.build();
  INFO(allMessages(built));
  REQUIRE(built.ok());
  const std::string text = writeNativeJson(built.value());
  auto back = readNativeJson(text, "rt.json");
  INFO(text);
  INFO(allMessages(back));
  REQUIRE(back.ok());
  CHECK(back.value().sameAs(built.value()));
  CHECK(back.value().costModel() == "flops");
  CHECK(nodeNamed(back.value(), "a/\u00fcber").attrs == R"({ "b": 1, "a": 2 })");
  CHECK(nodeNamed(back.value(), "c").attrs == "not json at all");
  CHECK(nodeNamed(back.value(), "x\ny").fwdTime == Ticks{4});
  CHECK(nodeNamed(back.value(), "a/\u00fcber").bwdWorkspace == Bytes{9});  // absent: the forward's
  CHECK(nodeNamed(back.value(), "c").bwdWorkspace == Bytes{0});
  CHECK(text.find("\"bwd_workspace\": 0") != std::string::npos);
  CHECK(writeNativeJson(back.value()) == text);
}

TEST_CASE("native: random bytes never throw", "[io][native][robustness]") {
  std::uint32_t state = 12345;
  for (int i = 0; i < 300; ++i) {
    std::string text;
    const int len = static_cast<int>(state % 200);
    for (int k = 0; k < len; ++k) {
      state = state * 1664525u + 1013904223u;
      static constexpr char kAlphabet[] = "{}[]\",:0123456789-.eE truefalsnodeskindbytesopinputsformatremat-graph\xff";
      text += kAlphabet[(state >> 16) % (sizeof kAlphabet - 1)];
    }
    state = state * 1664525u + 1013904223u;
    CHECK_NOTHROW(readNativeJson(text, "random.json"));
  }
}

TEST_CASE("native: docs/remat-graph.schema.json names every key the writer uses", "[io][native][docs]") {
  const std::string schema = readText(std::filesystem::path(REMAT_SOURCE_DIR) / "docs" / "remat-graph.schema.json");
  REQUIRE_FALSE(schema.empty());
  CHECK(schema.find("\"$schema\": \"https://json-schema.org/draft/2020-12/schema\"") != std::string::npos);
  // A graph that uses every field the writer knows (attrs as a string, so it adds no keys of its own).
  graph::GraphBuilder b;
  graph::NodeSpec x;
  x.name = "x";
  x.kind = graph::NodeKind::Input;
  x.bytes = 4;
  x.shape = {1, 1};
  x.dtype = "float32";
  b.add(x);
  graph::NodeSpec a;
  a.name = "a";
  a.op = "Op";
  a.inputs = {"x"};
  a.bytes = 4;
  a.fwdTime = a.bwdTime = 1;
  a.workspace = 2;
  a.saves = {{0}, true};
  a.attrs = "raw";
  b.add(a);
  graph::NodeSpec c = a;
  c.name = "c";
  b.add(c);
  b.addPin({"a", true, {}});
  b.addPin({"c", false, {}});
  graph::BackwardSpec ab;
  ab.name = "a_b";
  ab.inputs = {"a"};
  ab.gradientOf = "a";
  b.addBackward(ab);
  auto built = b.build();
  REQUIRE(built.ok());
  const std::string text = writeNativeJson(built.value());
  std::size_t keys = 0;
  for (std::size_t pos = text.find("\": "); pos != std::string::npos; pos = text.find("\": ", pos + 1)) {
    const std::size_t open = text.rfind('"', pos - 1);
    const std::string key = text.substr(open, pos - open + 1);  // with quotes
    INFO(key);
    CHECK(schema.find(key + ":") != std::string::npos);
    ++keys;
  }
  CHECK(keys >= 20);
}
