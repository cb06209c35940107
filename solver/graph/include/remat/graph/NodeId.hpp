#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <limits>

namespace remat::graph {

/// Index of a node in a ComputeGraph. Nodes are stored in a topological order with inputs and
/// parameters first, so comparing ids compares topological positions.
struct NodeId {
  std::uint32_t value = std::numeric_limits<std::uint32_t>::max();

  constexpr NodeId() = default;
  constexpr explicit NodeId(std::uint32_t v) : value(v) {}
  constexpr auto operator<=>(const NodeId&) const = default;  // NOLINT(modernize-use-nullptr)
  [[nodiscard]] constexpr bool valid() const { return value != std::numeric_limits<std::uint32_t>::max(); }
};

/// Index of an operation node among the graph's operation nodes (the paper's vertex set V), 0..|V|-1,
/// in topological order. Lower sets are bitsets over these indices.
struct OpIndex {
  std::uint32_t value = 0;

  constexpr OpIndex() = default;
  constexpr explicit OpIndex(std::uint32_t v) : value(v) {}
  constexpr auto operator<=>(const OpIndex&) const =
      default;  // NOLINT(modernize-use-nullptr): clang-tidy 14 misreads the defaulted <=>
};

}  // namespace remat::graph

template <>
struct std::hash<remat::graph::NodeId> {
  std::size_t operator()(remat::graph::NodeId id) const noexcept { return std::hash<std::uint32_t>{}(id.value); }
};
