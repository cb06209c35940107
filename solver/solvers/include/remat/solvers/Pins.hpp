#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/Diagnostic.hpp"
#include "remat/graph/NodeId.hpp"
#include "remat/graph/NodeSet.hpp"
#include "remat/sim/Schedule.hpp"

namespace remat::solvers {

/// Operations a user pinned to steer a plan by hand (docs/pins.md). An operation pinned `keep` is never
/// recomputed: the schedule computes it once, in the forward pass. One pinned `recompute` is never kept
/// past its segment: in a lower-set chain it is never a checkpoint (it may still be kept through the
/// last segment, whose backward follows its forward at once). Inputs and parameters are always resident
/// and cannot be pinned.
struct Pins {
  std::vector<graph::OpIndex> keep;
  std::vector<graph::OpIndex> recompute;

  [[nodiscard]] bool empty() const { return keep.empty() && recompute.empty(); }
};

/// Which pins a solver honours; the others it ignores, and says so in its result's message.
enum class PinSupport { None, Keep, KeepAndRecompute };

/// Whether a solver with this support honours every one of the pins (none to honour: false).
[[nodiscard]] inline bool honoursAll(PinSupport support, const Pins& pins) {
  if (pins.empty()) return false;
  return support == PinSupport::KeepAndRecompute || (support == PinSupport::Keep && pins.recompute.empty());
}

/// Pins from node names, in order, without duplicates. An unknown name, an input or parameter, or an
/// operation pinned both ways is an error naming it (`where` says where the names came from: "--keep",
/// a file's name).
[[nodiscard]] Result<Pins> pinsFromNames(const graph::ComputeGraph& g, const std::vector<std::string>& keep,
                                         const std::vector<std::string>& recompute, const SourceLocation& where = {});

/// The pins the graph itself carries (ComputeGraph::pinnedKeep and pinnedRecompute, the native format's
/// top-level "pins": a graph captured from PyTorch pins its in-place writes' values, docs/pins.md).
[[nodiscard]] Pins graphPins(const graph::ComputeGraph& g);

/// The names of the graph's pins, to put before a user's in pinsFromNames.
void addGraphPinNames(const graph::ComputeGraph& g, std::vector<std::string>& keep,
                      std::vector<std::string>& recompute);

/// Adds the pins of a JSON text {"keep": [names], "recompute": [names]} (either may be absent) to
/// `keep` and `recompute`; errors carry `file` and the JSON path.
[[nodiscard]] Result<bool> readPinNames(std::string_view text, const std::string& file, std::vector<std::string>& keep,
                                        std::vector<std::string>& recompute);

/// Reads a pins file (at most 16 MiB) with readPinNames; a missing or unreadable file is an error
/// naming it.
[[nodiscard]] Result<bool> readPinsFile(const std::string& path, std::vector<std::string>& keep,
                                        std::vector<std::string>& recompute);

/// The pins as JSON text: {"keep": [names], "recompute": [names]}.
[[nodiscard]] std::string pinsJson(const graph::ComputeGraph& g, const Pins& pins);

/// The pins a schedule breaks, one readable sentence each: a `keep` operation computed more than once,
/// and (for plans lowered from a lower-set chain, `lowerSets` not empty) a `recompute` operation kept as
/// a checkpoint. `recompute` pins are checked only where `checkRecompute` is set.
[[nodiscard]] std::vector<std::string> pinViolations(const graph::ComputeGraph& g, const sim::Schedule& schedule,
                                                     const std::vector<graph::NodeSet>* lowerSets, const Pins& pins,
                                                     bool checkRecompute);

}  // namespace remat::solvers
