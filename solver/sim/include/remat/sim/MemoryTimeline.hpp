#pragma once

#include <cstddef>
#include <vector>

#include "remat/graph/Units.hpp"

namespace remat::sim {

/// Bytes alive at one moment, split by what they hold.
struct MemoryBreakdown {
  Bytes params{0};      ///< weights: resident for the whole step
  Bytes paramGrads{0};  ///< weight gradients: live from their first contribution to the end of the step
  Bytes inputs{0};      ///< data and labels: resident
  Bytes values{0};      ///< operation outputs computed for the first time and still kept
  Bytes recomputed{0};  ///< operation outputs alive because they were recomputed
  Bytes grads{0};       ///< gradients of operation outputs
  Bytes workspace{0};   ///< scratch memory of the running step

  [[nodiscard]] Bytes total() const { return params + paramGrads + inputs + values + recomputed + grads + workspace; }
  bool operator==(const MemoryBreakdown&) const = default;
};

/// Memory and time at one schedule step.
struct TimelinePoint {
  MemoryBreakdown during;  ///< while the step runs: its outputs allocated, nothing freed yet
  Bytes after{0};          ///< total once the step and the frees that follow it are done
  Ticks endTime{0};        ///< cumulative compute time when the step ends
};

/// The simulator's memory timeline: one point per schedule step.
class MemoryTimeline {
 public:
  void push(const TimelinePoint& p) { m_points.push_back(p); }
  [[nodiscard]] const std::vector<TimelinePoint>& points() const { return m_points; }
  [[nodiscard]] std::size_t size() const { return m_points.size(); }
  /// The highest `during` total, and the first step where it happens (0 for an empty timeline).
  [[nodiscard]] Bytes peak() const;
  [[nodiscard]] std::size_t peakStep() const;

 private:
  std::vector<TimelinePoint> m_points;
};

}  // namespace remat::sim
