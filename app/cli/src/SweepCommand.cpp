#include <cstdio>
#include <iostream>
#include <memory>

#include "CliSupport.hpp"
#include "Commands.hpp"
#include "remat/graph/ByteSize.hpp"
#include "remat/graph/PrintableText.hpp"
#include "remat/io/PlanJsonValue.hpp"
#include "remat/solvers/SolverRegistry.hpp"

namespace remat::cli {

namespace {

struct SweepOptions {
  GraphOptions graph;
  std::string solver = "exact-dp";
  std::size_t points = 20;
  LimitOptions limits;
  PinOptions pins;
  std::string model = "simulator";
  bool json = false;
};

int runSweep(const SweepOptions& o) {
  const solvers::Solver& solver = findSolver(o.solver);
  checkPoints(o.points);
  const SolveLimits limits = parseLimits(o.limits);
  LoadedGraph loaded = loadGraph(o.graph);
  const graph::ComputeGraph& g = loaded.graph;
  solvers::SolveRequest request{.graph = &g, .model = parseModel(o.model)};
  request.pins = parsePins(o.pins, g);
  request.progress = o.json ? solvers::ProgressSink{} : progressBar(o.solver);
  limits.applyTo(request);
  const solvers::Solver::TradeOff r = solver.tradeOff(request, o.points);

  // tradeOff judged every plan in the simulator; a plan it rejected made the call Error.
  if (r.call == solvers::CallStatus::Error) throw CliError(kInternal, o.solver + ": " + r.message);
  const bool model = solver.info().budgetMeasure == solvers::BudgetMeasure::DpModel;
  if (o.json) {
    nlohmann::json points = nlohmann::json::array();
    for (const solvers::Solver::FrontPlan& plan : r.plans) {
      nlohmann::json p = io::metricsToJson(plan.metrics, true);
      p["budget_bytes"] = plan.budget.value;
      points.push_back(std::move(p));
    }
    nlohmann::json j{{"graph", g.name()},
                     {"solver", o.solver},
                     {"message", r.message},
                     {"measure", model ? "dp-model" : "simulated"},
                     {"model", std::string(solvers::dpModelName(request.model))},
                     {"points", std::move(points)},
                     {"solve_seconds", r.seconds},
                     {"warnings", loaded.warnings}};
    putStatus(j, r);
    printJson(j);
    return exitCodeFor(r);
  }
  for (const auto& w : loaded.warnings) std::cerr << "remat: warning: " << w << '\n';
  if (r.plans.empty()) {
    std::cerr << "remat: " << o.solver << ": " << r.message << '\n';
    return exitCodeFor(r);
  }
  std::cout << "Budget/overhead trade-off of " << o.solver << " on " << graph::printableText(g.name()) << " (budget in "
            << (model ? "the DP model" : "the simulator") << ", overhead in " << g.timeUnit()
            << (r.message.empty() ? std::string() : "; " + r.message) << ")\n\n";
  std::printf("%14s  %10s  %16s  %10s\n", "budget", "overhead", "simulated peak", "recomputed");
  for (const solvers::Solver::FrontPlan& plan : r.plans)
    std::printf("%14s  %10lld  %16s  %10zu\n", formatByteSize(plan.budget).c_str(),
                static_cast<long long>(plan.metrics.overhead.value), formatByteSize(plan.metrics.simulatedPeak).c_str(),
                plan.metrics.recomputedNodes);
  std::fflush(stdout);
  // A partial front (some budgets got no answer) is shown, and its status decides the exit code.
  if (exitCodeFor(r) != kOk)
    std::cerr << "remat: " << o.solver << ": " << solvers::outcomeName(r) << ": " << r.message << '\n';
  return exitCodeFor(r);
}

}  // namespace

void addSweepCommand(CLI::App& app, Runner& run) {
  auto o = std::make_shared<SweepOptions>();
  CLI::App* cmd = app.add_subcommand("sweep", "The budget/overhead Pareto front (one DP run for the DP solvers)");
  cmd->add_option("graph", o->graph.path, "Graph file")->required();
  cmd->add_option("--solver,-s", o->solver, "Solver id")->capture_default_str();
  cmd->add_option("--points", o->points, "Show at most this many points of the front")->capture_default_str();
  addLimitOptions(cmd, o->limits);
  addSeedOption(cmd, o->limits);
  addPinOptions(cmd, o->pins);
  addGraphOptions(cmd, o->graph);
  addModelOption(cmd, o->model);
  cmd->add_flag("--json", o->json, "Machine-readable output");
  cmd->callback([o, &run] { run = [o] { return runSweep(*o); }; });
}

}  // namespace remat::cli
