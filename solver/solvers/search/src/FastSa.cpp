#include "remat/solvers/FastSa.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include "remat/graph/ByteSize.hpp"
#include "remat/sim/CanonicalSchedule.hpp"
#include "remat/sim/Simulator.hpp"
#include "remat/solvers/Isolated.hpp"

namespace remat::solvers {

const SolverInfo& FastSa::info() const {
  static const SolverInfo kInfo{
      .id = "fastsa",
      .name = "FastSA: simulated annealing over recomputations",
      .citation =
          "Imanishi, Xu, Takagi, Wang, Castillo, \"A fast heuristic to optimize time-space tradeoff for large "
          "models\" (NeurIPS 2023)",
      .problemClass = "any DAG (heuristic, seeded)",
      .exact = false,
      .budgetMeasure = BudgetMeasure::Simulated,
      .pins = PinSupport::None,
      .scheduleClass = ScheduleClass::RecomputeAnywhere,
      .asGiven = true,
      .figureSlot = 10,
  };
  return kInfo;
}

namespace {

using graph::NodeId;
using sim::Schedule;
using sim::StepKind;

// An empty slot stands this far below every real memory figure, so the maximum is over occupied slots
// only (the simulator's steps).
constexpr std::int64_t kEmpty = std::int64_t{1} << 60;
constexpr std::int32_t kFree = -1;
constexpr std::int32_t kBackward = -2;  ///< kBackward - i: the backward of op i
// Slots before each step of the plain run.
constexpr std::uint32_t kSlots = 16;
constexpr std::size_t kMaxPositions = std::size_t{1} << 23;
// Inputs recomputed with a copy (a group), levels deep.
constexpr int kGroupDepth = 3;

// Range add, maximum over all leaves, bottom-up without recursion: each internal node keeps its own add
// (m_tag) and the maximum of its subtree with it; an add marks the O(log n) nodes that cover the range,
// then recomputes the maxima on the two paths from its ends to the root.
class MaxTree {
 public:
  explicit MaxTree(const std::vector<std::int64_t>& leaves) {
    while (m_size < leaves.size()) m_size <<= 1;
    m_max.assign(2 * m_size, -4 * kEmpty);
    m_tag.assign(m_size, 0);
    for (std::size_t i = 0; i < leaves.size(); ++i) m_max[m_size + i] = leaves[i];
    for (std::size_t i = m_size; i-- > 1;) m_max[i] = std::max(m_max[2 * i], m_max[2 * i + 1]);
  }
  // Adds delta to leaves l..r (inclusive).
  void add(std::size_t l, std::size_t r, std::int64_t delta) {
    std::size_t lo = l + m_size;
    std::size_t hi = r + m_size + 1;
    const std::size_t left = lo;
    const std::size_t right = hi - 1;
    for (; lo < hi; lo >>= 1, hi >>= 1) {
      if (lo & 1) mark(lo++, delta);
      if (hi & 1) mark(--hi, delta);
    }
    pull(left);
    pull(right);
  }
  [[nodiscard]] std::int64_t max() const { return m_max[1]; }

 private:
  void mark(std::size_t node, std::int64_t d) {
    m_max[node] += d;
    if (node < m_size) m_tag[node] += d;
  }
  void pull(std::size_t node) {
    for (node >>= 1; node >= 1; node >>= 1) m_max[node] = m_tag[node] + std::max(m_max[2 * node], m_max[2 * node + 1]);
  }
  std::size_t m_size = 1;
  std::vector<std::int64_t> m_max;
  std::vector<std::int64_t> m_tag;
};

// The annealer's state: where each op's copies are and which slots read each op's value.
class Annealer {
 public:
  // From `initial` (a legal schedule; its forwards and backwards in order, frees left to the model), or
  // from the plain run.
  Annealer(const graph::ComputeGraph& g, Bytes budget, std::uint64_t seed, const Schedule* initial)
      : m_g(g), m_rng(seed) {
    m_n = static_cast<std::uint32_t>(g.opCount());
    const Schedule plain = initial ? Schedule{} : sim::storeAllSchedule(g);
    std::vector<sim::Step> steps;
    for (const sim::Step& st : initial ? *initial : plain)
      if (st.kind == StepKind::Forward || st.kind == StepKind::Backward) steps.push_back(st);
    m_k = kSlots;
    while (m_k > 2 && steps.size() * m_k > kMaxPositions) m_k /= 2;
    m_positions = static_cast<std::uint32_t>(steps.size() * m_k);
    m_budget = budget.value;
    m_time.resize(m_n);
    m_bytes.resize(m_n);
    m_ws.resize(m_n);
    m_inputs.resize(m_n);
    m_bwdPos.assign(m_n, m_positions);  // a graph computed as given has no backwards
    m_copies.assign(m_n, {});
    m_reads.assign(m_n, {});
    m_multiAt.assign(m_n, -1);
    m_occ.assign(m_positions, kFree);
    double timeSum = 0;
    double byteSum = 0;
    std::uint32_t timed = 0;
    std::uint32_t sized = 0;
    for (std::uint32_t i = 0; i < m_n; ++i) {
      const graph::Node& node = g.node(g.opNode(graph::OpIndex{i}));
      m_time[i] = node.fwdTime.value;
      m_bytes[i] = node.bytes.value;
      m_ws[i] = node.workspace.value;
      for (NodeId u : g.opPredecessors(g.opNode(graph::OpIndex{i}))) m_inputs[i].push_back(g.opIndex(u).value);
      if (m_time[i] > 0) timeSum += static_cast<double>(m_time[i]), ++timed;
      if (m_bytes[i] > 0) byteSum += static_cast<double>(m_bytes[i]), ++sized;
      m_plainTime += m_time[i];
    }
    m_meanTime = timed ? timeSum / timed : 1.0;
    m_meanBytes = sized ? byteSum / sized : 1.0;
    // A view's value shares its base's storage (sim::ViewInfo): a read of the view keeps the base's
    // storage too, so it counts as a read of the op at the bottom of the chain of views.
    const sim::ViewInfo views = sim::viewInfo(g);
    std::vector<std::int64_t> root(m_n, -1);
    for (std::uint32_t i = 0; i < m_n; ++i) {
      const NodeId v = g.opNode(graph::OpIndex{i});
      if (!views.isView[v.value]) continue;
      const NodeId base = g.node(v).inputs.front();
      if (!g.isOp(base)) continue;
      const std::uint32_t b = g.opIndex(base).value;
      root[i] = root[b] >= 0 ? root[b] : b;
    }
    auto targetsOf = [&](const std::vector<std::uint32_t>& read) {
      std::vector<std::uint32_t> out = read;
      for (std::uint32_t u : read)
        if (root[u] >= 0) out.push_back(static_cast<std::uint32_t>(root[u]));
      std::sort(out.begin(), out.end());
      out.erase(std::unique(out.begin(), out.end()), out.end());
      return out;
    };
    m_targets.resize(m_n);
    for (std::uint32_t i = 0; i < m_n; ++i) m_targets[i] = targetsOf(m_inputs[i]);

    // Memory that is not op values, by slot: the gradients of the backward order kept, replayed as the
    // simulator counts them, with inputs and parameters; empty slots kEmpty below.
    const std::int64_t resident = g.paramBytes().value + g.inputBytes().value;
    std::vector<std::int64_t> leaves(m_positions);
    std::vector<bool> gradPresent(g.size(), false);
    std::vector<bool> paramGrad(g.size(), false);
    std::int64_t grads = 0;
    for (std::uint32_t s = 0; s < steps.size(); ++s) {
      for (std::uint32_t t = 0; t < m_k; ++t) leaves[slot(s, t)] = resident + grads - kEmpty;
      const NodeId v = steps[s].node;
      const std::uint32_t i = g.opIndex(v).value;
      const std::uint32_t p = slot(s, m_k - 1);
      if (steps[s].kind == StepKind::Forward) {
        m_copies[i].push_back(p);
        m_occ[p] = static_cast<std::int32_t>(i);
        leaves[p] += kEmpty + m_ws[i];
        m_copyTime += m_time[i];
        for (std::uint32_t u : m_targets[i]) m_reads[u].push_back(p);
        continue;
      }
      if (g.successors(v).empty() && !gradPresent[v.value]) {
        gradPresent[v.value] = true;
        grads += views.gradBytes[v.value].value;
      }
      for (NodeId u : g.opPredecessors(v))
        if (!gradPresent[u.value]) {
          gradPresent[u.value] = true;
          grads += views.gradBytes[u.value].value;
        }
      for (NodeId q : sim::distinctParamInputs(g, v))
        if (!paramGrad[q.value]) {
          paramGrad[q.value] = true;
          grads += g.node(q).bytes.value;
        }
      leaves[p] = resident + grads + g.node(v).bwdWorkspace.value;
      m_occ[p] = kBackward - static_cast<std::int32_t>(i);
      m_bwdPos[i] = p;
      std::vector<std::uint32_t> saved;
      for (NodeId u : sim::savedOpValues(g, v)) saved.push_back(g.opIndex(u).value);
      for (std::uint32_t u : targetsOf(saved)) m_reads[u].push_back(p);
      if (gradPresent[v.value]) {
        gradPresent[v.value] = false;
        grads -= views.gradBytes[v.value].value;
      }
    }
    m_tree.emplace(leaves);
    m_deposited.assign(m_n, {});
    for (std::uint32_t i = 0; i < m_n; ++i) {
      markMulti(i);
      refresh(i);
    }
  }

  // One run of `moves` moves; the best state seen is kept (bestCopies).
  // From a plan already good (`warm`), cooler and with the budget weighing more from the start, so that
  // the run refines the plan rather than leaving it.
  void run(std::uint64_t moves, TimeLimit& limit, AnnealResult& out, bool warm) {
    const double t0 = m_meanTime * (warm ? 0.05 : 1.0);
    const double t1 = m_meanTime * 1e-3;
    const double lambda0 = m_meanTime / m_meanBytes * (warm ? 100.0 : 1.0);
    double f = objective(lambda0);
    remember();
    constexpr std::uint64_t kCharge = 64;
    for (std::uint64_t k = 0; k < moves; ++k) {
      if (k % kCharge == 0 && limit.charge(kCharge)) {
        out.stopped = true;
        break;
      }
      const double x = static_cast<double>(k) / static_cast<double>(moves);
      const double temperature = t0 * std::pow(t1 / t0, x);
      const double lambda = lambda0 * std::pow(10.0, (warm ? 2.0 : 4.0) * x);
      f = objective(lambda);  // λ changed
      ++out.moves;
      if (!propose()) {
        undo();
        continue;
      }
      const double next = objective(lambda);
      const double delta = next - f;
      if (delta <= 0 || uniform() < std::exp(-delta / temperature)) {
        m_journal.clear();
        ++out.accepted;
        f = next;
        if (better()) remember();
      } else {
        undo();
      }
    }
  }

  [[nodiscard]] std::int64_t bestPeak() const { return m_bestPeak; }
  [[nodiscard]] std::int64_t bestOverhead() const { return m_bestOverhead; }

  // The best state as a schedule: every step in slot order, each value freed after its last read, each
  // gradient after its backward (so that it runs the same with liveness analysis or without).
  [[nodiscard]] Schedule bestSchedule() const {
    std::vector<std::int32_t> occ(m_positions, kFree);
    for (std::uint32_t p = 0; p < m_positions; ++p)
      if (m_occ[p] <= kBackward) occ[p] = m_occ[p];
    for (const auto& [p, i] : m_best) occ[p] = static_cast<std::int32_t>(i);
    Schedule steps;
    for (std::uint32_t p = 0; p < m_positions; ++p) {
      if (occ[p] == kFree) continue;
      if (occ[p] <= kBackward) {
        const auto i = static_cast<std::uint32_t>(kBackward - occ[p]);
        steps.push_back({StepKind::Backward, m_g.opNode(graph::OpIndex{i})});
      } else {
        steps.push_back({StepKind::Forward, m_g.opNode(graph::OpIndex{static_cast<std::uint32_t>(occ[p])})});
      }
    }
    return withFrees(steps);
  }

 private:
  [[nodiscard]] std::uint32_t slot(std::uint32_t step, std::uint32_t j) const { return step * m_k + j; }
  [[nodiscard]] std::uint64_t below(std::uint64_t n) { return m_rng() % n; }
  [[nodiscard]] double uniform() { return static_cast<double>(m_rng() >> 11) * 0x1.0p-53; }

  [[nodiscard]] std::int64_t overhead() const { return m_copyTime - m_plainTime; }
  [[nodiscard]] std::int64_t excess() const { return std::max<std::int64_t>(0, m_tree->max() - m_budget); }
  [[nodiscard]] double objective(double lambda) const {
    return static_cast<double>(overhead()) + lambda * static_cast<double>(excess());
  }
  [[nodiscard]] bool better() const {
    const std::int64_t e = excess();
    const std::int64_t bestExcess = std::max<std::int64_t>(0, m_bestPeak - m_budget);
    return e < bestExcess || (e == bestExcess && (overhead() < m_bestOverhead ||
                                                  (overhead() == m_bestOverhead && m_tree->max() < m_bestPeak)));
  }
  void remember() {
    m_best.clear();
    for (std::uint32_t i = 0; i < m_n; ++i)
      for (std::uint32_t p : m_copies[i]) m_best.emplace_back(p, i);
    m_bestPeak = m_tree->max();
    m_bestOverhead = overhead();
  }

  // The last slot copy k of op i is in memory: its last read before the next copy, or its own slot.
  [[nodiscard]] std::uint32_t lifeEnd(std::uint32_t i, std::size_t k) const {
    const auto& c = m_copies[i];
    const std::uint32_t next = k + 1 < c.size() ? c[k + 1] : std::numeric_limits<std::uint32_t>::max();
    const auto& r = m_reads[i];
    auto it = std::lower_bound(r.begin(), r.end(), next);
    if (it == r.begin()) return c[k];
    --it;
    return *it > c[k] ? *it : c[k];
  }
  // Brings the tree up to date with op i's lifetimes (one per copy, from its slot to lifeEnd): those
  // deposited before are compared with the current ones by their slot, and only what changed is added or
  // taken away (a move changes one or two lifetimes of the op and at most one of each input).
  void refresh(std::uint32_t i) {
    if (m_bytes[i] == 0) return;
    const std::int64_t b = m_bytes[i];
    const auto& c = m_copies[i];
    m_lives.clear();
    for (std::size_t k = 0; k < c.size(); ++k) m_lives.emplace_back(c[k], lifeEnd(i, k));
    auto& old = m_deposited[i];
    std::size_t x = 0;
    std::size_t y = 0;
    while (x < old.size() || y < m_lives.size()) {
      if (y == m_lives.size() || (x < old.size() && old[x].first < m_lives[y].first)) {
        m_tree->add(old[x].first, old[x].second, -b);
        ++x;
      } else if (x == old.size() || m_lives[y].first < old[x].first) {
        m_tree->add(m_lives[y].first, m_lives[y].second, b);
        ++y;
      } else {
        const std::uint32_t was = old[x].second;
        const std::uint32_t now = m_lives[y].second;
        if (now > was) m_tree->add(was + 1, now, b);
        if (now < was) m_tree->add(now + 1, was, -b);
        ++x;
        ++y;
      }
    }
    old.swap(m_lives);
  }
  // Whether op u's value is in memory when slot p begins.
  [[nodiscard]] bool aliveAt(std::uint32_t u, std::uint32_t p) const {
    const auto& c = m_copies[u];
    auto it = std::lower_bound(c.begin(), c.end(), p);
    if (it == c.begin()) return false;
    return lifeEnd(u, static_cast<std::size_t>(it - c.begin() - 1)) >= p;
  }

  void markMulti(std::uint32_t i) {
    const bool multi = m_copies[i].size() >= 2;
    if (multi && m_multiAt[i] < 0) {
      m_multiAt[i] = static_cast<std::int32_t>(m_multi.size());
      m_multi.push_back(i);
    } else if (!multi && m_multiAt[i] >= 0) {
      const std::uint32_t last = m_multi.back();
      m_multi[static_cast<std::size_t>(m_multiAt[i])] = last;
      m_multiAt[last] = m_multiAt[i];
      m_multi.pop_back();
      m_multiAt[i] = -1;
    }
  }
  void apply(bool add, std::uint32_t i, std::uint32_t p) {
    auto& c = m_copies[i];
    if (add) {
      c.insert(std::lower_bound(c.begin(), c.end(), p), p);
      for (std::uint32_t u : m_targets[i])
        m_reads[u].insert(std::lower_bound(m_reads[u].begin(), m_reads[u].end(), p), p);
      m_occ[p] = static_cast<std::int32_t>(i);
      m_tree->add(p, p, kEmpty + m_ws[i]);
      m_copyTime += m_time[i];
    } else {
      c.erase(std::lower_bound(c.begin(), c.end(), p));
      for (std::uint32_t u : m_targets[i]) m_reads[u].erase(std::lower_bound(m_reads[u].begin(), m_reads[u].end(), p));
      m_occ[p] = kFree;
      m_tree->add(p, p, -kEmpty - m_ws[i]);
      m_copyTime -= m_time[i];
    }
    for (std::uint32_t u : m_targets[i]) refresh(u);
    refresh(i);
    markMulti(i);
  }
  bool tryAdd(std::uint32_t i, std::uint32_t p) {
    if (p >= m_positions || m_occ[p] != kFree) return false;
    for (std::uint32_t u : m_inputs[i])
      if (m_copies[u].front() >= p) return false;
    apply(true, i, p);
    m_journal.emplace_back(true, i, p);
    return true;
  }
  bool tryRemove(std::uint32_t i, std::uint32_t p) {
    const auto& c = m_copies[i];
    if (c.size() < 2) return false;
    if (c.front() == p) {
      // The next copy becomes the first: nothing may read the value before it, and it must come before
      // the op's own backward (an output's backward seeds its gradient from it).
      if (c[1] >= m_bwdPos[i]) return false;
      if (!m_reads[i].empty() && m_reads[i].front() < c[1]) return false;
    }
    apply(false, i, p);
    m_journal.emplace_back(false, i, p);
    return true;
  }
  void undo() {
    for (std::size_t k = m_journal.size(); k-- > 0;) {
      const auto& [added, i, p] = m_journal[k];
      apply(!added, i, p);
    }
    m_journal.clear();
  }

  // The ops to recompute with i before slot q: i and the inputs not in memory then, up to kGroupDepth
  // levels, in topological order.
  void group(std::uint32_t i, std::uint32_t q, int depth, std::vector<std::uint32_t>& out) const {
    if (std::find(out.begin(), out.end(), i) != out.end()) return;
    out.push_back(i);
    if (depth == 0) return;
    for (std::uint32_t u : m_inputs[i])
      if (!aliveAt(u, q)) group(u, q, depth - 1, out);
  }

  bool propose() {
    const std::uint64_t kind = below(10);
    if (kind < 4) {  // add a copy (of a group) before a read
      const auto i = static_cast<std::uint32_t>(below(m_n));
      const auto& r = m_reads[i];
      if (r.empty()) return false;
      const std::uint32_t q = r[below(r.size())];
      std::vector<std::uint32_t> members;
      group(i, q, below(2) == 0 ? kGroupDepth : 0, members);
      std::sort(members.begin(), members.end());
      std::vector<std::uint32_t> free;
      for (std::uint32_t p = q / m_k * m_k; p < q; ++p)
        if (m_occ[p] == kFree) free.push_back(p);
      if (free.size() < members.size()) return false;
      // The slots nearest the read, or a random run of them.
      const std::size_t from = below(2) == 0 ? free.size() - members.size() : below(free.size() - members.size() + 1);
      for (std::size_t m = 0; m < members.size(); ++m)
        if (!tryAdd(members[m], free[from + m])) return false;
      return true;
    }
    if (kind < 8) {  // remove a copy
      if (m_multi.empty()) return false;
      const std::uint32_t i = m_multi[below(m_multi.size())];
      const auto& c = m_copies[i];
      return tryRemove(i, c[below(c.size())]);
    }
    // shift a copy to another slot between its inputs' first copies and its last read
    const auto i = static_cast<std::uint32_t>(below(m_n));
    const auto& c = m_copies[i];
    const std::uint32_t old = c[below(c.size())];
    std::uint32_t lo = 0;
    for (std::uint32_t u : m_inputs[i]) lo = std::max(lo, m_copies[u].front() + 1);
    const std::uint32_t hi = m_reads[i].empty() ? m_bwdPos[i] : m_reads[i].back();
    if (hi <= lo + 1) return false;
    const auto p = static_cast<std::uint32_t>(lo + below(hi - lo));
    if (!tryAdd(i, p)) return false;
    return tryRemove(i, old);
  }

  // Steps with a free after each value's last read (the simulator's own liveness analysis) and a
  // free-grad after each backward.
  [[nodiscard]] Schedule withFrees(const Schedule& steps) const {
    const std::vector<std::vector<NodeId>> freeAfter = sim::lastValueUses(m_g, steps);
    Schedule out;
    out.reserve(3 * steps.size());
    for (std::size_t s = 0; s < steps.size(); ++s) {
      out.push_back(steps[s]);
      for (NodeId u : freeAfter[s]) out.push_back({StepKind::Free, u});
      if (steps[s].kind == StepKind::Backward) out.push_back({StepKind::FreeGrad, steps[s].node});
    }
    return out;
  }

  const graph::ComputeGraph& m_g;
  std::mt19937_64 m_rng;
  std::uint32_t m_n = 0;
  std::uint32_t m_k = 0;
  std::uint32_t m_positions = 0;
  std::int64_t m_budget = 0;
  std::vector<std::int64_t> m_time;
  std::vector<std::int64_t> m_bytes;
  std::vector<std::int64_t> m_ws;
  std::vector<std::vector<std::uint32_t>> m_inputs;   ///< op inputs, by op
  std::vector<std::vector<std::uint32_t>> m_targets;  ///< whose lifetimes a copy's reads extend: inputs, views' roots
  std::vector<std::uint32_t> m_bwdPos;
  std::vector<std::vector<std::uint32_t>> m_copies;  ///< slots, ascending, by op
  std::vector<std::vector<std::uint32_t>> m_reads;   ///< slots reading the op's value, ascending
  std::vector<std::int32_t> m_occ;                   ///< op index, kFree or kBackward, by slot
  std::vector<std::uint32_t> m_multi;                ///< ops with two copies or more
  std::vector<std::int32_t> m_multiAt;
  std::optional<MaxTree> m_tree;
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> m_deposited;  ///< lifetimes in the tree, by op
  std::vector<std::pair<std::uint32_t, std::uint32_t>> m_lives;                   ///< refresh's scratch
  std::int64_t m_copyTime = 0;
  std::int64_t m_plainTime = 0;
  double m_meanTime = 1;
  double m_meanBytes = 1;
  std::vector<std::tuple<bool, std::uint32_t, std::uint32_t>> m_journal;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> m_best;  ///< (slot, op)
  std::int64_t m_bestPeak = 0;
  std::int64_t m_bestOverhead = 0;
};

// Moves of a run by default: enough for the search to settle on graphs of a few thousand ops.
std::uint64_t defaultMoves(std::size_t ops) {
  return std::clamp<std::uint64_t>(std::uint64_t{2000} * ops, 20'000, 16'000'000);
}

}  // namespace

Bytes annealMemory(const graph::ComputeGraph& g, const sim::Schedule* from) {
  std::size_t steps = 2 * g.opCount();
  if (from) {
    steps = 0;
    for (const sim::Step& s : *from) steps += s.kind == StepKind::Forward || s.kind == StepKind::Backward ? 1 : 0;
  }
  std::size_t k = kSlots;
  while (k > 2 && steps * k > kMaxPositions) k /= 2;
  const std::size_t positions = steps * k;
  std::size_t tree = 1;
  while (tree < positions) tree <<= 1;
  // Leaves and slot owners (12 bytes a slot), the tree's maxima and tags (24 bytes a leaf), and per op
  // its times, sizes, inputs, copies, reads and lifetimes in the tree (about 200 bytes and 12 per edge).
  return Bytes{static_cast<std::int64_t>(12 * positions + 24 * tree + 200 * g.opCount() + 12 * g.edgeCount())};
}

AnnealResult anneal(const graph::ComputeGraph& g, Bytes budget, std::uint64_t seed, std::optional<std::uint64_t> moves,
                    TimeLimit& limit, const sim::Schedule* from) {
  AnnealResult out;
  if (g.opCount() == 0) return out;
  Annealer a(g, budget, seed, from);
  a.run(moves ? *moves : defaultMoves(g.opCount()), limit, out, from != nullptr);
  out.schedule = a.bestSchedule();
  out.modelPeak = Bytes{a.bestPeak()};
  out.modelOverhead = Ticks{a.bestOverhead()};
  return out;
}

std::optional<sim::Schedule> lowMemoryOrder(const graph::ComputeGraph& g, Bytes budget, std::size_t width,
                                            TimeLimit& limit) {
  const auto n = static_cast<std::uint32_t>(g.opCount());
  std::vector<std::int64_t> bytes(n);
  std::vector<std::int64_t> work(n);
  std::vector<std::vector<std::uint32_t>> inputs(n);
  std::vector<std::vector<std::uint32_t>> consumers(n);
  std::vector<std::uint64_t> zobrist(n);
  std::uint64_t x = 0x9e3779b97f4a7c15ULL;
  for (std::uint32_t i = 0; i < n; ++i) {
    const NodeId id = g.opNode(graph::OpIndex{i});
    bytes[i] = g.node(id).bytes.value;
    work[i] = g.node(id).workspace.value;
    for (NodeId u : g.opPredecessors(id)) {
      inputs[i].push_back(g.opIndex(u).value);
      consumers[g.opIndex(u).value].push_back(i);
    }
    // splitmix64: a key per op, XORed into the key of the set of computed ops
    x += 0x9e3779b97f4a7c15ULL;
    std::uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    zobrist[i] = z ^ (z >> 31);
  }
  // A partial order: the reads each value still waits for, the inputs each op still waits for, the ops
  // ready to run, the bytes alive and the peak so far, the key of its set, and how it was reached.
  struct State {
    std::vector<std::uint32_t> readsLeft;
    std::vector<std::uint32_t> inputsLeft;
    std::vector<std::uint32_t> ready;
    std::int64_t alive = 0;
    std::int64_t peak = 0;
    std::uint64_t key = 0;
  };
  State first;
  first.readsLeft.resize(n);
  first.inputsLeft.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    first.readsLeft[i] = static_cast<std::uint32_t>(consumers[i].size());
    first.inputsLeft[i] = static_cast<std::uint32_t>(inputs[i].size());
    if (inputs[i].empty()) first.ready.push_back(i);
  }
  std::vector<State> beam{std::move(first)};
  // By length: the parent (its place in the beam one op shorter) and the op of each state kept.
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> steps(n);
  struct Candidate {
    std::int64_t rank;
    std::int64_t alive;
    std::int64_t peak;
    std::uint64_t key;
    std::uint32_t parent;
    std::uint32_t op;
  };
  std::vector<Candidate> candidates;
  std::vector<std::uint64_t> seen;
  for (std::uint32_t length = 0; length < n; ++length) {
    candidates.clear();
    for (std::uint32_t p = 0; p < beam.size(); ++p) {
      const State& s = beam[p];
      for (std::uint32_t v : s.ready) {
        std::int64_t alive = s.alive + (consumers[v].empty() ? 0 : bytes[v]);
        for (std::uint32_t u : inputs[v])
          if (s.readsLeft[u] == 1) alive -= bytes[u];
        const std::int64_t peak = std::max(s.peak, s.alive + bytes[v] + work[v]);
        candidates.push_back({std::max(peak, budget.value), alive, peak, s.key ^ zobrist[v], p, v});
      }
    }
    if (limit.charge(candidates.size())) return std::nullopt;
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
      return std::tie(a.rank, a.alive, a.peak, a.key, a.parent, a.op) <
             std::tie(b.rank, b.alive, b.peak, b.key, b.parent, b.op);
    });
    std::vector<State> next;
    seen.clear();
    for (const Candidate& c : candidates) {
      if (next.size() >= width) break;
      if (std::find(seen.begin(), seen.end(), c.key) != seen.end()) continue;  // the same set, reached better
      seen.push_back(c.key);
      State t = beam[c.parent];
      t.ready.erase(std::find(t.ready.begin(), t.ready.end(), c.op));
      for (std::uint32_t u : inputs[c.op]) --t.readsLeft[u];
      for (std::uint32_t w : consumers[c.op])
        if (--t.inputsLeft[w] == 0) t.ready.push_back(w);
      t.alive = c.alive;
      t.peak = c.peak;
      t.key = c.key;
      steps[length].emplace_back(c.parent, c.op);
      next.push_back(std::move(t));
    }
    beam = std::move(next);
  }
  sim::Schedule order(n);
  std::uint32_t at = 0;  // the best complete order is the first kept
  for (std::uint32_t length = n; length-- > 0;) {
    const auto [parent, op] = steps[length][at];
    order[length] = {StepKind::Forward, g.opNode(graph::OpIndex{op})};
    at = parent;
  }
  return order;
}

std::size_t lowMemoryOrderWidth(const graph::ComputeGraph& g) {
  const double n = static_cast<double>(g.opCount());
  const double width = std::min(256.0, 4e9 / std::max(1.0, n * n));
  return width < 8 ? 0 : static_cast<std::size_t>(width);
}

namespace {

struct Searched {
  std::optional<Schedule> schedule;
  Bytes peak{0};
  bool stopped = false;
  int rounds = 0;
};

// Anneals against the budget, from the file's order and, on a graph computed as given, from a low-memory
// order (lowMemoryOrder) too, keeping the better plan in the simulator: within the budget (against a
// budget of 0, a lower peak) first, then less overhead. A plan over the budget in the simulator (views
// share storage, which the annealer's model does not know) is annealed again against a budget lowered
// by the difference, at most 3 times.
Searched search(const graph::ComputeGraph& g, Bytes budget, std::uint64_t seed, TimeLimit& limit) {
  Searched out;
  Bytes target = budget;
  std::optional<Bytes> lowest;
  for (int round = 0; round < 4; ++round) {
    std::optional<sim::Schedule> order;
    if (const std::size_t width = lowMemoryOrderWidth(g); g.asGiven() && width > 0)
      order = lowMemoryOrder(g, target, width, limit);
    std::optional<AnnealResult> r;
    std::optional<sim::SimulationResult> s;
    std::vector<const Schedule*> starts{nullptr};
    if (order) starts.push_back(&*order);
    for (const Schedule* start : starts) {
      AnnealResult run = anneal(g, target, seed, std::nullopt, limit, start);
      out.stopped = out.stopped || run.stopped;
      if (!run.schedule) continue;
      sim::SimulationResult simulated = sim::Simulator(g).run(*run.schedule);
      if (!simulated.valid())
        throw std::logic_error("fastsa made a schedule the simulator rejects: " + simulated.error->message);
      const auto rank = [&](const sim::SimulationResult& x) {
        return std::pair{std::max(x.peak.value, budget.value), x.overhead.value};
      };
      if (!s || rank(simulated) < rank(*s)) {
        r = std::move(run);
        s = std::move(simulated);
      }
    }
    ++out.rounds;
    if (!r) break;
    if (!lowest || s->peak < *lowest) {
      lowest = s->peak;
      out.peak = s->peak;
      if (budget.value == 0 || s->peak <= budget) out.schedule = std::move(r->schedule);
    }
    if (out.stopped || budget.value == 0 || s->peak <= budget) break;
    // Over in the simulator: only worth another round when the model thought it fitted.
    if (r->modelPeak > target) break;
    target = Bytes{target.value - (s->peak.value - budget.value)};
    if (target.value <= 0) break;
  }
  return out;
}

// Why a run would not fit the request's memory limit; none when it fits.
std::optional<std::string> overMemory(const SolveRequest& request) {
  const Bytes need = annealMemory(*request.graph);
  const std::int64_t limit = memoryLimitOr(request.memoryLimit);
  if (need.value <= limit) return std::nullopt;
  return "the annealing's slots and segment tree need about " + formatByteSizeExact(need) +
         ", more than the memory limit of " + formatByteSizeExact(Bytes{limit});
}

}  // namespace

SolverOutput FastSa::plan(const SolveRequest& request) const {
  const graph::ComputeGraph& g = *request.graph;
  if (!request.budget) return {SolveStatus::Feasible, Plan{sim::storeAllSchedule(g), std::nullopt}, "the plain run"};
  if (const auto refusal = overMemory(request)) return {SolveStatus::Limit, std::nullopt, *refusal};
  TimeLimit limit = startLimit(request);
  Searched s = search(g, *request.budget, request.seed, limit);
  if (limit.cancelled()) return {SolveStatus::Cancelled, std::nullopt, "cancelled"};
  const std::string seed = "seed " + std::to_string(request.seed);
  if (s.schedule)
    return {s.stopped ? SolveStatus::TimeLimit : SolveStatus::Feasible, Plan{*s.schedule, std::nullopt},
            seed + (s.rounds > 1 ? ", " + std::to_string(s.rounds) + " rounds" : std::string())};
  if (!s.stopped) {
    // The run minBudget makes (against a budget of 0, same seed and moves): where its lowest peak is
    // within the budget, that plan answers, so a solve at fastsa's least budget finds a plan.
    Searched least = search(g, Bytes{0}, request.seed, limit);
    if (least.schedule && least.peak <= *request.budget && !least.stopped)
      return {SolveStatus::Feasible, Plan{*least.schedule, std::nullopt}, seed + ", its run to the least peak"};
    s.stopped = least.stopped;
    s.peak = std::min(s.peak, least.peak);
  }
  if (s.stopped) return {SolveStatus::TimeLimit, std::nullopt, "the limit ended the annealing before a plan fitted"};
  return {SolveStatus::Infeasible, std::nullopt,
          "the annealing found no plan within the budget (" + seed + "; its lowest simulated peak " +
              formatByteSizeExact(s.peak) + ")"};
}

Solver::MinBudget FastSa::planMinBudget(const SolveRequest& request) const {
  if (request.graph == nullptr) return {SolveStatus::NotSolved, std::nullopt, "no graph given", 0.0, CallStatus::Error};
  const auto start = std::chrono::steady_clock::now();
  if (const auto refusal = overMemory(request)) return {SolveStatus::Limit, std::nullopt, *refusal, 0.0};
  TimeLimit limit = startLimit(request);
  const Searched s = search(*request.graph, Bytes{0}, request.seed, limit);
  MinBudget out;
  if (limit.cancelled()) {
    out.status = SolveStatus::Cancelled;
    out.message = "cancelled";
  } else if (s.stopped) {
    out.status = SolveStatus::TimeLimit;
    out.message = "the limit ended the annealing";
  } else {
    out.status = SolveStatus::Optimal;
    out.bytes = s.peak;
    out.message = "the lowest simulated peak of the annealing (seed " + std::to_string(request.seed) +
                  "; a heuristic's least, not a proven one)";
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace remat::solvers
