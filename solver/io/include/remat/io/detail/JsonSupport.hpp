#pragma once

// nlohmann_json helpers shared by Remat's JSON readers: the graph formats here and plan JSON in
// solver/solvers, so that every JSON file is parsed with the same limits and its errors carry the same
// file, line and JSON path. Not an API for users; the other public io headers do not include nlohmann.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "remat/io/detail/ReaderSupport.hpp"

namespace remat::io::detail {

using Json = nlohmann::json;

/// Deepest nesting of arrays and objects a reader accepts. Parsing is iterative in nlohmann 3.11, but
/// dump() and copies recurse, so a hostile file must not nest without bound.
inline constexpr std::size_t kMaxJsonDepth = 256;

/// The 1-based line at which `text` first nests arrays/objects deeper than `limit`, or 0 if it never
/// does. Strings are skipped, so brackets inside them do not count.
[[nodiscard]] std::size_t lineWhereNestingExceeds(std::string_view text, std::size_t limit);

/// Parses JSON text. On failure reports one error (with the line of a syntax error, or the JSON path of
/// a key that appears twice in one object, which JSON parsers resolve differently) and returns
/// nullopt. Never throws.
[[nodiscard]] std::optional<Json> parseJson(std::string_view text, Diagnostics& diag);
/// parseJson for a value embedded in another format (a PFN attribute line): the value, or why not in
/// `why` ("invalid JSON: ...", "duplicate key \"k\" at /a/b: ...", "nested too deeply").
[[nodiscard]] std::optional<Json> parseEmbeddedJson(std::string_view text, std::string& why);

/// JSON pointer of a member or an element below `base` ("~" and "/" in keys escaped as RFC 6901 says).
[[nodiscard]] std::string childPath(std::string_view base, std::string_view key);
[[nodiscard]] std::string childPath(std::string_view base, std::size_t index);

/// A short description of a value for messages: `-5`, `"abc"`, `true`, `an object`, `an array`.
[[nodiscard]] std::string describe(const Json& v);

/// How strictly readInt treats floating-point numbers.
enum class FloatPolicy { Reject, AcceptWhole };

/// Reads an integer that must fit in int64 (and be >= 0 when `nonNegative`). Reports an error at
/// `path` and returns nullopt otherwise: strings, floats (unless whole and allowed), and numbers
/// beyond 64 bits ("does not fit in 64 bits").
[[nodiscard]] std::optional<std::int64_t> readInt(const Json& v, const std::string& path, Diagnostics& diag,
                                                  bool nonNegative, FloatPolicy floats = FloatPolicy::Reject);

/// The member `key` of object `obj`, or nullptr.
[[nodiscard]] const Json* member(const Json& obj, std::string_view key);

}  // namespace remat::io::detail
