#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "remat/graph/Units.hpp"
#include "remat/viz/Timeline.hpp"

namespace remat::runtime {

/// One plan, predicted and measured.
struct ValidationRow {
  std::string label;   ///< "approx-dp", or a plan file's name
  std::string solver;  ///< the solver that made the plan
  std::optional<Bytes> budget;

  // Predicted: the DP model (canonical plans only) and the simulator, on the graph's costs.
  std::optional<Bytes> modelPeak;
  Bytes simulatedPeak{0};
  std::size_t simulatedPeakStep = 0;
  Ticks predictedTime{0};                  ///< the simulator's total compute time, in the graph's time unit
  Ticks predictedOverhead{0};              ///< of which recomputation
  std::optional<double> predictedSeconds;  ///< when the graph's time unit is one of ns, us, ms, s
  double predictedOverheadRatio = 0;       ///< predictedTime / the store-all plan's - 1

  // Measured by remat-runner.
  std::int64_t measuredPeak = 0;  ///< the runner's tables: live tensor storage, views' storage included
  std::size_t measuredPeakStep = 0;
  std::int64_t viewAliasAtPeak = 0;           ///< of measuredPeak, storage only zero-byte views hold
  std::int64_t measuredPeakWithoutViews = 0;  ///< the highest total less that storage, step by step
  /// What the framework's allocator held at most, temporaries included: on the CPU LibTorch's CPU
  /// allocator counted by remat-runner, on CUDA the caching allocator's allocated bytes.
  std::optional<std::int64_t> allocatorPeak;
  std::optional<std::size_t> allocatorPeakStep;  ///< CPU: the step of allocatorPeak
  std::optional<std::int64_t> reservedPeak;      ///< CUDA: the allocator's reserved peak
  double measuredSeconds = 0;                    ///< median iteration time
  std::optional<double> measuredOverheadRatio;   ///< measuredSeconds / the measured store-all plan's - 1
  std::optional<bool> gradientsMatch;            ///< absent without a gradient check
  double gradientMaxRelDiff = 0;

  std::string planFile;  ///< where the plan and measurement were kept (ValidationRun::keep)
  std::string measurementFile;

  viz::TimelineSeries predictedSeries;  ///< labelled "<label> predicted"
  viz::TimelineSeries measuredSeries;   ///< labelled "<label> measured"

  /// (allocatorPeak - simulatedPeak) / simulatedPeak in percent, when there is an allocator peak.
  [[nodiscard]] std::optional<double> allocatorErrorPercent() const;
  /// measuredPeak - simulatedPeak, and that as a percentage of the simulated peak.
  [[nodiscard]] std::int64_t peakErrorBytes() const { return measuredPeak - simulatedPeak.value; }
  [[nodiscard]] double peakErrorPercent() const;
  /// (measured - predicted) / predicted in percent, when the prediction is in seconds.
  [[nodiscard]] std::optional<double> timeErrorPercent() const;
};

/// What `remat validate` found for all its plans on one graph and device.
struct ValidationReport {
  std::string graph;
  std::string costModel;
  std::string timeUnit;
  bool timeInSeconds = false;  ///< the time unit is ns, us, ms or s
  std::string device;
  int warmup = 0;
  int iterations = 0;
  std::size_t operations = 0;
  Ticks storeAllPredictedTime{0};
  double storeAllMeasuredSeconds = 0;  ///< the measured baseline of the overhead ratios
  std::vector<ValidationRow> rows;
  std::vector<std::string> notes;  ///< what the figures do not show (cost model, workspace, views)

  /// The largest |peak error| and |time error| over the rows (time: when predicted in seconds).
  [[nodiscard]] std::int64_t maxAbsPeakErrorBytes() const;
  [[nodiscard]] std::optional<double> maxAbsTimeErrorPercent() const;
  /// The largest |allocator error| over the rows that have an allocator peak.
  [[nodiscard]] std::optional<double> maxAbsAllocatorErrorPercent() const;
};

/// Seconds per unit for ns, us (or µs), ms and s; nullopt for other units (ticks, the paper's units).
[[nodiscard]] std::optional<double> secondsPerUnit(const std::string& timeUnit);

/// The table `remat validate` prints: a header row, then one row per plan. Columns: plan, budget, model
/// peak, simulated peak, [allocator peak, allocator error, when the runner counted the allocator],
/// [reserved, on CUDA], table peak (the runner's tables), table error, [view-held at peak, when any],
/// predicted time, measured time, time error, predicted overhead, measured overhead, grads.
[[nodiscard]] std::vector<std::vector<std::string>> validationTable(const ValidationReport& report);

/// The machine-readable report (docs/architecture.md section 7: `device`, `rows` with `solver`,
/// `predicted_peak_bytes`, `measured_peak_bytes`, `allocator_peak_bytes`, `measured_seconds`,
/// `gradients_match`, and more; docs/cli.md lists them).
[[nodiscard]] nlohmann::json validationJson(const ValidationReport& report);

/// The memory timelines, per plan its predicted and its measured series overlaid, with the budget when
/// every plan had the same one.
[[nodiscard]] viz::TimelineData validationTimeline(const ValidationReport& report);

}  // namespace remat::runtime
