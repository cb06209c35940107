#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace remat::io {

/// Why an output file was not written. Either way the target is as it was and no temporary is left.
struct WriteError {
  enum class Kind {
    Target,  ///< the path must not be written: a directory, a device, a FIFO or socket, or one of the inputs
    Io,      ///< writing failed: no such folder, no permission, no space left, ...
  };
  Kind kind = Kind::Io;
  std::string message;  ///< names the path and the reason
};

/// Whether a command may write `path`: it may when nothing is there yet or a regular file that is none
/// of `inputs` (compared by device and inode, so another name, a hard link or a symbolic link to an
/// input counts as that input). Commands check before any work, so that `-o` onto the graph, onto
/// `/dev/null` or onto a folder is refused at once. Returns the refusal (kind Target), or nullopt.
[[nodiscard]] std::optional<WriteError> checkOutputPath(const std::string& path,
                                                        const std::vector<std::string>& inputs = {});

/// Writes `bytes` to `path` whole or not at all: into a new temporary file in the same folder (created
/// with O_CREAT|O_EXCL, so that nothing planted under that name, a symbolic link included, is
/// followed; permissions 0666 less the umask, or those of the regular file it replaces), every write and the close
/// checked, synced to disk, then renamed over `path`. A symbolic link at `path` is replaced, not written through.
/// Concurrent writers of one path each rename a complete file: the last one wins. Refuses a `path` that is not a
/// regular file (see checkOutputPath). On any error the temporary is removed and the error returned.
[[nodiscard]] std::optional<WriteError> writeFileAtomically(const std::string& path, std::string_view bytes);

/// Holds an exclusive lock on a folder (flock on the folder itself) while alive, so that processes
/// writing a set of files into it (`compare --figures`) each put their whole set there: the last one's
/// set, never a mix. Advisory: only writers that take it wait for it.
class FolderLock {
 public:
  /// Waits for the lock; a folder that cannot be opened or locked gives an error (lockError).
  explicit FolderLock(const std::string& folder);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  [[nodiscard]] const std::optional<std::string>& lockError() const { return m_error; }

 private:
  int m_fd = -1;
  std::optional<std::string> m_error;
};

}  // namespace remat::io
