#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/runtime/RunnerProcess.hpp"
#include "remat/runtime/ValidationReport.hpp"
#include "remat/solvers/Solver.hpp"

namespace remat::runtime {

namespace detail {
class WorkDir;
}

/// A plan to validate and what to call it.
struct PlanToValidate {
  std::string label;   ///< unique among the plans: the solver id, or the plan file's name
  std::string solver;  ///< the solver that made it
  std::optional<Bytes> budget;
  solvers::Plan plan;
  std::string source;  ///< the plan file it was read from; empty when solved here
};

/// Reads plan JSON (`remat solve -o`) for `g`. A plan for another graph (its `graph` is not g's name, or it
/// names a node g does not have) and unreadable or invalid files throw ValidationError(Input) naming the
/// file. The label is the file's name without `.json` and `.plan`.
[[nodiscard]] PlanToValidate readPlanForValidation(const std::string& path, const graph::ComputeGraph& g);

/// Where a progress message goes (a line of text per plan measured); may be empty.
using ProgressLine = std::function<void(std::string_view)>;

/// Predicted against measured memory and time for plans of one graph (docs/architecture.md section 6).
///
/// Construct on a graph and its plans, run(), read report(). run() simulates every plan (a schedule the
/// simulator rejects is an input error naming the plan and step), checks once that remat-runner can
/// execute every operation of the graph, then for each plan writes the graph (native JSON) and the plan
/// into a temporary folder and has the runner play it `warmup + iterations` times with a gradient check.
/// The store-all plan is measured too (when not among the plans) as the baseline of the overhead ratios.
/// Any failure throws ValidationError and leaves nothing behind; keep() copies the plans and measurements
/// into a folder afterwards. The temporary folder is removed with the object.
class ValidationRun {
 public:
  ValidationRun(const graph::ComputeGraph& g, std::vector<PlanToValidate> plans, MeasureOptions options,
                std::string graphLabel);
  ~ValidationRun();
  ValidationRun(const ValidationRun&) = delete;
  ValidationRun& operator=(const ValidationRun&) = delete;

  /// Per plan, a line such as "measuring approx-dp (2 of 3)".
  void setProgress(ProgressLine progress) { m_progress = std::move(progress); }

  void run();
  [[nodiscard]] const ValidationReport& report() const { return m_report; }

  /// Copies every plan (`LABEL.plan.json`), measurement (`LABEL.measurement.json`) and runner log
  /// (`LABEL.runner.log`) into `dir` (created when missing), each through a temporary name and a rename;
  /// fills the rows' planFile and measurementFile, writes the report as `validation.json`
  /// (validationJson) and returns the paths written.
  std::vector<std::string> keep(const std::string& dir);
  /// Throws ValidationError (Usage) when a file keep(dir) may write is the graph or a plan file given, or
  /// is not a regular file (io::checkOutputPath): callable before run(), so that a bad --out-dir is
  /// refused before minutes of measuring. keep() checks the same.
  void checkKeep(const std::string& dir) const;

 private:
  const graph::ComputeGraph& m_graph;
  std::vector<PlanToValidate> m_plans;
  MeasureOptions m_options;
  std::string m_graphLabel;
  ProgressLine m_progress;
  std::unique_ptr<detail::WorkDir> m_work;
  std::vector<std::string> m_files;  ///< in the work folder, for keep()
  std::string m_baselineLabel;       ///< the store-all baseline's label, unless a plan is store-all's
  ValidationReport m_report;
};

}  // namespace remat::runtime
