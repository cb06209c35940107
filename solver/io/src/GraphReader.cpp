#include "remat/io/GraphReader.hpp"

#include <cctype>
#include <charconv>
#include <exception>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "JsonSupport.hpp"
#include "remat/io/CheckmateJson.hpp"
#include "remat/io/NativeJson.hpp"
#include "remat/io/Onnx.hpp"
#include "remat/io/PfnCg.hpp"
#include "remat/io/detail/ReaderSupport.hpp"

namespace remat::io {
namespace {

using graph::ComputeGraph;

Result<ComputeGraph> fileError(const std::string& path, std::string message) {
  return Result<ComputeGraph>::failure(Diagnostic{SourceLocation{path, 0, {}}, std::move(message)});
}

// True when the first line holds exactly two integers (the "N M" header of the PFN cg text).
bool firstLineIsTwoIntegers(std::string_view text) {
  const std::size_t end = text.find('\n');
  std::string_view line = text.substr(0, end);
  if (line.ends_with('\r')) line.remove_suffix(1);
  int count = 0;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i == line.size()) break;
    std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    std::int64_t value = 0;
    auto [ptr, ec] = std::from_chars(line.data() + start, line.data() + i, value);
    if (ptr != line.data() + i) return false;  // not all digits (overflow still counts as a number)
    (void)ec;
    ++count;
  }
  return count == 2;
}

std::string lowerExtension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

Result<ComputeGraph> readDetected(std::string_view text, const std::string& path, const ReadOptions& options) {
  const std::string ext = lowerExtension(path);
  if (ext == ".onnx" || looksLikeOnnx(text)) return readOnnx(text, path, OnnxOptions{options.batch});
  if (options.batch && !options.batchOnlyForOnnx)
    return fileError(path, "--batch applies to ONNX models only; this file is not one");
  std::string_view body = detail::stripBom(text);
  std::size_t first = body.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return fileError(path, "file is empty");
  if (body[first] == '{') {
    // Parse once, then decide by the keys.
    detail::Diagnostics diag(path);
    auto doc = detail::parseJson(body, diag);
    if (!doc) return diag.failure();
    if (detail::member(*doc, "format")) return detail::readNativeDocument(*doc, diag);
    if (detail::member(*doc, "nodes") && detail::member(*doc, "links"))
      return detail::readCheckmateDocument(*doc, diag, options.asGiven);
    // Neither shape: the native reader explains what a native file needs.
    return detail::readNativeDocument(*doc, diag);
  }
  if (firstLineIsTwoIntegers(body)) return readPfnCg(text, path);
  if (ext == ".json") return readNativeJson(text, path);
  if (ext == ".txt" || ext == ".cg") return readPfnCg(text, path);
  return fileError(path,
                   "cannot tell the graph format: expected a JSON object (native or Checkmate), PFN cg "
                   "text starting with a line 'N M', or an ONNX model");
}

}  // namespace

namespace {
Result<ComputeGraph> readAnyFormat(const std::string& path, GraphFormat format, const ReadOptions& options);
}  // namespace

Result<ComputeGraph> readGraphFile(const std::string& path, GraphFormat format, const ReadOptions& options) {
  Result<ComputeGraph> read = readAnyFormat(path, format, options);
  // Asked to plan it as given: a graph of a format that says nothing of that keeps its operations.
  if (options.asGiven && read.ok() && !read.value().asGiven()) return {read.value().computedAsGiven(), read.warnings()};
  return read;
}

namespace {

Result<ComputeGraph> readAnyFormat(const std::string& path, GraphFormat format, const ReadOptions& options) {
  try {
    std::string why;
    auto text = detail::readFileCapped(path, kMaxGraphFileBytes, "graph", why);
    if (!text) return fileError(path, "cannot read graph file: " + why);
    if (options.batch && !options.batchOnlyForOnnx && format != GraphFormat::Onnx && format != GraphFormat::Auto)
      return fileError(path, "--batch applies to ONNX models only");
    switch (format) {
      case GraphFormat::Onnx: return readOnnx(*text, path, OnnxOptions{options.batch});
      case GraphFormat::Native: return readNativeJson(*text, path);
      case GraphFormat::PfnCg: return readPfnCg(*text, path);
      case GraphFormat::Checkmate: return readCheckmateJson(*text, path, options.asGiven);
      case GraphFormat::Auto: break;
    }
    return readDetected(*text, path, options);
  } catch (const std::exception& e) {
    return fileError(path, std::string("cannot read graph file: ") + e.what());
  }
}

}  // namespace

std::optional<GraphFormat> formatFromName(std::string_view name) {
  if (name == "auto") return GraphFormat::Auto;
  if (name == "native") return GraphFormat::Native;
  if (name == "pfn") return GraphFormat::PfnCg;
  if (name == "checkmate") return GraphFormat::Checkmate;
  if (name == "onnx") return GraphFormat::Onnx;
  return std::nullopt;
}

std::string formatName(GraphFormat f) {
  switch (f) {
    case GraphFormat::Auto: return "auto";
    case GraphFormat::Native: return "native";
    case GraphFormat::PfnCg: return "pfn";
    case GraphFormat::Checkmate: return "checkmate";
    case GraphFormat::Onnx: return "onnx";
  }
  return "auto";
}

}  // namespace remat::io
