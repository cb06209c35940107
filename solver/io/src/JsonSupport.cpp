#include "JsonSupport.hpp"

#include <charconv>
#include <cmath>
#include <exception>
#include <limits>

namespace remat::io::detail {

std::size_t lineWhereNestingExceeds(std::string_view text, std::size_t limit) {
  std::size_t depth = 0;
  std::size_t line = 1;
  bool inString = false;
  bool escaped = false;
  for (char c : text) {
    if (c == '\n') ++line;
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    switch (c) {
      case '"':
        inString = true;
        break;
      case '[':
      case '{':
        if (++depth > limit) return line;
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
  }
  return 0;
}

namespace {

// nlohmann's parse_error text reads "[json.exception.parse_error.101] parse error at line L, column C:
// detail". Split it into the line and a message without the library's prefix.
std::pair<std::size_t, std::string> describeParseError(const std::string& what) {
  static constexpr std::string_view kAtLine = "at line ";
  std::size_t line = 0;
  std::string message = what;
  if (auto bracket = message.find("] "); message.starts_with("[json.exception") && bracket != std::string::npos)
    message.erase(0, bracket + 2);
  if (auto pos = message.find(kAtLine); pos != std::string::npos) {
    const char* first = message.data() + pos + kAtLine.size();
    const char* last = message.data() + message.size();
    std::size_t parsed = 0;
    if (auto [end, ec] = std::from_chars(first, last, parsed); ec == std::errc{}) {
      line = parsed;
      // Keep "column C: detail", dropping "parse error at line L, ".
      std::string_view rest(end, static_cast<std::size_t>(last - end));
      if (rest.starts_with(", ")) rest.remove_prefix(2);
      message = std::string(rest);
    }
  }
  return {line, "invalid JSON: " + printable(message, 200)};
}

}  // namespace

std::optional<Json> parseJson(std::string_view text, Diagnostics& diag) {
  if (std::size_t line = lineWhereNestingExceeds(text, kMaxJsonDepth); line > 0) {
    diag.errorAtLine(line, "JSON nested too deeply (more than " + std::to_string(kMaxJsonDepth) + " levels)");
    return std::nullopt;
  }
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const std::exception& e) {
    // parse_error carries the line; out_of_range (a number like 1e400) does not.
    auto [line, message] = describeParseError(e.what());
    diag.errorAtLine(line, std::move(message));
  }
  return std::nullopt;
}

std::string childPath(std::string_view base, std::string_view key) {
  std::string out(base);
  out += '/';
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

std::string childPath(std::string_view base, std::size_t index) {
  return std::string(base) + '/' + std::to_string(index);
}

std::string describe(const Json& v) {
  switch (v.type()) {
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::string:
      return "\"" + printable(v.get_ref<const std::string&>()) + "\"";
    case Json::value_t::null:
      return "null";
    case Json::value_t::discarded:
      return "nothing";
    default:
      return printable(v.dump(), 60);
  }
}

std::optional<std::int64_t> readInt(const Json& v, const std::string& path, Diagnostics& diag, bool nonNegative,
                                    FloatPolicy floats) {
  const std::string expected = nonNegative ? "expected a non-negative integer" : "expected an integer";
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  std::int64_t value = 0;
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(kMax)) {
      diag.errorAtPath(path, "number " + v.dump() + " does not fit in 64 bits");
      return std::nullopt;
    }
    value = static_cast<std::int64_t>(u);
  } else if (v.is_number_integer()) {
    value = v.get<std::int64_t>();
  } else if (v.is_number_float()) {
    const double d = v.get<double>();
    // 2^63 is exactly representable; every double in [-2^63, 2^63) converts to int64 without overflow.
    constexpr double kLimit = 9223372036854775808.0;
    if (!std::isfinite(d) || d >= kLimit || d < -kLimit) {
      diag.errorAtPath(path, "number " + v.dump() + " does not fit in 64 bits");
      return std::nullopt;
    }
    if (floats == FloatPolicy::Reject || std::trunc(d) != d) {
      diag.errorAtPath(path, expected + ", got " + v.dump());
      return std::nullopt;
    }
    value = static_cast<std::int64_t>(d);
  } else {
    diag.errorAtPath(path, expected + ", got " + describe(v));
    return std::nullopt;
  }
  if (nonNegative && value < 0) {
    diag.errorAtPath(path, expected + ", got " + std::to_string(value));
    return std::nullopt;
  }
  return value;
}

const Json* member(const Json& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

}  // namespace remat::io::detail
