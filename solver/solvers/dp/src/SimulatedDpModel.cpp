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

using dp_detail::kNeeded;

namespace {

// The number of set bits, without a call: a build for the baseline x86-64 has no popcnt instruction,
// and std::popcount then calls into libgcc on the DP's hottest path. Where the function using it is
// also built for processors that have the instruction (REMAT_POPCNT_CLONES), the compiler turns this
// arithmetic into that one instruction there.
inline std::size_t bitCount(std::uint64_t x) {
  x -= (x >> 1) & 0x5555555555555555ULL;
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
  return static_cast<std::size_t>((x * 0x0101010101010101ULL) >> 56);
}

// quickTransition runs once for every pair of sets of the bounds pass (121 million on cg_googlenet)
// and its cost is mostly bitCount: built as well for processors with popcnt (every x86-64 since
// 2008), chosen at load time, it took 15% off exact-dp's time there.
#if defined(__x86_64__) && defined(__ELF__)
#define REMAT_POPCNT_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define REMAT_POPCNT_CLONES
#endif

// Whether the op bitset s holds op.
inline bool holds(const std::uint64_t* s, std::uint32_t op) { return (s[op >> 6] >> (op & 63)) & 1U; }

// How many of terms.topOps, from the first, the set `prev` ⊆ L lacks: the highest top member that
// prev holds ends the run of those it lacks.
inline std::size_t topStepsLacked(const std::uint64_t* prev, const TargetTerms& terms) {
  for (const auto& g : terms.topGroups)
    if (const std::uint64_t held = prev[g.word] & g.bits) {
      const int highest = 63 - std::countl_zero(held);
      return g.first + bitCount(g.bits >> highest) - 1;  // the top members above it in this word
    }
  return terms.topOps.size();
}

// SimulatedDpModel::quickTransition, with the model's resident bytes. A free function, not the
// member itself: clang 14 miscompiles calls from other translation units to a multiversioned member
// function (target_clones), and the DP calls it from ParetoDp.cpp and ContinuationBounds.cpp.
REMAT_POPCNT_CLONES Transition quickFigures(const std::uint64_t* prev, const SourceTerms& prevTerms, bool last,
                                            const TargetTerms& terms, std::int64_t resident, std::int64_t* savedOut) {
  Transition out;
  // Values of the segment kept by one of its backwards, in memory at its first backward step: those
  // off ∂(next) are kept by some backward (all their consumers are in the segment), those on it when
  // kept by themselves or a consumer inside next. A member of ∂(next) that prev holds is no checkpoint
  // of this step, is not recomputed, and is in memory when some backward keeps it. The sums start from
  // a prev holding none of ∂(next); only the members it holds are visited (few: most sources are far).
  std::int64_t saved = terms.savedInsideBytes - prevTerms.savedBytes + terms.sums.saved;
  out.dm = terms.sums.dm;
  out.dt = terms.sums.dt;
  // Groups ascend by word: those from prevTerms.wordEnd on meet no op of prev.
  for (const auto& g : terms.boundaryGroups) {
    if (g.word >= prevTerms.wordEnd) break;
    for (std::uint64_t held = prev[g.word] & g.bits; held; held &= held - 1) {
      const std::uint64_t below = (held & -held) - 1;
      const auto& change = terms.held[g.first + bitCount(g.bits & below)];
      out.dm += change.dm;
      saved += change.saved;
      out.dt += change.dt;
    }
  }
  for (const auto& [root, bytes] : terms.viewRoots)
    if (holds(prev, root)) out.dm -= bytes;
  if (savedOut) *savedOut = saved;
  if (last) {
    out.dm = 0;  // ∂V is empty: nothing to keep
    out.dt = 0;
  } else {
    out.dt += terms.neededTime - prevTerms.neededTime;
    for (const auto& g : terms.exceptionGroups) {
      if (g.word >= prevTerms.wordEnd) break;
      for (std::uint64_t held = prev[g.word] & g.bits; held; held &= held - 1) {
        const std::uint64_t below = (held & -held) - 1;
        out.dt += terms.exceptions[g.first + bitCount(g.bits & below)].second;
      }
    }
  }
  // The first backward step is that of the segment's last member: the first of `next`'s last members
  // that `prev` lacks (when prev holds all of those listed, the step's own terms are left out).
  std::int64_t firstStep = terms.boundaryGrads + terms.paramGradsOutside + saved;
  if (const std::size_t open = topStepsLacked(prev, terms); open > 0) {
    firstStep += terms.topPeak[open - 1];
  } else {
    for (const auto& step : terms.firstSteps)
      if (!holds(prev, step.op)) {
        firstStep += step.extra;
        break;
      }
  }
  // At the segment's last backward step every gradient of ∂(prev) and every parameter gradient of
  // V \ prev is in memory.
  const std::int64_t lastStep = prevTerms.lastStep;
  out.base = resident + std::max({out.dm, firstStep, lastStep});
  return out;
}

}  // namespace

SimulatedDpModel::SimulatedDpModel(const graph::ComputeGraph& g) {
  m_ops = g.opCount();
  m_words = (m_ops + 63) / 64;
  m_resident = g.paramBytes().value + g.inputBytes().value;
  const sim::ViewInfo views = sim::viewInfo(g);
  const std::uint32_t first = g.firstOp();
  auto opOf = [&](graph::NodeId id) { return static_cast<std::int32_t>(id.value - first); };
  std::unordered_map<std::uint32_t, std::uint32_t> paramIndex;
  std::vector<std::vector<std::uint32_t>> users;
  auto range = [&](auto&& fill) {
    const auto begin = static_cast<std::uint32_t>(m_adj.size());
    fill();
    return Range{begin, static_cast<std::uint32_t>(m_adj.size())};
  };
  m_bytes.resize(m_ops);
  m_time.resize(m_ops);
  m_workspace.resize(m_ops);
  m_bwdWorkspace.resize(m_ops);
  m_gradBytes.resize(m_ops);
  m_root.resize(m_ops);
  m_viewBase.assign(m_ops, -1);
  m_isView.resize(m_ops);
  m_savedByAny.assign(m_ops, 0);
  for (std::uint32_t u = 0; u < m_ops; ++u) {
    const graph::NodeId id = g.opNode(graph::OpIndex{u});
    const graph::Node& node = g.node(id);
    m_bytes[u] = node.bytes.value;
    m_time[u] = node.fwdTime.value;
    m_workspace[u] = node.workspace.value;
    m_bwdWorkspace[u] = node.bwdWorkspace.value;
    m_maxWorkspace = std::max({m_maxWorkspace, m_workspace[u], m_bwdWorkspace[u]});
    m_gradBytes[u] = views.gradBytes[id.value].value;
    m_isView[u] = views.isView[id.value] ? 1 : 0;
    m_root[u] = static_cast<std::int32_t>(u);
    if (m_isView[u]) {
      const graph::NodeId base = node.inputs.front();
      m_viewBase[u] = g.isOp(base) ? opOf(base) : -1;
      m_root[u] = m_viewBase[u] < 0 ? -1 : m_root[static_cast<std::size_t>(m_viewBase[u])];
    }
    m_preds.push_back(range([&] {
      for (graph::NodeId p : g.opPredecessors(id)) m_adj.push_back(static_cast<std::uint32_t>(opOf(p)));
    }));
    m_succs.push_back(range([&] {
      for (graph::NodeId s : g.successors(id)) m_adj.push_back(static_cast<std::uint32_t>(opOf(s)));
    }));
    m_saved.push_back(range([&] {
      for (graph::NodeId s : sim::savedOpValues(g, id)) {
        m_adj.push_back(static_cast<std::uint32_t>(opOf(s)));
        m_savedByAny[static_cast<std::size_t>(opOf(s))] = 1;
      }
    }));
    m_params.push_back(range([&] {
      for (graph::NodeId p : sim::distinctParamInputs(g, id)) {
        auto [it, added] = paramIndex.try_emplace(p.value, static_cast<std::uint32_t>(m_paramBytes.size()));
        if (added) {
          m_paramBytes.push_back(g.node(p).bytes.value);
          users.emplace_back();
        }
        users[it->second].push_back(u);
        m_adj.push_back(it->second);
      }
    }));
  }
  for (const auto& list : users)
    m_paramUsers.push_back(range([&] { m_adj.insert(m_adj.end(), list.begin(), list.end()); }));
  // N∅: read by some backward, or an input of such a value's recomputation, when nothing is kept.
  m_neededAlone.assign(m_ops, 0);
  for (std::uint32_t u = static_cast<std::uint32_t>(m_ops); u-- > 0;) {
    bool needed = m_savedByAny[u] != 0;
    for (std::uint32_t k = m_succs[u].begin; k < m_succs[u].end && !needed; ++k) needed = m_neededAlone[m_adj[k]] != 0;
    m_neededAlone[u] = needed ? 1 : 0;
  }
}

TargetTerms SimulatedDpModel::targetTerms(const std::uint64_t* next) const {
  TargetTerms t;
  for (std::uint32_t q = 0; q < m_paramBytes.size(); ++q)
    if (usedOutside(q, next)) t.paramGradsOutside += m_paramBytes[q];
  std::vector<std::uint8_t> onBoundary(m_ops, 0);
  for (std::uint32_t u = 0; u < m_ops; ++u) {
    if (!inSet(next, u)) continue;
    for (std::uint32_t k = m_succs[u].begin; k < m_succs[u].end; ++k)
      if (!inSet(next, m_adj[k])) {
        onBoundary[u] = 1;
        break;
      }
    t.wordEnd = (u >> 6) + 1;
    t.valueBytes += m_bytes[u];
    t.gradTotal += m_gradBytes[u];
    if (m_neededAlone[u]) t.neededTime += m_time[u];
    if (m_savedByAny[u]) {
      t.savedBytes += m_bytes[u];
      if (!onBoundary[u]) t.savedInsideBytes += m_bytes[u];
    }
  }
  // Needed with ∂L kept: as N∅, but a consumer on ∂L is kept, not recomputed, and reads nothing.
  std::vector<std::uint8_t> needed(m_ops, 0);
  std::vector<std::int32_t> rootsSeen;
  for (std::uint32_t u = static_cast<std::uint32_t>(m_ops); u-- > 0;) {
    if (!inSet(next, u)) continue;
    if (onBoundary[u]) {
      t.boundaryGrads += m_gradBytes[u];
      std::uint8_t flags = 0;
      if (m_neededAlone[u]) flags |= TargetTerms::kNeededAlone;
      if (m_savedByAny[u]) flags |= TargetTerms::kSavedByAny;
      bool within = false;
      for (std::uint32_t k = m_saved[u].begin; k < m_saved[u].end; ++k) within |= m_adj[k] == u;
      for (std::uint32_t k = m_succs[u].begin; k < m_succs[u].end && !within; ++k) {
        const std::uint32_t c = m_adj[k];
        if (!inSet(next, c)) continue;
        for (std::uint32_t q = m_saved[c].begin; q < m_saved[c].end; ++q) within |= m_adj[q] == u;
      }
      if (within) flags |= TargetTerms::kSavedWithin;
      t.boundary.push_back({u, u, m_bytes[u], m_time[u], 0, flags});
      continue;
    }
    bool need = m_savedByAny[u] != 0;
    for (std::uint32_t k = m_succs[u].begin; k < m_succs[u].end && !need; ++k)
      need = !onBoundary[m_adj[k]] && needed[m_adj[k]];
    needed[u] = need ? 1 : 0;
    if (m_neededAlone[u] && !need) t.exceptions.emplace_back(u, m_time[u]);
  }
  std::reverse(t.boundary.begin(), t.boundary.end());
  // What the backward step of each of L's last members adds when it opens a segment's backward (see
  // quickTransition): the members of ∂L are exactly those `onBoundary` marks.
  for (std::uint32_t w = static_cast<std::uint32_t>(m_ops);
       w-- > 0 && t.firstSteps.size() < TargetTerms::kFirstSteps;) {
    if (!inSet(next, w)) continue;
    std::int64_t extra = m_bwdWorkspace[w];
    if (m_succs[w].end == m_succs[w].begin) extra += m_gradBytes[w];  // an output's seed
    for (std::uint32_t k = m_preds[w].begin; k < m_preds[w].end; ++k) {
      const std::uint32_t u = m_adj[k];
      bool repeated = false;  // an input read twice gets one gradient
      for (std::uint32_t q = m_preds[w].begin; q < k && !repeated; ++q) repeated = m_adj[q] == u;
      if (!repeated && !onBoundary[u]) extra += m_gradBytes[u];
    }
    for (std::uint32_t k = m_params[w].begin; k < m_params[w].end; ++k) {
      const std::uint32_t q = m_adj[k];
      if (!usedOutside(q, next)) extra += m_paramBytes[q];
    }
    t.firstSteps.push_back({w, extra});
  }
  topSteps(next, onBoundary, t);
  // The storages ∂L holds, each counted on its first holder (views share their base's).
  for (auto& b : t.boundary) {
    const std::int32_t root = m_root[b.op];
    if (root < 0 || std::find(rootsSeen.begin(), rootsSeen.end(), root) != rootsSeen.end()) continue;
    rootsSeen.push_back(root);
    b.rootOp = static_cast<std::uint32_t>(root);
    b.rootBytes = m_bytes[static_cast<std::size_t>(root)];
  }
  // quickTransition's sums for a source holding none of ∂L, and what holding each member changes.
  std::reverse(t.exceptions.begin(), t.exceptions.end());  // ascending, as the groups need
  auto groups = [](auto&& opAt, std::size_t count) {
    std::vector<TargetTerms::Group> out;
    for (std::size_t k = 0; k < count; ++k) {
      const std::uint32_t op = opAt(k);
      if (out.empty() || out.back().word != op >> 6) out.push_back({op >> 6, static_cast<std::uint32_t>(k), 0});
      out.back().bits |= std::uint64_t{1} << (op & 63);
    }
    return out;
  };
  for (const auto& b : t.boundary) {
    TargetTerms::Sums change;
    if (b.rootBytes != 0) {
      t.sums.dm += b.rootBytes;
      if (b.rootOp == b.op)
        change.dm = -b.rootBytes;  // its own storage, held with it
      else
        t.viewRoots.emplace_back(b.rootOp, b.rootBytes);
    }
    if (b.flags & TargetTerms::kSavedWithin) {
      t.sums.saved += b.bytes;
      change.saved -= b.bytes;
    }
    if (b.flags & TargetTerms::kSavedByAny) change.saved += b.bytes;
    if (b.flags & TargetTerms::kNeededAlone) {
      t.sums.dt -= b.time;
      change.dt = b.time;
    }
    t.held.push_back(change);
  }
  for (const auto& [op, time] : t.exceptions) t.sums.dt -= time;
  t.boundaryGroups = groups([&](std::size_t k) { return t.boundary[k].op; }, t.boundary.size());
  t.exceptionGroups = groups([&](std::size_t k) { return t.exceptions[k].first; }, t.exceptions.size());
  return t;
}

void SimulatedDpModel::topSteps(const std::uint64_t* next, const std::vector<std::uint8_t>& onBoundary,
                                TargetTerms& t) const {
  for (std::uint32_t w = static_cast<std::uint32_t>(m_ops); w-- > 0 && t.topOps.size() < TargetTerms::kTopSteps;)
    if (inSet(next, w)) t.topOps.push_back(w);
  const std::size_t steps = t.topOps.size();
  if (steps == 0) return;
  for (std::size_t k = 0; k < steps; ++k) {
    const std::uint32_t op = t.topOps[k];
    if (t.topGroups.empty() || t.topGroups.back().word != op >> 6)
      t.topGroups.push_back({op >> 6, static_cast<std::uint32_t>(k), 0});
    t.topGroups.back().bits |= std::uint64_t{1} << (op & 63);
  }
  std::unordered_map<std::uint32_t, std::size_t> step;  // top member -> its backward step (0 = first)
  for (std::size_t k = 0; k < steps; ++k) step.emplace(t.topOps[k], k);
  auto stepOf = [&](std::uint32_t op) {
    const auto it = step.find(op);
    return it == step.end() ? steps : it->second;  // steps: later than every top step
  };
  // A value the segment keeps for a backward is freed after its last reader's step. Every reader of a
  // value of the segment inside L is in the segment too, so that step does not depend on the source,
  // only whether the value is the segment's does; counting it as the segment's frees more, which
  // keeps the figure a lower bound.
  std::vector<std::int64_t> freedFrom(steps + 1, 0);  // bytes freed from step k on
  std::vector<std::uint32_t> done;
  for (std::uint32_t w : t.topOps)
    for (std::uint32_t k = m_saved[w].begin; k < m_saved[w].end; ++k) {
      const std::uint32_t u = m_adj[k];
      if (std::find(done.begin(), done.end(), u) != done.end()) continue;
      done.push_back(u);
      std::size_t last = 0;
      for (std::uint32_t q = m_saved[u].begin; q < m_saved[u].end; ++q)
        if (m_adj[q] == u) last = std::max(last, stepOf(u));
      for (std::uint32_t q = m_succs[u].begin; q < m_succs[u].end; ++q) {
        const std::uint32_t c = m_adj[q];
        if (!inSet(next, c)) continue;
        for (std::uint32_t r = m_saved[c].begin; r < m_saved[c].end; ++r)
          if (m_adj[r] == u) last = std::max(last, stepOf(c));
      }
      if (last + 1 < steps) freedFrom[last + 1] += m_bytes[u];
    }
  // Gradients: those of ∂L are counted already; a step makes its inputs' others (once each), an
  // output's seed, and its parameter gradients not made beyond L; it frees its own after it.
  std::vector<std::uint32_t> made;
  std::vector<std::uint32_t> params;
  std::int64_t held = 0;  // made and not yet freed, parameter gradients, minus values freed
  std::int64_t peak = INT64_MIN;
  for (std::size_t k = 0; k < steps; ++k) {
    const std::uint32_t w = t.topOps[k];
    held -= freedFrom[k];
    if (m_succs[w].end == m_succs[w].begin) held += m_gradBytes[w];
    for (std::uint32_t q = m_preds[w].begin; q < m_preds[w].end; ++q) {
      const std::uint32_t u = m_adj[q];
      if (onBoundary[u] || std::find(made.begin(), made.end(), u) != made.end()) continue;
      made.push_back(u);
      held += m_gradBytes[u];
    }
    for (std::uint32_t q = m_params[w].begin; q < m_params[w].end; ++q) {
      const std::uint32_t p = m_adj[q];
      if (usedOutside(p, next) || std::find(params.begin(), params.end(), p) != params.end()) continue;
      params.push_back(p);
      held += m_paramBytes[p];
    }
    peak = std::max(peak, held + m_bwdWorkspace[w]);
    t.topPeak.push_back(peak);
    held -= m_gradBytes[w];
  }
}

bool SimulatedDpModel::usedOutside(std::uint32_t param, const std::uint64_t* set) const {
  for (std::uint32_t k = m_paramUsers[param].begin; k < m_paramUsers[param].end; ++k)
    if (!inSet(set, m_adj[k])) return true;
  return false;
}

Transition SimulatedDpModel::quickTransition(const std::uint64_t* prev, const SourceTerms& prevTerms, bool last,
                                             const TargetTerms& terms, std::int64_t* savedOut) const {
  return quickFigures(prev, prevTerms, last, terms, m_resident, savedOut);
}

}  // namespace remat::solvers
