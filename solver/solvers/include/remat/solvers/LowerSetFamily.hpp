#pragma once

#include <cstdint>
#include <optional>
#include <stop_token>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/NodeSet.hpp"

namespace remat::solvers {

/// A family of lower sets of a graph's operations, ordered by size (so that a set comes after all of its
/// subsets), with ∅ first and V last, and the per-set quantities of the DP model of Kusumoto et al.
/// (ARCHITECTURE.md section 5.1) precomputed: M(L), T(L), ∂(L) with its M and T, and M(A) + M(B) where
/// A = δ+(L) \ L and B = δ−(A) \ L. The sets are stored as one flat array of 64-bit words, W per set,
/// so that the DP's subset tests run over contiguous memory.
class LowerSetFamily {
 public:
  /// Every lower set of g; nullopt when there are more than `limit` or when stopped.
  [[nodiscard]] static std::optional<LowerSetFamily> allLowerSets(const graph::ComputeGraph& g, std::uint64_t limit,
                                                                  std::stop_token stop = {});
  /// The approximate DP's family: ∅, the ancestor closure of every operation (ancestors plus itself), and V.
  [[nodiscard]] static LowerSetFamily ancestorClosures(const graph::ComputeGraph& g);

  [[nodiscard]] std::size_t size() const { return m_count.size(); }
  [[nodiscard]] std::size_t wordsPerSet() const { return m_words; }
  [[nodiscard]] const std::uint64_t* words(std::size_t i) const { return m_bits.data() + i * m_words; }
  [[nodiscard]] graph::NodeSet set(std::size_t i) const;

  /// |L|
  [[nodiscard]] std::uint32_t count(std::size_t i) const { return m_count[i]; }
  /// M(L), T(L)
  [[nodiscard]] std::int64_t bytes(std::size_t i) const { return m_bytes[i]; }
  [[nodiscard]] std::int64_t time(std::size_t i) const { return m_time[i]; }
  /// M(∂L), T(∂L)
  [[nodiscard]] std::int64_t boundaryBytes(std::size_t i) const { return m_boundaryBytes[i]; }
  [[nodiscard]] std::int64_t boundaryTime(std::size_t i) const { return m_boundaryTime[i]; }
  /// M(A) + M(B) of L
  [[nodiscard]] std::int64_t frontierBytes(std::size_t i) const { return m_frontierBytes[i]; }
  /// The members of ∂(L), as op indices, with their M and T.
  struct BoundaryNode {
    std::uint32_t op;
    std::int64_t bytes;
    std::int64_t time;
  };
  [[nodiscard]] const std::vector<BoundaryNode>& boundary(std::size_t i) const { return m_boundary[i]; }

  /// True when set i ⊆ set j. Ancestor closures compare in O(1): L_u ⊆ L_v exactly when u ∈ L_v.
  [[nodiscard]] bool subset(std::size_t i, std::size_t j) const {
    if (m_generator[i] != kNoGenerator) {
      const std::uint32_t u = m_generator[i];
      return (words(j)[u >> 6] >> (u & 63)) & 1U;
    }
    const std::uint64_t* a = words(i);
    const std::uint64_t* b = words(j);
    for (std::size_t k = 0; k < m_words; ++k)
      if (a[k] & ~b[k]) return false;
    return true;
  }

 private:
  static constexpr std::uint32_t kNoGenerator = UINT32_MAX;
  void add(const graph::ComputeGraph& g, const graph::NodeSet& s, std::uint32_t generator = kNoGenerator);
  void sortBySize();

  std::size_t m_universe = 0;
  std::size_t m_words = 0;
  std::vector<std::uint64_t> m_bits;
  std::vector<std::uint32_t> m_count;
  std::vector<std::uint32_t> m_generator;  ///< the op whose ancestor closure the set is, or kNoGenerator
  std::vector<std::int64_t> m_bytes;
  std::vector<std::int64_t> m_time;
  std::vector<std::int64_t> m_boundaryBytes;
  std::vector<std::int64_t> m_boundaryTime;
  std::vector<std::int64_t> m_frontierBytes;
  std::vector<std::vector<BoundaryNode>> m_boundary;
};

}  // namespace remat::solvers
