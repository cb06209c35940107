#include "remat/graph/PrintableText.hpp"

#include <cstdint>
#include <cstdio>

namespace remat::graph {

namespace {

// One character of the text as it is shown: `bytes` of the input, kept or replaced by an escape.
struct Unit {
  std::size_t bytes = 1;
  bool escape = false;
  std::uint32_t code = 0;  ///< the escaped byte (for \x) or code point (for \u)
  bool byteEscape = false;
};

// Decodes a well-formed UTF-8 sequence at text[i]; 0 for anything else (overlong forms, surrogates,
// code points above U+10FFFF, truncated sequences).
std::size_t decode(std::string_view text, std::size_t i, std::uint32_t& cp) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b0 = byte(i);
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  }
  std::size_t len = 0;
  unsigned lo = 0x80;
  unsigned hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
    cp = b0 & 0x1Fu;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    cp = b0 & 0x0Fu;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    cp = b0 & 0x07u;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + len > text.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    const unsigned char b = byte(i + k);
    if (b < (k == 1 ? lo : 0x80u) || b > (k == 1 ? hi : 0xBFu)) return 0;
    cp = (cp << 6) | (b & 0x3Fu);
  }
  return len;
}

bool isBidiControl(std::uint32_t cp) { return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069); }

Unit unitAt(std::string_view text, std::size_t i) {
  Unit u;
  std::uint32_t cp = 0;
  const std::size_t len = decode(text, i, cp);
  if (len == 0 || cp < 0x20) {
    u.escape = u.byteEscape = true;
    u.code = static_cast<unsigned char>(text[i]);
    return u;
  }
  u.bytes = len;
  if (cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || isBidiControl(cp) || cp == 0xFFFE || cp == 0xFFFF) {
    u.escape = true;
    u.code = cp;
  }
  return u;
}

void append(std::string& out, std::string_view text, std::size_t i, const Unit& u) {
  if (!u.escape) {
    out.append(text.substr(i, u.bytes));
    return;
  }
  char buf[8];
  if (u.byteEscape)
    std::snprintf(buf, sizeof buf, "\\x%02X", static_cast<unsigned>(u.code));
  else
    std::snprintf(buf, sizeof buf, "\\u%04X", static_cast<unsigned>(u.code));
  out += buf;
}

}  // namespace

std::string printableText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const Unit u = unitAt(text, i);
    append(out, text, i, u);
    i += u.bytes;
  }
  return out;
}

std::string printableText(std::string_view text, std::size_t maxChars) {
  if (maxChars < 2) maxChars = 2;
  std::size_t count = 0;
  for (std::size_t i = 0; i < text.size(); ++count) i += unitAt(text, i).bytes;
  if (count <= maxChars) return printableText(text);
  const std::size_t keep = maxChars - 1;  // one for the ellipsis
  const std::size_t head = (keep + 1) / 2;
  const std::size_t tailFrom = count - (keep - head);
  std::string out;
  std::size_t k = 0;
  for (std::size_t i = 0; i < text.size(); ++k) {
    const Unit u = unitAt(text, i);
    if (k < head || k >= tailFrom) append(out, text, i, u);
    if (k + 1 == head) out += "\u2026";
    i += u.bytes;
  }
  return out;
}

std::string quotedName(std::string_view name) { return "'" + printableText(name, kMessageNameChars) + "'"; }

}  // namespace remat::graph
