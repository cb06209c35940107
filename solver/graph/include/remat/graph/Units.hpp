#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <limits>

namespace remat {

/// An integral quantity tagged with its unit, so that bytes, time and ids never mix by accident.
/// Arithmetic is 64-bit: graphs exceed 2^31 bytes (the paper's own program overflowed `int`).
template <class Tag>
struct Quantity {
  std::int64_t value = 0;

  constexpr Quantity() = default;
  constexpr explicit Quantity(std::int64_t v) : value(v) {}

  constexpr auto operator<=>(const Quantity&) const = default;

  constexpr Quantity& operator+=(Quantity o) { value += o.value; return *this; }
  constexpr Quantity& operator-=(Quantity o) { value -= o.value; return *this; }
  friend constexpr Quantity operator+(Quantity a, Quantity b) { return Quantity{a.value + b.value}; }
  friend constexpr Quantity operator-(Quantity a, Quantity b) { return Quantity{a.value - b.value}; }
  friend constexpr Quantity operator*(Quantity a, std::int64_t k) { return Quantity{a.value * k}; }
  friend constexpr Quantity operator*(std::int64_t k, Quantity a) { return Quantity{a.value * k}; }

  static constexpr Quantity max() { return Quantity{std::numeric_limits<std::int64_t>::max()}; }
};

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
