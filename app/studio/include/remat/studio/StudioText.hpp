#pragma once

#include <QString>

#include <string>
#include <string_view>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/solvers/Pins.hpp"
#include "remat/solvers/Solver.hpp"
#include "remat/studio/SolveRunner.hpp"
#include "remat/studio/StudioJobs.hpp"

namespace remat::studio {

class StudioDocument;

/// UTF-8 text (a solver's or an outcome's name) as a QString.
[[nodiscard]] inline QString qstr(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

/// The sentences Studio shows about its document, made without widgets so that they are the same
/// wherever they appear and can be tested alone.

/// The pins in a line ("keep conv1, relu2; recompute 5 nodes"), and in `tooltip` every name; "none..."
/// without pins.
[[nodiscard]] QString pinsSummary(const graph::ComputeGraph& g, const solvers::Pins& pins, QString& tooltip);

/// The settings a run was made under, to tell when the panel's differ.
struct RunSettings {
  solvers::Strategy strategy = solvers::Strategy::Time;
  solvers::DpModelKind model = solvers::DpModelKind::Simulator;
};
/// Why the rows do not answer the panel's settings (another strategy or DP model than the last run's),
/// or an empty string.
[[nodiscard]] QString staleText(const RunSettings& run, const RunSettings& panel);

/// The title over the plan views for the plan shown (`shown`: one of the document's results or its
/// plain run; null for none): its solver, outcome, whether it wins and fits, the budget at hand (each
/// solver's own in least mode), strategy, peak and overhead; or, when `stale` says so, that the rows are
/// stale.
[[nodiscard]] QString planTitle(const StudioDocument& document, const solvers::SolveResult* shown, bool winner,
                                const QString& stale);

/// What Messages says when a run starts: the solvers, strategy, DP model, budget, time limit and pins.
[[nodiscard]] QString runDescription(const std::vector<std::string>& ids, const SolveRunner::Settings& settings);

/// One solver's answer to Largest batch, as Messages says it.
[[nodiscard]] QString batchAnswerText(const BatchSearch::Answer& answer, Bytes memory);

}  // namespace remat::studio
