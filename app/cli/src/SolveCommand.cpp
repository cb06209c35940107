#include <cstdio>
#include <iostream>
#include <memory>

#include "CliSupport.hpp"
#include "Commands.hpp"
#include "remat/graph/ByteSize.hpp"
#include "remat/graph/PrintableText.hpp"
#include "remat/io/PlanJson.hpp"
#include "remat/io/PlanJsonValue.hpp"
#include "remat/solvers/SolverRegistry.hpp"

namespace remat::cli {

namespace {

struct SolveOptions {
  GraphOptions graph;
  std::string solver;
  std::string budget;
  std::string strategy = "time";
  std::string model = "simulator";
  LimitOptions limits;
  PinOptions pins;
  bool noLiveness = false;
  std::string output;
  bool json = false;
};

int runSolve(const SolveOptions& o) {
  const solvers::Solver* solver = &findSolver(o.solver);
  auto strategy = solvers::strategyFromName(o.strategy);
  if (!strategy) throw CliError(kUsage, "unknown strategy '" + o.strategy + "' (time, memory, auto)");
  const auto budget = parseBudget(o.budget);
  const SolveLimits limits = parseLimits(o.limits);
  if (!o.output.empty()) checkOutputPath(o.output, {o.graph.path, o.pins.file});
  LoadedGraph loaded = loadGraph(o.graph);
  const graph::ComputeGraph& g = loaded.graph;

  solvers::SolveRequest request{.graph = &g, .budget = budget, .strategy = *strategy, .model = parseModel(o.model)};
  request.liveness = !o.noLiveness;
  request.pins = parsePins(o.pins, g);
  request.progress = o.json ? solvers::ProgressSink{} : progressBar(o.solver);
  limits.applyTo(request);
  const solvers::SolveResult r = solver->solve(request);
  if (!o.output.empty() && r.plan) writeFileAtomically(o.output, io::writePlanJson(g, r));

  if (o.json) {
    nlohmann::json j = io::planToJson(g, r);
    j["warnings"] = loaded.warnings;
    printJson(j);
    return exitCodeFor(r);
  }
  for (const auto& w : loaded.warnings) std::cerr << "remat: warning: " << w << '\n';
  const auto& m = r.metrics;
  std::cout << "Solver       " << solver->info().id << "  (" << solver->info().name << ")\n"
            << "Graph        " << graph::printableText(g.name()) << "  (" << g.opCount() << " operations)\n"
            << "Status       " << solvers::outcomeName(r) << '\n'
            << "Budget       " << (budget ? bytesText(budget) : std::string("none")) << '\n';
  if (!request.pins.empty())
    std::cout << "Pins         " << request.pins.keep.size() << " keep, " << request.pins.recompute.size()
              << " recompute  " << solvers::pinsJson(g, request.pins) << '\n';
  if (!r.message.empty()) std::cout << "Message      " << r.message << '\n';
  if (r.plan) {
    std::cout << "Peak         " << bytesText(m.simulatedPeak) << "  simulated"
              << (request.liveness ? " with liveness" : "") << ", at step " << m.peakStep << " ("
              << sim::describeStep(g, r.plan->schedule[m.peakStep]) << ")\n";
    if (m.modelPeak)
      std::cout << "Model peak   " << bytesText(m.modelPeak)
                << (r.plan->model == solvers::DpModelKind::Paper
                        ? "  (the paper's DP model, activations only)\n"
                        : "  (the simulator's DP model: everything counted, never below the simulated peak)\n");
    std::cout << "Overhead     " << m.overhead.value << ' ' << g.timeUnit() << "  (" << m.recomputedNodes
              << " nodes recomputed, " << m.recomputations << " recomputations; total time " << m.totalTime.value << ' '
              << g.timeUnit() << ")\n";
    if (r.plan->lowerSets) std::cout << "Segments     " << r.plan->lowerSets->size() << " lower sets\n";
    std::cout << "Schedule     " << r.plan->schedule.size() << " steps\n";
  }
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.3f", m.solveSeconds);
  std::cout << "Solve time   " << seconds << " s\n";
  if (!o.output.empty() && r.plan) std::cout << "Plan written to " << o.output << '\n';
  if (r.call == solvers::CallStatus::Error) std::cerr << "remat: error: " << r.message << '\n';
  return exitCodeFor(r);
}

}  // namespace

void addSolveCommand(CLI::App& app, Runner& run) {
  auto o = std::make_shared<SolveOptions>();
  CLI::App* cmd = app.add_subcommand("solve", "Plan recomputation for a graph with one solver");
  cmd->add_option("graph", o->graph.path, "Graph file")->required();
  cmd->add_option("--solver,-s", o->solver, "Solver id (see `remat solvers`)")->required();
  cmd->add_option("--budget,-b", o->budget, "Memory budget: bytes or a size such as 2GiB (default: none)")
      ->check(givenBudget());
  cmd->add_option("--strategy", o->strategy, "DP strategy: time, memory or auto")->capture_default_str();
  addModelOption(cmd, o->model);
  addGraphOptions(cmd, o->graph);
  addLimitOptions(cmd, o->limits);
  addSeedOption(cmd, o->limits);
  addPinOptions(cmd, o->pins);
  cmd->add_flag("--no-liveness", o->noLiveness, "Simulate without liveness analysis (only explicit frees)");
  cmd->add_option("--output,-o", o->output, "Write the plan JSON here");
  cmd->add_flag("--json", o->json, "Print the plan JSON");
  cmd->callback([o, &run] { run = [o] { return runSolve(*o); }; });
}

}  // namespace remat::cli
