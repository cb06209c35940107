// libFuzzer entry point for readMemoryTrace: any bytes must give a trace or an error, never a crash, and a
// trace read must be consistent: one time and one live count per event, times from 0 and never
// decreasing, never less than nothing held, the peak the most held (the resident bytes without events).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "remat/io/MemoryTrace.hpp"

namespace {

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "%s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto r = remat::io::readMemoryTrace(text, "fuzz.json");
  if (!r.ok()) {
    if (r.errors().empty()) fail("reader failed without an error message");
    return 0;
  }
  const remat::io::MemoryTrace& t = r.value();
  if (t.timeUs.size() != t.liveBytes.size()) fail("one time per event");
  if (!t.timeUs.empty() && t.timeUs.front() != 0) fail("times start at 0");
  if (!std::is_sorted(t.timeUs.begin(), t.timeUs.end())) fail("times never decrease");
  if (t.residentBytes < 0) fail("negative resident bytes");
  std::int64_t peak = t.residentBytes;
  for (std::int64_t live : t.liveBytes) {
    if (live < 0) fail("negative bytes held");
    peak = std::max(peak, live);
  }
  if (peak != t.peakBytes) fail("the peak is not the most held");
  if (t.peakEvent >= std::max<std::size_t>(1, t.liveBytes.size())) fail("the peak's event is past the events");
  // The peak is held after its event, or it is the resident bytes, held before the first (event 0).
  if (!t.liveBytes.empty() && t.liveBytes[t.peakEvent] != t.peakBytes &&
      !(t.peakEvent == 0 && t.peakBytes == t.residentBytes))
    fail("the peak's event does not hold it");
  return 0;
}
