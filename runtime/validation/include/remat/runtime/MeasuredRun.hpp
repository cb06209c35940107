#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace remat::runtime {

/// Live storage by the simulator's categories, as remat-runner accounts it: params, param_grads,
/// inputs, values, recomputed, grads (the runner counts no workspace).
using CategoryBytes = std::array<std::int64_t, 6>;

/// One step of a measurement.
struct MeasuredStep {
  std::string kind;  ///< fwd, bwd, free, free-grad
  std::string node;
  bool recompute = false;
  CategoryBytes during{};  ///< while the step runs: its outputs allocated, nothing freed
  std::int64_t duringTotal = 0;
  std::int64_t duringViewAlias = 0;  ///< of duringTotal, storage only zero-byte views hold
  std::int64_t afterTotal = 0;
  std::int64_t afterViewAlias = 0;
  /// CPU runs: the most bytes LibTorch's CPU allocator held while the step ran (its temporaries
  /// included) and what it held after the step's frees; absent in measurements without them.
  std::optional<std::int64_t> allocatorPeak;
  std::optional<std::int64_t> allocatorAfter;
  double seconds = 0;  ///< median over the measured iterations
};

/// The CUDA caching allocator's figures over the measured iterations.
struct AllocatorPeaks {
  std::int64_t allocatedPeak = 0;
  std::int64_t reservedPeak = 0;
};

/// A measurement file written by remat-runner (`"format": "remat-measurement"`), the parts Remat uses.
struct MeasuredRun {
  std::string graph;
  std::string device;
  std::string mode;  ///< "plan" or "baseline"
  std::string solver;
  std::vector<MeasuredStep> steps;
  std::vector<double> iterationSeconds;
  double medianIterationSeconds = 0;
  std::optional<AllocatorPeaks> cuda;
  /// CPU runs: the most bytes LibTorch's CPU allocator held at once (counted by remat-runner's
  /// allocator), and the step where, for a plan.
  std::optional<std::int64_t> cpuAllocatorPeak;
  std::optional<std::size_t> cpuAllocatorPeakStep;
  std::string cpuAllocatorNote;        ///< why a CPU run has no allocator count
  std::optional<bool> gradientsMatch;  ///< absent when no gradient check ran
  double gradientMaxRelDiff = 0;
  double loss = 0;  ///< NaN when the runner wrote null

  /// The highest `during` total and its first step (0, 0 without steps).
  [[nodiscard]] std::int64_t peak() const;
  [[nodiscard]] std::size_t peakStep() const;
  /// The highest `during` total less the storage only views hold: what the simulator's model describes.
  [[nodiscard]] std::int64_t peakWithoutViews() const;
};

/// Reads a measurement file. A missing or malformed file throws ValidationError(Input) naming the file
/// and the JSON path.
[[nodiscard]] MeasuredRun readMeasuredRun(const std::string& path);

}  // namespace remat::runtime
