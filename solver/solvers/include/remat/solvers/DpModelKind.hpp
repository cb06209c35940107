#pragma once

#include <optional>
#include <string_view>

namespace remat::solvers {

/// Which memory model the DPs (and Chen's baselines, which lower chains as the DPs do) plan with: the
/// simulator's (the default; dp/README.md, docs/dp.md) or the paper's (Kusumoto et al. 2019, Section 3;
/// `--model paper`), kept so the paper's tables reproduce. A request's setting (SolveRequest::model),
/// so it lives beside the Solver interface; the models themselves are the dp family's.
enum class DpModelKind { Simulator, Paper };

[[nodiscard]] std::string_view dpModelName(DpModelKind m);
[[nodiscard]] std::optional<DpModelKind> dpModelFromName(std::string_view name);

}  // namespace remat::solvers
