#pragma once

#include <cstddef>
#include <stdexcept>
#include <utility>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/Units.hpp"
#include "remat/sim/Simulator.hpp"
#include "remat/viz/Figure.hpp"
#include "remat/viz/Scene.hpp"

namespace remat::viz {

/// A tensor of the plan at its address in the arena: it occupies [offset, offset + bytes) during the
/// steps tensor.first..tensor.last.
struct PlacedTensor {
  sim::TensorLifetime tensor;
  Bytes offset{0};
};

/// A static allocation of a simulated plan: every tensor the simulator allocated at one fixed offset
/// in one arena, so that tensors alive at a common step never share an address.
struct MemoryLayout {
  std::vector<PlacedTensor> tensors;  ///< in the order of the lifetimes it was planned from
  Bytes arenaBytes{0};                ///< the highest end address of any tensor
  Bytes peakLiveBytes{0};             ///< the most bytes alive at one step: no allocation needs less
  double fragmentation = 0;           ///< 1 - peakLiveBytes / arenaBytes (0 for an empty arena)
  std::size_t steps = 0;              ///< schedule length; every tensor's last step is below it
};

/// Thrown when a lifetime handed to planMemoryLayout lies outside the schedule or ends before it begins.
class InvalidLifetime : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Offsets for the simulator's tensor lifetimes (SimulatorOptions::recordLifetimes). Heuristic:
/// parameters and inputs, resident throughout, are packed from offset 0 (all parameters, then all
/// inputs, in lifetime order); every other tensor then goes, largest first, into the smallest gap that
/// fits it between the tensors already placed that are alive at a common step, or on top of them when
/// no gap fits (the "greedy by size" offset calculation of Pisarchyk and Lee 2020, "Efficient Memory
/// Management for Deep Neural Net Inference"). Not optimal (the problem is NP-hard, like dynamic storage
/// allocation), so fragmentation may be positive. Each tensor reads the busy addresses of its window
/// from O(log steps) merged range sets of a segment tree over the steps and sweeps their union, so the
/// cost follows the number of separate busy runs rather than of tensors: near n log n when sizes
/// repeat, as in real networks, and roughly quadratic at worst (many sizes, nothing packing flush).
/// Throws InvalidLifetime when a lifetime has first > last, last >= steps or negative bytes.
[[nodiscard]] MemoryLayout planMemoryLayout(const std::vector<sim::TensorLifetime>& lifetimes, std::size_t steps);

/// The pairs (i, j), i < j, ascending, of tensors of the layout alive at a common step whose address
/// ranges intersect: empty for a correct layout. Found with CGAL's box intersection (Zomorodian and
/// Edelsbrunner's streamed segment tree) on the half-open boxes [first, last + 1) x [offset, offset +
/// bytes), in O(n log^2 n + k) for k pairs. Coordinates are exact below 2^53 bytes.
[[nodiscard]] std::vector<std::pair<std::size_t, std::size_t>> overlappingTensors(const MemoryLayout& layout);

/// The layout as a figure: steps across, addresses up, each tensor a rectangle filled by what it holds
/// (parameters and inputs as one block each), the peak of live bytes as a dashed line, and arena,
/// peak and fragmentation in the legend. Tensors whose rectangle has room for it carry the name of
/// their node in `g`.
[[nodiscard]] Scene memoryLayoutScene(const MemoryLayout& layout, const graph::ComputeGraph& g,
                                      const FigureStyle& style);

/// The MemoryCategory a tensor kind is drawn and summed as.
[[nodiscard]] MemoryCategory memoryCategory(sim::TensorLifetime::Kind kind);

}  // namespace remat::viz
