#include "remat/graph/Diagnostic.hpp"

namespace remat {

std::string SourceLocation::toString() const {
  std::string out = file;
  if (line > 0) out += (out.empty() ? "line " : ":") + std::to_string(line);
  if (!path.empty()) out += (out.empty() ? "" : ": ") + path;
  return out;
}

std::string Diagnostic::toString() const {
  std::string where_ = where.toString();
  return where_.empty() ? message : where_ + ": " + message;
}

}  // namespace remat
