#pragma once

// Shared by Remat's readers (the graph formats here, plan JSON in solver/solvers): a capped collector of
// diagnostics for one file, a size-capped file reader, and small text helpers. Not an API for users.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/Diagnostic.hpp"
#include "remat/graph/GraphBuilder.hpp"

namespace remat::io::detail {

/// Errors and warnings found while reading one file. Keeps at most kMaxErrors errors (a hostile file
/// could otherwise produce one per byte) and says how many were left out.
class Diagnostics {
 public:
  static constexpr std::size_t kMaxErrors = 50;
  static constexpr std::size_t kMaxWarnings = 50;

  explicit Diagnostics(std::string file) : m_file(std::move(file)) {}

  [[nodiscard]] const std::string& file() const { return m_file; }
  /// A location in this file: a 1-based line (0 when unknown) and/or a JSON pointer.
  [[nodiscard]] SourceLocation at(std::size_t line, std::string path = {}) const {
    return SourceLocation{m_file, line, std::move(path)};
  }

  void error(SourceLocation where, std::string message);
  void errorAtLine(std::size_t line, std::string message) { error(at(line), std::move(message)); }
  void errorAtPath(std::string path, std::string message) { error(at(0, std::move(path)), std::move(message)); }
  void warning(SourceLocation where, std::string message);
  void warningAtPath(std::string path, std::string message) { warning(at(0, std::move(path)), std::move(message)); }

  [[nodiscard]] bool hasErrors() const { return !m_errors.empty(); }
  /// True once the cap is reached; readers may stop early.
  [[nodiscard]] bool full() const { return m_errors.size() >= kMaxErrors; }

  /// The collected errors as a failed result (at least one error is guaranteed).
  template <class T = graph::ComputeGraph>
  [[nodiscard]] Result<T> failure() {
    finish();
    return Result<T>::failure(std::move(m_errors), std::move(m_warnings));
  }
  /// The collected warnings, to travel with a successful result.
  [[nodiscard]] std::vector<Diagnostic> takeWarnings() {
    appendDropped();
    return std::move(m_warnings);
  }
  /// Builds the graph and merges the builder's diagnostics with the reader's.
  [[nodiscard]] Result<graph::ComputeGraph> build(graph::GraphBuilder& builder);

 private:
  /// Adds a generic error when there is none, and the counts of what the caps left out.
  void finish();
  void appendDropped();

  std::string m_file;
  std::vector<Diagnostic> m_errors;
  std::vector<Diagnostic> m_warnings;
  std::size_t m_droppedErrors = 0;
  std::size_t m_droppedWarnings = 0;
};

/// Reads a whole regular file of at most `maxBytes` bytes, or says why not in `why` ("no such file", "file
/// is too large ..."; `what` names the kind of file, as in "graph files over 1 GiB are refused"). The file
/// is measured before anything is read, and read in chunks stopped at the cap (it may grow meanwhile).
/// FIFOs, devices and sockets are refused before they are opened: a FIFO without a writer would block
/// the reader for ever, and a device may never end. With `jsonObject`, a file whose first byte after
/// white space is not '{' is refused as soon as that byte is read, each leading byte looked at once.
[[nodiscard]] std::optional<std::string> readFileCapped(const std::string& path, std::uintmax_t maxBytes,
                                                        std::string_view what, std::string& why,
                                                        bool jsonObject = false);

/// The file name without folders and without its last extension ("a/b/cg_vgg19.txt" -> "cg_vgg19").
[[nodiscard]] std::string fileStem(const std::string& fileName);

/// True when `text` is well-formed UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF).
[[nodiscard]] bool isValidUtf8(std::string_view text);

/// `text` made safe to quote in a message: control characters and bytes that are not valid UTF-8
/// become \xHH, and the result is cut to about maxChars characters with "...".
[[nodiscard]] std::string printable(std::string_view text, std::size_t maxChars = 60);

/// `text` without a leading UTF-8 byte-order mark.
[[nodiscard]] std::string_view stripBom(std::string_view text);

}  // namespace remat::io::detail
