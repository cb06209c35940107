#include <iostream>
#include <memory>

#include "CliSupport.hpp"
#include "Commands.hpp"
#include "remat/graph/BatchScaling.hpp"
#include "remat/graph/ByteSize.hpp"
#include "remat/io/PlanJsonValue.hpp"
#include "remat/solvers/MaxBatch.hpp"

namespace remat::cli {

namespace {

struct MaxBatchOptions {
  GraphOptions graph;
  std::string solver = "exact-dp";
  std::string memory;
  std::int64_t batch = 0;
  std::string model = "simulator";
  LimitOptions limits;
  bool json = false;
};

int runMaxBatch(const MaxBatchOptions& o) {
  const solvers::Solver& solver = findSolver(o.solver);
  if (!solver.info().makesPlans)
    throw CliError(kUsage, o.solver +
                               " makes no plans (it bounds the overhead), so it cannot tell whether a batch "
                               "fits: choose a solver that plans");
  const SolveLimits limits = parseLimits(o.limits);
  const auto memory = parseBudget(o.memory);
  if (!memory) throw CliError(kUsage, "--memory is required (the device memory, such as 80GiB)");
  if (o.batch < 0) throw CliError(kUsage, "--batch must be positive");
  GraphOptions graphOptions = o.graph;
  graphOptions.batch = o.batch;  // an ONNX model is imported at that batch; other graphs state their own
  graphOptions.batchOnlyForOnnx = true;
  LoadedGraph loaded = loadGraph(graphOptions);
  const graph::ComputeGraph& g = loaded.graph;
  std::int64_t base = o.batch;
  if (base == 0) {
    const auto inferred = graph::inferBatchSize(g);
    if (!inferred)
      throw CliError(kUsage, "the graph does not state its batch size (no input shapes); give it with --batch");
    base = *inferred;
  }
  const solvers::MaxBatchResult r =
      solvers::maxBatch(solver, g, base, *memory, {}, o.json ? solvers::ProgressSink{} : progressBar(o.solver),
                        parseModel(o.model), o.graph.workspace, {limits.time, limits.work, limits.memory});
  // Only a search that ended proves the largest batch; one stopped by a refusal proves a batch that fits.
  const bool proven = r.call == solvers::CallStatus::Ok && r.status == solvers::SolveStatus::Optimal && r.batch > 0;
  auto batchOrNull = [](std::int64_t b) { return b > 0 ? nlohmann::json(b) : nlohmann::json(nullptr); };
  if (o.json) {
    nlohmann::json j{{"graph", g.name()},
                     {"solver", o.solver},
                     {"memory_bytes", memory->value},
                     {"base_batch", base},
                     {"max_batch", proven ? nlohmann::json(r.batch) : nlohmann::json(nullptr)},
                     {"largest_fitting_batch", batchOrNull(r.batch)},
                     {"refused_at_batch", batchOrNull(r.refusedAt)},
                     {"message", r.message},
                     {"solves", r.solves},
                     {"warnings", loaded.warnings}};
    putStatus(j, r);
    j["metrics"] = r.result ? io::metricsToJson(r.result->metrics, true) : nlohmann::json(nullptr);
    printJson(j);
    return proven ? kOk : exitCodeFor(r);
  }
  for (const auto& w : loaded.warnings) std::cerr << "remat: warning: " << w << '\n';
  if (r.batch == 0 || r.call == solvers::CallStatus::Error) {
    std::cerr << "remat: " << r.message << '\n';  // the library's messages name the solver
    return exitCodeFor(r);
  }
  std::cout << (proven ? "Largest batch  " : "Fits at batch  ") << r.batch << "  (graph built for batch " << base
            << ") with " << o.solver << " in " << formatByteSize(*memory)
            << (proven ? "" : ": the largest proven to fit, not proven the largest") << '\n'
            << "Peak           " << bytesText(r.result->metrics.simulatedPeak) << "  simulated, everything counted\n"
            << "Overhead       " << r.result->metrics.overhead.value << ' ' << g.timeUnit() << " at that batch\n";
  if (!proven) std::cout << "Status         " << solvers::outcomeName(r) << '\n';
  if (!r.message.empty()) std::cout << "Note           " << r.message << '\n';
  return proven ? kOk : exitCodeFor(r);
}

}  // namespace

void addMaxBatchCommand(CLI::App& app, Runner& run) {
  auto o = std::make_shared<MaxBatchOptions>();
  CLI::App* cmd = app.add_subcommand("max-batch", "The largest batch size whose training step fits in a memory size");
  cmd->add_option("graph", o->graph.path, "Graph file")->required();
  cmd->add_option("--solver,-s", o->solver, "Solver id")->capture_default_str();
  cmd->add_option("--memory,-m", o->memory, "Device memory, such as 80GiB")->required();
  cmd->add_option("--batch", o->batch,
                  "The batch size the graph was built for (default: from its input shapes); an ONNX model is "
                  "imported at it")
      ->check(positiveBatch());
  addGraphOptions(cmd, o->graph,
                  "Times: file (as given), paper, flops or flops:<device> (a100, h100, v100, cpu-generic)", false);
  addModelOption(cmd, o->model);
  addLimitOptions(cmd, o->limits,
                  "Stop the whole search after this many seconds (0: none), with the largest batch proven to fit "
                  "by then");
  cmd->add_flag("--json", o->json, "Machine-readable output");
  cmd->callback([o, &run] { run = [o] { return runMaxBatch(*o); }; });
}

}  // namespace remat::cli
