#include "WorkDir.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

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
}

WorkDir::~WorkDir() {
  std::error_code ec;
  fs::remove_all(m_path, ec);
}

void copyAtomically(const std::string& from, const std::string& to) {
  const fs::path tmp = fs::path(to).string() + ".tmp-" + std::to_string(::getpid());
  std::error_code ec;
  fs::copy_file(from, tmp, fs::copy_options::overwrite_existing, ec);
  if (!ec) fs::rename(tmp, to, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw ValidationError(ValidationFailure::Input, "cannot write '" + to + "': " + ec.message());
  }
}

}  // namespace remat::runtime::detail
