#include "remat/graph/ByteSize.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace remat {

std::optional<Bytes> parseByteSize(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  std::size_t numEnd = 0;
  while (numEnd < text.size() && (std::isdigit(static_cast<unsigned char>(text[numEnd])) || text[numEnd] == '.'))
    ++numEnd;
  if (numEnd == 0) return std::nullopt;
  std::string_view number = text.substr(0, numEnd);
  std::string unit;
  for (char c : text.substr(numEnd))
    if (!std::isspace(static_cast<unsigned char>(c)))
      unit += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));

  struct Unit {
    const char* name;
    double factor;
  };
  static constexpr std::array<Unit, 14> kUnits{{{"", 1.0},
                                                {"b", 1.0},
                                                {"kb", 1e3},
                                                {"mb", 1e6},
                                                {"gb", 1e9},
                                                {"tb", 1e12},
                                                {"kib", 1024.0},
                                                {"mib", 1024.0 * 1024},
                                                {"gib", 1024.0 * 1024 * 1024},
                                                {"tib", 1024.0 * 1024 * 1024 * 1024},
                                                {"k", 1024.0},
                                                {"m", 1024.0 * 1024},
                                                {"g", 1024.0 * 1024 * 1024},
                                                {"t", 1024.0 * 1024 * 1024 * 1024}}};
  const Unit* found = nullptr;
  for (const auto& u : kUnits)
    if (unit == u.name) found = &u;
  if (!found) return std::nullopt;

  if (number.find('.') == std::string_view::npos) {
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
    if (ec != std::errc() || p != number.data() + number.size()) return std::nullopt;
    const auto factor = static_cast<std::int64_t>(found->factor);
    std::int64_t out = 0;
    if (__builtin_mul_overflow(v, factor, &out)) return std::nullopt;
    return Bytes{out};
  }
  if (number.find('.') != number.rfind('.') || number.back() == '.' || number.front() == '.') return std::nullopt;
  const double v = std::strtod(std::string(number).c_str(), nullptr) * found->factor;
  if (!std::isfinite(v) || v >= 9.2e18) return std::nullopt;
  return Bytes{static_cast<std::int64_t>(std::llround(v))};
}

std::string formatByteSize(Bytes b) {
  static constexpr std::array<const char*, 6> kNames{"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  const bool negative = b.value < 0;
  double v = std::abs(double(b.value));
  std::size_t unit = 0;
  while (v >= 1024.0 && unit + 1 < kNames.size()) {
    v /= 1024.0;
    ++unit;
  }
  char buf[48];
  if (unit == 0)
    std::snprintf(buf, sizeof buf, "%s%lld B", negative ? "-" : "", static_cast<long long>(std::abs(b.value)));
  else if (v >= 100)
    std::snprintf(buf, sizeof buf, "%s%.0f %s", negative ? "-" : "", v, kNames[unit]);
  else if (v >= 10)
    std::snprintf(buf, sizeof buf, "%s%.1f %s", negative ? "-" : "", v, kNames[unit]);
  else
    std::snprintf(buf, sizeof buf, "%s%.2f %s", negative ? "-" : "", v, kNames[unit]);
  return buf;
}

std::string formatByteSizeExact(Bytes b) { return formatByteSize(b) + " (" + std::to_string(b.value) + " bytes)"; }

}  // namespace remat
