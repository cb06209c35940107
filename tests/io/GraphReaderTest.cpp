// readGraphFile: file handling and format detection; format names.

#include <unistd.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <fstream>

#include "IoTestSupport.hpp"
#include "remat/io/GraphReader.hpp"
#include "remat/io/NativeJson.hpp"

using namespace remat;
using namespace remat::io;
using namespace remat::io::test;

namespace {

// A scratch folder removed at the end of the test.
struct TempDir {
  static inline int s_made = 0;  // a fresh folder per TempDir of this process
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("remat_io_test_" + std::to_string(::getpid()) + "_" + std::to_string(++s_made));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const auto p = path / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
};

}  // namespace

TEST_CASE("readGraphFile: missing, unreadable and oversized files", "[io][reader]") {
  TempDir dir;
  SECTION("missing") {
    const std::string path = (dir.path / "nope.json").string();
    auto r = readGraphFile(path);
    REQUIRE_FALSE(r.ok());
    CHECK(r.errorText() == path + ": cannot read graph file: no such file");
  }
  SECTION("a directory") {
    auto r = readGraphFile(dir.path.string(), GraphFormat::Native);
    REQUIRE_FALSE(r.ok());
    CHECK(r.errorText().find("is a directory") != std::string::npos);
  }
  SECTION("empty") {
    auto r = readGraphFile(dir.write("empty.json", ""));
    REQUIRE_FALSE(r.ok());
    CHECK(r.errorText().find("empty.json: file is empty") != std::string::npos);
  }
  SECTION("over 1 GiB is refused before reading (sparse file)") {
    const std::string path = dir.write("huge.json", "{");
    std::filesystem::resize_file(path, kMaxGraphFileBytes + 1);
    auto r = readGraphFile(path);
    REQUIRE_FALSE(r.ok());
    CHECK(r.errorText().find("huge.json: cannot read graph file: file is too large") != std::string::npos);
    CHECK(r.errorText().find("over 1 GiB") != std::string::npos);
  }
}

TEST_CASE("readGraphFile: detection by content beats the extension", "[io][reader]") {
  TempDir dir;
  const std::string native = readText(fixture("native/valid/chain.json"));
  const std::string pfn = readText(fixture("pfn/valid/chain.txt"));
  const std::string checkmate = readText(fixture("checkmate/valid/test_diamond.json"));
  SECTION("PFN text in a .json file") {
    auto r = readGraphFile(dir.write("pfn.json", pfn));
    INFO(allMessages(r));
    REQUIRE(r.ok());
    CHECK(r.value().costModel() == "paper");
  }
  SECTION("native JSON in a .txt file") {
    auto r = readGraphFile(dir.write("native.txt", "\n  " + native));
    INFO(allMessages(r));
    REQUIRE(r.ok());
    CHECK(r.value().opCount() == 4);
  }
  SECTION("Checkmate JSON without an extension") {
    auto r = readGraphFile(dir.write("checkmate", checkmate));
    INFO(allMessages(r));
    REQUIRE(r.ok());
    CHECK(r.value().name() == "diamond test");
  }
  SECTION("a JSON object of neither kind is explained by the native reader") {
    auto r = readGraphFile(dir.write("other.json", R"({"hello": "world"})"));
    REQUIRE_FALSE(r.ok());
    CHECK(r.errorText().find("missing required key \"format\"") != std::string::npos);
  }
  SECTION("unknown content falls back to the extension") {
    auto txt = readGraphFile(dir.write("odd.txt", "hello\n"));
    REQUIRE_FALSE(txt.ok());
    CHECK(txt.errorText().find("odd.txt:1: expected a first line 'N M'") != std::string::npos);
    auto json = readGraphFile(dir.write("odd.json", "hello\n"));
    REQUIRE_FALSE(json.ok());
    CHECK(json.errorText().find("odd.json:1: invalid JSON") != std::string::npos);
    auto other = readGraphFile(dir.write("odd.dat", "hello\n"));
    REQUIRE_FALSE(other.ok());
    CHECK(other.errorText().find("odd.dat: cannot tell the graph format") != std::string::npos);
  }
  SECTION("an explicit format is obeyed") {
    auto r = readGraphFile(dir.write("chain.json", native), GraphFormat::Checkmate);
    REQUIRE_FALSE(r.ok());
    CHECK(r.errorText().find("missing required key \"links\"") != std::string::npos);
  }
}

TEST_CASE("format names", "[io][reader]") {
  for (GraphFormat f :
       {GraphFormat::Auto, GraphFormat::Native, GraphFormat::PfnCg, GraphFormat::Checkmate, GraphFormat::Onnx})
    CHECK(formatFromName(formatName(f)) == f);
  CHECK(formatName(GraphFormat::PfnCg) == "pfn");
  CHECK(formatFromName("checkmate") == GraphFormat::Checkmate);
  CHECK(formatFromName("onnx") == GraphFormat::Onnx);
  CHECK_FALSE(formatFromName("ONNX"));
  CHECK_FALSE(formatFromName("Native"));
  CHECK_FALSE(formatFromName(""));
}

TEST_CASE("readGraphFile: the project's native datasets load and round-trip", "[io][reader][datasets]") {
  const auto datasets = std::filesystem::path(REMAT_SOURCE_DIR) / "datasets";
  if (!std::filesystem::is_directory(datasets)) return;
  for (const auto& path : filesIn(datasets)) {
    if (path.extension() != ".json" || readText(path).find("\"remat-graph\"") == std::string::npos) continue;
    INFO(path.string());
    auto r = readGraphFile(path.string());
    INFO(allMessages(r));
    REQUIRE(r.ok());
    CHECK(r.warnings().empty());
    auto back = readNativeJson(writeNativeJson(r.value()), "roundtrip.json");
    REQUIRE(back.ok());
    CHECK(back.value().sameAs(r.value()));
  }
}
