#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

#include "CliSupport.hpp"
#include "Commands.hpp"
#include "FigureSupport.hpp"
#include "MeasureSupport.hpp"
#include "remat/graph/ByteSize.hpp"
#include "remat/io/MemoryTrace.hpp"
#include "remat/runtime/TraceComparison.hpp"
#include "remat/runtime/Validation.hpp"
#include "remat/viz/Timeline.hpp"

namespace remat::cli {

namespace {

struct ValidateOptions {
  GraphOptions graph;
  MeasureCliOptions measure;
  std::vector<std::string> planFiles;
  std::vector<std::string> solvers;
  std::string measured;
  std::string budget;
  std::string strategy = "time";
  std::string model = "simulator";
  bool noCheckGrads = false;
  std::string figure;
  std::string outDir;
  std::string table = "text";
  bool json = false;
  LimitOptions limits;
  FigureStyleOptions style;
};

// `--measured FILE`: the graph's plain run predicted against a training step recorded in PyTorch.
int runAgainstTrace(const ValidateOptions& o, bool asJson) {
  if (!o.figure.empty()) {
    if (!vizqt::formatFromPath(o.figure))
      throw CliError(kUsage, "cannot tell the figure format of '" + o.figure + "': use .svg, .pdf or .png");
    checkOutputPath(o.figure, {o.graph.path, o.measured, o.measure.runner});
  }
  LoadedGraph loaded = loadGraph(o.graph);
  auto read = io::readMemoryTraceFile(o.measured);
  if (!read.ok()) throw CliError(kInput, read.errorText());
  if (!asJson) {
    for (const auto& w : loaded.warnings) std::cerr << "remat: warning: " << w << '\n';
    for (const auto& w : read.warnings()) std::cerr << "remat: warning: " << w.toString() << '\n';
  }
  runtime::TraceComparison c;
  try {
    c = runtime::compareWithTrace(loaded.graph, read.value(), o.measured);
  } catch (const runtime::ValidationError& e) {
    throw cliError(e);
  }
  if (!o.figure.empty()) {
    const PreparedStyle style = prepareFigureStyle(o.style);
    for (const auto& w : style.warnings) std::cerr << "remat: warning: " << w << '\n';
    viz::FigureStyle figureStyle = style.style;
    if (figureStyle.title.empty())
      figureStyle.title = c.graph + ": the simulator's plain run and a step recorded on " + c.device;
    viz::TimelineData data;
    data.timeUnit = loaded.graph.timeUnit();
    data.series = {c.predicted, c.measured};
    writeSceneAtomically(viz::timelineScene(data, figureStyle, viz::TimelineAxis::Time), o.figure, o.style.dpi);
  }
  if (asJson) {
    nlohmann::json j = runtime::traceComparisonJson(c);
    j["figure"] = o.figure.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.figure);
    printJson(j);
    return kOk;
  }
  std::cout << "Graph " << c.graph << "'s plain run (store-all, liveness), predicted by the simulator, against "
            << (c.traceModel.empty() ? std::string("the step") : c.traceModel) << " recorded on " << c.device
            << (c.torchVersion.empty() ? std::string() : " with PyTorch " + c.torchVersion) << " (" << o.measured
            << ")\n\n";
  printTable(runtime::traceComparisonTable(c), o.table, 1);
  std::cout << "\nPeak error: " << percentText(c.errorPercent(), 2) << " (measured " << c.measuredPeak
            << " bytes, predicted " << c.predictedPeak << " bytes, at " << c.predictedPeakWhat << ")\n";
  for (const auto& n : c.notes) std::cout << "Note: " << n << '\n';
  if (!o.figure.empty()) std::cout << "wrote " << o.figure << '\n';
  return kOk;
}

int runValidate(const ValidateOptions& o) {
  if (!o.measured.empty()) {
    if (!o.planFiles.empty() || !o.solvers.empty())
      throw CliError(kUsage,
                     "--measured sets a recorded run against the plain run's prediction: no --plan or --solvers");
    if (!o.outDir.empty())
      throw CliError(kUsage,
                     "--out-dir keeps the plans, measurements and runner logs of a run here; with --measured "
                     "nothing is run: write the report with --json or the figure with --figure");
    if (o.table != "text" && o.table != "markdown" && o.table != "csv" && o.table != "json")
      throw CliError(kUsage, "unknown table format '" + o.table + "' (text, markdown, csv, json)");
    return runAgainstTrace(o, o.json || o.table == "json");
  }
  if (o.planFiles.empty() == o.solvers.empty())
    throw CliError(kUsage,
                   "give the plans to validate: --plan FILE (repeatable) or --solvers a,b,c, not both (or a recorded "
                   "run: --measured FILE)");
  if (o.table != "text" && o.table != "markdown" && o.table != "csv" && o.table != "json")
    throw CliError(kUsage, "unknown table format '" + o.table + "' (text, markdown, csv, json)");
  const bool asJson = o.json || o.table == "json";
  if (!o.figure.empty()) {
    // Refused before anything is measured, not after minutes on the device.
    if (!vizqt::formatFromPath(o.figure))
      throw CliError(kUsage, "cannot tell the figure format of '" + o.figure + "': use .svg, .pdf or .png");
    std::vector<std::string> inputs = o.planFiles;
    inputs.push_back(o.graph.path);
    inputs.push_back(o.measure.runner);
    checkOutputPath(o.figure, inputs);
  }
  runtime::MeasureOptions measure = measureOptions(o.measure);
  measure.checkGradients = !o.noCheckGrads;
  // The whole command's time: the solves share it, and no runner call runs past it.
  const SolveLimits limits = parseLimits(o.limits);
  const solvers::SharedTime shared(limits.time);
  if (limits.time) measure.deadline = std::chrono::steady_clock::now() + *limits.time;
  LoadedGraph loaded = loadGraph(o.graph);
  const graph::ComputeGraph& g = loaded.graph;
  if (!asJson)
    for (const auto& w : loaded.warnings) std::cerr << "remat: warning: " << w << '\n';

  std::vector<runtime::PlanToValidate> plans;
  try {
    for (const auto& file : o.planFiles) plans.push_back(runtime::readPlanForValidation(file, g));
  } catch (const runtime::ValidationError& e) {
    throw cliError(e);
  }
  if (!o.solvers.empty()) {
    // Solved here as `remat compare` solves; a solver without a plan at this budget is left out.
    const auto strategy = solvers::strategyFromName(o.strategy);
    if (!strategy) throw CliError(kUsage, "unknown strategy '" + o.strategy + "' (time, memory, auto)");
    const bool least = o.budget == "least";
    const auto budget = least ? std::nullopt : parseBudget(o.budget);
    for (std::size_t k = 0; k < o.solvers.size(); ++k) {
      const std::string& id = o.solvers[k];
      const solvers::Solver& s = findSolver(id);
      if (shared.spent()) throw CliError(kInfeasible, "the time limit ran out before " + id + " ran; nothing measured");
      solvers::SolveRequest request{.graph = &g, .budget = budget, .strategy = *strategy, .model = parseModel(o.model)};
      // The runner needs time too: the solves take at most half of the limit between them.
      request.timeLimit = limits.time ? shared.next(2 * (o.solvers.size() - k)) : std::nullopt;
      request.workLimit = limits.work;
      request.memoryLimit = limits.memory;
      request.progress = asJson ? solvers::ProgressSink{} : progressBar(id);
      solvers::SolveResult r = least ? solvers::solveAtLeastBudget(s, request) : s.solve(request);
      if (!r.plan || r.status == solvers::SolveStatus::Infeasible) {
        std::cerr << "remat: warning: " << id << ": " << solvers::outcomeName(r) << ": " << r.message
                  << "; not validated\n";
        continue;
      }
      plans.push_back({id, id, r.budget, std::move(*r.plan), {}});
    }
    if (plans.empty()) throw CliError(kInfeasible, "no solver gave a plan to validate");
  }

  runtime::ValidationRun validation(g, std::move(plans), measure, o.graph.path);
  try {
    if (!o.outDir.empty()) validation.checkKeep(o.outDir);  // before minutes of measuring, not after
  } catch (const runtime::ValidationError& e) {
    throw cliError(e);
  }
  if (!asJson && ::isatty(STDERR_FILENO))
    validation.setProgress([](std::string_view line) { std::cerr << "remat: " << line << '\n'; });
  std::vector<std::string> kept;
  try {
    validation.run();
  } catch (const runtime::ValidationError& e) {
    throw cliError(e);
  }
  const runtime::ValidationReport& report = validation.report();
  if (!o.figure.empty()) {
    const PreparedStyle style = prepareFigureStyle(o.style);
    for (const auto& w : style.warnings) std::cerr << "remat: warning: " << w << '\n';
    viz::FigureStyle figureStyle = style.style;
    if (figureStyle.title.empty())
      figureStyle.title = report.graph + " on " + report.device + ": predicted and measured memory";
    writeSceneAtomically(viz::timelineScene(runtime::validationTimeline(report), figureStyle), o.figure, o.style.dpi);
  }
  try {
    if (!o.outDir.empty()) kept = validation.keep(o.outDir);
  } catch (const runtime::ValidationError& e) {
    throw cliError(e);
  }
  bool gradientsDiffer = false;
  for (const auto& r : report.rows) gradientsDiffer |= r.gradientsMatch == false;

  if (asJson) {
    nlohmann::json j = runtime::validationJson(report);
    j["figure"] = o.figure.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.figure);
    j["files"] = kept;
    j["warnings"] = loaded.warnings;
    printJson(j);
  } else {
    std::cout << "Graph " << report.graph << " on " << report.device << ": " << report.operations << " operations, "
              << report.rows.size() << " plans, median of " << report.iterations << " iterations after "
              << report.warmup << (report.device == "cpu" ? " or more" : "")
              << " warm-up; predicted by the simulator with the '" << report.costModel << "' cost model (time unit "
              << report.timeUnit << ")\n\n";
    printTable(runtime::validationTable(report), o.table, 1);
    const auto timeError = report.maxAbsTimeErrorPercent();
    double worstPeakPercent = 0;
    for (const auto& r : report.rows) worstPeakPercent = std::max(worstPeakPercent, std::abs(r.peakErrorPercent()));
    std::cout << '\n';
    if (const auto allocatorError = report.maxAbsAllocatorErrorPercent())
      std::cout << "Allocator error: at most " << percentText(*allocatorError, 2)
                << " between the framework allocator's peak and the simulator's.\n";
    std::cout << "Table error: at most " << formatByteSize(Bytes{report.maxAbsPeakErrorBytes()}) << " ("
              << report.maxAbsPeakErrorBytes() << " bytes, " << percentText(worstPeakPercent, 2)
              << ") between the live tensor storage of the runner's tables and the simulator.\n"
              << "Time error: "
              << (timeError
                      ? "at most " + percentText(*timeError, 2) + " between the measured median and the predicted time."
                      : std::string("not predicted in seconds (time unit ") + report.timeUnit + ").")
              << '\n';
    for (const auto& n : report.notes) std::cout << "Note: " << n << '\n';
    if (!o.figure.empty()) std::cout << "wrote " << o.figure << '\n';
    for (const auto& f : kept) std::cout << "wrote " << f << '\n';
  }
  if (gradientsDiffer) {
    std::cerr << "remat: error: the parameter gradients of some plans differ from the plain run's (see the grads "
                 "column)\n";
    return kMeasurement;
  }
  return kOk;
}

}  // namespace

void addValidateCommand(CLI::App& app, Runner& run) {
  auto o = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "validate", "Play plans with real tensors (remat-runner) and compare measured with predicted memory and time");
  cmd->add_option("graph", o->graph.path, "Graph file (with the shapes and attributes of an ONNX import)")->required();
  cmd->add_option("--plan", o->planFiles, "A plan file from `remat solve -o` (repeatable)");
  cmd->add_option("--solvers", o->solvers, "Or: solve with these solvers here (comma-separated ids)");
  cmd->add_option("--measured", o->measured,
                  "Or: a training step recorded in PyTorch (runtime/trace_step.py, or a Chrome trace with memory "
                  "events), set against the simulator's plain run; nothing is played");
  cmd->add_option("--budget,-b", o->budget, "Budget for --solvers: bytes, a size such as 2GiB, or 'least'")
      ->check(givenBudget());
  cmd->add_option("--strategy", o->strategy, "DP strategy for --solvers: time, memory or auto")->capture_default_str();
  addModelOption(cmd, o->model);
  addMeasureOptions(cmd, o->measure);
  addLimitOptions(cmd, o->limits,
                  "The whole command's time in seconds (0: none): the solves of --solvers take at most half of it, "
                  "and no runner call runs past it (exit 5)");
  cmd->add_flag("--no-check-grads", o->noCheckGrads,
                "Skip the comparison of every plan's gradients with the plain run");
  addGraphOptions(cmd, o->graph);
  cmd->add_option("--figure", o->figure, "Write the predicted and measured timelines overlaid (.svg, .pdf, .png)");
  cmd->add_option("--out-dir", o->outDir, "Keep the plans, measurements and runner logs in this folder");
  cmd->add_option("--table", o->table, "Table style: text, markdown, csv or json")->capture_default_str();
  cmd->add_flag("--json", o->json, "Machine-readable output (same as --table json)");
  addFigureStyleOptions(cmd, o->style);
  cmd->callback([o, &run] {
    run = [o] {
      o->solvers = listItems(o->solvers, "--solvers");
      return runValidate(*o);
    };
  });
}

}  // namespace remat::cli
