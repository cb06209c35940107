#pragma once

#include <string>
#include <string_view>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/Diagnostic.hpp"

namespace remat::io {

/// Parses the PFN computational-graph text of Kusumoto et al. (NeurIPS 2019; the `cg_*.txt` files of
/// pfnet-research/recompute). Intermediate variables become op nodes `v<id>`, model inputs `input<k>`,
/// parameters are named by their path; times follow the paper's cost model (10 for `Conv*`, else 1)
/// and saves come from the backward blocks. The graph is named after the file stem. Errors read
/// `file:line: message`. Never throws.
[[nodiscard]] Result<graph::ComputeGraph> readPfnCg(std::string_view text, const std::string& fileName);

}  // namespace remat::io
