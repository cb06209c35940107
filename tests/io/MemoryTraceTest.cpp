// The memory trace reader (runtime/trace_step.py's files and PyTorch's Chrome traces): the valid fixtures
// read with the expected curve, every invalid one fails with a message naming the file and the place.

#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "IoTestSupport.hpp"
#include "remat/io/MemoryTrace.hpp"

using remat::io::readMemoryTrace;
using remat::io::readMemoryTraceFile;
using remat::io::test::filesIn;
using remat::io::test::fixture;

TEST_CASE("memory trace: remat's own format, resident bytes first, then every event in order", "[io][trace]") {
  auto r = readMemoryTraceFile(fixture("trace/valid/step.json").string());
  INFO(r.errorText());
  REQUIRE(r.ok());
  const auto& t = r.value();
  CHECK(t.format == "remat-memory-trace");
  CHECK(t.device == "cpu");
  CHECK(t.torchVersion == "1.13.1");
  CHECK(t.model == "a hand-written step");
  CHECK(t.residentKnown);
  CHECK(t.residentBytes == 100);
  CHECK(t.timeUs == std::vector<std::int64_t>{0, 1, 1, 5});
  CHECK(t.liveBytes == std::vector<std::int64_t>{150, 180, 130, 150});
  CHECK(t.peakBytes == 180);
  CHECK(t.peakEvent == 1);
  CHECK(r.warnings().empty());
}

TEST_CASE("memory trace: a recording that first frees what was resident peaks before its first event", "[io][trace]") {
  // Found by fuzz_memory_trace: the peak is the resident bytes, which no event's count holds.
  auto r = readMemoryTrace(R"({"format": "remat-memory-trace", "version": 1, "device": "cpu", "resident_bytes": 100,
                               "events": [[0, -40], [2, 30], [3, -10]]})",
                           "first-frees.json");
  INFO(r.errorText());
  REQUIRE(r.ok());
  const auto& t = r.value();
  CHECK(t.liveBytes == std::vector<std::int64_t>{60, 90, 80});
  CHECK(t.peakBytes == 100);
  CHECK(t.peakEvent == 0);
}

TEST_CASE("memory trace: a Chrome trace's memory events of the busiest device, by time", "[io][trace]") {
  auto r = readMemoryTraceFile(fixture("trace/valid/chrome.json").string());
  INFO(r.errorText());
  REQUIRE(r.ok());
  const auto& t = r.value();
  CHECK(t.format == "chrome-trace");
  CHECK(t.device == "cpu");  // 1064 bytes allocated against CUDA's 8
  // Sorted by time: +1000 at 10, +64 at 12.25, -1000 at 20; the allocator's total says nothing was
  // held before.
  CHECK(t.residentKnown);
  CHECK(t.residentBytes == 0);
  CHECK(t.timeUs == std::vector<std::int64_t>{0, 2, 10});
  CHECK(t.liveBytes == std::vector<std::int64_t>{1000, 1064, 64});
  CHECK(t.peakBytes == 1064);
  REQUIRE(r.warnings().size() == 1);
  CHECK(r.warnings()[0].message.find("2 devices") != std::string::npos);

  auto bare = readMemoryTraceFile(fixture("trace/valid/chrome-array.json").string());
  REQUIRE(bare.ok());
  CHECK_FALSE(bare.value().residentKnown);
  CHECK(bare.value().peakBytes == 8192);
  REQUIRE(bare.warnings().size() == 1);
  CHECK(bare.warnings()[0].message.find("Total Allocated") != std::string::npos);
}

TEST_CASE("memory trace: every invalid fixture fails with its message, naming the file", "[io][trace]") {
  const std::map<std::string, std::string> expected{
      {"bad_device.json", "/device: expected a string"},
      {"bad_version.json", "/version: expected 1"},
      {"chrome_no_bytes.json", "a memory event needs Bytes"},
      {"float_bytes.json", "/events/0/1"},
      {"missing_resident.json", "/resident_bytes: missing"},
      {"neither.json", "neither a remat-memory-trace"},
      {"no_memory_events.json", "no memory events"},
      {"not_json.json", "invalid JSON"},
      {"not_pair.json", "/events/0: expected [microseconds, bytes]"},
      {"over_free.json", "/events/1: frees 200 bytes but only 150 are held"},
      {"overflow.json", "/events/0: the bytes held overflow 64 bits"},
      {"time_back.json", "/events/1/0: time 3 is before the previous event's (5)"},
  };
  std::size_t seen = 0;
  for (const auto& path : filesIn(fixture("trace/invalid"))) {
    const std::string name = path.filename().string();
    INFO(name);
    REQUIRE(expected.count(name) == 1);
    auto r = readMemoryTraceFile(path.string());
    REQUIRE_FALSE(r.ok());
    CHECK(r.errorText().find(expected.at(name)) != std::string::npos);
    CHECK(r.errorText().find(name) != std::string::npos);
    ++seen;
  }
  CHECK(seen == expected.size());
  auto missing = readMemoryTraceFile(fixture("trace/none.json").string());
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.errorText().find("none.json") != std::string::npos);
  CHECK_FALSE(readMemoryTrace("[1, 2]", "x.json").ok());  // a Chrome array without memory events
}
