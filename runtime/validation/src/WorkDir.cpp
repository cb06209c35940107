#include "WorkDir.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "remat/runtime/Profiler.hpp"
#include "remat/runtime/ValidationError.hpp"

namespace remat::runtime::detail {

namespace fs = std::filesystem;

WorkDir::WorkDir(const std::string& prefix) {
  std::error_code ec;
  fs::path base = fs::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string pattern = (base / (prefix + "-XXXXXX")).string();
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (::mkdtemp(buffer.data()) == nullptr)
    throw ValidationError(ValidationFailure::Input,
                          "cannot create a temporary folder " + pattern + ": " + std::strerror(errno));
  m_path = buffer.data();
  m_registered.emplace(m_path);
}

WorkDir::~WorkDir() {
  std::error_code ec;
  fs::remove_all(m_path, ec);
}

void copyAtomically(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in || !text)
    throw ValidationError(ValidationFailure::Input, "cannot read '" + from + "' to copy it to '" + to + "'");
  writeTextAtomically(to, text.str());
}

}  // namespace remat::runtime::detail
