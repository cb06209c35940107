// DOT output: shapes, labels, escaping, one edge per distinct pair.

#include <catch2/catch.hpp>

#include "IoTestSupport.hpp"
#include "remat/io/DotWriter.hpp"
#include "remat/io/GraphReader.hpp"
#include "remat/io/NativeJson.hpp"

using namespace remat;
using namespace remat::io;
using namespace remat::io::test;

namespace {

std::size_t occurrences(const std::string& text, const std::string& piece) {
  std::size_t n = 0;
  for (std::size_t pos = text.find(piece); pos != std::string::npos; pos = text.find(piece, pos + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("dot: shapes, labels and edges of the tiny graph", "[io][dot]") {
  auto r = readGraphFile(fixture("native/valid/tiny.json").string());
  REQUIRE(r.ok());
  const std::string dot = writeDot(r.value());
  CHECK(dot.starts_with("digraph \"tiny\" {\n"));
  CHECK(dot.ends_with("}\n"));
  CHECK(dot.find(R"("fc" [shape=box, label="fc\nMatMul 512 B"])") != std::string::npos);
  CHECK(dot.find(R"("x" [shape=ellipse, label="x\ninput 1.00 KiB")") != std::string::npos);
  CHECK(dot.find(R"("w" [shape=ellipse, label="w\nparam 4.00 KiB")") != std::string::npos);
  CHECK(dot.find("\"x\" -> \"fc\";") != std::string::npos);
  CHECK(dot.find("\"w\" -> \"fc\";") != std::string::npos);
  CHECK(occurrences(dot, " -> ") == 2);
  CHECK(writeDot(r.value()) == dot);
}

TEST_CASE("dot: ids are quoted and escaped, repeated inputs give one edge", "[io][dot]") {
  auto r = readGraphFile(fixture("native/valid/multi_output.json").string());
  REQUIRE(r.ok());
  const std::string dot = writeDot(r.value());
  CHECK(dot.starts_with("digraph \"multi output\" {"));
  CHECK(dot.find(R"("right \"quoted\"" [shape=box)") != std::string::npos);
  CHECK(dot.find(R"("s" -> "right \"quoted\"";)") != std::string::npos);
  CHECK(occurrences(dot, "\"s\" -> \"sq\";") == 1);  // sq = s * s
  CHECK(occurrences(dot, " -> ") == r.value().edgeCount());
}

TEST_CASE("dot: backslashes and control characters cannot break out of quotes", "[io][dot]") {
  auto r = readNativeJson(R"({"format": "remat-graph", "version": 1, "name": "g\\", "nodes": [
      {"id": "in\\", "kind": "input", "bytes": 3},
      {"id": "a\"\n\u0001b", "kind": "op", "op": "X\\", "inputs": ["in\\"], "bytes": 1048576}]})",
                          "esc.json");
  INFO(r.errorText());
  REQUIRE(r.ok());
  const std::string dot = writeDot(r.value());
  INFO(dot);
  CHECK(dot.starts_with("digraph \"g\\\\\" {"));
  CHECK(dot.find(R"("in\\" -> "a\"\n\x01b";)") != std::string::npos);
  CHECK(dot.find(R"(label="a\"\n\x01b\nX\\ 1.00 MiB")") != std::string::npos);
  // Every line has an even number of unescaped quotes, so no quote is left open.
  std::size_t start = 0;
  while (start < dot.size()) {
    const std::size_t end = dot.find('\n', start);
    const std::string line = dot.substr(start, end - start);
    std::size_t quotes = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '\\')
        ++i;
      else if (line[i] == '"')
        ++quotes;
    }
    CHECK(quotes % 2 == 0);
    start = end + 1;
  }
}
