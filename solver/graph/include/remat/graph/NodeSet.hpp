#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "remat/graph/NodeId.hpp"

namespace remat::graph {

/// A set of operation nodes as a compact bitset over OpIndex values (lower sets, boundaries).
class NodeSet {
 public:
  NodeSet() = default;
  explicit NodeSet(std::size_t universe) : m_size(universe), m_words((universe + 63) / 64, 0) {}

  [[nodiscard]] std::size_t universe() const { return m_size; }
  [[nodiscard]] bool contains(OpIndex i) const { return (m_words[i.value >> 6] >> (i.value & 63)) & 1U; }
  void insert(OpIndex i) { m_words[i.value >> 6] |= std::uint64_t{1} << (i.value & 63); }
  void erase(OpIndex i) { m_words[i.value >> 6] &= ~(std::uint64_t{1} << (i.value & 63)); }

  [[nodiscard]] std::size_t count() const {
    std::size_t c = 0;
    for (auto w : m_words) c += static_cast<std::size_t>(std::popcount(w));
    return c;
  }
  [[nodiscard]] bool empty() const {
    for (auto w : m_words)
      if (w) return false;
    return true;
  }
  /// Every member of this set is in `other`.
  [[nodiscard]] bool subsetOf(const NodeSet& other) const {
    for (std::size_t k = 0; k < m_words.size(); ++k)
      if (m_words[k] & ~other.m_words[k]) return false;
    return true;
  }

  NodeSet& operator|=(const NodeSet& o) {
    for (std::size_t k = 0; k < m_words.size(); ++k) m_words[k] |= o.m_words[k];
    return *this;
  }
  NodeSet& operator&=(const NodeSet& o) {
    for (std::size_t k = 0; k < m_words.size(); ++k) m_words[k] &= o.m_words[k];
    return *this;
  }
  /// Set difference.
  NodeSet& operator-=(const NodeSet& o) {
    for (std::size_t k = 0; k < m_words.size(); ++k) m_words[k] &= ~o.m_words[k];
    return *this;
  }
  friend NodeSet operator|(NodeSet a, const NodeSet& b) { return a |= b; }
  friend NodeSet operator&(NodeSet a, const NodeSet& b) { return a &= b; }
  friend NodeSet operator-(NodeSet a, const NodeSet& b) { return a -= b; }
  bool operator==(const NodeSet&) const = default;

  /// Calls f(OpIndex) for each member in ascending (topological) order.
  template <class F>
  void forEach(F&& f) const {
    for (std::size_t k = 0; k < m_words.size(); ++k) {
      std::uint64_t w = m_words[k];
      while (w) {
        f(OpIndex{static_cast<std::uint32_t>(k * 64 + static_cast<std::size_t>(std::countr_zero(w)))});
        w &= w - 1;
      }
    }
  }
  [[nodiscard]] std::vector<OpIndex> members() const {
    std::vector<OpIndex> out;
    forEach([&](OpIndex i) { out.push_back(i); });
    return out;
  }

  [[nodiscard]] const std::vector<std::uint64_t>& words() const { return m_words; }
  [[nodiscard]] std::size_t hash() const {
    std::size_t h = 1469598103934665603ULL;
    for (auto w : m_words) h = (h ^ w) * 1099511628211ULL;
    return h;
  }

 private:
  std::size_t m_size = 0;
  std::vector<std::uint64_t> m_words;
};

}  // namespace remat::graph

template <>
struct std::hash<remat::graph::NodeSet> {
  std::size_t operator()(const remat::graph::NodeSet& s) const noexcept { return s.hash(); }
};
