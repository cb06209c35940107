#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/NodeId.hpp"
#include "remat/sim/Schedule.hpp"
#include "remat/sim/Simulator.hpp"
#include "remat/viz/Figure.hpp"
#include "remat/viz/Scene.hpp"

namespace remat::viz {

/// What an operation node is doing at a schedule step, in the schedule matrix. A cell with none of
/// these is empty: the node's value is not in memory and no step runs it.
enum class CellState : std::uint8_t {
  Computed,    ///< the step is the node's first `fwd`
  Recomputed,  ///< the step is a later `fwd` of the node
  Backward,    ///< the step is the node's `bwd`
  Alive,       ///< the node's value is in memory while another step runs
};

/// Consecutive steps first..last (inclusive) of one row in the same state.
struct MatrixRun {
  std::size_t first = 0;
  std::size_t last = 0;
  CellState state = CellState::Alive;

  bool operator==(const MatrixRun&) const = default;
};

/// A plan as a steps x nodes matrix (as in Checkmate's figures, Jain et al. 2020): one row per
/// operation node, run-length encoded.
struct ScheduleMatrix {
  std::vector<graph::NodeId> rows;           ///< operation nodes in topological order
  std::vector<std::vector<MatrixRun>> runs;  ///< per row: ascending, disjoint, maximal (no two
                                             ///< touching runs share a state)
  std::size_t steps = 0;                     ///< schedule length

  /// The state of a cell, nullopt when empty. O(log runs of the row).
  [[nodiscard]] std::optional<CellState> state(std::size_t row, std::size_t step) const;
};

/// Thrown when buildScheduleMatrix gets a simulation result that does not belong to the schedule or
/// lacks the lifetimes it needs.
class ScheduleMatrixError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// The matrix of a simulated schedule. `result` must be the valid simulation of `schedule` on `g` with
/// SimulatorOptions::recordLifetimes: its Value and Recomputed lifetimes give the Alive cells, the
/// schedule's `fwd` and `bwd` steps the others (a step's own cell wins over Alive). Throws
/// ScheduleMatrixError otherwise. O(steps + lifetimes + rows).
[[nodiscard]] ScheduleMatrix buildScheduleMatrix(const graph::ComputeGraph& g, const sim::Schedule& schedule,
                                                 const sim::SimulationResult& result);

/// The matrix as a figure: steps across, the first operation on top, one rectangle per run coloured by
/// its state (computed, recomputed, backward, kept in memory). Rows are labelled with node names when
/// there are at most 40 of them, with their topological index otherwise. Hotspots: one of kind Node per
/// row (its label and its cells), tipped with the node's name.
///
/// `marks` outlines rows as the checkpoint drawing outlines boxes: pinned nodes (solid: keep, dashed:
/// recompute) and the found one (in the peak colour), named in the legend.
struct RowMarks {
  std::vector<graph::NodeId> keep;
  std::vector<graph::NodeId> recompute;
  std::optional<graph::NodeId> found;
};
[[nodiscard]] Scene scheduleMatrixScene(const ScheduleMatrix& matrix, const graph::ComputeGraph& g,
                                        const FigureStyle& style, const RowMarks& marks = {});

}  // namespace remat::viz
