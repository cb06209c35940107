#include "remat/studio/StudioDocument.hpp"

#include <algorithm>

#include "remat/graph/ByteSize.hpp"
#include "remat/graph/CostModel.hpp"
#include "remat/graph/WorkspaceModel.hpp"
#include "remat/solvers/SolverRegistry.hpp"

namespace remat::studio {

namespace {

bool samePins(solvers::Pins a, solvers::Pins b) {
  for (auto* p : {&a, &b}) {
    std::sort(p->keep.begin(), p->keep.end());
    std::sort(p->recompute.begin(), p->recompute.end());
  }
  return a.keep == b.keep && a.recompute == b.recompute;
}

// The pins a solve under the user's `pins` runs with: the graph's own too.
solvers::Pins withGraphs(const graph::ComputeGraph* g, const solvers::Pins& pins) {
  std::string conflict;  // such a solve is refused, so its row holds no pins to compare
  const auto request = solvers::withGraphPins({.graph = g, .pins = pins}, conflict);
  return request ? request->pins : pins;
}

std::shared_ptr<const sim::SimulationResult> simulated(const graph::ComputeGraph& g, const solvers::Plan& plan) {
  return std::make_shared<const sim::SimulationResult>(viz::simulateForFigures(g, plan.schedule));
}

}  // namespace

std::optional<std::string> StudioDocument::open(const graph::ComputeGraph& raw, const std::string& costModel,
                                                const std::string& workspaceModel) {
  auto costed = graph::applyCostModel(raw, costModel);
  if (!costed.ok()) return costed.errorText();
  auto withWorkspace = graph::applyWorkspaceModel(costed.value(), workspaceModel);
  if (!withWorkspace.ok()) return withWorkspace.errorText();
  auto g = std::make_shared<const graph::ComputeGraph>(std::move(withWorkspace).value());
  // The plain run is the timeline's baseline and the budget slider's full scale.
  solvers::SolveResult vanilla = solvers::SolverRegistry::builtin().plainRun().solve({.graph = g.get()});
  if (!vanilla.plan) return "the plain run does not simulate: " + vanilla.message;
  setGraph(std::move(g), std::move(vanilla));
  return std::nullopt;
}

void StudioDocument::setGraph(std::shared_ptr<const graph::ComputeGraph> graph, solvers::SolveResult vanilla) {
  m_graph = std::move(graph);
  m_vanillaSimulation = vanilla.plan ? simulated(*m_graph, *vanilla.plan) : nullptr;
  m_vanilla = std::move(vanilla);
  m_budget.reset();
  m_least = false;
  m_entries.clear();
  m_pins = {};
  clearPareto();
}

std::vector<solvers::SolveResult> StudioDocument::startRun(std::optional<Bytes> budget, bool least) {
  m_budget = least ? std::nullopt : budget;
  m_least = least;
  std::vector<solvers::SolveResult> judged;
  for (auto it = m_entries.begin(); it != m_entries.end();) {
    if (it->second.origin == Origin::Solver) {
      it = m_entries.erase(it);
      continue;
    }
    // The plan and its simulated figures stay; its verdict is the new budget's.
    Entry& e = it->second;
    solvers::judgeAtBudget(e.result, m_budget);
    if (!e.note.empty()) e.result.message = e.note + ", judged at the budget at hand: " + e.result.message;
    judged.push_back(e.result);
    ++it;
  }
  return judged;
}

void StudioDocument::store(const solvers::SolveResult& result, Origin origin) {
  Entry& e = m_entries[result.solver];
  e.result = result;
  e.origin = origin;
  e.simulation = simulated(*m_graph, *result.plan);
}

void StudioDocument::setResult(const solvers::SolveResult& result) {
  if (!m_graph) return;
  if (!result.plan) {
    m_entries.erase(result.solver);
    return;
  }
  store(result, Origin::Solver);
}

solvers::SolveResult StudioDocument::addPlan(const std::string& label, solvers::Plan plan, Origin origin) {
  solvers::SolveResult judged = solvers::judgePlan(*m_graph, label, std::move(plan), m_budget);
  if (judged.plan) store(judged, origin);
  return judged;
}

const solvers::SolveResult* StudioDocument::result(const std::string& label) const {
  const auto it = m_entries.find(label);
  return it == m_entries.end() ? nullptr : &it->second.result;
}

StudioDocument::Origin StudioDocument::origin(const std::string& label) const {
  const auto it = m_entries.find(label);
  return it == m_entries.end() ? Origin::Solver : it->second.origin;
}

std::optional<viz::LabeledPlan> StudioDocument::plan(const std::string& label) const {
  const auto it = m_entries.find(label);
  if (it == m_entries.end()) return std::nullopt;
  return viz::LabeledPlan{label, *it->second.result.plan, it->second.simulation};
}

std::optional<viz::LabeledPlan> StudioDocument::plainPlan() const {
  if (!m_vanilla || !m_vanilla->plan) return std::nullopt;
  return viz::LabeledPlan{m_vanilla->solver, *m_vanilla->plan, m_vanillaSimulation};
}

StudioDocument::Pin StudioDocument::pinOf(graph::NodeId node) const {
  if (!m_graph || node.value >= m_graph->size() || !m_graph->isOp(node)) return Pin::None;
  const graph::OpIndex op = m_graph->opIndex(node);
  if (std::find(m_pins.keep.begin(), m_pins.keep.end(), op) != m_pins.keep.end()) return Pin::Keep;
  if (std::find(m_pins.recompute.begin(), m_pins.recompute.end(), op) != m_pins.recompute.end()) return Pin::Recompute;
  return Pin::None;
}

StudioDocument::Pin StudioDocument::graphPinOf(graph::NodeId node) const {
  if (!m_graph || node.value >= m_graph->size() || !m_graph->isOp(node)) return Pin::None;
  const auto has = [node](const std::vector<graph::NodeId>& ids) {
    return std::find(ids.begin(), ids.end(), node) != ids.end();
  };
  if (has(m_graph->pinnedKeep())) return Pin::Keep;
  if (has(m_graph->pinnedRecompute())) return Pin::Recompute;
  return Pin::None;
}

std::optional<solvers::Pins> StudioDocument::pinsWith(graph::NodeId node, Pin pin) const {
  if (!m_graph || node.value >= m_graph->size() || !m_graph->isOp(node)) return std::nullopt;
  const graph::OpIndex op = m_graph->opIndex(node);
  solvers::Pins pins = m_pins;
  std::erase(pins.keep, op);
  std::erase(pins.recompute, op);
  if (pin == Pin::Keep) pins.keep.push_back(op);
  if (pin == Pin::Recompute) pins.recompute.push_back(op);
  return pins;
}

std::vector<std::string> StudioDocument::setPins(solvers::Pins pins) {
  std::vector<std::string> dropped;
  if (samePins(pins, m_pins)) {
    m_pins = std::move(pins);
    return dropped;
  }
  m_pins = std::move(pins);
  for (auto it = m_entries.begin(); it != m_entries.end();) {
    if (viz::pinnedSolver(it->first) && !samePins(it->second.result.pins, withGraphs(m_graph.get(), m_pins))) {
      dropped.push_back(it->first);
      it = m_entries.erase(it);
    } else {
      ++it;
    }
  }
  // The pinned fronts were made under other pins; the unpinned ones still hold.
  if (m_pareto && !samePins(m_paretoPins, m_pins)) dropStalePareto();
  return dropped;
}

void StudioDocument::setPareto(viz::ParetoData data, std::vector<std::vector<solvers::Plan>> plans,
                               const solvers::Pins& pins) {
  m_pareto = std::move(data);
  m_paretoPlans = std::move(plans);
  m_paretoPins = pins;
  // The pins moved while the fronts were computed: their pinned series are already stale.
  if (!samePins(pins, m_pins)) dropStalePareto();
}

void StudioDocument::dropStalePareto() {
  for (std::size_t k = m_pareto->series.size(); k-- > 0;)
    if (viz::pinnedSolver(m_pareto->series[k].solver)) {
      m_pareto->series.erase(m_pareto->series.begin() + static_cast<std::ptrdiff_t>(k));
      m_paretoPlans.erase(m_paretoPlans.begin() + static_cast<std::ptrdiff_t>(k));
    }
  m_paretoPins = m_pins;
  if (m_pareto->series.empty()) clearPareto();
}

void StudioDocument::clearPareto() {
  m_pareto.reset();
  m_paretoPlans.clear();
  m_paretoPins = {};
}

std::string StudioDocument::pickLabel(const std::string& series, Bytes peak) {
  return series + " @ " + formatByteSize(peak);
}

std::optional<solvers::SolveResult> StudioDocument::pickFromPareto(std::size_t series, std::size_t index) {
  if (!m_graph || !m_pareto || series >= m_pareto->series.size() || series >= m_paretoPlans.size() ||
      index >= m_paretoPlans[series].size() || index >= m_pareto->series[series].points.size())
    return std::nullopt;
  const viz::ParetoSeries& s = m_pareto->series[series];
  const std::string label = pickLabel(s.solver, Bytes{static_cast<std::int64_t>(s.points[index].memory)});
  solvers::SolveResult judged = addPlan(label, m_paretoPlans[series][index], Origin::ParetoPick);
  if (!judged.plan) return std::nullopt;
  Entry& entry = m_entries[label];
  entry.note = "picked on " + s.solver + "'s Pareto front (point " + std::to_string(index + 1) + " of " +
               std::to_string(s.points.size()) + ")";
  judged.message = entry.note + ", judged at the budget at hand: " + judged.message;
  if (viz::pinnedSolver(s.solver)) judged.pins = m_paretoPins;
  entry.result = judged;
  return judged;
}

std::vector<viz::LabeledPlan> StudioDocument::plans(const std::vector<std::string>& rows) const {
  std::vector<viz::LabeledPlan> out;
  if (auto plain = plainPlan()) out.push_back(std::move(*plain));
  for (const std::string& row : rows)
    if (!solvers::SolverRegistry::builtin().isPlainRun(row))  // drawn once, as the plain run
      if (auto p = plan(row)) out.push_back(std::move(*p));
  return out;
}

std::optional<viz::FigureRequest> StudioDocument::figureRequest(viz::FigureKind kind, const ViewChoice& view) const {
  if (!m_graph) return std::nullopt;
  viz::FigureRequest request;
  request.kind = kind;
  request.graph = m_graph.get();
  const auto focused = [&] { return view.focused.empty() ? plainPlan() : plan(view.focused); };
  if (kind == viz::FigureKind::Timeline) {
    if (view.timelineByCategory) {
      if (auto p = focused()) request.plans.push_back(std::move(*p));
    } else {
      request.plans = plans(view.rows);
    }
    request.budget = m_budget;
    request.timelineAxis = view.timelineAxis;
  } else if (kind == viz::FigureKind::Pareto) {
    if (!m_pareto) return std::nullopt;
    request.pareto = *m_pareto;
    request.budget = view.paretoBudget;
  } else if (auto p = focused()) {
    request.plans.push_back(std::move(*p));
  }
  if (kind == viz::FigureKind::Graph || kind == viz::FigureKind::Schedule) {
    // The user's marks: the pins, and the node found or clicked.
    request.pins = m_pins;
    request.found = view.found;
  }
  return request;
}

}  // namespace remat::studio
