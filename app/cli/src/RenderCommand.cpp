#include <filesystem>
#include <iostream>
#include <memory>

#include "CliSupport.hpp"
#include "Commands.hpp"
#include "FigureSupport.hpp"
#include "remat/io/PlanJson.hpp"
#include "remat/solvers/SolverRegistry.hpp"
#include "remat/viz/TorchSnapshot.hpp"

namespace remat::cli {

namespace {

struct RenderOptions {
  GraphOptions graph;
  std::string figure;
  std::string output;
  std::vector<std::string> planFiles;
  std::vector<std::string> solvers;
  std::string budget;
  std::string strategy = "time";
  std::string model = "simulator";
  std::size_t points = 20;
  bool timeAxis = false;
  bool collapseChains = false;
  bool showParams = false;
  bool json = false;
  LimitOptions limits;
  FigureStyleOptions style;
};

int runRender(const RenderOptions& o) {
  const auto kind = viz::figureFromName(o.figure);
  if (!kind) throw CliError(kUsage, "unknown figure '" + o.figure + "' (timeline, graph, pareto, schedule, layout)");
  // A timeline may also go out as a PyTorch memory snapshot, for PyTorch's own memory viewers.
  const bool snapshot = o.output.size() > 7 && o.output.ends_with(".pickle");
  if (snapshot && *kind != viz::FigureKind::Timeline)
    throw CliError(kUsage,
                   "a .pickle output is a PyTorch memory snapshot of one plan's timeline: use --figure timeline");
  if (!snapshot && !vizqt::formatFromPath(o.output))
    throw CliError(kUsage, "cannot tell the figure format of '" + o.output + "': use .svg, .pdf, .png or .pickle");
  checkPoints(o.points);
  const SolveLimits limits = parseLimits(o.limits);
  const solvers::RunLimits runLimits{limits.time, limits.work, limits.memory};
  std::vector<std::string> readFiles = o.planFiles;
  readFiles.push_back(o.graph.path);
  checkOutputPath(o.output, readFiles);
  PreparedStyle style = prepareFigureStyle(o.style);
  LoadedGraph loaded = loadGraph(o.graph);
  const graph::ComputeGraph& g = loaded.graph;
  for (const auto& w : loaded.warnings) std::cerr << "remat: warning: " << w << '\n';
  for (const auto& w : style.warnings) std::cerr << "remat: warning: " << w << '\n';

  viz::FigureRequest request;
  request.kind = *kind;
  request.graph = &g;
  request.timelineAxis = o.timeAxis ? viz::TimelineAxis::Time : viz::TimelineAxis::Steps;
  request.graphOptions.collapseChains = o.collapseChains;
  request.graphOptions.showParams = o.showParams;
  if (!o.budget.empty() && o.budget != "least") request.budget = parseBudget(o.budget);
  for (const std::string& file : o.planFiles) {
    auto plan = io::readPlanFile(file, g);
    if (!plan.ok()) throw CliError(kInput, plan.errorText());
    request.plans.push_back({std::filesystem::path(file).stem().string(), std::move(plan).value().plan});
  }
  if (*kind == viz::FigureKind::Pareto) {
    std::vector<const solvers::Solver*> chosen;
    for (const std::string& id : o.solvers) chosen.push_back(&findSolver(id));
    if (chosen.empty())
      for (const auto& s : solvers::SolverRegistry::builtin().solvers())
        if (inDefaultFronts(s->info())) chosen.push_back(s.get());
    viz::ParetoInputs inputs =
        viz::paretoInputs(g, chosen, o.points, {}, parseModel(o.model),
                          o.json ? solvers::ProgressSink{} : progressBar("fronts"), {}, runLimits);
    for (const auto& s : inputs.skipped) std::cerr << "remat: warning: no front from " << s << '\n';
    for (const auto& s : inputs.partial) std::cerr << "remat: warning: a partial front from " << s << '\n';
    request.pareto = std::move(inputs.data);
  } else {
    // Plans from solvers; with neither files nor solvers, the plain run (the graph drawing stays bare).
    std::vector<std::string> ids = o.solvers;
    if (ids.empty() && o.planFiles.empty() && *kind != viz::FigureKind::Graph)
      ids.push_back(solvers::SolverRegistry::builtin().plainRun().info().id);
    for (auto& p : plansFromSolvers(g, ids, o.budget, o.strategy, o.json, parseModel(o.model), runLimits))
      request.plans.push_back(std::move(p));
  }
  if (snapshot) {
    if (request.plans.size() != 1)
      throw CliError(kUsage, "a memory snapshot holds one plan; " + std::to_string(request.plans.size()) +
                                 " were given (one --plan or one solver)");
    std::string bytes;
    try {
      bytes = viz::torchMemorySnapshot(g, request.plans.front().plan.schedule);
    } catch (const std::invalid_argument& e) {
      throw CliError(kInput, request.plans.front().label + ": " + e.what());
    }
    writeFileAtomically(o.output, bytes);
  } else {
    writeFigure(request, style, o.output, o.style.dpi);
  }
  if (o.json) {
    nlohmann::json plans = nlohmann::json::array();
    for (const auto& p : request.plans) plans.push_back(p.label);
    nlohmann::json fronts = nlohmann::json::array();  // the Pareto figure's series
    for (const auto& series : request.pareto.series) fronts.push_back(series.solver);
    printJson({{"figure", o.figure},
               {"output", o.output},
               {"graph", g.name()},
               {"plans", plans},
               {"fronts", fronts},
               {"width", o.style.width},
               {"height", o.style.height},
               {"warnings", loaded.warnings}});
  } else {
    std::cout << "wrote " << o.output << '\n';
  }
  return kOk;
}

}  // namespace

void addRenderCommand(CLI::App& app, Runner& run) {
  auto o = std::make_shared<RenderOptions>();
  CLI::App* cmd = app.add_subcommand("render", "Draw a figure of a graph and its plans as SVG, PDF or PNG");
  cmd->add_option("graph", o->graph.path, "Graph file")->required();
  cmd->add_option("--figure", o->figure, "timeline, graph, pareto, schedule or layout")->required();
  cmd->add_option("--output,-o", o->output,
                  "Output file: .svg, .pdf or .png; for the timeline also .pickle, a PyTorch memory snapshot of one "
                  "plan")
      ->required();
  cmd->add_option("--plan", o->planFiles, "A plan file written by 'remat solve -o' (repeatable)");
  cmd->add_option("--solvers", o->solvers,
                  "Comma-separated solvers whose plans to draw (pareto: whose fronts; default all but store-all)");
  cmd->add_option("--budget,-b", o->budget, "The solvers' budget: bytes, a size such as 2GiB, or 'least'")
      ->check(givenBudget());
  cmd->add_option("--strategy", o->strategy, "DP strategy: time, memory or auto")->capture_default_str();
  addModelOption(cmd, o->model);
  cmd->add_option("--points", o->points, "pareto: at most this many plans per front")->capture_default_str();
  cmd->add_flag("--time-axis", o->timeAxis, "timeline: compute time on the x axis instead of steps");
  cmd->add_flag("--collapse-chains", o->collapseChains, "graph: draw chains of simple ops as one box");
  cmd->add_flag("--show-params", o->showParams, "graph: draw parameter nodes too");
  addFigureStyleOptions(cmd, o->style);
  addGraphOptions(cmd, o->graph);
  addLimitOptions(cmd, o->limits,
                  "The solvers' time in all, shared among them, in seconds (0: none); a solver that gets no plan in "
                  "its share is left out with a warning");
  cmd->add_flag("--json", o->json, "Machine-readable summary");
  cmd->callback([o, &run] {
    run = [o] {
      o->solvers = listItems(o->solvers, "--solvers");
      return runRender(*o);
    };
  });
}

}  // namespace remat::cli
