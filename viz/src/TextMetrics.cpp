#include "remat/viz/TextMetrics.hpp"

#include <cctype>
#include <cstring>

namespace remat::viz {

double ApproxTextMetrics::width(std::string_view text, double size, bool bold) const {
  double em = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      if ((c & 0xC0) != 0x80) em += 0.65;  // a code point's lead byte; continuation bytes add nothing
      continue;
    }
    if (c == ' ') em += 0.32;
    else if (std::strchr("iljtf.,:;'|!()[]", c)) em += 0.34;
    else if (c == 'm' || c == 'w' || c == 'M' || c == 'W') em += 0.92;
    else if (std::isdigit(c)) em += 0.64;
    else if (std::isupper(c)) em += 0.72;
    else em += 0.6;
  }
  return em * size * (bold ? 1.1 : 1.0);
}

const TextMetrics& approxTextMetrics() {
  static const ApproxTextMetrics kMetrics;
  return kMetrics;
}

}  // namespace remat::viz
