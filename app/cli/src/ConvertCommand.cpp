#include <iostream>
#include <memory>

#include "CliSupport.hpp"
#include "Commands.hpp"
#include "remat/io/DotWriter.hpp"
#include "remat/io/NativeJson.hpp"
#include "remat/solvers/SolverRegistry.hpp"

namespace remat::cli {

namespace {

struct ConvertOptions {
  GraphOptions graph;
  std::string output;
  std::string to = "auto";
  bool json = false;
};

int runConvert(const ConvertOptions& o) {
  std::string to = o.to;
  if (to == "auto") {
    if (o.output.ends_with(".dot") || o.output.ends_with(".gv"))
      to = "dot";
    else if (o.output.ends_with(".json"))
      to = "native";
    else
      throw CliError(kUsage, "cannot tell the output format from '" + o.output + "': use .json or .dot, or --to");
  }
  if (to != "native" && to != "dot") throw CliError(kUsage, "unknown output format '" + to + "' (native, dot)");
  checkOutputPath(o.output, {o.graph.path});
  LoadedGraph loaded = loadGraph(o.graph);
  for (const auto& w : loaded.warnings) std::cerr << "remat: warning: " << w << '\n';
  writeFileAtomically(o.output, to == "dot" ? io::writeDot(loaded.graph) : io::writeNativeJson(loaded.graph));
  if (o.json) {
    printJson({{"input", o.graph.path},
               {"output", o.output},
               {"format", to},
               {"nodes", loaded.graph.size()},
               {"warnings", loaded.warnings}});
  } else {
    std::cout << "Wrote " << o.output << " (" << to << ", " << loaded.graph.size() << " nodes)\n";
  }
  return kOk;
}

struct SolversOptions {
  bool json = false;
};

int runSolvers(const SolversOptions& o) {
  const auto& registry = solvers::SolverRegistry::builtin();
  if (o.json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& s : registry.solvers()) {
      const solvers::SolverInfo& info = s->info();
      j.push_back({{"id", info.id},
                   {"name", info.name},
                   {"citation", info.citation},
                   {"graphs", info.problemClass},
                   {"exact", info.exact},
                   {"schedules", std::string(solvers::scheduleClassName(info.scheduleClass))},
                   {"budget_measure", info.budgetMeasure == solvers::BudgetMeasure::DpModel ? "dp-model" : "simulated"},
                   {"pins", info.pins == solvers::PinSupport::KeepAndRecompute ? "keep,recompute"
                            : info.pins == solvers::PinSupport::Keep           ? "keep"
                                                                               : "none"},
                   {"makes_plans", info.makesPlans},
                   {"plain_run", info.plainRun},
                   {"follows_strategy", info.followsStrategy},
                   {"wants_time_limit", info.wantsTimeLimit},
                   {"as_given", info.asGiven}});
    }
    printJson(j);
    return kOk;
  }
  for (const auto& s : registry.solvers())
    std::cout << s->info().id << "\n    " << s->info().name << (s->info().exact ? " (exact)" : " (heuristic)")
              << "; graphs: " << s->info().problemClass
              << "; schedules: " << solvers::scheduleClassName(s->info().scheduleClass) << "\n    "
              << s->info().citation << "\n";
  return kOk;
}

}  // namespace

void addConvertCommand(CLI::App& app, Runner& run) {
  auto o = std::make_shared<ConvertOptions>();
  CLI::App* cmd = app.add_subcommand("convert", "Convert a graph to native JSON or Graphviz DOT");
  cmd->add_option("input", o->graph.path, "Graph file in any readable format")->required();
  cmd->add_option("output", o->output, "Output file (.json: native, .dot: Graphviz)")->required();
  addGraphOptions(cmd, o->graph, "Write times of this model: file, paper, flops or flops:<device>");
  cmd->add_option("--to", o->to, "Output format: auto (by extension), native or dot")->capture_default_str();
  cmd->add_flag("--json", o->json, "Machine-readable output");
  cmd->callback([o, &run] { run = [o] { return runConvert(*o); }; });
}

void addSolversCommand(CLI::App& app, Runner& run) {
  auto o = std::make_shared<SolversOptions>();
  CLI::App* cmd = app.add_subcommand("solvers", "List the solvers with their citations");
  cmd->add_flag("--json", o->json, "Machine-readable output");
  cmd->callback([o, &run] { run = [o] { return runSolvers(*o); }; });
}

}  // namespace remat::cli
