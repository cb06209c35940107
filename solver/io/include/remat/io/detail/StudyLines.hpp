#pragma once

// The line files of `remat study` shards (one JSON object per task, docs/cli.md): read, checked and
// joined as every reader of Remat's reads, for `remat study --merge` and its fuzzer. Not an API for users
// (it hands out nlohmann values).

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace remat::io::detail {

/// A line of a shard file, where it came from.
struct StudyLine {
  std::string text;      ///< the line as written (the merge writes it again, byte for byte)
  nlohmann::json value;  ///< its fields, each of the type studyLineProblem checks
  std::string where;     ///< "file:line"
};

/// Why shard lines cannot be merged; the message starts with the file and line where there is one.
class StudyLineError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Why a study line's fields are not what `remat study` writes, or nothing: every field the merge reads,
/// of its type, so that a hand-edited or damaged line is refused at its place instead of failing later.
[[nodiscard]] std::optional<std::string> studyLineProblem(const nlohmann::json& v);

/// Appends the lines of one shard file's text (`file` names it in errors) to `out`, skipping blank
/// lines. Each must be one JSON object (duplicate keys and nesting past the readers' depth refused)
/// whose fields pass studyLineProblem; throws StudyLineError at "file:line" otherwise.
void appendStudyLines(std::string_view text, const std::string& file, std::vector<StudyLine>& out);

/// The lines of one study in task order, every task exactly once: throws StudyLineError for no line, a
/// line of another study (its fingerprint or task count), a task twice (naming both places) or tasks in
/// no line (the first ten). Nothing is allocated by the task count before every task is known present.
[[nodiscard]] std::vector<StudyLine> joinStudyLines(std::vector<StudyLine> lines);

}  // namespace remat::io::detail
