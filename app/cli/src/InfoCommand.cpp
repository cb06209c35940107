#include <iostream>
#include <memory>

#include "CliSupport.hpp"
#include "Commands.hpp"
#include "remat/graph/ByteSize.hpp"
#include "remat/graph/LowerSets.hpp"
#include "remat/graph/PrintableText.hpp"
#include "remat/sim/MemoryBounds.hpp"
#include "remat/solvers/Pins.hpp"
#include "remat/solvers/SolverRegistry.hpp"

namespace remat::cli {

namespace {

struct InfoOptions {
  GraphOptions graph;
  std::uint64_t lowerSetLimit = 10'000'000;
  bool json = false;
};

int runInfo(const InfoOptions& o) {
  LoadedGraph loaded = loadGraph(o.graph);
  const graph::ComputeGraph& g = loaded.graph;
  std::size_t inputs = 0;
  std::size_t params = 0;
  for (const auto& n : g.nodes()) {
    if (n.kind == graph::NodeKind::Input) ++inputs;
    if (n.kind == graph::NodeKind::Param) ++params;
  }
  const auto lowerSets = graph::countLowerSets(g, o.lowerSetLimit);
  const solvers::SolveResult vanilla = solvers::SolverRegistry::builtin().plainRun().solve({.graph = &g});
  if (vanilla.call == solvers::CallStatus::Error) throw CliError(kInternal, vanilla.message);
  const Bytes bound = sim::memoryLowerBound(g);

  if (o.json) {
    nlohmann::json j;
    j["graph"] = g.name();
    j["nodes"] = g.size();
    j["edges"] = g.edgeCount();
    j["op_nodes"] = g.opCount();
    j["input_nodes"] = inputs;
    j["param_nodes"] = params;
    j["outputs"] = g.outputs().size();
    j["explicit_backward_nodes"] = g.explicitBackward().size();
    j["as_given"] = g.asGiven();
    j["pins"] = nlohmann::json::parse(solvers::pinsJson(g, solvers::graphPins(g)));
    j["activation_bytes"] = g.opBytes().value;
    j["param_bytes"] = g.paramBytes().value;
    j["input_bytes"] = g.inputBytes().value;
    j["forward_time"] = g.totalForwardTime().value;
    j["time_unit"] = g.timeUnit();
    j["cost_model"] = g.costModel();
    j["lower_sets"] = lowerSets ? nlohmann::json(*lowerSets) : nlohmann::json(nullptr);
    j["lower_set_limit"] = o.lowerSetLimit;
    j["vanilla_peak_bytes"] = vanilla.metrics.simulatedPeak.value;
    j["memory_lower_bound_bytes"] = bound.value;
    j["warnings"] = loaded.warnings;
    printJson(j);
    return kOk;
  }
  for (const auto& w : loaded.warnings) std::cerr << "remat: warning: " << w << '\n';
  std::cout << "Graph              " << graph::printableText(g.name()) << "  (cost model: " << g.costModel()
            << ", time unit: " << g.timeUnit() << ")\n"
            << "Nodes              " << g.size() << "  (" << g.opCount() << " operations, " << inputs << " inputs, "
            << params << " parameters)\n"
            << "Edges              " << g.edgeCount() << '\n'
            << "Outputs            " << g.outputs().size() << '\n';
  if (!g.explicitBackward().empty())
    std::cout << "Backward nodes     " << g.explicitBackward().size() << "  (given by the file)\n";
  if (g.asGiven()) std::cout << "Computation        as given (the whole computation; no backward pass added)\n";
  if (const auto& keep = g.pinnedKeep(), &recompute = g.pinnedRecompute(); !keep.empty() || !recompute.empty())
    std::cout << "Pins               " << keep.size() << " keep, " << recompute.size()
              << " recompute  (the graph's own: every plan is made under them; --no-graph-pins leaves them out)\n";
  std::cout << "Activations        " << bytesText(g.opBytes()) << '\n'
            << "Parameters         " << bytesText(g.paramBytes()) << '\n'
            << "Inputs             " << bytesText(g.inputBytes()) << '\n'
            << "Forward time       " << g.totalForwardTime().value << ' ' << g.timeUnit() << '\n'
            << "Lower sets         "
            << (lowerSets ? std::to_string(*lowerSets) : "more than " + std::to_string(o.lowerSetLimit)) << '\n'
            << "Vanilla peak       " << bytesText(vanilla.metrics.simulatedPeak) << "  (store-all, liveness)\n"
            << "Memory lower bound " << bytesText(bound) << "  (no schedule can peak lower)\n";
  return kOk;
}

}  // namespace

void addInfoCommand(CLI::App& app, Runner& run) {
  auto o = std::make_shared<InfoOptions>();
  CLI::App* cmd = app.add_subcommand("info", "Sizes, lower-set count, vanilla peak and memory lower bound of a graph");
  cmd->add_option("graph", o->graph.path, "Graph file (native JSON, PFN cg text, Checkmate JSON)")->required();
  addGraphOptions(cmd, o->graph);
  cmd->add_option("--lower-set-limit", o->lowerSetLimit, "Stop counting lower sets beyond this many")
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "Machine-readable output");
  cmd->callback([o, &run] { run = [o] { return runInfo(*o); }; });
}

}  // namespace remat::cli
