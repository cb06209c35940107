#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "remat/solvers/Isolated.hpp"

using remat::solvers::IsolatedOutcome;
using remat::solvers::runIsolated;
using Clock = std::chrono::steady_clock;

TEST_CASE("runIsolated returns the child's answer, whole, with NUL bytes and beyond a pipe's buffer") {
  std::string big(5'000'000, 'x');
  big[17] = '\0';
  const IsolatedOutcome o = runIsolated([&] { return big; }, std::nullopt, std::nullopt, {});
  REQUIRE(o.kind == IsolatedOutcome::Kind::Finished);
  CHECK(o.bytes == big);
  const IsolatedOutcome empty = runIsolated([] { return std::string(); }, std::nullopt, std::nullopt, {});
  CHECK(empty.kind == IsolatedOutcome::Kind::Finished);
  CHECK(empty.bytes.empty());
}

TEST_CASE("runIsolated stops a child that runs past its deadline, and lets one within it answer") {
  // The deadlines are fixed points of the steady clock, not read from it: its epoch (the machine's boot,
  // long past) and a century after it. A parent that never stopped the child would hang, and ctest's
  // timeout (tests/CMakeLists.txt) fail the test. The child waits forever in small sleeps: a loop without
  // side effects would be undefined, and clang turned one (on a local atomic) into a fall-through that
  // crashed the child.
  const IsolatedOutcome o = runIsolated(
      []() -> std::string {
        for (;;) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      },
      Clock::time_point{}, std::nullopt, {});
  CHECK(o.kind == IsolatedOutcome::Kind::Deadline);
  CHECK(o.bytes.empty());
  const IsolatedOutcome within = runIsolated(
      [] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        return std::string("answered");
      },
      Clock::time_point{} + std::chrono::hours(24 * 365 * 100), std::nullopt, {});
  CHECK(within.kind == IsolatedOutcome::Kind::Finished);
  CHECK(within.bytes == "answered");
}

TEST_CASE("runIsolated stops a child whose resident memory passes the limit") {
  // The child touches 1 MiB after another, up to 4 GiB, which it never reaches: the parent stops it past
  // 64 MiB (a child that got there would answer "reached", and the test fail).
  const IsolatedOutcome o = runIsolated(
      [] {
        std::vector<char*> blocks;
        for (int k = 0; k < 4096; ++k) {
          blocks.push_back(static_cast<char*>(std::malloc(1 << 20)));
          std::memset(blocks.back(), 1, 1 << 20);
          std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
        return std::string("reached");
      },
      std::nullopt, std::int64_t{64} << 20, {});
  CHECK(o.kind == IsolatedOutcome::Kind::MemoryLimit);
  CHECK(o.peakResident > std::int64_t{64} << 20);
  CHECK(o.bytes.empty());
}

TEST_CASE("runIsolated reports a child that dies or throws, with the reason") {
  const IsolatedOutcome died = runIsolated([]() -> std::string { std::abort(); }, std::nullopt, std::nullopt, {});
  CHECK(died.kind == IsolatedOutcome::Kind::Failed);
  CHECK_THAT(died.why, Catch::Contains("signal 6"));
  const IsolatedOutcome threw =
      runIsolated([]() -> std::string { throw std::runtime_error("boom"); }, std::nullopt, std::nullopt, {});
  CHECK(threw.kind == IsolatedOutcome::Kind::Failed);
  CHECK(threw.why == "boom");
  const IsolatedOutcome noMemory =
      runIsolated([]() -> std::string { throw std::bad_alloc(); }, std::nullopt, std::nullopt, {});
  CHECK(noMemory.kind == IsolatedOutcome::Kind::MemoryLimit);
}

TEST_CASE("runIsolated stops a child when the stop token asks") {
  // Asked before the call: the child is started and stopped at the first look (a thread asking later
  // would make this process multithreaded, which sanitizer builds do not fork).
  std::stop_source stop;
  stop.request_stop();
  const IsolatedOutcome o = runIsolated(
      [] {
        std::this_thread::sleep_for(std::chrono::seconds(60));
        return std::string("slept");
      },
      std::nullopt, std::nullopt, stop.get_token());
  CHECK(o.kind == IsolatedOutcome::Kind::Cancelled);
}
