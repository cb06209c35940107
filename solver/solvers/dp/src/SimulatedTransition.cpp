// The exact cost of one transition in the simulator's model (SimulatedDpModel::transition, its
// segment ceilings and the chain evaluation): a walk over the segment's steps, where the quick bounds of
// SimulatedDpModel.cpp do not decide.

#include "remat/solvers/SimulatedDpModel.hpp"

#include <algorithm>
#include <bit>
#include <span>
#include <unordered_map>

#include "remat/graph/LowerSets.hpp"
#include "remat/sim/CanonicalSchedule.hpp"
#include "remat/sim/Simulator.hpp"

#include "SegmentFlags.hpp"

namespace remat::solvers {

using dp_detail::kGrad;
using dp_detail::kHeld;
using dp_detail::kKept;
using dp_detail::kNeeded;

void SimulatedDpModel::segmentCeilingTerms(const std::uint64_t* next, SegmentCeilingTerms& c) const {
  // Every step of a segment S = next \ prev is bounded by what the same step counts if every member
  // of next were in S: a value of S has all its consumers in next (or is kept), and none in prev, so
  // whether it is kept, recomputed or read, and by which steps, does not depend on prev. The members
  // of prev only add terms (storages and gradients no step of S holds), so the bound stays above.
  std::size_t top = 0;
  for (std::size_t k = m_words; k-- > 0;)
    if (next[k]) {
      top = k * 64 + 63 - static_cast<std::size_t>(std::countl_zero(next[k]));
      break;
    }
  const std::size_t n = top + 1;
  constexpr std::uint8_t kIn = 16;
  constexpr std::uint8_t kKeptByView = 32;
  c.flags.assign(n, 0);
  c.end.assign(n, -1);
  c.forward.assign(n + 1, 0);  // first as difference arrays over op indices, then prefix sums
  c.backward.assign(n + 1, 0);
  c.recompute.assign(n + 1, 0);
  auto span = [&](std::vector<std::int64_t>& d, std::size_t from, std::size_t to, std::int64_t bytes) {
    d[from] += bytes;
    d[to + 1] -= bytes;
  };
  for (std::uint32_t u = 0; u < n; ++u) {
    if (!inSet(next, u)) continue;
    c.flags[u] |= kIn;
    for (std::uint32_t k = m_succs[u].begin; k < m_succs[u].end; ++k)
      if (!inSet(next, m_adj[k])) {
        c.flags[u] |= kKept;
        break;
      }
    const std::int32_t r = m_root[u];
    if (r < 0) continue;
    if (c.flags[u] & kKept) c.flags[static_cast<std::size_t>(r)] |= kHeld;
    // The forward step its storage is last read at: its highest consumer, or its own.
    const std::uint32_t readBy = m_succs[u].end > m_succs[u].begin ? m_adj[m_succs[u].end - 1] : u;
    c.end[static_cast<std::size_t>(r)] =
        std::max(c.end[static_cast<std::size_t>(r)], static_cast<std::int32_t>(readBy));
  }
  // Forward: a storage no kept value holds lives from its maker to its last reader (a held one is
  // among the checkpoints the transition adds, counted whole).
  for (std::uint32_t r = 0; r < n; ++r)
    if ((c.flags[r] & kIn) && m_root[r] == static_cast<std::int32_t>(r) && !(c.flags[r] & kHeld))
      span(c.forward, r, static_cast<std::size_t>(c.end[r]), m_bytes[r]);
  // Backward steps: a gradient of a value not on ∂(next) lives from the backward of its highest
  // consumer (its own, for an output's seed) to its own; the parameter gradients that no op beyond
  // next makes, from the backward of their highest user on.
  for (std::uint32_t u = 0; u < n; ++u) {
    if (!(c.flags[u] & kIn) || (c.flags[u] & kKept)) continue;
    const std::size_t to = m_succs[u].end > m_succs[u].begin ? m_adj[m_succs[u].end - 1] : u;
    span(c.backward, u, to, m_gradBytes[u]);
  }
  for (std::uint32_t q = 0; q < m_paramBytes.size(); ++q) {
    std::uint32_t highest = 0;
    bool outside = false;
    for (std::uint32_t k = m_paramUsers[q].begin; k < m_paramUsers[q].end && !outside; ++k) {
      outside = !inSet(next, m_adj[k]);
      highest = std::max(highest, m_adj[k]);
    }
    if (!outside) span(c.backward, 0, highest, m_paramBytes[q]);
  }
  // Recomputation steps: what the segment's backward recomputes (a value off ∂(next) that some
  // backward keeps, or that a recomputed value is computed from), and the step each is last read at
  // by another recomputation (c.end, reused: the forward's ends are spent).
  for (std::uint32_t u = static_cast<std::uint32_t>(n); u-- > 0;) {
    if (!(c.flags[u] & kIn) || (c.flags[u] & kKept)) continue;
    bool needed = m_savedByAny[u] != 0;
    std::uint32_t readBy = u;
    for (std::uint32_t k = m_succs[u].begin; k < m_succs[u].end; ++k)
      if (c.flags[m_adj[k]] & kNeeded) {
        needed = true;
        readBy = m_adj[k];
      }
    if (!needed) continue;
    c.flags[u] |= kNeeded;
    c.end[u] = static_cast<std::int32_t>(readBy);
  }
  // The storage a recomputed value holds (a view, its base's; none when the base is kept or resident),
  // read until the last read of any holder. One that a backward keeps through its own value is among
  // the `saved` bytes; through a view only, it is held from the segment's lowest member on (c.viewKept,
  // by the storage's op, summed from the top); else it lives from its recomputation to its last read.
  c.store.assign(n, -1);
  c.viewKept.assign(n + 1, 0);
  for (std::uint32_t u = 0; u < n; ++u) {
    if (!(c.flags[u] & kNeeded)) continue;
    std::int32_t st = static_cast<std::int32_t>(u);
    if (m_isView[u]) {
      const std::int32_t b = m_viewBase[u];
      st = b < 0 || !(c.flags[static_cast<std::size_t>(b)] & kNeeded) ? -1 : c.store[static_cast<std::size_t>(b)];
    }
    c.store[u] = st;
    if (st < 0 || st == static_cast<std::int32_t>(u)) continue;
    c.end[static_cast<std::size_t>(st)] = std::max(c.end[static_cast<std::size_t>(st)], c.end[u]);
    if (m_savedByAny[u]) c.flags[static_cast<std::size_t>(st)] |= kKeptByView;
  }
  for (std::uint32_t r = 0; r < n; ++r) {
    if (!(c.flags[r] & kNeeded) || c.store[r] != static_cast<std::int32_t>(r) || m_savedByAny[r]) continue;
    if (c.flags[r] & kKeptByView)
      c.viewKept[r] += m_bytes[r];
    else
      span(c.recompute, r, static_cast<std::size_t>(c.end[r]), m_bytes[r]);
  }
  for (std::size_t p = n; p-- > 0;) c.viewKept[p] += c.viewKept[p + 1];
  std::int64_t alive = 0;
  std::int64_t grads = 0;
  std::int64_t recomputed = 0;
  for (std::size_t p = 0; p < n; ++p) {
    alive += c.forward[p];
    grads += c.backward[p];
    recomputed += c.recompute[p];
    if (!(c.flags[p] & kIn)) {
      c.forward[p] = c.backward[p] = INT64_MIN;
      continue;
    }
    c.forward[p] = alive + m_workspace[p];
    c.backward[p] = grads + m_bwdWorkspace[p];
    if (c.flags[p] & kNeeded) c.backward[p] = std::max(c.backward[p], recomputed + m_workspace[p]);
  }
  c.forward[n] = c.backward[n] = INT64_MIN;
  for (std::size_t p = n; p-- > 0;) {
    c.forward[p] = std::max(c.forward[p], c.forward[p + 1]);
    c.backward[p] = std::max(c.backward[p], c.backward[p + 1]);
  }
}

std::int64_t SimulatedDpModel::segmentCeiling(const std::uint64_t* prev, const std::uint64_t* next,
                                              const Transition& quick, std::int64_t saved, const TargetTerms& terms,
                                              const SegmentCeilingTerms& c) const {
  std::size_t a = 0;  // the segment's lowest member
  for (std::size_t k = 0; k < m_words; ++k)
    if (const std::uint64_t bits = next[k] & ~prev[k]) {
      a = k * 64 + static_cast<std::size_t>(std::countr_zero(bits));
      break;
    }
  // The values a backward keeps that are checkpoints of this step hold storages among dm already.
  std::int64_t recomputedSaved = saved;
  for (const auto& entry : terms.boundary)
    if ((entry.flags & TargetTerms::kSavedWithin) && !inSet(prev, entry.op)) recomputedSaved -= entry.bytes;
  // Forward: the checkpoints it adds, held throughout, and the worst step's other storages. Its
  // recomputation and backward: also every recomputed value a backward keeps and the gradients held
  // from the start, with the worst step's gradients, parameter gradients and recomputed values no
  // backward keeps.
  const std::int64_t forward = quick.dm + c.forward[a];
  const std::int64_t backward =
      quick.dm + recomputedSaved + c.viewKept[a] + terms.boundaryGrads + terms.paramGradsOutside + c.backward[a];
  return m_resident + std::max(forward, backward);
}

Transition SimulatedDpModel::transition(const std::uint64_t* prev, const std::uint64_t* next, bool last,
                                        const TargetTerms& terms, Scratch& sc) const {
  if (sc.seen.size() != m_ops || sc.paramSeen.size() != m_paramBytes.size()) {
    sc.seen.assign(m_ops, 0);
    sc.pos.assign(m_ops, 0);
    sc.flags.assign(m_ops, 0);
    sc.mark.assign(m_ops, 0);
    sc.markValue.assign(m_ops, 0);
    sc.store.assign(m_ops, -1);
    sc.last.assign(2 * m_ops, -1);
    sc.paramSeen.assign(m_paramBytes.size(), 0);
    sc.stamp = 0;
  }
  if (++sc.stamp == 0) {  // the stamps wrapped: forget every old one
    std::fill(sc.seen.begin(), sc.seen.end(), 0);
    std::fill(sc.mark.begin(), sc.mark.end(), 0);
    std::fill(sc.paramSeen.begin(), sc.paramSeen.end(), 0);
    sc.stamp = 1;
  }
  const std::uint32_t st = sc.stamp;
  auto& members = sc.members;
  members.clear();
  for (std::size_t k = 0; k < m_words; ++k) {
    std::uint64_t bits = next[k] & ~prev[k];
    while (bits) {
      const auto u = static_cast<std::uint32_t>(k * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
      bits &= bits - 1;
      sc.seen[u] = st;
      sc.pos[u] = static_cast<std::uint32_t>(members.size());
      sc.flags[u] = 0;
      sc.last[2 * std::size_t{u}] = sc.last[2 * std::size_t{u} + 1] = -1;
      members.push_back(u);
    }
  }
  const auto n = static_cast<std::int32_t>(members.size());
  auto inS = [&](std::uint32_t u) { return sc.seen[u] == st; };
  auto adj = [&](const Range& r) { return std::span<const std::uint32_t>(m_adj.data() + r.begin, r.end - r.begin); };
  Transition out;

  // Kept from the forward: a checkpoint has a consumer beyond `next`; the last segment keeps what its
  // own backward reads.
  for (std::uint32_t u : members) {
    bool kept = false;
    if (last) {
      kept = m_savedByAny[u] != 0;
    } else {
      for (std::uint32_t s : adj(m_succs[u]))
        if (!inSet(next, s)) {
          kept = true;
          break;
        }
    }
    if (kept) sc.flags[u] |= kKept;
  }

  // Forward phase: a storage lives from its maker's step to the last step any holder is read (a kept
  // holder: to the end of the segment). Consumers of a value that is not kept are all in the segment.
  std::vector<std::int64_t>& diff = sc.diff;
  diff.assign(static_cast<std::size_t>(n) + 1, 0);
  for (std::int32_t p = 0; p < n; ++p) {
    const std::uint32_t h = members[static_cast<std::size_t>(p)];
    const std::int32_t r = m_root[h];
    if (r < 0 || !inS(static_cast<std::uint32_t>(r))) continue;  // resident, or counted in m
    std::int32_t end = p;
    if (sc.flags[h] & kKept) {
      end = n - 1;
      sc.flags[static_cast<std::size_t>(r)] |= kHeld;
    } else if (m_succs[h].end > m_succs[h].begin) {
      end = static_cast<std::int32_t>(sc.pos[m_adj[m_succs[h].end - 1]]);  // the highest consumer
    }
    std::int32_t& rootEnd = sc.last[2 * static_cast<std::size_t>(r)];
    rootEnd = std::max(rootEnd, end);
  }
  for (std::int32_t p = 0; p < n; ++p) {
    const std::uint32_t r = members[static_cast<std::size_t>(p)];
    if (m_root[r] != static_cast<std::int32_t>(r)) continue;
    diff[static_cast<std::size_t>(p)] += m_bytes[r];
    diff[static_cast<std::size_t>(sc.last[2 * std::size_t{r}]) + 1] -= m_bytes[r];
    if (!last && (sc.flags[r] & kHeld)) out.dm += m_bytes[r];
  }
  std::int64_t peak = 0;
  std::int64_t alive = 0;
  for (std::int32_t p = 0; p < n; ++p) {
    alive += diff[static_cast<std::size_t>(p)];
    peak = std::max(peak, alive + m_workspace[members[static_cast<std::size_t>(p)]]);
  }

  // Backward phase. What the segment's backward recomputes (none in the last segment): values outside
  // the checkpoints that a backward of the segment keeps, or that a recomputed value is computed from.
  auto& recompute = sc.recompute;
  recompute.clear();
  if (!last) {
    for (std::int32_t p = n - 1; p >= 0; --p) {
      const std::uint32_t w = members[static_cast<std::size_t>(p)];
      for (std::uint32_t u : adj(m_saved[w]))
        if (inS(u) && !(sc.flags[u] & kKept)) sc.flags[u] |= kNeeded;
      if (!(sc.flags[w] & kNeeded)) continue;
      for (std::uint32_t u : adj(m_preds[w]))
        if (inS(u) && !(sc.flags[u] & kKept)) sc.flags[u] |= kNeeded;
    }
    for (std::uint32_t u : members)
      if (sc.flags[u] & kNeeded) {
        recompute.push_back(u);
        out.dt += m_time[u];
      }
  }
  // The storage each value holds in the backward phase, as index into sc.last: 2r for the forward
  // storage of root r (kept values), 2h + 1 for the one recomputed value h makes; -1 for none of the
  // segment's (resident, or counted in m). Then the last step each storage is read at: recomputations
  // are steps 0..|R|-1, the backward of members[p] step |R| + n - 1 - p.
  for (std::uint32_t u : members) {
    std::int32_t s = -1;
    if (sc.flags[u] & kKept) {
      const std::int32_t r = m_root[u];
      if (r >= 0 && inS(static_cast<std::uint32_t>(r))) s = 2 * r;
    } else if (sc.flags[u] & kNeeded) {
      if (!m_isView[u]) {
        s = 2 * static_cast<std::int32_t>(u) + 1;
      } else {
        const std::int32_t b = m_viewBase[u];
        if (b >= 0 && inS(static_cast<std::uint32_t>(b))) s = sc.store[static_cast<std::size_t>(b)];
      }
    }
    sc.store[u] = s;
  }
  auto use = [&](std::uint32_t u, std::int32_t t) {
    if (!inS(u)) return;
    const std::int32_t s = sc.store[u];
    if (s >= 0) sc.last[static_cast<std::size_t>(s)] = std::max(sc.last[static_cast<std::size_t>(s)], t);
  };
  // sc.last[2r] held the forward phase's ends; the backward phase starts afresh.
  for (std::uint32_t u : members) sc.last[2 * std::size_t{u}] = -1;
  const auto nr = static_cast<std::int32_t>(recompute.size());
  for (std::int32_t t = 0; t < nr; ++t) {
    const std::uint32_t c = recompute[static_cast<std::size_t>(t)];
    use(c, t);
    for (std::uint32_t u : adj(m_preds[c])) use(u, t);
  }
  for (std::int32_t p = n - 1; p >= 0; --p) {
    const std::int32_t t = nr + n - 1 - p;
    for (std::uint32_t u : adj(m_saved[members[static_cast<std::size_t>(p)]])) use(u, t);
  }
  const std::int32_t steps = nr + n;
  diff.assign(static_cast<std::size_t>(steps) + 1, 0);
  for (std::uint32_t r : members) {
    const std::int32_t kept = sc.last[2 * std::size_t{r}];
    if (kept >= 0) {  // a checkpoint's storage, in memory since the forward
      diff[0] += m_bytes[r];
      diff[static_cast<std::size_t>(kept) + 1] -= m_bytes[r];
    }
  }
  for (std::int32_t t = 0; t < nr; ++t) {
    const std::uint32_t c = recompute[static_cast<std::size_t>(t)];
    if (m_isView[c]) continue;
    diff[static_cast<std::size_t>(t)] += m_bytes[c];
    diff[static_cast<std::size_t>(sc.last[2 * c + 1]) + 1] -= m_bytes[c];
  }
  // Gradients: those of ∂(next) and the parameter gradients of V \ next are in memory from the start.
  for (std::uint32_t u : members)
    if (!last && (sc.flags[u] & kKept)) sc.flags[u] |= kGrad;
  std::int64_t grads = terms.boundaryGrads;
  std::int64_t paramGrads = terms.paramGradsOutside;
  auto gradPresent = [&](std::uint32_t u) -> bool {
    if (inS(u)) return sc.flags[u] & kGrad;
    if (sc.mark[u] != st) {  // a member of prev: in memory when a consumer beyond next made it
      sc.mark[u] = st;
      sc.markValue[u] = 0;
      for (std::uint32_t s : adj(m_succs[u]))
        if (!inSet(next, s)) {
          sc.markValue[u] = 1;
          break;
        }
    }
    return sc.markValue[u] != 0;
  };
  auto setGrad = [&](std::uint32_t u) {
    if (inS(u))
      sc.flags[u] |= kGrad;
    else
      sc.markValue[u] = 1;
  };
  alive = 0;
  for (std::int32_t t = 0; t < steps; ++t) {
    alive += diff[static_cast<std::size_t>(t)];
    if (t < nr) {
      peak = std::max(peak, grads + paramGrads + alive + m_workspace[recompute[static_cast<std::size_t>(t)]]);
      continue;
    }
    const std::uint32_t w = members[static_cast<std::size_t>(n - 1 - (t - nr))];
    if (m_succs[w].end == m_succs[w].begin) grads += m_gradBytes[w];  // an output's seed
    for (std::uint32_t u : adj(m_preds[w]))
      if (!gradPresent(u)) {
        setGrad(u);
        grads += m_gradBytes[u];
      }
    for (std::uint32_t q : adj(m_params[w])) {
      if (sc.paramSeen[q] == st) continue;
      sc.paramSeen[q] = st;
      if (!usedOutside(q, next)) paramGrads += m_paramBytes[q];
    }
    peak = std::max(peak, grads + paramGrads + alive + m_bwdWorkspace[w]);
    grads -= m_gradBytes[w];  // freed after its own backward
  }
  out.base = m_resident + peak;
  return out;
}

Transition SimulatedDpModel::transition(const graph::NodeSet& prev, const graph::NodeSet& next) const {
  Scratch scratch;
  const bool last = next.count() == m_ops;
  return transition(prev.words().data(), next.words().data(), last, targetTerms(next.words().data()), scratch);
}

std::int64_t SimulatedDpModel::baseCeiling(const graph::NodeSet& prev, const graph::NodeSet& next) const {
  return baseCeiling(targetTerms(prev.words().data()), targetTerms(next.words().data()));
}

std::int64_t SimulatedDpModel::segmentCeiling(const graph::NodeSet& prev, const graph::NodeSet& next) const {
  const TargetTerms terms = targetTerms(next.words().data());
  std::int64_t saved = 0;
  const Transition quick =
      quickTransition(prev.words().data(), targetTerms(prev.words().data()).source(), false, terms, &saved);
  SegmentCeilingTerms shared;
  segmentCeilingTerms(next.words().data(), shared);
  return segmentCeiling(prev.words().data(), next.words().data(), quick, saved, terms, shared);
}

Transition SimulatedDpModel::quickTransition(const graph::NodeSet& prev, const graph::NodeSet& next) const {
  const bool last = next.count() == m_ops;
  return quickTransition(prev.words().data(), targetTerms(prev.words().data()).source(), last,
                         targetTerms(next.words().data()));
}

SimulatedChainCost evaluateSimulatedModel(const graph::ComputeGraph& g, const std::vector<graph::NodeSet>& lowerSets) {
  sim::checkLowerSetSequence(g, lowerSets);
  const SimulatedDpModel model(g);
  SimulatedChainCost cost;
  graph::NodeSet previous = graph::emptySet(g);
  for (std::size_t i = 0; i < lowerSets.size(); ++i) {
    const Transition t = model.transition(previous, lowerSets[i]);
    if (i == 0 || cost.checkpointBytes + t.base > cost.peak) {
      cost.peak = cost.checkpointBytes + t.base;
      cost.peakSegment = i;
    }
    cost.overhead += t.dt;
    cost.checkpointBytes += t.dm;
    previous = lowerSets[i];
  }
  return cost;
}

}  // namespace remat::solvers
