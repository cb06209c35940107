#pragma once

#include <cstddef>
#include <string>

namespace remat::test {

/// The first byte of `text` that a terminal would obey or XML 1.0 forbids: a C0 control character not in
/// `allowed`, DEL, or a C1 control as UTF-8 (C2 80 to C2 9F); npos when there is none.
inline std::size_t controlByte(const std::string& text, const std::string& allowed = "") {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    if ((b < 0x20 && allowed.find(static_cast<char>(b)) == std::string::npos) || b == 0x7F) return i;
    if (b == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) <= 0x9F) return i;
  }
  return std::string::npos;
}

}  // namespace remat::test
