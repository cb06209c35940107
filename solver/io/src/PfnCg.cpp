#include "remat/io/PfnCg.hpp"

#include <charconv>
#include <exception>
#include <optional>
#include <unordered_map>
#include <vector>

#include "JsonSupport.hpp"
#include "remat/graph/CostModel.hpp"
#include "remat/graph/GraphBuilder.hpp"
#include "remat/io/detail/ReaderSupport.hpp"

// Format (see docs/formats.md and the corpus README): a line "N M"; N lines "id bytes name"; then M
// function blocks, the M/2 forward blocks first and then their backward blocks in the same order
// (backward block id = forward id + M/2). A block is: "forward"|"backward"; "k p"; k lines
// "var_id type"; p lines "var_id"; the Chainer class name; a line of JSON attributes.
//
// Counts in the file are never trusted for allocation: every loop consumes one line per step and
// stops at the end of the text, so "N M" = "10^18 10^18" costs one error message, not memory.

namespace remat::io {
namespace {

using detail::Diagnostics;

class LineCursor {
 public:
  explicit LineCursor(std::string_view text) : m_text(text) {}

  /// The next line without its line break (and without a trailing '\r'); false at the end of text.
  bool next(std::string_view& line) {
    if (m_pos >= m_text.size()) return false;
    const std::size_t end = m_text.find('\n', m_pos);
    const std::size_t stop = end == std::string_view::npos ? m_text.size() : end;
    line = m_text.substr(m_pos, stop - m_pos);
    if (line.ends_with('\r')) line.remove_suffix(1);
    m_pos = end == std::string_view::npos ? m_text.size() : end + 1;
    ++m_line;
    return true;
  }
  /// 1-based number of the line last returned by next(); after the end, the last line's number.
  [[nodiscard]] std::size_t line() const { return m_line; }

 private:
  std::string_view m_text;
  std::size_t m_pos = 0;
  std::size_t m_line = 0;
};

bool isBlank(char c) { return c == ' ' || c == '\t'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && isBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && isBlank(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> tokens(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && isBlank(line[i])) ++i;
    const std::size_t start = i;
    while (i < line.size() && !isBlank(line[i])) ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

// The text after the first `count` tokens, trimmed (a name may in principle contain blanks).
std::string_view restAfterTokens(std::string_view line, std::size_t count) {
  std::size_t i = 0;
  for (std::size_t t = 0; t < count; ++t) {
    while (i < line.size() && isBlank(line[i])) ++i;
    while (i < line.size() && !isBlank(line[i])) ++i;
  }
  return trim(line.substr(i));
}

enum class VarKind { Intermediate, Input, Param };

struct Variable {
  std::int64_t id = 0;
  std::int64_t bytes = 0;
  std::string name;  ///< node name: v<id>, input<k> or the parameter path
  VarKind kind = VarKind::Intermediate;
  std::size_t line = 0;
  std::optional<std::size_t> producer;  ///< forward block that outputs it
};

struct Block {
  std::size_t line = 0;                                           ///< the "forward"/"backward" line
  std::vector<std::pair<std::int64_t, std::string_view>> inputs;  ///< (var id, type)
  std::vector<std::size_t> inputLines;
  std::vector<std::int64_t> outputs;
  std::vector<std::size_t> outputLines;
  std::string_view className;
  std::size_t classLine = 0;
  std::string attrs;  ///< compact JSON (forward blocks only)
};

bool isAllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

class PfnReader {
 public:
  PfnReader(std::string_view text, Diagnostics& diag) : m_cursor(text), m_diag(diag) {}

  Result<graph::ComputeGraph> run();

 private:
  // Reads the next line or reports "unexpected end of file, expected <what>".
  bool nextLine(std::string_view& line, const std::string& what) {
    if (m_cursor.next(line)) return true;
    m_diag.errorAtLine(m_cursor.line() + 1, "unexpected end of file, expected " + what);
    return false;
  }
  std::optional<std::int64_t> parseInt(std::string_view token, const std::string& what, bool nonNegative);
  bool readHeader();
  bool readVariables();
  bool readBlock(std::size_t b, Block& block);
  std::optional<std::size_t> variableIndex(std::int64_t id, std::size_t line);
  void checkForward(std::size_t f);
  void applyBackward(std::size_t f, const Block& backward, std::vector<graph::Saves>& saves);

  LineCursor m_cursor;
  Diagnostics& m_diag;
  std::int64_t m_varCount = 0;
  std::int64_t m_blockCount = 0;
  std::vector<Variable> m_vars;
  std::unordered_map<std::int64_t, std::size_t> m_varById;
  std::vector<Block> m_forward;
};

std::optional<std::int64_t> PfnReader::parseInt(std::string_view token, const std::string& what, bool nonNegative) {
  std::int64_t value = 0;
  const char* first = token.data();
  const char* last = token.data() + token.size();
  auto [end, ec] = std::from_chars(first, last, value);
  if (ec == std::errc::result_out_of_range && end == last) {
    m_diag.errorAtLine(m_cursor.line(), what + " " + detail::printable(token) + " does not fit in 64 bits");
    return std::nullopt;
  }
  if (ec != std::errc{} || end != last) {
    m_diag.errorAtLine(m_cursor.line(),
                       "expected an integer for " + what + ", got \"" + detail::printable(token) + "\"");
    return std::nullopt;
  }
  if (nonNegative && value < 0) {
    m_diag.errorAtLine(m_cursor.line(), "negative " + what + " " + std::to_string(value));
    return std::nullopt;
  }
  return value;
}

bool PfnReader::readHeader() {
  std::string_view line;
  if (!m_cursor.next(line)) {
    m_diag.errorAtLine(0, "file is empty, expected a first line 'N M' (variables and function blocks)");
    return false;
  }
  auto t = tokens(line);
  if (t.size() != 2) {
    m_diag.errorAtLine(1, "expected a first line 'N M' with two integers (variables and function blocks), got \"" +
                              detail::printable(line) + "\"");
    return false;
  }
  auto n = parseInt(t[0], "variable count N", true);
  auto m = parseInt(t[1], "block count M", true);
  if (!n || !m) return false;
  if (*m % 2 != 0) {
    m_diag.errorAtLine(1, "block count M = " + std::to_string(*m) +
                              " is odd; the file must hold M/2 forward blocks followed by their M/2 backward blocks");
    return false;
  }
  m_varCount = *n;
  m_blockCount = *m;
  return true;
}

bool PfnReader::readVariables() {
  for (std::int64_t i = 0; i < m_varCount && !m_diag.full(); ++i) {
    std::string_view line;
    if (!nextLine(line, "variable line " + std::to_string(i + 1) + " of " + std::to_string(m_varCount) +
                            " ('id bytes name')"))
      return false;
    auto t = tokens(line);
    if (t.size() < 3) {
      m_diag.errorAtLine(m_cursor.line(),
                         "expected a variable line 'id bytes name', got \"" + detail::printable(line) + "\"");
      continue;
    }
    auto id = parseInt(t[0], "variable id", true);
    auto bytes = parseInt(t[1], "variable size", true);
    std::string_view name = restAfterTokens(line, 2);
    if (!id || !bytes) continue;
    // The paper's files number their variables 0 to N-1; an id beyond that means the counts and the
    // list disagree, and the file was cut or edited wrongly.
    if (*id >= m_varCount) {
      m_diag.errorAtLine(m_cursor.line(),
                         "variable id " + std::to_string(*id) + " is out of range: the first line declares N = " +
                             std::to_string(m_varCount) + " variables, ids 0 to " + std::to_string(m_varCount - 1));
      continue;
    }
    if (!detail::isValidUtf8(name)) {
      m_diag.errorAtLine(m_cursor.line(), "variable name is not valid UTF-8: \"" + detail::printable(name) + "\"");
      continue;
    }
    Variable v;
    v.id = *id;
    v.bytes = *bytes;
    v.line = m_cursor.line();
    if (name == "_") {
      v.kind = VarKind::Intermediate;
      v.name = "v" + std::to_string(*id);
    } else if (isAllDigits(name)) {
      v.kind = VarKind::Input;
      v.name = "input" + std::string(name);
    } else {
      v.kind = VarKind::Param;
      v.name = std::string(name);
    }
    if (auto [it, fresh] = m_varById.emplace(*id, m_vars.size()); !fresh) {
      m_diag.errorAtLine(v.line, "variable id " + std::to_string(*id) + " is defined twice (first at line " +
                                     std::to_string(m_vars[it->second].line) + ")");
      continue;
    }
    m_vars.push_back(std::move(v));
  }
  return true;
}

bool PfnReader::readBlock(std::size_t b, Block& block) {
  const bool forward = static_cast<std::int64_t>(b) < m_blockCount / 2;
  const std::string where = " (block " + std::to_string(b) + ")";
  const std::string kindWord = forward ? "forward" : "backward";
  std::string_view line;
  if (!nextLine(line, "'" + kindWord + "'" + where)) return false;
  block.line = m_cursor.line();
  if (trim(line) != kindWord) {
    m_diag.errorAtLine(block.line, "expected '" + kindWord + "'" + where + ", got \"" + detail::printable(line) + "\"");
    return false;
  }
  if (!nextLine(line, "'k p' (inputs and outputs)" + where)) return false;
  auto t = tokens(line);
  if (t.size() != 2) {
    m_diag.errorAtLine(m_cursor.line(), "expected 'k p' (numbers of inputs and outputs)" + where + ", got \"" +
                                            detail::printable(line) + "\"");
    return false;
  }
  auto k = parseInt(t[0], "input count k", true);
  auto p = parseInt(t[1], "output count p", true);
  if (!k || !p) return false;
  for (std::int64_t i = 0; i < *k; ++i) {
    if (!nextLine(line, "input line " + std::to_string(i + 1) + " of " + std::to_string(*k) + where)) return false;
    t = tokens(line);
    if (t.size() != 2) {
      m_diag.errorAtLine(m_cursor.line(),
                         "expected 'var_id type'" + where + ", got \"" + detail::printable(line) + "\"");
      return false;
    }
    auto id = parseInt(t[0], "variable id", true);
    if (!id) return false;
    block.inputs.emplace_back(*id, t[1]);
    block.inputLines.push_back(m_cursor.line());
  }
  for (std::int64_t i = 0; i < *p; ++i) {
    if (!nextLine(line, "output line " + std::to_string(i + 1) + " of " + std::to_string(*p) + where)) return false;
    t = tokens(line);
    if (t.size() != 1) {
      m_diag.errorAtLine(m_cursor.line(),
                         "expected one variable id" + where + ", got \"" + detail::printable(line) + "\"");
      return false;
    }
    auto id = parseInt(t[0], "variable id", true);
    if (!id) return false;
    block.outputs.push_back(*id);
    block.outputLines.push_back(m_cursor.line());
  }
  if (!nextLine(line, "the function class name" + where)) return false;
  block.className = trim(line);
  block.classLine = m_cursor.line();
  if (block.className.empty() || !detail::isValidUtf8(block.className)) {
    m_diag.errorAtLine(block.classLine,
                       "expected a function class name" + where + ", got \"" + detail::printable(line) + "\"");
    return false;
  }
  if (!nextLine(line, "the JSON attribute line" + where)) return false;
  if (forward) {
    // As every JSON Remat reads: bounded nesting (nlohmann's dump() recurses), each key once per object.
    std::string why;
    const std::optional<detail::Json> attrs = detail::parseEmbeddedJson(line, why);
    if (!attrs) {
      m_diag.errorAtLine(m_cursor.line(), "the attribute line" + where + " is not valid JSON (" + why + "): \"" +
                                              detail::printable(line) + "\"");
    } else if (!attrs->is_object()) {
      m_diag.errorAtLine(m_cursor.line(),
                         "the attribute line" + where + " must be a JSON object, got " + detail::describe(*attrs));
    } else {
      block.attrs = attrs->dump();
    }
  }
  return true;
}

std::optional<std::size_t> PfnReader::variableIndex(std::int64_t id, std::size_t line) {
  auto it = m_varById.find(id);
  if (it == m_varById.end()) {
    m_diag.errorAtLine(line, "unknown variable id " + std::to_string(id));
    return std::nullopt;
  }
  return it->second;
}

void PfnReader::checkForward(std::size_t f) {
  const Block& block = m_forward[f];
  for (std::size_t i = 0; i < block.inputs.size(); ++i) {
    const auto& [id, type] = block.inputs[i];
    if (type != "_")
      m_diag.errorAtLine(block.inputLines[i], "expected '_' after the variable id in a forward block, got '" +
                                                  detail::printable(type) + "'");
    (void)variableIndex(id, block.inputLines[i]);
  }
  for (std::size_t o = 0; o < block.outputs.size(); ++o) {
    auto index = variableIndex(block.outputs[o], block.outputLines[o]);
    if (!index) continue;
    Variable& v = m_vars[*index];
    if (v.kind != VarKind::Intermediate) {
      m_diag.errorAtLine(block.outputLines[o], "variable " + std::to_string(v.id) + " (line " + std::to_string(v.line) +
                                                   ") is a " +
                                                   (v.kind == VarKind::Input ? "model input" : "parameter") +
                                                   " and cannot be the output of a function");
    } else if (v.producer) {
      m_diag.errorAtLine(block.outputLines[o], "variable " + std::to_string(v.id) +
                                                   " is produced twice (first by the forward block at line " +
                                                   std::to_string(m_forward[*v.producer].line) + ")");
    } else {
      v.producer = f;
    }
  }
}

void PfnReader::applyBackward(std::size_t f, const Block& backward, std::vector<graph::Saves>& saves) {
  const Block& forward = m_forward[f];
  if (backward.className != forward.className)
    m_diag.warning(m_diag.at(backward.classLine), "backward block names class '" +
                                                      detail::printable(backward.className) +
                                                      "' but its forward block (line " + std::to_string(forward.line) +
                                                      ") names '" + detail::printable(forward.className) + "'");
  for (std::size_t i = 0; i < backward.inputs.size(); ++i) {
    const auto& [id, type] = backward.inputs[i];
    const std::size_t line = backward.inputLines[i];
    if (type == "gradient") continue;
    if (type == "input") {
      bool found = false;
      for (std::size_t pos = 0; pos < forward.inputs.size(); ++pos)
        if (forward.inputs[pos].first == id) {
          found = true;
          // Every output of the forward block shares its inputs, and so what its backward retains.
          for (graph::Saves& s : saves) s.inputs.push_back(static_cast<std::uint32_t>(pos));
        }
      if (!found)
        m_diag.errorAtLine(line, "backward block retains variable " + std::to_string(id) +
                                     " as an input, but it is not an input of its forward block (line " +
                                     std::to_string(forward.line) + ")");
    } else if (type == "output") {
      bool found = false;
      for (std::size_t o = 0; o < forward.outputs.size(); ++o)
        if (forward.outputs[o] == id) {
          found = true;
          saves[o].output = true;
        }
      if (!found)
        m_diag.errorAtLine(line, "backward block retains variable " + std::to_string(id) +
                                     " as an output, but its forward block (line " + std::to_string(forward.line) +
                                     ") does not produce it");
    } else {
      m_diag.errorAtLine(
          line, "unknown retained-value type '" + detail::printable(type) + "' (expected gradient, input or output)");
    }
  }
}

Result<graph::ComputeGraph> PfnReader::run() {
  if (!readHeader() || !readVariables() || m_diag.hasErrors()) return m_diag.failure();

  const auto half = static_cast<std::size_t>(m_blockCount / 2);
  std::vector<std::vector<graph::Saves>> saves;
  for (std::size_t b = 0; static_cast<std::int64_t>(b) < m_blockCount; ++b) {
    Block block;
    if (!readBlock(b, block)) return m_diag.failure();
    if (b < half) {
      m_forward.push_back(std::move(block));
      checkForward(b);
      saves.emplace_back(m_forward.back().outputs.size());
    } else {
      applyBackward(b - half, block, saves[b - half]);
    }
    if (m_diag.full()) return m_diag.failure();
  }
  std::string_view line;
  std::size_t trailing = 0;
  std::size_t firstTrailing = 0;
  while (m_cursor.next(line))
    if (!trim(line).empty()) {
      if (trailing++ == 0) firstTrailing = m_cursor.line();
    }
  if (trailing > 0)
    m_diag.warning(m_diag.at(firstTrailing),
                   std::to_string(trailing) + " non-empty line(s) after the last block ignored");

  for (const Variable& v : m_vars)
    if (v.kind == VarKind::Intermediate && !v.producer)
      m_diag.errorAtLine(v.line, "variable " + std::to_string(v.id) + " ('_') is not produced by any forward block");
  if (m_diag.hasErrors()) return m_diag.failure();

  graph::GraphBuilder builder;
  builder.setName(detail::fileStem(m_diag.file()));
  builder.setTimeUnit("ticks");
  builder.setCostModel("paper");
  builder.setSource(m_diag.at(1));
  for (const Variable& v : m_vars) {
    if (v.kind == VarKind::Intermediate) continue;
    graph::NodeSpec spec;
    spec.name = v.name;
    spec.kind = v.kind == VarKind::Input ? graph::NodeKind::Input : graph::NodeKind::Param;
    spec.bytes = v.bytes;
    spec.where = m_diag.at(v.line);
    builder.add(std::move(spec));
  }
  for (std::size_t f = 0; f < m_forward.size(); ++f) {
    const Block& block = m_forward[f];
    std::vector<std::string> inputs;
    inputs.reserve(block.inputs.size());
    for (const auto& [id, type] : block.inputs) inputs.push_back(m_vars[m_varById.at(id)].name);
    const std::int64_t time = graph::paperForwardTime(block.className).value;
    for (std::size_t o = 0; o < block.outputs.size(); ++o) {
      const Variable& out = m_vars[m_varById.at(block.outputs[o])];
      graph::NodeSpec spec;
      spec.name = out.name;
      spec.kind = graph::NodeKind::Op;
      spec.op = std::string(block.className);
      spec.inputs = inputs;
      spec.bytes = out.bytes;
      spec.fwdTime = time;
      spec.bwdTime = time;
      spec.saves = saves[f][o];
      spec.attrs = block.attrs;
      spec.where = m_diag.at(block.line);
      builder.add(std::move(spec));
    }
  }
  return m_diag.build(builder);
}

}  // namespace

Result<graph::ComputeGraph> readPfnCg(std::string_view text, const std::string& fileName) {
  detail::Diagnostics diag(fileName);
  try {
    PfnReader reader(detail::stripBom(text), diag);
    return reader.run();
  } catch (const std::exception& e) {
    // Last resort (allocation failure and the like): no exception leaves a reader.
    return Result<graph::ComputeGraph>::failure(
        Diagnostic{SourceLocation{fileName, 0, {}}, std::string("internal error while reading: ") + e.what()});
  }
}

}  // namespace remat::io
