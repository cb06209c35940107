#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/Diagnostic.hpp"

namespace remat::graph {

/// Cost models fill fwd_time and bwd_time (docs/architecture.md section 2).
///  - `file`: the times the graph file carries (measured by `profile`, given by Checkmate, ...).
///  - `paper`: T_v = 10 when the operation type starts with "Conv", 1 otherwise, as in the released
///    program of Kusumoto et al.; the paper defines no backward time, so bwd_time = T_v.
///  - `flops:<device>` (`flops` alone: the first profile, a100): a roofline estimate in nanoseconds from
///    each operation's FLOPs and bytes (OpTable.hpp), bwd_time = the op table's backward factor x T_v.
///    Needs shapes (graphs imported from ONNX have them); nodes without shapes cost the launch only.
[[nodiscard]] std::vector<std::string> costModelNames();

/// The graph with times replaced by the named model, or an error naming the known models.
[[nodiscard]] Result<ComputeGraph> applyCostModel(const ComputeGraph& g, std::string_view model);

/// T_v of the paper's model for one operation type.
[[nodiscard]] Ticks paperForwardTime(std::string_view opType);

}  // namespace remat::graph
