#pragma once

#include <optional>
#include <string>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/runtime/RunnerProcess.hpp"

namespace remat::runtime {

/// Measures every operation's forward and backward time on a device and writes them into the graph as
/// the `profiled` cost model (docs/architecture.md sections 2 and 6).
///
/// run() has remat-runner play the store-all plan (every forward once, every backward once, no
/// recomputation) `warmup + iterations` times; the median wall time of step `fwd v` becomes v's fwd_time
/// and that of `bwd v` its bwd_time, in nanoseconds (at least 1). Bytes stay the graph's; run() checks
/// that the runner allocated exactly those bytes for every output (the storage a step adds, less what
/// only views hold) and throws ValidationError(Internal) naming the first node that differs. Failures
/// throw ValidationError as ValidationRun's do.
class Profiler {
 public:
  Profiler(const graph::ComputeGraph& g, MeasureOptions options, std::string graphLabel);

  void run();

  /// The graph with measured times, `"cost_model": "profiled"` and `"time_unit": "ns"` (after run()).
  [[nodiscard]] const graph::ComputeGraph& profiled() const { return *m_profiled; }
  /// Sums of the measured times, ns, and the measured median iteration time, s.
  [[nodiscard]] std::int64_t forwardNanoseconds() const { return m_forward; }
  [[nodiscard]] std::int64_t backwardNanoseconds() const { return m_backward; }
  [[nodiscard]] double iterationSeconds() const { return m_iterationSeconds; }
  /// How many output sizes were compared with the measured storage (every operation's).
  [[nodiscard]] std::size_t bytesChecked() const { return m_bytesChecked; }

 private:
  const graph::ComputeGraph& m_graph;
  MeasureOptions m_options;
  std::string m_graphLabel;
  std::optional<graph::ComputeGraph> m_profiled;
  std::int64_t m_forward = 0;
  std::int64_t m_backward = 0;
  double m_iterationSeconds = 0;
  std::size_t m_bytesChecked = 0;
};

/// Writes a graph as native JSON through a temporary file in the same folder and a rename: a reader never
/// sees half a file, and a failed write leaves none. Throws ValidationError(Input) when it cannot.
void writeGraphAtomically(const graph::ComputeGraph& g, const std::string& path);

/// Writes text the same way.
void writeTextAtomically(const std::string& path, const std::string& text);

}  // namespace remat::runtime
