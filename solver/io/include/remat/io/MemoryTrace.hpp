#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "remat/graph/Diagnostic.hpp"

namespace remat::io {

/// The allocations of one recorded training step, as the framework's allocator saw them: what
/// `runtime/trace_step.py` writes (`"format": "remat-memory-trace"`, docs/formats.md) or a Chrome
/// trace of PyTorch's profiler with memory events (`"[memory]"`, newer PyTorch writes them there).
struct MemoryTrace {
  std::string format;        ///< "remat-memory-trace" or "chrome-trace"
  std::string device;        ///< "cpu", "cuda", ...: the device whose allocations these are
  std::string torchVersion;  ///< empty when the file does not say
  std::string model;         ///< what was recorded, as the file names it (may be empty)
  /// Bytes held before the first event (parameters, buffers, inputs), 0 when the file does not know.
  std::int64_t residentBytes = 0;
  bool residentKnown = false;
  std::vector<std::int64_t> timeUs;     ///< per event, microseconds since the first event (non-decreasing)
  std::vector<std::int64_t> liveBytes;  ///< per event, bytes held after it, resident included
  std::int64_t peakBytes = 0;           ///< the most held at once (the resident bytes without events)
  /// The event after which peakBytes is held; 0 also when the peak is the resident bytes, held before
  /// the first event (a recording whose first events free what was resident).
  std::size_t peakEvent = 0;
};

/// Parses a memory trace. `fileName` is used in messages only. Errors name the JSON path (`/events/3`)
/// or, for syntax errors, the line: a negative or decreasing time, an event that frees more than is
/// held, a Chrome trace without memory events. Never throws.
[[nodiscard]] Result<MemoryTrace> readMemoryTrace(std::string_view text, const std::string& fileName);

/// readMemoryTrace on a file (at most 1 GiB).
[[nodiscard]] Result<MemoryTrace> readMemoryTraceFile(const std::string& path);

}  // namespace remat::io
