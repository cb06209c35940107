#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <limits>

namespace remat {

/// An integral quantity tagged with its unit, so that bytes, time and ids never mix by accident.
/// Arithmetic is 64-bit (graphs exceed 2^31 bytes; the paper's own program overflowed `int`) and
/// saturating: a sum that would pass 2^63 - 1 (or fall below -2^63) stops there instead of wrapping to a
/// number of the other sign. The readers refuse graphs whose totals pass kMaxGraphTotal, so that the
/// sums of a plan's figures stay far from saturation; saturation is the last guard, never a result.
template <class Tag>
struct Quantity {
  std::int64_t value = 0;

  constexpr Quantity() = default;
  constexpr explicit Quantity(std::int64_t v) : value(v) {}

  // clang-tidy 14 reads the defaulted comparison's literal 0 as a null pointer.
  constexpr auto operator<=>(const Quantity&) const = default;  // NOLINT(modernize-use-nullptr)

  constexpr Quantity& operator+=(Quantity o) { return *this = *this + o; }
  constexpr Quantity& operator-=(Quantity o) { return *this = *this - o; }
  friend constexpr Quantity operator+(Quantity a, Quantity b) {
    std::int64_t out = 0;
    if (__builtin_add_overflow(a.value, b.value, &out)) return b.value > 0 ? max() : lowest();
    return Quantity{out};
  }
  friend constexpr Quantity operator-(Quantity a, Quantity b) {
    std::int64_t out = 0;
    if (__builtin_sub_overflow(a.value, b.value, &out)) return b.value < 0 ? max() : lowest();
    return Quantity{out};
  }
  friend constexpr Quantity operator*(Quantity a, std::int64_t k) {
    std::int64_t out = 0;
    if (__builtin_mul_overflow(a.value, k, &out)) return (a.value < 0) == (k < 0) ? max() : lowest();
    return Quantity{out};
  }
  friend constexpr Quantity operator*(std::int64_t k, Quantity a) { return a * k; }

  static constexpr Quantity max() { return Quantity{std::numeric_limits<std::int64_t>::max()}; }
  static constexpr Quantity lowest() { return Quantity{std::numeric_limits<std::int64_t>::min()}; }
};

/// The most a graph's bytes (values, parameters, inputs and workspace, summed) or its time (every
/// forward and backward, summed) may total: 2^60. Remat's figures add to these sums (a gradient per
/// value and per parameter, each segment's recomputation in a two-level plan), and at most 2^60 they
/// cannot come near 2^63. Plans that recompute an op many times can pass it: the simulator refuses
/// those (ScheduleError::timeOverflow) and chain-dp's table saturates below it.
inline constexpr std::int64_t kMaxGraphTotal = std::int64_t{1} << 60;

struct BytesTag {};
struct TicksTag {};

/// A memory size in bytes.
using Bytes = Quantity<BytesTag>;
/// A duration in the graph's declared time unit (integral, so results compare exactly).
using Ticks = Quantity<TicksTag>;

}  // namespace remat

template <class Tag>
struct std::hash<remat::Quantity<Tag>> {
  std::size_t operator()(remat::Quantity<Tag> q) const noexcept { return std::hash<std::int64_t>{}(q.value); }
};
