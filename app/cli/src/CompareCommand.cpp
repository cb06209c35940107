#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "CliSupport.hpp"
#include "Commands.hpp"
#include "FigureSupport.hpp"
#include "remat/graph/ByteSize.hpp"
#include "remat/graph/PrintableText.hpp"
#include "remat/io/OutputFile.hpp"
#include "remat/io/PlanJsonValue.hpp"
#include "remat/solvers/Comparison.hpp"
#include "remat/solvers/Isolated.hpp"
#include "remat/solvers/SolverRegistry.hpp"

namespace remat::cli {

namespace {

struct CompareOptions {
  GraphOptions graph;
  std::vector<std::string> solvers;
  std::string budget;
  std::string strategy = "time";
  std::string model = "simulator";
  std::string table = "text";
  bool json = false;
  std::string figuresDir;
  std::string figureFormat = "svg";
  FigureStyleOptions style;
  LimitOptions limits{.timeLimit = kDefaultTimeLimit};
  PinOptions pins;
  bool timeLimitGiven = false;
  double totalTimeLimit = 0;
  static constexpr double kDefaultTimeLimit = 60.0;
};

std::string seconds(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

// Where compare --figures writes the figure of this kind.
std::string compareFigurePath(const CompareOptions& o, viz::FigureKind kind) {
  return (std::filesystem::path(o.figuresDir) / (std::string(viz::figureName(kind)) + "." + o.figureFormat)).string();
}

// Every figure of the comparison into o.figuresDir: the timeline of all plans (the plain run first),
// the Pareto fronts of the solvers (in the comparison's DP model), and the graph drawing, schedule
// matrix and memory layout of the winner's plan (else exact-dp's, approx-dp's, the first one).
std::vector<std::string> writeCompareFigures(const CompareOptions& o, const graph::ComputeGraph& g,
                                             const solvers::Comparison& comparison,
                                             const std::vector<const solvers::Solver*>& chosen,
                                             const std::optional<Bytes>& budget, const SolveLimits& limits,
                                             std::optional<std::chrono::milliseconds> left) {
  const solvers::SolveResult& vanilla = comparison.vanilla;
  const std::vector<solvers::SolveResult>& results = comparison.rows;
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(o.figuresDir, ec);
  if (ec) throw CliError(kInput, "cannot create " + o.figuresDir + ": " + ec.message());
  const PreparedStyle style = prepareFigureStyle(o.style);
  for (const auto& w : style.warnings) std::cerr << "remat: warning: " << w << '\n';

  const auto& registry = solvers::SolverRegistry::builtin();
  std::vector<viz::LabeledPlan> plans;
  if (vanilla.plan) plans.push_back({vanilla.solver, *vanilla.plan});
  for (const auto& r : results)
    if (r.plan && !registry.isPlainRun(r.solver)) plans.push_back({r.solver, *r.plan});
  auto find = [&](const std::string& label) -> std::optional<std::size_t> {
    for (std::size_t k = 0; k < plans.size(); ++k)
      if (plans[k].label == label) return k;
    return std::nullopt;
  };
  // The winner's plan; without one, the paper's DPs' (the exact one first), the first solver's, else the
  // plain run.
  std::optional<std::size_t> best;
  if (comparison.best) best = find(results[*comparison.best].solver);
  for (const bool exact : {true, false})
    for (const solvers::Solver* s : chosen)
      if (!best && s->info().followsStrategy && s->info().exact == exact) best = find(s->info().id);
  if (!best && !plans.empty()) best = plans.size() > 1 ? 1 : 0;
  // Every figure is made first, then all are written under the folder's lock: comparisons writing into
  // one folder at once each leave their whole set, the last one's, never a mix.
  std::vector<std::pair<std::string, std::string>> files;
  auto write = [&](viz::FigureRequest request) {
    request.graph = &g;
    const std::string path = compareFigurePath(o, request.kind);
    try {
      files.emplace_back(path, encodeFigureFile(request, style, path, o.style.dpi));
    } catch (const CliError& e) {
      // A graph too large to draw costs the comparison its drawing, not the other figures.
      if (e.code() != kInfeasible) throw;
      std::cerr << "remat: warning: " << viz::figureName(request.kind) << " figure left out: " << e.what() << '\n';
    }
  };
  viz::FigureRequest timeline;
  timeline.kind = viz::FigureKind::Timeline;
  timeline.plans = plans;
  timeline.budget = budget;
  write(std::move(timeline));
  std::vector<const solvers::Solver*> fronts;
  for (const solvers::Solver* s : chosen)
    if (inDefaultFronts(s->info())) fronts.push_back(s);
  if (!fronts.empty()) {
    viz::FigureRequest pareto;
    pareto.kind = viz::FigureKind::Pareto;
    // Each front gets a solver's time limit, unless the total's rest is less.
    solvers::RunLimits frontLimits{limits.time, limits.work, limits.memory};
    if (limits.time) frontLimits.time = *limits.time * static_cast<std::int64_t>(fronts.size());
    if (left && (!frontLimits.time || *left < *frontLimits.time)) frontLimits.time = *left;
    viz::ParetoInputs inputs = viz::paretoInputs(g, fronts, 20, {}, parseModel(o.model), {}, {}, frontLimits);
    for (const auto& s : inputs.skipped) std::cerr << "remat: warning: no front from " << s << '\n';
    for (const auto& s : inputs.partial) std::cerr << "remat: warning: a partial front from " << s << '\n';
    pareto.pareto = std::move(inputs.data);
    pareto.budget = budget;
    if (!pareto.pareto.series.empty()) write(std::move(pareto));
  }
  for (viz::FigureKind kind : {viz::FigureKind::Graph, viz::FigureKind::Schedule, viz::FigureKind::Layout}) {
    viz::FigureRequest request;
    request.kind = kind;
    if (best) request.plans.push_back(plans[*best]);
    write(std::move(request));
  }
  const io::FolderLock lock(o.figuresDir);
  if (lock.lockError()) throw CliError(kInput, *lock.lockError());
  std::vector<std::string> written;
  for (const auto& [path, bytes] : files) {
    writeFileAtomically(path, bytes);
    written.push_back(path);
  }
  return written;
}

int runCompare(const CompareOptions& o) {
  const auto& registry = solvers::SolverRegistry::builtin();
  std::vector<const solvers::Solver*> chosen;
  for (const auto& id : o.solvers.empty() ? registry.ids() : o.solvers) {
    chosen.push_back(&findSolver(id));
  }
  if (o.table != "text" && o.table != "markdown" && o.table != "csv" && o.table != "json")
    throw CliError(kUsage, "unknown table format '" + o.table + "' (text, markdown, csv, json)");
  auto strategy = solvers::strategyFromName(o.strategy);
  if (!strategy) throw CliError(kUsage, "unknown strategy '" + o.strategy + "' (time, memory, auto)");
  // "least": each solver at its own least feasible budget, the paper's minimum-memory comparison.
  const bool leastBudgets = o.budget == "least";
  const auto budget = leastBudgets ? std::nullopt : parseBudget(o.budget);
  if (!o.figuresDir.empty()) {
    if (o.figureFormat != "svg" && o.figureFormat != "pdf" && o.figureFormat != "png")
      throw CliError(kUsage, "unknown figure format '" + o.figureFormat + "' (svg, pdf, png)");
    for (viz::FigureKind kind : viz::kAllFigures)
      checkOutputPath(compareFigurePath(o, kind), {o.graph.path, o.pins.file});
  }
  const SolveLimits limits = parseLimits(o.limits);
  const auto total = parseSecondsLimit(o.totalTimeLimit, "--total-time-limit");
  const solvers::SharedTime whole(total);
  LoadedGraph loaded = loadGraph(o.graph);
  const graph::ComputeGraph& g = loaded.graph;
  const bool json = o.json || o.table == "json";

  solvers::SolveRequest request{.graph = &g, .budget = budget, .strategy = *strategy, .model = parseModel(o.model)};
  request.pins = parsePins(o.pins, g);
  limits.applyTo(request);
  // The default limit guards against a long MILP; it does not ask milp to try graphs beyond its size limit.
  request.timeLimitLiftsSizeLimit = o.timeLimitGiven;
  const solvers::Comparison comparison = solvers::compareSolvers(
      chosen, request, leastBudgets,
      [&](const std::string& id) { return json ? solvers::ProgressSink{} : progressBar(id); }, whole.left());
  const solvers::SolveResult& vanilla = comparison.vanilla;
  const std::vector<solvers::SolveResult>& results = comparison.rows;
  bool internalError = false;
  for (const auto& r : results) internalError |= r.call == solvers::CallStatus::Error;
  // With each solver at its own least budget, the bounds are at different budgets: no common gap.
  const std::optional<solvers::OverheadBound>& bound = comparison.bound;
  const std::string bestId = comparison.best ? results[*comparison.best].solver : std::string();
  // The bound of the solvers that only bound (lp-bound), apart from the bounds that come with plans.
  std::optional<Ticks> lpBound;
  for (const auto& r : results)
    if (const solvers::Solver* s = registry.find(r.solver); s && !s->info().makesPlans && r.overheadLowerBound)
      lpBound = r.overheadLowerBound;
  const std::vector<std::string> figures =
      o.figuresDir.empty() ? std::vector<std::string>{}
                           : writeCompareFigures(o, g, comparison, chosen, budget, limits, whole.left());

  if (json) {
    nlohmann::json j;
    j["graph"] = g.name();
    j["budget_bytes"] = budget ? nlohmann::json(budget->value) : nlohmann::json(nullptr);
    j["vanilla_peak_bytes"] = vanilla.metrics.simulatedPeak.value;
    j["vanilla_time"] = vanilla.metrics.totalTime.value;
    j["model"] = std::string(solvers::dpModelName(request.model));
    j["best"] = comparison.best ? nlohmann::json(bestId) : nlohmann::json(nullptr);
    j["time_limit_seconds"] = limits.time ? nlohmann::json(o.limits.timeLimit) : nlohmann::json(nullptr);
    j["total_time_limit_seconds"] = total ? nlohmann::json(o.totalTimeLimit) : nlohmann::json(nullptr);
    j["memory_limit_bytes"] = solvers::memoryLimitOr(request.memoryLimit);
    if (lpBound) j["lp_bound_overhead"] = lpBound->value;
    if (bound) j["overhead_bound"] = {{"overhead", bound->overhead.value}, {"solver", bound->solver}};
    j["rows"] = nlohmann::json::array();
    for (std::size_t k = 0; k < results.size(); ++k) {
      const auto& r = results[k];
      nlohmann::json row;
      row["solver"] = r.solver;
      if (const solvers::Solver* solver = solvers::SolverRegistry::builtin().find(r.solver))
        row["citation"] = solver->info().citation;
      row["budget_bytes"] = results[k].budget ? nlohmann::json(results[k].budget->value) : nlohmann::json(nullptr);
      putStatus(row, r);
      const auto& rowLimit = comparison.rowLimits[k];
      row["time_limit_seconds"] = rowLimit ? nlohmann::json(double(rowLimit->count()) / 1000) : nlohmann::json(nullptr);
      row["message"] = r.message;
      row["metrics"] = io::metricsToJson(r.metrics, r.plan.has_value());
      row["fits_budget"] = solvers::fitsBudget(r);
      row["overhead_percent"] = r.plan ? nlohmann::json(comparison.overheadPercent(r)) : nlohmann::json(nullptr);
      row["best"] = comparison.best == k;
      const auto change = comparison.peakChangePercent(r);
      row["reduction_percent"] = change ? nlohmann::json(0.0 - *change) : nlohmann::json(nullptr);
      if (r.overheadLowerBound) row["overhead_lower_bound"] = r.overheadLowerBound->value;
      if (bound && solvers::fitsBudget(r)) row["over_bound"] = r.metrics.overhead.value - bound->overhead.value;
      j["rows"].push_back(std::move(row));
    }
    j["warnings"] = loaded.warnings;
    if (!o.figuresDir.empty()) j["figures"] = figures;
    printJson(j);
    return internalError ? kInternal : kOk;
  }

  for (const auto& w : loaded.warnings) std::cerr << "remat: warning: " << w << '\n';
  std::vector<std::vector<std::string>> rows{{"solver", "best", "status", "fits", "model peak", "simulated peak",
                                              "vs vanilla", "overhead", "overhead %", "recomputed", "solve s"}};
  if (leastBudgets) rows.front().insert(rows.front().begin() + 4, "least budget");
  if (bound) rows.front().insert(rows.front().begin() + 9, "over bound");
  // Under pins, whether each plan honours them: one that does not answers another question (bestResult).
  const bool pinned = std::any_of(results.begin(), results.end(), [](const auto& r) { return !r.pins.empty(); });
  if (pinned) rows.front().emplace_back("pins");
  for (std::size_t k = 0; k < results.size(); ++k) {
    const auto& r = results[k];
    const auto& m = r.metrics;
    std::vector<std::string> row;
    if (!r.plan) {
      // A plan-less bound (lp-bound; milp stopped before any schedule) shows the bound as its overhead.
      const std::string overhead = r.overheadLowerBound ? ">= " + std::to_string(r.overheadLowerBound->value) : "-";
      row = {r.solver, std::string(solvers::outcomeName(r)),
             "-",      "-",
             "-",      "-",
             overhead, "-",
             "-",      seconds(m.solveSeconds)};
    } else {
      row = {r.solver,
             std::string(solvers::outcomeName(r)),
             solvers::fitsBudget(r) ? "yes" : "no",
             m.modelPeak ? formatByteSize(*m.modelPeak) : "-",
             formatByteSize(m.simulatedPeak),
             comparison.peakChangePercent(r) ? percentText(*comparison.peakChangePercent(r)) : "n/a",
             std::to_string(m.overhead.value),
             percentText(comparison.overheadPercent(r)),
             std::to_string(m.recomputedNodes),
             seconds(m.solveSeconds)};
    }
    row.insert(row.begin() + 1, comparison.best == k ? "*" : "");
    if (leastBudgets) row.insert(row.begin() + 4, results[k].budget ? formatByteSize(*results[k].budget) : "-");
    if (bound)
      row.insert(row.begin() + 9,
                 solvers::fitsBudget(r) ? std::to_string(m.overhead.value - bound->overhead.value) : std::string("-"));
    if (pinned) row.push_back(!r.plan ? "-" : r.pinsIgnored.empty() ? "honoured" : "ignores " + r.pinsIgnored);
    rows.push_back(std::move(row));
  }
  std::cout << "Graph " << graph::printableText(g.name()) << ": " << g.opCount() << " operations, vanilla peak "
            << formatByteSize(vanilla.metrics.simulatedPeak) << ", budget "
            << (leastBudgets ? std::string("each solver's least")
                : budget     ? formatByteSize(*budget)
                             : std::string("none"))
            << ", time in " << g.timeUnit() << "\n\n";
  printTable(rows, o.table);
  // Under pins, only the plans whose solvers honour them all compete (bestResult).
  const std::string honouring = pinned ? ", among the solvers that honour every pin" : "";
  std::cout << "\n* best: "
            << (comparison.best
                    ? bestId + (leastBudgets
                                    ? ", the lowest simulated peak at its own least budget" + honouring
                                    : ", the least overhead among the plans that fit the budget in the simulator" +
                                          honouring)
                    : std::string("none; no plan fits the budget in the simulator") + honouring)
            << "\n";
  for (const auto& r : results)
    if (!r.message.empty()) std::cout << "\n" << r.solver << ": " << r.message;
  if (bound)
    std::cout << "\n\nover bound: overhead minus " << bound->overhead.value << ' ' << g.timeUnit()
              << ", the best lower bound (" << bound->solver
              << "). It bounds the schedules of the Checkmate MILP's formulation (first computations "
                 "in node order, each value computed at most once per stage), not every schedule: a "
                 "solver outside that formulation may come in below it (docs/milp.md).";
  std::cout << "\n\nMethods:";
  for (const auto& r : results)
    if (const solvers::Solver* solver = solvers::SolverRegistry::builtin().find(r.solver))
      std::cout << "\n  " << r.solver << ": " << solver->info().citation;
  std::cout << '\n';
  for (const auto& f : figures) std::cout << "wrote " << f << '\n';
  return internalError ? kInternal : kOk;
}

}  // namespace

void addCompareCommand(CLI::App& app, Runner& run) {
  auto o = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand("compare", "Run several solvers on one graph and print them side by side");
  cmd->add_option("graph", o->graph.path, "Graph file")->required();
  cmd->add_option("--solvers", o->solvers, "Comma-separated solver ids (default: all)");
  cmd->add_option("--budget,-b", o->budget,
                  "Memory budget: bytes, a size such as 2GiB, or 'least' for each solver's least feasible budget "
                  "(default: none)")
      ->check(givenBudget());
  cmd->add_option("--strategy", o->strategy, "DP strategy: time, memory or auto")->capture_default_str();
  addModelOption(cmd, o->model);
  addGraphOptions(cmd, o->graph);
  cmd->add_option("--table", o->table, "Table style: text, markdown, csv or json")->capture_default_str();
  cmd->add_flag("--json", o->json, "Machine-readable output (same as --table json)");
  CLI::Option* limit = addLimitOptions(cmd, o->limits,
                                       "Each solver's time limit in seconds (0: none). The default guards against a "
                                       "long MILP search and does not let milp try graphs over its size limit; an "
                                       "explicit limit does");
  addTotalTimeLimit(cmd, o->totalTimeLimit,
                    "The whole comparison's time in seconds (0: none): each solver gets at most an equal share of "
                    "what is left (and never more than --time-limit); one not begun when it is spent is reported "
                    "as not run, status time-limit");
  addPinOptions(cmd, o->pins);
  addSeedOption(cmd, o->limits);
  limit->capture_default_str();
  cmd->add_option("--figures", o->figuresDir,
                  "Also write every figure (timeline, pareto, graph, schedule, layout) into this folder");
  cmd->add_option("--figure-format", o->figureFormat, "Format of those figures: svg, pdf or png")
      ->capture_default_str();
  addFigureStyleOptions(cmd, o->style);
  cmd->callback([o, limit, &run] {
    o->timeLimitGiven = limit->count() > 0;
    run = [o] {
      o->solvers = listItems(o->solvers, "--solvers");
      return runCompare(*o);
    };
  });
}

}  // namespace remat::cli
