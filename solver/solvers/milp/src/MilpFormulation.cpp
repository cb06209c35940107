#include "MilpFormulation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "remat/graph/ByteSize.hpp"
#include "remat/sim/Simulator.hpp"

namespace remat::solvers::milp_detail {

using graph::ComputeGraph;
using graph::NodeId;

namespace {
// The distinct operation values a node's backward keeps (the simulator's rule).
std::vector<std::uint32_t> savedOps(const ComputeGraph& g, NodeId v) {
  const graph::Node& node = g.node(v);
  std::vector<std::uint32_t> out;
  for (std::uint32_t k : node.saves.inputs)
    if (g.isOp(node.inputs[k])) out.push_back(g.opIndex(node.inputs[k]).value);
  if (node.saves.output) out.push_back(g.opIndex(v).value);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Bytes a value holds in the simulator's accounting, as a safe upper bound: a view counts the whole
// storage it shares (0 when that storage is an input or parameter, which are resident anyway).
std::vector<double> valueBytes(const ComputeGraph& g) {
  const sim::ViewInfo views = sim::viewInfo(g);
  std::vector<double> m(g.opCount());
  for (std::uint32_t i = 0; i < g.opCount(); ++i) {
    NodeId v = g.opNode(graph::OpIndex{i});
    while (views.isView[v.value]) v = g.node(v).inputs.front();
    m[i] = g.isOp(v) ? static_cast<double>(g.node(v).bytes.value) : 0.0;
  }
  return m;
}

}  // namespace

Formulation formulate(const ComputeGraph& g, std::optional<Bytes> budget, const Pins& pins) {
  Formulation f;
  const std::size_t n = g.opCount();
  f.n = n;
  // A graph computed as given is the whole computation: its n stages compute forwards only, the
  // formulation Checkmate states for any DAG (and Moccasin's and FastSA's tables use on such graphs).
  f.stages = g.asGiven() ? n : 2 * n;
  std::vector<double> mem = valueBytes(g);
  const sim::ViewInfo views = sim::viewInfo(g);
  auto node = [&](std::size_t i) { return g.opNode(graph::OpIndex{static_cast<std::uint32_t>(i)}); };
  std::vector<std::vector<std::uint32_t>> preds(n), saves(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (NodeId u : g.opPredecessors(node(i))) preds[i].push_back(g.opIndex(u).value);
    saves[i] = savedOps(g, node(i));
    f.fwdOnce += static_cast<double>(g.node(node(i)).fwdTime.value);
    f.fixedTime += static_cast<double>(g.node(node(i)).bwdTime.value);
  }
  f.constantTime = f.fwdOnce + f.fixedTime;

  // Per-stage constants: resident inputs and parameters, gradients and parameter gradients present before the
  // stage's backward (cPre) and during it (cBwd, with its workspace), exactly as the simulator counts them.
  const double resident = static_cast<double>(g.inputBytes().value + g.paramBytes().value);
  std::vector<double> cPre(f.stages, resident), cBwd(f.stages, resident);
  {
    std::vector<bool> grad(g.size(), false), paramGrad(g.size(), false);
    double grads = 0.0;
    for (std::size_t t = n; t < f.stages; ++t) {
      cPre[t] = resident + grads;
      const NodeId v = node(f.backwardOp(t));
      double during = grads;
      if (g.successors(v).empty()) during += static_cast<double>(views.gradBytes[v.value].value);
      for (NodeId u : g.opPredecessors(v))
        if (!grad[u.value]) {
          grad[u.value] = true;
          const auto b = static_cast<double>(views.gradBytes[u.value].value);
          during += b;
          grads += b;
        }
      for (NodeId p : g.node(v).inputs)
        if (g.node(p).hasGradient() && !paramGrad[p.value]) {
          paramGrad[p.value] = true;
          const auto b = static_cast<double>(g.node(p).bytes.value);
          during += b;
          grads += b;
        }
      cBwd[t] = resident + during + static_cast<double>(g.node(v).bwdWorkspace.value);
      if (grad[v.value]) {
        grad[v.value] = false;
        grads -= static_cast<double>(views.gradBytes[v.value].value);
      }
    }
  }
  double limit = budget ? static_cast<double>(budget->value) : 0.0;
  // Memory in bytes (1e10 on real networks) next to 0/1 coefficients leaves CLP's bases so badly scaled that
  // its primal simplex ran for over two minutes inside CBC's root heuristics (Checkmate's VGG16 at 90% of the
  // peak), out of reach of the time limit. A power of two divides exactly, and at most 2^20 keeps the
  // solvers' absolute feasibility tolerance (1e-7 units) below a tenth of a byte: every memory figure is a
  // whole number of bytes, so the budget rows still judge exactly.
  double magnitude = limit;
  for (double b : mem) magnitude = std::max(magnitude, b);
  for (double c : cBwd) magnitude = std::max(magnitude, c);
  f.memoryScale = std::exp2(std::clamp(std::floor(std::log2(std::max(1.0, magnitude) / 1024.0)), 0.0, 20.0));
  for (double& b : mem) b /= f.memoryScale;
  for (double& c : cPre) c /= f.memoryScale;
  for (double& c : cBwd) c /= f.memoryScale;
  limit /= f.memoryScale;

  // Variables R (compute) and S (keep): R[t][i] for i < forwardSlots(t), S[t][i] for i < min(t, n).
  f.R.assign(f.stages, std::vector<int>(n, -1));
  f.S.assign(f.stages, std::vector<int>(n, -1));
  for (std::size_t t = 0; t < f.stages; ++t) {
    for (std::size_t i = 0; i < f.forwardSlots(t); ++i)
      f.R[t][i] = f.addCol(t < n && i == t ? 1.0 : 0.0, 1.0, static_cast<double>(g.node(node(i)).fwdTime.value), true);
    for (std::size_t i = 0; i < std::min(t, n); ++i) f.S[t][i] = f.addCol(0.0, 1.0, 0.0, true);
  }
  // Pins fix variables: an op pinned keep is computed at its own stage only (R fixed to 0 elsewhere), one
  // pinned recompute is never kept from one stage into the next (S fixed to 0). Both leave the problem
  // feasible without a budget: a kept value is kept, a recomputed one recomputed from its inputs.
  for (graph::OpIndex op : pins.keep)
    for (std::size_t t = 0; t < f.stages; ++t)
      if (t != op.value && f.R[t][op.value] >= 0) f.colUp[static_cast<std::size_t>(f.R[t][op.value])] = 0.0;
  for (graph::OpIndex op : pins.recompute)
    for (std::size_t t = 0; t < f.stages; ++t)
      if (f.S[t][op.value] >= 0) f.colUp[static_cast<std::size_t>(f.S[t][op.value])] = 0.0;

  for (std::size_t t = 0; t < f.stages; ++t) {
    const std::size_t fs = f.forwardSlots(t);
    const bool hasBwd = t >= n;
    const std::size_t slots = fs + (hasBwd ? 1 : 0);
    const std::uint32_t bwdOp = hasBwd ? f.backwardOp(t) : 0;
    // Which slots use value i in this stage (its own slot first, then consumers, then the backward).
    std::vector<std::vector<std::size_t>> uses(n);
    for (std::size_t j = 0; j < fs; ++j) {
      uses[j].push_back(j);
      for (std::uint32_t i : preds[j]) uses[i].push_back(j);
    }
    if (hasBwd)
      for (std::uint32_t i : saves[bwdOp]) uses[i].push_back(fs);
    for (auto& u : uses) std::sort(u.begin(), u.end());
    auto rAt = [&](std::size_t slot) { return slot < fs ? f.R[t][slot] : -1; };  // -1: the backward (always runs)

    for (std::size_t i = 0; i < n; ++i) {
      // Never recompute a value that is kept (the simulator rejects a forward of a value in memory).
      if (f.R[t][i] >= 0 && f.S[t][i] >= 0) f.addRow({{f.R[t][i], 1.0}, {f.S[t][i], 1.0}}, -1e30, 1.0);
      // Keep only what was computed or kept in the previous stage.
      if (t + 1 < f.stages && f.S[t + 1][i] >= 0) {
        std::vector<std::pair<int, double>> row{{f.S[t + 1][i], 1.0}, {f.R[t][i], -1.0}};
        if (f.S[t][i] >= 0) row.emplace_back(f.S[t][i], -1.0);
        f.addRow(row, -1e30, 0.0);
      }
    }
    // Dependencies: a forward needs its operation inputs; a backward needs the values it keeps.
    for (std::size_t j = 0; j < fs; ++j)
      for (std::uint32_t i : preds[j]) f.addRow({{f.R[t][j], 1.0}, {f.R[t][i], -1.0}, {f.S[t][i], -1.0}}, -1e30, 0.0);
    if (hasBwd)
      for (std::uint32_t i : saves[bwdOp]) f.addRow({{f.R[t][i], 1.0}, {f.S[t][i], 1.0}}, 1.0, 1e30);

    // FREE[i][k]: value i is dropped right after slot k (continuous: only bounded above, the memory
    // constraints push it to 1 where allowed, which is integral when R and S are).
    std::vector<std::vector<std::pair<int, double>>> freedAfter(slots);  // -(bytes) * FREE terms
    for (std::size_t i = 0; i < n; ++i) {
      const auto& us = uses[i];
      for (std::size_t a = 0; a < us.size(); ++a) {
        const std::size_t k = us[a];
        // A later use by the stage's backward (which always runs) forbids the free outright.
        const bool backwardLater = us.back() >= fs && k < fs;
        const int fr = f.addCol(0.0, backwardLater ? 0.0 : 1.0, 0.0, false);
        if (rAt(k) >= 0) f.addRow({{fr, 1.0}, {rAt(k), -1.0}}, -1e30, 0.0);
        if (t + 1 < f.stages && f.S[t + 1][i] >= 0) f.addRow({{fr, 1.0}, {f.S[t + 1][i], 1.0}}, -1e30, 1.0);
        for (std::size_t b = a + 1; b < us.size(); ++b)
          if (rAt(us[b]) >= 0) f.addRow({{fr, 1.0}, {rAt(us[b]), 1.0}}, -1e30, 1.0);
        if (mem[i] > 0) freedAfter[k].push_back({fr, mem[i]});
      }
    }
    // Memory during each slot (values only; constants go to the budget side).
    int prevU = -1;
    for (std::size_t k = 0; k < slots; ++k) {
      const int u = f.addCol(0.0, 1e30, 0.0, false);
      std::vector<std::pair<int, double>> row{{u, 1.0}};
      if (k == 0) {
        for (std::size_t i = 0; i < n; ++i)
          if (f.S[t][i] >= 0 && mem[i] > 0) row.emplace_back(f.S[t][i], -mem[i]);
      } else {
        row.emplace_back(prevU, -1.0);
        for (const auto& [fr, b] : freedAfter[k - 1]) row.emplace_back(fr, b);
      }
      if (k < fs && mem[k] > 0) row.emplace_back(f.R[t][k], -mem[k]);
      f.addRow(row, 0.0, 0.0);
      if (budget) {
        if (k < fs) {
          const double ws = static_cast<double>(g.node(node(k)).workspace.value) / f.memoryScale;
          const double room = limit - cPre[t];
          if (room < 0) f.infeasibleConstants = true;
          f.addRow({{u, 1.0}, {f.R[t][k], ws}}, -1e30, room);
        } else {
          const double room = limit - cBwd[t];
          if (room < 0) f.infeasibleConstants = true;
          f.addRow({{u, 1.0}}, -1e30, room);
        }
      }
      prevU = u;
    }
  }
  return f;
}

// Decodes rounded R/S into a schedule: per stage, the forwards R asks for (skipping values already in
// memory), the stage's backward and its gradient's free, and each value freed right after its last use in
// the stage unless S keeps it.
sim::Schedule decode(const ComputeGraph& g, const Formulation& f, const double* x) {
  const std::size_t n = f.n;
  auto on = [&](int c) { return c >= 0 && x[c] > 0.5; };
  auto node = [&](std::size_t i) { return g.opNode(graph::OpIndex{static_cast<std::uint32_t>(i)}); };
  std::vector<std::vector<std::uint32_t>> preds(n), saves(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (NodeId u : g.opPredecessors(node(i))) preds[i].push_back(g.opIndex(u).value);
    saves[i] = savedOps(g, node(i));
  }
  sim::Schedule out;
  std::vector<bool> alive(n, false);
  for (std::size_t t = 0; t < f.stages; ++t) {
    const std::size_t fs = f.forwardSlots(t);
    const bool hasBwd = t >= n;
    const std::size_t slots = fs + (hasBwd ? 1 : 0);
    auto runs = [&](std::size_t k) { return k >= fs || on(f.R[t][k]); };
    auto uses = [&](std::size_t k, std::size_t i) {
      if (k >= fs)
        return std::find(saves[f.backwardOp(t)].begin(), saves[f.backwardOp(t)].end(), i) !=
               saves[f.backwardOp(t)].end();
      return std::find(preds[k].begin(), preds[k].end(), i) != preds[k].end();
    };
    auto freeDead = [&](std::size_t from) {  // values no slot >= from uses and the next stage does not keep
      for (std::size_t i = 0; i < n; ++i) {
        if (!alive[i] || (t + 1 < f.stages && on(f.S[t + 1][i]))) continue;
        bool needed = false;
        for (std::size_t k = from; k < slots && !needed; ++k) needed = runs(k) && uses(k, i);
        if (!needed) {
          alive[i] = false;
          out.push_back({sim::StepKind::Free, node(i)});
        }
      }
    };
    freeDead(0);
    for (std::size_t k = 0; k < slots; ++k) {
      if (k < fs) {
        if (!on(f.R[t][k]) || alive[k]) continue;
        out.push_back({sim::StepKind::Forward, node(k)});
        alive[k] = true;
      } else {
        out.push_back({sim::StepKind::Backward, node(f.backwardOp(t))});
        out.push_back({sim::StepKind::FreeGrad, node(f.backwardOp(t))});
      }
      freeDead(k + 1);
    }
  }
  return out;
}

}  // namespace remat::solvers::milp_detail
