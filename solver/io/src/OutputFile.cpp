#include "remat/io/OutputFile.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "remat/io/Interruption.hpp"

namespace remat::io {

namespace {

WriteError refusal(const std::string& path, const std::string& why) {
  return {WriteError::Kind::Target, "refusing to write '" + path + "': " + why};
}

WriteError failure(const std::string& path, const std::string& why) {
  return {WriteError::Kind::Io, "cannot write '" + path + "': " + why};
}

// Why a command must not replace what sits at the path; nullopt for a regular file.
std::optional<std::string> notRegular(const struct stat& st) {
  if (S_ISREG(st.st_mode)) return std::nullopt;
  if (S_ISDIR(st.st_mode)) return std::string("it is a directory");
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) return std::string("it is a device, not a regular file");
  if (S_ISFIFO(st.st_mode)) return std::string("it is a FIFO (named pipe), not a regular file");
  if (S_ISSOCK(st.st_mode)) return std::string("it is a socket, not a regular file");
  return std::string("it is not a regular file");
}

// What sits at the path now (following symbolic links): a reason to refuse it, or nullopt when it is
// a regular file or nothing (or cannot be looked at: the write itself then reports why).
std::optional<std::string> targetProblem(const std::string& path) {
  if (path.empty()) return std::string("no file name given");
  if (path.back() == '/') return std::string("it names a directory");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return notRegular(st);
}

// A name in the target's folder that no other writer (another process, or another thread here) picks:
// the rename must stay within one file system, and O_EXCL settles any remaining clash.
std::string temporaryName(const std::string& path) {
  static std::atomic<std::uint64_t> counter{0};
  const std::size_t slash = path.rfind('/');
  const std::string folder = slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
  // Keep the name well under NAME_MAX (255) with the suffix.
  const std::string name = path.substr(folder.size()).substr(0, 160);
  const auto now = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  const std::uint64_t mix = (now * 0x9E3779B97F4A7C15ull) ^ (counter.fetch_add(1) * 0xBF58476D1CE4E5B9ull);
  char suffix[64];
  std::snprintf(suffix, sizeof suffix, ".tmp-%ld-%016llx", static_cast<long>(::getpid()),
                static_cast<unsigned long long>(mix));
  return folder + name + suffix;
}

// Writes everything, retrying short writes and interruptions; false with errno set on failure.
bool writeAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (n == 0) {
      errno = EIO;
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// Makes the rename itself durable. Best effort: some file systems cannot sync a directory, and the
// file is complete and in place either way.
void syncFolderOf(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

}  // namespace

std::optional<WriteError> checkOutputPath(const std::string& path, const std::vector<std::string>& inputs) {
  if (auto why = targetProblem(path)) return refusal(path, *why);
  struct stat out {};
  if (::stat(path.c_str(), &out) != 0) return std::nullopt;  // nothing there yet
  for (const std::string& input : inputs) {
    struct stat in {};
    if (::stat(input.c_str(), &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
      return refusal(path, input == path ? "it is the input file" : "it is the input file '" + input + "'");
  }
  return std::nullopt;
}

std::optional<WriteError> writeFileAtomically(const std::string& path, std::string_view bytes) {
  if (auto why = targetProblem(path)) return refusal(path, *why);
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = temporaryName(path);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) return failure(path, "cannot create a temporary file beside it: " + std::string(std::strerror(errno)));
  TemporaryPath temporary(tmp);  // removed if the process is stopped before the rename
  auto abandon = [&](const std::string& why) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    return failure(path, why);
  };
  // A file replaced keeps its permissions (a 0600 file must not come back 0644), set before any byte is
  // written; a new one gets 0666 less the umask.
  struct stat existing {};
  if (::stat(path.c_str(), &existing) == 0 && S_ISREG(existing.st_mode) && ::fchmod(fd, existing.st_mode & 0777) != 0)
    return abandon("cannot give the temporary file the target's permissions: " + std::string(std::strerror(errno)));
  if (!writeAll(fd, bytes)) return abandon(std::strerror(errno));
  // Some file systems (and /proc-like ones) cannot sync; the data is then as durable as they make it.
  if (::fsync(fd) != 0 && errno != EINVAL && errno != ENOTSUP) return abandon(std::strerror(errno));
  const int closed = ::close(fd);
  fd = -1;
  if (closed != 0) return abandon(std::strerror(errno));
  {
    // A stop (SIGINT, SIGTERM) waits for the rename, or comes before it and leaves nothing at the target.
    const auto cleanup = holdCleanup();
    if (interrupted()) {
      ::unlink(tmp.c_str());
    } else {
      // Checked again at the last moment: a device or folder made there meanwhile is never replaced.
      if (auto why = targetProblem(path)) {
        ::unlink(tmp.c_str());
        return refusal(path, *why);
      }
      if (::rename(tmp.c_str(), path.c_str()) != 0) return abandon(std::strerror(errno));
    }
  }
  awaitInterruption();  // the stop's cleanup ends the process; nothing was written
  temporary.release();
  syncFolderOf(path);
  return std::nullopt;
}

FolderLock::FolderLock(const std::string& folder) {
  m_fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (m_fd < 0) {
    m_error = folder + ": cannot open the folder to lock it: " + std::strerror(errno);
    return;
  }
  while (::flock(m_fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    m_error = folder + ": cannot lock the folder: " + std::strerror(errno);
    ::close(m_fd);
    m_fd = -1;
    return;
  }
}

FolderLock::~FolderLock() {
  if (m_fd >= 0) ::close(m_fd);  // releases the lock
}

}  // namespace remat::io
