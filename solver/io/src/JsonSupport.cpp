#include "JsonSupport.hpp"

#include <charconv>
#include <cmath>
#include <exception>
#include <limits>
#include <unordered_set>
#include <vector>

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
      case '"': inString = true; break;
      case '[':
      case '{':
        if (++depth > limit) return line;
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default: break;
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

// nlohmann keeps the last of duplicate keys, so a file could say one thing to a reader that keeps the
// first and another to Remat. This SAX handler builds the document as nlohmann's own parser does and
// stops at the first key an object already has, knowing where it is: one frame per open object or
// array. (nlohmann's parser callbacks would do too, but their parser rescans a whole array whenever one
// of its objects ends: quadratic in the nodes of a graph.)
class DuplicateKeyRefusingParser {
 public:
  using number_integer_t = Json::number_integer_t;
  using number_unsigned_t = Json::number_unsigned_t;
  using number_float_t = Json::number_float_t;
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  explicit DuplicateKeyRefusingParser(Json& root) : m_dom(root, true) {}

  bool null() { return element() && m_dom.null(); }
  bool boolean(bool v) { return element() && m_dom.boolean(v); }
  bool number_integer(number_integer_t v) { return element() && m_dom.number_integer(v); }
  bool number_unsigned(number_unsigned_t v) { return element() && m_dom.number_unsigned(v); }
  bool number_float(number_float_t v, const string_t& s) { return element() && m_dom.number_float(v, s); }
  bool string(string_t& v) { return element() && m_dom.string(v); }
  bool binary(binary_t& v) { return element() && m_dom.binary(v); }
  bool start_object(std::size_t n) { return element() && open(true) && m_dom.start_object(n); }
  bool start_array(std::size_t n) { return element() && open(false) && m_dom.start_array(n); }
  bool end_object() {
    --m_depth;
    return m_dom.end_object();
  }
  bool end_array() {
    --m_depth;
    return m_dom.end_array();
  }
  bool key(string_t& k) {
    Frame& top = m_frames[m_depth - 1];
    if (top.seen.size() < kLinearKeys) {
      for (const std::string& earlier : top.seen)
        if (earlier == k) return duplicate(k);
      top.seen.push_back(k);
      if (top.seen.size() == kLinearKeys) top.many.insert(top.seen.begin(), top.seen.end());
    } else if (!top.many.insert(k).second) {
      return duplicate(k);
    }
    top.key = k;
    return m_dom.key(k);
  }
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& e) {
    m_errorPath = valuePath();
    return m_dom.parse_error(position, token, e);
  }

  /// The path of the first duplicate key, when parsing stopped at one.
  [[nodiscard]] const std::optional<std::string>& duplicatePath() const { return m_duplicatePath; }
  [[nodiscard]] const std::string& duplicateKey() const { return m_duplicateKey; }
  /// Where the value being read lay when the parser failed (empty at the top level): nlohmann's
  /// out_of_range error for a number such as 1e400 carries no position of its own.
  [[nodiscard]] const std::string& errorPath() const { return m_errorPath; }

 private:
  // Objects with more keys than this find repeats in a hash set, so that no object costs quadratic time.
  static constexpr std::size_t kLinearKeys = 16;

  struct Frame {
    bool object = false;
    std::size_t elements = 0;  ///< arrays: elements begun, so the one being read is elements - 1
    std::string key;           ///< objects: the key of the member being read
    std::vector<std::string> seen;
    std::unordered_set<std::string> many;
  };

  // A value begins: in an array, it is the next element.
  bool element() {
    if (m_depth > 0 && !m_frames[m_depth - 1].object) ++m_frames[m_depth - 1].elements;
    return true;
  }
  // Frames are reused, not freed, so that a graph's thousands of node objects allocate nothing here.
  bool open(bool object) {
    if (m_frames.size() == m_depth) m_frames.emplace_back();
    Frame& f = m_frames[m_depth++];
    f.object = object;
    f.elements = 0;
    f.seen.clear();
    f.many.clear();
    return true;
  }
  // The path of the open objects and arrays up to `depth` frames, each at the member being read.
  std::string pathTo(std::size_t depth) const {
    std::string path;
    for (std::size_t i = 0; i < depth; ++i)
      path = m_frames[i].object ? childPath(path, m_frames[i].key) : childPath(path, m_frames[i].elements - 1);
    return path;
  }
  // The value the lexer is on when it fails: its key in an object, the next index in an array (a value
  // that fails to lex was never counted by element()).
  std::string valuePath() const {
    if (m_depth == 0) return {};
    const Frame& top = m_frames[m_depth - 1];
    return top.object ? childPath(pathTo(m_depth - 1), top.key) : childPath(pathTo(m_depth - 1), top.elements);
  }
  bool duplicate(const std::string& k) {
    m_duplicatePath = childPath(pathTo(m_depth - 1), k);
    m_duplicateKey = k;
    return false;
  }

  nlohmann::detail::json_sax_dom_parser<Json> m_dom;
  std::vector<Frame> m_frames;
  std::size_t m_depth = 0;
  std::optional<std::string> m_duplicatePath;
  std::string m_duplicateKey;
  std::string m_errorPath;
};

}  // namespace

std::optional<Json> parseJson(std::string_view text, Diagnostics& diag) {
  if (std::size_t line = lineWhereNestingExceeds(text, kMaxJsonDepth); line > 0) {
    diag.errorAtLine(line, "JSON nested too deeply (more than " + std::to_string(kMaxJsonDepth) + " levels)");
    return std::nullopt;
  }
  Json doc;
  DuplicateKeyRefusingParser parser(doc);
  try {
    if (Json::sax_parse(text.begin(), text.end(), &parser)) return doc;
    if (parser.duplicatePath())
      diag.errorAtPath(*parser.duplicatePath(), "duplicate key \"" + printable(parser.duplicateKey()) +
                                                    "\": a key may appear only once in an object");
    else
      diag.errorAtLine(0, "invalid JSON");
    return std::nullopt;
  } catch (const nlohmann::json::out_of_range& e) {
    // A number like 1e400: nlohmann's message has no position, the parser knows the value's path.
    diag.errorAtPath(parser.errorPath(), describeParseError(e.what()).second);
  } catch (const std::exception& e) {
    // parse_error carries the line.
    auto [line, message] = describeParseError(e.what());
    diag.errorAtLine(line, std::move(message));
  }
  return std::nullopt;
}

std::optional<Json> parseEmbeddedJson(std::string_view text, std::string& why) {
  if (lineWhereNestingExceeds(text, kMaxJsonDepth) > 0) {
    why = "JSON nested too deeply (more than " + std::to_string(kMaxJsonDepth) + " levels)";
    return std::nullopt;
  }
  Json doc;
  DuplicateKeyRefusingParser parser(doc);
  try {
    if (Json::sax_parse(text.begin(), text.end(), &parser)) return doc;
    why = parser.duplicatePath() ? "duplicate key \"" + printable(parser.duplicateKey()) + "\" at " +
                                       *parser.duplicatePath() + ": a key may appear only once in an object"
                                 : std::string("invalid JSON");
  } catch (const std::exception& e) {
    why = describeParseError(e.what()).second;
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
    case Json::value_t::object: return "an object";
    case Json::value_t::array: return "an array";
    case Json::value_t::string: return "\"" + printable(v.get_ref<const std::string&>()) + "\"";
    case Json::value_t::null: return "null";
    case Json::value_t::discarded: return "nothing";
    default: return printable(v.dump(), 60);
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
