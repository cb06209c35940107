#include "remat/viz/PlanFigures.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "remat/graph/ByteSize.hpp"
#include "remat/sim/MemoryBounds.hpp"
#include "remat/sim/Simulator.hpp"
#include "remat/solvers/SolverRegistry.hpp"
#include "remat/viz/MemoryLayout.hpp"
#include "remat/viz/NodeLabel.hpp"
#include "remat/viz/PlanMarks.hpp"
#include "remat/viz/ScheduleMatrix.hpp"

namespace remat::viz {

namespace {
constexpr std::string_view kPinnedSuffix = " \u00b7 pinned";
}  // namespace

std::string pinnedLabel(std::string_view solver) { return std::string(solver) + std::string(kPinnedSuffix); }

std::optional<std::string_view> pinnedSolver(std::string_view label) {
  if (label.size() <= kPinnedSuffix.size() || !label.ends_with(kPinnedSuffix)) return std::nullopt;
  return label.substr(0, label.size() - kPinnedSuffix.size());
}

std::optional<std::size_t> solverStyle(std::string_view label) {
  if (const auto solver = pinnedSolver(label)) {
    const auto own = solverStyle(*solver);
    return own ? std::optional<std::size_t>(*own + Theme::kPinnedStyle) : std::nullopt;
  }
  // A slot per solver (SolverInfo::figureSlot, chosen so that the ones compared most often differ most);
  // a solver without one gets a fixed slot after every solver's that has one.
  const auto& all = solvers::SolverRegistry::builtin().solvers();
  std::size_t firstFree = 0;
  for (const auto& s : all)
    if (s->info().figureSlot) firstFree = std::max(firstFree, *s->info().figureSlot + 1);
  for (std::size_t k = 0; k < all.size(); ++k)
    if (all[k]->info().id == label) return all[k]->info().figureSlot.value_or(firstFree + k);
  return std::nullopt;
}

std::string_view figureName(FigureKind kind) {
  switch (kind) {
    case FigureKind::Timeline: return "timeline";
    case FigureKind::Graph: return "graph";
    case FigureKind::Pareto: return "pareto";
    case FigureKind::Schedule: return "schedule";
    case FigureKind::Layout: return "layout";
  }
  return "?";
}

std::optional<FigureKind> figureFromName(std::string_view name) {
  for (FigureKind k : kAllFigures)
    if (figureName(k) == name) return k;
  return std::nullopt;
}

namespace {

// The plan's simulation: the one it carries, else a new one.
std::shared_ptr<const sim::SimulationResult> simulate(const graph::ComputeGraph& g, const LabeledPlan& p,
                                                      std::string& error) {
  auto r = p.simulation ? p.simulation
                        : std::make_shared<const sim::SimulationResult>(simulateForFigures(g, p.plan.schedule));
  if (!r->valid()) {
    error = "the plan '" + p.label + "' does not simulate: " + r->error->message;
    return nullptr;
  }
  return r;
}

}  // namespace

sim::SimulationResult simulateForFigures(const graph::ComputeGraph& g, const sim::Schedule& schedule) {
  sim::SimulatorOptions options;
  options.recordLifetimes = true;
  return sim::Simulator(g, options).run(schedule);
}

FigureResult buildFigure(const FigureRequest& request, const FigureStyle& style) {
  FigureResult out;
  if (request.graph == nullptr) {
    out.error = "no graph";
    return out;
  }
  const graph::ComputeGraph& g = *request.graph;
  const bool needsPlan = request.kind == FigureKind::Timeline || request.kind == FigureKind::Schedule ||
                         request.kind == FigureKind::Layout;
  if (needsPlan && request.plans.empty()) {
    out.error = "the " + std::string(figureName(request.kind)) + " figure needs a plan";
    return out;
  }
  switch (request.kind) {
    case FigureKind::Timeline: {
      TimelineData data;
      data.timeUnit = g.timeUnit();
      if (request.budget) data.budget = request.budget->value;
      // Plans that are no solver's (plan files, plans picked from a front) take the styles after every
      // solver's, in order, so that none looks like a solver's (store-all's black above all).
      std::size_t nextFree = 0;
      for (const auto& s : solvers::SolverRegistry::builtin().solvers())
        nextFree = std::max(nextFree, solverStyle(s->info().id).value_or(0) + 1);
      for (const LabeledPlan& p : request.plans) {
        const auto r = simulate(g, p, out.error);
        if (!r) return out;
        data.series.push_back(timelineSeries(g, p.plan.schedule, *r, p.label));
        data.series.back().style = solverStyle(p.label);
        if (!data.series.back().style && !pinnedSolver(p.label)) data.series.back().style = nextFree++;
      }
      out.scene = timelineScene(data, style, request.timelineAxis);
      return out;
    }
    case FigureKind::Graph: {
      NodeMarks marks;
      if (!request.plans.empty()) {
        const LabeledPlan& p = request.plans.front();
        marks = planMarks(g, p.plan.schedule, p.plan.lowerSets);
      }
      try {
        GraphDrawing drawing = layoutGraph(g, marks, request.graphOptions);
        for (DrawnNode& d : drawing.nodes)
          for (const graph::NodeId v : d.members) {
            d.found |= request.found == v;
            if (!g.isOp(v)) continue;
            const graph::OpIndex op = g.opIndex(v);
            if (std::find(request.pins.keep.begin(), request.pins.keep.end(), op) != request.pins.keep.end())
              d.pin = PinMark::Keep;
            if (std::find(request.pins.recompute.begin(), request.pins.recompute.end(), op) !=
                request.pins.recompute.end())
              d.pin = PinMark::Recompute;
          }
        if (!drawing.note.empty()) out.warnings.push_back("graph figure: " + drawing.note);
        if (double size = 0; !drawing.nodes.empty() && !graphLabelsShown(drawing, style, &size)) {
          char pt[32];
          std::snprintf(pt, sizeof pt, "%.1f", size * 72.0 / 96.0);
          out.warnings.push_back(std::string("graph figure: node names left out, they would be ") + pt +
                                 " pt at this size; a taller canvas (--height) or --collapse-chains shows them");
        }
        out.scene = graphScene(drawing, style);
      } catch (const GraphTooLarge& e) {
        out.error = e.what();
        out.tooLarge = true;
      } catch (const std::exception& e) {
        out.error = std::string("the graph layout failed: ") + e.what();
      }
      return out;
    }
    case FigureKind::Pareto:
      if (request.pareto.series.empty()) {
        out.error = "the pareto figure needs at least one solver's front";
        return out;
      }
      if (request.budget) {
        ParetoData data = request.pareto;
        data.budget = double(request.budget->value);
        out.scene = paretoScene(data, style);
      } else {
        out.scene = paretoScene(request.pareto, style);
      }
      return out;
    case FigureKind::Schedule: {
      const LabeledPlan& p = request.plans.front();
      const auto r = simulate(g, p, out.error);
      if (!r) return out;
      RowMarks marks;
      for (const graph::OpIndex op : request.pins.keep) marks.keep.push_back(g.opNode(op));
      for (const graph::OpIndex op : request.pins.recompute) marks.recompute.push_back(g.opNode(op));
      marks.found = request.found;
      out.scene = scheduleMatrixScene(buildScheduleMatrix(g, p.plan.schedule, *r), g, style, marks);
      return out;
    }
    case FigureKind::Layout: {
      const LabeledPlan& p = request.plans.front();
      const auto r = simulate(g, p, out.error);
      if (!r) return out;
      out.scene = memoryLayoutScene(planMemoryLayout(r->lifetimes, p.plan.schedule.size()), g, style);
      return out;
    }
  }
  out.error = "unknown figure";
  return out;
}

ParetoInputs paretoInputs(const graph::ComputeGraph& g, const std::vector<const solvers::Solver*>& chosen,
                          std::size_t points, std::stop_token stop, solvers::DpModelKind model,
                          const solvers::ProgressSink& progress, const solvers::Pins& pins,
                          const solvers::RunLimits& limits) {
  ParetoInputs out;
  const solvers::SharedTime shared(limits.time);
  ParetoData& data = out.data;
  data.timeUnit = g.timeUnit();
  data.memoryLabel = "simulated peak memory";
  const solvers::SolveResult vanilla = solvers::SolverRegistry::builtin().plainRun().solve({.graph = &g});
  if (vanilla.plan) data.vanilla = TradeOffPoint{double(vanilla.metrics.simulatedPeak.value), 0.0};
  data.memoryLowerBound = double(sim::memoryLowerBound(g).value);
  // The fronts to compute: every solver's, and under the pins those of the solvers that honour them.
  struct Job {
    const solvers::Solver* solver;
    bool pinned;
  };
  std::vector<Job> jobs;
  jobs.reserve(2 * chosen.size());
  for (const solvers::Solver* s : chosen) jobs.push_back({s, false});
  for (const solvers::Solver* s : chosen)
    if (solvers::honoursAll(s->info().pins, pins)) jobs.push_back({s, true});
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const solvers::Solver* s = jobs[k].solver;
    solvers::SolveRequest request{.graph = &g, .stop = stop, .model = model};
    if (jobs[k].pinned) request.pins = pins;
    const double share = 1.0 / double(jobs.size());
    const std::string label = jobs[k].pinned ? pinnedLabel(s->info().id) : s->info().id;
    if (shared.spent()) {
      out.skipped.push_back(label + ": the time limit ran out before its front");
      continue;
    }
    request.timeLimit = shared.next(jobs.size() - k);
    request.workLimit = limits.work;
    request.memoryLimit = limits.memory;
    if (progress) {
      progress(double(k) * share, label);
      request.progress = [&, k](double f, std::string_view stage) {
        progress((double(k) + std::clamp(f, 0.0, 1.0)) * share, label + ": " + std::string(stage));
      };
    }
    const solvers::Solver::TradeOff front = s->tradeOff(request, points);
    // A front with a plan the simulator rejected (a solver bug) is left out whole, with the reason.
    if (front.plans.empty() || front.call == solvers::CallStatus::Error) {
      out.skipped.push_back(label + ": " + front.message);
      continue;
    }
    if (front.status != solvers::SolveStatus::Optimal)
      out.partial.push_back(label + ": " + std::string(solvers::statusName(front.status)) + ": " + front.message);
    ParetoSeries series{label, {}, solverStyle(label)};
    std::vector<solvers::Plan> plans;
    for (const solvers::Solver::FrontPlan& p : front.plans) {
      series.points.push_back({double(p.metrics.simulatedPeak.value), double(p.metrics.overhead.value)});
      plans.push_back(p.plan);
    }
    data.series.push_back(std::move(series));
    out.plans.push_back(std::move(plans));
    if (!jobs[k].pinned && !data.leastBudget && s->info().budgetMeasure == solvers::BudgetMeasure::DpModel) {
      request.progress = {};  // the front's share is done; this is one more solve
      request.timeLimit = shared.next(jobs.size() - k);
      const solvers::Solver::MinBudget least = s->minBudget(request);
      if (least.bytes) data.leastBudget = double(least.bytes->value);
    }
  }
  if (progress) progress(1.0, "done");
  return out;
}

std::string nodeDetails(const graph::ComputeGraph& g, graph::NodeId v, const std::vector<LabeledPlan>& plans) {
  if (v.value >= g.size()) throw std::out_of_range("nodeDetails: no node " + std::to_string(v.value));
  const graph::Node& node = g.node(v);
  std::string out = displayName(node.name) + "\n" +
                    (node.op.empty() ? std::string(graph::nodeKindName(node.kind)) : node.op) + ", output " +
                    formatByteSizeExact(node.bytes);
  if (node.kind == graph::NodeKind::Op)
    out += "\nforward " + std::to_string(node.fwdTime.value) + " " + g.timeUnit() + ", backward " +
           std::to_string(node.bwdTime.value) + " " + g.timeUnit();
  // A graph captured from PyTorch (remat.torch.capture) says which module and operation each node is.
  if (!node.attrs.empty()) {
    const auto attrs = nlohmann::json::parse(node.attrs, nullptr, false);
    if (attrs.is_object()) {
      if (const auto m = attrs.find("module"); m != attrs.end() && m->is_string())
        out += "\nmodule " + displayName(m->get<std::string>());
      if (const auto t = attrs.find("torch"); t != attrs.end() && t->is_string())
        out += "\nPyTorch " + displayName(t->get<std::string>());
    }
  }
  for (const LabeledPlan& p : plans)
    out += "\n" + p.label + ": " + nodeRoleText(g, planMarks(g, p.plan.schedule, p.plan.lowerSets), v);
  return out;
}

}  // namespace remat::viz
