#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/sim/Simulator.hpp"
#include "remat/solvers/Pins.hpp"
#include "remat/solvers/Solver.hpp"
#include "remat/viz/Pareto.hpp"
#include "remat/viz/PlanFigures.hpp"

namespace remat::studio {

/// What Studio shows, without widgets: the open graph and its plain run, the budget at hand (the last
/// run's), the pins, every plan with the budget and pins it was made for and its one simulation, and the
/// Pareto fronts with the pins they were made under. Every view, the table, the title and the exports
/// read it; nothing in it is computed twice.
///
/// Rows come from three places: the solvers of a run (setResult), plan files (addPlan) and plans picked
/// on a Pareto front (pickFromPareto). The last two are judged against the budget at hand with
/// solvers::judgePlan, again at every run, so that a plan over that budget never fits nor wins.
class StudioDocument {
 public:
  /// Where a row's plan came from.
  enum class Origin { Solver, PlanFile, ParetoPick };

  /// A graph as read from its file, under a cost model and a workspace model (graph::costModelNames(),
  /// graph::workspaceModelNames()), with its plain run simulated: setGraph. Returns why it cannot be
  /// (an unknown model, a plain run that does not simulate), the document then unchanged.
  [[nodiscard]] std::optional<std::string> open(const graph::ComputeGraph& raw, const std::string& costModel,
                                                const std::string& workspaceModel);
  /// A new graph: every result, plan, front and pin goes (pins are by op index, of that graph).
  void setGraph(std::shared_ptr<const graph::ComputeGraph> graph, solvers::SolveResult vanilla);
  [[nodiscard]] const graph::ComputeGraph* graph() const { return m_graph.get(); }
  [[nodiscard]] const std::shared_ptr<const graph::ComputeGraph>& sharedGraph() const { return m_graph; }
  [[nodiscard]] const std::optional<solvers::SolveResult>& vanilla() const { return m_vanilla; }

  /// A run starts at `budget` (none: no budget, or each solver at its own least budget when `least`):
  /// the solvers' results go, and the plan files and picked plans are judged again at it. Returns their
  /// results, for the table.
  std::vector<solvers::SolveResult> startRun(std::optional<Bytes> budget, bool least);
  /// The budget the rows are judged at; none without one (and in least mode).
  [[nodiscard]] const std::optional<Bytes>& budget() const { return m_budget; }
  [[nodiscard]] bool leastBudgets() const { return m_least; }

  /// A solver's result (its plan simulated once here, for every figure).
  void setResult(const solvers::SolveResult& result);
  /// A plan from elsewhere, judged at the budget at hand; kept (and judged again at every run) when the
  /// simulator accepts it. Returns the judged result (call Error, no plan, when it does not simulate).
  solvers::SolveResult addPlan(const std::string& label, solvers::Plan plan, Origin origin);
  /// The result of a row, if it has a plan.
  [[nodiscard]] const solvers::SolveResult* result(const std::string& label) const;
  [[nodiscard]] Origin origin(const std::string& label) const;
  /// A row's plan with its simulation, for the figures; none for a label without a plan.
  [[nodiscard]] std::optional<viz::LabeledPlan> plan(const std::string& label) const;
  /// The plain run's, likewise.
  [[nodiscard]] std::optional<viz::LabeledPlan> plainPlan() const;

  /// The pins now. Setting other pins drops what was made under the old ones: the rows of pinned plans
  /// ("exact-dp · pinned") and the pinned series of the Pareto fronts. Returns the dropped row labels.
  std::vector<std::string> setPins(solvers::Pins pins);
  [[nodiscard]] const solvers::Pins& pins() const { return m_pins; }
  /// How a node is pinned (docs/pins.md): Keep, never recomputed; Recompute, never kept past its
  /// segment (never a checkpoint).
  enum class Pin { None, Keep, Recompute };
  /// How a node is pinned now; None for inputs, parameters and nodes the graph lacks.
  [[nodiscard]] Pin pinOf(graph::NodeId node) const;
  /// How the graph itself pins a node (its file's "pins", docs/pins.md): fixed, every plan is made under
  /// it; None where it does not.
  [[nodiscard]] Pin graphPinOf(graph::NodeId node) const;
  /// The pins with `node` pinned as `pin` (or unpinned by Pin::None); none for a node that cannot be
  /// pinned (not an operation of the graph).
  [[nodiscard]] std::optional<solvers::Pins> pinsWith(graph::NodeId node, Pin pin) const;

  /// The Pareto fronts and the plan behind each point (viz::ParetoInputs), made under `pins`.
  void setPareto(viz::ParetoData data, std::vector<std::vector<solvers::Plan>> plans, const solvers::Pins& pins);
  void clearPareto();
  [[nodiscard]] const std::optional<viz::ParetoData>& pareto() const { return m_pareto; }
  /// The label of a plan picked on a front: "exact-dp @ 2.05 GiB" (the series and its simulated peak).
  [[nodiscard]] static std::string pickLabel(const std::string& series, Bytes peak);
  /// The plan of a Pareto point (a series, the point's index in it) as a row of its own (pickLabel),
  /// judged against the budget at hand (addPlan). None for a point that is not there.
  std::optional<solvers::SolveResult> pickFromPareto(std::size_t series, std::size_t index);

  /// How the window shows the document's plans; what a figure request needs besides the document.
  struct ViewChoice {
    std::vector<std::string> rows;    ///< the table's labels in its order (the timeline's plans after the plain run)
    std::string focused;              ///< the plan the plan views show; empty for the plain run
    bool timelineByCategory = false;  ///< the timeline shows the focused plan alone, by category
    viz::TimelineAxis timelineAxis = viz::TimelineAxis::Time;
    std::optional<Bytes> paretoBudget;   ///< where the budget field falls among the Pareto fronts
    std::optional<graph::NodeId> found;  ///< the node found or clicked, ringed in the drawings
  };
  /// The plain run's plan, then every row's in `rows` that has one (the timeline's plans, and the Node
  /// panel's).
  [[nodiscard]] std::vector<viz::LabeledPlan> plans(const std::vector<std::string>& rows) const;
  /// What a figure of `kind` draws: the plans, the budget at hand, the fronts, the pins; none without a
  /// graph (or fronts, for the Pareto figure).
  [[nodiscard]] std::optional<viz::FigureRequest> figureRequest(viz::FigureKind kind, const ViewChoice& view) const;

 private:
  struct Entry {
    solvers::SolveResult result;
    Origin origin = Origin::Solver;
    std::shared_ptr<const sim::SimulationResult> simulation;
    std::string note;  ///< where a picked plan came from, kept through every re-judging
  };
  void store(const solvers::SolveResult& result, Origin origin);
  void dropStalePareto();

  std::shared_ptr<const graph::ComputeGraph> m_graph;
  std::optional<solvers::SolveResult> m_vanilla;
  std::shared_ptr<const sim::SimulationResult> m_vanillaSimulation;
  std::optional<Bytes> m_budget;
  bool m_least = false;
  std::map<std::string, Entry> m_entries;
  solvers::Pins m_pins;
  std::optional<viz::ParetoData> m_pareto;
  std::vector<std::vector<solvers::Plan>> m_paretoPlans;
  solvers::Pins m_paretoPins;
};

}  // namespace remat::studio
