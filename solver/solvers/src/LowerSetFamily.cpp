#include "remat/solvers/LowerSetFamily.hpp"

#include <algorithm>
#include <numeric>

#include "remat/graph/LowerSets.hpp"

namespace remat::solvers {

using graph::NodeSet;
using graph::OpIndex;

Transition LowerSetFamily::paperTransition(std::size_t i, std::size_t j) const {
  // Only the boundary members of L_j that L_i already holds need a look, and ∂L_j is small.
  std::int64_t insideT = 0;
  std::int64_t insideM = 0;
  const std::uint64_t* prev = words(i);
  for (const auto& b : m_boundary[j])
    if ((prev[b.op >> 6] >> (b.op & 63)) & 1U) {
      insideT += b.time;
      insideM += b.bytes;
    }
  const std::int64_t segment = m_bytes[j] - m_bytes[i];
  std::int64_t base = 0;
  if (__builtin_add_overflow(segment, segment, &base) || __builtin_add_overflow(base, m_frontierBytes[j], &base))
    base = INT64_MAX;
  return {base, (m_time[j] - m_time[i]) - (m_boundaryTime[j] - insideT), m_boundaryBytes[j] - insideM};
}

Transition LowerSetFamily::simulatedTransition(std::size_t i, std::size_t j) const {
  // One scratch per thread: the DP evaluates transitions on every core.
  thread_local SimulatedDpModel::Scratch scratch;
  return m_model->transition(words(i), words(j), m_count[j] == m_universe, m_terms[j], scratch);
}

void LowerSetFamily::useModel(const graph::ComputeGraph& g, DpModelKind kind) {
  if (kind == DpModelKind::Paper) {
    m_model.reset();
    m_terms.clear();
    return;
  }
  auto model = std::make_shared<const SimulatedDpModel>(g);
  m_terms.resize(size());
  for (std::size_t i = 0; i < size(); ++i) m_terms[i] = model->targetTerms(words(i));
  m_model = std::move(model);
}

graph::NodeSet LowerSetFamily::set(std::size_t i) const {
  NodeSet s(static_cast<std::size_t>(m_count.empty() ? 0 : m_universe));
  for (std::size_t k = 0; k < m_words; ++k) {
    std::uint64_t w = words(i)[k];
    while (w) {
      s.insert(OpIndex{static_cast<std::uint32_t>(k * 64 + static_cast<std::size_t>(std::countr_zero(w)))});
      w &= w - 1;
    }
  }
  return s;
}

void LowerSetFamily::add(const graph::ComputeGraph& g, const NodeSet& s, std::uint32_t generator) {
  m_generator.push_back(generator);
  m_universe = g.opCount();
  m_words = s.words().size();
  m_bits.insert(m_bits.end(), s.words().begin(), s.words().end());
  m_count.push_back(static_cast<std::uint32_t>(s.count()));
  m_bytes.push_back(graph::bytesOf(g, s).value);
  m_time.push_back(graph::timeOf(g, s).value);
  const NodeSet border = graph::boundary(g, s);
  std::vector<BoundaryNode> nodes;
  border.forEach([&](OpIndex v) {
    const graph::Node& n = g.node(g.opNode(v));
    nodes.push_back({v.value, n.bytes.value, n.fwdTime.value});
  });
  m_boundaryBytes.push_back(graph::bytesOf(g, border).value);
  m_boundaryTime.push_back(graph::timeOf(g, border).value);
  m_boundary.push_back(std::move(nodes));
  const NodeSet after = graph::successorsOf(g, s) - s;
  const NodeSet otherInputs = graph::predecessorsOf(g, after) - s;
  m_frontierBytes.push_back(graph::bytesOf(g, after).value + graph::bytesOf(g, otherInputs).value);
}

void LowerSetFamily::sortBySize() {
  std::vector<std::size_t> order(m_count.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return m_count[a] < m_count[b]; });
  auto permute = [&order](auto& v) {
    auto copy = v;
    for (std::size_t k = 0; k < order.size(); ++k) v[k] = std::move(copy[order[k]]);
  };
  std::vector<std::uint64_t> bits(m_bits.size());
  for (std::size_t k = 0; k < order.size(); ++k)
    std::copy_n(m_bits.begin() + static_cast<std::ptrdiff_t>(order[k] * m_words), m_words,
                bits.begin() + static_cast<std::ptrdiff_t>(k * m_words));
  m_bits = std::move(bits);
  permute(m_count);
  permute(m_generator);
  permute(m_bytes);
  permute(m_time);
  permute(m_boundaryBytes);
  permute(m_boundaryTime);
  permute(m_frontierBytes);
  permute(m_boundary);
}

std::optional<LowerSetFamily> LowerSetFamily::allLowerSets(const graph::ComputeGraph& g, std::uint64_t limit,
                                                           std::stop_token stop) {
  // Count first (no storage), so that a graph far over the limit costs no memory.
  bool stopped = false;
  std::uint64_t seen = 0;
  auto total = graph::enumerateLowerSets(g, limit, [&](const NodeSet&) {
    if ((++seen & 0xFFFF) == 0 && stop.stop_requested()) stopped = true;
    return !stopped;
  });
  if (!total || stopped) return std::nullopt;
  LowerSetFamily f;
  f.m_bits.reserve(static_cast<std::size_t>(*total) * ((g.opCount() + 63) / 64));
  auto count = graph::enumerateLowerSets(g, limit, [&](const NodeSet& s) {
    if ((f.size() & 1023) == 0 && stop.stop_requested()) {
      stopped = true;
      return false;
    }
    f.add(g, s);
    return true;
  });
  if (!count || stopped) return std::nullopt;
  f.sortBySize();
  return f;
}

LowerSetFamily LowerSetFamily::ancestorClosures(const graph::ComputeGraph& g) {
  // Distinct ops have distinct closures (v is the only maximal element of its own), so no duplicates.
  LowerSetFamily f;
  f.add(g, graph::emptySet(g));
  bool haveAll = false;
  for (std::uint32_t v = 0; v < g.opCount(); ++v) {
    NodeSet closure = graph::ancestorClosure(g, OpIndex{v});
    haveAll |= closure.count() == g.opCount();
    f.add(g, closure, v);
  }
  if (!haveAll) f.add(g, graph::fullSet(g));  // several outputs: V is no single op's closure
  f.sortBySize();
  return f;
}

}  // namespace remat::solvers
