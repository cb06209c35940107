#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/solvers/Pins.hpp"
#include "remat/solvers/Solver.hpp"
#include "remat/viz/Figure.hpp"
#include "remat/viz/GraphDrawing.hpp"
#include "remat/viz/Pareto.hpp"
#include "remat/viz/Scene.hpp"
#include "remat/viz/Timeline.hpp"

namespace remat::viz {

enum class FigureKind : std::uint8_t { Timeline, Graph, Pareto, Schedule, Layout };
inline constexpr FigureKind kAllFigures[] = {FigureKind::Timeline, FigureKind::Graph, FigureKind::Pareto,
                                             FigureKind::Schedule, FigureKind::Layout};
[[nodiscard]] std::string_view figureName(FigureKind kind);  ///< "timeline", "graph", ...
[[nodiscard]] std::optional<FigureKind> figureFromName(std::string_view name);

/// The style (Theme::seriesStroke's index) of a solver's series in every figure: a slot fixed per
/// solver id (the most compared ones apart in hue and dash), so that one solver has one colour and
/// dash in the timeline, the Pareto front, the CLI's figures and every run, whatever the order of the
/// plans; none when `label` is no registry solver's id.
[[nodiscard]] std::optional<std::size_t> solverStyle(std::string_view label);

/// The label of a plan a solver made under the user's pins (docs/pins.md), shown next to its unpinned
/// plan: "exact-dp · pinned". solverStyle gives it its solver's pinned variant (Theme::kPinnedStyle).
[[nodiscard]] std::string pinnedLabel(std::string_view solver);
/// The solver of a pinnedLabel; nullopt for any other label.
[[nodiscard]] std::optional<std::string_view> pinnedSolver(std::string_view label);

/// A plan to draw and what to call it (a solver id, a file name), with its simulation when the caller
/// has one (with liveness and lifetimes, as buildFigure simulates): then no figure simulates it again.
struct LabeledPlan {
  std::string label;
  solvers::Plan plan;
  std::shared_ptr<const sim::SimulationResult> simulation;
};

/// The simulation every figure draws a plan from: the simulator with liveness, recording lifetimes.
[[nodiscard]] sim::SimulationResult simulateForFigures(const graph::ComputeGraph& g, const sim::Schedule& schedule);

/// Everything a figure may need; each figure uses its part. The timeline overlays every plan (one
/// plan: stacked by category); the graph drawing, schedule matrix and memory layout show the first
/// plan (the graph drawing without plans shows the bare graph); the Pareto figure shows `pareto`.
struct FigureRequest {
  FigureKind kind = FigureKind::Timeline;
  const graph::ComputeGraph* graph = nullptr;
  std::vector<LabeledPlan> plans;
  std::optional<Bytes> budget;  ///< drawn as a dashed line: across the timeline, up the Pareto figure
  TimelineAxis timelineAxis = TimelineAxis::Steps;
  GraphDrawingOptions graphOptions;
  ParetoData pareto;
  /// The checkpoint drawing and the schedule mark these: the pinned nodes outlined, the found one ringed.
  solvers::Pins pins;
  std::optional<graph::NodeId> found;
};

/// The figure, or a readable reason why it cannot be drawn (a plan that does not simulate, a figure
/// that needs a plan and has none, a graph too large to draw).
struct FigureResult {
  std::optional<Scene> scene;
  std::string error;
  /// The error is the figure's size limit (GraphTooLarge), not a fault of the input.
  bool tooLarge = false;
  /// What the figure does differently from what was asked (GraphDrawing::note), to tell the user.
  std::vector<std::string> warnings;
};

/// Builds the figure: simulates the plans with liveness (the simulator is the authority on memory) and
/// hands the results to the figure's builder.
[[nodiscard]] FigureResult buildFigure(const FigureRequest& request, const FigureStyle& style);

/// The Pareto figure's data for a graph: each solver's budget/overhead front from its tradeOff (one DP
/// run for the DP solvers), every plan placed at its simulated peak (the common measure of all
/// solvers) and its simulated overhead; the plain run; the least feasible budget of the DP model (of
/// the first DP solver among them); the simulator's memory lower bound. The DP solvers (and Chen's) plan
/// in `model`. Solvers that give no front are
/// left out, and their messages returned in `skipped`.
struct ParetoInputs {
  ParetoData data;
  std::vector<std::string> skipped;
  /// Fronts drawn though not whole (a time limit, a budget a solver could not answer): what each lacks.
  std::vector<std::string> partial;
  /// The plan behind each point, parallel to data.series[i].points[j] (so that a view can load the plan
  /// of a clicked point: Hotspot::series and Hotspot::index of the Pareto figure index both).
  std::vector<std::vector<solvers::Plan>> plans;
};
/// `progress`, when set, hears the whole job's fraction done (each front an equal share) and what runs,
/// as "exact-dp: DP over lower sets". With `pins`, every solver that honours them (SolverInfo::pins) has
/// a second series, its front under the pins, labelled pinnedLabel(solver) (solvers::honoursAll: one
/// that honours keep pins only gets none when there are recompute pins). `limits.time` is the whole job's,
/// shared among the fronts (solvers::SharedTime); a front not begun when it is spent is skipped.
[[nodiscard]] ParetoInputs paretoInputs(const graph::ComputeGraph& g,
                                        const std::vector<const solvers::Solver*>& solvers, std::size_t points,
                                        std::stop_token stop = {},
                                        solvers::DpModelKind model = solvers::DpModelKind::Simulator,
                                        const solvers::ProgressSink& progress = {}, const solvers::Pins& pins = {},
                                        const solvers::RunLimits& limits = {});

/// A node's details, for a click on it in an interactive drawing: name, op, output bytes, forward and
/// backward time, and its part in each plan (nodeRoleText), one line per plan as "label: role".
[[nodiscard]] std::string nodeDetails(const graph::ComputeGraph& g, graph::NodeId v,
                                      const std::vector<LabeledPlan>& plans);

}  // namespace remat::viz
