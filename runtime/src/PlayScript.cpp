#include "remat/runtime/PlayScript.hpp"

#include <algorithm>
#include <string>

#include "remat/runtime/RunnerError.hpp"

namespace remat::runtime {
namespace {

// Distinct op-node values a backward reads: its saved operands that are operations, and itself when it
// keeps its output (the simulator's savedOpValues).
std::vector<std::size_t> savedOpValues(const GraphSpec& g, std::size_t v) {
  const NodeSpec& n = g.node(v);
  std::vector<std::size_t> out;
  for (std::uint32_t k : n.savesInputs)
    if (g.isOp(n.inputs[k])) out.push_back(n.inputs[k]);
  if (n.savesOutput) out.push_back(v);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// The simulator's lastValueUses: a backward scan; a use is the last when nothing later uses the same
// instance of the value; a forward or an explicit free of v starts or ends an instance.
std::vector<std::vector<std::size_t>> lastValueUses(const GraphSpec& g, const std::vector<PlanStep>& schedule) {
  std::vector<std::vector<std::size_t>> freeAfter(schedule.size());
  std::vector<bool> usedLater(g.nodes.size(), false);
  auto use = [&](std::size_t s, std::size_t u) {
    if (!usedLater[u]) {
      freeAfter[s].push_back(u);
      usedLater[u] = true;
    }
  };
  for (std::size_t s = schedule.size(); s-- > 0;) {
    const PlanStep& step = schedule[s];
    if (!g.isOp(step.node)) continue;
    switch (step.kind) {
      case StepKind::Forward:
        for (std::size_t u : g.opPredecessors[step.node]) use(s, u);
        if (!usedLater[step.node]) freeAfter[s].push_back(step.node);
        usedLater[step.node] = false;
        break;
      case StepKind::Backward:
        for (std::size_t u : savedOpValues(g, step.node)) use(s, u);
        break;
      case StepKind::Free: usedLater[step.node] = false; break;
      case StepKind::FreeGrad: break;
    }
  }
  return freeAfter;
}

}  // namespace

std::vector<ScriptStep> makePlayScript(const GraphSpec& g, const PlanSpec& plan, bool liveness) {
  const auto& schedule = plan.schedule;
  const std::size_t n = g.nodes.size();
  auto name = [&](std::size_t v) { return "'" + g.node(v).id + "'"; };
  auto fail = [&](std::size_t s, const std::string& why) {
    const PlanStep& st = schedule[s];
    return RunnerError(ExitCode::Schedule, plan.file + ": step " + std::to_string(s) + " (" +
                                               std::string(stepKindName(st.kind)) + " " + name(st.node) +
                                               "): the runner cannot play it: " + why);
  };
  std::vector<std::vector<std::size_t>> freeAfter;
  if (liveness) freeAfter = lastValueUses(g, schedule);

  std::vector<bool> alive(n, false), gradPresent(n, false), bwdDone(n, false);
  std::vector<std::uint32_t> computed(n, 0);
  std::vector<ScriptStep> script;
  script.reserve(schedule.size());
  for (std::size_t s = 0; s < schedule.size(); ++s) {
    const std::size_t v = schedule[s].node;
    ScriptStep out;
    out.kind = schedule[s].kind;
    out.node = v;
    if (!g.isOp(v)) throw fail(s, name(v) + " is an input or parameter: it is resident and has no forward or backward");
    switch (out.kind) {
      case StepKind::Forward:
        if (alive[v]) throw fail(s, "the value of " + name(v) + " is already in memory");
        for (std::size_t u : g.opPredecessors[v])
          if (!alive[u]) throw fail(s, "input " + name(u) + " is not in memory");
        out.recompute = computed[v] > 0;
        ++computed[v];
        alive[v] = true;
        break;
      case StepKind::Backward:
        if (bwdDone[v]) throw fail(s, "the backward of " + name(v) + " already ran");
        for (std::size_t w : g.successors[v])
          if (!bwdDone[w])
            throw fail(s, "the gradient of " + name(v) + " is incomplete: the backward of its consumer " + name(w) +
                              " has not run");
        if (g.successors[v].empty()) {
          if (computed[v] == 0) throw fail(s, "output " + name(v) + " was never computed");
          out.seedsGradient = true;
          gradPresent[v] = true;
        } else if (!gradPresent[v]) {
          throw fail(s, "the gradient of " + name(v) + " is not in memory");
        }
        for (std::size_t u : savedOpValues(g, v))
          if (!alive[u])
            throw fail(s, u == v
                              ? "its own output, which its backward keeps, is not in memory"
                              : "the value of its input " + name(u) + ", which its backward keeps, is not in memory");
        for (std::size_t u : g.opPredecessors[v]) gradPresent[u] = true;
        bwdDone[v] = true;
        break;
      case StepKind::Free:
        if (!alive[v]) {
          if (!liveness) throw fail(s, "the value of " + name(v) + " is not in memory");
          out.explicitFreeNoop = true;
          break;
        }
        alive[v] = false;
        break;
      case StepKind::FreeGrad:
        if (!gradPresent[v]) {
          if (!liveness) throw fail(s, "the gradient of " + name(v) + " is not in memory");
          out.explicitFreeNoop = true;
          break;
        }
        if (!bwdDone[v]) throw fail(s, "the gradient of " + name(v) + " is freed before its backward ran");
        gradPresent[v] = false;
        break;
    }
    if (liveness) {
      for (std::size_t u : freeAfter[s])
        if (alive[u]) {
          alive[u] = false;
          out.freeValuesAfter.push_back(u);
        }
      if (out.kind == StepKind::Backward && gradPresent[v]) {
        gradPresent[v] = false;
        out.freeOwnGradAfter = true;
      }
    }
    script.push_back(std::move(out));
  }
  // Complete: every operation computed and its backward run once (the parameter gradients need it).
  for (std::size_t v = n; v-- > 0;) {
    if (!g.isOp(v)) continue;
    if (computed[v] == 0)
      throw RunnerError(ExitCode::Schedule, plan.file + ": step " + std::to_string(schedule.size()) +
                                                ": the schedule never computes " + name(v));
    if (!bwdDone[v])
      throw RunnerError(ExitCode::Schedule, plan.file + ": step " + std::to_string(schedule.size()) +
                                                ": the schedule ends before the backward of " + name(v));
  }
  return script;
}

}  // namespace remat::runtime
