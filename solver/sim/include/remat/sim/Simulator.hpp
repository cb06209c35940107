#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/sim/MemoryTimeline.hpp"
#include "remat/sim/Schedule.hpp"

namespace remat::sim {

struct SimulatorOptions {
  /// Free every value and gradient right after its last use (the framework's liveness analysis).
  /// Explicit `free`/`free-grad` steps of something already freed are then no-ops.
  bool liveness = true;
  /// Require every operation to be computed and its backward to run exactly once (a graph computed as
  /// given: every operation computed).
  bool requireComplete = true;
  /// Record every tensor's lifetime (SimulationResult::lifetimes), for memory-layout figures.
  bool recordLifetimes = false;
};

/// One tensor the simulator allocated: what it holds, its size, and the steps it is alive during,
/// first..last inclusive (alive during step `last`, freed after it). The `during` total of the timeline
/// at a step is the sum of the tensors alive at that step.
struct TensorLifetime {
  enum class Kind : std::uint8_t { Param, Input, Value, Recomputed, Grad, ParamGrad, Workspace };
  Kind kind = Kind::Value;
  graph::NodeId node;
  Bytes bytes{0};
  std::size_t first = 0;
  std::size_t last = 0;
};

/// Why a schedule is not legal: the step and a readable reason.
struct ScheduleError {
  std::size_t step = 0;  ///< 0-based index of the offending step; equals the schedule size for "ends early"
  std::string message;
  /// The schedule is legal, but its total time passes 2^63 - 1 of the graph's time unit (recomputations
  /// of a graph whose times are near the readers' 2^60 cap), so its figures cannot be counted.
  bool timeOverflow = false;
};

/// What the simulator measured of a legal schedule.
struct SimulationResult {
  MemoryTimeline timeline;
  Bytes peak{0};                    ///< the highest memory during any step
  std::size_t peakStep = 0;         ///< the first step at which it happens
  Ticks totalTime{0};               ///< all forward and backward compute time
  Ticks overhead{0};                ///< forward time spent on recomputations
  std::size_t recomputations = 0;   ///< forward steps beyond each node's first
  std::size_t recomputedNodes = 0;  ///< distinct nodes computed more than once
  std::optional<ScheduleError> error;
  std::vector<TensorLifetime> lifetimes;  ///< when SimulatorOptions::recordLifetimes, in order of freeing

  [[nodiscard]] bool valid() const { return !error.has_value(); }
};

/// What `bwd v` needs in memory: the distinct operation inputs whose values v's backward keeps (its
/// saved inputs that are operations, and v itself when it keeps its output), ascending.
[[nodiscard]] std::vector<graph::NodeId> savedOpValues(const graph::ComputeGraph& g, graph::NodeId v);
/// The distinct parameters among v's inputs that have gradients (Node::hasGradient), ascending: the
/// parameter gradients `bwd v` makes.
[[nodiscard]] std::vector<graph::NodeId> distinctParamInputs(const graph::ComputeGraph& g, graph::NodeId v);

/// The liveness analysis, by step: the values whose current instance is read for the last time at that
/// step (or that are never read after being computed there), which the simulator frees after the step
/// with SimulatorOptions::liveness. A backward scan: a forward or an explicit free of v starts or ends an
/// instance. Steps naming nodes outside the graph, or inputs and parameters, are skipped.
[[nodiscard]] std::vector<std::vector<graph::NodeId>> lastValueUses(const graph::ComputeGraph& g,
                                                                    const Schedule& schedule);

/// Views: operations the op table marks as views (Reshape, Flatten, Transpose, Squeeze, Unsqueeze,
/// Identity) whose output the graph counts as 0 bytes, because the framework's output shares its first
/// input's storage. Their gradients are real tensors of the full size, the size of the tensor at the
/// bottom of the chain of views (graph::Node::bytes says 0).
struct ViewInfo {
  std::vector<bool> isView;      ///< by node index
  std::vector<Bytes> gradBytes;  ///< the size of each node's gradient: its bytes, or a view's full size
};
[[nodiscard]] ViewInfo viewInfo(const graph::ComputeGraph& g);

/// The single authority on memory and time (docs/architecture.md section 4). Checks that each step is legal:
/// a forward needs its operation inputs in memory; a backward needs the gradient of its node complete
/// (the backward of every consumer done; an output's gradient is seeded by its own backward), the values
/// its `saves` lists, and runs once; frees need what they free. A backward produces gradients for each
/// operation input (allocated by the first contribution, accumulated in place after) and for each
/// parameter input (kept to the end of the step). Inputs and parameters are always resident. A view's
/// value shares its first input's storage, which stays allocated while any of its holders is in memory
/// (after its maker is freed, counted for the lowest-numbered view holding it); a view's gradient has
/// the full size (ViewInfo).
class Simulator {
 public:
  explicit Simulator(const graph::ComputeGraph& g, SimulatorOptions options = {}) : m_graph(g), m_options(options) {}

  /// Simulates the schedule. An illegal schedule yields a result whose `error` says which step and why.
  [[nodiscard]] SimulationResult run(const Schedule& schedule) const;

 private:
  const graph::ComputeGraph& m_graph;
  SimulatorOptions m_options;
};

}  // namespace remat::sim
