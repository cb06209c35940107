#pragma once

#include <sys/types.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

namespace remat::io {

/// How a command line stops when it is told to (SIGINT from Ctrl+C, SIGTERM from `timeout` or a job
/// scheduler): at once, leaving nothing behind. stopCleanlyOnSignals() makes a thread that waits for those
/// signals; when one comes it terminates every child process group registered (ChildGroup: the runner),
/// giving them two seconds before SIGKILL, removes every temporary file and folder registered
/// (TemporaryPath), says "<program>: interrupted by SIGINT" and exits with 128 + the signal (130, 143).
/// A second signal while it cleans up ends the process at once. Nothing a command writes is at its
/// target before the final rename (writeFileAtomically), which holds the cleanup's lock, so a stopped
/// command leaves either the whole file or nothing.

/// Blocks SIGINT and SIGTERM in the calling thread, and so in every thread it starts later, and starts
/// the thread that handles them. Call at the start of main, before any other thread exists. A child
/// started with posix_spawn must have them unblocked and default (POSIX_SPAWN_SETSIGMASK, SETSIGDEF), as
/// runtime::runRunner does; forked helpers die with the process (PR_SET_PDEATHSIG).
void stopCleanlyOnSignals(std::string_view program);

/// Whether a stop signal has come (the process is about to exit with 128 + signal).
[[nodiscard]] bool interrupted();

/// The threads stopCleanlyOnSignals started that are waiting in sigwait (0 or 1). They allocate nothing
/// while they wait, so code that may fork only while the process has one thread (runIsolated under
/// AddressSanitizer, whose allocator is not fork-safe) does not count them.
[[nodiscard]] int idleSignalThreads();

/// Never returns once interrupted(): the cleanup thread ends the process. For a command that noticed
/// the stop and must not print or exit on its own meanwhile.
void awaitInterruption();

/// A temporary file or folder removed (recursively) if the process is stopped while it is registered.
class TemporaryPath {
 public:
  explicit TemporaryPath(std::string path);
  ~TemporaryPath();
  TemporaryPath(const TemporaryPath&) = delete;
  TemporaryPath& operator=(const TemporaryPath&) = delete;
  /// No longer removed on a stop (it was renamed into place, or removed by its owner).
  void release();

 private:
  std::uint64_t m_id = 0;
};

/// A child process group terminated (SIGTERM, then SIGKILL) if the process is stopped while it is
/// registered. Its owner reaps the child.
class ChildGroup {
 public:
  explicit ChildGroup(pid_t group);
  ~ChildGroup();
  ChildGroup(const ChildGroup&) = delete;
  ChildGroup& operator=(const ChildGroup&) = delete;

 private:
  std::uint64_t m_id = 0;
};

/// Held across a step that must not be cut by a stop's cleanup (the final rename of a file): a stop
/// waits for it, and removes what is still registered after it.
[[nodiscard]] std::unique_lock<std::mutex> holdCleanup();

}  // namespace remat::io
