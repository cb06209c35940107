#include <iomanip>
#include <iostream>
#include <memory>

#include "CliSupport.hpp"
#include "Commands.hpp"
#include "remat/graph/PrintableText.hpp"
#include "remat/solvers/SolverRegistry.hpp"

namespace remat::cli {

namespace {

struct MinBudgetOptions {
  GraphOptions graph;
  std::string solver = "exact-dp";
  std::string model = "simulator";
  LimitOptions limits;
  PinOptions pins;
  bool json = false;
};

int runMinBudget(const MinBudgetOptions& o) {
  const solvers::Solver& solver = findSolver(o.solver);
  const SolveLimits limits = parseLimits(o.limits);
  LoadedGraph loaded = loadGraph(o.graph);
  const graph::ComputeGraph& g = loaded.graph;
  solvers::SolveRequest request{.graph = &g, .model = parseModel(o.model)};
  request.pins = parsePins(o.pins, g);
  limits.applyTo(request);
  request.progress = o.json ? solvers::ProgressSink{} : progressBar(o.solver);
  const solvers::Solver::MinBudget r = solver.minBudget(request);
  const bool model = solver.info().budgetMeasure == solvers::BudgetMeasure::DpModel;
  const bool paper = request.model == solvers::DpModelKind::Paper;
  if (o.json) {
    nlohmann::json j{{"graph", g.name()},
                     {"solver", o.solver},
                     {"min_budget_bytes", r.bytes ? nlohmann::json(r.bytes->value) : nlohmann::json(nullptr)},
                     {"measure", model ? "dp-model" : "simulated"},
                     {"model", std::string(solvers::dpModelName(request.model))},
                     {"message", r.message},
                     {"solve_seconds", r.seconds},
                     {"warnings", loaded.warnings}};
    putStatus(j, r);
    printJson(j);
    return r.bytes ? kOk : exitCodeFor(r);
  }
  for (const auto& w : loaded.warnings) std::cerr << "remat: warning: " << w << '\n';
  if (!r.bytes) {
    std::cerr << "remat: " << o.solver << ": " << r.message << '\n';
    return exitCodeFor(r);
  }
  std::cout << "Least budget  " << bytesText(r.bytes) << "  for " << o.solver << " on "
            << graph::printableText(g.name()) << '\n'
            << "Measured in   "
            << (!model  ? "the simulator (everything, liveness)"
                : paper ? "the paper's DP model (activations only, section 5.1)"
                        : "the simulator's DP model (everything; a plan within it fits in the simulator)")
            << '\n'
            << "Solve time    " << std::fixed << std::setprecision(3) << r.seconds << " s\n";
  return kOk;
}

}  // namespace

void addMinBudgetCommand(CLI::App& app, Runner& run) {
  auto o = std::make_shared<MinBudgetOptions>();
  CLI::App* cmd = app.add_subcommand("min-budget", "The least budget with a solution (exact to the byte for the DPs)");
  cmd->add_option("graph", o->graph.path, "Graph file")->required();
  cmd->add_option("--solver,-s", o->solver, "Solver id")->capture_default_str();
  addGraphOptions(cmd, o->graph);
  addModelOption(cmd, o->model);
  addLimitOptions(cmd, o->limits);
  addSeedOption(cmd, o->limits);
  addPinOptions(cmd, o->pins);
  cmd->add_flag("--json", o->json, "Machine-readable output");
  cmd->callback([o, &run] { run = [o] { return runMinBudget(*o); }; });
}

}  // namespace remat::cli
