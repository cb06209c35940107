#include "remat/graph/LowerSets.hpp"

#include <bit>
#include <cstdint>
#include <vector>

namespace remat::graph {

NodeSet emptySet(const ComputeGraph& g) { return NodeSet(g.opCount()); }

NodeSet fullSet(const ComputeGraph& g) {
  NodeSet s(g.opCount());
  for (std::uint32_t i = 0; i < g.opCount(); ++i) s.insert(OpIndex{i});
  return s;
}

bool isLowerSet(const ComputeGraph& g, const NodeSet& s) {
  bool ok = true;
  s.forEach([&](OpIndex i) {
    for (NodeId p : g.opPredecessors(g.opNode(i)))
      if (!s.contains(g.opIndex(p))) ok = false;
  });
  return ok;
}

NodeSet ancestorClosure(const ComputeGraph& g, const NodeSet& s) {
  NodeSet out = s;
  // Ops are topologically ordered, so one descending sweep closes the set.
  for (std::uint32_t k = static_cast<std::uint32_t>(g.opCount()); k-- > 0;) {
    if (!out.contains(OpIndex{k})) continue;
    for (NodeId p : g.opPredecessors(g.opNode(OpIndex{k}))) out.insert(g.opIndex(p));
  }
  return out;
}

NodeSet ancestorClosure(const ComputeGraph& g, OpIndex v) {
  NodeSet s(g.opCount());
  s.insert(v);
  return ancestorClosure(g, s);
}

NodeSet boundary(const ComputeGraph& g, const NodeSet& l) {
  NodeSet out(g.opCount());
  l.forEach([&](OpIndex i) {
    for (NodeId w : g.successors(g.opNode(i)))
      if (!l.contains(g.opIndex(w))) {
        out.insert(i);
        break;
      }
  });
  return out;
}

NodeSet successorsOf(const ComputeGraph& g, const NodeSet& s) {
  NodeSet out(g.opCount());
  s.forEach([&](OpIndex i) {
    for (NodeId w : g.successors(g.opNode(i))) out.insert(g.opIndex(w));
  });
  return out;
}

NodeSet predecessorsOf(const ComputeGraph& g, const NodeSet& s) {
  NodeSet out(g.opCount());
  s.forEach([&](OpIndex i) {
    for (NodeId p : g.opPredecessors(g.opNode(i))) out.insert(g.opIndex(p));
  });
  return out;
}

Bytes bytesOf(const ComputeGraph& g, const NodeSet& s) {
  Bytes b{0};
  s.forEach([&](OpIndex i) { b += g.node(g.opNode(i)).bytes; });
  return b;
}

Ticks timeOf(const ComputeGraph& g, const NodeSet& s) {
  Ticks t{0};
  s.forEach([&](OpIndex i) { t += g.node(g.opNode(i)).fwdTime; });
  return t;
}

namespace {

// The operations that may join the current lower set (all predecessors in it, itself not), with the
// least one at or after an index found in O(log_64 n): a bit per operation, and above each level a bit
// per non-zero word of the level below. Scanning `missing` for the next candidate instead costs O(n)
// per backtrack, O(n^2) over a chain: three minutes for a 1,000,000-op chain.
class CandidateSet {
 public:
  explicit CandidateSet(std::uint32_t n) : m_size(n) {
    std::size_t words = n;
    do {
      words = (words + 63) / 64;
      m_levels.emplace_back(words, 0);
    } while (words > 1);
  }

  void insert(std::uint32_t i) {
    std::uint64_t pos = i;
    for (auto& level : m_levels) {
      std::uint64_t& word = level[pos >> 6];
      const bool wasEmpty = word == 0;
      word |= std::uint64_t{1} << (pos & 63);
      if (!wasEmpty) break;
      pos >>= 6;
    }
  }

  void erase(std::uint32_t i) {
    std::uint64_t pos = i;
    for (auto& level : m_levels) {
      std::uint64_t& word = level[pos >> 6];
      word &= ~(std::uint64_t{1} << (pos & 63));
      if (word != 0) break;
      pos >>= 6;
    }
  }

  /// The least member at or after i, or the set's size when there is none.
  [[nodiscard]] std::uint32_t nextFrom(std::uint32_t i) const {
    std::uint64_t pos = i;
    std::size_t level = 0;
    for (;; ++level) {
      if (level == m_levels.size() || (pos >> 6) >= m_levels[level].size()) return m_size;
      const std::uint64_t bits = m_levels[level][pos >> 6] & (~std::uint64_t{0} << (pos & 63));
      if (bits != 0) {
        pos = (pos & ~std::uint64_t{63}) | static_cast<std::uint64_t>(std::countr_zero(bits));
        break;
      }
      pos = (pos >> 6) + 1;  // the next word of this level, as a bit of the level above
    }
    for (; level > 0; --level)
      pos = (pos << 6) | static_cast<std::uint64_t>(std::countr_zero(m_levels[level - 1][pos]));
    return static_cast<std::uint32_t>(pos);
  }

 private:
  std::uint32_t m_size;
  std::vector<std::vector<std::uint64_t>> m_levels;
};

}  // namespace

std::optional<std::uint64_t> enumerateLowerSets(const ComputeGraph& g, std::uint64_t limit,
                                                const std::function<bool(const NodeSet&)>& visit) {
  // Listing a lower set's members in ascending topological index gives a sequence whose every prefix is
  // a lower set, so each lower set is reached exactly once by adding, in increasing index order, an
  // operation whose predecessors are all present. The search is an explicit-stack DFS over those
  // sequences (no recursion, so deep graphs cannot overflow the call stack).
  const auto n = static_cast<std::uint32_t>(g.opCount());
  std::vector<std::uint32_t> missing(n);
  CandidateSet ready(n);
  for (std::uint32_t v = 0; v < n; ++v) {
    missing[v] = static_cast<std::uint32_t>(g.opPredecessors(g.opNode(OpIndex{v})).size());
    if (missing[v] == 0) ready.insert(v);
  }

  NodeSet current(n);
  std::uint64_t count = 0;
  auto emit = [&]() -> bool {
    if (++count > limit) return false;
    return visit(current);
  };
  if (!emit()) return std::nullopt;

  // stack[d] = the next candidate index to try at depth d; path[d] = the op added at depth d.
  std::vector<std::uint32_t> next{0};
  std::vector<std::uint32_t> path;
  while (!next.empty()) {
    std::uint32_t& cand = next.back();
    cand = ready.nextFrom(cand);
    if (cand >= n) {
      next.pop_back();
      if (path.empty()) break;
      std::uint32_t v = path.back();
      path.pop_back();
      current.erase(OpIndex{v});
      for (NodeId w : g.successors(g.opNode(OpIndex{v})))
        if (missing[g.opIndex(w).value]++ == 0) ready.erase(g.opIndex(w).value);
      ready.insert(v);
      continue;
    }
    std::uint32_t v = cand++;
    path.push_back(v);
    current.insert(OpIndex{v});
    ready.erase(v);
    for (NodeId w : g.successors(g.opNode(OpIndex{v})))
      if (--missing[g.opIndex(w).value] == 0) ready.insert(g.opIndex(w).value);
    if (!emit()) return std::nullopt;
    next.push_back(v + 1);
  }
  return count;
}

std::optional<std::uint64_t> countLowerSets(const ComputeGraph& g, std::uint64_t limit) {
  return enumerateLowerSets(g, limit, [](const NodeSet&) { return true; });
}

}  // namespace remat::graph
