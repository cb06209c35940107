#pragma once

#include <optional>
#include <string>

#include "remat/io/Interruption.hpp"

namespace remat::runtime::detail {

/// A private temporary folder (mkdtemp under the system's temporary directory), removed with its
/// contents when the object goes, or when remat is stopped by a signal (io::TemporaryPath).
class WorkDir {
 public:
  explicit WorkDir(const std::string& prefix);
  ~WorkDir();
  WorkDir(const WorkDir&) = delete;
  WorkDir& operator=(const WorkDir&) = delete;

  [[nodiscard]] const std::string& path() const { return m_path; }
  /// path() + "/" + name
  [[nodiscard]] std::string file(const std::string& name) const { return m_path + "/" + name; }

 private:
  std::string m_path;
  std::optional<io::TemporaryPath> m_registered;
};

/// Copies `from` to `to`, written whole or not at all (writeTextAtomically). Throws ValidationError.
void copyAtomically(const std::string& from, const std::string& to);

}  // namespace remat::runtime::detail
