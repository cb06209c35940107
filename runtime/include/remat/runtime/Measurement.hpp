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

struct StepMeasurement {
  std::string kind;  ///< fwd, bwd, free, free-grad
  std::string node;
  bool recompute = false;
  Breakdown during;  ///< the step's outputs allocated, nothing freed yet
  Breakdown after;   ///< after the step and the frees that follow it
  AliasBytes duringAlias;
  AliasBytes afterAlias;
  double seconds = 0;  ///< median over the measured iterations
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
  int warmup = 0;
  int iterations = 0;
  bool liveness = true;
  bool deterministic = true;
  double loss = 0;
  std::vector<StepMeasurement> steps;
  std::vector<double> iterationSeconds;
  std::vector<std::string> modelOnlyParamGrads;  ///< parameter gradient buffers that get no contribution
  std::optional<CudaStats> cuda;
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
