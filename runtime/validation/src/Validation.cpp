#include "remat/runtime/Validation.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <set>

#include "WorkDir.hpp"
#include "remat/io/NativeJson.hpp"
#include "remat/io/OutputFile.hpp"
#include "remat/io/PlanJson.hpp"
#include "remat/runtime/MeasuredRun.hpp"
#include "remat/runtime/Profiler.hpp"
#include "remat/runtime/ValidationError.hpp"
#include "remat/solvers/SolverRegistry.hpp"

namespace remat::runtime {

namespace fs = std::filesystem;

namespace {

// A label that is also a file name: letters, digits, '.', '_', '-'; anything else becomes '_'.
std::string fileSafe(const std::string& label) {
  std::string out;
  for (char c : label)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') ? c : '_';
  return out.empty() ? std::string("plan") : out;
}

// What the runner's messages call the files of the temporary folder, in the user's words.
struct Names {
  std::vector<std::pair<std::string, std::string>> renames;
};

// The arguments every measurement shares.
std::vector<std::string> measureArgs(const MeasureOptions& o) {
  std::vector<std::string> args{"--device",     o.device,
                                "--seed",       std::to_string(o.seed),
                                "--warmup",     std::to_string(o.warmup),
                                "--iterations", std::to_string(o.iterations)};
  if (o.threads > 0) {
    args.emplace_back("--threads");
    args.push_back(std::to_string(o.threads));
  }
  return args;
}

// The measurement must follow the plan step by step, or the two programs disagree about the schedule.
void checkFollowsPlan(const graph::ComputeGraph& g, const sim::Schedule& schedule, const MeasuredRun& m,
                      const std::string& what) {
  if (m.steps.size() != schedule.size())
    throw ValidationError(ValidationFailure::Internal, "the measurement of " + what + " has " +
                                                           std::to_string(m.steps.size()) + " steps, the plan " +
                                                           std::to_string(schedule.size()));
  for (std::size_t s = 0; s < schedule.size(); ++s) {
    if (m.steps[s].kind != sim::stepKindName(schedule[s].kind) || m.steps[s].node != g.node(schedule[s].node).name)
      throw ValidationError(ValidationFailure::Internal, "the measurement of " + what +
                                                             " differs from the plan at step " + std::to_string(s) +
                                                             ": " + m.steps[s].kind + " " + m.steps[s].node +
                                                             " against " + sim::describeStep(g, schedule[s]));
  }
}

viz::TimelineSeries measuredSeries(const viz::TimelineSeries& predicted, const MeasuredRun& m,
                                   const std::string& label) {
  viz::TimelineSeries out;
  out.label = label;
  // The tables' categories; where the runner counted the CPU allocator, the curve is the allocator's
  // peak in each step, what the tables do not hold (temporaries inside the step) drawn as workspace.
  const bool allocator = !m.steps.empty() && std::all_of(m.steps.begin(), m.steps.end(), [](const MeasuredStep& s) {
    return s.allocatorPeak.has_value();
  });
  std::int64_t peak = 0;
  std::size_t peakStep = 0;
  for (std::size_t k = 0; k < m.steps.size(); ++k) {
    const MeasuredStep& s = m.steps[k];
    std::array<std::int64_t, viz::kMemoryCategories> bytes{};
    for (std::size_t c = 0; c < s.during.size(); ++c) bytes[c] = s.during[c];
    if (allocator)
      bytes[static_cast<std::size_t>(viz::MemoryCategory::Workspace)] =
          std::max<std::int64_t>(0, *s.allocatorPeak - s.duringTotal);
    std::int64_t total = 0;
    for (std::int64_t b : bytes) total += b;
    if (total > peak) {
      peak = total;
      peakStep = k;
    }
    out.bytes.push_back(bytes);
  }
  out.endTime = predicted.endTime;
  out.phase = predicted.phase;
  out.what = predicted.what;
  out.peak = peak;
  out.peakStep = peakStep;
  if (out.peakStep < out.what.size()) out.peakWhat = out.what[out.peakStep];
  return out;
}

}  // namespace

PlanToValidate readPlanForValidation(const std::string& path, const graph::ComputeGraph& g) {
  auto read = io::readPlanFile(path, g);
  if (!read.ok()) throw ValidationError(ValidationFailure::Input, read.errorText());
  io::LoadedPlan loaded = std::move(read).value();
  // Stricter than drawing a plan: measurements set against another graph's predictions mean nothing.
  if (!loaded.graphName.empty() && loaded.graphName != g.name())
    throw ValidationError(ValidationFailure::Input, path + ": /graph: the plan is for graph '" + loaded.graphName +
                                                        "', not for '" + g.name() + "'");
  PlanToValidate out;
  std::string stem = fs::path(path).filename().string();
  for (const char* suffix : {".json", ".plan"})
    if (stem.size() > std::strlen(suffix) && stem.ends_with(suffix)) stem.resize(stem.size() - std::strlen(suffix));
  out.label = stem;
  out.solver = loaded.solver.empty() ? std::string("unknown") : loaded.solver;
  out.budget = loaded.budget;
  out.plan = std::move(loaded.plan);
  out.source = path;
  return out;
}

ValidationRun::ValidationRun(const graph::ComputeGraph& g, std::vector<PlanToValidate> plans, MeasureOptions options,
                             std::string graphLabel)
    : m_graph(g), m_plans(std::move(plans)), m_options(std::move(options)), m_graphLabel(std::move(graphLabel)) {
  // Unique, file-safe labels, fixed here so that keep()'s files are known before run().
  std::set<std::string> used;
  for (PlanToValidate& p : m_plans) {
    std::string label = fileSafe(p.label);
    for (int k = 2; used.count(label); ++k) label = fileSafe(p.label) + "-" + std::to_string(k);
    used.insert(label);
    p.label = label;
  }
  const std::string plainRun = solvers::SolverRegistry::builtin().plainRun().info().id;
  m_baselineLabel = plainRun;
  for (int k = 2; used.count(m_baselineLabel); ++k) m_baselineLabel = plainRun + "-" + std::to_string(k);
}

ValidationRun::~ValidationRun() = default;

void ValidationRun::run() {
  checkMeasureOptions(m_options);
  if (m_plans.empty()) throw ValidationError(ValidationFailure::Usage, "no plan to validate");
  if (m_options.runner.empty()) m_options.runner = findRunner("");
  const graph::ComputeGraph& g = m_graph;

  // Every plan through the simulator first: a schedule it rejects is never measured.
  struct Predicted {
    solvers::PlanMetrics metrics;
    sim::SimulationResult simulation;
  };
  std::vector<Predicted> predicted(m_plans.size());
  for (std::size_t k = 0; k < m_plans.size(); ++k) {
    const PlanToValidate& p = m_plans[k];
    solvers::evaluatePlan(g, p.plan, true, predicted[k].metrics, predicted[k].simulation);
    if (const auto& error = predicted[k].simulation.error) {
      const std::string step = error->step < p.plan.schedule.size()
                                   ? " (" + sim::describeStep(g, p.plan.schedule[error->step]) + ")"
                                   : std::string();
      throw ValidationError(ValidationFailure::Input, (p.source.empty() ? "the " + p.label + " plan" : p.source) +
                                                          ": the simulator rejects the schedule at step " +
                                                          std::to_string(error->step) + step + ": " + error->message);
    }
  }

  // The plain run's plan is the baseline of the overhead ratios; it is measured even when not asked for.
  const auto& registry = solvers::SolverRegistry::builtin();
  std::optional<std::size_t> storeAll;
  for (std::size_t k = 0; k < m_plans.size(); ++k)
    if (registry.isPlainRun(m_plans[k].solver) && predicted[k].metrics.recomputations == 0) {
      storeAll = k;
      break;
    }
  std::optional<solvers::SolveResult> extraBaseline;
  if (!storeAll) {
    solvers::SolveRequest request;
    request.graph = &g;
    extraBaseline = registry.plainRun().solve(request);
    if (!extraBaseline->plan)
      throw ValidationError(ValidationFailure::Internal,
                            extraBaseline->solver + " gave no plan: " + extraBaseline->message);
  }

  m_work = std::make_unique<detail::WorkDir>("remat-validate");
  m_files.clear();
  const std::string graphFile = m_work->file("graph.json");
  writeTextAtomically(graphFile, io::writeNativeJson(g));
  std::vector<std::pair<std::string, std::string>> renames{{graphFile, m_graphLabel}};
  for (const PlanToValidate& p : m_plans)
    renames.emplace_back(m_work->file(p.label + ".plan.json"),
                         p.source.empty() ? "the " + p.label + " plan" : p.source);
  renames.emplace_back(m_work->path() + "/", "");

  // Can the runner execute every operation? Checked once, before anything runs.
  {
    const RunnerResult r = runRunner(m_options.runner, {graphFile, "--baseline", "--dry-run"},
                                     m_work->file("dry-run.log"), callTimeout(m_options));
    throwIfFailed(r, "graph " + m_graphLabel, m_options.device, renames);
  }

  auto measure = [&](const std::string& label, const solvers::SolveResult& result, bool checkGrads,
                     const std::string& what) {
    const std::string planFile = m_work->file(label + ".plan.json");
    const std::string out = m_work->file(label + ".measurement.json");
    const std::string log = m_work->file(label + ".runner.log");
    writeTextAtomically(planFile, io::writePlanJson(g, result));
    std::vector<std::string> args{graphFile, "--plan", planFile};
    for (auto& a : measureArgs(m_options)) args.push_back(std::move(a));
    if (checkGrads) args.emplace_back("--check-grads");
    args.emplace_back("-o");
    args.push_back(out);
    const RunnerResult r = runRunner(m_options.runner, args, log, callTimeout(m_options));
    // Exit code 1 (gradients differ) still wrote the measurement: the row says so, the caller decides.
    if (r.exitCode != 1 || r.timedOut) throwIfFailed(r, what, m_options.device, renames);
    MeasuredRun m = readRunnerMeasurement(out, r, what, renames);
    checkFollowsPlan(g, result.plan->schedule, m, what);
    m_files.insert(m_files.end(), {planFile, out, log});
    return m;
  };

  const std::size_t total = m_plans.size() + (extraBaseline ? 1 : 0);
  std::size_t done = 0;
  auto progress = [&](const std::string& label) {
    if (m_progress)
      m_progress("measuring " + label + " on " + m_options.device + " (" + std::to_string(++done) + " of " +
                 std::to_string(total) + ")");
  };

  std::optional<MeasuredRun> baselineRun;
  Ticks baselineTime{0};
  if (extraBaseline) {
    progress("store-all (the baseline)");
    baselineRun = measure(m_baselineLabel, *extraBaseline, false, "the store-all plan (the baseline)");
    baselineTime = extraBaseline->metrics.totalTime;
  }

  ValidationReport report;
  report.graph = g.name();
  report.costModel = g.costModel();
  report.timeUnit = g.timeUnit();
  const std::optional<double> unitSeconds = secondsPerUnit(g.timeUnit());
  report.timeInSeconds = unitSeconds.has_value();
  report.device = m_options.device;
  report.warmup = m_options.warmup;
  report.iterations = m_options.iterations;
  report.operations = g.opCount();

  std::vector<MeasuredRun> runs;
  for (std::size_t k = 0; k < m_plans.size(); ++k) {
    const PlanToValidate& p = m_plans[k];
    progress(p.label);
    solvers::SolveResult result;
    result.solver = p.solver;
    result.status = solvers::SolveStatus::Feasible;
    result.budget = p.budget;
    result.plan = p.plan;
    result.metrics = predicted[k].metrics;
    result.message = "validated by remat validate";
    runs.push_back(measure(p.label, result, m_options.checkGradients, "the " + p.label + " plan"));
  }
  if (storeAll) {
    baselineRun = runs[*storeAll];
    baselineTime = predicted[*storeAll].metrics.totalTime;
  }
  report.storeAllPredictedTime = baselineTime;
  report.storeAllMeasuredSeconds = baselineRun->medianIterationSeconds;

  bool anyGradientsDiffer = false;
  std::int64_t aliasMax = 0;
  std::string allocatorNote;  // why a CPU measurement has no allocator count
  for (std::size_t k = 0; k < m_plans.size(); ++k) {
    const PlanToValidate& p = m_plans[k];
    const MeasuredRun& m = runs[k];
    const solvers::PlanMetrics& pm = predicted[k].metrics;
    ValidationRow row;
    row.label = p.label;
    row.solver = p.solver;
    row.budget = p.budget;
    row.modelPeak = pm.modelPeak;
    row.simulatedPeak = pm.simulatedPeak;
    row.simulatedPeakStep = pm.peakStep;
    row.predictedTime = pm.totalTime;
    row.predictedOverhead = pm.overhead;
    if (unitSeconds) row.predictedSeconds = double(pm.totalTime.value) * *unitSeconds;
    row.predictedOverheadRatio =
        baselineTime.value > 0 ? double(pm.totalTime.value) / double(baselineTime.value) - 1.0 : 0.0;
    row.measuredPeak = m.peak();
    row.measuredPeakStep = m.peakStep();
    row.viewAliasAtPeak = m.steps.empty() ? 0 : m.steps[row.measuredPeakStep].duringViewAlias;
    row.measuredPeakWithoutViews = m.peakWithoutViews();
    if (m.cuda) {
      row.allocatorPeak = m.cuda->allocatedPeak;
      row.reservedPeak = m.cuda->reservedPeak;
    } else if (m.cpuAllocatorPeak) {
      row.allocatorPeak = m.cpuAllocatorPeak;
      row.allocatorPeakStep = m.cpuAllocatorPeakStep;
    } else if (!m.cpuAllocatorNote.empty()) {
      allocatorNote = m.cpuAllocatorNote;
    }
    row.measuredSeconds = m.medianIterationSeconds;
    if (report.storeAllMeasuredSeconds > 0)
      row.measuredOverheadRatio = m.medianIterationSeconds / report.storeAllMeasuredSeconds - 1.0;
    row.gradientsMatch = m.gradientsMatch;
    row.gradientMaxRelDiff = m.gradientMaxRelDiff;
    row.predictedSeries = viz::timelineSeries(g, p.plan.schedule, predicted[k].simulation, p.label + " predicted");
    row.measuredSeries = measuredSeries(row.predictedSeries, m, p.label + " measured");
    anyGradientsDiffer |= m.gradientsMatch == false;
    for (const MeasuredStep& s : m.steps) aliasMax = std::max(aliasMax, s.duringViewAlias);
    report.rows.push_back(std::move(row));
  }

  // What the figures do not say by themselves.
  if (g.costModel() != "profiled")
    report.notes.emplace_back("predicted times come from the graph's '" + g.costModel() +
                              "' cost model, not from this device: `remat profile` writes the graph with times "
                              "measured on it");
  if (!unitSeconds)
    report.notes.emplace_back("the time unit '" + g.timeUnit() +
                              "' is not a time: no prediction in seconds (the overhead ratios still compare)");
  std::int64_t workspace = 0;
  std::size_t views = 0;
  for (std::uint32_t v = g.firstOp(); v < g.size(); ++v) {
    workspace =
        std::max({workspace, g.node(graph::NodeId{v}).workspace.value, g.node(graph::NodeId{v}).bwdWorkspace.value});
    views += g.node(graph::NodeId{v}).bytes.value == 0 ? 1 : 0;
  }
  // What "measured" means here: the allocator's peak is what the framework allocated; the tables'
  // peak is what the schedule's tensors hold, the simulator's own bookkeeping replayed.
  const bool cuda = std::any_of(report.rows.begin(), report.rows.end(),
                                [](const ValidationRow& r) { return r.reservedPeak.has_value(); });
  const bool counted = std::any_of(report.rows.begin(), report.rows.end(),
                                   [](const ValidationRow& r) { return r.allocatorPeak.has_value(); });
  if (counted)
    report.notes.emplace_back(cuda
                                  ? "allocator peak: the CUDA caching allocator's allocated bytes (workspace included; "
                                    "reserved adds its caching); table peak: the storage the runner's tables hold"
                                  : "allocator peak: every byte LibTorch's CPU allocator held at once, temporaries "
                                    "inside a step included (counted by remat-runner's allocator); table peak: the "
                                    "storage the runner's tables hold, the schedule's own bookkeeping");
  else if (!allocatorNote.empty())
    report.notes.emplace_back("no allocator peak: " + allocatorNote +
                              "; table peak is the storage the runner's tables hold");
  if (workspace > 0)
    report.notes.emplace_back("the simulator counts workspace (up to " + std::to_string(workspace) +
                              " bytes per step); the tables hold none of it, the allocator peak includes it");
  else if (counted && !cuda)
    report.notes.emplace_back(
        "the graph has no workspace, so the simulator sees none of the temporaries inside a "
        "step: `--workspace libtorch-cpu` predicts LibTorch's CPU temporaries from rules, "
        "`remat profile --device cpu` measures them");
  if (views > 0)
    report.notes.emplace_back(std::to_string(views) + (views == 1 ? " zero-byte view node" : " zero-byte view nodes") +
                              " (Reshape, Flatten, Transpose, ...): storage that only views keep alive is in the "
                              "measured figures, at most " +
                              std::to_string(aliasMax) +
                              " bytes at a step (view-held at the peak; the JSON's measured_peak_without_views_bytes "
                              "leaves it out)");
  if (extraBaseline)
    report.notes.emplace_back("the store-all plan was measured too, as the baseline of the overhead ratios (" +
                              std::to_string(report.storeAllMeasuredSeconds) + " s per iteration)");
  if (!m_options.checkGradients) report.notes.emplace_back("gradients were not checked (--no-check-grads)");
  if (anyGradientsDiffer)
    report.notes.emplace_back(
        "the parameter gradients of some plans differ from the plain run's: those plans do not "
        "compute the same training step");
  m_report = std::move(report);
}

void ValidationRun::checkKeep(const std::string& dir) const {
  // The files keep() may write: validation.json and three per plan, the baseline's included (measured
  // unless a plan is store-all's; checking its names either way refuses nothing keep() would allow).
  std::vector<std::string> targets{(fs::path(dir) / "validation.json").string()};
  std::vector<std::string> labels{m_baselineLabel};
  for (const PlanToValidate& p : m_plans) labels.push_back(p.label);
  for (const std::string& label : labels)
    for (const char* suffix : {".plan.json", ".measurement.json", ".runner.log"})
      targets.push_back((fs::path(dir) / (label + suffix)).string());
  std::vector<std::string> inputs{m_graphLabel, m_options.runner};
  for (const PlanToValidate& p : m_plans)
    if (!p.source.empty()) inputs.push_back(p.source);
  for (const std::string& target : targets)
    if (auto refused = io::checkOutputPath(target, inputs))
      throw ValidationError(ValidationFailure::Usage, refused->message);
}

std::vector<std::string> ValidationRun::keep(const std::string& dir) {
  if (!m_work) throw ValidationError(ValidationFailure::Internal, "keep() before run()");
  // Every target is checked before the first is written: none may be the graph or a plan file given.
  checkKeep(dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw ValidationError(ValidationFailure::Input, "cannot create " + dir + ": " + ec.message());
  std::vector<std::pair<std::string, std::string>> copies;
  for (const std::string& file : m_files)
    copies.emplace_back(file, (fs::path(dir) / fs::path(file).filename()).string());
  const std::string report = (fs::path(dir) / "validation.json").string();
  std::vector<std::string> written;
  for (const auto& [from, target] : copies) {
    detail::copyAtomically(from, target);
    written.push_back(target);
  }
  for (ValidationRow& row : m_report.rows) {
    row.planFile = (fs::path(dir) / (row.label + ".plan.json")).string();
    row.measurementFile = (fs::path(dir) / (row.label + ".measurement.json")).string();
  }
  writeTextAtomically(report, validationJson(m_report).dump(2) + "\n");
  written.push_back(report);
  return written;
}

}  // namespace remat::runtime
