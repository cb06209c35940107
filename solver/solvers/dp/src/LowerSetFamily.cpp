#include "remat/solvers/LowerSetFamily.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <numeric>
#include <thread>

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

bool LowerSetFamily::useModel(const graph::ComputeGraph& g, DpModelKind kind, TimeLimit* stop) {
  if (kind == DpModelKind::Paper) {
    m_model.reset();
    m_terms.clear();
    m_sources.clear();
    return true;
  }
  auto model = std::make_shared<const SimulatedDpModel>(g);
  std::vector<TargetTerms> terms(size());
  std::vector<SourceTerms> sources(size());
  // A set's terms cost a pass over the graph (on the 10,000-op graph, 10,000 sets: half a second a
  // core), and the sets are independent: on every core, each charging and checking the limit per set.
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stopped{false};
  auto work = [&] {
    for (std::size_t i = next++; i < size(); i = next++) {
      if (stopped.load(std::memory_order_relaxed) || (stop != nullptr && stop->charge())) {
        stopped = true;
        return;
      }
      terms[i] = model->targetTerms(words(i));
      sources[i] = terms[i].source();
    }
  };
  {
    std::vector<std::jthread> helpers;
    const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
    for (unsigned w = 1; w < cores && w < size(); ++w) helpers.emplace_back(work);
    work();
  }
  if (stopped) return false;
  m_terms = std::move(terms);
  m_sources = std::move(sources);
  m_model = std::move(model);
  return true;
}

bool LowerSetFamily::usePins(const graph::ComputeGraph& g, const Pins& pins, TimeLimit* stop) {
  if (pins.empty()) {
    m_forbid.clear();
    m_forbidFrom.clear();
    return true;
  }
  const bool paper = !m_model;
  std::vector<std::uint32_t> forbid;
  std::vector<std::uint32_t> from{0};
  from.reserve(size() + 1);
  // By op: whether the canonical lowering's backward of a segment ending at the current set recomputes
  // it (sim::neededRecomputation), filled from the set's highest member down to a pinned op.
  std::vector<char> needed(g.opCount(), 0);
  auto savesInput = [&](graph::NodeId w, graph::NodeId u) {
    const graph::Node& n = g.node(w);
    for (std::uint32_t k : n.saves.inputs)
      if (n.inputs[k] == u) return true;
    return false;
  };
  for (std::size_t j = 0; j < size(); ++j) {
    if (j % 64 == 0 && stop != nullptr && stop->charge(64)) return false;
    const std::uint64_t* l = words(j);
    auto in = [&](std::uint32_t u) { return ((l[u >> 6] >> (u & 63)) & 1U) != 0; };
    auto onBoundary = [&](std::uint32_t u) {
      for (graph::NodeId w : g.successors(g.opNode(OpIndex{u})))
        if (!in(g.opIndex(w).value)) return true;
      return false;
    };
    const bool last = isUniverse(j);
    // A checkpoint of its segment: on ∂(L_j) (V has none).
    for (OpIndex op : pins.recompute)
      if (in(op.value) && onBoundary(op.value)) forbid.push_back(op.value);
    std::size_t top = 0;
    for (std::size_t k = m_words; k-- > 0;)
      if (l[k]) {
        top = k * 64 + 63 - static_cast<std::size_t>(std::countl_zero(l[k]));
        break;
      }
    for (OpIndex op : pins.keep) {
      if (!in(op.value) || onBoundary(op.value)) continue;
      // The paper's lowering recomputes every segment member off ∂(L_j), the last segment's too; the
      // canonical one, in segments before the last, those a later step of the backward reads: kept by
      // some backward (its own output, or a consumer's saved input), or an input of a needed value.
      if (paper) {
        forbid.push_back(op.value);
        continue;
      }
      if (last) continue;
      for (std::size_t x = top + 1; x-- > op.value;) {
        const auto u = static_cast<std::uint32_t>(x);
        needed[x] = 0;
        if (!in(u) || onBoundary(u)) continue;
        const graph::NodeId node = g.opNode(OpIndex{u});
        bool read = g.node(node).saves.output;
        for (graph::NodeId w : g.successors(node))
          if (needed[g.opIndex(w).value] || savesInput(w, node)) {
            read = true;
            break;
          }
        needed[x] = read ? 1 : 0;
      }
      if (needed[op.value]) forbid.push_back(op.value);
    }
    from.push_back(static_cast<std::uint32_t>(forbid.size()));
  }
  m_forbid = std::move(forbid);
  m_forbidFrom = std::move(from);
  return true;
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
                                                           TimeLimit* stop) {
  // Count first (no storage), so that a graph far over the limit costs no memory.
  bool stopped = false;
  std::uint64_t seen = 0;
  auto total = graph::enumerateLowerSets(g, limit, [&](const NodeSet&) {
    if ((++seen & 1023) == 0 && stop != nullptr && stop->charge(1024)) stopped = true;
    return !stopped;
  });
  if (!total || stopped) return std::nullopt;
  LowerSetFamily f;
  f.m_bits.reserve(static_cast<std::size_t>(*total) * ((g.opCount() + 63) / 64));
  auto count = graph::enumerateLowerSets(g, limit, [&](const NodeSet& s) {
    if (f.size() > 0 && (f.size() & 1023) == 0 && stop != nullptr && stop->charge(1024)) {
      stopped = true;
      return false;
    }
    f.add(g, s);
    return true;
  });
  if (!count || stopped) return std::nullopt;
  f.sortBySize();
  f.buildIndex(g);
  return f;
}

void LowerSetFamily::buildIndex(const graph::ComputeGraph& g) {
  const std::size_t n = size();
  const std::size_t w = maskWords();
  m_members.assign(m_universe * w, 0);
  m_maximal.clear();
  m_outside.clear();
  m_maximalFrom.assign(1, 0);
  m_outsideFrom.assign(1, 0);
  auto has = [](const std::uint64_t* s, std::uint32_t u) { return (s[u >> 6] >> (u & 63)) & 1U; };
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint64_t* s = words(k);
    for (std::uint32_t u = 0; u < m_universe; ++u) {
      const graph::NodeId node = g.opNode(OpIndex{u});
      if (has(s, u)) {
        m_members[u * w + k / 64] |= std::uint64_t{1} << (k % 64);
        bool maximal = true;
        for (graph::NodeId v : g.successors(node))
          if (g.isOp(v) && has(s, g.opIndex(v).value)) {
            maximal = false;
            break;
          }
        if (maximal) m_maximal.push_back(u);
      } else {
        bool minimal = true;
        for (graph::NodeId v : g.opPredecessors(node))
          if (!has(s, g.opIndex(v).value)) {
            minimal = false;
            break;
          }
        if (minimal) m_outside.push_back(u);
      }
    }
    m_maximalFrom.push_back(static_cast<std::uint32_t>(m_maximal.size()));
    m_outsideFrom.push_back(static_cast<std::uint32_t>(m_outside.size()));
  }
}

void LowerSetFamily::supersets(std::size_t i, std::uint64_t* out) const {
  const std::size_t n = size();
  const std::size_t w = maskWords();
  std::fill_n(out, w, 0);
  if (m_members.empty()) {
    for (std::size_t j = i; j < n; ++j)
      if (subset(i, j)) out[j / 64] |= std::uint64_t{1} << (j % 64);
    return;
  }
  std::fill_n(out, w, ~std::uint64_t{0});
  for (std::uint32_t k = m_maximalFrom[i]; k < m_maximalFrom[i + 1]; ++k) {
    const std::uint64_t* column = m_members.data() + std::size_t{m_maximal[k]} * w;
    for (std::size_t x = 0; x < w; ++x) out[x] &= column[x];
  }
  if (n % 64) out[w - 1] &= (std::uint64_t{1} << (n % 64)) - 1;
}

std::size_t LowerSetFamily::subsetPrefix(std::size_t i) const {
  if (isUniverse(i)) return size();
  // A set k not inside L_i holds an op outside it, and (being a lower set) a minimal one u of V \ L_i,
  // and so the closure of u: it comes no earlier than the first set holding u.
  if (m_members.empty()) {
    // Closures: the k-th set is its generator's closure, so the first k whose generator L_i lacks (V,
    // when it is no op's closure, is last and inside no other set).
    const std::uint64_t* in = words(i);
    for (std::size_t k = 1; k < size(); ++k) {
      const std::uint32_t u = m_generator[k];
      if (u == kNoGenerator || !((in[u >> 6] >> (u & 63)) & 1U)) return k;
    }
    return size();
  }
  const std::size_t w = maskWords();
  std::size_t least = size();
  for (std::uint32_t k = m_outsideFrom[i]; k < m_outsideFrom[i + 1]; ++k) {
    const std::uint64_t* column = m_members.data() + std::size_t{m_outside[k]} * w;
    for (std::size_t x = 0; x < w && x * 64 < least; ++x)
      if (column[x]) {
        least = std::min(least, x * 64 + static_cast<std::size_t>(std::countr_zero(column[x])));
        break;
      }
  }
  return least;
}

void LowerSetFamily::subsets(std::size_t j, std::uint64_t* out) const {
  const std::size_t n = size();
  const std::size_t w = maskWords();
  std::fill_n(out, w, 0);
  if (m_members.empty()) {
    for (std::size_t i = 0; i <= j; ++i)
      if (subset(i, j)) out[i / 64] |= std::uint64_t{1} << (i % 64);
    return;
  }
  for (std::uint32_t k = m_outsideFrom[j]; k < m_outsideFrom[j + 1]; ++k) {
    const std::uint64_t* column = m_members.data() + std::size_t{m_outside[k]} * w;
    for (std::size_t x = 0; x < w; ++x) out[x] |= column[x];
  }
  for (std::size_t x = 0; x < w; ++x) out[x] = ~out[x];
  if (n % 64) out[w - 1] &= (std::uint64_t{1} << (n % 64)) - 1;
}

LowerSetFamily LowerSetFamily::ancestorClosures(const graph::ComputeGraph& g) { return *ancestorClosures(g, nullptr); }

std::optional<LowerSetFamily> LowerSetFamily::ancestorClosures(const graph::ComputeGraph& g, TimeLimit* stop) {
  // Distinct ops have distinct closures (v is the only maximal element of its own), so no duplicates.
  LowerSetFamily f;
  f.add(g, graph::emptySet(g));
  bool haveAll = false;
  for (std::uint32_t v = 0; v < g.opCount(); ++v) {
    if (stop != nullptr && stop->charge()) return std::nullopt;
    NodeSet closure = graph::ancestorClosure(g, OpIndex{v});
    haveAll |= closure.count() == g.opCount();
    f.add(g, closure, v);
  }
  if (!haveAll) f.add(g, graph::fullSet(g));  // several outputs: V is no single op's closure
  f.sortBySize();
  return f;
}

}  // namespace remat::solvers
