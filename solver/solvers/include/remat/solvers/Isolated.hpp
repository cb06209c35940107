#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>

#include "remat/graph/Units.hpp"

namespace remat::solvers {

/// How a computation run by runIsolated ended.
struct IsolatedOutcome {
  enum class Kind {
    Finished,     ///< the child returned; `bytes` holds what it returned
    Deadline,     ///< stopped at the deadline
    MemoryLimit,  ///< stopped when its resident memory passed the cap
    Cancelled,    ///< stopped because the stop token asked
    Failed,       ///< it could not start, or died (`why` says how)
  };
  Kind kind = Kind::Failed;
  std::string bytes;
  std::int64_t peakResident = 0;  ///< the child's highest resident set seen, in bytes (sampled)
  std::string why;
};

/// Runs `work` in a child process (fork) and returns what it returned, unless the child is still running
/// at `deadline`, its resident memory passes `memoryLimit` bytes, or `stop` is requested: the child is
/// then killed at once and the outcome says which. For third-party solvers (CBC, CLP) that check no
/// clock and no allocation budget while they build and presolve a model: the caller's limits then hold
/// within the sampling period (20 ms), whatever the library does.
///
/// The child runs only `work` and leaves with _exit: no atexit handlers, no flush of the parent's stdio
/// buffers, nothing written but the result. An exception in `work` (std::bad_alloc included) ends the child
/// with Failed and its message. POSIX only; the memory is read from /proc (Linux), so elsewhere
/// `memoryLimit` is not enforced. In AddressSanitizer builds, whose allocator is not fork-safe while
/// other threads run, a caller with other threads runs `work` in-process, without the limits.
[[nodiscard]] IsolatedOutcome runIsolated(const std::function<std::string()>& work,
                                          std::optional<std::chrono::steady_clock::time_point> deadline,
                                          std::optional<std::int64_t> memoryLimit, std::stop_token stop);

/// The default memory limit of a solve: half of the machine's physical memory (a safe share on a shared
/// machine; the kernel's OOM killer acts on the whole process, and so on Studio too). 4 GiB when the
/// machine does not say.
[[nodiscard]] std::int64_t defaultMemoryLimit();
/// A request's memory limit in bytes: `limit` where given, else defaultMemoryLimit().
[[nodiscard]] inline std::int64_t memoryLimitOr(std::optional<Bytes> limit) {
  return limit ? limit->value : defaultMemoryLimit();
}

}  // namespace remat::solvers
