#include "ReaderSupport.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace remat::io::detail {

void Diagnostics::error(SourceLocation where, std::string message) {
  if (m_errors.size() >= kMaxErrors) {
    ++m_droppedErrors;
    return;
  }
  m_errors.push_back({std::move(where), std::move(message)});
}

void Diagnostics::warning(SourceLocation where, std::string message) {
  if (m_warnings.size() >= kMaxWarnings) {
    ++m_droppedWarnings;
    return;
  }
  m_warnings.push_back({std::move(where), std::move(message)});
}

void Diagnostics::appendDropped() {
  if (m_droppedErrors > 0)
    m_errors.push_back({at(0), "... and " + std::to_string(m_droppedErrors) + " more error(s) not shown"});
  if (m_droppedWarnings > 0)
    m_warnings.push_back({at(0), "... and " + std::to_string(m_droppedWarnings) + " more warning(s) not shown"});
  m_droppedErrors = m_droppedWarnings = 0;
}

Result<graph::ComputeGraph> Diagnostics::failure() {
  if (m_errors.empty()) m_errors.push_back({at(0), "could not read the graph"});
  appendDropped();
  return Result<graph::ComputeGraph>::failure(std::move(m_errors), std::move(m_warnings));
}

Result<graph::ComputeGraph> Diagnostics::build(graph::GraphBuilder& builder) {
  if (hasErrors()) return failure();
  Result<graph::ComputeGraph> built = builder.build();
  for (const Diagnostic& w : built.warnings()) warning(w.where, w.message);
  if (!built.ok()) {
    for (const Diagnostic& e : built.errors()) error(e.where, e.message);
    return failure();
  }
  appendDropped();
  return Result<graph::ComputeGraph>(std::move(built).value(), std::move(m_warnings));
}

std::string fileStem(const std::string& fileName) { return std::filesystem::path(fileName).stem().string(); }

namespace {

// Length of the well-formed UTF-8 sequence starting at text[i], or 0 if it is not one.
std::size_t utf8SequenceLength(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b0 = byte(i);
  if (b0 < 0x80) return 1;
  std::size_t len = 0;
  unsigned lo = 0x80;
  unsigned hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF)
    len = 2;
  else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    if (b0 == 0xE0) lo = 0xA0;  // overlong
    if (b0 == 0xED) hi = 0x9F;  // surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    if (b0 == 0xF0) lo = 0x90;  // overlong
    if (b0 == 0xF4) hi = 0x8F;  // above U+10FFFF
  } else
    return 0;
  if (i + len > text.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < len; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return len;
}

}  // namespace

bool isValidUtf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t len = utf8SequenceLength(text, i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

std::string printable(std::string_view text, std::size_t maxChars) {
  std::string out;
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size();) {
    if (chars >= maxChars) {
      out += "...";
      break;
    }
    const std::size_t len = utf8SequenceLength(text, i);
    const auto b = static_cast<unsigned char>(text[i]);
    if (len == 0 || (len == 1 && (b < 0x20 || b == 0x7F))) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", b);
      out += buf;
      i += 1;
    } else {
      out.append(text.substr(i, len));
      i += len;
    }
    ++chars;
  }
  return out;
}

std::string_view stripBom(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  return text;
}

}  // namespace remat::io::detail
