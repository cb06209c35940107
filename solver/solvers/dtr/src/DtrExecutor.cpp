// DTR's online executor (runDtr, dtrSingleOpMinimum; Dtr.hpp): the program order of a training step
// run under a budget, evicting by h_DTR-eq with the simulator's accounting.

#include "remat/solvers/Dtr.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>

#include "remat/graph/ByteSize.hpp"
#include "remat/graph/PrintableText.hpp"

namespace remat::solvers {
namespace {

using graph::ComputeGraph;
using graph::Node;
using graph::NodeId;
using sim::StepKind;

// The storage a value lives in, as the simulator counts it: an operation makes its own; a view shares
// its first input's (none when that is an input or a parameter, which are resident anyway).
struct StorageModel {
  std::vector<bool> isView;
  std::vector<Bytes> gradBytes;
  std::vector<std::optional<std::uint32_t>> root;  // the op whose forward makes the storage

  explicit StorageModel(const ComputeGraph& g) {
    sim::ViewInfo vi = sim::viewInfo(g);
    isView = std::move(vi.isView);
    gradBytes = std::move(vi.gradBytes);
    root.assign(g.size(), std::nullopt);
    for (std::uint32_t v = g.firstOp(); v < g.size(); ++v) {
      if (!isView[v]) {
        root[v] = v;
        continue;
      }
      const NodeId base = g.node(NodeId{v}).inputs.front();
      if (g.isOp(base)) root[v] = root[base.value];
    }
  }
};

// DTR's online executor over the plain program order.
class Executor {
 public:
  Executor(const ComputeGraph& g, std::optional<Bytes> budget, TimeLimit* limit,
           const std::vector<graph::OpIndex>& keep)
      : m_g(g), m_storage(g), m_limit(limit) {
    m_budget = budget ? budget->value : std::numeric_limits<std::int64_t>::max();
    const std::size_t n = g.size();
    m_constant = g.paramBytes().value + g.inputBytes().value;
    m_resident.assign(n, false);
    m_computed.assign(n, false);
    m_locks.assign(n, 0);
    m_usesLeft.assign(n, 0);
    m_lastAccess.assign(n, 0);
    m_storageOf.assign(n, -1);
    m_uf.assign(n, -1);
    m_gradPresent.assign(n, false);
    m_paramGrad.assign(n, false);
    m_kept.assign(n, false);
    for (graph::OpIndex op : keep) m_kept[g.opNode(op).value] = true;
    m_anyKept = !keep.empty();
    for (std::uint32_t v = g.firstOp(); v < n; ++v) {
      const NodeId id{v};
      for (NodeId u : g.opPredecessors(id)) ++m_usesLeft[u.value];
      for (NodeId u : sim::savedOpValues(g, id)) ++m_usesLeft[u.value];
    }
  }

  DtrRun run() {
    const ComputeGraph& g = m_g;
    try {
      for (std::uint32_t v = g.firstOp(); v < g.size(); ++v) {
        if (stopped()) return finish(true);
        compute(NodeId{v}, true);
      }
      for (auto v = static_cast<std::uint32_t>(g.size()); v-- > g.firstOp();) {
        if (stopped()) return finish(true);
        backward(NodeId{v});
      }
    } catch (const Halt&) {
      return finish(true);  // the run's state is abandoned with it
    }
    return finish(false);
  }

 private:
  // Thrown from inside a rematerialization (any depth) when the run must end: a stop, the deadline,
  // or a schedule too long.
  struct Halt {};

  // A storage in memory. Beside its holders it keeps, up to date, the figures evictOne() reads for each
  // candidate, so that the scan over every storage in memory before each eviction reads one record
  // each instead of every holder's node, locks, accesses and neighbours (on a 10,000-op chain those
  // cache misses were 87% of the run).
  struct Storage {
    std::int64_t bytes = 0;
    std::vector<std::uint32_t> holders;
    std::size_t livePos = 0;
    std::int64_t ownCost = 0;  // the holders' summed forward time
    std::size_t last = 0;      // the holders' latest access
    std::uint32_t locks = 0;   // the holders' summed locks
    std::int32_t around = 0;   // the holders' evicted neighbours (with a class), with multiplicity
  };

  // A unit of work is a computation: one per step of the program order, 1,024 at a time inside a
  // rematerialization.
  bool stopped(std::uint64_t units = 1) { return m_limit != nullptr && m_limit->charge(units); }

  DtrRun finish(bool stopped) {
    m_out.stopped = stopped && !m_out.outgrew;
    m_out.bookedPeak = Bytes{m_peak};
    return std::move(m_out);
  }

  std::int64_t total() const { return m_constant + m_values + m_grads + m_paramGrads; }

  void emit(StepKind kind, NodeId v) {
    if (m_out.schedule.size() >= kMaxDtrSteps) {
      m_out.outgrew = true;
      throw Halt{};
    }
    m_out.schedule.push_back({kind, v});
  }

  // Union-find over evicted values (the equivalence classes of h_DTR-eq); a class's cost is the summed
  // forward time of its members still evicted.
  std::int32_t find(std::int32_t x) {
    while (m_parent[x] != x) {
      m_parent[x] = m_parent[m_parent[x]];
      x = m_parent[x];
    }
    return x;
  }
  void unite(std::int32_t a, std::int32_t b) {
    a = find(a);
    b = find(b);
    if (a == b) return;
    m_parent[b] = a;
    m_classCost[a] += m_classCost[b];
  }
  // Whether u is an evicted neighbour that h_DTR-eq charges: an operation out of memory, evicted (or
  // freed) since it was last computed.
  bool chargeable(NodeId u) const { return m_g.isOp(u) && !m_resident[u.value] && m_uf[u.value] >= 0; }
  // The classes of the evicted neighbours (operation inputs and consumers) of v.
  void evictedNeighbourClasses(NodeId v, std::vector<std::int32_t>& out) {
    auto add = [&](NodeId u) {
      if (chargeable(u)) out.push_back(find(m_uf[u.value]));
    };
    for (NodeId u : m_g.opPredecessors(v)) add(u);
    for (NodeId w : m_g.successors(v)) add(w);
  }

  std::int32_t chargeableNeighbours(NodeId v) const {
    std::int32_t count = 0;
    for (NodeId u : m_g.opPredecessors(v)) count += chargeable(u) ? 1 : 0;
    for (NodeId w : m_g.successors(v)) count += chargeable(w) ? 1 : 0;
    return count;
  }
  // v became (delta = 1) or stopped being (-1) chargeable: its neighbours' storages count it.
  void shiftAround(NodeId v, std::int32_t delta) {
    auto shift = [&](NodeId w) {
      if (m_g.isOp(w) && m_resident[w.value] && m_storageOf[w.value] >= 0)
        m_storages[m_storageOf[w.value]].around += delta;
    };
    for (NodeId u : m_g.opPredecessors(v)) shift(u);
    for (NodeId w : m_g.successors(v)) shift(w);
  }
  void lock(NodeId u) {
    ++m_locks[u.value];
    if (m_storageOf[u.value] >= 0) ++m_storages[m_storageOf[u.value]].locks;
  }
  void unlock(NodeId u) {
    --m_locks[u.value];
    if (m_storageOf[u.value] >= 0) --m_storages[m_storageOf[u.value]].locks;
  }

  // Drops v's value (evicted by the heuristic or freed after its last use); it can be recomputed later.
  void release(NodeId v) {
    emit(StepKind::Free, v);
    if (m_storageOf[v.value] >= 0) m_storages[m_storageOf[v.value]].around -= chargeableNeighbours(v);
    m_resident[v.value] = false;
    std::vector<std::int32_t> classes;
    evictedNeighbourClasses(v, classes);
    const auto self = static_cast<std::int32_t>(m_parent.size());
    m_parent.push_back(self);
    m_classCost.push_back(m_g.node(v).fwdTime.value);
    m_uf[v.value] = self;
    for (std::int32_t c : classes) unite(self, c);
    shiftAround(v, 1);
    const std::int32_t s = m_storageOf[v.value];
    m_storageOf[v.value] = -1;
    if (s < 0) return;
    Storage& st = m_storages[s];
    st.holders.erase(std::find(st.holders.begin(), st.holders.end(), v.value));
    st.ownCost -= m_g.node(v).fwdTime.value;
    st.last = 0;
    for (std::uint32_t h : st.holders) st.last = std::max(st.last, m_lastAccess[h]);
    if (st.holders.empty()) {
      m_values -= st.bytes;
      const std::size_t pos = st.livePos;
      m_live[pos] = m_live.back();
      m_storages[m_live[pos]].livePos = pos;
      m_live.pop_back();
    }
  }

  void freeIfDead(NodeId v) {
    // A value pinned keep stays until its own backward: a consumer rematerialized before then reads it
    // again, and it must not be recomputed; no step after its backward reads it.
    if (m_anyKept && m_kept[v.value]) return;
    if (m_resident[v.value] && m_locks[v.value] == 0 && m_usesLeft[v.value] == 0) release(v);
  }

  // Evicts the storage with the least h_DTR-eq whose holders the pending steps do not need. False when
  // there is none.
  bool evictOne() {
    double best = std::numeric_limits<double>::infinity();
    std::int32_t bestStorage = -1;
    std::vector<std::int32_t> classes;
    for (std::int32_t s : m_live) {
      const Storage& st = m_storages[s];
      if (st.bytes <= 0 || st.locks > 0) continue;  // evicting it frees nothing, or a pending step needs it
      // A value pinned keep is never evicted (only freed once nothing reads it), so never recomputed.
      if (m_anyKept && std::any_of(st.holders.begin(), st.holders.end(), [&](std::uint32_t h) { return m_kept[h]; }))
        continue;
#ifdef REMAT_SANITY_CHECKS
      checkFigures(st);
#endif
      std::int64_t cost = st.ownCost;
      if (st.around > 0) {
        classes.clear();
        for (std::uint32_t h : st.holders) evictedNeighbourClasses(NodeId{h}, classes);
        std::sort(classes.begin(), classes.end());
        classes.erase(std::unique(classes.begin(), classes.end()), classes.end());
        for (std::int32_t c : classes) cost += m_classCost[c];
      }
      const double h = dtrScore(double(cost), double(st.bytes), double(m_clock - st.last));
      if (h < best || (h == best && s < bestStorage)) {
        best = h;
        bestStorage = s;
      }
    }
    if (bestStorage < 0) return false;
    const std::vector<std::uint32_t> holders = m_storages[bestStorage].holders;
    for (std::uint32_t h : holders) {
      m_out.evicted.emplace_back(NodeId{h});
      release(NodeId{h});
    }
    return true;
  }

  // Evicts until `extra` more bytes fit in the budget; records where it cannot.
  void makeRoom(std::int64_t extra, NodeId v, StepKind kind) {
    while (total() + extra > m_budget)
      if (!evictOne()) {
        if (!m_out.stuck)
          m_out.stuck = "at step " + std::to_string(m_out.schedule.size()) + " (" +
                        std::string(sim::stepKindName(kind)) + " " +
                        graph::printableText(m_g.node(v).name, graph::kMessageNameChars) +
                        ") nothing evictable was left: it needs " + formatByteSizeExact(Bytes{total() + extra}) +
                        " with only the values it and its pending callers use";
        return;
      }
  }

  void access(NodeId v) {
    m_lastAccess[v.value] = m_clock;
    if (m_storageOf[v.value] >= 0) m_storages[m_storageOf[v.value]].last = m_clock;  // the clock never falls
  }

#ifdef REMAT_SANITY_CHECKS
  // The kept figures against the holders' own.
  void checkFigures(const Storage& st) const {
    std::int64_t cost = 0;
    std::size_t last = 0;
    std::uint32_t locks = 0;
    std::int32_t around = 0;
    for (std::uint32_t h : st.holders) {
      cost += m_g.node(NodeId{h}).fwdTime.value;
      last = std::max(last, m_lastAccess[h]);
      locks += m_locks[h];
      around += chargeableNeighbours(NodeId{h});
    }
    if (cost != st.ownCost || last != st.last || locks != st.locks || around != st.around)
      throw std::logic_error("DTR executor: a storage's kept figures differ from its holders'");
  }
#endif

  // Makes the values `need` resident, locked, rematerializing evicted ones (recursively).
  void acquire(const std::vector<NodeId>& need) {
    for (NodeId u : need)
      if (m_resident[u.value]) lock(u);
    for (NodeId u : need)
      if (!m_resident[u.value]) {
        compute(u, false);
        lock(u);
      }
  }
  void releaseLocks(const std::vector<NodeId>& need) {
    for (NodeId u : need) unlock(u);
  }

  // `fwd v`: the program's first computation (program = true) or a rematerialization, after acquire()
  // of its inputs. A rematerialization recurses through evicted ancestors, as deep as the graph (a
  // 100,000-op chain overflowed the call stack), so the recursion runs on a stack of its own: each frame
  // is one compute() whose inputs are acquired in order, a child frame per evicted input.
  void compute(NodeId v, bool program) {
    struct Frame {
      NodeId v;
      bool program;
      std::vector<NodeId> inputs;
      std::size_t next = 0;    ///< the input being acquired (the second loop of acquire())
      bool childDone = false;  ///< inputs[next] has just been computed by a child frame
    };
    std::vector<Frame> stack;
    auto begin = [&](NodeId u, bool prog) {
      if ((++m_computations & 1023) == 0 && stopped(1024)) throw Halt{};  // a rematerialization can be long
      Frame f{u, prog, std::vector<NodeId>(m_g.opPredecessors(u).begin(), m_g.opPredecessors(u).end())};
      for (NodeId w : f.inputs)
        if (m_resident[w.value]) lock(w);
      stack.push_back(std::move(f));
    };
    begin(v, program);
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.childDone) {
        lock(f.inputs[f.next]);
        ++f.next;
        f.childDone = false;
      }
      while (f.next < f.inputs.size() && m_resident[f.inputs[f.next].value]) ++f.next;
      if (f.next < f.inputs.size()) {
        begin(f.inputs[f.next], false);  // invalidates f
        continue;
      }
      computeAcquired(f.v, f.program, f.inputs);
      stack.pop_back();
      if (!stack.empty()) stack.back().childDone = true;
    }
  }

  // The rest of compute(v) once its inputs are resident and locked.
  void computeAcquired(NodeId v, bool program, const std::vector<NodeId>& inputs) {
    const auto& root = m_storage.root[v.value];
    const bool newStorage = root && *root == v.value;
    const std::int64_t bytes = newStorage ? m_g.node(v).bytes.value : 0;
    makeRoom(bytes + m_g.node(v).workspace.value, v, StepKind::Forward);
    emit(StepKind::Forward, v);
    m_resident[v.value] = true;
    m_computed[v.value] = true;
    if (m_uf[v.value] >= 0) {
      m_classCost[find(m_uf[v.value])] -= m_g.node(v).fwdTime.value;
      m_uf[v.value] = -1;
      shiftAround(v, -1);
    }
    if (newStorage) {
      m_storageOf[v.value] = static_cast<std::int32_t>(m_storages.size());
      m_storages.push_back(Storage{bytes, {v.value}, m_live.size()});
      m_live.push_back(m_storageOf[v.value]);
      m_values += bytes;
    } else if (root) {
      // A view of a resident (locked) base shares the base's storage.
      const std::int32_t s = m_storageOf[m_g.node(v).inputs.front().value];
      m_storageOf[v.value] = s;
      if (s >= 0) m_storages[s].holders.push_back(v.value);
    }
    if (const std::int32_t s = m_storageOf[v.value]; s >= 0) {
      Storage& st = m_storages[s];
      st.ownCost += m_g.node(v).fwdTime.value;
      st.last = std::max(st.last, m_lastAccess[v.value]);
      st.around += chargeableNeighbours(v);
    }
    m_peak = std::max(m_peak, total() + m_g.node(v).workspace.value);
    for (NodeId u : inputs) access(u);
    access(v);
    ++m_clock;
    releaseLocks(inputs);
    if (program)
      for (NodeId u : inputs) --m_usesLeft[u.value];
    for (NodeId u : inputs) freeIfDead(u);
    if (program) freeIfDead(v);
  }

  // `bwd v` of the program, then `free-grad v`.
  void backward(NodeId v) {
    const ComputeGraph& g = m_g;
    const std::vector<NodeId> saved = sim::savedOpValues(g, v);
    acquire(saved);
    std::int64_t alloc = 0;
    const bool seed = g.successors(v).empty();
    if (seed) alloc += m_storage.gradBytes[v.value].value;
    for (NodeId u : g.opPredecessors(v))
      if (!m_gradPresent[u.value]) alloc += m_storage.gradBytes[u.value].value;
    const std::vector<NodeId> params = sim::distinctParamInputs(g, v);
    for (NodeId p : params)
      if (!m_paramGrad[p.value]) alloc += g.node(p).bytes.value;
    makeRoom(alloc + g.node(v).bwdWorkspace.value, v, StepKind::Backward);
    emit(StepKind::Backward, v);
    if (seed) {
      m_gradPresent[v.value] = true;
      m_grads += m_storage.gradBytes[v.value].value;
    }
    for (NodeId u : g.opPredecessors(v))
      if (!m_gradPresent[u.value]) {
        m_gradPresent[u.value] = true;
        m_grads += m_storage.gradBytes[u.value].value;
      }
    for (NodeId p : params)
      if (!m_paramGrad[p.value]) {
        m_paramGrad[p.value] = true;
        m_paramGrads += g.node(p).bytes.value;
      }
    m_peak = std::max(m_peak, total() + g.node(v).bwdWorkspace.value);
    for (NodeId u : saved) access(u);
    ++m_clock;
    emit(StepKind::FreeGrad, v);
    if (m_gradPresent[v.value]) {
      m_gradPresent[v.value] = false;
      m_grads -= m_storage.gradBytes[v.value].value;
    }
    releaseLocks(saved);
    for (NodeId u : saved) --m_usesLeft[u.value];
    for (NodeId u : saved) freeIfDead(u);
    if (m_anyKept && m_kept[v.value]) {
      m_kept[v.value] = false;  // its last reader has run
      freeIfDead(v);
    }
  }

  const ComputeGraph& m_g;
  StorageModel m_storage;
  TimeLimit* m_limit;
  std::int64_t m_budget = 0;
  std::int64_t m_constant = 0;
  std::int64_t m_values = 0;
  std::int64_t m_grads = 0;
  std::int64_t m_paramGrads = 0;
  std::int64_t m_peak = 0;
  std::size_t m_clock = 1;
  std::size_t m_computations = 0;
  std::vector<bool> m_resident, m_computed, m_gradPresent, m_paramGrad;
  std::vector<std::uint32_t> m_locks, m_usesLeft;
  std::vector<std::size_t> m_lastAccess;
  std::vector<std::int32_t> m_storageOf, m_uf;
  std::vector<Storage> m_storages;
  std::vector<std::int32_t> m_live;  // storages in memory
  std::vector<std::int32_t> m_parent;
  std::vector<std::int64_t> m_classCost;
  DtrRun m_out;
  std::vector<bool> m_kept;  // by node: pinned keep
  bool m_anyKept = false;
};

}  // namespace

double dtrScore(double cost, double bytes, double staleness) {
  return cost / (std::max(bytes, 1.0) * std::max(staleness, 1.0));
}

DtrRun runDtr(const ComputeGraph& g, std::optional<Bytes> budget, TimeLimit* limit,
              const std::vector<graph::OpIndex>& keep) {
  return Executor(g, budget, limit, keep).run();
}

DtrMinimum dtrSingleOpMinimum(const ComputeGraph& g, TimeLimit* limit, const std::vector<graph::OpIndex>& keep) {
  const StorageModel model(g);
  // The distinct storages of a set of values, in bytes.
  auto storageBytes = [&](const std::vector<NodeId>& values) {
    std::vector<std::uint32_t> roots;
    for (NodeId u : values)
      if (model.root[u.value]) roots.push_back(*model.root[u.value]);
    std::sort(roots.begin(), roots.end());
    roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
    std::int64_t sum = 0;
    for (std::uint32_t r : roots) sum += g.node(NodeId{r}).bytes.value;
    return sum;
  };
  const std::int64_t constant = g.paramBytes().value + g.inputBytes().value;
  std::int64_t worst = constant;
  for (std::uint32_t v = g.firstOp(); v < g.size(); ++v) {
    const NodeId id{v};
    std::vector<NodeId> values(g.opPredecessors(id).begin(), g.opPredecessors(id).end());
    values.push_back(id);
    worst = std::max(worst, constant + storageBytes(values) + g.node(id).workspace.value);
  }
  // The backward pass, replaying the gradients and parameter gradients that exist at each step.
  std::vector<bool> grad(g.size(), false), paramGrad(g.size(), false);
  std::int64_t grads = 0;
  std::int64_t paramGrads = 0;
  for (auto v = static_cast<std::uint32_t>(g.size()); v-- > g.firstOp();) {
    const NodeId id{v};
    if (g.successors(id).empty()) {
      grad[v] = true;
      grads += model.gradBytes[v].value;
    }
    for (NodeId u : g.opPredecessors(id))
      if (!grad[u.value]) {
        grad[u.value] = true;
        grads += model.gradBytes[u.value].value;
      }
    for (NodeId p : sim::distinctParamInputs(g, id))
      if (!paramGrad[p.value]) {
        paramGrad[p.value] = true;
        paramGrads += g.node(p).bytes.value;
      }
    worst = std::max(
        worst, constant + grads + paramGrads + storageBytes(sim::savedOpValues(g, id)) + g.node(id).bwdWorkspace.value);
    if (grad[v]) {
      grad[v] = false;
      grads -= model.gradBytes[v].value;
    }
  }
  // Rematerializing a value during the backward pass holds the operands of the pending steps as well:
  // DTR's run with everything evictable evicted before every allocation measures that.
  const DtrRun evictAll = runDtr(g, Bytes{0}, limit, keep);
  if (evictAll.stopped || evictAll.outgrew) return {std::nullopt, evictAll.stopped};
  return {Bytes{std::max(worst, evictAll.bookedPeak.value)}, false};
}

}  // namespace remat::solvers
