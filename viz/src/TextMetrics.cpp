#include "remat/viz/TextMetrics.hpp"

#include <cctype>
#include <cstring>
#include <vector>

namespace remat::viz {

double ApproxTextMetrics::width(std::string_view text, double size, bool bold) const {
  double em = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      if ((c & 0xC0) != 0x80) em += 0.65;  // a code point's lead byte; continuation bytes add nothing
      continue;
    }
    if (c == ' ')
      em += 0.32;
    else if (std::strchr("iljtf.,:;'|!()[]", c))
      em += 0.34;
    else if (c == 'm' || c == 'w' || c == 'M' || c == 'W')
      em += 0.92;
    else if (std::isdigit(c))
      em += 0.64;
    else if (std::isupper(c))
      em += 0.72;
    else
      em += 0.6;
  }
  return em * size * (bold ? 1.1 : 1.0);
}

std::string elideMiddle(const std::string& text, double maxWidth, double size, const TextMetrics& tm) {
  if (tm.width(text, size) <= maxWidth) return text;
  std::vector<std::size_t> starts;  // byte offset of each code point
  for (std::size_t i = 0; i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) starts.push_back(i);
  const auto candidate = [&](std::size_t keep) {
    const std::size_t head = (keep + 1) / 2;
    const std::size_t tail = keep - head;
    const std::size_t headEnd = head < starts.size() ? starts[head] : text.size();
    const std::size_t tailStart = tail == 0 ? text.size() : starts[starts.size() - tail];
    return text.substr(0, headEnd) + "\u2026" + text.substr(tailStart);
  };
  // Keeping more characters never makes the text narrower, so the longest that fits is found by
  // bisection: a long text costs O(n log n), not the O(n^2) of trying every length in turn.
  std::size_t lo = 0;              // keeping this many fits, unless not even the ellipsis does
  std::size_t hi = starts.size();  // keeping this many does not fit (the whole text did not)
  std::string best = candidate(0);
  if (tm.width(best, size) > maxWidth) return {};
  while (hi - lo > 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    std::string c = candidate(mid);
    if (tm.width(c, size) <= maxWidth) {
      lo = mid;
      best = std::move(c);
    } else {
      hi = mid;
    }
  }
  return best;
}

const TextMetrics& approxTextMetrics() {
  static const ApproxTextMetrics kMetrics;
  return kMetrics;
}

}  // namespace remat::viz
