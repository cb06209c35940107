#pragma once

#include <string>
#include <string_view>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/Diagnostic.hpp"

namespace remat::io {

/// Parses Checkmate (Jain et al., MLSys 2020) and Moccasin networkx node-link JSON: either Checkmate
/// graphs (`id`, `name`, `cost_cpu`, `cost_ram`, `backward`; links `source`/`target`) or random
/// layered graphs (`name`, `duration`, `out_cost`, `param_cost`; links `{"0": src, "1": dst}`).
/// Forward nodes become op nodes, `backward: true` nodes the graph's explicit backward nodes; how saves
/// and backward times are derived is described in docs/formats.md. Random layered graphs, and every graph
/// when `asGiven`, are computed as given (ComputeGraph::asGiven): every node, a `backward: true` one too,
/// is an operation and no backward pass is added. Never throws.
[[nodiscard]] Result<graph::ComputeGraph> readCheckmateJson(std::string_view text, const std::string& fileName,
                                                            bool asGiven = false);

}  // namespace remat::io
