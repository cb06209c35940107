#include "remat/solvers/SimulatedDpModel.hpp"

#include <algorithm>
#include <bit>
#include <span>
#include <unordered_map>

#include "remat/graph/LowerSets.hpp"
#include "remat/sim/CanonicalSchedule.hpp"
#include "remat/sim/Simulator.hpp"

namespace remat::solvers {
namespace {

constexpr std::uint8_t kKept = 1;    // kept from the forward: a checkpoint, or read by the last backward
constexpr std::uint8_t kNeeded = 2;  // recomputed by the segment's backward
constexpr std::uint8_t kGrad = 4;    // its gradient is in memory
constexpr std::uint8_t kHeld = 8;    // a root whose forward storage a kept value holds

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
// function (target_clones), and the DP calls it from ParetoDp.cpp.
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

std::string_view dpModelName(DpModelKind m) { return m == DpModelKind::Paper ? "paper" : "simulator"; }

std::optional<DpModelKind> dpModelFromName(std::string_view name) {
  if (name == "simulator") return DpModelKind::Simulator;
  if (name == "paper") return DpModelKind::Paper;
  return std::nullopt;
}

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
      sc.last[2 * u] = sc.last[2 * u + 1] = -1;
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
    diff[static_cast<std::size_t>(sc.last[2 * r]) + 1] -= m_bytes[r];
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
  for (std::uint32_t u : members) sc.last[2 * u] = -1;
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
    const std::int32_t kept = sc.last[2 * r];
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
