// `remat study`: many graphs x budgets x solvers, one JSON line per task, in deterministic shards that a
// Slurm job array or GNU parallel spreads over machines; `--merge` joins the shards (docs/study.md).

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string_view>

#include "CliSupport.hpp"
#include "Commands.hpp"
#include "FigureSupport.hpp"
#include "remat/graph/ByteSize.hpp"
#include "remat/graph/PrintableText.hpp"
#include "remat/io/PlanJsonValue.hpp"
#include "remat/io/detail/ReaderSupport.hpp"
#include "remat/io/detail/StudyLines.hpp"
#include "remat/solvers/Comparison.hpp"
#include "remat/solvers/SolverRegistry.hpp"
#include "remat/viz/Pareto.hpp"

namespace remat::cli {

namespace {

using nlohmann::json;

struct StudyOptions {
  std::vector<std::string> inputs;  ///< graphs; with --merge, the shards' line files
  GraphOptions graph;               ///< the reading options of every graph (graph.path unused)
  std::vector<std::string> solvers;
  std::vector<std::string> budgets;
  std::string strategy = "time";
  std::string model = "simulator";
  LimitOptions limits{.timeLimit = kDefaultTimeLimit};
  bool timeLimitGiven = false;
  double totalTimeLimit = 0;
  std::string shard;
  bool timings = false;
  bool merge = false;
  std::string output;
  std::string table;
  std::string figuresDir;
  std::string figureFormat = "svg";
  FigureStyleOptions style;
  static constexpr double kDefaultTimeLimit = 60.0;
};

// One --budgets item: a fraction of the graph's plain-run peak ("0.5", "1.0", "50%": a number with a
// decimal point or a percent sign), a size ("2GiB", "123456": bytes), or "least" (each solver's own
// least feasible budget).
struct BudgetSpec {
  std::string text;
  std::optional<double> fraction;
  std::optional<Bytes> bytes;
  [[nodiscard]] bool least() const { return !fraction && !bytes; }
};

BudgetSpec parseBudgetSpec(const std::string& text) {
  BudgetSpec spec{text, std::nullopt, std::nullopt};
  if (text == "least") return spec;
  const bool percent = !text.empty() && text.back() == '%';
  const std::string number = percent ? text.substr(0, text.size() - 1) : text;
  const bool plainNumber =
      !number.empty() && number.find_first_not_of("0123456789.") == std::string::npos && number != ".";
  if (plainNumber && (percent || number.find('.') != std::string::npos)) {
    char* end = nullptr;
    const double value = std::strtod(number.c_str(), &end);
    const double f = percent ? value / 100.0 : value;
    if (end != number.c_str() + number.size() || !std::isfinite(f) || f <= 0 || f > 100)
      throw CliError(kUsage, "invalid budget '" + text +
                                 "': a fraction of the plain run's peak must be above 0 and at most 100 (10000%)");
    spec.fraction = f;
    return spec;
  }
  spec.bytes = parseBudget(text);
  return spec;
}

// "i/n" with 1 <= i <= n: the i-th of n shards. Exactly two whole numbers: "1/3/4" is not read as 1/3.
std::pair<std::size_t, std::size_t> parseShard(const std::string& text) {
  const auto slash = text.find('/');
  std::size_t i = 0;
  std::size_t n = 0;
  auto number = [](std::string_view digits, std::size_t& out) {
    const char* end = digits.data() + digits.size();
    const auto [last, error] = std::from_chars(digits.data(), end, out);
    return !digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos &&
           error == std::errc() && last == end;
  };
  const std::string_view all(text);
  const bool ok = slash != std::string::npos && number(all.substr(0, slash), i) && number(all.substr(slash + 1), n);
  if (!ok || n == 0 || i == 0 || i > n)
    throw CliError(kUsage, "invalid shard '" + text + "': give i/n with 1 <= i <= n, such as 2/8");
  return {i, n};
}

// 64-bit FNV-1a: a stable fingerprint of the study's parameters, the same on every machine and compiler.
std::string fingerprint(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// The fingerprint of a graph file's bytes, so that shards computed from different contents of one path
// never merge. Read in chunks: an ONNX model with its weights may be large.
std::string contentFingerprint(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw CliError(kInput, path + ": cannot read graph file: " +
                               (std::filesystem::exists(path, ec) ? "not a regular file" : "no such file"));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CliError(kInput, path + ": cannot read graph file");
  std::uint64_t h = 0xcbf29ce484222325ULL;
  std::vector<char> buffer(std::size_t{1} << 16);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    for (std::streamsize k = 0; k < in.gcount(); ++k) {
      h ^= static_cast<unsigned char>(buffer[static_cast<std::size_t>(k)]);
      h *= 0x100000001b3ULL;
    }
  }
  if (in.bad()) throw CliError(kInput, path + ": read error");
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// One line of the study: a (graph, budget, solver) task and the simulated figures of its answer.
json taskLine(const StudyOptions& o, const std::string& study, std::size_t task, std::size_t tasks,
              const std::string& graphFile, const graph::ComputeGraph& g, const solvers::SolveResult& vanilla,
              const BudgetSpec& budget, const solvers::SolveResult& r) {
  json j;
  j["study"] = study;
  j["task"] = task;
  j["tasks"] = tasks;
  j["graph"] = graphFile;
  j["graph_name"] = g.name();
  j["time_unit"] = g.timeUnit();
  j["budget"] = budget.text;
  j["budget_bytes"] = r.budget ? json(r.budget->value) : json(nullptr);
  j["solver"] = r.solver;
  j["strategy"] = o.strategy;
  j["model"] = o.model;
  putStatus(j, r);
  j["message"] = r.message;
  j["fits_budget"] = solvers::fitsBudget(r);
  j["vanilla_peak_bytes"] = vanilla.metrics.simulatedPeak.value;
  j["vanilla_time"] = vanilla.metrics.totalTime.value;
  json metrics = io::metricsToJson(r.metrics, r.plan.has_value());
  // Solve times differ from run to run; without --timings the lines are the same on every machine.
  if (!o.timings) metrics.erase("solve_seconds");
  j["metrics"] = std::move(metrics);
  j["overhead_percent"] =
      r.plan ? json(solvers::overheadPercent(r.metrics.overhead, vanilla.metrics.totalTime)) : json(nullptr);
  const auto change = solvers::peakChangePercent(r.metrics.simulatedPeak, vanilla.metrics.simulatedPeak);
  j["reduction_percent"] = r.plan && change ? json(0.0 - *change) : json(nullptr);
  j["overhead_lower_bound"] = r.overheadLowerBound ? json(r.overheadLowerBound->value) : json(nullptr);
  return j;
}

int runStudyTasks(const StudyOptions& o) {
  if (o.inputs.empty()) throw CliError(kUsage, "name at least one graph");
  if (o.solvers.empty()) throw CliError(kUsage, "name the solvers with --solvers");
  if (o.budgets.empty()) throw CliError(kUsage, "name the budgets with --budgets (such as 0.5,0.75,least)");
  if (!o.table.empty() || !o.figuresDir.empty())
    throw CliError(kUsage, "--table and --figures go with --merge (a study's own output is its lines)");
  std::vector<const solvers::Solver*> chosen;
  for (const auto& id : o.solvers) chosen.push_back(&findSolver(id));
  std::vector<BudgetSpec> budgets;
  for (const auto& b : o.budgets) budgets.push_back(parseBudgetSpec(b));
  const auto strategy = solvers::strategyFromName(o.strategy);
  if (!strategy) throw CliError(kUsage, "unknown strategy '" + o.strategy + "' (time, memory, auto)");
  const solvers::DpModelKind model = parseModel(o.model);
  const SolveLimits limits = parseLimits(o.limits);
  const auto [shard, shards] = o.shard.empty() ? std::pair<std::size_t, std::size_t>{1, 1} : parseShard(o.shard);
  if (!o.output.empty()) checkOutputPath(o.output, o.inputs);

  // Everything that decides the lines, so that --merge refuses shards of different studies: the graphs'
  // contents too, not only their paths.
  std::vector<std::string> contents;
  for (const auto& input : o.inputs) contents.push_back(contentFingerprint(input));
  json parameters = {{"graphs", o.inputs},
                     {"graph_contents", contents},
                     {"budgets", o.budgets},
                     {"solvers", o.solvers},
                     {"strategy", o.strategy},
                     {"model", o.model},
                     {"format", o.graph.format},
                     {"cost_model", o.graph.costModel},
                     {"workspace", o.graph.workspace},
                     {"batch", o.graph.batch},
                     {"time_limit_seconds", o.limits.timeLimit},
                     {"time_limit_given", o.timeLimitGiven},
                     {"memory_limit", o.limits.memoryLimit},
                     {"timings", o.timings}};
  if (limits.work) parameters["work_limit"] = *limits.work;  // only when given: older studies keep their print
  const std::string study = fingerprint(parameters.dump());
  const std::size_t perGraph = budgets.size() * chosen.size();
  const std::size_t tasks = o.inputs.size() * perGraph;

  // The shard's total time (not part of the study's print: a wall-clock bound of the job, as Slurm's):
  // each task gets at most an equal share of what is left among this shard's tasks still to run.
  const solvers::SharedTime whole(parseSecondsLimit(o.totalTimeLimit, "--total-time-limit"));
  std::size_t tasksLeft = 0;
  for (std::size_t k = shard - 1; k < tasks; k += shards) ++tasksLeft;
  bool notRun = false;
  std::ostringstream lines;
  bool internalError = false;
  for (std::size_t gi = 0; gi < o.inputs.size(); ++gi) {
    // Task k is (graph k / perGraph, budget, solver); shard i of n takes the tasks k with k % n == i - 1,
    // so that each shard gets its share of every graph, large and small.
    std::vector<std::size_t> mine;
    for (std::size_t k = gi * perGraph; k < (gi + 1) * perGraph; ++k)
      if (k % shards == shard - 1) mine.push_back(k);
    if (mine.empty()) continue;
    GraphOptions graphOptions = o.graph;
    graphOptions.path = o.inputs[gi];
    LoadedGraph loaded = loadGraph(graphOptions);
    const graph::ComputeGraph& g = loaded.graph;
    for (const auto& w : loaded.warnings) std::cerr << "remat: warning: " << o.inputs[gi] << ": " << w << '\n';
    const solvers::SolveResult vanilla = solvers::SolverRegistry::builtin().plainRun().solve({.graph = &g});
    if (!vanilla.plan) throw CliError(kInternal, o.inputs[gi] + ": the plain run gives no plan: " + vanilla.message);
    for (const std::size_t k : mine) {
      const BudgetSpec& budget = budgets[(k % perGraph) / chosen.size()];
      const solvers::Solver& solver = *chosen[k % chosen.size()];
      solvers::SolveRequest request{.graph = &g, .strategy = *strategy, .model = model};
      limits.applyTo(request);
      request.timeLimitLiftsSizeLimit = o.timeLimitGiven;
      request.progress =
          progressBar(solver.info().id + " on " + std::filesystem::path(o.inputs[gi]).filename().string());
      if (budget.fraction)
        request.budget =
            Bytes{std::int64_t(std::floor(*budget.fraction * double(vanilla.metrics.simulatedPeak.value)))};
      else if (budget.bytes)
        request.budget = budget.bytes;
      solvers::SolveResult r;
      if (whole.spent()) {
        r.solver = solver.info().id;
        r.strategy = request.strategy;
        r.budget = request.budget;
        r.status = solvers::SolveStatus::TimeLimit;
        r.message = "not run: the shard's total time limit (--total-time-limit) was spent";
        notRun = true;
      } else {
        request.timeLimit = whole.next(tasksLeft, request.timeLimit);
        r = budget.least() ? solvers::solveAtLeastBudget(solver, request) : solver.solve(request);
      }
      --tasksLeft;
      internalError |= r.call == solvers::CallStatus::Error;
      const std::string line = taskLine(o, study, k, tasks, o.inputs[gi], g, vanilla, budget, r).dump() + '\n';
      if (o.output.empty()) {
        // A line per finished task: a killed shard keeps what it did, and one that cannot write stops.
        std::cout << line;
        flushStdout();
      } else {
        lines << line;
      }
    }
  }
  if (!o.output.empty()) writeFileAtomically(o.output, lines.str());
  // A solver's internal error is in its line and in the exit code, as in compare; tasks the total time
  // left unrun are in their lines, and exit 1 says the shard did not run whole.
  if (internalError) return kInternal;
  if (notRun) {
    std::cerr << "remat: the total time limit was spent before every task ran; their lines say 'not run'\n";
    return kInfeasible;
  }
  return kOk;
}

// Shard files over 1 GiB are refused before reading (a million tasks make about 700 MB of lines).
constexpr std::uintmax_t kMaxShardBytes = std::uintmax_t{1} << 30;

using io::detail::StudyLine;

std::vector<StudyLine> readShards(const std::vector<std::string>& files) {
  std::vector<StudyLine> out;
  for (const auto& file : files) {
    // As every reader of Remat's: regular files only, with a cap (a device or FIFO is refused unread).
    std::string why;
    const std::optional<std::string> content = io::detail::readFileCapped(file, kMaxShardBytes, "shard", why);
    if (!content) throw CliError(kInput, std::string(file).append(": cannot read shard file: ").append(why));
    try {
      io::detail::appendStudyLines(*content, file, out);
    } catch (const io::detail::StudyLineError& e) {
      throw CliError(kInput, e.what());
    }
  }
  return out;
}

// The lines of one study, in task order, every task exactly once (io::detail::joinStudyLines).
std::vector<StudyLine> joinShards(std::vector<StudyLine> lines) {
  try {
    return io::detail::joinStudyLines(std::move(lines));
  } catch (const io::detail::StudyLineError& e) {
    throw CliError(kInput, e.what());
  }
}

std::optional<std::int64_t> integer(const json& v) {
  return v.is_number_integer() ? std::optional<std::int64_t>(v.get<std::int64_t>()) : std::nullopt;
}

std::string percentCell(const json& v) { return v.is_number() ? percentText(v.get<double>()) : "-"; }

// The figures a plan of a line has, for Comparison::best's rule.
solvers::PlanMetrics lineMetrics(const json& line) {
  const json& metrics = line["metrics"];
  solvers::PlanMetrics m;
  m.simulatedPeak = Bytes{integer(metrics.value("simulated_peak_bytes", json(nullptr))).value_or(0)};
  m.overhead = Ticks{integer(metrics.value("overhead", json(nullptr))).value_or(0)};
  return m;
}

int runStudyMerge(const StudyOptions& o) {
  if (o.inputs.empty()) throw CliError(kUsage, "name the shards' line files to merge");
  if (!o.shard.empty()) throw CliError(kUsage, "--shard does not go with --merge");
  if (!o.table.empty() && o.table != "text" && o.table != "markdown" && o.table != "csv")
    throw CliError(kUsage, "unknown table format '" + o.table + "' (text, markdown, csv)");
  if (!o.figuresDir.empty() && o.figureFormat != "svg" && o.figureFormat != "pdf" && o.figureFormat != "png")
    throw CliError(kUsage, "unknown figure format '" + o.figureFormat + "' (svg, pdf, png)");
  if (!o.output.empty()) checkOutputPath(o.output, o.inputs);
  const std::vector<StudyLine> lines = joinShards(readShards(o.inputs));

  // The winner of each (graph, budget): Comparison::best's rule over the solvers' lines.
  std::map<std::pair<std::string, std::string>, std::size_t> best;
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const json& v = lines[k].value;
    if (!v["fits_budget"].get<bool>()) continue;
    const auto key = std::pair{v["graph"].get<std::string>(), v["budget"].get<std::string>()};
    const auto it = best.find(key);
    const bool least = v["budget"] == "least";
    if (it == best.end() || solvers::beats(lineMetrics(v), lineMetrics(lines[it->second].value), least)) best[key] = k;
  }

  if (!o.figuresDir.empty()) {
    // Per graph, the Pareto figure of the study: every solver's plans that fit their budgets, at their
    // simulated peaks and overheads, with the plain run.
    const PreparedStyle style = prepareFigureStyle(o.style);
    for (const auto& w : style.warnings) std::cerr << "remat: warning: " << w << '\n';
    std::map<std::string, viz::ParetoData> figures;
    std::vector<std::string> order;
    for (const StudyLine& line : lines) {
      const json& v = line.value;
      const std::string graphFile = v["graph"].get<std::string>();
      if (!figures.count(graphFile)) {
        order.push_back(graphFile);
        viz::ParetoData& data = figures[graphFile];
        data.timeUnit = v.value("time_unit", std::string("time units"));
        data.memoryLabel = "simulated peak memory";
        if (const auto peak = integer(v.value("vanilla_peak_bytes", json(nullptr))))
          data.vanilla = viz::TradeOffPoint{double(*peak), 0.0};
      }
      // A series per solver in the study's order, filled with the plans that fit.
      viz::ParetoData& data = figures[graphFile];
      const std::string solver = v["solver"].get<std::string>();
      auto series = std::find_if(data.series.begin(), data.series.end(),
                                 [&](const viz::ParetoSeries& s) { return s.solver == solver; });
      if (series == data.series.end()) {
        data.series.push_back({solver, {}, viz::solverStyle(solver)});
        series = std::prev(data.series.end());
      }
      if (!v["fits_budget"].get<bool>()) continue;
      const solvers::PlanMetrics m = lineMetrics(v);
      const viz::TradeOffPoint point{double(m.simulatedPeak.value), double(m.overhead.value)};
      if (std::find(series->points.begin(), series->points.end(), point) == series->points.end())
        series->points.push_back(point);
    }
    std::error_code ec;
    std::filesystem::create_directories(o.figuresDir, ec);
    if (ec) throw CliError(kInput, "cannot create " + o.figuresDir + ": " + ec.message());
    std::map<std::string, int> stems;
    std::vector<std::pair<std::string, viz::ParetoData*>> toWrite;
    for (const std::string& graphFile : order) {
      viz::ParetoData& data = figures[graphFile];
      std::erase_if(data.series, [](const viz::ParetoSeries& s) { return s.points.empty(); });
      if (data.series.empty()) {
        std::cerr << "remat: warning: no plan fits a budget on " << graphFile << ": no figure\n";
        continue;
      }
      for (auto& s : data.series)
        std::sort(s.points.begin(), s.points.end(), [](const auto& a, const auto& b) {
          return std::pair{a.memory, a.overhead} < std::pair{b.memory, b.overhead};
        });
      // Graphs of the same file name in different folders get -2, -3, ...
      std::string stem = std::filesystem::path(graphFile).stem().string();
      if (const int n = ++stems[stem]; n > 1) stem += "-" + std::to_string(n);
      const std::string path = (std::filesystem::path(o.figuresDir) / (stem + "-pareto." + o.figureFormat)).string();
      toWrite.emplace_back(path, &data);
    }
    // Every figure is checked before the first is written: none may be one of the shards read.
    for (const auto& [path, data] : toWrite) checkOutputPath(path, o.inputs);
    for (const auto& [path, data] : toWrite) {
      writeSceneAtomically(viz::paretoScene(*data, style.style), path, o.style.dpi);
      std::cerr << "wrote " << path << '\n';
    }
  }

  if (o.table.empty()) {
    // The study's lines, as one unsharded run writes them.
    std::string all;
    for (const StudyLine& line : lines) all += line.text + '\n';
    if (o.output.empty()) {
      std::cout << all << std::flush;
    } else {
      writeFileAtomically(o.output, all);
    }
    return kOk;
  }
  std::vector<std::vector<std::string>> rows{{"graph", "budget", "solver", "best", "status", "fits", "budget bytes",
                                              "simulated peak", "vs vanilla", "overhead", "overhead %", "recomputed"}};
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const json& v = lines[k].value;
    const json& m = v["metrics"];
    const auto key = std::pair{v["graph"].get<std::string>(), v["budget"].get<std::string>()};
    const auto it = best.find(key);
    const auto peak = integer(m.value("simulated_peak_bytes", json(nullptr)));
    const auto budgetBytes = integer(v.value("budget_bytes", json(nullptr)));
    const auto overhead = integer(m.value("overhead", json(nullptr)));
    const auto recomputed = integer(m.value("recomputed_nodes", json(nullptr)));
    const json reduction = v.value("reduction_percent", json(nullptr));
    rows.push_back({key.first, key.second, v["solver"].get<std::string>(),
                    it != best.end() && it->second == k ? "*" : "",
                    v.value("call", std::string("ok")) == "error" ? "error" : v.value("status", std::string("?")),
                    v["fits_budget"].get<bool>() ? "yes" : "no",
                    budgetBytes ? formatByteSize(Bytes{*budgetBytes}) : "-", peak ? formatByteSize(Bytes{*peak}) : "-",
                    reduction.is_number() ? percentText(0.0 - reduction.get<double>()) : "-",
                    overhead ? std::to_string(*overhead) : "-", percentCell(v.value("overhead_percent", json(nullptr))),
                    recomputed ? std::to_string(*recomputed) : "-"});
  }
  printTable(rows, o.table, 6);
  if (o.table == "text" || o.table == "markdown")
    std::cout << "\n* best: the least simulated overhead among the plans that fit the budget (at 'least', the "
                 "lowest simulated peak)\n";
  return kOk;
}

}  // namespace

void addStudyCommand(CLI::App& app, Runner& run) {
  auto o = std::make_shared<StudyOptions>();
  CLI::App* cmd = app.add_subcommand(
      "study", "Solvers x budgets x graphs, one JSON line per task, in shards that run on many machines");
  cmd->add_option("inputs", o->inputs, "Graph files (with --merge: the line files of the shards)")->required();
  cmd->add_option("--solvers", o->solvers, "Comma-separated solver ids");
  cmd->add_option("--budgets", o->budgets,
                  "Comma-separated budgets: fractions of each graph's plain-run peak (0.5, 75%), sizes (2GiB, "
                  "bytes) or 'least' (each solver's own least feasible budget)");
  cmd->add_option("--strategy", o->strategy, "DP strategy: time, memory or auto")->capture_default_str();
  addModelOption(cmd, o->model);
  addGraphOptions(cmd, o->graph);
  CLI::Option* limit = addLimitOptions(cmd, o->limits,
                                       "Each solve's time limit in seconds (0: none). The default guards against a "
                                       "long MILP search and does not let milp try graphs over its size limit; an "
                                       "explicit limit does");
  limit->capture_default_str();
  addTotalTimeLimit(cmd, o->totalTimeLimit,
                    "The shard's whole time in seconds (0: none): each task gets at most an equal share of what is "
                    "left, never more than --time-limit; tasks not begun when it is spent are written as not run, "
                    "status time-limit, and the exit code is 1");
  cmd->add_option("--shard", o->shard,
                  "Run only the i-th of n deterministic slices of the tasks, as i/n (1 <= i <= n): a Slurm array "
                  "task or a GNU parallel job each");
  cmd->add_flag("--timings", o->timings, "Also write each solve's seconds (the lines then differ from run to run)");
  cmd->add_flag("--merge", o->merge, "Join the shards' line files: every task once, in task order");
  cmd->add_option("--output,-o", o->output, "Write the lines (or the merged lines) to this file, whole or not at all");
  cmd->add_option("--table", o->table, "With --merge: print a table instead of the lines: text, markdown or csv");
  cmd->add_option("--figures", o->figuresDir, "With --merge: write each graph's Pareto figure into this folder");
  cmd->add_option("--figure-format", o->figureFormat, "Format of those figures: svg, pdf or png")
      ->capture_default_str();
  addFigureStyleOptions(cmd, o->style);
  cmd->callback([o, limit, &run] {
    o->timeLimitGiven = limit->count() > 0;
    run = [o] {
      o->solvers = listItems(o->solvers, "--solvers");
      o->budgets = listItems(o->budgets, "--budgets");
      return o->merge ? runStudyMerge(*o) : runStudyTasks(*o);
    };
  });
}

}  // namespace remat::cli
