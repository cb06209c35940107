#pragma once

// A CPU allocator for c10 that counts: it wraps the allocator LibTorch had (the default one, or whatever
// was installed before it) and records the bytes every CPU allocation holds, so that remat-runner can
// report what the framework really allocates, temporaries inside a step included, next to what its own
// tables hold. Only this file's .cpp includes c10.

#include <cstdint>
#include <optional>
#include <string>

namespace remat::runtime::detail {

/// Live and peak bytes of CPU allocations made through the counting allocator.
class AllocationCounter {
 public:
  /// Bytes held now by allocations made since the install.
  [[nodiscard]] std::int64_t live() const;
  /// The most bytes held at once since the last resetPeak() (or the install).
  [[nodiscard]] std::int64_t peak() const;
  /// Starts a new peak at the bytes held now.
  void resetPeak();
  /// From now on, a freed block of 1 MiB or more is kept for the next allocation of exactly its size
  /// instead of going back to the C library, as PyTorch's caching allocator does on CUDA: the measured
  /// iterations then reuse the warm-up's blocks whatever glibc's heap would have done with them.
  void keepLargeBlocks();
};

/// Installs the counting allocator as c10's CPU allocator (once per process; later calls return the
/// same counter), or says why it cannot: the allocator it would wrap does not hand out blocks it can
/// track (its context is not the data pointer, or it has no raw deleter).
[[nodiscard]] AllocationCounter* installCountingCpuAllocator(std::string& why);

}  // namespace remat::runtime::detail
