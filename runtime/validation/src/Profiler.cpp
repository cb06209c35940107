#include "remat/runtime/Profiler.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "WorkDir.hpp"
#include "remat/io/NativeJson.hpp"
#include "remat/io/OutputFile.hpp"
#include "remat/io/PlanJson.hpp"
#include "remat/runtime/MeasuredRun.hpp"
#include "remat/runtime/ValidationError.hpp"
#include "remat/solvers/SolverRegistry.hpp"

namespace remat::runtime {

void writeTextAtomically(const std::string& path, const std::string& text) {
  if (auto error = io::writeFileAtomically(path, text))
    throw ValidationError(
        error->kind == io::WriteError::Kind::Target ? ValidationFailure::Usage : ValidationFailure::Input,
        error->message);
}

void writeGraphAtomically(const graph::ComputeGraph& g, const std::string& path) {
  writeTextAtomically(path, io::writeNativeJson(g));
}

Profiler::Profiler(const graph::ComputeGraph& g, MeasureOptions options, std::string graphLabel)
    : m_graph(g), m_options(std::move(options)), m_graphLabel(std::move(graphLabel)) {}

void Profiler::run() {
  checkMeasureOptions(m_options);
  if (m_options.runner.empty()) m_options.runner = findRunner("");
  const graph::ComputeGraph& g = m_graph;
  const solvers::SolveResult storeAll = solvers::SolverRegistry::builtin().plainRun().solve({.graph = &g});
  if (!storeAll.plan) throw ValidationError(ValidationFailure::Internal, "store-all gave no plan: " + storeAll.message);

  const detail::WorkDir work("remat-profile");
  const std::string graphFile = work.file("graph.json");
  const std::string planFile = work.file("store-all.plan.json");
  const std::string out = work.file("store-all.measurement.json");
  writeTextAtomically(graphFile, io::writeNativeJson(g));
  writeTextAtomically(planFile, io::writePlanJson(g, storeAll));
  const std::vector<std::pair<std::string, std::string>> renames{
      {graphFile, m_graphLabel}, {planFile, "the store-all plan"}, {work.path() + "/", ""}};
  std::vector<std::string> args{graphFile,
                                "--plan",
                                planFile,
                                "--device",
                                m_options.device,
                                "--seed",
                                std::to_string(m_options.seed),
                                "--warmup",
                                std::to_string(m_options.warmup),
                                "--iterations",
                                std::to_string(m_options.iterations),
                                "-o",
                                out};
  if (m_options.threads > 0) args.insert(args.end(), {"--threads", std::to_string(m_options.threads)});
  const RunnerResult r = runRunner(m_options.runner, args, work.file("runner.log"), callTimeout(m_options));
  throwIfFailed(r, "the store-all plan of " + m_graphLabel, m_options.device, renames);
  const MeasuredRun m = readRunnerMeasurement(out, r, "the store-all plan of " + m_graphLabel, renames);

  const sim::Schedule& schedule = storeAll.plan->schedule;
  if (m.steps.size() != schedule.size())
    throw ValidationError(ValidationFailure::Internal, "the measurement has " + std::to_string(m.steps.size()) +
                                                           " steps, the store-all plan " +
                                                           std::to_string(schedule.size()));
  std::vector<graph::Node> nodes = g.nodes();
  std::vector<bool> seenFwd(g.size(), false);
  std::vector<bool> seenBwd(g.size(), false);
  // Before the first step only parameters and inputs are alive.
  std::int64_t before = g.paramBytes().value + g.inputBytes().value;
  m_forward = m_backward = 0;
  m_bytesChecked = 0;
  for (std::size_t s = 0; s < schedule.size(); ++s) {
    const sim::Step& step = schedule[s];
    const MeasuredStep& ms = m.steps[s];
    if (ms.node != g.node(step.node).name || ms.kind != sim::stepKindName(step.kind))
      throw ValidationError(ValidationFailure::Internal, "the measurement differs from the store-all plan at step " +
                                                             std::to_string(s) + ": " + ms.kind + " " + ms.node);
    graph::Node& n = nodes[step.node.value];
    const auto ns = static_cast<std::int64_t>(std::llround(std::max(0.0, ms.seconds) * 1e9));
    // What the allocator held inside the step beyond the tables (outputs included): the step's
    // temporaries, its workspace in the simulator (none where the measurement has no allocator count,
    // as on CUDA, where the graph's own is kept).
    const std::optional<std::int64_t> temporaries =
        ms.allocatorPeak ? std::optional(std::max<std::int64_t>(0, *ms.allocatorPeak - ms.duringTotal)) : std::nullopt;
    if (step.kind == sim::StepKind::Forward && !seenFwd[step.node.value]) {
      seenFwd[step.node.value] = true;
      n.fwdTime = Ticks{std::max<std::int64_t>(1, ns)};
      m_forward += n.fwdTime.value;
      if (temporaries) n.workspace = Bytes{*temporaries};
      // The storage this step added (views' storage left out, as the simulator counts views as 0 bytes).
      const std::int64_t added = (ms.duringTotal - ms.duringViewAlias) - before;
      if (added != n.bytes.value)
        throw ValidationError(ValidationFailure::Internal, m_graphLabel + ": node '" + n.name + "' (op " + n.op +
                                                               "): the runner allocated " + std::to_string(added) +
                                                               " bytes for its output, the graph says " +
                                                               std::to_string(n.bytes.value));
      ++m_bytesChecked;
    } else if (step.kind == sim::StepKind::Backward && !seenBwd[step.node.value]) {
      seenBwd[step.node.value] = true;
      n.bwdTime = Ticks{std::max<std::int64_t>(1, ns)};
      m_backward += n.bwdTime.value;
      if (temporaries) n.bwdWorkspace = Bytes{*temporaries};
    }
    before = ms.afterTotal - ms.afterViewAlias;
  }
  m_iterationSeconds = m.medianIterationSeconds;
  m_profiled.emplace(g.withNodes(std::move(nodes), "profiled", std::string("ns")));
}

}  // namespace remat::runtime
