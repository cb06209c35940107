#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/io/MemoryTrace.hpp"
#include "remat/viz/Timeline.hpp"

namespace remat::runtime {

/// The simulator's plain run (store-all, liveness) of a graph against the allocations of a training step
/// of the same network recorded in PyTorch (`runtime/trace_step.py`, or a Chrome trace with memory events):
/// what `remat validate GRAPH --measured FILE` reports.
struct TraceComparison {
  std::string graph;
  std::string traceFile;
  std::string device;        ///< the trace's
  std::string traceModel;    ///< what the trace says it recorded
  std::string torchVersion;  ///< the trace's, when it says
  std::int64_t predictedPeak = 0;
  std::string predictedPeakWhat;  ///< the step of the predicted peak, e.g. "bwd conv1"
  std::int64_t measuredPeak = 0;
  std::int64_t residentBytes = 0;  ///< held before the trace's first event
  bool residentKnown = false;
  std::size_t events = 0;
  std::vector<std::string> notes;  ///< what the comparison leaves out
  viz::TimelineSeries predicted;   ///< "store-all predicted", over the graph's time
  /// "<trace> measured": one step per event, the resident bytes as parameters and the rest as values,
  /// its times scaled so that the trace's last event ends where the predicted run ends.
  viz::TimelineSeries measured;

  /// (measured - predicted) / predicted, in percent.
  [[nodiscard]] double errorPercent() const;
};

/// Simulates the graph's plain run and sets the trace against it. Throws ValidationError(Input) when the
/// graph's plain run cannot be simulated (it always can for a graph that reads).
[[nodiscard]] TraceComparison compareWithTrace(const graph::ComputeGraph& g, const io::MemoryTrace& trace,
                                               const std::string& traceFile);

/// The table `remat validate --measured` prints: a header row and one row.
[[nodiscard]] std::vector<std::vector<std::string>> traceComparisonTable(const TraceComparison& c);

/// Its JSON: graph, trace_file, device, trace_model, torch_version, predicted_peak_bytes,
/// predicted_peak_step, measured_peak_bytes, resident_bytes (null when the trace does not know),
/// events, error_percent, notes.
[[nodiscard]] nlohmann::json traceComparisonJson(const TraceComparison& c);

}  // namespace remat::runtime
