#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace remat::runtime {

/// Live tensor storage by the simulator's categories (docs/simulator.md), in bytes. The runner counts
/// the storages its own tables hold, each storage once. Workspace (temporaries inside a step) is not
/// in the tables and is not counted; on CUDA the allocator statistics include it.
struct Breakdown {
  std::int64_t params = 0;
  std::int64_t paramGrads = 0;
  std::int64_t inputs = 0;
  std::int64_t values = 0;
  std::int64_t recomputed = 0;
  std::int64_t grads = 0;
  [[nodiscard]] std::int64_t total() const { return params + paramGrads + inputs + values + recomputed + grads; }
};

/// Storage held only by zero-byte view nodes (values or gradients of nodes the graph counts as 0 bytes
/// because they alias their operand). It is included in the Breakdown above; the simulator counts none
/// of it, so it is reported apart: Breakdown minus this is what the simulator's model describes.
struct AliasBytes {
  std::int64_t values = 0;
  std::int64_t recomputed = 0;
  std::int64_t grads = 0;
  [[nodiscard]] std::int64_t total() const { return values + recomputed + grads; }
};

/// What the counting CPU allocator saw in one step (CPU runs): every byte ATen allocated, temporaries
/// inside the step included, not only what the tables hold.
struct AllocatorStep {
  std::int64_t during = 0;  ///< held when the step's work is done, before its frees
  std::int64_t peak = 0;    ///< the most held at once while the step ran
  std::int64_t after = 0;   ///< held after the step's frees
};

struct StepMeasurement {
  std::string kind;  ///< fwd, bwd, free, free-grad
  std::string node;
  bool recompute = false;
  Breakdown during;  ///< the step's outputs allocated, nothing freed yet
  Breakdown after;   ///< after the step and the frees that follow it
  AliasBytes duringAlias;
  AliasBytes afterAlias;
  std::optional<AllocatorStep> allocator;  ///< CPU runs: the counting allocator's figures
  double seconds = 0;                      ///< median over the measured iterations
};

struct ParamGradCheck {
  std::string name;
  double maxAbsDiff = 0;
  double maxRelDiff = 0;  ///< max |a - b| / max(|b|), per tensor
  bool ok = true;
};

struct GradientCheck {
  std::string reference;  ///< "baseline" (run in the same process) or the --grads-ref file
  double rtol = 0;
  double atol = 0;
  bool passed = true;
  double maxAbsDiff = 0;
  double maxRelDiff = 0;
  std::vector<ParamGradCheck> params;
};

struct CudaStats {
  std::int64_t allocatorPeakBytes = 0;  ///< allocated bytes, peak over the measured iterations
  std::int64_t reservedPeakBytes = 0;
  std::int64_t reservedBytes = 0;  ///< at the end
};

/// The counting CPU allocator's figures over a run (CPU runs only): the most bytes LibTorch's CPU
/// allocator held at once while the schedule (or the plain run) played, and at which step.
struct CpuAllocatorStats {
  std::int64_t peakBytes = 0;
  std::optional<std::size_t> peakStep;  ///< of the recorded iteration; none for the plain run
};

/// What remat-runner measured (`"format": "remat-measurement"`).
struct Measurement {
  std::string graph;
  std::string graphFile;
  std::string mode;  ///< "plan" or "baseline"
  std::string planFile;
  std::string solver;
  std::string device;
  std::string torchVersion;
  std::uint64_t seed = 0;
  int warmup = 0;  ///< warm-up iterations run (RunOptions::warmup, or more while the heap settled)
  int iterations = 0;
  bool liveness = true;
  bool deterministic = true;
  double loss = 0;
  std::vector<StepMeasurement> steps;
  std::vector<double> iterationSeconds;
  std::vector<std::string> modelOnlyParamGrads;  ///< parameter gradient buffers that get no contribution
  std::optional<CudaStats> cuda;
  std::optional<CpuAllocatorStats> cpuAllocator;
  std::string cpuAllocatorNote;  ///< why there is no CPU allocator count, when there is none on the CPU
  /// On the CPU, what the C library did with freed memory: "kept" (reused, RunOptions::keepHeap),
  /// "returned" (its defaults: large blocks go back to the system when freed) or "default" (keepHeap
  /// asked, but this C library does not take the setting); empty on CUDA.
  std::string cpuHeap;
  /// The process's minor page faults over the measured iterations (all of them together): memory
  /// touched for the first time, which on a VM can cost more than the kernels that touch it. Empty
  /// where the kernel does not count them (it reports none for fresh pages touched).
  std::optional<std::int64_t> pageFaults;
  std::optional<GradientCheck> gradients;
};

[[nodiscard]] nlohmann::json toJson(const Measurement& m);

/// Median of a non-empty list (the mean of the middle two for an even count); 0 for an empty list.
[[nodiscard]] double median(std::vector<double> values);

/// Writes `text` to `path` through a new temporary file in the same folder (O_EXCL), checked, synced and
/// renamed, so that a reader never sees half a file and a failed run leaves none; a target that is not a
/// regular file is refused. Throws RunnerError (ExitCode::Input) on failure.
void writeFileAtomically(const std::string& path, const std::string& text);

}  // namespace remat::runtime
