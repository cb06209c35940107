#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace remat {

/// Where a problem in untrusted input sits: a file and a line, or a JSON path, or both.
struct SourceLocation {
  std::string file;      ///< file name as the user gave it; empty for in-memory input
  std::size_t line = 0;  ///< 1-based line; 0 when unknown
  std::string path;      ///< JSON pointer such as "/nodes/3/bytes"; empty when not JSON

  [[nodiscard]] std::string toString() const;
};

/// One readable message about untrusted input, with its location.
struct Diagnostic {
  SourceLocation where;
  std::string message;

  /// "file:line: path: message", leaving out the parts that are unknown.
  [[nodiscard]] std::string toString() const;
};

/// The outcome of reading or building from untrusted input: a value, or one or more errors.
/// Warnings travel in both cases (for example "unknown operation, conservative defaults used").
template <class T>
class Result {
 public:
  Result(T value, std::vector<Diagnostic> warnings = {})  // NOLINT(google-explicit-constructor)
      : m_value(std::move(value)), m_warnings(std::move(warnings)) {}
  // Both vectors are moved from; clang-tidy 14 takes them for const-reference parameters here.
  static Result failure(std::vector<Diagnostic> errors,           // NOLINT(performance-unnecessary-value-param)
                        std::vector<Diagnostic> warnings = {}) {  // NOLINT(performance-unnecessary-value-param)
    Result r;
    r.m_errors = std::move(errors);
    r.m_warnings = std::move(warnings);
    return r;
  }
  static Result failure(Diagnostic error) { return failure(std::vector<Diagnostic>{std::move(error)}); }

  [[nodiscard]] bool ok() const { return m_value.has_value(); }
  explicit operator bool() const { return ok(); }
  [[nodiscard]] T& value() & { return *m_value; }
  [[nodiscard]] const T& value() const& { return *m_value; }
  [[nodiscard]] T&& value() && { return std::move(*m_value); }
  [[nodiscard]] const std::vector<Diagnostic>& errors() const { return m_errors; }
  [[nodiscard]] const std::vector<Diagnostic>& warnings() const { return m_warnings; }
  std::vector<Diagnostic>& warnings() { return m_warnings; }

  /// All errors, one per line.
  [[nodiscard]] std::string errorText() const {
    std::string out;
    for (const auto& e : m_errors) {
      if (!out.empty()) out += '\n';
      out += e.toString();
    }
    return out;
  }

 private:
  Result() = default;
  std::optional<T> m_value;
  std::vector<Diagnostic> m_errors;
  std::vector<Diagnostic> m_warnings;
};

}  // namespace remat
