#include "remat/io/detail/ReaderSupport.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

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

void Diagnostics::finish() {
  if (m_errors.empty()) m_errors.push_back({at(0), "could not read the file"});
  appendDropped();
}

Result<graph::ComputeGraph> Diagnostics::build(graph::GraphBuilder& builder) {
  if (hasErrors()) return failure();
  Result<graph::ComputeGraph> built = builder.build();
  for (const Diagnostic& w : built.warnings()) warning(w.where, w.message);
  if (!built.ok()) {
    for (const Diagnostic& e : built.errors()) error(e.where, e.message);
    return failure();
  }
  return Result<graph::ComputeGraph>(std::move(built).value(), takeWarnings());
}

namespace {

std::string sizeText(std::uintmax_t bytes) {
  constexpr std::uintmax_t kGiB = std::uintmax_t{1} << 30;
  constexpr std::uintmax_t kMiB = std::uintmax_t{1} << 20;
  if (bytes % kGiB == 0) return std::to_string(bytes / kGiB) + " GiB";
  if (bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace

std::optional<std::string> readFileCapped(const std::string& path, std::uintmax_t maxBytes, std::string_view what,
                                          std::string& why, bool jsonObject) {
  namespace fs = std::filesystem;
  const std::string refused = std::string(what) + " files over " + sizeText(maxBytes) + " are refused";
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    why = "no such file";
    return std::nullopt;
  }
  if (fs::is_directory(status)) {
    why = "is a directory, not a " + std::string(what) + " file";
    return std::nullopt;
  }
  // A FIFO without a writer blocks its reader at open, a terminal waits for keys and a device may never
  // end: only regular files are read.
  if (!fs::is_regular_file(status)) {
    const char* kind = fs::is_fifo(status)             ? "a FIFO (named pipe)"
                       : fs::is_character_file(status) ? "a character device"
                       : fs::is_block_file(status)     ? "a block device"
                       : fs::is_socket(status)         ? "a socket"
                                                       : "not a regular file";
    why = std::string("is ") + kind + ", not a regular file: " + std::string(what) +
          " files are read from regular files only";
    return std::nullopt;
  }
  const std::uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > maxBytes) {
    why = "file is too large (" + std::to_string(size) + " bytes; " + refused + ")";
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    why = "cannot open the file for reading";
    return std::nullopt;
  }
  // Read in chunks, stopped at the cap: the file may grow while it is read. A chunk is whole but at the
  // end of the file, so a byte-order mark is within the first.
  std::string text;
  std::vector<char> buffer(std::size_t{1} << 16);
  bool sawStart = !jsonObject;
  std::size_t scanned = 0;  // the leading bytes known to be white space (or a BOM): each is looked at once
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    text.append(buffer.data(), static_cast<std::size_t>(in.gcount()));
    if (text.size() > maxBytes) {
      why = "file is too large (" + refused + ")";
      return std::nullopt;
    }
    if (!sawStart) {
      if (scanned == 0 && text.size() >= 3 && text.starts_with("\xEF\xBB\xBF")) scanned = 3;
      const std::size_t first = text.find_first_not_of(" \t\r\n", scanned);
      if (first == std::string::npos) {
        scanned = text.size();
        continue;
      }
      if (text[first] != '{') {
        why = "not a JSON object (the first character is " + printable(std::string_view(text).substr(first, 1)) + ")";
        return std::nullopt;
      }
      sawStart = true;
    }
  }
  if (in.bad()) {
    why = "read error";
    return std::nullopt;
  }
  return text;
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
