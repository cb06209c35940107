#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>

#include "remat/graph/Units.hpp"

using remat::Bytes;
using remat::Ticks;

TEST_CASE("bytes and ticks saturate instead of wrapping") {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  // A parameter of 2^62 bytes with its gradient, and a time of 3 * 2^61 twice: these wrapped negative.
  CHECK(Bytes{std::int64_t{1} << 62} + Bytes{std::int64_t{1} << 62} == Bytes::max());
  CHECK(Ticks{3 * (std::int64_t{1} << 61)} + Ticks{3 * (std::int64_t{1} << 61)} == Ticks::max());
  CHECK(Bytes{kMin} - Bytes{1} == Bytes::lowest());
  CHECK(Bytes{kMax} - Bytes{-1} == Bytes::max());
  CHECK(Bytes{std::int64_t{1} << 40} * (std::int64_t{1} << 30) == Bytes::max());
  CHECK(Bytes{-(std::int64_t{1} << 40)} * (std::int64_t{1} << 30) == Bytes::lowest());
  CHECK((std::int64_t{1} << 30) * Ticks{-(std::int64_t{1} << 40)} == Ticks::lowest());
  Bytes sum{kMax - 5};
  sum += Bytes{10};
  CHECK(sum == Bytes::max());
  sum -= Bytes{kMax};
  CHECK(sum == Bytes{0});
  // Ordinary sums are exact.
  CHECK(Bytes{3} + Bytes{4} == Bytes{7});
  CHECK(Ticks{3} - Ticks{4} == Ticks{-1});
  CHECK(Bytes{6} * 7 == Bytes{42});
  static_assert(Bytes{2} + Bytes{3} == Bytes{5});
}
