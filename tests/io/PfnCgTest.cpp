// PFN cg text reader on in-memory text: robustness against hostile counts and tokens.

#include <catch2/catch.hpp>

#include "IoTestSupport.hpp"
#include "remat/io/PfnCg.hpp"

using namespace remat;
using namespace remat::io;
using namespace remat::io::test;

namespace {

// input0 -> v1 = Class(input0, /w) with the given class name and attribute line.
std::string oneBlock(const std::string& className = "LinearFunction", const std::string& attrs = "{}",
                     const std::string& tail = "") {
  return "3 2\n0 16 0\n1 16 _\n2 8 /w\nforward\n2 1\n0 _\n2 _\n1\n" + className + "\n" + attrs +
         "\nbackward\n3 2\n1 gradient\n0 input\n2 input\n0\n2\n" + className + "\n" + attrs + "\n" + tail;
}

Result<graph::ComputeGraph> readCg(const std::string& text) { return readPfnCg(text, "dir/graph_a.txt"); }

void expectError(const std::string& text, const std::string& expected) {
  auto r = readCg(text);
  INFO(text);
  INFO(allMessages(r));
  REQUIRE_FALSE(r.ok());
  CHECK(r.errorText().find(expected) != std::string::npos);
}

}  // namespace

TEST_CASE("pfn: a minimal file", "[io][pfn]") {
  auto r = readCg(oneBlock());
  INFO(allMessages(r));
  REQUIRE(r.ok());
  const auto& g = r.value();
  CHECK(g.name() == "graph_a");
  CHECK(g.size() == 3);
  CHECK(g.opCount() == 1);
  CHECK(nodeNamed(g, "v1").saves == graph::Saves{{0, 1}, false});
  CHECK(nodeNamed(g, "v1").attrs == "{}");
  CHECK(r.warnings().empty());
}

TEST_CASE("pfn: the paper's time rule is a prefix test on the class name", "[io][pfn]") {
  CHECK(nodeNamed(readCg(oneBlock("Convolution2DFunction")).value(), "v1").fwdTime == Ticks{10});
  CHECK(nodeNamed(readCg(oneBlock("ConvolutionND")).value(), "v1").bwdTime == Ticks{10});
  CHECK(nodeNamed(readCg(oneBlock("Deconvolution2DFunction")).value(), "v1").fwdTime == Ticks{1});
  CHECK(nodeNamed(readCg(oneBlock("LinearFunction")).value(), "v1").fwdTime == Ticks{1});
}

TEST_CASE("pfn: huge counts cost lines, not memory", "[io][pfn][robustness]") {
  expectError("1000000000000000000 2\n",
              "graph_a.txt:2: unexpected end of file, expected variable line 1 of 1000000000000000000");
  expectError("0 1000000000000000000\n", "unexpected end of file, expected 'forward' (block 0)");
  expectError("1 2\n0 4 _\nforward\n999999999999999999 1\n0 _\n",
              "graph_a.txt:6: unexpected end of file, expected input line 2 of 999999999999999999 (block 0)");
  expectError("1 2\n0 4 _\nforward\n0 999999999999999999\n",
              "unexpected end of file, expected output line 1 of 999999999999999999 (block 0)");
  expectError("9223372036854775807 9223372036854775806\n", "unexpected end of file");
  expectError("99999999999999999999 2\n",
              "graph_a.txt:1: variable count N 99999999999999999999 does not fit in 64 bits");
}

TEST_CASE("pfn: malformed header lines", "[io][pfn]") {
  expectError("", "graph_a.txt: file is empty");
  expectError("3\n", "graph_a.txt:1: expected a first line 'N M'");
  expectError("3 2 1\n", "graph_a.txt:1: expected a first line 'N M'");
  expectError("-3 2\n", "graph_a.txt:1: negative variable count N -3");
  expectError("3 x\n", "expected an integer for block count M, got \"x\"");
  expectError("+3 2\n", "expected an integer for variable count N, got \"+3\"");
  expectError("0x3 2\n", "expected an integer for variable count N, got \"0x3\"");
  expectError("3 5\n", "block count M = 5 is odd");
}

TEST_CASE("pfn: malformed blocks", "[io][pfn]") {
  std::string text = oneBlock();
  expectError("1 2\n0 4 _\nforward\n1\n", "graph_a.txt:4: expected 'k p' (numbers of inputs and outputs) (block 0)");
  expectError("1 2\n0 4 _\nforward\n1 1\n0\n", "graph_a.txt:5: expected 'var_id type' (block 0)");
  expectError("1 2\n0 4 _\nforward\n0 1\n0 1\n", "graph_a.txt:5: expected one variable id (block 0)");
  expectError("1 2\n0 4 _\nforward\n0 1\n0\n\n{}\n", "graph_a.txt:6: expected a function class name (block 0)");
  expectError("2 2\n0 4 0\n1 4 _\nforward\n1 1\n0 gradient\n1\nReLU\n{}\n",
              "graph_a.txt:6: expected '_' after the variable id in a forward block, got 'gradient'");
  expectError(oneBlock("LinearFunction", "[1, 2]"),
              "graph_a.txt:11: the attribute line (block 0) must be a JSON object, got an array");
  expectError(oneBlock("LinearFunction", std::string(300, '[') + std::string(300, ']')), "is not valid JSON");
  expectError(oneBlock("Linear\xff"), "graph_a.txt:10: expected a function class name");
  expectError("1 2\n0 4 /w\xc3\n", "graph_a.txt:2: variable name is not valid UTF-8: \"/w\\xC3\"");
  expectError("1 2\n0 4\n", "graph_a.txt:2: expected a variable line 'id bytes name'");
}

TEST_CASE("pfn: warnings for class mismatch and trailing lines", "[io][pfn]") {
  std::string text = oneBlock();
  const std::string backwardClass = "\nLinearFunction\n{}\n";
  text.replace(text.rfind(backwardClass), backwardClass.size(), "\nOtherFunction\n{}\n");
  auto r = readCg(text + "\ngarbage here\n");
  INFO(allMessages(r));
  REQUIRE(r.ok());
  REQUIRE(r.warnings().size() == 2);
  CHECK(r.warnings()[0].toString().find("graph_a.txt:19: backward block names class 'OtherFunction'") !=
        std::string::npos);
  CHECK(r.warnings()[1].toString() == "dir/graph_a.txt:22: 1 non-empty line(s) after the last block ignored");
}

TEST_CASE("pfn: no operations is an error from the builder", "[io][pfn]") {
  expectError("1 0\n0 4 0\n", "graph has no operation nodes");
}

TEST_CASE("pfn: random bytes never throw", "[io][pfn][robustness]") {
  std::uint32_t state = 777;
  const std::string base = oneBlock();
  for (int i = 0; i < 300; ++i) {
    std::string text = base;
    for (int k = 0; k < 4; ++k) {
      state = state * 1664525u + 1013904223u;
      const std::size_t pos = (state >> 8) % text.size();
      static constexpr char kAlphabet[] = "0123456789 _-\n{}\"xforwardbackward\xff";
      text[pos] = kAlphabet[(state >> 20) % (sizeof kAlphabet - 1)];
    }
    CHECK_NOTHROW(readCg(text));
  }
}
