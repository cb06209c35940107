#include "remat/sim/Simulator.hpp"

#include <algorithm>
#include <vector>

#include "remat/graph/OpTable.hpp"
#include "remat/graph/PrintableText.hpp"

namespace remat::sim {
namespace {

using graph::ComputeGraph;
using graph::Node;
using graph::NodeId;

}  // namespace

std::vector<std::vector<NodeId>> lastValueUses(const ComputeGraph& g, const Schedule& schedule) {
  std::vector<std::vector<NodeId>> freeAfter(schedule.size());
  std::vector<bool> usedLater(g.size(), false);
  auto use = [&](std::size_t s, NodeId u) {
    if (!usedLater[u.value]) {
      freeAfter[s].push_back(u);
      usedLater[u.value] = true;
    }
  };
  for (std::size_t s = schedule.size(); s-- > 0;) {
    const Step& step = schedule[s];
    if (step.node.value >= g.size() || !g.isOp(step.node)) continue;  // reported by the forward pass
    switch (step.kind) {
      case StepKind::Forward:
        for (NodeId u : g.opPredecessors(step.node)) use(s, u);
        if (!usedLater[step.node.value]) freeAfter[s].push_back(step.node);
        usedLater[step.node.value] = false;
        break;
      case StepKind::Backward:
        for (NodeId u : savedOpValues(g, step.node)) use(s, u);
        break;
      case StepKind::Free: usedLater[step.node.value] = false; break;
      case StepKind::FreeGrad: break;
    }
  }
  return freeAfter;
}

std::vector<NodeId> savedOpValues(const ComputeGraph& g, NodeId v) {
  const Node& n = g.node(v);
  std::vector<NodeId> out;
  for (std::uint32_t k : n.saves.inputs)
    if (g.isOp(n.inputs[k])) out.push_back(n.inputs[k]);
  if (n.saves.output) out.push_back(v);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<NodeId> distinctParamInputs(const ComputeGraph& g, NodeId v) {
  std::vector<NodeId> out;
  for (NodeId u : g.node(v).inputs)
    if (g.node(u).hasGradient()) out.push_back(u);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

ViewInfo viewInfo(const ComputeGraph& g) {
  ViewInfo out;
  const std::size_t n = g.size();
  out.isView.assign(n, false);
  out.gradBytes.resize(n);
  for (std::uint32_t v = 0; v < n; ++v) {
    const Node& node = g.node(NodeId{v});
    out.gradBytes[v] = node.bytes;
    if (node.kind != graph::NodeKind::Op) continue;
    const graph::OpSpec* spec = graph::findOpSpec(node.op);
    if (spec != nullptr && !spec->differentiable) {
      out.gradBytes[v] = Bytes{0};  // no gradient flows into it (a node's own saved tensors)
      continue;
    }
    if (node.bytes.value != 0 || node.inputs.empty() || spec == nullptr || !spec->view) continue;
    out.isView[v] = true;
    // A view's gradient is a tensor of the view's own size where the graph gives its shape and dtype (a
    // slice of a split is a third of its base); otherwise that of the tensor at the bottom of the chain
    // (inputs come before their consumers, so the first input's size is already final).
    out.gradBytes[v] = out.gradBytes[node.inputs.front().value];
    if (const auto element = graph::dtypeBytes(node.dtype); element && !node.shape.empty()) {
      std::int64_t elements = 1;
      bool fits = true;
      for (std::int64_t d : node.shape)
        if (d < 0 || __builtin_mul_overflow(elements, d, &elements)) fits = false;
      std::int64_t bytes = 0;
      if (fits && !__builtin_mul_overflow(elements, *element, &bytes)) out.gradBytes[v] = Bytes{bytes};
    }
  }
  return out;
}

SimulationResult Simulator::run(const Schedule& schedule) const {
  const ComputeGraph& g = m_graph;
  const std::size_t n = g.size();
  SimulationResult result;
  auto fail = [&](std::size_t s, const std::string& why) {
    result.error = ScheduleError{s, "step " + std::to_string(s) + " (" + describeStep(g, schedule[s]) + "): " + why};
    return result;
  };
  auto name = [&](NodeId v) { return graph::quotedName(g.node(v).name); };
  // The clock saturates (Ticks): reaching 2^63 - 1 means the schedule's time cannot be counted.
  auto timeOverflow = [&](std::size_t s) {
    fail(s, "the schedule's total time passes 2^63 - 1 " + g.timeUnit() +
                " here, too much to count (this many recomputations of times this large)");
    result.error->timeOverflow = true;
    return result;
  };

  std::vector<std::vector<NodeId>> freeAfter;
  if (m_options.liveness) freeAfter = lastValueUses(g, schedule);

  std::vector<bool> alive(n, false);
  std::vector<bool> aliveIsRecompute(n, false);
  std::vector<std::uint32_t> computed(n, 0);
  std::vector<bool> gradPresent(n, false);
  std::vector<bool> bwdDone(n, false);
  std::vector<bool> paramGrad(n, false);
  std::vector<std::uint32_t> pendingConsumers(n, 0);
  for (std::uint32_t v = g.firstOp(); v < n; ++v)
    pendingConsumers[v] = static_cast<std::uint32_t>(g.successors(NodeId{v}).size());

  // Lifetimes, when asked: where each live value, gradient and parameter gradient began.
  const bool record = m_options.recordLifetimes;
  std::vector<std::size_t> gradFirst(record ? n : 0);
  std::vector<std::size_t> paramGradFirst(record ? n : 0);
  std::size_t at = 0;  // the step being simulated
  using Kind = TensorLifetime::Kind;
  auto lifetime = [&](Kind kind, NodeId v, Bytes bytes, std::size_t first, std::size_t last) {
    if (record && bytes.value > 0) result.lifetimes.push_back(TensorLifetime{kind, v, bytes, first, last});
  };

  MemoryBreakdown mem;
  mem.params = g.paramBytes();
  mem.inputs = g.inputBytes();
  Ticks clock{0};

  // Values live in storages. An operation's forward makes a new one; a view (ViewInfo) shares the
  // storage of its first input, so a storage stays allocated while its maker or any view of it is in
  // memory. As the runner counts real tensors, a storage is counted once, in the category of its maker
  // while that is in memory, else of its lowest-numbered view in memory (recomputed or not).
  const ViewInfo views = viewInfo(g);
  struct Storage {
    Bytes bytes{0};
    std::optional<NodeId> maker;             ///< while in memory
    std::vector<std::uint32_t> viewHolders;  ///< views in memory sharing it, ascending
    Bytes* counted = nullptr;                ///< the category it is counted in now; null when released
    NodeId countedAs;                        ///< the holder it is counted for (its lifetime's node)
    std::size_t countedFrom = 0;
  };
  std::vector<Storage> storages;
  std::vector<std::optional<std::size_t>> storageOf(
      n);  ///< of each value in memory; none for views of resident tensors
  auto holderCategory = [&](NodeId x) -> Bytes& { return aliveIsRecompute[x.value] ? mem.recomputed : mem.values; };
  // Moves a storage's bytes to where its holders say, recording the lifetime that ends, if any.
  auto attribute = [&](std::size_t id, std::size_t step) {
    Storage& st = storages[id];
    std::optional<NodeId> holder = st.maker;
    if (!holder && !st.viewHolders.empty()) holder = NodeId{st.viewHolders.front()};
    Bytes* category = holder ? &holderCategory(*holder) : nullptr;
    if (category == st.counted && (!holder || *holder == st.countedAs)) return;
    if (st.counted) {
      *st.counted -= st.bytes;
      if (record && step > st.countedFrom)
        lifetime(st.counted == &mem.recomputed ? Kind::Recomputed : Kind::Value, st.countedAs, st.bytes, st.countedFrom,
                 step - 1);
    }
    st.counted = category;
    if (category) {
      *category += st.bytes;
      st.countedAs = *holder;
      st.countedFrom = step;
    }
  };
  // A value enters memory at step s (counted from s on).
  auto makeValue = [&](NodeId v, std::size_t step) {
    if (views.isView[v.value]) {
      const NodeId base = g.node(v).inputs.front();
      storageOf[v.value] = g.isOp(base) ? storageOf[base.value] : std::nullopt;
      if (!storageOf[v.value]) return;  // a view of an input or a parameter: resident already
      auto& holders = storages[*storageOf[v.value]].viewHolders;
      holders.insert(std::lower_bound(holders.begin(), holders.end(), v.value), v.value);
    } else {
      storageOf[v.value] = storages.size();
      storages.push_back(Storage{g.node(v).bytes, v, {}, nullptr, v, step});
    }
    attribute(*storageOf[v.value], step);
  };
  auto freeValue = [&](NodeId v) {
    alive[v.value] = false;
    if (!storageOf[v.value]) return;
    Storage& st = storages[*storageOf[v.value]];
    if (views.isView[v.value])
      st.viewHolders.erase(std::find(st.viewHolders.begin(), st.viewHolders.end(), v.value));
    else
      st.maker.reset();
    attribute(*storageOf[v.value], at + 1);  // counted during this step, no longer after it
    storageOf[v.value].reset();
  };
  auto freeGrad = [&](NodeId v) {
    gradPresent[v.value] = false;
    mem.grads -= views.gradBytes[v.value];
    if (record) lifetime(Kind::Grad, v, views.gradBytes[v.value], gradFirst[v.value], at);
  };

  result.timeline = MemoryTimeline{};
  for (std::size_t s = 0; s < schedule.size(); ++s) {
    const Step& step = schedule[s];
    const NodeId v = step.node;
    if (v.value >= n) return fail(s, "node index " + std::to_string(v.value) + " is not in the graph");
    if (!g.isOp(v))
      return fail(s, name(v) + " is an input or parameter: it is resident and has no forward or backward");
    const Node& node = g.node(v);
    MemoryBreakdown during = mem;
    at = s;

    switch (step.kind) {
      case StepKind::Forward: {
        if (alive[v.value]) return fail(s, "the value of " + name(v) + " is already in memory");
        for (NodeId u : g.opPredecessors(v))
          if (!alive[u.value]) return fail(s, "input " + name(u) + " is not in memory");
        const bool recompute = computed[v.value] > 0;
        ++computed[v.value];
        alive[v.value] = true;
        aliveIsRecompute[v.value] = recompute;
        makeValue(v, s);
        during = mem;
        during.workspace = node.workspace;
        clock += node.fwdTime;
        if (clock == Ticks::max()) return timeOverflow(s);
        if (recompute) {
          result.overhead += node.fwdTime;
          ++result.recomputations;
        }
        break;
      }
      case StepKind::Backward: {
        if (g.asGiven())
          return fail(s, "the graph is computed as given, with no backward pass: its schedules run forwards only");
        if (bwdDone[v.value]) return fail(s, "the backward of " + name(v) + " already ran");
        if (pendingConsumers[v.value] > 0) {
          for (NodeId w : g.successors(v))
            if (!bwdDone[w.value])
              return fail(s, "the gradient of " + name(v) + " is incomplete: the backward of its consumer " + name(w) +
                                 " has not run");
        }
        if (g.successors(v).empty()) {
          if (computed[v.value] == 0) return fail(s, "output " + name(v) + " was never computed");
          gradPresent[v.value] = true;  // the seed gradient of an output
          mem.grads += views.gradBytes[v.value];
          if (record) gradFirst[v.value] = s;
        } else if (!gradPresent[v.value]) {
          return fail(s, "the gradient of " + name(v) + " is not in memory");
        }
        for (NodeId u : savedOpValues(g, v))
          if (!alive[u.value])
            return fail(s, u == v
                               ? "its own output, which its backward keeps, is not in memory"
                               : "the value of its input " + name(u) + ", which its backward keeps, is not in memory");
        for (NodeId u : g.opPredecessors(v))
          if (!gradPresent[u.value]) {
            gradPresent[u.value] = true;
            mem.grads += views.gradBytes[u.value];
            if (record) gradFirst[u.value] = s;
          }
        for (NodeId p : distinctParamInputs(g, v))
          if (!paramGrad[p.value]) {
            paramGrad[p.value] = true;
            mem.paramGrads += g.node(p).bytes;
            if (record) paramGradFirst[p.value] = s;
          }
        during = mem;
        during.workspace = node.bwdWorkspace;
        clock += node.bwdTime;
        if (clock == Ticks::max()) return timeOverflow(s);
        bwdDone[v.value] = true;
        for (NodeId u : g.opPredecessors(v)) --pendingConsumers[u.value];
        break;
      }
      case StepKind::Free:
        if (!alive[v.value]) {
          // Liveness may have freed it already; nothing frees what was never made.
          if (computed[v.value] == 0)
            return fail(s, "the value of " + name(v) + " is freed before it is ever computed");
          if (m_options.liveness) break;
          return fail(s, "the value of " + name(v) + " is not in memory");
        }
        freeValue(v);
        break;
      case StepKind::FreeGrad:
        if (g.asGiven()) return fail(s, "the graph is computed as given: it has no gradients to free");
        if (!gradPresent[v.value]) {
          // A gradient leaves memory at its own backward at the earliest (liveness, or a free-grad after
          // it): absent before that, it does not exist yet.
          if (!bwdDone[v.value]) return fail(s, "the gradient of " + name(v) + " is freed before it exists");
          if (m_options.liveness) break;
          return fail(s, "the gradient of " + name(v) + " is not in memory");
        }
        if (!bwdDone[v.value]) return fail(s, "the gradient of " + name(v) + " is freed before its backward ran");
        freeGrad(v);
        break;
    }

    if (m_options.liveness) {
      for (NodeId u : freeAfter[s])
        if (alive[u.value]) freeValue(u);
      if (step.kind == StepKind::Backward && gradPresent[v.value]) freeGrad(v);
    }
    if (record && (step.kind == StepKind::Forward || step.kind == StepKind::Backward))
      lifetime(Kind::Workspace, v, step.kind == StepKind::Forward ? node.workspace : node.bwdWorkspace, s, s);
    result.timeline.push(TimelinePoint{during, mem.total(), clock});
  }
  if (record && !schedule.empty()) {
    // What is still allocated at the end lives to the last step; inputs and parameters throughout.
    const std::size_t last = schedule.size() - 1;
    for (std::uint32_t v = 0; v < n; ++v) {
      const NodeId id{v};
      const Node& node = g.node(id);
      if (node.kind == graph::NodeKind::Param) {
        lifetime(Kind::Param, id, node.bytes, 0, last);
        if (paramGrad[v]) lifetime(Kind::ParamGrad, id, node.bytes, paramGradFirst[v], last);
      } else if (node.kind == graph::NodeKind::Input) {
        lifetime(Kind::Input, id, node.bytes, 0, last);
      } else if (gradPresent[v]) {
        lifetime(Kind::Grad, id, views.gradBytes[v], gradFirst[v], last);
      }
    }
    for (const Storage& st : storages)
      if (st.counted)
        lifetime(st.counted == &mem.recomputed ? Kind::Recomputed : Kind::Value, st.countedAs, st.bytes, st.countedFrom,
                 last);
  }

  if (m_options.requireComplete) {
    const std::size_t end = schedule.size();
    // Report the latest node first: it is the next backward a truncated schedule should have run.
    for (auto v = static_cast<std::uint32_t>(n); v-- > g.firstOp();) {
      if (computed[v] == 0) {
        result.error = ScheduleError{end, "the schedule never computes " + graph::quotedName(g.node(NodeId{v}).name)};
        return result;
      }
      if (!bwdDone[v] && !g.asGiven()) {
        result.error =
            ScheduleError{end, "the schedule ends before the backward of " + graph::quotedName(g.node(NodeId{v}).name)};
        return result;
      }
    }
  }
  for (std::uint32_t v = g.firstOp(); v < n; ++v)
    if (computed[v] > 1) ++result.recomputedNodes;
  result.peak = result.timeline.peak();
  result.peakStep = result.timeline.peakStep();
  result.totalTime = clock;
  return result;
}

}  // namespace remat::sim
